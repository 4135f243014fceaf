"""Bad input hunt (badin18): plan, preflight, engines capture, rehearse, full-sweep/test-config and
ci decide/authorize/watch driven as a user does: the real command line, odd files and odd servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

FSL_ROW = {
    "image": "vllm/vllm-openai:v0.11.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
    "precision": "fp8", "framework": "vllm", "runner": "cluster:b300-nv", "isl": 1024, "osl": 1024, "tp": 8,
    "pp": 1, "dcp-size": 1, "pcp-size": 1, "conc": 4, "max-model-len": 2304, "ep": 1, "dp-attn": False,
    "spec-decoding": "none", "exp-name": "dsr1_1k1k", "disagg": False, "run-eval": False,
}
SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"


def sweepgate(args: list[str], cwd: Path, env: dict | None = None, timeout: float = 120, **kw):
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full.update({"PYTHONPATH": str(ROOT / "utils"), **(env or {})})
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=timeout, **kw)


def one_line(r: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.fixture
def script_repo(tmp_path):
    """A repository whose one benchmark script is what a test writes (``write(body)``)."""
    repo = tmp_path / "repo"
    (repo / "configs").mkdir(parents=True)
    (repo / "configs" / "runners.yaml").write_text((ROOT / "configs" / "runners.yaml").read_text())
    subprocess.run(["git", "init", "-q", str(repo)], check=True)

    def write(body: str) -> Path:
        path = repo / SCRIPT
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/bash\n" + body)
        return repo

    script_repo.write = write
    return write


# --- rehearse --row-json: a row a job could not run --------------------------------------------------

@pytest.mark.parametrize("field,raw,said", [
    ("conc", "-4", "row's conc -4 is not a positive whole number"),
    ("conc", "1e400", "row's conc holds NaN or Infinity"),
    ("conc", "9" * 400, "row's conc holds NaN or Infinity"),
    ("conc", '"four"', "row's conc \"four\" is not a positive whole number"),
    ("tp", "0", "row's tp 0 is not a whole number from 1"),
    ("isl", "-1", "row's isl -1 is not a whole number from 1"),
    ("exp-name", '"../../escaped"', "row's job file name (exp-name, precision, framework, spec-decoding) holds '/'"),
])
def test_a_row_file_with_a_value_no_job_could_run_is_refused_before_the_script(script_repo, tmp_path, field, raw,
                                                                                 said):
    """Hunt badin18: `rehearse --row-json` ran the script with whatever the row held: conc -4, 1e400 or
    "four" reached it as CONC (the script failed with "no result file ..._conc-4_..."), and an exp-name
    "../../escaped" wrote the result file and its sidecar two folders above RESULT_DIR, outside the work
    dir. The row is checked as `ci row-env` checks a job's row, in one line at the file."""
    repo = script_repo('echo ran > "$RESULT_DIR/../ran"\n')
    text = json.dumps({**FSL_ROW, field: "PLACEHOLDER"}).replace('"PLACEHOLDER"', raw)
    rows = tmp_path / "row.json"
    rows.write_text(text)
    work = tmp_path / "deep" / "er" / "work"
    r = sweepgate(["rehearse", "--row-json", str(rows), "--work-dir", str(work)], cwd=repo / "configs")
    line = one_line(r)
    assert r.returncode == 1 and line.startswith(f"{rows}:1: {said}"), line
    assert not (work / "ran").exists() and not list(tmp_path.glob("deep/escaped*")), "the script ran"


def test_a_row_file_nested_too_deeply_is_one_line(script_repo, tmp_path):
    """Hunt badin18: `--row-json` of 100,000 nested brackets was `internal error: RecursionError`."""
    repo = script_repo("exit 0\n")
    rows = tmp_path / "row.json"
    rows.write_text("[" * 100000 + "]" * 100000)
    r = sweepgate(["rehearse", "--row-json", str(rows)], cwd=repo)
    line = one_line(r)
    assert r.returncode == 1 and line.startswith(f"{rows}: nested too deeply"), line


