"""Stopping a rehearsed script can be trusted with Ctrl-C: a second Ctrl-C (or SIGTERM) while it is being
stopped says what is going on and lets the stopping finish, a third kills what is left at once; a
process that ignores TERM and starts another each time it gets one is still stopped, with one grace.
Real bash scripts and real signals; every wait is on a condition, with a generous limit."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from test_rehearse import FSL_ROWS, ROOT, write_rows

sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.rehearsal import runner  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="real signals, /proc")

SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
UNDER_WAY = "stopping the rehearsed script"
FORCED = "killing what is left of the rehearsed script now"


def _wait_for(condition, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


def _kill(pids) -> None:
    for pid in pids:
        if runner.pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


def _repo_with_script(tmp_path: Path, body: str) -> Path:
    repo = tmp_path / "bench"
    shutil.copytree(ROOT / "configs", repo / "configs", symlinks=True)
    script = repo / SCRIPT
    script.parent.mkdir(parents=True)
    script.write_text(body)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def _work(tmp_path: Path) -> Path:
    """The --work-dir of ``_start_rehearsal``: its scripts leave their marks there, as a rehearsal refuses one that
    writes outside its work dir (s46d)."""
    return tmp_path / "w"


def _slow_cleanup_script(d: Path) -> str:
    """A script whose TERM trap (its cleanup) waits for the file `release`, then stops its child."""
    return f"""echo $$ >{d}/script.pid
trap 'touch {d}/termed; while [[ ! -e {d}/release ]]; do sleep 0.05; done; kill $child; touch {d}/cleaned; exit 143' TERM
sleep 600 &
child=$!
echo $child >{d}/child.pid
touch {d}/ready
wait
"""


def _start_rehearsal(tmp_path: Path, script: str | None = None) -> subprocess.Popen:
    """`sweepgate rehearse` of one row whose script is ``script`` (default: ``_slow_cleanup_script``)."""
    repo = _repo_with_script(tmp_path, _slow_cleanup_script(_work(tmp_path)) if script is None else script)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    return subprocess.Popen([sys.executable, "-m", "sweepgate", "rehearse", "--row-json",
                             str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(_work(tmp_path))],
                            cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _read_until(proc: subprocess.Popen, text: str, seen: list[str]) -> bool:
    """Read the command's stderr until a line holds ``text`` (True) or it ends (False)."""
    for line in iter(proc.stderr.readline, ""):
        seen.append(line)
        if text in line:
            return True
    return False


def _interrupted_in_cleanup(tmp_path: Path, first: int, seen: list[str]) -> subprocess.Popen:
    """A rehearsal whose script is in its TERM trap after ``first``, and has been sent a second Ctrl-C."""
    proc = _start_rehearsal(tmp_path)
    _wait_for(lambda: (_work(tmp_path) / "ready").exists() or proc.poll() is not None, "the script started")
    assert proc.poll() is None, proc.stderr.read()
    proc.send_signal(first)
    _wait_for(lambda: (_work(tmp_path) / "termed").exists(), "the script's cleanup began")
    proc.send_signal(signal.SIGINT)
    return proc


