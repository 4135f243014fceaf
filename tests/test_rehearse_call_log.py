"""The shims' call log is the rehearsed script's to write to as well: whatever it writes there (bytes that are
not UTF-8, JSON that is no shim call, a folder in its place) is a warning or a problem line, never an internal
error, and never keeps what the script left from being stopped after a Ctrl-C. A PID the log names is
signalled only while it is the shim process that logged it (its start time matches), never a stranger given
the PID since. Real bash, real signals, real processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from test_rehearse import FSL_ROWS, ROOT, write_rows
from test_rehearse_stopping import _kill, _repo_with_script, _wait_for, _work

sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.rehearsal import runner, standin  # noqa: E402
from sweepgate.rehearsal.progress import CallTail  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="real signals, /proc")


def _rehearse(tmp_path: Path, repo: Path, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    return subprocess.Popen([sys.executable, "-m", "sweepgate", "rehearse", "--row-json",
                             str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(_work(tmp_path))],
                            cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)


def _start_time(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[19])


def _sleeper() -> subprocess.Popen:
    return subprocess.Popen(["sleep", "600"], start_new_session=True)


def test_what_the_script_writes_into_the_call_log_is_one_warning_a_line(tmp_path):
    """Review (calls25): a byte that is not UTF-8 in the call log made reading it raise: the rehearsal ended in
    "internal error: UnicodeDecodeError". Now each bad line is one warning naming the log and the line (said
    once, though the log is read twice), and the rehearsal's verdict is given as for any script."""
    repo = _repo_with_script(tmp_path, "printf 'caf\\xe9\\n42\\n' >>\"$SWEEPGATE_REHEARSE_LOG\"\n")
    proc = _rehearse(tmp_path, repo)
    _, err = proc.communicate(timeout=120)
    log = tmp_path / "w" / "calls.jsonl"
    assert proc.returncode == 1 and "internal error" not in err and "Traceback" not in err, err
    utf8 = [line for line in err.splitlines() if line.startswith(f"{log}:1: warning: not UTF-8 text")]
    other = [line for line in err.splitlines() if line.startswith(f"{log}:2: warning: not a shim call")]
    assert len(utf8) == 1 and len(other) == 1, err
    assert "FAILED" in err and "no result file" in err, err


def test_a_ctrl_c_stops_the_shims_the_log_names_though_it_holds_a_bad_byte(tmp_path):
    """Review (calls25): after a Ctrl-C, reading a call log with a byte that is not UTF-8 raised, and the cleanup
    stopped short of the shim processes the log named: they ran on. Now they are stopped, and the exit is 130."""
    shim = _sleeper()  # a shim process out of the script's session and of its descendants
    d = _work(tmp_path)  # the script leaves its marks in its work dir: it may write nowhere else (s46d)
    entry = json.dumps({"tool": "vllm", "argv": ["serve"], "pid": shim.pid, "start": _start_time(shim.pid)})
    repo = _repo_with_script(tmp_path, f"""printf '\\xff\\n' >>"$SWEEPGATE_REHEARSE_LOG"
echo '{entry}' >>"$SWEEPGATE_REHEARSE_LOG"
sleep 600 &
echo $! >{d}/child.pid
touch {d}/ready
wait
""")
    proc = _rehearse(tmp_path, repo)
    pids = [shim.pid]
    try:
        _wait_for(lambda: (d / "ready").exists() or proc.poll() is not None, "the script started")
        pids.append(int((d / "child.pid").read_text()))
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130 and "Traceback" not in err, err
        assert not runner.pid_alive(shim.pid), "the shim the log names outlived the Ctrl-C"
        assert not runner.pid_alive(pids[1]), "the script's child outlived the Ctrl-C"
    finally:
        proc.kill()
        proc.wait()
        _kill(pids)
        shim.wait()


def test_a_call_log_replaced_by_a_folder_is_a_problem_line(tmp_path):
    """Review (calls25): a script that replaced the call log with a folder ended the rehearsal in an internal
    error (IsADirectoryError). Now the verdict says the log cannot be read, in one line, and the exit is 1."""
    repo = _repo_with_script(tmp_path, 'rm -f "$SWEEPGATE_REHEARSE_LOG"; mkdir "$SWEEPGATE_REHEARSE_LOG"\n')
    proc = _rehearse(tmp_path, repo)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and "internal error" not in err and "Traceback" not in err, err
    assert f"cannot read the shims' call log {tmp_path / 'w' / 'calls.jsonl'}: it is a folder, not a file" in err, err