@pytest.mark.parametrize("writes,said", [
    ("printf '\\232{}'", "result file is not UTF-8 text"),
    ("python3 -c 'print(\"[\" * 100000 + \"]\" * 100000)'", "result file is nested too deeply"),
])
def test_a_script_whose_result_file_is_not_json_text_fails_the_rehearsal_in_words(script_repo, tmp_path, writes,
                                                                                   said):
    """Hunt badin18: a script that wrote binary junk, or brackets 100,000 deep, as its result file made
    the rehearsal `internal error: UnicodeDecodeError` / `RecursionError` (exit 1, no verdict, no sidecar);
    it is a failed rehearsal that says what is wrong with the file."""
    repo = script_repo(f'mkdir -p "$RESULT_DIR"; {writes} > "$RESULT_DIR/$RESULT_FILENAME.json"\n')
    rows = tmp_path / "row.json"
    rows.write_text(json.dumps(FSL_ROW))
    work = tmp_path / "work"
    r = sweepgate(["rehearse", "--row-json", str(rows), "--work-dir", str(work)], cwd=repo)
    assert r.returncode == 1 and "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert f"{SCRIPT}:2: {said}" in r.stderr, r.stderr  # the line that wrote it (s37b)
    sidecar, = (work / "results").glob("*.job.json")
    assert json.loads(sidecar.read_text())["job"]["status"] == "failure"


# --- preflight: a hand-edited flag manifest ---------------------------------------------------------

@pytest.mark.parametrize("option,said", [
    ({"nargs": "x"}, "options[0] 'nargs' is 'x', not a count from 0 or one of ?, *, +"),
    ({"nargs": -3}, "options[0] 'nargs' is -3, not a count from 0"),
    ({"takes_value": "yes"}, "options[0] 'takes_value' is a string, not true or false"),
    ({"choices": [{"a": 1}]}, "options[0] 'choices' holds an array or object"),
])
def test_a_manifest_option_the_checks_cannot_read_is_refused_at_its_file(tmp_path, option, said):
    """Hunt badin18: a manifest whose option had nargs "x" or -3, or takes_value "yes", was taken as it
    was (nargs "x" read as '*', -3 took no value), so preflight judged commands against it and passed
    or blamed the benchmark script; a choice that is an object was shown as Python's dict. Such an
    option is a broken manifest, said at its file as a missing field is."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.engines import manifest as M

    own = tmp_path / "configs" / "engines"
    own.mkdir(parents=True)
    opt = {"flags": ["--max-model-len"], "nargs": 1, "takes_value": True, "choices": None, **option}
    (own / "vllm-9.9.9.json").write_text(json.dumps({"engine": "vllm", "package": "vllm", "version": "9.9.9",
                                                     "command": "vllm serve", "options": [opt]}, indent=1))
    with pytest.raises(SweepgateError) as caught:
        M.load("vllm", "9.9.9", tmp_path)
    line = caught.value.diagnostics[0].render()
    assert line.startswith("configs/engines/vllm-9.9.9.json:6: not a flag manifest: " + said), line
    assert line.endswith("sweepgate engines capture --engine vllm --out configs/engines/vllm-9.9.9.json"), line


@pytest.mark.parametrize("version", ["../../../../etc/passwd", "", "0.11 rc1"])
def test_an_image_version_that_is_no_file_name_is_refused_at_images_json(tmp_path, version):
    """Hunt badin18: configs/engines/images.json mapping an image to vllm "../../../../etc/passwd" (or
    "") was taken: preflight looked for the manifest at that path, outside the folder, and warned
    "capture it: ... --out configs/engines/vllm-../../../../etc/passwd.json". A version must be one word,
    as the manifest's file name holds it."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.engines import manifest as M

    own = tmp_path / "configs" / "engines"
    own.mkdir(parents=True)
    (own / "images.json").write_text('{"images": {\n "example/vllm:v1": {"vllm": %s}}}' % json.dumps(version))
    with pytest.raises(SweepgateError) as caught:
        M.images(tmp_path)
    line = caught.value.diagnostics[0].render()
    assert line.startswith(f"configs/engines/images.json:2: image 'example/vllm:v1': the vllm version "
                           f"{version!r} is not a version"), line


# --- engines capture: a mooncake_master that misbehaves ---------------------------------------------