@pytest.mark.parametrize("first, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_second_ctrl_c_lets_the_cleanup_finish(tmp_path, first, code):
    """Review (rehearse24): a second Ctrl-C while the script's cleanup ran stopped sweepgate's own at
    once: exit 130 with the script, mid-trap, and its child still running. Now the second one says the
    stopping is under way and what one more does; the script's trap runs to its end and nothing is left;
    the exit status is the first signal's."""
    seen: list[str] = []
    proc = _interrupted_in_cleanup(tmp_path, first, seen)
    pids = []
    try:
        said = _read_until(proc, UNDER_WAY, seen)
        (_work(tmp_path) / "release").touch()
        _, rest = proc.communicate(timeout=120)
        err = "".join(seen) + rest
        pids = [int((_work(tmp_path) / name).read_text()) for name in ("script.pid", "child.pid")]
        assert said and "Ctrl-C again" in err, err
        assert proc.returncode == code and "Traceback" not in err, err
        assert (_work(tmp_path) / "cleaned").exists(), "the script's cleanup was cut short"
        assert not [p for p in pids if runner.pid_alive(p)], "the script or its child outlived the rehearsal"
    finally:
        _let_go(tmp_path, proc, pids)


def _let_go(tmp_path, proc, pids: list[int]) -> None:
    """Whatever a test left: the script's trap released, sweepgate and the script's processes killed."""
    _work(tmp_path).mkdir(exist_ok=True)
    (_work(tmp_path) / "release").touch()
    proc.kill()
    proc.wait()
    _kill(pids)


def test_a_third_ctrl_c_kills_what_is_left_at_once(tmp_path):
    """A user who insists (a third Ctrl-C) gets SIGKILL for the script's processes now, not after the
    script's grace, and still exit 130 with nothing left running."""
    seen: list[str] = []
    proc = _interrupted_in_cleanup(tmp_path, signal.SIGINT, seen)
    pids = []
    try:
        assert _read_until(proc, UNDER_WAY, seen), "".join(seen)
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=120)  # the script's trap never ends: only the KILL ends it
        err = "".join(seen) + rest
        pids = [int((_work(tmp_path) / name).read_text()) for name in ("script.pid", "child.pid")]
        assert FORCED in err and proc.returncode == 130 and "Traceback" not in err, err
        assert not (_work(tmp_path) / "cleaned").exists()
        assert not [p for p in pids if runner.pid_alive(p)], "the script or its child outlived the rehearsal"
    finally:
        _let_go(tmp_path, proc, pids)


