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
            try:
                for name in filter(lambda name: hasattr(signal, name), self.SIGNALS):
                    number = getattr(signal, name)
                    # Noted before the handler is installed: a signal in the instant after it is
                    # handled by ``_note``, which needs it (``previous[number] = signal.signal(...)``
                    # ran it first, a KeyError: an ingest's Ctrl-C read as an internal error).
                    self.previous[number] = signal.getsignal(number)
                    signal.signal(number, self._note)
            except BaseException:  # that signal stopped the work before the block: the handlers as they were
                self._restore()
                raise
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
        """Every handler as it was, all at once: a signal meanwhile waits until all are back, so it
        is never caught by a handler of this block left behind (a later SIGTERM noted, not acted on)."""
        import signal

        held = list(self.previous)
        blocked = hasattr(signal, "pthread_sigmask") and bool(held)
        before = signal.pthread_sigmask(signal.SIG_BLOCK, held) if blocked else None
        try:
            for number, handler in self.previous.items():
                signal.signal(number, handler)
        finally:
            if blocked:
                signal.pthread_sigmask(signal.SIG_SETMASK, before)

    def __exit__(self, *exc):
        self._restore()
        if self.caught is not None and not any(exc):
            self._act(self.caught)


def act_as(handler, signum: int) -> None:
    """Do what ``handler``, the handler of ``signum`` before a hold, does with it: Python's KeyboardInterrupt,
    sweepgate's Terminated, the default (the signal again, with its default action); an ignored one nothing."""
    import signal

    if callable(handler):
        handler(signum, None)  # Python's KeyboardInterrupt, sweepgate's Terminated
    elif handler == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
