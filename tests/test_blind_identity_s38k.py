"""New-user walk (s38k): in an InferenceX-layout repository (launchers in runners/, not benchmarks/runners/;
scripts not at CONTRACTS section 7's paths) a row with no script found, or whose launcher or another file the
job runs was not there, still got a run identity: the files it really runs were outside it, so a change to
them left the identity as it was, and `ci reuse` on a push to main handed the row the results of the old code.
Such a row now has no run identity: its sidecar records none, `ci reuse` (and `plan --db`) never reuse it and
say why in one line per cause, and the job runs. Real git repositories, real sidecars, a real SQLite store."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from test_reuse import (M_ROW, SCRIPTS, SHIPPED, at_main, remaining_rows, reuse_at_merge, script, sg, squash_merged,
                        with_support)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "results"))

from sweepgate.core import fields as F  # noqa: E402
from sweepgate.core import identity  # noqa: E402

LAUNCHER = "benchmarks/runners/launch_b300-nv.sh"
M_SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh"


def test_a_row_without_its_script_or_a_file_its_job_runs_has_no_run_identity():
    tree = with_support({M_SCRIPT: b"echo run\n"})
    assert identity.run_identity(M_ROW, {}, tree) is not None
    no_script = {k: v for k, v in tree.items() if k != M_SCRIPT}
    assert identity.run_identity(M_ROW, {}, no_script) is None
    assert identity.blind_spots(M_ROW, {}, tree) == []
    assert identity.blind_spots(M_ROW, {}, no_script) == [identity.NO_SCRIPT]
    for gone in identity.support_files(M_ROW, {}):  # a launcher, launch_common.sh, the library or a part of it
        lacking = {k: v for k, v in tree.items() if k != gone}
        assert identity.run_identity(M_ROW, {}, lacking) is None, gone
        assert identity.blind_spots(M_ROW, {}, lacking) == [gone]
    # a multi-node row needs the multi-node helpers too
    multi = {**M_ROW, F.MULTINODE: True}
    multi_tree = with_support({identity.script_candidates(multi)[0]: b"echo run\n"})
    parts = {p: b"true\n" for p in identity.MULTINODE_PARTS}
    assert identity.run_identity(multi, {}, {**multi_tree, **parts}) is not None
    assert identity.blind_spots(multi, {}, multi_tree) == list(identity.MULTINODE_PARTS)
    assert identity.run_identity(multi, {}, multi_tree) is None


def test_blind_lines_say_each_cause_once_with_its_jobs():
    """One line for rows without a script, one per set of jobs the same files are missing for: a checkout
    without benchmarks/lib/ is one line, not one per part of the library."""
    other = {**M_ROW, F.CONC: 8}
    lib = {path: [M_ROW, other] for path in F.BENCHMARK_LIB_PARTS}
    lines = identity.blind_lines({identity.NO_SCRIPT: [M_ROW, other], LAUNCHER: [M_ROW], **lib})
    parts = F.BENCHMARK_LIB_PARTS
    assert lines == [
        f"2 jobs not reused, no run identity: {identity.NO_SCRIPT} (such as {M_SCRIPT}), {identity.BLIND_WHY}",
        f"1 job not reused, no run identity: no {LAUNCHER} in the repository, {identity.BLIND_WHY}",
        f"2 jobs not reused, no run identity: no {', '.join(parts[:3])} and {len(parts) - 3} more in the "
        f"repository, {identity.BLIND_WHY}"]


@pytest.fixture
def elsewhere(make_repo):
    """A repository whose launchers are kept in runners/ (as InferenceX keeps them), the rest as shipped."""
    files = {(rel.replace("benchmarks/runners/", "runners/")): (ROOT / rel).read_text() for rel in SHIPPED}
    files.update({path: script(key) for key, path in SCRIPTS.items()})
    return make_repo(files=files)


def test_a_launcher_kept_elsewhere_gives_no_identity_and_reuse_runs_every_job(elsewhere, tmp_path):
    repo, db = elsewhere, f"sqlite:///{tmp_path / 'results.db'}"
    _main, merged = squash_merged(repo, tmp_path, db, {"runners/launch_b300-nv.sh": "echo a new launcher\n"})
    proc = reuse_at_merge(repo, tmp_path, db, *at_main(merged))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "reused 0 of 5 jobs (0 GPU-hours saved)"
    sidecars = sorted((tmp_path / "results").glob("*.job.json"))  # ingested, each without an identity
    assert len(sidecars) == 5
    assert all(json.loads(p.read_text())["job"]["run-identity"] is None for p in sidecars)
    said = (f"5 jobs not reused, no run identity: no {LAUNCHER}, {identity.LAUNCHER_LIB} in the repository, "
            f"{identity.BLIND_WHY}")
    assert proc.stderr.splitlines() == [f"sweepgate ci reuse: {said}"], proc.stderr
    assert json.loads((tmp_path / "remaining.json").read_text()) == json.loads((tmp_path / "matrix.json").read_text())
    plan = sg(repo.path, "plan", "--base-ref", "HEAD~1", "--head-ref", "HEAD", "--json", "--db", db)
    assert plan.returncode == 0, plan.stderr
    assert json.loads(plan.stdout)["reuse"]["no_identity"] == [said]
    assert f"sweepgate plan: {said}\n" in plan.stderr


def test_a_script_kept_elsewhere_gives_no_identity_and_its_change_is_never_reused(make_repo, tmp_path):
    """The vllm key's script is kept outside section 7's paths (elsewhere/, as a launcher there finds it): its
    jobs have no identity, so a change to it after the PR's sweep is not handed the old results; the sglang
    key's jobs, whose files did not change, are reused as before."""
    files = {rel: (ROOT / rel).read_text() for rel in SHIPPED}
    files.update({path: script(key) for key, path in SCRIPTS.items() if key != "dsr1-fp4-b300-vllm"})
    files["elsewhere/dsr1_vllm.sh"] = script("dsr1-fp4-b300-vllm")
    repo, db = make_repo(files=files), f"sqlite:///{tmp_path / 'results.db'}"
    _main, merged = squash_merged(repo, tmp_path, db, {"elsewhere/dsr1_vllm.sh": script("dsr1-fp4-b300-vllm", 2)})
    proc = reuse_at_merge(repo, tmp_path, db, *at_main(merged))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "reused 2 of 5 jobs (≥ 4 GPU-hours saved)"
    said = [line for line in proc.stderr.splitlines() if "no run identity" in line]
    assert said == [f"sweepgate ci reuse: 3 jobs not reused, no run identity: {identity.NO_SCRIPT} (such as "
                    f"{SCRIPTS['dsr1-fp4-b300-vllm']}), {identity.BLIND_WHY}"], proc.stderr
    left = sorted((r["framework"], r["conc"]) for r in remaining_rows(tmp_path))
    assert left == [("vllm", 4), ("vllm", 8), ("vllm", 16)]