def fake_mooncake(tmp_path: Path, body: str) -> Path:
    """An installed mooncake-transfer-engine whose mooncake_master binary is the shell ``body``."""
    site = tmp_path / "site"
    (site / "mooncake").mkdir(parents=True)
    (site / "mooncake" / "__init__.py").write_text("")
    binary = site / "mooncake" / "mooncake_master"
    binary.write_text("#!/bin/bash\n" + body)
    binary.chmod(0o755)
    info = site / "mooncake_transfer_engine-0.3.7.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mooncake-transfer-engine\nVersion: 0.3.7\n")
    return site


def test_a_mooncake_master_whose_help_is_not_utf8_is_captured(tmp_path):
    """Hunt badin18: a byte that is not UTF-8 in `mooncake_master --helpfull` (a description in Latin-1)
    made `engines capture --engine mooncake` `internal error: UnicodeDecodeError`; the flags are read."""
    site = fake_mooncake(tmp_path, 'printf "    -port (the p\\xf6rt) type: int32 default: 50051\\n"\n'
                                   'printf "    -x (\\xff\\xfe) type: bool default: false\\n"\n')
    r = sweepgate(["engines", "capture", "--engine", "mooncake"], cwd=tmp_path,
                  env={"PYTHONPATH": f"{site}{os.pathsep}{ROOT / 'utils'}"})
    assert r.returncode == 0 and "internal error" not in r.stderr, r.stderr
    assert [o["flags"][0] for o in json.loads(r.stdout)["options"]] == ["--port", "--x"]


def test_a_mooncake_master_that_exits_says_its_status(tmp_path):
    site = fake_mooncake(tmp_path, "exit 3\n")
    r = sweepgate(["engines", "capture", "--engine", "mooncake"], cwd=tmp_path,
                  env={"PYTHONPATH": f"{site}{os.pathsep}{ROOT / 'utils'}"})
    assert r.returncode == 1 and one_line(r).endswith(
        "mooncake_master: --helpfull listed no flags (no output; exit status 3); make its shared libraries "
        "loadable (see configs/engines/README.md)"), r.stderr


@pytest.mark.parametrize("body", ["sleep 300 &\nsleep 300\n",
                                  'echo "    -port (p) type: int32 default: 1"\nsleep 300 &\n'])