def _marked(token: str) -> list[int]:
    """Live processes whose environment holds MARK=token (every process a script started inherits it)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and f"MARK={token}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return [pid for pid in found if runner.pid_alive(pid)]


# A daemon in a session of its own that ignores TERM and, each time it gets one, starts a copy of itself.
TERM_FORKER = """( setsid bash -c 'd() {{ trap "d &" TERM; echo $BASHPID >>{pids}; while :; do sleep 0.05; done; }}; d' & ) &
while [[ ! -s {pids} ]]; do sleep 0.02; done
touch {ready}
"""


@pytest.mark.parametrize("ending", ["exit", "ctrl-c"])
def test_a_daemon_that_forks_on_each_term_is_stopped(tmp_path, ending):
    """Review (rehearse24): what the script left was stopped in up to 5 rounds of TERM, a grace (up to
    10 s) and KILL, each round for the processes seen at its start: a daemon that ignored TERM and started
    a copy of itself at each one cost five graces (about a minute) and was left running. Now it gets one
    TERM and one grace, then KILL until none of it is left, its newest copies included."""
    token = uuid.uuid4().hex
    script = tmp_path / "row.sh"
    script.write_text(TERM_FORKER.format(pids=tmp_path / "d.pids", ready=tmp_path / "ready")
                      + ("sleep 600\n" if ending == "ctrl-c" else ""))

    def interrupt():
        if ending == "ctrl-c" and (tmp_path / "ready").exists():
            raise KeyboardInterrupt

    env = {**os.environ, "MARK": token}
    try:
        if ending == "ctrl-c":
            with pytest.raises(KeyboardInterrupt):
                runner.run_script(script, tmp_path, env, tmp_path / "out.log", 10, poll=interrupt)
        else:
            run = runner.run_script(script, tmp_path, env, tmp_path / "out.log", 10)
            first = int((tmp_path / "d.pids").read_text().split()[0])
            assert run.rc == 0 and any(f"(PID {first})" in x for x in run.left), run.left
        assert _marked(token) == [], "the daemon, or a copy of it, was left running"
    finally:
        _kill(_marked(token))


def test_a_ctrl_c_while_leftovers_get_their_grace_still_stops_them(tmp_path):
    """Review (rehearse24): a Ctrl-C while the script's leftovers were being stopped after it ended (the
    grace after their TERM, up to 10 s) was not caught: sweepgate exited 130 and a daemon that had
    ignored that TERM ran on. Now that Ctrl-C stops them as one during the script does (another TERM,
    which this daemon obeys, then KILL)."""
    d = _work(tmp_path)
    script = f"""( setsid bash -c 'trap "[[ -e {d}/termed ]] && exit 0; touch {d}/termed" TERM
echo $$ >{d}/daemon.pid; while :; do sleep 0.05; done' & ) &
while [[ ! -s {d}/daemon.pid ]]; do sleep 0.02; done
"""
    proc = _start_rehearsal(tmp_path, script)
    pids = []
    try:
        _wait_for(lambda: (d / "termed").exists() or proc.poll() is not None, "the daemon got its TERM")
        pids = [int((d / "daemon.pid").read_text())]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130 and "Traceback" not in err, err
        assert not runner.pid_alive(pids[0]), "the daemon outlived the Ctrl-C"
    finally:
        proc.kill()
        proc.wait()
        _kill(pids)


def test_a_process_whose_name_is_not_utf8_does_not_stop_the_stopping(tmp_path):
    """Review (review24): /proc/PID/stat was read as UTF-8 text; any process on the host whose name is
    not (a program file named in Latin-1, a thread naming itself) made every scan of a session raise
    UnicodeDecodeError: the rehearsal ended in an internal error, and after a Ctrl-C what the script had
    left ran on. Now such a name is read as bytes, and the process is stopped and named like any other."""
    odd = os.fsdecode(bytes(tmp_path) + b"/sl\xffp")
    shutil.copy("/bin/sleep", odd)
    script = tmp_path / "row.sh"
    script.write_text(f'"$ODD" 600 &\necho $! >{tmp_path}/odd.pid\n')
    try:
        run = runner.run_script(script, tmp_path, {**os.environ, "ODD": odd}, tmp_path / "out.log", 60)
        pid = int((tmp_path / "odd.pid").read_text())
        assert run.rc == 0 and any(f"(PID {pid})" in x for x in run.left), run.left
        assert not runner.pid_alive(pid)
    finally:  # not by pid_alive: without the fix it raises on this very process
        if (tmp_path / "odd.pid").exists() and Path(f"/proc/{(pid := (tmp_path / 'odd.pid').read_text().strip())}").exists():
            os.kill(int(pid), signal.SIGKILL)


def test_what_a_held_ctrl_c_says_is_what_is_under_way(capfd):
    """Review24: removing the work dir after a Ctrl-C held further ones with the script's words ("stopping
    the rehearsed script ...", then "killing ... (SIGKILL)") though nothing was being stopped or killed.
    Each hold says its own; past its words, a further signal is only counted."""
    with runner.Stopping(("removing the work dir W; one moment",)) as stopping:
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
    assert capfd.readouterr().err == "sweepgate: removing the work dir W; one moment\n"
    assert stopping.more == 3 and stopping.hurried()
    assert signal.getsignal(signal.SIGINT) != stopping._note  # put back (a bound method is equal, never the same)


def test_a_sigterm_whose_cleanup_fails_still_exits_143(tmp_path):
    """Review (rehearse25): when the cleanup after a SIGTERM itself raised (here: the rehearsed script replaced
    the shims' call log with a folder, which the cleanup cannot read to stop what the shims started; it stops
    the rest first), the command said "interrupted" and exited 130, Ctrl-C's code: a cancelled CI job read as
    a Ctrl-C. Now it ends as the signal said: "terminated", 143 (README, docs/contracts.md: exit codes)."""
    d = _work(tmp_path)
    script = f"""rm -f "$SWEEPGATE_REHEARSE_LOG"; mkdir "$SWEEPGATE_REHEARSE_LOG"
sleep 600 &
echo $! >{d}/child.pid
touch {d}/ready
wait
"""
    proc = _start_rehearsal(tmp_path, script)
    pids = []
    try:
        _wait_for(lambda: (d / "ready").exists() or proc.poll() is not None, "the script started")
        pids = [int((d / "child.pid").read_text())]
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 143 and "sweepgate: terminated" in err and "Traceback" not in err, err
        assert not runner.pid_alive(pids[0]), "the script's child outlived the SIGTERM"
    finally:
        proc.kill()
        proc.wait()
        _kill(pids)


@pytest.mark.parametrize("stop, code, said", [(KeyboardInterrupt(), 130, "interrupted"),
                                              ("SIGTERM", 143, "terminated"), ("SIGHUP", 129, "hung up")])
def test_a_cleanup_that_raises_after_a_signal_keeps_its_exit_code(capsys, stop, code, said):
    """The same for any command: whatever a cleanup raises after the signal, the exit code is the signal's."""
    from sweepgate.core.errors import Terminated, run_guarded

    def command():
        try:
            raise stop if isinstance(stop, BaseException) else Terminated(getattr(signal, stop))
        finally:
            raise OSError("the cleanup failed")

    assert run_guarded(command) == code
    assert capsys.readouterr().err == f"sweepgate: {said}\n"


@pytest.mark.parametrize("stop, code, said", [(KeyboardInterrupt(), 130, "interrupted"),
                                              ("SIGTERM", 143, "terminated"), ("SIGHUP", 129, "hung up")])
def test_a_cleanup_refused_as_bad_input_after_a_signal_keeps_its_exit_code(capsys, stop, code, said):
    """Review (review25): a cleanup that raised one of sweepgate's own refusals (a SweepgateError, not any
    exception) after the signal ended in exit 1, though the contract says the code stays the signal's. Now its
    line is said, and the code is the signal's."""
    from sweepgate.core.errors import Terminated, fail, run_guarded

    def command():
        try:
            raise stop if isinstance(stop, BaseException) else Terminated(getattr(signal, stop))
        finally:
            raise fail("report.md", 0, "cannot write the report", "free some space")

    assert run_guarded(command) == code
    assert capsys.readouterr().err.splitlines()[-1] == f"sweepgate: {said}"


def _pidfds_here() -> bool:
    try:
        os.close(os.pidfd_open(os.getpid()))
        return True
    except (AttributeError, OSError):
        return False


needs_pidfds = pytest.mark.skipif(not _pidfds_here(), reason="no pidfds here (Linux 5.3 on, not refused)")


def _record_signals_by_pid(monkeypatch) -> list[tuple[int, int]]:
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append((pid, sig)))
    monkeypatch.setattr(os, "killpg", lambda pid, sig: sent.append((pid, sig)))
    return sent


