"""A process the rehearsal's scan found live that is exiting (or gone) when it is named is not 'left running'.

A test run of test_rehearse failed once with "the script left running:  (PID 847)": a process with no command
line, which a process has from the moment its memory is let go until it is reaped.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from sweepgate.rehearsal import runner


def stat_once_z(child: subprocess.Popen) -> list[bytes]:
    """``child``'s /proc/PID/stat fields after the command's ')' once its state is Z (it is not reaped: Popen.poll
    is not called), read every 10 ms for at most 10 s."""
    for _ in range(1000):
        fields = Path(f"/proc/{child.pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
        if fields[0] == b"Z":
            return fields
        time.sleep(0.01)
    raise AssertionError("the child is not a zombie")


def _zombie() -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    stat_once_z(child)
    return child


def test_a_process_with_no_command_line_is_not_named_left_running():
    child = _zombie()
    try:
        assert Path(f"/proc/{child.pid}/cmdline").read_bytes() == b""
        assert runner._command_of(child.pid, []) is None
    finally:
        child.wait()
    assert runner._command_of(child.pid, []) is None  # reaped: gone


def test_a_live_process_is_named_by_its_command_line():
    child = subprocess.Popen(["sleep", "30"])
    try:
        assert runner._command_of(child.pid, []) == f"sleep 30 (PID {child.pid})"
    finally:
        child.kill()
        child.wait()


def test_what_kill_until_gone_is_told_is_exiting_is_killed_and_left_out():
    exiting, running = subprocess.Popen(["sleep", "30"]), subprocess.Popen(["sleep", "31"])
    try:
        pids = {exiting.pid, running.pid}

        def scan():
            return [pid for pid in pids if Path(f"/proc/{pid}/stat").exists()
                    and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"], []

        killed = runner.kill_until_gone(scan, lambda pid: None if pid == exiting.pid else f"sleep (PID {pid})")
        assert killed == {running.pid: f"sleep (PID {running.pid})"}
        assert exiting.wait(10) == -9 and running.wait(10) == -9
    finally:
        for p in (exiting, running):
            p.kill()
            p.wait()