def test_a_mooncake_master_that_hangs_or_leaves_a_process_is_stopped_with_all_it_started(tmp_path, monkeypatch,
                                                                                         body):
    """Hunt badin18: a `mooncake_master --helpfull` that never exits was `internal error: TimeoutExpired`
    after 60 s, and what it started ran on; one that printed its flags and left a process holding its
    output waited the 60 s too. It runs in a session of its own, its output in a file: it is stopped
    with all it started, in one line when it hung."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.engines import gflags

    sleeper = f"python3 -c 'import time; time.sleep(300)' {tmp_path}"  # its command line names this test
    site = fake_mooncake(tmp_path, body.replace("sleep 300", sleeper))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "mooncake", raising=False)
    hangs = not body.startswith("echo")
    if hangs:
        with pytest.raises(SweepgateError) as caught:
            gflags.mooncake_master_options([], timeout=1)
        line = caught.value.diagnostics[0].render()
        assert line == (f"{site}/mooncake/mooncake_master: --helpfull did not finish within 1s (stopped); run it by "
                        "hand to see what it waits for: it should print its flags and exit"), line
    else:
        options, _, _ = gflags.mooncake_master_options([], timeout=30)
        assert [o["dest"] for o in options] == ["port"]
    left = subprocess.run(["pgrep", "-f", f"time.sleep.300.. {tmp_path}"], capture_output=True, text=True).stdout.split()
    for pid in left:
        os.kill(int(pid), 9)
    assert not left, "processes left running"


def fake_lm_eval(tmp_path: Path, main: str) -> dict:
    """The environment of a command that finds an installed lm_eval whose ``__main__`` is ``main``."""
    site = tmp_path / "site"
    (site / "lm_eval").mkdir(parents=True)
    (site / "lm_eval" / "__init__.py").write_text("")
    (site / "lm_eval" / "__main__.py").write_text(main)
    (site / "lm_eval-0.4.9.1.dist-info").mkdir()
    (site / "lm_eval-0.4.9.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: lm_eval\n"
                                                                 "Version: 0.4.9.1\n")
    return {"PYTHONPATH": f"{site}{os.pathsep}{ROOT / 'utils'}"}


@pytest.mark.parametrize("main,said", [
    ('raise RuntimeError("no CUDA driver")', "RuntimeError: no CUDA driver"),
    ('raise OSError("libcudart.so.12: cannot open shared object file")', "OSError: libcudart.so.12: cannot open"),
    ("x = (", "SyntaxError: '(' was never closed"),
    ("import sys; sys.exit(4)", "exit(4)"),
    ("def setup_parser():\n    return None", "AttributeError: 'NoneType' object has no attribute"),
])
def test_an_engine_whose_own_code_fails_is_one_line_not_an_internal_error(tmp_path, main, said):
    """Hunt badin18: `engines capture` said only an ImportError in words; an installed engine whose import
    raised anything else (no GPU driver, a broken file) was `internal error: RuntimeError`, and one that
    called sys.exit(4) ended sweepgate with exit 4 and nothing said."""
    r = sweepgate(["engines", "capture", "--engine", "lm-eval"], cwd=tmp_path, env=fake_lm_eval(tmp_path, main))
    line = one_line(r)
    assert r.returncode == 1 and line.startswith(f"lm-eval: building lm_eval's parser failed: {said}"), line
    assert line.endswith("; the installed lm_eval failed, not sweepgate: check that it works in this environment "
                         "(configs/engines/README.md lists what each capture needs)"), line
    assert r.stdout == ""


def test_what_an_engine_prints_on_import_is_kept_out_of_the_manifest_on_stdout(tmp_path):
    """Hunt badin18: a package that prints while its parser is built (vLLM logs on import; here a print
    and a write to file descriptor 1) put those lines before the manifest: `engines capture > m.json`
    wrote a file that is no JSON. They go to stderr."""
    main = ('import os\nprint("INFO hello from import")\nos.write(1, b"c-level line\\n")\nimport argparse\n'
            'def setup_parser():\n    p = argparse.ArgumentParser()\n    p.add_argument("--limit", type=int)\n'
            '    return p\n')
    r = sweepgate(["engines", "capture", "--engine", "lm-eval"], cwd=tmp_path, env=fake_lm_eval(tmp_path, main))
    assert r.returncode == 0, r.stderr
    assert "--limit" in {f for o in json.loads(r.stdout)["options"] for f in o["flags"]}
    assert "INFO hello from import" in r.stderr and "c-level line" in r.stderr


# --- ci decide (workflow_dispatch): a pull request the API answers in another shape -------------------

def _pr_answer(change):
    def serve(stub, pr, base):
        changed = json.loads(json.dumps(pr))
        change(changed)
        stub.route("GET", f"{base}/pulls/7", changed)
        stub.route("GET", f"{base}/issues/7", {**changed, "url": f"{stub.url}{base}/issues/7"})
    return serve


@pytest.mark.parametrize("serve,said", [
    (_pr_answer(lambda p: p.update(head=None)), "a pull request without its head or base"),
    (lambda stub, pr, base: stub.route("GET", f"{base}/pulls/7", []), "a pull request without its head or base"),
    (_pr_answer(lambda p: p.update(labels=[{"id": 1, "name": None}])), "a label without a name"),
    (_pr_answer(lambda p: p.update(number=8)), "pull request #8 when #7 was asked for"),
    (_pr_answer(lambda p: p["base"].update(sha="main")), "a base.sha 'main' that is not 40 hex digits"),
    (_pr_answer(lambda p: p.update(draft="yes")), "JSON of an unexpected shape"),
    (_pr_answer(lambda p: p.update(labels=None)), "JSON of an unexpected shape"),
    (lambda stub, pr, base: stub.route("GET", f"{base}/commits/{'c' * 40}", {"sha": "c" * 40}),
     "commit cccccccccccc without its 'commit' object"),
])
def test_a_pull_request_answered_in_another_shape_is_one_line_at_the_api(tmp_path, serve, said):
    """Hunt badin18: `ci decide` for a dispatch read the PR's fields as they came: a PR without "head"
    (or a list for the PR) and a label whose name is null were `internal error: AttributeError`, and so
    was a commit without "commit"; "draft": "yes" or "labels": null said "cannot reach the GitHub API ...:
    (None, [<class 'dict'>], None)"; a PR numbered 8 when #7 was asked for decided a sweep of PR 8. Each is
    an answer that is not GitHub's JSON, said at the API's URL, and nothing is decided."""
    sys.path.insert(0, str(ROOT / "tests"))
    from github_stub import GitHubStub
    from test_ci_authorize import FORK, REPO, dispatch_event, run_cli, serve_pull

    stub = GitHubStub()
    try:
        pr = serve_pull(stub, head_repo=FORK, comments=[("maint", f"/sweep {'c' * 40}")])
        serve(stub, pr, f"/repos/{REPO}")
        out = tmp_path / "out"
        r = run_cli(stub, "decide", "--output", str(out), event=dispatch_event(), tmp_path=tmp_path)
    finally:
        stub.close()
    line = one_line(r)
    assert r.returncode == 1 and line.startswith(f"{stub.url}: the API answered with {said}, not GitHub's JSON "
                                                 f"(reading PR #7 of {REPO}); check --github-api-url"), line
    assert not out.exists()


# --- ci watch: a jobs answer of another shape -------------------------------------------------------

@pytest.mark.parametrize("answer,said", [
    ({"total_count": 1, "jobs": {"id": 1}}, "a 'jobs' that is not a list of job objects"),
    ({"total_count": 1, "jobs": ["fixed-seq-len a / benchmark"]}, "a 'jobs' that is not a list of job objects"),
    ({"total_count": 1, "jobs": None}, "a 'jobs' that is not a list of job objects"),
    ({"total_count": "many", "jobs": []}, "a 'total_count' 'many' that is not a count"),
])
def test_a_jobs_answer_of_another_shape_is_one_line_not_an_internal_error(answer, said):
    """Hunt badin18: `ci watch` read the jobs answer as it came: "jobs" as an object or a list of strings
    was `internal error: AttributeError`, and "jobs": null read as a run with no jobs, polled until
    --max-minutes (a watchdog that never cancels). Each is an answer that is not GitHub's JSON."""
    sys.path.insert(0, str(ROOT / "tests"))
    from github_stub import GitHubStub
    from test_ci_watch import JOBS, REPO, RUN, cancels, watch

    stub = GitHubStub()
    try:
        stub.route("GET", JOBS, answer)
        r = watch(stub, "--max-minutes", "0.05")
    finally:
        stub.close()
    line = one_line(r)
    assert r.returncode == 1 and line.startswith(f"{stub.url}: the API answered with {said}, not GitHub's JSON "
                                                 f"(watching run {RUN} of {REPO})"), line
    assert not cancels(stub)


