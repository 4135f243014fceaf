"""s44a: the holds that keep Ctrl-C, SIGTERM and SIGHUP back (the rehearsal's ``Stopping``, the commit's
``SignalsHeld``) swapped their handlers one by one, unguarded, and a signal at the wrong instant was lost:

- ``Stopping`` installed its handler for SIGINT, then SIGTERM's: a SIGTERM between ran SIGTERM's handler as it
  was, whose ``Terminated`` left the hold never begun and its SIGINT handler installed. Every later Ctrl-C was
  noted by that dead hold and dropped (and in ``_interrupted`` nothing of the script was stopped).
- ``SignalsHeld`` put its handlers back after blocking the three signals with ``pthread_sigmask``, whose return
  runs the handlers of signals already on their way: one that raised there left SIGINT, SIGTERM and SIGHUP
  blocked for good, in this process and in every process it starts (they inherit the mask), so a hang-up
  was never delivered, and the hold's handlers were left installed.
- ``run_script`` started the script outside anything that stops it: a signal while ``Popen`` waited for its
  exec left it running, orphaned (the last test).

The signals here are real, sent in exactly those instants (``signal.raise_signal`` from inside the standard
library's call, as the handlers of the existing nu32 tests are)."""

from __future__ import annotations

import os
import signal

import pytest

from sweepgate.core.errors import Terminated
from sweepgate.core.signals import SignalsHeld
from sweepgate.rehearsal.runner import Stopping

HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def handlers() -> dict:
    return {number: signal.getsignal(number) for number in HELD}


def blocked() -> set:
    return set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


def _terminated(signum, frame):
    raise Terminated(signum)


@pytest.fixture(autouse=True)
def _handlers_kept():
    """A command's SIGTERM and SIGHUP handlers meanwhile (``run_guarded``'s), the suite's own back after each
    test, and the signal mask too, whatever a failing hold left."""
    before, mask = handlers(), blocked()
    signal.signal(signal.SIGTERM, _terminated)
    signal.signal(signal.SIGHUP, _terminated)
    yield
    for number, handler in before.items():
        signal.signal(number, handler)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def test_a_sigterm_as_the_stopping_hold_installs_its_handlers_leaves_none_of_them_behind(monkeypatch):
    before = handlers()
    real = signal.signal
    stopping = Stopping(("noted",))

    def installing(number, handler):
        old = real(number, handler)
        if number == signal.SIGINT and getattr(handler, "__self__", None) is stopping:
            signal.raise_signal(signal.SIGTERM)  # SIGTERM's and SIGHUP's hold handlers are not in yet
        return old

    monkeypatch.setattr(signal, "signal", installing)
    try:
        with stopping:
            pass
    except Terminated:  # acted on as it came, before the hold: as good as noted by it
        pass
    monkeypatch.undo()
    assert handlers() == before, "a handler of a hold that is over was left installed"
    with pytest.raises(KeyboardInterrupt):  # was: noted by the dead hold, and so dropped
        signal.raise_signal(signal.SIGINT)


def test_a_signal_handled_as_the_commit_hold_blocks_signals_to_put_handlers_back_leaves_none_blocked(monkeypatch):
    """The handler that raises inside ``pthread_sigmask`` is SIGUSR1's here, standing for a SIGTERM that came
    the instant before the call (the three held signals are blocked by then, so a raise of one would wait)."""
    before, mask = handlers(), blocked()
    real = signal.pthread_sigmask
    signal.signal(signal.SIGUSR1, lambda signum, frame: _terminated(signal.SIGTERM, frame))
    hold = SignalsHeld()
    leaving = []

    def blocking(how, numbers):
        old = real(how, numbers)
        if leaving and how == signal.SIG_BLOCK and set(numbers) >= set(HELD):
            leaving.clear()
            signal.raise_signal(signal.SIGUSR1)  # its handler runs before this call returns, the mask changed
        return old

    monkeypatch.setattr(signal, "pthread_sigmask", blocking)
    with pytest.raises(Terminated):
        with hold:
            leaving.append(True)
    monkeypatch.undo()
    assert blocked() == mask, "the held signals were left blocked: no later one is ever delivered"
    assert handlers() == before, "the hold's handlers were left installed"
    with pytest.raises(Terminated):
        signal.raise_signal(signal.SIGHUP)


def test_a_sigterm_while_the_rehearsed_script_starts_stops_it(tmp_path, monkeypatch):
    """s44a, found by sending SIGHUP to real rehearsals at 10 ms steps: one in the instant the script was being
    started (``subprocess.Popen`` waits for its exec) came out of ``Popen`` before the runner had the process
    to stop, so the script ran on, orphaned in its own session, and wrote into the work dir after it was
    removed. The signal now waits until the script is started, then stops it. The SIGTERM is real, sent
    from inside ``Popen`` once the script's process exists."""
    import subprocess

    from sweepgate.rehearsal import runner

    started = []

    class SignalledWhileStarting(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self.pid)
            signal.raise_signal(signal.SIGTERM)  # as it came while Popen waited for the script's exec

    script = tmp_path / "row.sh"
    script.write_text("sleep 600\n")
    monkeypatch.setattr(runner.subprocess, "Popen", SignalledWhileStarting)
    try:
        with pytest.raises(Terminated):
            runner.run_script(script, tmp_path, dict(os.environ), tmp_path / "out.log", 600)
        monkeypatch.undo()
        assert started and not runner.pid_alive(started[0]), "the script ran on after the SIGTERM"
    finally:
        for pid in started:
            runner._signal(pid, signal.SIGKILL)
