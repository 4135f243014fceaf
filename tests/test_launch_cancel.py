"""Cancelling a launcher: a real process tree (launcher -> salloc -> srun -> script -> sleep, plus tee).

salloc, srun, scancel and squeue are stand-ins on PATH that behave as plain processes do:
salloc and srun run their command as a child and die on TERM without passing it on, so
only the launcher's own forwarding reaches the script. After TERM to the launcher,
nothing of the tree may be left, the job is released by name, and a start first clears
the same row's jobs of earlier attempts.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

from test_launchers import B300, BASE_ENV, FIXED, MI355X, ROOT

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
    """``pid args`` of every process whose command line holds ``marker`` (ps's own width: it cuts
    lines at $COLUMNS when that is set)."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if marker in line and "ps -eo" not in line]


def processes_named(marker: str) -> list[str]:
    """The processes whose name (argv[0], ``exec -a``) starts with ``marker``: the workers
    themselves, not the clients, srun tasks and scripts naming them in their arguments."""
    return [line for line in processes_with(marker) if line.split()[1].startswith(marker)]


def wait_for(predicate, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def cancel_once_started(proc: subprocess.Popen, tmp_path: Path, ready=lambda: True,
                        timeout: float = 30) -> tuple[int, str]:
    """Once the row's log says the script started (and ``ready()`` holds), TERM the launcher and
    wait for it; it is killed if anything fails. Returns (exit code, stderr)."""
    try:
        log = tmp_path / "results" / "logs" / f"{BASE_ENV['RESULT_FILENAME']}.log"
        assert wait_for(lambda: log.exists() and "started" in log.read_text()), "the script never started"
        assert wait_for(ready), "the job never got ready to be cancelled"
        os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err


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
    returncode, err = cancel_once_started(proc, tmp_path, lambda: processes_with(marker))
    assert returncode == 143, err
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
    returncode, err = cancel_once_started(proc, tmp_path)
    assert returncode == 143, err
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


# --- multi-node docker workers: one named container per task and node, removed on cancel ------

# A docker whose containers outlive the client, as the daemon's do: `run` starts the command
# detached (a session of its own, not the client's child) and records it under the container's
# name (and its labels), the client following it until it ends; `rm -f NAME` kills it and
# forgets it; `ps -a --filter label=K=V [--format F]` lists the containers carrying every such
# label, a line each, F's `{{.Names}}` and `{{.Label "K"}}` filled in (then runs
# $FAKE_DOCKER_PS_HOOK: what happens on the node while the client reads the list). A name
# already taken is refused, and `run` notes in <containers>-at-<name> what the daemon held then.
# Creating (name, labels, process), removing and listing hold one lock, so neither `rm` nor `ps`
# meets half a container.
DAEMON_DOCKER = '''#!/usr/bin/env bash
echo "docker $*" >>"@CALLS@"
containers="@CONTAINERS@"
case "$1" in
  rm)
    shift
    [[ "$1" == -f ]] && shift
    exec 9>"${containers}.lock"
    flock 9
    sleep "${FAKE_DOCKER_RM_SECONDS:-0}"  # a daemon slow to answer: rm takes its time
    for name in "$@"; do
      [[ -f "${containers}/${name}" ]] || continue
      kill -KILL -- "-$(<"${containers}/${name}")" 2>/dev/null
      rm -f "${containers}/${name}" "${containers}/${name}.labels"
    done
    exit 0 ;;
  ps)
    want=()
    format='{{.Names}}'
    while (($# > 1)); do
      [[ "$1" == --filter ]] && want+=("${2#label=}")
      [[ "$1" == --format ]] && format="$2"
      shift
    done
    exec 9>"${containers}.lock"  # the daemon answers from one state: no rm or run half-way
    flock 9
    for labels in "${containers}"/*.labels; do
      [[ -f "${labels}" ]] || continue
      for label in "${want[@]}"; do
        grep -qxF -- "${label}" "${labels}" || continue 2
      done
      line="${format//'{{.Names}}'/$(basename "${labels}" .labels)}"
      label_re='[{][{][.]Label "([^"]*)"[}][}]'
      while [[ "${line}" =~ ${label_re} ]]; do
        value="$(grep -m1 "^${BASH_REMATCH[1]}=" "${labels}")"
        line="${line//"${BASH_REMATCH[0]}"/${value#*=}}"
      done
      printf '%b\\n' "${line}"
    done
    exec 9>&-
    [[ -n "${FAKE_DOCKER_PS_HOOK:-}" ]] && "${FAKE_DOCKER_PS_HOOK}"
    exit 0 ;;
  run) shift ;;
  *) exit 0 ;;
esac
name="unnamed-$$"
labels=()
while [[ "$1" == -* ]]; do
  [[ "$1" == --name=* ]] && name="${1#--name=}"
  [[ "$1" == --label=* ]] && labels+=("${1#--label=}")
  shift
done
shift  # the image
exec 9>"${containers}.lock"  # the daemon creates a container (name, labels, process) in one step
flock 9
if [[ -f "${containers}/${name}" ]]; then
  echo "docker: Error response from daemon: Conflict. The container name ${name} is already in use" >&2
  exit 125
fi
ls "${containers}" | grep -v '[.]labels$' >"${containers}-at-${name}"
printf '%s\n' "${labels[@]}" >"${containers}/${name}.labels"
(
  for fd in /proc/"${BASHPID}"/fd/*; do  # nothing of the client's: the daemon starts it
    fd="${fd##*/}"
    ((fd > 2)) && eval "exec ${fd}>&-"
  done
  setsid "$@" </dev/null >/dev/null 2>&1 &
  echo "$!" >"${containers}/${name}"
)
pid="$(<"${containers}/${name}")"
exec 9>&-
while [[ -f "${containers}/${name}" && -e "/proc/${pid}" ]] \\
  && [[ "$(</proc/${pid}/stat)" != *") Z "* ]]; do
  sleep 0.1
done
'''

# srun --ntasks=N: N tasks with their ranks; like the real one, it dies on TERM without passing it on.
TASK_SRUN = '''#!/usr/bin/env bash
tasks=1
while [[ "${1:-}" == -* ]]; do
  [[ "$1" == --ntasks=* ]] && tasks="${1#--ntasks=}"
  shift
done
for ((rank = 0; rank < tasks; rank++)); do
  SLURM_PROCID="${rank}" SLURM_NODEID="${rank}" "$@" &
done
wait
'''

ALLOC = '''#!/usr/bin/env bash
while [[ "${1:-}" == -* ]]; do shift; done
SLURM_JOB_ID=1 SLURM_JOB_NODELIST="n[1-3]" "$@" &
wait $!
'''

SCONTROL = '''#!/usr/bin/env bash
case "$2" in
  hostnames) printf 'n%s\\n' 1 2 3 ;;
  node) echo "NodeName=$4 NodeAddr=127.0.0.1" ;;
esac
'''

# The multi-node script: the real disagg_lib.sh places a one-node prefill and a two-node decode task.
WORKERS = '''#!/usr/bin/env bash
source "$(dirname "${BASH_SOURCE[0]}")/../disagg_lib.sh"
mkdir -p "${RESULT_DIR}/logs"
disagg::nodes || exit 1
disagg::start_task prefill-0 0 1 bash -c "exec -a {marker}-prefill sleep 300" || exit 1
disagg::start_task decode-0 1 2 bash -c "exec -a {marker}-decode sleep 300" || exit 1
echo started
wait
'''


def multi_node_cluster(tmp_path: Path, marker: str) -> tuple[Path, Path, Path]:
    """The repo's benchmarks with WORKERS as the row's script, and a 3-node cluster whose docker
    is DAEMON_DOCKER: (bin dir, docker call log, the daemon's container directory)."""
    shutil.copytree(ROOT / "benchmarks", tmp_path / "benchmarks")
    script = tmp_path / "benchmarks" / "multi_node" / "fixed_seq_len" / "kimik3_fp4_mi355x.sh"
    script.write_text(WORKERS.replace("{marker}", marker))
    bin_dir, calls = docker_cluster(tmp_path)
    containers = tmp_path / "containers"
    containers.mkdir()
    for tool, text in (("docker", DAEMON_DOCKER.replace("@CALLS@", str(calls))
                        .replace("@CONTAINERS@", str(containers))),
                       ("srun", TASK_SRUN), ("salloc", ALLOC), ("scontrol", SCONTROL)):
        (bin_dir / tool).write_text(text)
        (bin_dir / tool).chmod(0o755)
    return bin_dir, calls, containers


def run_and_cancel_multi_node(tmp_path: Path, bin_dir: Path, marker: str) -> tuple[int, str]:
    """Launch the multi-node row (attempt 2), TERM the launcher once its 3 workers run; (rc, stderr)."""
    env = mi355x_env(bin_dir, tmp_path, MULTINODE="true", SWEEPGATE_NODES="3", SWEEPGATE_GPUS_PER_NODE="8",
                     PORT="29500")
    proc = subprocess.Popen(["bash", str(MI355X)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        return cancel_once_started(proc, tmp_path, lambda: len(processes_named(marker)) == 3, timeout=60)
    finally:
        for line in processes_with(marker):
            os.kill(int(line.split()[0]), signal.SIGKILL)


def test_a_cancelled_multi_node_job_removes_every_worker_container(tmp_path):
    marker = f"sweepgate-worker-{uuid.uuid4().hex[:8]}"
    bin_dir, calls, containers = multi_node_cluster(tmp_path, marker)
    rc, err = run_and_cancel_multi_node(tmp_path, bin_dir, marker)
    assert rc == 143, err
    job = f"sweepgate-4242-2-{BASE_ENV['RESULT_FILENAME']}"
    names = {f"{job}-prefill-0-0", f"{job}-decode-0-0", f"{job}-decode-0-1"}
    runs = [c for c in docker_calls(calls) if c.startswith("docker run ")]
    # the launcher's default runtime reached the script: every task ran in a container of its own name
    assert {c.partition(" --name=")[2].partition(" ")[0] for c in runs} == names, runs
    assert all(f" --label=sweepgate.job={job} " in c and " --env=RESULT_DIR " in c for c in runs), runs
    # and no container outlived the cancel: each was removed by its name
    assert wait_for(lambda: not processes_with(marker)), processes_with(marker)
    assert sorted(p.name for p in containers.iterdir()) == [], (calls.read_text(), err)
    assert {f"docker rm -f {n}" for n in names} <= set(docker_calls(calls))


def leave_container(bin_dir: Path, tmp_path: Path, marker: str, argv: list[str], **env) -> None:
    """Start ARGV's container (running a process named MARKER) on the fake daemon, then SIGKILL the
    client's whole tree (the node lost contact: no trap ran), leaving the container behind."""
    def running() -> int:  # processes named MARKER (exec -a), not the clients naming it in their args
        return sum(line.split()[1] == marker for line in processes_named(marker))

    before = running()
    proc = subprocess.Popen(argv, cwd=tmp_path, env={"PATH": f"{bin_dir}:{os.environ['PATH']}", **env},
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: running() == before + 1), processes_with(marker)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_a_retry_removes_the_rows_earlier_attempt_containers_before_its_workers_start(tmp_path):
    """Attempt 1's workers died with their node's contact but their containers lived on; attempt 2's
    worker task removes them (and a stale container of its own name) on its node before `docker run`.
    Another row's container and one without sweepgate's labels stay."""
    marker = f"sweepgate-retry-{uuid.uuid4().hex[:8]}"
    stale = f"sweepgate-stale-{uuid.uuid4().hex[:8]}"
    bin_dir, calls, containers = multi_node_cluster(tmp_path, marker)
    fname = BASE_ENV["RESULT_FILENAME"]
    row, job = f"sweepgate-4242-{fname}", f"sweepgate-4242-2-{fname}"
    sleeper = ["image", "bash", "-c", f"exec -a {stale} sleep 300"]
    left = {  # container name -> (job, row) labels of the task that left it, as docker_task.sh sets them
        f"sweepgate-4242-1-{fname}-prefill-0-0": (f"sweepgate-4242-1-{fname}", row),
        f"sweepgate-4242-1-{fname}-decode-0-1": (f"sweepgate-4242-1-{fname}", row),
        f"{job}-decode-0-0": (job, row),  # this attempt's own name, taken
        "sweepgate-4242-1-other-row-prefill-0-0": ("sweepgate-4242-1-other-row", "sweepgate-4242-other-row"),
    }
    try:
        for name, (its_job, its_row) in left.items():
            leave_container(bin_dir, tmp_path, stale, ["docker", "run", f"--name={name}",
                            f"--label=sweepgate.job={its_job}", f"--label=sweepgate.row={its_row}", *sleeper])
        leave_container(bin_dir, tmp_path, stale, ["docker", "run", "--name=bare", *sleeper])
        assert len(processes_with(stale)) == 5
        assert sorted(p.name for p in containers.iterdir() if p.suffix != ".labels") == sorted([*left, "bare"])
        seeded = len(docker_calls(calls))
        rc, err = run_and_cancel_multi_node(tmp_path, bin_dir, marker)
        assert rc == 143, err
        survivors = {"sweepgate-4242-1-other-row-prefill-0-0", "bare"}
        mine = {f"{job}-prefill-0-0", f"{job}-decode-0-0", f"{job}-decode-0-1"}
        for name in mine:
            held = tmp_path / f"containers-at-{name}"
            assert held.exists(), f"{name} never started: {docker_calls(calls)}"
            # what the daemon held when this worker's `docker run` came: no leftover of the row
            assert set(held.read_text().split()) - mine == survivors, name
        runs = [c for c in docker_calls(calls)[seeded:] if c.startswith("docker run ")]
        assert len(runs) == 3 and all(f" --label=sweepgate.row={row} " in c for c in runs), runs
        assert len(processes_with(stale)) == 2
        assert sorted(p.name for p in containers.iterdir() if p.suffix != ".labels") == sorted(survivors)
    finally:
        for line in processes_with(stale):
            os.kill(int(line.split()[0]), signal.SIGKILL)


SIBLING_HOOK = '''#!/usr/bin/env bash
count="$(($(cat "@DIR@/hook-count" 2>/dev/null || echo 0) + 1))"
echo "${count}" >"@DIR@/hook-count"
case "${count}" in
  1) docker rm -f "@NAME@" ;;
  2) setsid docker run "--name=@NAME@" --label=sweepgate.job=job --label=sweepgate.row=row image \\
       bash -c "exec -a @MARKER@-decode sleep 300" </dev/null >/dev/null 2>&1 &
     for _ in $(seq 100); do [[ -f "@CONTAINERS@/@NAME@" ]] && break; sleep 0.1; done ;;
esac
'''


def test_a_sibling_replacing_its_stale_container_while_a_task_looks_for_leftovers_keeps_the_new_one(tmp_path):
    """Attempt 2's decode task removes a stale container of its own name and starts a fresh one under
    that name while attempt 2's prefill task looks for the row's leftovers. Seen in CI: the prefill
    task listed the row (the stale one there), then the job (the stale one gone, the fresh one not yet
    up), took the name for another attempt's and removed the fresh container by it. The hook plays the
    sibling on the node after each of the task's listings."""
    marker = f"sweepgate-sibling-{uuid.uuid4().hex[:8]}"
    bin_dir, calls, containers = multi_node_cluster(tmp_path, marker)
    sibling = "job-decode-0-0"
    hook = tmp_path / "sibling.sh"
    hook.write_text(SIBLING_HOOK.replace("@DIR@", str(tmp_path)).replace("@NAME@", sibling)
                    .replace("@MARKER@", marker).replace("@CONTAINERS@", str(containers)))
    hook.chmod(0o755)
    try:
        leave_container(bin_dir, tmp_path, f"{marker}-decode", [  # the stale one: this attempt's name
            "docker", "run", f"--name={sibling}", "--label=sweepgate.job=job", "--label=sweepgate.row=row",
            "image", "bash", "-c", f"exec -a {marker}-decode sleep 300"])
        leave_container(bin_dir, tmp_path, f"{marker}-old", [  # attempt 1's: a leftover
            "docker", "run", "--name=job1-decode-0-0", "--label=sweepgate.job=job1", "--label=sweepgate.row=row",
            "image", "bash", "-c", f"exec -a {marker}-old sleep 300"])
        env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SWEEPGATE_JOB_NAME": "job",
               "SWEEPGATE_ROW_NAME": "row", "FAKE_DOCKER_PS_HOOK": str(hook)}
        task = subprocess.Popen(["setsid", "srun", "--ntasks=1", "bash",
                                 str(ROOT / "benchmarks/multi_node/docker_task.sh"), "prefill-0", "image",
                                 "bash", "-c", f"exec -a {marker}-prefill sleep 300"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            assert wait_for(lambda: len(processes_named(f"{marker}-prefill")) == 1), docker_calls(calls)
            removals = [c for c in docker_calls(calls) if c.startswith("docker rm -f job-prefill-0-0")]
            assert removals == ["docker rm -f job-prefill-0-0 job1-decode-0-0"], docker_calls(calls)
            assert not processes_named(f"{marker}-old")
        finally:
            os.killpg(task.pid, signal.SIGTERM)
            task.communicate(timeout=30)
    finally:
        for line in processes_with(marker):
            os.kill(int(line.split()[0]), signal.SIGKILL)


def test_a_second_term_while_a_worker_removes_its_container_does_not_stop_the_removal(tmp_path):
    """Slurm's TERM to the step and the job's cleanup TERM to the task's process group come one after
    the other: the second one reached `docker rm` while the task's exit handler waited for it (and,
    at the start of the handler, ended it before the rm began), leaving the container running."""
    marker = f"sweepgate-twice-{uuid.uuid4().hex[:8]}"
    bin_dir, calls, containers = multi_node_cluster(tmp_path, marker)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SWEEPGATE_JOB_NAME": "job",
           "SWEEPGATE_ROW_NAME": "row", "FAKE_DOCKER_RM_SECONDS": "1"}
    task = subprocess.Popen(["setsid", "srun", "--ntasks=1", "bash", str(ROOT / "benchmarks/multi_node/docker_task.sh"),
                             "prefill-0", "image", "bash", "-c", f"exec -a {marker} sleep 300"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: len(processes_named(marker)) == 1 and len(list(containers.iterdir())) == 2)
        os.killpg(task.pid, signal.SIGTERM)
        removals = lambda: docker_calls(calls).count("docker rm -f job-prefill-0-0")  # noqa: E731
        assert wait_for(lambda: removals() == 2), docker_calls(calls)  # the start's leftover sweep, then this
        os.killpg(task.pid, signal.SIGTERM)  # the group now holds the task's `docker rm` too
        task.communicate(timeout=30)
        assert wait_for(lambda: not processes_named(marker)), processes_named(marker)
        assert sorted(p.name for p in containers.iterdir()) == [], docker_calls(calls)
    finally:
        if task.poll() is None:
            os.killpg(task.pid, signal.SIGKILL)
        for line in processes_with(marker):
            os.kill(int(line.split()[0]), signal.SIGKILL)
