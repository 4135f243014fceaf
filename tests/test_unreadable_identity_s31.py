"""CLI wording leftovers (s31): the run identity (`ci row-env --tools`, `results sidecar`) read a launcher that
is there but cannot be read (chmod 000 for the job's user, or a folder in its place) as missing, without a word.
The identity was then that of a checkout without the launcher, another run's, and `ci reuse` could match it to
the wrong results. Now `ci row-env` refuses it in one line at the launcher (exit 1, no job environment written),
and `results sidecar` says the same line and exits 1 but still writes the sidecar, without a run identity, so
the job's results are recorded and never reused. Real checkouts; as root (whom file modes do not stop) the
commands run as nobody through setpriv, as tests/results/test_store_folder_hint.py does."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = "benchmarks/runners/launch_b300-nv.sh"
SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh"
sys.path.insert(0, str(ROOT / "tests" / "results"))

from helpers import ROW  # noqa: E402  (the row tests/results writes its jobs with)

SAID = {"mode": "Permission denied", "folder": "it is a folder, not a file"}


@pytest.fixture
def checkout():
    """A checkout of this repository's benchmarks/ and configs/ that another user may read (pytest's
    tmp_path is closed to others), with a folder every user may write."""
    shared = Path(tempfile.mkdtemp(prefix="sweepgate-s31-"))
    try:
        shared.chmod(0o755)
        work = shared / "work"
        for part in ("benchmarks", "configs"):
            shutil.copytree(ROOT / part, work / part, ignore=shutil.ignore_patterns("__pycache__"))
        # ROW's script (CONTRACTS section 7): without one the row has no run identity to refuse
        shutil.copy(work / "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh", work / SCRIPT)
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        subprocess.run(["chmod", "-R", "a+rX", str(shared)], check=True)
        (shared / "out").mkdir(mode=0o777)
        (shared / "out").chmod(0o777)
        yield work
    finally:
        subprocess.run(["chmod", "-R", "u+rwX", str(shared)], check=True)
        shutil.rmtree(shared)


def _unreadable(work: Path, kind: str, rel: str = LAUNCHER) -> None:
    """Make ``rel`` (the launcher by default) unreadable: its mode 0, or a folder in its place."""
    path = work / rel
    if kind == "mode":
        path.chmod(0)
    else:
        path.unlink()
        path.mkdir()


def _sweepgate(work: Path, kind: str, *argv: str, env: dict) -> subprocess.CompletedProcess:
    """``python -m sweepgate ARGV`` in ``work``; as nobody when root would read a chmod 000 file."""
    full = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "utils"), "HOME": "/", **env}
    prefix = []
    if kind == "mode" and os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("root needs setpriv to run as a user a file's mode stops")
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    return subprocess.run([*prefix, sys.executable, "-P", "-m", "sweepgate", *argv], cwd=work, env=full,
                          capture_output=True, text=True, timeout=120)


def _said(kind: str) -> str:
    return (f"{LAUNCHER}: the run identity cannot read it ({SAID[kind]}): hashed as missing, the job would take "
            "the identity of a run without it, and `ci reuse` could hand it that run's results; make it a file "
            "this user can read (chmod a+r; a folder on its way a+x), or remove it if no job runs it")


@pytest.mark.parametrize("kind", list(SAID))
def test_row_env_refuses_a_launcher_it_cannot_read(checkout, kind):
    out = checkout.parent / "out" / "env"
    readable = _sweepgate(checkout, kind, "ci", "row-env", "--tools", ".", "--output", str(out),
                          env={"ROW": json.dumps(ROW), "RUNNER_NAME": "b300-nv_00"})
    assert readable.returncode == 0 and "SWEEPGATE_RUN_IDENTITY=" in out.read_text(), readable.stderr
    out.unlink()
    _unreadable(checkout, kind)
    proc = _sweepgate(checkout, kind, "ci", "row-env", "--tools", ".", "--output", str(out),
                      env={"ROW": json.dumps(ROW), "RUNNER_NAME": "b300-nv_00"})
    assert proc.returncode == 1 and proc.stderr.splitlines() == [_said(kind)], proc.stderr
    assert not out.exists()  # no job environment: the benchmark never starts with a wrong identity


def _sidecar(checkout, kind: str, results, name: str) -> subprocess.CompletedProcess:
    """`results sidecar --tools .` in ``checkout`` for a successful job's output ``results/name.json``."""
    return _sweepgate(checkout, kind, "results", "sidecar", "--tools", ".", env={
        "ROW": json.dumps(ROW), "RESULT_DIR": str(results), "RESULT_FILENAME": name, "GITHUB_RUN_ID": "100",
        "GITHUB_RUN_ATTEMPT": "1", "GITHUB_REF": "refs/heads/main", "GITHUB_SHA": "c0ffee" * 6 + "abcd",
        "RUNNER_NAME": "b300-nv_00", "JOB_STATUS": "success"})


