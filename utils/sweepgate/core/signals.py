"""Ctrl-C, SIGTERM and SIGHUP held back across a commit: before it they stop the work, after it they wait.

A command that commits something (rows to a store, a file renamed into place) must not be
stopped between the commit and what it says about it: the work would be done but read as
undone, and a rerun would do it twice.
"""

from __future__ import annotations

import os
import sys


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
        from sweepgate.core.errors import interrupted

        first, self.first = self.first, None
        if first is not None and not interrupted(sys.exc_info()[1]):
            act_as(self.previous[first], first)

    def _note(self, signum, frame) -> None:
        self.first = self.first or signum


class Stopping(Held):
    """While an interrupted command stops what it started (a rehearsal its script) or removes a folder of its own
    making (``remove_folder``), a further Ctrl-C (SIGTERM,
    SIGHUP) does not cut that short: the first says it is under way and what one more does, the next
    one hurries it (``hurried``: no grace is waited out any more, what is left is KILLed at once).
    Either way the stopping finishes and the command then ends as the first signal said (130 for
    Ctrl-C): the caller acts on it (``act_on_held``) where it chooses, the end of the block does not.
    Main thread only (elsewhere it changes nothing); an ignored signal stays ignored."""

    SAYS = ("stopping the rehearsed script and what it started (SIGTERM, then SIGKILL after a grace); "
            "press Ctrl-C again to kill them at once", "killing what is left of the rehearsed script now (SIGKILL)")

    def __init__(self, says: tuple[str, ...] = SAYS) -> None:
        self.says = says  # what a second and a third signal print: what is under way (review24)

    def __enter__(self) -> Stopping:
        self.more = 0
        return super().__enter__()

    def __exit__(self, *exc) -> None:
        restore_handlers(self.previous)

    def hurried(self) -> bool:
        return self.more >= 2

    def _note(self, signum, frame) -> None:
        self.first = self.first or signum
        self.more += 1
        if self.more <= len(self.says):
            self._say(self.says[self.more - 1])

    @staticmethod
    def _say(text: str) -> None:
        """One line on stderr, written past its buffer: a signal handler may run inside a print."""
        try:
            os.write(sys.stderr.fileno(), f"\nsweepgate: {text}\n".encode() if sys.stderr.isatty()
                     else f"sweepgate: {text}\n".encode())
        except (OSError, ValueError, AttributeError):
            pass  # no stderr (closed, a hung-up terminal): the stopping goes on all the same


def remove_folder(folder, what: str = "the work dir") -> None:
    """Remove ``folder``, of sweepgate's own making, whole: a Ctrl-C (SIGTERM, SIGHUP) meanwhile is held
    (``Stopping``, saying what is under way) and leaves no half-removed folder. When it is the first signal,
    the command stops as it says once the folder is gone; after one on its way out already (the removal of a
    command being stopped), it ends as that one said."""
    import shutil

    with Stopping((f"removing {what} {folder}; one moment",)) as stopping:
        shutil.rmtree(folder, ignore_errors=True)
    stopping.act_on_held()


class TemporaryFolder:
    """A new temporary folder (``tempfile.mkdtemp``) for a ``with`` block, as its path: made and named under a
    hold (``Held``: a signal the instant it exists acts once it is named, and the block's end removes it), and
    removed whole at the end however the block ends (``remove_folder``: a second Ctrl-C during the removal
    waits for it)."""

    def __init__(self, prefix: str, what: str) -> None:
        self.prefix, self.what, self.path = prefix, what, None

    def __enter__(self) -> str:
        import tempfile

        try:
            with Held():
                self.path = tempfile.mkdtemp(prefix=self.prefix)
        except BaseException:  # the held signal acts as the hold ends: the block never begins, its folder goes
            if self.path is not None:
                remove_folder(self.path, self.what)
            raise
        return self.path

    def __exit__(self, *exc) -> None:
        remove_folder(self.path, self.what)


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
