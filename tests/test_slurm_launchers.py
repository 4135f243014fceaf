"""The launchers against a real Slurm (slurmctld + six slurmd on loopback, tests/slurm_cluster.py).

Multi-node rows: the node count, time limit and job name Slurm records, logs of
every node, the whole disaggregated example row through srun with stand-in
servers, cancellation (TERM to the launcher releases the allocation by name and
leaves no process) and a job that overruns its time limit. Skipped only when
the Slurm binaries are missing; .ci/run installs them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT
from slurm_cluster import SlurmCluster, missing_binaries
from sweepgate.core.placement import runners_at
from sweepgate.core.sweep import worktree_rows
from sweepgate.rehearsal.runner import write_shims, STANDIN
from sweepgate.core.jobenv import job_env

if missing_binaries() and os.environ.get("SWEEPGATE_REQUIRE_SLURM") == "1":
    raise RuntimeError(f"SWEEPGATE_REQUIRE_SLURM=1 but Slurm binaries are missing: {missing_binaries()}")
pytestmark = pytest.mark.skipif(bool(missing_binaries()), reason=f"Slurm binaries missing: {missing_binaries()}")

B300 = ROOT / "benchmarks" / "runners" / "launch_b300-nv.sh"
MI355X = ROOT / "benchmarks" / "runners" / "launch_mi355x-amds.sh"
PARTITION = "sweepgate"


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm"), nodes=6, partition=PARTITION).start()
    yield cluster
    cluster.stop()


def example_row(key: str) -> dict:
    (row,) = worktree_rows(ROOT, [key])
    return row


def row_env(row: dict, result_dir: Path) -> dict[str, str]:
    env = job_env(row, row["runner"].split(":", 1)[1] + "_00", str(result_dir), runners=runners_at(str(ROOT)))
    return env


def job_name(env: dict, run="77", attempt="2") -> str:
    """The launcher's job name; each test below passes its own run id, as separate runs would."""
    return f"sweepgate-{run}-{attempt}-{env['RESULT_FILENAME']}"


def workspace(tmp_path: Path, script_text: str | None = None, gpu: str = "b300") -> tuple[Path, str]:
    """A checkout with the real benchmarks/, and optionally the row's script replaced by ``script_text``."""
    work = tmp_path / "work"
    shutil.copytree(ROOT / "benchmarks", work / "benchmarks")
    rel = ""
    if script_text is not None:
        for old in (work / "benchmarks" / "multi_node" / "fixed_seq_len").glob(f"*_{gpu}_*.sh"):
            rel = str(old.relative_to(work))
            old.write_text(script_text)
    return work, rel


def launch(launcher: Path, work: Path, env: dict, slurm: SlurmCluster, extra: dict | None = None,
           **popen) -> subprocess.Popen:
    full = {"PATH": os.environ["PATH"], "HOME": str(work), **env, **slurm.env(),
            "SWEEPGATE_SLURM_PARTITION": PARTITION, "SWEEPGATE_CONTAINER_RUNTIME": "none",
            "GITHUB_RUN_ID": "77", "GITHUB_RUN_ATTEMPT": "2", **(extra or {})}
    return subprocess.Popen(["bash", str(launcher)], cwd=work, env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True, **popen)


PROBE = """\
#!/usr/bin/env bash
scontrol show job -o "${SLURM_JOB_ID}" > "${RESULT_DIR}/job.txt"
srun --overlap --ntasks-per-node=1 --nodes="${SLURM_JOB_NUM_NODES}" \\
  bash -c 'echo "node ${SLURMD_NODENAME} rank ${SLURM_NODEID}" > "${RESULT_DIR}/logs/probe-${SLURMD_NODENAME}.log"'
echo '{}' > "${RESULT_DIR}/${RESULT_FILENAME}.json"
"""


def test_a_2p4d_tp8_b300_row_gets_6_exclusive_nodes_the_template_time_and_its_job_name(tmp_path, slurm):
    row = example_row("dsr1-fp4-b300-sglang-disagg")
    work, _ = workspace(tmp_path, PROBE)
    env = row_env(row, work / "results")
    assert (env["SWEEPGATE_NODES"], env["SWEEPGATE_GPUS_PER_NODE"]) == ("6", "8")
    (work / "results" / "logs").mkdir(parents=True)
    proc = launch(B300, work, env, slurm, {"SWEEPGATE_SLURM_TIME": "720"})
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, out
    job = dict(p.split("=", 1) for p in (work / "results" / "job.txt").read_text().split() if "=" in p)
    assert job["JobName"] == job_name(env)
    assert job["NumNodes"] == "6" and job["TimeLimit"] == "12:00:00" and job["OverSubscribe"] == "NO"
    logs = sorted(p.name for p in (work / "results" / "logs").glob("probe-*.log"))
    assert logs == [f"probe-n{i}.log" for i in range(1, 7)]  # every node's log is in logs/
    assert "Granted job allocation" in (work / "results" / "logs" / f"{env['RESULT_FILENAME']}.log").read_text()


