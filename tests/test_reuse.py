"""Reuse at merge (CONTRACTS section 9), end to end in a real git repository with an SQLite store.

A PR's sweep runs and its results are ingested; the PR then changes one benchmark script
and is squash-merged; `sweepgate ci reuse` on the push keeps only the rows whose files
changed after the PR's run and records the others' results against the push run.
"""

from __future__ import annotations

import json
import posixpath
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CHANGELOG
from test_matrix import entry

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "results"))

from helpers import vllm_output  # noqa: E402

from sweepgate.core import fields as F  # noqa: E402
from sweepgate.core import identity, recipes  # noqa: E402
from sweepgate.results.store import open_store  # noqa: E402
from sweepgate.results import record as R  # noqa: E402

SCRIPTS = {key: f"benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_{fw}.sh"
           for key, fw in (("dsr1-fp4-b300-vllm", "vllm"), ("dsr1-fp4-b300-sglang", "sglang"))}
SHIPPED = [*F.BENCHMARK_LIB_FILES, identity.LAUNCHER_LIB, "benchmarks/runners/launch_b300-nv.sh"]


def sg(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_"))}
    full.update({"PYTHONPATH": str(ROOT / "utils"), "SWEEPGATE_NO_CACHE": "1", **(env or {})})
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, capture_output=True, text=True,
                          env=full, timeout=120)


def script(name: str, version: int = 1) -> str:
    return (f'#!/usr/bin/env bash\n# {name} v{version}\nsource "$(dirname "${{BASH_SOURCE[0]}}")/../../'
            'benchmark_lib.sh"\necho run\n')


@pytest.fixture
def repo(make_repo):
    files = {rel: (ROOT / rel).read_text() for rel in SHIPPED}
    files.update({path: script(key) for key, path in SCRIPTS.items()})
    return make_repo(files=files)


def matrix(repo, base: str, head: str) -> dict:
    proc = sg(repo.path, "matrix", "--base-ref", base, "--head-ref", head)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def rows(m: dict) -> list[dict]:
    return [row for bucket in m["single_node"].values() for row in bucket]


def run_pr_sweep(repo, m: dict, tmp_path: Path, db: str, stored: int = 5) -> None:
    """What each benchmark job of the PR's run leaves (output + sidecar written by the job), then ingest."""
    results = tmp_path / "results"
    for row in rows(m):
        name = F.result_filename(row, "b300-nv_00")
        results.mkdir(exist_ok=True)
        (results / f"{name}.json").write_text(json.dumps(vllm_output(row["conc"])))
        proc = sg(repo.path, "results", "sidecar", "--tools", ".", env={
            "ROW": json.dumps(row), "RESULT_DIR": str(results), "RESULT_FILENAME": name,
            "GITHUB_RUN_ID": "100", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_REF": "refs/pull/7/merge",
            "GITHUB_SHA": repo.head(), "RUNNER_NAME": "b300-nv_00", "JOB_STATUS": "success"})
        assert proc.returncode == 0, proc.stderr
    proc = sg(repo.path, "results", "ingest", "--db", db, str(results))
    assert proc.returncode == 0, proc.stderr
    assert f"ingested {stored} results ({stored} new)" in proc.stdout


def swept_pr(repo, tmp_path: Path, db: str, stored: int = 5, before_ingest=None) -> str:
    """A PR, branch ``pr`` off main, that tunes both dsr1 keys (5 rows), its sweep's results in ``db`` and its matrix in
    matrix.json; its head. ``before_ingest(pr_matrix, results_folder)`` may leave more in the jobs' results."""
    main = repo.head()
    repo.git("checkout", "-q", "-b", "pr")
    pr_head = repo.commit_changelog(CHANGELOG + "\n" + entry(*SCRIPTS), "tune both dsr1 keys")
    pr_matrix = matrix(repo, main, pr_head)
    assert len(rows(pr_matrix)) == 5  # vllm conc 4, 8, 16; sglang conc 4, 8
    if before_ingest:
        (tmp_path / "results").mkdir(exist_ok=True)
        before_ingest(pr_matrix, tmp_path / "results")
    run_pr_sweep(repo, pr_matrix, tmp_path, db, stored)
    (tmp_path / "matrix.json").write_text(json.dumps(pr_matrix))
    return pr_head


def squash_merged(repo, tmp_path: Path, db: str, change: dict[str, str] | None = None, **sweep) -> tuple[str, str]:
    """Reuse at merge's scenario: the PR of ``swept_pr`` (``sweep``: its keywords) is swept, ``change`` is committed
    on it after its sweep, and it is squash-merged into main; matrix.json is then the push's matrix. Returns
    main's commit before the merge and the merge commit."""
    main = repo.head()
    swept_pr(repo, tmp_path, db, **sweep)
    if change:
        repo.commit(change, "change what the jobs run after the PR's sweep")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--squash", "pr")
    merged = repo.commit(message="Tune both dsr1 keys (#7)")
    (tmp_path / "matrix.json").write_text(json.dumps(matrix(repo, main, merged)))
    return main, merged