@pytest.mark.parametrize("kind", list(SAID))
def test_the_sidecar_is_written_without_an_identity_and_the_step_fails(checkout, kind):
    results = checkout.parent / "out"
    name = "dsr1_run"
    (results / f"{name}.json").write_text("{}")
    _unreadable(checkout, kind)
    proc = _sidecar(checkout, kind, results, name)
    side = results / f"{name}.job.json"
    assert proc.returncode == 1, proc.stderr
    assert [line for line in proc.stderr.splitlines() if not line.startswith("sweepgate results sidecar: ")] == \
        [_said(kind)], proc.stderr
    job = json.loads(side.read_text())["job"]
    assert job["status"] == "success" and job["run-identity"] is None, job
    assert stat.S_ISREG(side.stat().st_mode)


RUNNERS = "configs/runners.yaml"
READABLE_FIX = "make it a file this user can read (chmod a+r; a folder on its way a+x)"


@pytest.mark.parametrize("kind, tools", [("mode", True), ("mode", False), ("folder", False)])
def test_row_env_refuses_a_runners_file_it_cannot_read(checkout, kind, tools):
    """Review (s31r): configs/runners.yaml there but unreadable (chmod 000; a folder in its place, which --tools
    refuses already) was read as no runners file: `ci row-env` wrote the job's environment without the runner's
    hardware facts (SWEEPGATE_RDMA_DEVICES, SWEEPGATE_ACCELERATOR_RUNTIME) and, with --tools, the identity of a
    checkout without them, exit 0. It is one line at the file, exit 1, no environment written."""
    out = checkout.parent / "out" / "env"
    argv = ["ci", "row-env", *(["--tools", "."] if tools else []), "--output", str(out)]
    env = {"ROW": json.dumps(ROW), "RUNNER_NAME": "b300-nv_00"}
    readable = _sweepgate(checkout, kind, *argv, env=env)
    assert readable.returncode == 0 and "SWEEPGATE_RDMA_DEVICES=" in out.read_text(), readable.stderr
    out.unlink()
    _unreadable(checkout, kind, RUNNERS)
    proc = _sweepgate(checkout, kind, *argv, env=env)
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        f"{RUNNERS}: cannot read it: {SAID[kind]}; {READABLE_FIX}"], proc.stderr
    assert not out.exists()


def test_the_sidecar_takes_no_identity_from_a_runners_file_it_cannot_read(checkout):
    """Review (s31r): `results sidecar` (no identity from `ci row-env`) hashed an unreadable configs/runners.yaml
    as none, recording the identity of a checkout without its runner facts, exit 0. It is the run identity's
    one line at the file, exit 1, and the sidecar is written without an identity, as for a launcher (a folder in
    its place is no checkout to --tools, refused before)."""
    kind = "mode"
    results = checkout.parent / "out"
    name = "dsr1_run"
    (results / f"{name}.json").write_text("{}")
    _unreadable(checkout, kind, RUNNERS)
    proc = _sidecar(checkout, kind, results, name)
    assert proc.returncode == 1, proc.stderr
    assert [line for line in proc.stderr.splitlines() if not line.startswith("sweepgate results sidecar: ")] == \
        [_said(kind).replace(LAUNCHER, RUNNERS, 1)], proc.stderr
    assert json.loads((results / f"{name}.job.json").read_text())["job"]["run-identity"] is None


def test_split_refuses_a_runners_file_it_cannot_read(checkout):
    """Review (s31r): `ci split --runners` read main's unreadable configs/runners.yaml as an empty one and said
    every row's runner label was missing from it ("add the runner to configs/runners.yaml on main first")."""
    matrix = checkout.parent / "out" / "matrix.json"
    matrix.write_text(json.dumps({"single_node": {"1k1k": [ROW]}, "multi_node": {}}))
    argv = ("ci", "split", "--matrix", str(matrix), "--runners", ".", "--output", "-")
    readable = _sweepgate(checkout, "mode", *argv, env={})
    assert readable.returncode == 0, readable.stderr
    _unreadable(checkout, "mode", RUNNERS)
    proc = _sweepgate(checkout, "mode", *argv, env={})
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        f"{RUNNERS}: cannot read it: {SAID['mode']}; {READABLE_FIX}"], proc.stderr
