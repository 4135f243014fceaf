"""A dispatched row's sidecar names its config key, and a PR sweep's results are the PR's.

The GPU side as run-sweep.yml and the templates run it, on a real git repository
(the example fleet's seed change): `ci split --job-context` beside the matrix, then per
job `ci row-env` and `results sidecar` with a dispatch's GitHub environment (a PR sweep
is a workflow_dispatch on main: GITHUB_REF is main's), then `results ingest`.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from helpers import ROW, run_cli, vllm_output  # helpers puts utils/ on sys.path

from sweepgate.commands.example import SEED_KEY, build_repo
from sweepgate.core.load import Git
from sweepgate.core.select import build_matrix
from sweepgate.results import record as R
from sweepgate.results import store
from sweepgate.workflow.fanout import row_for_id
from sweepgate.workflow.kv import parse_kv

MAIN_SHA = "a" * 40


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """(repository, head sha, matrix file) of the example's seed change."""
    repo = tmp_path_factory.mktemp("fleet")
    base, head = build_repo(str(repo))
    git = Git(str(repo))
    matrix = build_matrix(git, base, head)
    git.close()
    path = repo.parent / f"{repo.name}-matrix.json"
    path.write_text(json.dumps(matrix), encoding="utf-8")
    return repo, head, path


def split(capsys, tmp_path, repo, head, matrix, *extra) -> tuple[dict, dict]:
    out, context = tmp_path / "outputs", tmp_path / "job-context.json"
    rc, _, err = run_cli(capsys, "ci", "split", "--matrix", str(matrix), "--output", str(out), "--canary",
                         "--job-context", str(context), "--keys-from", str(repo), "--commit", head, *extra)
    assert rc == 0, err
    return parse_kv(out.read_text(encoding="utf-8")), json.loads(context.read_text(encoding="utf-8"))


