"""Stopping a rehearsed script: a process that ignores TERM and starts another each time it gets one
is still stopped, with one grace. Real bash scripts and real signals; every wait is on a condition,
with a generous limit."""

from __future__ import annotations

import os
import signal
import sys
import uuid
from pathlib import Path

import pytest

from test_rehearse import ROOT

sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.rehearsal import runner  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="real signals, /proc")



def _kill(pids) -> None:
    for pid in pids:
        if runner.pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


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