def test_a_call_log_replaced_by_a_fifo_is_a_problem_line_not_a_hang(tmp_path):
    """Review (review25): a script that replaced the call log with a FIFO left rehearse waiting forever in the
    log's open (for a writer that never comes), and a Ctrl-C could not end it: the cleanup read the log again
    under the Stopping hold. Now the log is opened without waiting, and a FIFO is a problem line, exit 1."""
    repo = _repo_with_script(tmp_path, 'rm -f "$SWEEPGATE_REHEARSE_LOG"; mkfifo "$SWEEPGATE_REHEARSE_LOG"\n')
    proc = _rehearse(tmp_path, repo)
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        _kill([proc.pid])  # a hung rehearse: not left behind the failed test
    assert proc.returncode == 1 and "internal error" not in err and "Traceback" not in err, err
    log = tmp_path / "w" / "calls.jsonl"
    assert f"cannot read the shims' call log {log}: not a regular file" in err, err


@pytest.mark.parametrize("recorded", ["another", "none"])
def test_a_pid_the_log_names_is_signalled_only_while_it_is_that_shim(recorded):
    """Review (calls25): the shims the log names were TERMed and KILLed by PID once alive, though the shim may
    have ended long ago and its PID gone to a stranger. Now a call logged with its start time is signalled only
    while the PID's process started then; a call of an older log (no start time) is stopped as before."""
    stranger, shim = _sleeper(), _sleeper()
    try:
        start = _start_time(stranger.pid)
        if recorded == "another":
            assert runner.reap_leftovers([{"tool": "vllm", "argv": ["serve"], "pid": stranger.pid,
                                           "start": start + 1}]) == []
            assert stranger.poll() is None, "a stranger given a logged PID was signalled"
        call = {"tool": "vllm", "argv": ["serve"], "pid": shim.pid}
        if recorded == "another":
            call["start"] = _start_time(shim.pid)
        assert runner.reap_leftovers([call]) == [f"vllm serve (PID {shim.pid})"]
        assert shim.wait(timeout=30) < 0
    finally:
        for p in (stranger, shim):
            p.kill()
            p.wait()


def test_a_shim_logs_its_start_time(tmp_path, monkeypatch):
    """What the rehearsal knows a shim process by: its start time, /proc/PID/stat field 22."""
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("SWEEPGATE_REHEARSE_LOG", str(log))
    assert standin.shim("pip", ["install", "x==1"]) == 0
    assert json.loads(log.read_text())["start"] == _start_time(os.getpid())


def test_a_logged_pid_that_is_no_process_is_never_signalled(tmp_path, monkeypatch):
    """A line the script wrote with PID -1 (or 0) named every process (a process group) to kill(2): the
    rehearsal would have TERMed and KILLed everything it may signal. Such a line is no shim call now."""
    log = tmp_path / "calls.jsonl"
    log.write_text('{"tool": "vllm", "argv": ["serve"], "pid": -1}\n{"tool": "vllm", "argv": [], "pid": "7"}\n')
    sent = []
    monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append((pid, sig)))  # recorded, never sent
    calls = runner.read_calls(log)
    runner.reap_leftovers(calls, hurry=lambda: True)
    assert calls == [] and sent == []


def test_the_progress_tail_leaves_out_what_is_no_shim_call(tmp_path):
    """The live progress showed every JSON line of the log as a command: a bare `42` the script wrote there
    raised AttributeError in the middle of the run."""
    log = tmp_path / "calls.jsonl"
    log.write_text('42\n["vllm"]\n{"tool": "vllm", "argv": ["serve"], "pid": 1}\n')
    assert CallTail(log).new_calls() == [{"tool": "vllm", "argv": ["serve"], "pid": 1}]


def test_preflight_of_a_script_that_replaces_the_call_log_is_a_problem_not_an_internal_error(tmp_path):
    """Review (calls25): `sweepgate preflight` read the call log as rehearse did before it was mended: a
    script that put a folder in its place ended preflight in an internal error. Now it is the row's problem
    (no command of it could be checked), exit 1, at the script."""
    import shutil

    fleet = tmp_path / "fleet"
    shutil.copytree(ROOT / "configs", fleet / "configs", symlinks=False)
    shutil.copytree(ROOT / "benchmarks", fleet / "benchmarks")
    rel = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
    text = (fleet / rel).read_text()
    (fleet / rel).write_text(text.replace("\n", '\nrm -f "$SWEEPGATE_REHEARSE_LOG"; mkdir -p "$SWEEPGATE_REHEARSE_LOG"\n', 1))
    subprocess.run(["git", "init", "-q", str(fleet)], check=True)
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm"],
                          cwd=fleet, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "utils")})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    told = [x for x in proc.stderr.splitlines() if "cannot read the shims' call log" in x]
    assert told and all(x.startswith(f"{rel}:") for x in told), proc.stderr
    assert all("; the script should leave $SWEEPGATE_REHEARSE_LOG to the shims" in x for x in told), told
