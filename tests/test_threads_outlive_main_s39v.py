"""s39v, review of 401482cb: a process whose main thread has ended while its other threads run reads as a zombie
in /proc (state Z, an empty command line) though it is live: its threads run on, holding a port, a GPU or a file.
The rehearsal's scans took it for exited (a zombie is not left running, 401482cb), so a server left running so was
neither named nor killed. It is live now while another thread of it is (/proc/PID/stat's thread count): named by
its own name, found in its session and killed with the others. Real processes throughout."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from sweepgate.rehearsal import runner
from test_exiting_not_left_s39 import stat_once_z

# the main thread ends (pthread_exit) while a thread it started sleeps on
MAIN_ENDS = ("import ctypes, threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\n"
             "ctypes.CDLL(None).pthread_exit(None)\n")


def _main_thread_ended() -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", MAIN_ENDS], start_new_session=True)
    assert int(stat_once_z(child)[17]) > 1  # its sleeping thread counted
    return child


def test_a_process_whose_other_threads_run_is_live_named_and_killed():
    child = _main_thread_ended()
    try:
        assert runner.pid_alive(child.pid)
        said = runner._command_of(child.pid, [])  # its command line is empty: its own name (comm)
        assert said == f"{Path(f'/proc/{child.pid}/comm').read_text().strip()} (PID {child.pid})", said
        assert runner.session_members(child.pid) == [child.pid]
        killed = runner.kill_until_gone(lambda: (runner.session_members(child.pid), []),
                                        lambda pid: runner._command_of(pid, []))
        assert list(killed) == [child.pid]
        assert child.wait(10) == -9
    finally:
        child.kill()
        child.wait()


def test_a_zombie_is_still_not_live():
    child = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    try:
        for _ in range(1000):
            if Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                break
            time.sleep(0.01)
        assert not runner.pid_alive(child.pid)
        assert runner._command_of(child.pid, []) is None
        assert runner.session_members(child.pid) == []
    finally:
        child.wait()