def test_an_empty_until_is_a_usage_error():
    """Hunt badin18: `ci watch --until "$COLLECT_JOB"` with the variable unset watched for a job named ''
    (none is), so it never saw the sweep end and polled until --max-minutes."""
    r = sweepgate(["ci", "watch", "--until", "", "--run-id", "1"], cwd=ROOT)
    assert r.returncode == 2 and r.stderr.rstrip().endswith(
        "argument --until: empty value (is a variable in the command unset?)"), r.stderr


# --- ci decide: a pull_request payload without what a sweep runs with -----------------------------------

def _pr_event(change) -> dict:
    event = {"action": "synchronize", "number": 42, "pull_request": {
        "number": 42, "draft": False, "labels": [{"name": "sweep-enabled"}],
        "base": {"sha": "a" * 40, "ref": "main", "repo": {"full_name": "acme/bench"}},
        "head": {"sha": "b" * 40, "ref": "feature", "repo": {"full_name": "acme/bench"}}}}
    change(event)
    return event


@pytest.mark.parametrize("change,said", [
    (lambda e: e["pull_request"]["head"].pop("sha"), "pull_request payload without its pull_request.head.sha"),
    (lambda e: e["pull_request"]["base"].update(sha=None), "pull_request payload without its pull_request.base.sha"),
    (lambda e: (e.pop("number"), e["pull_request"].pop("number")),
     "pull_request payload without its pull_request.number"),
    (lambda e: (e.update(number=-1), e["pull_request"].update(number=-1)),
     "event payload: number: -1 is less than the minimum of 1"),
])
def test_a_pull_request_payload_without_its_refs_runs_no_sweep(tmp_path, change, said):
    """Hunt badin18: a labelled pull_request payload without head.sha (or base.sha, or the PR number)
    decided run=true with head_ref='' (base_ref='', pr_number=''), which the workflow then checked out
    and handed to git as refs: what a push without 'after' was refused for. A PR numbered -1 was taken."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps(_pr_event(change)))
    out = tmp_path / "output"
    r = sweepgate(["ci", "decide", "--event-path", str(event), "--event-name", "pull_request",
                   "--head-message", "x", "--output", str(out)], cwd=tmp_path)
    assert r.returncode == 1 and "internal error" not in r.stderr, r.stderr
    first = r.stderr.splitlines()[0]
    assert first == f"{event}: {said}; pass the webhook payload GitHub wrote ($GITHUB_EVENT_PATH)", r.stderr
    assert not out.exists()


# --- full-sweep / test-config: a filter that matches nothing -------------------------------------------

@pytest.fixture
def fleet_repo(make_repo):
    return make_repo()


@pytest.mark.parametrize("args,said", [
    (["full-sweep", "--runner-node-filter", "nope"],
     "--runner-node-filter: warning: 'nope' is in no runner name of these configs; check the spelling; "
     "configs/runners.yaml names for them: b300-nv_00"),
    (["test-config", "--config-keys", "dsr1-fp4-b300-vllm", "--runner-node-filter", "mi355"],
     "--runner-node-filter: warning: 'mi355' is in no runner name of these configs; check the spelling; "
     "configs/runners.yaml names for them: b300-nv_00"),
    (["test-config", "--config-keys", "dsr1-fp4-b300-vllm", "--conc", "3", "4"],
     "--conc: warning: no row of dsr1-fp4-b300-vllm has conc 3; pick concurrencies the configs sweep"),
])
def test_a_node_filter_or_conc_that_matches_nothing_is_warned_of(fleet_repo, args, said):
    """Hunt badin18: `--runner-node-filter nope` (or a node of another config's hardware) and
    `test-config --conc 3` for a config that never sweeps 3 printed `[]` (or fewer rows) and nothing
    else, as --model-prefix with a typo did before it warned; they warn the same way, exit 0."""
    r = sweepgate(args, cwd=fleet_repo.path / "configs")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(said), r.stderr
    json.loads(r.stdout)


@pytest.mark.parametrize("args,said", [
    (["test-config", "--config-keys", "dsr1-fp4-b300-vllm", "--seq-lens", "8k1k"],
     ["--seq-lens: warning: no row of dsr1-fp4-b300-vllm has seq-len 8k1k; pick the lengths the configs "
      "sweep: 1k1k"]),
    (["test-config", "--config-keys", "dsr1-fp4-b300-vllm", "--seq-lens", "8k1k", "--conc", "4"],
     ["--seq-lens: warning: no row of dsr1-fp4-b300-vllm has seq-len 8k1k; pick the lengths the configs "
      "sweep: 1k1k"]),
    (["full-sweep", "--framework", "vllm", "--seq-lens", "8k1k"],
     ["--seq-lens: warning: no row of the configs selected has seq-len 8k1k; pick the lengths the configs "
      "sweep: 1k1k"]),
])
def test_a_seq_len_the_configs_do_not_sweep_is_warned_of_not_blamed_on_conc(fleet_repo, args, said):
    """New user (newuser27): `test-config --config-keys KEY --seq-lens 1k1k`, as README's ingest
    recipe has it, for a key that sweeps only 8k1k printed `[]` and nothing else; with `--conc 32` it
    warned "no row of KEY has conc 32", a concurrency the key does sweep, so the user hunted for the
    wrong flag. The seq-len is named instead, and the conc that exists is not blamed."""
    r = sweepgate(args, cwd=fleet_repo.path / "configs")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines() == said, r.stderr
    assert [row for row in json.loads(r.stdout) if row.get("isl") == 8192] == []  # agentic rows stay


def test_an_empty_runner_node_filter_is_a_usage_error(fleet_repo):
    """Hunt badin18: `--runner-node-filter "$NODE"` with the variable unset filtered nothing: every row."""
    r = sweepgate(["full-sweep", "--runner-node-filter", ""], cwd=fleet_repo.path)
    assert r.returncode == 2 and "argument --runner-node-filter: empty value" in r.stderr, r.stderr


def test_ci_collect_results_nested_too_deeply_is_one_line(tmp_path):
    """Hunt badin18: RESULTS of 5,000 nested brackets was `internal error: RecursionError`."""
    r = sweepgate(["ci", "collect", "--results", str(tmp_path)], cwd=tmp_path,
                  env={"RESULTS": "[" * 5000 + "]" * 5000})
    assert r.returncode == 1 and one_line(r) == ("RESULTS: nested too deeply (about 1,000 levels); "
                                                  "set RESULTS to toJSON(needs.*.result)"), r.stderr


# --- plan / validate: a branch behind its base, checked by name ---------------------------------------

@pytest.mark.parametrize("command", ["validate", "plan", "matrix"])
def test_a_base_moved_hint_names_the_head_that_was_given(make_repo, command):
    """Hunt badin18: `plan --base-ref main --head-ref feature` run from main (as CI runs it, and as a
    reviewer does) with feature behind main said "or pass --base-ref $(git merge-base main HEAD)":
    HEAD is main there, so the hint gave main again and the same refusal. It names the head as given."""
    from conftest import CHANGELOG, appended_entry

    repo = make_repo()
    start = repo.head()
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + appended_entry("6"))
    repo.git("checkout", "-q", "main")
    repo.commit_changelog(CHANGELOG + appended_entry("5").replace('"Bump"', '"main moved"'))
    assert start != repo.head()
    r = sweepgate([command, "--base-ref", "main", "--head-ref", "feature"], cwd=repo.path)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    (line,) = [x for x in r.stderr.splitlines() if "has commits this change is not based on" in x]
    assert line.endswith("or pass --base-ref $(git merge-base main feature)"), line


def test_the_script_s_last_lines_reach_the_terminal_with_control_characters_escaped(script_repo, tmp_path):
    """Hunt badin18 (left open, then fixed): a failed rehearsal copies the script's last lines to the
    terminal, and they were copied raw. A PR's script could clear the screen, move the cursor over the
    verdict or recolour the terminal; its control characters now show as escapes, a tab stays."""
    repo = script_repo("printf 'ok\\tline\\n\\033[2J\\033[1;1Hall good\\rxx\\n'; exit 3\n")
    rows = tmp_path / "row.json"
    rows.write_text(json.dumps(FSL_ROW))
    r = sweepgate(["rehearse", "--row-json", str(rows), "--work-dir", str(tmp_path / "work")], cwd=repo)
    assert r.returncode == 1 and "--- last lines of" in r.stderr, r.stderr
    assert "\x1b" not in r.stderr and "\r" not in r.stderr, r.stderr
    assert "\\x1b[2J\\x1b[1;1Hall good\\rxx" in r.stderr and "ok\tline" in r.stderr, r.stderr


def test_an_unknown_runner_type_is_placed_at_its_flag(tmp_path):
    """Hunt badin18 (left open, then fixed): `full-sweep --runner-type nope` was placed at
    'sweepgate', not at the flag the user mistyped."""
    from sweepgate.commands.example import build_repo

    repo = tmp_path / "fleet"
    repo.mkdir()
    build_repo(str(repo))
    r = sweepgate(["full-sweep", "--runner-type", "nope"], cwd=repo / "configs")
    assert r.returncode == 1 and one_line(r).startswith("--runner-type: unknown runner type(s): nope; use labels"), r.stderr


def test_the_ingest_count_line_shows_a_store_path_s_newline_escaped(tmp_path):
    """Store hunt 18 (left open, then fixed): a --db path holding a newline was printed raw in the
    'ingested N results ... into PATH' line, which tools read as one line."""
    sys.path.insert(0, str(ROOT / "tests" / "results"))
    from helpers import job, vllm_output, write_job

    write_job(tmp_path / "run", "r", vllm_output(), job())
    folder = tmp_path / "a\nb"
    folder.mkdir()
    r = sweepgate(["results", "ingest", "--db", f"sqlite:///{folder / 'r.db'}", str(tmp_path / "run")], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (line,) = r.stdout.splitlines()
    assert line.startswith("ingested 1 results (1 new) into sqlite:///") and "a\\nb/r.db" in line, r.stdout