@needs_pidfds
@pytest.mark.parametrize("reaped", [False, True])
def test_a_process_that_has_ended_is_never_signalled_by_its_pid(monkeypatch, reaped):
    """Review (rehearse25): the kill loop signalled by PID what its scan had found; a process that ended
    after the scan (and was reaped: its PID free for any process of the host) got the KILL meant for it
    sent to its PID, a stranger's by then. Now each is pinned by a pidfd: one whose pidfd says it has ended,
    or that has none to open any more, is gone, and the loop stops without a signal sent by PID."""
    child = subprocess.Popen(["sleep", "600"])
    child.kill()
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # it has exited; unreaped, a zombie
    if reaped:
        child.wait()
    sent = _record_signals_by_pid(monkeypatch)
    try:
        assert runner.kill_until_gone(lambda: ([child.pid], [child.pid])) == {}  # a scan that is out of date
        assert sent == [], sent
    finally:
        child.wait()


@needs_pidfds
def test_a_process_the_scan_no_longer_finds_once_pinned_is_not_killed(tmp_path):
    """The scan's answer is out of date once the pidfds are open: a process in a scanned PID's place since
    (here a process the scan never meant, standing for a stranger given the PID) is found by the scan that
    follows no more, and is left alone."""
    stranger = subprocess.Popen(["sleep", "600"])
    scans = iter([([stranger.pid], [])])
    try:
        assert runner.kill_until_gone(lambda: next(scans, ([], []))) == {}
        assert stranger.poll() is None and runner.pid_alive(stranger.pid), "a process the scan did not mean was killed"
    finally:
        stranger.kill()
        stranger.wait()