def reuse_at_merge(repo, tmp_path: Path, db: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`ci reuse` on the push of ``squash_merged``'s merge: matrix.json in, remaining.json out; ``args`` name the run
    (--run-id, --ref, --commit) where ``env`` (GitHub Actions' variables) does not."""
    return sg(repo.path, "ci", "reuse", "--db", db, "--matrix", str(tmp_path / "matrix.json"),
              "--out", str(tmp_path / "remaining.json"), *args, env=env)


def remaining_rows(tmp_path: Path) -> list[dict]:
    return rows(json.loads((tmp_path / "remaining.json").read_text()))


def at_main(merged: str) -> tuple[str, ...]:
    """The run ``reuse_at_merge`` records against: run 200 of main's push of ``merged``."""
    return ("--run-id", "200", "--ref", "refs/heads/main", "--commit", merged)


def test_squash_merge_reuses_every_row_whose_files_did_not_change(repo, tmp_path):
    db = f"sqlite:///{tmp_path / 'results.db'}"
    # After the PR's sweep, the sglang script changes; then the PR is squash-merged.
    sglang = SCRIPTS["dsr1-fp4-b300-sglang"]
    _main, merged = squash_merged(repo, tmp_path, db, {sglang: script("dsr1-fp4-b300-sglang", 2)})
    push = json.loads((tmp_path / "matrix.json").read_text())

    # Outside a run there is no run to record reused results against: a missing argument (exit 2,
    # the usage line), said before the store is read, and nothing written.
    proc = reuse_at_merge(repo, tmp_path, db)
    assert proc.returncode == 2 and proc.stderr.startswith("usage: sweepgate ci reuse "), proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("sweepgate ci reuse: error: argument --run-id: required outside "
                                                   "GitHub Actions ($GITHUB_RUN_ID is not set); pass --run-id ID")
    assert not (tmp_path / "remaining.json").exists()
    proc = reuse_at_merge(repo, tmp_path, db, env={"GITHUB_RUN_ID": "200", "GITHUB_REF": "refs/heads/main",
                                                   "GITHUB_SHA": merged})
    assert proc.returncode == 0, proc.stderr
    # 3 vllm rows x 8 GPUs x 20 minutes (the 1k1k estimate) = 8 GPU-hours; at least: their label, b300, states
    # no gpus-per-node in configs/runners.yaml, so a job is counted by its tp, not the node it holds (s40t)
    assert proc.stdout.splitlines()[-1] == "reused 3 of 5 jobs (≥ 8 GPU-hours saved)"
    remaining = json.loads((tmp_path / "remaining.json").read_text())
    assert set(remaining) == set(push)
    assert sorted((r["framework"], r["conc"]) for r in rows(remaining)) == [("sglang", 4), ("sglang", 8)]

    with open_store(db) as store:
        recorded = store.run_results("200")
    assert sorted(r[R.CONC] for r in recorded) == [4, 8, 16]
    assert all(r[R.REUSED_FROM][R.RUN_ID] == "100" and r[R.REF] == "refs/heads/main"
               and r[R.COMMIT] == merged for r in recorded)

    # Run again (a re-run of the push): nothing new is stored, the same rows remain.
    again = sg(repo.path, "ci", "reuse", "--db", db, "--matrix", str(tmp_path / "matrix.json"),
               "--out", str(tmp_path / "remaining2.json"), "--run-id", "200")
    assert again.returncode == 0 and json.loads((tmp_path / "remaining2.json").read_text()) == remaining


def test_a_launcher_or_library_change_is_a_new_identity(repo):
    m_row = {"runner": "b300", "model-prefix": "dsr1", "precision": "fp4", "framework": "vllm", "conc": 4,
             "recipe-fingerprint": "f" * 64, "isl": 1024, "osl": 1024}
    runners = {"labels": {"b300": ["b300-nv_00"]}}
    files = {p: (repo.path / p).read_bytes() for p in identity.needed_paths(m_row, runners)
             if (repo.path / p).exists()}
    first = identity.run_identity(m_row, runners, files)
    assert identity.run_identity(dict(m_row), runners, dict(files)) == first
    for changed in ("benchmarks/runners/launch_b300-nv.sh", "benchmarks/lib/clients.sh", SCRIPTS["dsr1-fp4-b300-vllm"]):
        assert identity.run_identity(m_row, runners, {**files, changed: files[changed] + b"#\n"}) != first
    assert identity.run_identity({**m_row, "conc": 8}, runners, files) != first
    assert identity.run_identity({**m_row, "runner": "b300-other"}, runners, files) != first


def test_reuse_refuses_bad_input_in_one_line(repo, tmp_path):
    (tmp_path / "m.json").write_text("{not json")
    proc = sg(repo.path, "ci", "reuse", "--matrix", str(tmp_path / "m.json"), "--out", str(tmp_path / "o.json"),
              "--run-id", "1")
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not (tmp_path / "o.json").exists()


def test_reuse_with_no_store_reuses_nothing_and_makes_no_store(repo, tmp_path):
    """Audit: `ci reuse --db sqlite:///typo.db` made an empty store there and said "reused 0"."""
    main = repo.head()
    head = repo.commit_changelog(CHANGELOG + "\n" + entry(*SCRIPTS), "tune both dsr1 keys")
    (tmp_path / "m.json").write_text(json.dumps(matrix(repo, main, head)))
    typo = tmp_path / "resutls.db"
    proc = sg(repo.path, "ci", "reuse", "--db", f"sqlite:///{typo}", "--matrix", str(tmp_path / "m.json"),
              "--out", str(tmp_path / "o.json"), "--run-id", "1")
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "reused 0 of 5 jobs (0 GPU-hours saved)"
    assert f"no results store at {typo}" in proc.stderr and not typo.exists()
    assert json.loads((tmp_path / "o.json").read_text()) == json.loads((tmp_path / "m.json").read_text())


def test_multinode_parts_are_every_file_a_multinode_script_runs():
    """Every .sh a multi-node script names (sourced, run through bash or srun, or by a variable that
    holds its folder, as disagg_lib.sh's "${DISAGG_DIR}/docker_task.sh" the review found missing)."""
    named = set()
    folder = ROOT / "benchmarks" / "multi_node"
    for path in folder.rglob("*.sh"):
        text = path.read_text()
        for ref in re.findall(r'\$\(dirname "\$\{BASH_SOURCE\[0\]\}"\)/([\w./-]+\.sh)', text):
            named.add(os.path.normpath(os.path.join(os.path.relpath(path.parent, ROOT), ref)))
        for ref in re.findall(r'\$\{?\w+\}?/([\w-]+\.sh)', text):
            if (folder / ref).is_file():
                named.add(os.path.relpath(folder / ref, ROOT))
    named.discard(F.BENCHMARK_LIB)
    assert "benchmarks/multi_node/docker_task.sh" in named
    assert named <= set(identity.MULTINODE_PARTS)


M_ROW = {"runner": "b300", "model-prefix": "dsr1", "precision": "fp4", "framework": "vllm", "conc": 4,
         "recipe-fingerprint": "f" * 64, "isl": 1024, "osl": 1024}


def with_support(tree: dict, runners: dict | None = None) -> dict:
    """``tree`` with every support file M_ROW's job runs (library, launchers) that it lacks, as a
    checkout has them: without one the row has no run identity at all."""
    for path in identity.support_files(M_ROW, runners or {}):
        tree.setdefault(path, f"# {path}\n".encode())
    return tree


def test_what_reaches_the_job_from_runners_yaml_is_part_of_the_identity():
    """Review: rdma-devices and accelerator-runtime reach the job (SWEEPGATE_RDMA_DEVICES...) but a
    change to them left the identity as it was, so reuse copied results measured with the old NICs."""
    runners = {"labels": {"b300": ["b300-nv_00"]},
               "hardware": {"b300": {"gpus-per-node": 8, "accelerator-runtime": "cuda",
                                     "rdma-devices": ["mlx5_0", "mlx5_1"]}}}
    files = with_support({"benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh": b"echo run\n"}, runners)
    first = identity.run_identity(M_ROW, runners, files)
    for fact, value in (("rdma-devices", ["mlx5_0"]), ("accelerator-runtime", "cuda13")):
        changed = {**runners, "hardware": {"b300": {**runners["hardware"]["b300"], fact: value}}}
        assert identity.run_identity(M_ROW, changed, files) != first, fact
    unused = {**runners, "hardware": {"b300": {**runners["hardware"]["b300"], "available-cpu-dram-mib": 1}}}
    assert identity.run_identity(M_ROW, unused, files) == first  # a fact no job reads costs no re-run


def test_every_launcher_behind_a_label_is_hashed():
    """Review: a pool of b300-nv_* and b300-cw_* runners hashed only launch_b300-nv.sh."""
    runners = {"labels": {"b300": ["b300-nv_00", "b300-nv_01", "b300-cw_00"]}}
    assert identity.launcher_files("b300", runners) == [
        "benchmarks/runners/launch_b300-nv.sh", "benchmarks/runners/launch_b300-cw.sh", identity.LAUNCHER_LIB]
    files = {p: b"x\n" for p in identity.needed_paths(M_ROW, runners)}
    first = identity.run_identity(M_ROW, runners, files)
    changed = {**files, "benchmarks/runners/launch_b300-cw.sh": b"export VLLM_EXTRA=1\n"}
    assert identity.run_identity(M_ROW, runners, changed) != first


def test_a_helper_the_script_sources_is_part_of_the_identity():
    """Review: a script sourcing dsr1_common.sh beside it was reused after the helper's flags changed."""
    script = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh"
    helper, deeper = "benchmarks/single_node/fixed_seq_len/dsr1_common.sh", "benchmarks/shared/flags.sh"
    tree = {script: b'source "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"\n'
                    b'source "$(dirname "${BASH_SOURCE[0]}")/dsr1_common.sh"\nvllm serve\n',
            helper: b'export VLLM_EXTRA_ARGS="--max-num-seqs 256"\nsource benchmarks/shared/flags.sh\n',
            deeper: b"FLAGS=1\n"}
    with_support(tree)
    reads = []

    def read(paths):
        reads.append(sorted(paths))
        return {p: tree.get(p) for p in paths}

    (first,) = identity.identities([M_ROW], {}, read)
    assert [helper] in reads and [deeper] in reads  # read when found, each once
    for path, text in ((helper, tree[helper].replace(b"256", b"512")), (deeper, b"FLAGS=2\n")):
        old, tree[path] = tree[path], text
        assert identity.identities([M_ROW], {}, read)[0] != first, path
        tree[path] = old
    assert identity.identities([M_ROW], {}, read)[0] == first


def assert_each_file_is_part_of_the_identity(tree: dict, paths) -> None:
    """A change to each of ``paths`` in ``tree`` (path -> bytes) changes M_ROW's run identity; undone, it is back."""
    # the checkout's tracked files are the tree's (a `source` through a place only the run knows may read one)
    read = identity.Reader(lambda wanted: {p: tree.get(p) for p in wanted}, lambda: [p for p in tree if tree[p]])
    with_support(tree)
    (first,) = identity.identities([M_ROW], {}, read)
    assert first is not None
    for path in paths:
        old, tree[path] = tree[path], tree[path] + b"# changed\n"
        assert identity.identities([M_ROW], {}, read)[0] != first, path
        tree[path] = old
    assert identity.identities([M_ROW], {}, read)[0] == first


def test_a_file_the_script_runs_by_a_path_beside_it_is_part_of_the_identity():
    """Review: a script that runs `python3 "$(dirname "$0")/client.py"` (not `source`) was reused after
    client.py changed: only sourced helpers were hashed."""
    script = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh"
    client, other = "benchmarks/single_node/fixed_seq_len/client.py", "benchmarks/single_node/fixed_seq_len/other.sh"
    tree = {script: b'source "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"\n'
                    b'python3 "$(dirname "$0")/client.py" --conc "$CONC"\n'
                    b'bash "$(dirname "${BASH_SOURCE[0]}")/other.sh"\n',
            client: b"print('bench')\n", other: b"echo other\n"}
    assert_each_file_is_part_of_the_identity(tree, (client, other))


def test_plan_with_db_names_the_rows_with_results(repo, tmp_path):
    db = f"sqlite:///{tmp_path / 'results.db'}"
    main = repo.head()
    repo.git("checkout", "-q", "-b", "pr")
    head = repo.commit_changelog(CHANGELOG + "\n" + entry(*SCRIPTS), "tune")
    run_pr_sweep(repo, matrix(repo, main, head), tmp_path, db)
    repo.commit({SCRIPTS["dsr1-fp4-b300-sglang"]: script("sglang", 2)}, "fix sglang")
    proc = sg(repo.path, "plan", "--base-ref", main, "--head-ref", "HEAD", "--json", "--db", db)
    assert proc.returncode == 0, proc.stderr
    reused = json.loads(proc.stdout)["reuse"]
    assert (reused["jobs"], reused["of"], reused["gpu_hours_saved"]) == (3, 5, 8)
    assert {r["conc"] for r in reused["rows"]} == {4, 8, 16}
    assert "3 of 5 jobs already have results (≥ 8 GPU-hours saved by reusing them)" in proc.stderr  # b300: no facts


def test_helpers_are_followed_deep_and_a_doubled_slash_stays_in_the_folder():
    """Bad-input review: a helper five `source`s deep was not hashed, and `$(dirname ...)//abs.sh`
    (bash: dir//abs.sh) hashed /abs.sh, a file outside the checkout."""
    script = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh"
    tree = {script: b'source benchmarks/h/h1.sh\nsource "$(dirname "${BASH_SOURCE[0]}")//tmp/abs.sh"\n'}
    for i in range(1, 8):
        tree[f"benchmarks/h/h{i}.sh"] = f"source benchmarks/h/h{i + 1}.sh\n".encode()
    tree["benchmarks/h/h8.sh"] = b"source benchmarks/h/h1.sh\nX=1\n"  # a cycle ends
    tree["benchmarks/single_node/fixed_seq_len/tmp/abs.sh"] = b"Y=1\n"
    with_support(tree)
    read = lambda paths: {p: tree.get(p) for p in paths}
    (first,) = identity.identities([M_ROW], {}, read)
    assert "benchmarks/single_node/fixed_seq_len/tmp/abs.sh" in identity.sourced_helpers(script, tree)
    for path, text in (("benchmarks/h/h8.sh", b"source benchmarks/h/h1.sh\nX=2\n"),
                       ("benchmarks/single_node/fixed_seq_len/tmp/abs.sh", b"Y=2\n")):
        old, tree[path] = tree[path], text
        assert identity.identities([M_ROW], {}, read)[0] != first, path
        tree[path] = old


def test_gpu_hours_saved_on_a_runner_without_gpus_per_node_are_a_lower_bound():
    """Carried from review: the plan marks a multi-node job counted by its workers' GPUs (its runner
    states no gpus-per-node) as a lower bound, '≥'; the GPU-hours a reuse of it saves said a plain figure."""
    from sweepgate.results.reuse import Found

    worker = {F.TP: 8, F.EP: 8, F.DP_ATTN: False, F.NUM_WORKER: 1}
    row = {F.RUNNER: "cluster:b300-nv", F.PREFILL: dict(worker), F.DECODE: dict(worker, **{F.NUM_WORKER: 2}),
           F.CONC: [256]}
    minutes = {"default": 30.0}
    bare = Found([("multi_node/1k1k", row, "id-1")], {"id-1": [{}]}, minutes, runners={})
    assert bare.lower_bound and bare.summary() == "reused 1 of 1 jobs (≥ 12 GPU-hours saved)"
    placed = Found([("multi_node/1k1k", row, "id-1")], {"id-1": [{}]}, minutes,
                   runners={F.HARDWARE: {"cluster:b300-nv": {F.GPUS_PER_NODE: 8}}})
    assert not placed.lower_bound and placed.summary() == "reused 1 of 1 jobs (12 GPU-hours saved)"
    single = dict(row)
    del single[F.PREFILL], single[F.DECODE]
    # a single-node job holds its whole node too: without gpus-per-node its tp is a lower bound (s40t), with it exact
    assert Found([("single_node/1k1k", dict(single, **{F.TP: 8}), "i")], {"i": [{}]}, minutes).lower_bound
    assert not Found([("single_node/1k1k", dict(single, **{F.TP: 8}), "i")], {"i": [{}]}, minutes,
                     runners={F.HARDWARE: {"cluster:b300-nv": {F.GPUS_PER_NODE: 8}}}).lower_bound


def test_a_store_that_cannot_record_leaves_no_remaining_matrix(repo, tmp_path):
    """Review: REMAINING.json was written before the reused results were recorded, so a store that
    refused the write (a dropped connection, a read-only database) left a matrix without the reused
    rows and no record of them for this run; the workflow's `| tee` hid the exit 1, and the sweep ran
    without those points. Now nothing is written unless the records are."""
    import sqlite3

    db_path = tmp_path / "results.db"
    db = f"sqlite:///{db_path}"
    pr_head = swept_pr(repo, tmp_path, db)
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON results BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
    proc = sg(repo.path, "ci", "reuse", "--db", db, "--head-ref", pr_head, "--matrix", str(tmp_path / "matrix.json"),
              "--out", str(tmp_path / "remaining.json"), "--run-id", "200")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "remaining.json").exists()


def test_an_out_that_cannot_be_written_records_nothing(repo, tmp_path):
    """Diff review of d0b60a5: with the records stored first, an --out in a missing folder stored the
    reused results against run 200 and then failed to write REMAINING.json: the run's records claimed
    points its sweep never got. --out is checked before anything is recorded."""
    import sqlite3

    db_path = tmp_path / "results.db"
    db = f"sqlite:///{db_path}"
    pr_head = swept_pr(repo, tmp_path, db)
    out = tmp_path / "missing" / "remaining.json"
    proc = sg(repo.path, "ci", "reuse", "--db", db, "--head-ref", pr_head, "--matrix", str(tmp_path / "matrix.json"),
              "--out", str(out), "--run-id", "200")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM results WHERE run_id = '200'").fetchone() == (0,)
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith(f"{out}: --out: its folder"), proc.stderr


def test_a_file_named_beside_the_script_with_the_folder_quoted_alone_is_part_of_the_identity():
    """Diff review of b197bf1: `python3 "$(dirname "$0")"/client.py` (the folder quoted on its own, as
    shellcheck writes it; `source` likewise) names the same file, but was not followed: a changed
    client.py was reused."""
    script = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh"
    client, helper = "benchmarks/single_node/fixed_seq_len/client.py", "benchmarks/single_node/fixed_seq_len/h.sh"
    tree = {script: b'source "$(dirname "${BASH_SOURCE[0]}")"/h.sh\npython3 "$(dirname "$0")"/client.py\n',
            client: b"print('bench')\n", helper: b"true\n"}
    assert_each_file_is_part_of_the_identity(tree, (client, helper))


def test_files_named_by_the_other_usual_spellings_of_the_script_s_folder_are_part_of_the_identity():
    """Known leftover (contracts section 9): a folder kept in a variable (SCRIPT_DIR="$(cd "$(dirname
    "${BASH_SOURCE[0]}")" && pwd)", the commonest spelling of all), `${BASH_SOURCE[0]%/*}`, a resolved
    `$(dirname "$(realpath "$0")")`, a `cd .../..` to the parent, and files without an extension were
    not followed: a changed client was reused."""
    folder = "benchmarks/single_node/fixed_seq_len"
    script = f"{folder}/dsr1_fp4_b300_vllm.sh"
    files = {f"{folder}/lib/common.sh": b"true\n", f"{folder}/client.py": b"print(1)\n",
             f"{folder}/run_client": b"#!/bin/sh\n", f"{folder}/h.sh": b"true\n", f"{folder}/x.py": b"pass\n",
             "benchmarks/single_node/common/env.sh": b"A=1\n", f"{folder}/cfg/plain.yaml": b"a: 1\n",
             f"{folder}/in_function.py": b"pass\n"}
    tree = {script: b'SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
                    b'source "$SCRIPT_DIR/lib/common.sh"\n'
                    b'python3 "${SCRIPT_DIR}/client.py" --conc "$CONC"\n'
                    b'bash $SCRIPT_DIR/run_client\n'
                    b'source "${BASH_SOURCE[0]%/*}/h.sh"\n'
                    b'python3 "$(dirname "$(realpath "$0")")/x.py"\n'
                    b'readonly UP="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." &>/dev/null && pwd)"\n'
                    b'source "$UP/common/env.sh"\n'
                    b'HERE=$(dirname "$0")  # the folder\n'
                    b'cat "$HERE"/cfg/plain.yaml\n'
                    b'run() {\n  local d; d="$(dirname "$0")"\n  python3 "$d/in_function.py"\n}\n', **files}
    assert_each_file_is_part_of_the_identity(tree, tuple(files))
    # a variable of another name, or one not set to the folder, names nothing beside the script
    assert recipes.beside_paths('OTHER=/opt\npython3 "$OTHER/client.py"\necho "$SCRIPT_DIRX/a.py"\n') == []


def test_the_folder_spelled_with_blanks_inside_its_substitutions_or_silenced_by_2_to_1_is_followed():
    """Review: the most copied spelling of the script's folder (`$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )"
    &> /dev/null && pwd )`, blanks inside each `$( )`) and cd silenced by `>/dev/null 2>&1` were not
    followed: a changed client named through them was reused."""
    folder = "benchmarks/single_node/fixed_seq_len"
    script = f"{folder}/dsr1_fp4_b300_vllm.sh"
    files = {f"{folder}/client.py": b"print(1)\n", f"{folder}/run_client": b"#!/bin/sh\n",
             f"{folder}/x.py": b"pass\n"}
    tree = {script: b'SCRIPT_DIR=$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd )\n'
                    b'python3 "$SCRIPT_DIR/client.py"\n'
                    b'HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" >/dev/null 2>&1 && pwd)"\n'
                    b'bash "$HERE/run_client"\n'
                    b'python3 "$( dirname "$( realpath "$0" )" )/x.py"\n', **files}
    assert_each_file_is_part_of_the_identity(tree, tuple(files))


LINKED = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh"  # M_ROW's script, a symbolic link here
LINK_TREE = {  # what git stores: the link as its target's name, the rest as they are
    LINKED: b"../../shared/dsr1_fp4.sh",
    "benchmarks/shared/dsr1_fp4.sh": b'source "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"\n'
                                     b'python3 "$(dirname "$0")/client.py"\n'
                                     b'source "$(dirname "$(realpath "$0")")/flags.sh"\n',
    "benchmarks/single_node/fixed_seq_len/client.py": b"print('bench')\n",  # "$0" is the link: beside it
    "benchmarks/shared/flags.sh": b"FLAGS=1\n",  # realpath: beside the target
}


def test_a_linked_script_s_target_and_what_it_names_are_part_of_the_identity():
    """Security review: a benchmark script stored as a symbolic link was hashed as its target's name
    alone, so a change to the script it runs, or to a helper of it, was reused as unchanged."""
    tree = dict(LINK_TREE)
    assert_each_file_is_part_of_the_identity(tree, [p for p in tree if p != LINKED])
    first = recipes.RecipeSet("head", {}, {}, {}, blobs=tree).sha(LINKED)  # the plan's unlisted-change rule
    changed = {**tree, "benchmarks/shared/flags.sh": b"FLAGS=2\n"}
    assert recipes.RecipeSet("head", {}, {}, {}, blobs=changed).sha(LINKED) != first
    assert recipes.link_target(LINKED, b"../../../../etc/passwd") is None  # outside the checkout: not read
    assert recipes.link_target(LINKED, b"/etc/passwd") is None


def _link_checkout(work, tree: dict, links: tuple[str, ...]) -> None:
    """A git checkout of ``tree`` in ``work``, the paths in ``links`` as symbolic links to their bytes."""
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    for path, data in with_support(dict(tree)).items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        if path in links:
            (work / path).symlink_to(data.decode())
        else:
            (work / path).write_bytes(data)


def _identity_both_ways(work) -> tuple[str, str]:
    """M_ROW's identity from the committed git objects (`ci reuse`) and from the checkout (the GPU host)."""
    from sweepgate.core.load import Git

    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"], cwd=work, check=True)
    git = Git(str(work))
    both = (identity.identities([M_ROW], {}, lambda paths: git.read_blobs("HEAD", paths))[0],
            identity.identities([M_ROW], {}, identity.read_tree(str(work)))[0])
    assert None not in both, both  # the checkout holds every file the job runs
    return both


def test_a_linked_script_has_one_identity_from_git_objects_and_from_the_checkout(tmp_path):
    """`ci reuse` hashes git objects, the GPU host the approved checkout (``worktop.stored_bytes``): for a
    linked script and its target's helpers both give one identity, and a changed helper a new one."""
    work = tmp_path / "work"
    _link_checkout(work, LINK_TREE, (LINKED,))
    first = _identity_both_ways(work)
    assert first[0] == first[1]
    (work / "benchmarks/shared/flags.sh").write_bytes(b"FLAGS=2\n")
    second = _identity_both_ways(work)
    assert second[0] == second[1] != first[0]


def test_a_link_into_the_checkout_s_git_folder_is_read_as_git_holds_it_nothing(tmp_path):
    """Diff review of 515bdc5: a script linked to ../../../.git/config had the GPU host hash the
    checkout's git config (which actions/checkout writes its credentials into), a file no commit holds,
    so it got another identity than `ci reuse` gave it from git objects; a helper named beside the
    script through .git did the same. The host reads nothing under .git, as git objects hold nothing."""
    work = tmp_path / "work"
    helper = b'cat "$(dirname "$0")/../../../.git/HEAD"\n'
    _link_checkout(work, {LINKED: b"../../../.git/config", "benchmarks/shared/x.sh": helper}, (LINKED,))
    from_git, from_host = _identity_both_ways(work)
    assert from_git == from_host
    (work / LINKED).unlink()
    (work / LINKED).write_bytes(helper)
    from_git, from_host = _identity_both_ways(work)
    assert from_git == from_host


@pytest.mark.parametrize("target", ["../../shared/dsr1 fp4.sh", "../../shared/dsr1+fp4.sh",
                                    "../../shared//dsr1_fp4.sh", "../../shared/dsr1_fp4_é.sh",
                                    "./../../shared/./dsr1 fp4+é.sh"])
def test_a_link_is_followed_whatever_characters_its_target_s_name_holds(tmp_path, target):
    """Leftover: a link whose target's name held a blank, '+', '//' or a non-ASCII letter was hashed by
    that name alone, so a changed target script kept its identity and a stale result was reused. Both
    sides (git objects for `ci reuse`, the checkout for the GPU host) and the plan now follow it."""
    from sweepgate.core.load import Git

    work = tmp_path / "work"
    real = posixpath.normpath(posixpath.join(posixpath.dirname(LINKED), target))
    _link_checkout(work, {LINKED: target.encode(), real: b"echo v1\n"}, (LINKED,))
    first = _identity_both_ways(work)
    assert first[0] == first[1]
    plan_sha = recipes.RecipeSet("HEAD", {}, {}, {}, blobs=Git(str(work)).read_blobs("HEAD", [LINKED, real])).sha
    before = plan_sha(LINKED)
    (work / real).write_bytes(b"echo v2\n")
    second = _identity_both_ways(work)
    assert second[0] == second[1] != first[0]
    plan_sha = recipes.RecipeSet("HEAD", {}, {}, {}, blobs=Git(str(work)).read_blobs("HEAD", [LINKED, real])).sha
    assert plan_sha(LINKED) != before
    assert recipes.link_target(LINKED, target.encode()) == real


def test_a_link_out_of_the_checkout_is_still_its_name_alone_whatever_it_holds():
    """The wider names of the test above never reach out of the checkout, nor read a file of two lines
    (a script, not a link) or a name that is not UTF-8 as a link."""
    for outside in (b"/etc/pass wd", b"../../../../etc/p+\xc3\xa9", b"..//..//..//../etc/passwd", b"//etc/passwd"):
        assert recipes.link_target(LINKED, outside) is None, outside
    assert recipes.link_target(LINKED, b"a b.sh\necho\n") is None
    assert recipes.link_target(LINKED, b"a\xff.sh") is None
    # a script of one line and no line break is read as a script too: what it sources is still hashed
    helper = "benchmarks/single_node/fixed_seq_len/x.sh"
    assert_each_file_is_part_of_the_identity({LINKED: b'source "$(dirname "$0")/x.sh"', helper: b"A=1\n"}, [helper])


@pytest.mark.parametrize("flag,value,said", [("--ref", "main", "is not a full ref; pass refs/heads/main"),
                                             ("--commit", "main", "is not a full commit SHA")])
def test_reuse_refuses_a_short_ref_or_commit_before_recording_anything(repo, tmp_path, flag, value, said):
    """`ci reuse --ref main` stored the reused results under "main", which no baseline lookup of
    refs/heads/main finds; a commit that is no SHA was stored as given."""
    proc = sg(repo.path, "ci", "reuse", "--matrix", str(tmp_path / "m.json"), "--out", str(tmp_path / "o.json"),
              "--run-id", "1", flag, value)
    assert proc.returncode == 2 and said in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("name,value,said", [("GITHUB_REF", "main", "GITHUB_REF: 'main' is not a full ref; "),
                                             ("GITHUB_SHA", "abc", "GITHUB_SHA: 'abc' is not a full commit SHA ("),
                                             *(("GITHUB_SHA", null, f"GITHUB_SHA: '{null}' is git's null object id, "
                                                "no commit; leave GITHUB_SHA as the runner sets it")  # s50a: recorded
                                               for null in ("0" * 40, "0" * 64))])
def test_reuse_refuses_a_short_ref_or_commit_from_the_environment(repo, tmp_path, name, value, said):
    """Review 18: the flags were checked, but GITHUB_SHA=abc (a hand run) was recorded as the commit
    of every reused result, and GITHUB_REF=main as its ref."""
    main = repo.head()
    head = repo.commit_changelog(CHANGELOG + "\n" + entry(*SCRIPTS), "tune both dsr1 keys")
    (tmp_path / "m.json").write_text(json.dumps(matrix(repo, main, head)))
    proc = sg(repo.path, "ci", "reuse", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--matrix", str(tmp_path / "m.json"),
              "--out", str(tmp_path / "o.json"), "--run-id", "5", env={name: value})
    assert proc.returncode == 1 and proc.stderr.startswith(said) and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "o.json").exists()