def dispatched_job(capsys, monkeypatch, tmp_path, matrix, context, row_id: str, ref: str) -> dict:
    """What one benchmark job leaves, as the template runs it; returns its stored record."""
    results = tmp_path / f"results-{row_id.replace('/', '-')}"
    env_file = tmp_path / f"env-{row_id.replace('/', '-')}"
    pool = row_for_id(json.loads(matrix.read_text(encoding="utf-8")), row_id)["runner"].split(":")[-1]
    for k, v in {"ROW_ID": row_id, "MATRIX_FILE": str(matrix), "JOB_CONTEXT_FILE": str(context),
                 "GITHUB_RUN_ID": "777", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_SHA": MAIN_SHA, "GITHUB_REF": ref,
                 "RUNNER_NAME": f"{pool}_01", "JOB_STATUS": "success"}.items():  # one of its pool's runners
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("ROW", raising=False)
    monkeypatch.delenv("CONFIG_KEY", raising=False)
    rc, _, err = run_cli(capsys, "ci", "row-env", "--result-dir", str(results), "--output", str(env_file))
    assert rc == 0, err
    job_env = parse_kv(env_file.read_text(encoding="utf-8"))
    for name in ("RESULT_DIR", "RESULT_FILENAME"):
        monkeypatch.setenv(name, job_env[name])
    results.mkdir(parents=True, exist_ok=True)
    conc = row_for_id(json.loads(matrix.read_text(encoding="utf-8")), row_id)["conc"]
    # the client's output at the row's conc; a multi-node row's, one per conc in a list (disagg_head.sh)
    output = [vllm_output(c) for c in conc] if isinstance(conc, list) else vllm_output(conc)
    (results / f"{job_env['RESULT_FILENAME']}.json").write_text(json.dumps(output), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 0, err
    sidecar = json.loads((results / f"{job_env['RESULT_FILENAME']}.job.json").read_text(encoding="utf-8"))
    db = f"sqlite:///{tmp_path / 'results.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(results))
    assert rc == 0, err
    with store.open_store(db) as st:
        recs = [r for r in st.run_results("777") if r[R.RESULT_FILENAME].startswith(job_env["RESULT_FILENAME"])]
    assert sorted(r[R.CONC] for r in recs) == (conc if isinstance(conc, list) else [conc])
    return {"sidecar": sidecar["job"], "record": recs[0]}


def test_a_dispatched_rows_sidecar_carries_its_config_key(swept, tmp_path, capsys, monkeypatch):
    repo, head, matrix = swept
    outputs, context = split(capsys, tmp_path, repo, head, matrix, "--pr-number", "42")
    refs = [ref for name, value in outputs.items() if value.startswith("{") for ref in json.loads(value)["row"]]
    assert {r["id"] for r in refs} == set(context["config-keys"])  # every dispatched row has its key
    assert set(context["config-keys"].values()) == {SEED_KEY, "dsr1-fp4-b300-sglang-disagg",
                                                    "dsr1-fp8-mi355x-sglang-disagg"}
    (agentic,) = [r for r in refs if r["id"].startswith("agentic/") and "conc8_" in r["name"]]
    (multinode,) = [r for r in refs if r["id"].startswith("multinode/") and "mi355x" in r["runner"]]
    for ref, key in ((agentic, SEED_KEY), (multinode, "dsr1-fp8-mi355x-sglang-disagg")):
        done = dispatched_job(capsys, monkeypatch, tmp_path, matrix, tmp_path / "job-context.json", ref["id"],
                              "refs/heads/main")
        assert done["sidecar"]["config-key"] == key and done["record"][R.CONFIG_KEY] == key


def test_a_pr_sweeps_record_has_the_pr_ref_and_head_commit(swept, tmp_path, capsys, monkeypatch):
    """A PR's sweep is a dispatch on main (GITHUB_REF refs/heads/main, GITHUB_SHA main's): its
    results must not join main's baseline."""
    repo, head, matrix = swept
    _, context = split(capsys, tmp_path, repo, head, matrix, "--pr-number", "42")
    assert (context["ref"], context["commit"]) == ("refs/pull/42/head", head)
    done = dispatched_job(capsys, monkeypatch, tmp_path, matrix, tmp_path / "job-context.json", "agentic/0",
                          "refs/heads/main")
    assert (done["sidecar"]["ref"], done["sidecar"]["commit"]) == ("refs/pull/42/head", head)
    assert (done["record"][R.REF], done["record"][R.COMMIT]) == ("refs/pull/42/head", head)
    db = f"sqlite:///{tmp_path / 'results.db'}"
    with store.open_store(db) as st:
        assert st.records(ref="refs/heads/main") == []  # nothing of the PR's is main's


def test_a_push_sweep_records_main(swept, tmp_path, capsys, monkeypatch):
    repo, head, matrix = swept
    monkeypatch.setenv("GITHUB_REF", "refs/heads/main")
    _, context = split(capsys, tmp_path, repo, head, matrix, "--pr-number", "")
    assert (context["ref"], context["commit"]) == ("refs/heads/main", head)
    done = dispatched_job(capsys, monkeypatch, tmp_path, matrix, tmp_path / "job-context.json", "agentic/1",
                          "refs/heads/main")
    assert (done["record"][R.REF], done["record"][R.COMMIT]) == ("refs/heads/main", head)


def test_split_refuses_a_bad_pr_number(swept, tmp_path, capsys):
    repo, head, matrix = swept
    with pytest.raises(SystemExit) as exit_:  # argument syntax: argparse's usage line, exit 2
        run_cli(capsys, "ci", "split", "--matrix", str(matrix), "--output", str(tmp_path / "o"),
                "--job-context", str(tmp_path / "c.json"), "--keys-from", str(repo), "--pr-number", "42; rm -rf /")
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--pr-number" in err and not (tmp_path / "c.json").exists()


def test_row_keys_survive_trimming_and_eval_selection(swept):
    """Trimmed concurrencies and eval flags change a row but not the config it came from."""
    from sweepgate.core.rowkeys import matrix_row_keys
    from sweepgate.core.select import Options, iter_rows

    repo, _, _ = swept
    git = Git(str(repo))
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    trimmed = build_matrix(git, "HEAD~1", head, Options(trim_conc=True, all_evals=True))
    git.close()
    rows = [row for _, row in iter_rows(trimmed)]
    keys = matrix_row_keys(str(repo), trimmed, rows)
    assert None not in keys and len(keys) == len(rows)
    assert {k for k, r in zip(keys, rows) if r.get("scenario-type") == "agentic-coding"} == {SEED_KEY}


@pytest.mark.parametrize("pattern", [SEED_KEY[:-1] + "?", SEED_KEY[:-1] + "[e]", "kimik3-*-lmcach[e]"])
def test_row_keys_read_the_changelog_patterns_as_the_changelog_does(swept, tmp_path, capsys, pattern):
    """Review: `ci split --job-context` matched the matrix's changelog patterns with fnmatch, so a `?` or
    `[...]` in one was a wildcard there, while the changelog (and the reference's process_changelog.py)
    reads only `*` as one: an entry naming `...-lmcach?` names no config, yet its rows were given the
    seed key. They now match as the changelog's resolution does (core.keypatterns), and get no key."""
    repo, head, matrix = swept
    doc = json.loads(matrix.read_text(encoding="utf-8"))
    for entry in doc["changelog_metadata"]["entries"]:
        entry["config-keys"] = [pattern if k == SEED_KEY else k for k in entry["config-keys"]]
    renamed = tmp_path / "matrix.json"
    renamed.write_text(json.dumps(doc), encoding="utf-8")
    context = tmp_path / "job-context.json"
    rc, _, err = run_cli(capsys, "ci", "split", "--matrix", str(renamed), "--output", str(tmp_path / "o"),
                         "--job-context", str(context), "--keys-from", str(repo), "--commit", head)
    assert rc == 0, err
    keys = json.loads(context.read_text(encoding="utf-8"))["config-keys"]
    assert SEED_KEY not in keys.values(), keys
    agentic = sorted(i for i in keys if i.startswith("agentic/"))
    assert agentic and all(keys[i] is None for i in agentic), keys
    assert {k for k in keys.values() if k} == {"dsr1-fp4-b300-sglang-disagg", "dsr1-fp8-mi355x-sglang-disagg"}
    assert "no config key for rows" in err and agentic[0] in err, err


@pytest.mark.parametrize("kind, said", [("folder", "matrix is a folder, not a JSON file"),
                                        ("text", "matrix is not valid JSON"),
                                        ("latin1", "matrix is not UTF-8 text"),
                                        ("context", "job context is not valid JSON")])
def test_an_unreadable_matrix_or_job_context_is_one_line(tmp_path, capsys, monkeypatch, kind, said):
    """Audit: `results sidecar` with MATRIX_FILE a folder, a text file or Latin-1 bytes ended in
    "internal error" (IsADirectoryError, JSONDecodeError, UnicodeDecodeError); `ci row-env` said why."""
    bad = {"folder": tmp_path, "text": tmp_path / "m.txt", "latin1": tmp_path / "m.bin",
           "context": tmp_path / "ctx.json"}[kind]
    (tmp_path / "m.txt").write_text("not json\n")
    (tmp_path / "m.bin").write_bytes(b"\xff\xfe{}")
    (tmp_path / "ctx.json").write_text("{oops")
    env = {"ROW_ID": "single_node/0", "MATRIX_FILE": str(bad), "RESULT_DIR": str(tmp_path / "out"),
           "RESULT_FILENAME": "res", "JOB_STATUS": "success"}  # else its line too: every wrong one is named
    if kind == "context":
        env.update(ROW=json.dumps(ROW), JOB_CONTEXT_FILE=str(bad))  # a whole row: refused otherwise
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and said in err and "internal error" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith(str(bad)), err


SIDECAR_REFUSALS = {  # environment changes -> the one line's start
    "context missing": ({"JOB_CONTEXT_FILE": "{tmp}/nope.json"}, "{tmp}/nope.json: job context not found"),
    "context a folder": ({"JOB_CONTEXT_FILE": "{tmp}"}, "{tmp}: job context is a folder, not a JSON file"),
    "row not an object": ({"ROW": "[1]"}, "ROW:1: row is not a JSON object"),
    "row bad tp": ({"ROW": json.dumps(dict(ROW, tp=None))}, "ROW:1: row's tp null is not a whole number"),
    "result dir a file": ({"RESULT_DIR": "{tmp}/afile"}, "{tmp}/afile: RESULT_DIR is a file, not a folder"),
    "attempt text": ({"GITHUB_RUN_ATTEMPT": "abc"}, "GITHUB_RUN_ATTEMPT: 'abc' is not a run attempt"),
    "attempt zero": ({"GITHUB_RUN_ATTEMPT": "0"}, "GITHUB_RUN_ATTEMPT: '0' is not a run attempt"),
    "status unknown": ({"JOB_STATUS": "skipped"},
                       "JOB_STATUS: 'skipped' is not a job status: expected one of success, failure, cancelled"),
    "status unset": ({"JOB_STATUS": ""}, "JOB_STATUS: not set: expected one of success, failure, cancelled"),
}


@pytest.mark.parametrize("case", sorted(SIDECAR_REFUSALS))
def test_the_sidecar_step_refuses_what_it_would_have_guessed(case, tmp_path, capsys, monkeypatch):
    """Review: with JOB_CONTEXT_FILE naming a missing file a PR's result was filed under GITHUB_REF
    (main's, as a PR sweep is a dispatch on main), exit 0; an attempt 'abc' became 1 and an unknown
    status a failure; ROW '[1]' and a RESULT_DIR that is a file were internal errors. Each is one
    line, exit 1, and no sidecar is written."""
    (tmp_path / "afile").write_text("")
    env = {"ROW": json.dumps(ROW), "RESULT_DIR": str(tmp_path / "out"), "RESULT_FILENAME": "res",
           "GITHUB_RUN_ID": "1", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_REF": "refs/heads/main", "JOB_STATUS": "success"}
    change, said = SIDECAR_REFUSALS[case]
    env.update({k: v.replace("{tmp}", str(tmp_path)) for k, v in change.items()})
    monkeypatch.delenv("JOB_CONTEXT_FILE", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    (line,) = err.strip().splitlines()
    assert rc == 1 and line.startswith(said.replace("{tmp}", str(tmp_path))) and "internal error" not in err, err
    assert not (tmp_path / "out" / "res.job.json").exists()


def test_the_sidecar_step_works_from_a_subfolder_with_the_same_run_identity(swept, tmp_path, capsys, monkeypatch):
    """New-user review: `results sidecar` run from configs/ said "--tools: no configs/runners.yaml in
    this folder" (never passed): its --tools and the files it hashes were the working directory's."""
    repo, _, matrix = swept
    row = next(r for rows in json.loads(matrix.read_text(encoding="utf-8"))["single_node"].values() for r in rows)
    for k, v in {"ROW": json.dumps(row), "RESULT_FILENAME": "job", "GITHUB_RUN_ID": "9", "GITHUB_RUN_ATTEMPT": "1",
                 "GITHUB_SHA": MAIN_SHA, "GITHUB_REF": "refs/heads/main", "JOB_STATUS": "success"}.items():
        monkeypatch.setenv(k, v)
    for name in ("ROW_ID", "MATRIX_FILE", "JOB_CONTEXT_FILE", "SWEEPGATE_RUN_IDENTITY"):
        monkeypatch.delenv(name, raising=False)
    identities = []
    for where in (repo, repo / "configs"):
        out = tmp_path / where.name
        monkeypatch.setenv("RESULT_DIR", str(out))
        monkeypatch.chdir(where)
        rc, _, err = run_cli(capsys, "results", "sidecar")
        assert rc == 0, err
        identities.append(json.loads((out / "job.job.json").read_text(encoding="utf-8"))["job"][R.RUN_IDENTITY])
    assert identities[0] and identities[0] == identities[1]


@pytest.mark.parametrize("commit", ["zzz", "HEAD", "abc1234", ""])
def test_split_refuses_a_commit_that_is_not_a_full_sha(swept, tmp_path, capsys, commit):
    """`ci split --commit zzz` was written into the job context as given; every GPU job's sidecar step
    then refused it as a bad GITHUB_SHA, after the GPU-hours were spent. It is refused up front."""
    repo, _, matrix = swept
    context = tmp_path / "job-context.json"
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "ci", "split", "--matrix", str(matrix), "--output", str(tmp_path / "o"),
                "--job-context", str(context), "--keys-from", str(repo), "--commit", commit)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "argument --commit: " in err, err
    assert "not a full commit SHA" in err or "empty value" in err, err
    assert not context.exists()
