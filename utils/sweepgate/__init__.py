"""sweepgate: changelog gate, benchmark matrix and GPU fan-out for InferenceX-style repositories."""

import sys as _sys

# First, before anything else of ours runs: a Ctrl-C while the command's own modules load (its entry
# script's `from sweepgate.cli import main`, before main()'s guard) is "interrupted" and exit 130, not a
# KeyboardInterrupt traceback. Only a sweepgate program gets the hook (a library user keeps its own).
_PROGRAMS = ("sweepgate", "sweepgate.exe", "sweepgate-script.py", "process_changelog.py",
             "validate_perf_changelog.py", "generate_sweep_configs.py")


def _interrupted_hook(kind, value, tb):
    if not issubclass(kind, KeyboardInterrupt):
        return _sys.__excepthook__(kind, value, tb)
    import atexit
    import os

    said, code = getattr(value, "said", "interrupted"), getattr(value, "exit_code", 130)
    try:
        _sys.stderr.write(f"sweepgate: {said}\n")
        _sys.stderr.flush()
        if _sys.stdout is not None:
            _sys.stdout.flush()
        atexit._run_exitfuncs()  # the cleanup a normal exit does (os._exit skips it), then the exit code
    finally:
        os._exit(code)


def _stop_signal(signum, frame):
    try:
        from sweepgate.core.errors import Terminated
    except ImportError:  # the signal came while that very module loads, before its class: end as its hook does
        import _signal

        stop = KeyboardInterrupt(signum)
        stop.said = "hung up" if signum == getattr(_signal, "SIGHUP", None) else "terminated"
        stop.exit_code = 128 + signum
        _interrupted_hook(KeyboardInterrupt, stop, None)
    raise Terminated(signum)


# The signals that end a command as SIGTERM does, as ``core.errors.STOP_SIGNALS`` names them; named here too
# so that setting them loads no module (test_interrupt_early: the same two).
_STOP_SIGNALS = ("SIGTERM", "SIGHUP")


def _on_stop_signals() -> None:
    """SIGTERM and SIGHUP while the command's modules load say "terminated" (143) or "hung up" (129), as
    they do once it runs (``errors.run_guarded``), instead of ending the process silently. Only where
    they still have their default action (a ``nohup`` keeps ignoring SIGHUP). Through ``_signal``, which
    the interpreter loaded at its start: ``signal`` and ``core.errors`` would be three more modules for
    every `--help` and usage error of a cold start-up (review26)."""
    import _signal

    for name in _STOP_SIGNALS:
        number = getattr(_signal, name, None)
        if number is not None and _signal.getsignal(number) == _signal.SIG_DFL:
            try:
                _signal.signal(number, _stop_signal)
            except ValueError:  # imported outside the main thread: handlers are the main thread's to set
                return


def release_stop_signals() -> None:
    """Give SIGTERM and SIGHUP their default action back once the command has returned (``cli.main``): a
    signal while the interpreter shuts down ends it, as before, not an atexit callback half-way. From a
    thread other than the main one (main() run in a worker) they stay: only the main thread may set them,
    and a ValueError here would replace what main() returned."""
    import _signal

    for name in _STOP_SIGNALS:
        number = getattr(_signal, name, None)
        if number is not None and _signal.getsignal(number) is _stop_signal:
            try:
                _signal.signal(number, _signal.SIG_DFL)
            except ValueError:
                return


def _module_run() -> str | None:
    """The module `python [options] -m MODULE` runs (``sys.orig_argv``), else None. Short options may be
    combined as Python allows (``-Bm sweepgate``, ``-OOmsweepgate``, ``-bX dev``)."""
    args = iter(getattr(_sys, "orig_argv", [])[1:])
    for arg in args:
        if arg == "--check-hash-based-pycs":  # its value follows
            next(args, None)
        elif arg in ("-", "--") or not arg.startswith("-"):
            return None  # a script or stdin ("--": the next word is a script, however it reads): no module
        elif not arg.startswith("--"):
            for i, flag in enumerate(arg[1:], start=2):
                if flag == "c":
                    return None  # -c: a command, no module
                if flag in "mWX":  # the rest of the word is the value, else the next word
                    value = arg[i:] or next(args, None)
                    if flag == "m":
                        return value
                    break
    return None


def _ours() -> bool:
    """Whether this process is a sweepgate program: its script's, or `python -m sweepgate` (while a
    module of `-m` loads, argv[0] is "-m" for any module: a library user's tool importing us is not ours)."""
    name = _sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1] if _sys.argv else ""
    if name == "-m":
        return (_module_run() or "").split(".")[0] == "sweepgate"
    return name in _PROGRAMS


if _sys.excepthook is _sys.__excepthook__ and _ours():
    _sys.excepthook = _interrupted_hook
    _on_stop_signals()

__version__ = "0.1.0"
