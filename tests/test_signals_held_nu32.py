"""New-user review (nu32): a Ctrl-C during `sweepgate results ingest` (about 1 in 25 at random times
in the first second) ended `sweepgate: internal error: KeyError: 2`, exit 1, instead of `interrupted
after N of M files`, exit 130, the JSONL not written for the rows the store had. The hold that keeps a
commit and its count together (core/signals.py) installed its handler with `previous[n] =
signal.signal(n, note)`: a SIGINT in the instant after the install ran `note`, which looked up
`previous[n]` before it was assigned. Its release likewise restored the handlers one by one, so a
signal between two left a later one's handler behind (a SIGTERM then noted and never acted on).

The signals here are real (`signal.raise_signal`), sent in exactly those instants: right after the
hold installs its SIGINT handler, and right after it puts the SIGINT handler back."""

from __future__ import annotations

import signal

import pytest

from sweepgate.core.signals import SignalsHeld

HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def handlers() -> dict:
    return {number: signal.getsignal(number) for number in HELD}


@pytest.fixture(autouse=True)
def _handlers_kept():
    """The suite's own handlers back after each test, whatever a failing hold left installed."""
    before = handlers()
    yield
    for number, handler in before.items():
        signal.signal(number, handler)


def test_a_ctrl_c_right_after_the_hold_installs_its_handler_interrupts_and_restores_every_handler(monkeypatch):
    before = handlers()
    real = signal.signal

    def installing(number, handler):
        old = real(number, handler)
        if number == signal.SIGINT and getattr(handler, "__self__", None) is hold:
            signal.raise_signal(signal.SIGINT)  # its handler runs before this call returns
        return old

    hold = SignalsHeld()
    monkeypatch.setattr(signal, "signal", installing)
    with pytest.raises(KeyboardInterrupt):  # was KeyError: 2
        with hold:
            pytest.fail("the block ran after a Ctrl-C that came before it")
    monkeypatch.undo()
    assert handlers() == before


def test_a_ctrl_c_while_the_hold_puts_handlers_back_waits_until_all_are_back(monkeypatch):
    before = handlers()
    real = signal.signal

    def restoring(number, handler):
        old = real(number, handler)
        if number == signal.SIGINT and handler is before[signal.SIGINT]:
            signal.raise_signal(signal.SIGINT)  # SIGTERM's and SIGHUP's handlers are not back yet
        return old

    with pytest.raises(KeyboardInterrupt):
        with SignalsHeld():
            monkeypatch.setattr(signal, "signal", restoring)
    monkeypatch.undo()
    assert handlers() == before  # was: SIGTERM and SIGHUP left with the hold's handler