def test_the_mi355x_example_row_runs_disaggregated_through_srun_and_leaves_nothing(tmp_path, slurm):
    row = example_row("dsr1-fp8-mi355x-sglang-disagg")
    work, _ = workspace(tmp_path)
    shims = tmp_path / "shims"
    write_shims(shims)
    env = row_env(row, work / "results")
    extra = {"PATH": f"{shims}:{os.environ['PATH']}", "SERVER_STANDIN": str(shims / STANDIN),
             "SWEEPGATE_REHEARSE_LOG": str(tmp_path / "calls.jsonl"), "PORT": "29400",
             "SERVER_READY_TIMEOUT": "60"}
    proc = launch(MI355X, work, env, slurm, extra)
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    result = work / "results" / f"{env['RESULT_FILENAME']}.json"
    assert result.is_file()
    logs = {p.name for p in (work / "results" / "logs").iterdir()}
    # prefill on n1, decode on n2 and n3, router and client on the first node
    assert {"prefill-0-n1.log", "decode-0-n2.log", "decode-1-n3.log", "router.log"} <= logs
    assert_no_process(str(tmp_path))


def processes_mentioning(marker: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmd and state != "Z":
            found.append(f"{proc.name}: {cmd}")
    return found


def assert_no_process(marker: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while processes_mentioning(marker) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert processes_mentioning(marker) == []


SLEEPER = """\
#!/usr/bin/env bash
srun --overlap --ntasks-per-node=1 --nodes="${SLURM_JOB_NUM_NODES}" sleep 3007 &
wait
"""


def wait_running(slurm: SlurmCluster, name: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = slurm.scontrol_job(name)
        if job.get("JobState") == "RUNNING" and processes_mentioning("sleep 3007"):
            return job
        time.sleep(0.5)
    raise AssertionError(f"job {name} never ran: {slurm.scontrol_job(name)}")


def final_state(slurm: SlurmCluster, name: str, timeout: float = 60) -> str:
    """The job's state once it has left RUNNING/COMPLETING."""
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        state = slurm.scontrol_job(name).get("JobState", "")
        if state not in ("RUNNING", "COMPLETING", "PENDING", "CONFIGURING"):
            return state
        time.sleep(0.5)
    return state


def test_term_to_the_launcher_cancels_the_job_by_name_and_leaves_no_process(tmp_path, slurm):
    row = example_row("dsr1-fp4-b300-sglang-disagg")
    work, _ = workspace(tmp_path, SLEEPER)
    env = row_env(row, work / "results")
    proc = launch(B300, work, env, slurm, {"GITHUB_RUN_ID": "78"})
    wait_running(slurm, job_name(env, run="78"))
    os.kill(proc.pid, signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 143, out
    assert f"releasing Slurm job {job_name(env, run='78')}" in out
    assert final_state(slurm, job_name(env, run="78")) == "CANCELLED"
    assert_no_process("sleep 3007")


def test_a_job_that_overruns_its_limit_is_ended_by_slurm(tmp_path, slurm):
    row = example_row("dsr1-fp8-mi355x-sglang-disagg")
    work, _ = workspace(tmp_path, SLEEPER, gpu="mi355x")
    env = row_env(row, work / "results")
    started = time.monotonic()
    proc = launch(MI355X, work, env, slurm, {"SWEEPGATE_SLURM_TIME": "1"})
    out, _ = proc.communicate(timeout=240)
    assert proc.returncode == 1, out
    assert "exceeded its time limit" in out
    assert final_state(slurm, job_name(env)) == "TIMEOUT"
    assert slurm.scontrol_job(job_name(env))["TimeLimit"] == "00:01:00"
    assert 55 < time.monotonic() - started < 200
    assert_no_process("sleep 3007")


def test_slurm_takes_a_1024_character_job_name_and_scancel_finds_it_but_refuses_1025(tmp_path, slurm):
    """The launchers' LAUNCH_MAX_JOB_NAME: the longest name this Slurm records whole and cancels by name."""
    env = {**os.environ, **slurm.env()}
    base = ["salloc", f"--partition={PARTITION}", "--nodes=1", "--time=5"]
    name = f"sweepgate-79-1-{hashlib.sha256(b'x').hexdigest()}".ljust(1024, "x")
    # --no-shell: allocate and return, no local command; the job lives until scancel finds it by name
    subprocess.run([*base, "--no-shell", f"--job-name={name}"], env=env, check=True, capture_output=True,
                   timeout=60)
    deadline = time.monotonic() + 60
    while slurm.scontrol_job(name).get("JobState") != "RUNNING" and time.monotonic() < deadline:
        time.sleep(0.5)
    assert slurm.scontrol_job(name)["JobName"] == name
    subprocess.run(["scancel", f"--name={name}"], env=env, check=True)
    assert final_state(slurm, name) == "CANCELLED"
    refused = subprocess.run([*base, f"--job-name={name}y", "true"], env=env, capture_output=True, text=True,
                             timeout=60)
    assert refused.returncode != 0 and "too long" in refused.stderr.lower(), refused.stderr


def test_dry_run_of_the_b300_row_asks_for_6_nodes_of_8_gpus(tmp_path):
    row = example_row("dsr1-fp4-b300-sglang-disagg")
    env = row_env(row, tmp_path / "results")
    full = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), **env}
    proc = subprocess.run(["bash", str(B300), "--dry-run"], cwd=ROOT, env=full, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    cmd = proc.stdout.splitlines()[1]
    assert "--nodes=6 " in cmd and "--exclusive" in cmd and "--time=720 " in cmd
    assert env["SWEEPGATE_GPUS_PER_NODE"] == "8" and env["SWEEPGATE_TASKS"] == "6"
    assert cmd.endswith("bash benchmarks/multi_node/fixed_seq_len/dsr1_fp4_b300_sglang-disagg.sh")
