"""A process a rehearsed script starts in a session of its own (`setsid cmd &`, a daemon's double
fork) and leaves running is stopped, reaped and named once the script ends (Linux: rehearse is its
subreaper meanwhile); sweepgate's own children are left alone."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_rehearse import FSL_ROWS, ROOT, cli, write_rows

sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.rehearsal import runner  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a child subreaper is Linux's")

SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
WAIT = 'while [[ ! -s {f} ]]; do sleep 0.02; done\n'
# body (with {a} and {b}: files for the PIDs of what it leaves), the PID files it fills
LEAVERS = {
    "setsid": ("setsid sleep 301 &\necho $! >{a}\n", ["a"]),
    "double-fork": ("( setsid bash -c 'echo $$ >{a}; exec sleep 302' & ) &\n" + WAIT.format(f="{a}"), ["a"]),
    "daemon-ignoring-term-with-a-child": (
        "( setsid bash -c 'trap \"\" TERM; sleep 304 & echo $! >{b}; echo $$ >{a}; wait' & ) &\n"
        + WAIT.format(f="{a}"), ["a", "b"]),
}


def _state(pid: int) -> str | None:
    """The process's state letter (Z: a zombie), None when it is gone altogether."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _body(folder: Path, name: str) -> tuple[str, list[Path]]:
    """The script ``name`` of ``LEAVERS``, its PID files in ``folder``, and those files."""
    body, names = LEAVERS[name]
    files = {n: folder / f"{n}.pid" for n in ("a", "b")}
    return body.format(**files), [files[n] for n in names]


def _pids(files: list[Path]) -> list[int]:
    deadline = time.monotonic() + 10
    while not all(f.exists() and f.read_text().strip() for f in files) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [int(f.read_text()) for f in files]


def _kill(pids: list[int]) -> None:
    for pid in pids:
        if runner.pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("name", sorted(LEAVERS))
def test_rehearse_stops_reaps_and_names_what_the_script_left_in_a_session_of_its_own(tmp_path, name):
    """Review (reaper19): `setsid sleep 301 &` or a double-forking daemon in a script escaped the
    leftover check: rehearse returned, reported nothing, and the process ran on under PID 1."""
    repo = tmp_path / "bench"
    shutil.copytree(ROOT / "configs", repo / "configs", symlinks=True)
    script = repo / SCRIPT
    script.parent.mkdir(parents=True)
    body, files = _body(tmp_path / "w", name)  # in its --work-dir: a rehearsal lets it write nowhere else (s46d)
    began = tmp_path / "w" / "began.at"  # when the script started, by its own clock: the CLI's start-up is not timed
    script.write_text(f"echo ${{EPOCHREALTIME/,/.}} >{began}\n" + body
                      + 'echo "{}" >"$RESULT_DIR/$RESULT_FILENAME.json"\n')
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w"),
             "--timeout", "10"], cwd=repo)
    ended = time.time()
    pids = _pids(files)
    try:
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        (line,) = [x for x in r.stderr.splitlines() if "the script left running: " in x]
        assert all(f"(PID {pid})" in line for pid in pids), line
        assert [(pid, _state(pid)) for pid in pids] == [(pid, None) for pid in pids], "left running, or a zombie"
        # the script ended at once; what it left was stopped after the grace (1 s for --timeout 10), not
        # after the timeout: neither the script's timeout nor a wait as long as it ran
        assert "did not finish within" not in r.stderr, r.stderr
        assert ended - float(began.read_text()) < 10, "what the script left was stopped after its --timeout"
    finally:
        _kill(pids)


def test_orphans_are_reaped_and_sweepgates_own_children_left_alone(tmp_path):
    """In-process (as `sweepgate example` runs rows): the double fork's daemon is named and gone, no
    zombie of it stays with this process, its subreaper; a child this process started before the
    script (a `git cat-file`, say) still runs, unnamed; the subreaper flag is put back."""
    body, files = _body(tmp_path, "double-fork")
    script = tmp_path / "row.sh"
    script.write_text(body)
    own, pids = subprocess.Popen(["sleep", "303"]), []
    try:
        run = runner.run_script(script, tmp_path, dict(os.environ), tmp_path / "out.log", 30)
        pids = _pids(files)
        (pid,) = pids
        assert (run.rc, run.timed_out, run.left) == (0, False, [f"sleep 302 (PID {pid})"])
        assert _state(pid) is None, "the daemon was left, or left a zombie"
        assert own.poll() is None and runner.pid_alive(own.pid), "sweepgate's own child was stopped"
        assert _subreaper() == 0
    finally:
        own.kill()
        own.wait()
        _kill(pids)


def test_a_script_left_with_nothing_behind_reports_nothing(tmp_path):
    script = tmp_path / "row.sh"
    script.write_text("sleep 0.1 &\n( sleep 0.1 & ) &\nwait\nsleep 0.3\n")
    run = runner.run_script(script, tmp_path, dict(os.environ), tmp_path / "out.log", 30)
    assert (run.rc, run.timed_out, run.left) == (0, False, [])
    assert not [p for p in _children() if _state(p) == "Z"], "a zombie child was left"


def _children() -> list[int]:
    me = str(os.getpid())
    out = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                out.append(int(entry.name))
        except (OSError, IndexError):
            continue
    return out


def _subreaper() -> int:
    import ctypes

    value = ctypes.c_int(-1)
    ctypes.CDLL(None).prctl(37, ctypes.byref(value), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER
    return value.value


@pytest.mark.parametrize("ending", ["timeout", "ctrl-c"])
def test_orphans_are_stopped_after_a_timeout_and_a_ctrl_c_too(tmp_path, ending):
    """A script stopped by its timeout, or by Ctrl-C (SIGTERM) of rehearse, leaves no daemon either
    (a Ctrl-C names nothing: it raises on)."""
    body, files = _body(tmp_path, "double-fork")
    script = tmp_path / "row.sh"
    script.write_text(body + "touch " + str(tmp_path / "ready") + "\nsleep 600\n")

    def interrupt():
        if ending == "ctrl-c" and (tmp_path / "ready").exists():
            raise KeyboardInterrupt

    pids = []
    try:
        if ending == "ctrl-c":
            with pytest.raises(KeyboardInterrupt):
                runner.run_script(script, tmp_path, dict(os.environ), tmp_path / "out.log", 30, poll=interrupt)
        else:
            run = runner.run_script(script, tmp_path, dict(os.environ), tmp_path / "out.log", 2)
            pids = _pids(files)
            assert run.timed_out and f"sleep 302 (PID {pids[0]})" in run.left, run.left
        pids = _pids(files)
        assert _state(pids[0]) is None, "the daemon was left, or left a zombie"
    finally:
        _kill(pids)