def test_plan_with_a_db_that_is_not_there_reuses_nothing_and_makes_no_store(repo, tmp_path):
    """New-user review: `plan --db sqlite:///typo.db` made an empty store there and read "0 of 5 jobs
    already have results", so the typo went unseen (and read as "no results" for ever after); as
    `ci reuse` does, it now says there is no store and makes none."""
    typo = tmp_path / "typo.db"
    main = repo.head()
    repo.git("checkout", "-q", "-b", "pr")
    repo.commit_changelog(CHANGELOG + "\n" + entry(*SCRIPTS), "tune")
    proc = sg(repo.path, "plan", "--base-ref", main, "--head-ref", "HEAD", "--json", "--db", f"sqlite:///{typo}")
    assert proc.returncode == 0, proc.stderr
    reused = json.loads(proc.stdout)["reuse"]
    assert (reused["jobs"], reused["of"], reused["rows"]) == (0, 5, []), reused
    assert f"no results store at {typo}" in proc.stderr, proc.stderr
    assert not typo.exists()


def test_a_job_that_failed_in_part_is_not_reused(repo, tmp_path):
    """Spend-once review (s45f): reuse took, for a run identity, the newest job's records that say success, so a job
    that failed in part (its eval scores cut short, stored as a failure beside its throughput's success; one output
    of a job that left several cut short) counted as measured: at merge its row was dropped from the sweep, and the
    part that failed was never measured again, on main or anywhere. A job is reused only when every record it left
    is a success; such a row runs again at merge."""
    db = f"sqlite:///{tmp_path / 'results.db'}"
    broken = []

    def cut_short(pr_matrix: dict, results: Path) -> None:
        broken.append(F.result_filename(rows(pr_matrix)[0], "b300-nv_00"))
        (results / f"{broken[0]}-eval.json").write_text('{"results": {"gsm8k": {"exact_match')  # the eval cut short

    _main, merged = squash_merged(repo, tmp_path, db, stored=6, before_ingest=cut_short)
    with open_store(db) as store:
        stored = [r for r in store.run_results("100") if r[R.RESULT_FILENAME].startswith(broken[0])]
    assert sorted(r[R.STATUS] for r in stored) == [R.FAILURE, R.SUCCESS], stored  # the job as it was stored

    proc = reuse_at_merge(repo, tmp_path, db, *at_main(merged))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("reused 4 of 5 jobs"), proc.stdout
    assert [F.result_filename(r, "b300-nv_00") for r in remaining_rows(tmp_path)] == broken