def test_row_env_takes_no_identity_for_a_job_whose_launcher_is_not_there(tmp_path):
    """The benchmark job (`ci row-env --tools`) of a checkout without the row's launcher writes its environment
    with SWEEPGATE_RUN_IDENTITY=none, so the job runs and its sidecar records none (not one of the files then)."""
    import shutil
    import subprocess

    from helpers import ROW

    work = tmp_path / "work"
    for part in ("benchmarks", "configs"):
        shutil.copytree(ROOT / part, work / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(work / "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh",
                work / identity.script_candidates(ROW)[0])
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "utils"), "ROW": json.dumps(ROW),
           "RUNNER_NAME": "b300-nv_00"}

    def row_env() -> str:
        out = tmp_path / f"env{len(list(tmp_path.glob('env*')))}"  # a GITHUB_ENV file is appended to
        proc = subprocess.run([sys.executable, "-P", "-m", "sweepgate", "ci", "row-env", "--tools", ".",
                               "--output", str(out)], cwd=work, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return out.read_text()

    took = row_env()
    assert f"{F.RUN_IDENTITY_ENV}=" in took and f"{F.RUN_IDENTITY_ENV}={F.NO_RUN_IDENTITY}\n" not in took
    (work / LAUNCHER).unlink()
    assert f"{F.RUN_IDENTITY_ENV}={F.NO_RUN_IDENTITY}\n" in row_env()
