"""Ctrl-C, SIGTERM and SIGHUP held back across a commit: before it they stop the work, after it they wait.

A command that commits something (rows to a store, a file renamed into place) must not be
stopped between the commit and what it says about it: the work would be done but read as
undone, and a rerun would do it twice.
"""

from __future__ import annotations

import os


class SignalsHeld:
    """Ctrl-C and SIGTERM act at once until ``defer()`` (about to commit), then wait until the block
    is through and act as they would have: a waiting store (a lock held elsewhere) can still be
    interrupted, a committed file is always counted. ``forgive()`` drops one that came after the
    commit instead (the work is done and said). Python runs signal handlers in the main thread,
    whichever thread the signal reached."""

    SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")

    def __enter__(self):
        import signal
        import threading

        self.caught, self.deferring, self.previous = None, False, {}
        if threading.current_thread() is threading.main_thread():
            numbers = [getattr(signal, name) for name in self.SIGNALS if hasattr(signal, name)]
            # Known before the handlers are installed: a signal in the instant after is handled by ``_note``,
            # which needs them (nu32: a KeyError). All at once (``swap_handlers``): a signal that comes
            # meanwhile stops the work before the block with every handler as it was.
            self.previous = {number: _handler_of(number) for number in numbers}
            self.previous = swap_handlers(dict.fromkeys(numbers, self._note), undo_on_stop=True)
        return self

    def defer(self) -> None:
        self.deferring = True

    def forgive(self) -> int | None:
        """The signal that came after ``defer()``, which the block's end now does not act on (None: none came)."""
        caught, self.caught = self.caught, None
        return caught

    def _note(self, signum, frame):
        if not self.deferring:
            self._act(signum)  # nothing committed yet: stop now
        self.caught = self.caught or signum

    def _act(self, signum):
        act_as(self.previous[signum], signum)

    def _restore(self) -> None:
        """Every handler as it was, all at once (``swap_handlers``): a signal meanwhile waits until all are
        back, so it is never caught by a handler of this block left behind (a later SIGTERM noted, not acted on)."""
        restore_handlers(self.previous)

    def __exit__(self, *exc):
        self._restore()
        if self.caught is not None and not any(exc):
            self._act(self.caught)


class Held:
    """Ctrl-C, SIGTERM and SIGHUP noted while the block runs, never acted on in it (an ignored one stays
    ignored); the first acts once the block is over (``act_on_held``), as its handler before the hold would
    have. For what is made on disk (a temporary folder or file, a probe) and named for its removal in one
    block: a signal the instant after it exists, before the name is kept, would stop the command with
    nothing to remove it by. Made and named under the hold, inside the ``try`` that removes it, the signal
    acts when it is named and that ``try`` removes it. Main thread only (elsewhere it changes nothing)."""

    SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")

    def __enter__(self):
        import signal
        import threading

        self.previous, self.first = {}, None
        if threading.current_thread() is threading.main_thread():
            numbers = [getattr(signal, name) for name in self.SIGNALS if hasattr(signal, name)]
            # All at once (``swap_handlers``): a signal that comes meanwhile is noted by the hold, and one
            # whose handler raised as the hold began leaves no handler of this hold behind to note (and
            # drop) a later one after it is over.
            self.previous = swap_handlers({number: self._note for number in numbers
                                           if signal.getsignal(number) is not signal.SIG_IGN})
        return self

    def __exit__(self, *exc) -> None:
        """Every handler as it was, then the held signal acts (also when the block raised: an OSError
        meanwhile does not swallow a Ctrl-C)."""
        restore_handlers(self.previous)
        self.act_on_held()

    def act_on_held(self) -> None:
        """When no Ctrl-C (SIGTERM, SIGHUP) is on its way out already (the command ends as that one said),
        act on the first signal held as its handler before the hold would have; once."""
        import sys

        from sweepgate.core.errors import interrupted

        first, self.first = self.first, None
        if first is not None and not interrupted(sys.exc_info()[1]):
            act_as(self.previous[first], first)

    def _note(self, signum, frame) -> None:
        self.first = self.first or signum


def act_as(handler, signum: int) -> None:
    """Do what ``handler``, the handler of ``signum`` before a hold, does with it: Python's KeyboardInterrupt,
    sweepgate's Terminated, the default (the signal again, with its default action); an ignored one nothing."""
    import signal

    if callable(handler):
        handler(signum, None)  # Python's KeyboardInterrupt, sweepgate's Terminated
    elif handler == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def swap_handlers(handlers: dict, *, undo_on_stop: bool = False) -> dict:
    """Install ``handlers`` ({signal: handler}) all at once and return the ones they replace, ``SIG_DFL`` for
    one not set from Python (main thread only). The signals wait meanwhile (blocked, where the system can):
    one that comes is handled once the swap is whole, by the handler then installed. A handler that raises
    meanwhile (a signal's from before the swap) leaves every handler as it was and the signal mask too: a
    half-done swap leaves a hold's handler behind, which notes a later signal for a hold that is over and
    so drops it, and a mask left blocking keeps every later Ctrl-C, SIGTERM and SIGHUP from this process and
    from every process it starts (they inherit it), as if none ever came. ``undo_on_stop``: a handler just
    installed that raises as the signals are let through (a hold's, for a signal that came before the hold
    began) puts the ones before back too, so the hold never begins."""
    import signal

    numbers = list(handlers)
    blocking = hasattr(signal, "pthread_sigmask") and bool(numbers)
    # The mask as it is, read by a call that changes nothing: the call that blocks runs the handlers of the
    # signals already on their way once it has changed the mask, and one that raises there loses the mask.
    before = signal.pthread_sigmask(signal.SIG_BLOCK, []) if blocking else None
    replaced: dict = {}
    swapped = False
    try:
        if blocking:
            signal.pthread_sigmask(signal.SIG_BLOCK, numbers)
        for number, handler in handlers.items():
            replaced[number] = _handler_of(number)
            signal.signal(number, handler)
        swapped = True
    except BaseException:
        for number, handler in replaced.items():
            signal.signal(number, handler)
        raise
    finally:
        if blocking and not swapped:  # the mask back, whatever the handlers as they were raise then
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
    if blocking:
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
        except BaseException:
            if undo_on_stop:
                swap_handlers(replaced)
            raise
    return replaced


def restore_handlers(previous: dict) -> None:
    """Put ``previous`` (what ``swap_handlers`` returned) back all at once, even when a signal's handler raises
    as they go back: a hold's handler left installed would note a later signal for a hold that is over."""
    try:
        swap_handlers(previous)
    except BaseException:
        swap_handlers(previous)  # back all the same; the signal's stop goes on
        raise


def _handler_of(number: int):
    """``number``'s handler; SIG_DFL for one not set from Python (None), which Python cannot set again."""
    import signal

    handler = signal.getsignal(number)
    return signal.SIG_DFL if handler is None else handler
