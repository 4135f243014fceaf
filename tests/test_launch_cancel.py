"""Cancelling a launcher: a real process tree (launcher -> salloc -> srun -> script -> sleep, plus tee).

salloc, srun, scancel and squeue are stand-ins on PATH that behave as plain processes do:
salloc and srun run their command as a child and die on TERM without passing it on, so
only the launcher's own forwarding reaches the script. After TERM to the launcher,
nothing of the tree may be left, the job is released by name, and a start first clears
the same row's jobs of earlier attempts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

from test_launchers import B300, BASE_ENV, FIXED, MI355X

STANDIN = '''#!/usr/bin/env bash
while [[ "${1:-}" == -* ]]; do shift; done
"$@" &
wait $!
'''


def fake_cluster(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    (bin_dir / "salloc").write_text(STANDIN)
    (bin_dir / "srun").write_text(STANDIN)
    (bin_dir / "scancel").write_text(f'#!/usr/bin/env bash\necho "scancel $*" >>"{calls}"\n')
    (bin_dir / "squeue").write_text("#!/usr/bin/env bash\nexit 0\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return bin_dir


def processes_with(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if marker in line and "ps -eo" not in line]


def wait_for(predicate, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def test_term_reaches_salloc_srun_and_the_script_and_leaves_nothing_running(tmp_path):
    marker = f"sweepgate-cancel-{uuid.uuid4().hex[:8]}"
    script = tmp_path / FIXED / "kimik3_fp4_b300.sh"
    script.parent.mkdir(parents=True)
    script.write_text(f'echo started\nexec -a {marker} sleep 300\n')
    bin_dir = fake_cluster(tmp_path)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path), **BASE_ENV,
           "SWEEPGATE_CONTAINER_RUNTIME": "none", "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "3"}
    proc = subprocess.Popen(["bash", str(B300)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        log = tmp_path / "results" / "logs" / f"{BASE_ENV['RESULT_FILENAME']}.log"
        assert wait_for(lambda: log.exists() and "started" in log.read_text()), "the script never started"
        assert processes_with(marker)
        os.kill(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    # salloc, srun, the script's sleep and the log's tee are all gone
    assert wait_for(lambda: not processes_with(marker)), processes_with(marker)
    tee = f"{BASE_ENV['RESULT_FILENAME']}.log"
    assert wait_for(lambda: not processes_with(tee)), processes_with(tee)
    assert not processes_with(str(bin_dir))
    calls = (tmp_path / "calls").read_text().splitlines()
    name = next(c for c in calls if "--name=sweepgate-4242-3-" in c).split("--name=")[1].split()[0]
    # before the start: the same row's jobs of attempts 1-3 (a runner restart leaves its own); at TERM: this one
    earlier = [c for c in calls[:3]]
    assert [c.split("--name=")[1].split()[0] for c in earlier] == [
        name.replace("-4242-3-", f"-4242-{k}-") for k in (1, 2, 3)]
    assert calls[-1].startswith("scancel --name=" + name)


# --- the MI355X docker container: named like the job, removed by name ------------------------

DOCKER = '''#!/usr/bin/env bash
echo "docker $*" >>"{calls}"
[[ "$1" == run ]] || exit 0
shift
while [[ "$1" == -* ]]; do shift; done
shift  # the image
"$@" &
wait $!
'''


def docker_cluster(tmp_path: Path) -> tuple[Path, Path]:
    """fake_cluster plus a `docker` that records each call and runs `docker run`'s command as a child."""
    bin_dir = fake_cluster(tmp_path)
    calls = tmp_path / "docker-calls"
    (bin_dir / "docker").write_text(DOCKER.replace("{calls}", str(calls)))
    (bin_dir / "docker").chmod(0o755)
    return bin_dir, calls


def mi355x_env(bin_dir: Path, tmp_path: Path, **extra) -> dict:
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path), **BASE_ENV,
            "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "2", **extra}


def docker_calls(calls: Path) -> list[str]:
    return calls.read_text().splitlines() if calls.exists() else []


def test_a_cancelled_mi355x_job_removes_its_container_by_the_job_name(tmp_path):
    marker = f"sweepgate-docker-{uuid.uuid4().hex[:8]}"
    script = tmp_path / FIXED / "kimik3_fp4_mi355x.sh"
    script.parent.mkdir(parents=True)
    script.write_text(f'echo started\nexec -a {marker} sleep 300\n')
    bin_dir, calls = docker_cluster(tmp_path)
    proc = subprocess.Popen(["bash", str(MI355X)], cwd=tmp_path, env=mi355x_env(bin_dir, tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        log = tmp_path / "results" / "logs" / f"{BASE_ENV['RESULT_FILENAME']}.log"
        assert wait_for(lambda: log.exists() and "started" in log.read_text()), "the script never started"
        os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert wait_for(lambda: not processes_with(marker)), processes_with(marker)
    name = f"sweepgate-4242-2-{BASE_ENV['RESULT_FILENAME']}"
    earlier = name.replace("-4242-2-", "-4242-1-")
    # before the start: this row's containers of attempts 1 and 2; then the run under the job's name;
    # at TERM: both names again, before the allocation is released
    got = docker_calls(calls)
    assert got[:2] == [f"docker rm -f {earlier}", f"docker rm -f {name}"]
    assert got[2].startswith("docker run ") and f" --name={name} " in got[2]
    assert got[3:] == [f"docker rm -f {earlier}", f"docker rm -f {name}"]
    scancels = (tmp_path / "calls").read_text().splitlines()
    assert scancels[-1].startswith(f"scancel --name={name} ")


def test_a_failed_mi355x_job_removes_its_container(tmp_path):
    script = tmp_path / FIXED / "kimik3_fp4_mi355x.sh"
    script.parent.mkdir(parents=True)
    script.write_text("exit 3\n")
    bin_dir, calls = docker_cluster(tmp_path)
    proc = subprocess.run(["bash", str(MI355X)], cwd=tmp_path, env=mi355x_env(bin_dir, tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3, proc.stderr
    name = f"sweepgate-4242-2-{BASE_ENV['RESULT_FILENAME']}"
    got = docker_calls(calls)
    assert got[2].startswith("docker run ") and got[-1] == f"docker rm -f {name}"


def test_pyxis_and_no_runtime_need_no_container_cleanup(tmp_path):
    """A pyxis container is the Slurm step's process tree and dies with it; nothing calls docker."""
    script = tmp_path / FIXED / "kimik3_fp4_b300.sh"
    script.parent.mkdir(parents=True)
    script.write_text("exit 3\n")
    bin_dir, calls = docker_cluster(tmp_path)
    for runtime in ("pyxis", "none"):
        proc = subprocess.run(["bash", str(B300)], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                              env=mi355x_env(bin_dir, tmp_path, SWEEPGATE_CONTAINER_RUNTIME=runtime))
        assert proc.returncode == 3, proc.stderr
    script.with_name("kimik3_fp4_mi355x.sh").write_text("exit 3\n")
    proc = subprocess.run(["bash", str(MI355X)], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env=mi355x_env(bin_dir, tmp_path, SWEEPGATE_CONTAINER_RUNTIME="none"))
    assert proc.returncode == 3, proc.stderr
    assert docker_calls(calls) == []