@pytest.mark.parametrize("refusal", [errno.ENOSYS, errno.EPERM])
def test_without_pidfds_the_loop_still_kills_by_pid(monkeypatch, refusal):
    """Where pidfd_open is missing (a kernel before 5.3) or refused (a container's seccomp filter), the loop
    falls back to signalling by PID, and stops asking for pidfds."""
    def refused(pid, flags=0):
        raise OSError(refusal, os.strerror(refusal))

    monkeypatch.setattr(runner.Pidfds, "usable", True)
    monkeypatch.setattr(os, "pidfd_open", refused, raising=False)
    proc = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        killed = runner.kill_until_gone(lambda: runner._session_scan(proc.pid))
        assert list(killed) == [proc.pid] and proc.wait() == -signal.SIGKILL
        assert runner.Pidfds.usable is False
    finally:
        proc.kill()
        proc.wait()


def _ctrl_c_midway_through_removal(monkeypatch, request) -> list[Path]:
    """Make every shutil.rmtree get a real Ctrl-C (SIGINT to this process) once part of its folder is gone;
    the folders it was asked to remove."""
    real, asked = shutil.rmtree, []

    def rmtree(path, *args, **kwargs):
        asked.append(Path(path))
        part = sorted(Path(path).iterdir())[0]
        real(part) if part.is_dir() and not part.is_symlink() else part.unlink()
        os.kill(os.getpid(), signal.SIGINT)
        real(path, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", rmtree)
    request.addfinalizer(lambda: [real(path, ignore_errors=True) for path in asked])
    return asked


@pytest.mark.parametrize("first", [None, "ctrl-c"])
def test_preflight_removes_its_scratch_folder_whole_through_a_ctrl_c(tmp_path, monkeypatch, request, capfd, first):
    """Review (rehearse25): `sweepgate preflight` removed each row's scratch folder outside the hold that
    `rehearse` removes its work dir under: a Ctrl-C during that removal (a second one, after the first that
    stopped the row, or the first, as the row ended) cut it short and left a half-removed folder in the temp
    dir. Now a Ctrl-C meanwhile is held (and said): the folder goes whole, then the command stops."""
    from sweepgate.rehearsal import record

    repo = _repo_with_script(tmp_path, "exit 0\n")

    def script_run(*args, **kwargs):
        if first:
            raise KeyboardInterrupt  # the first Ctrl-C, while the row's script runs
        return runner.ScriptRun(0, False, [])

    monkeypatch.setattr(runner, "run_script", script_run)
    asked = _ctrl_c_midway_through_removal(monkeypatch, request)
    with pytest.raises(KeyboardInterrupt):
        record.record_row(dict(FSL_ROWS[0]), repo, 60)
    assert len(asked) == 1 and not asked[0].exists(), "the scratch folder was left half-removed"
    assert "removing the rehearsal's scratch folder" in capfd.readouterr().err


@pytest.mark.parametrize("first", [None, "ctrl-c"])
def test_example_removes_its_throwaway_repository_whole_through_a_ctrl_c(tmp_path, monkeypatch, request, capfd,
                                                                           first):
    """The same for `sweepgate example`'s throwaway repository."""
    import argparse

    from sweepgate.commands import example

    gate = example.gate_and_matrix

    def gate_then_ctrl_c(tmp):
        done = gate(tmp)
        if first:
            raise KeyboardInterrupt  # the first Ctrl-C, once the repository is built
        return done

    monkeypatch.setattr(example, "gate_and_matrix", gate_then_ctrl_c)
    asked = _ctrl_c_midway_through_removal(monkeypatch, request)
    with pytest.raises(KeyboardInterrupt):
        example.run(argparse.Namespace(json=False, keep=False, plots=None, no_rehearse=True))
    assert len(asked) == 1 and asked[0].name.startswith("sweepgate-example-")
    assert not asked[0].exists(), "the example's repository was left half-removed"
    assert "removing the example's throwaway repository" in capfd.readouterr().err
