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

    try:
        _sys.stderr.write("sweepgate: interrupted\n")
        _sys.stderr.flush()
        if _sys.stdout is not None:
            _sys.stdout.flush()
        atexit._run_exitfuncs()  # the cleanup a normal exit does (os._exit skips it), then the exit code
    finally:
        os._exit(130)


def _module_run() -> str | None:
    """The module `python [options] -m MODULE` runs (``sys.orig_argv``), else None."""
    args = iter(getattr(_sys, "orig_argv", [])[1:])
    for arg in args:
        if arg in ("-X", "-W"):  # an option's value follows
            next(args, None)
        elif arg.startswith("-m"):
            return arg[2:] or next(args, None)
        elif arg == "-" or not arg.startswith("-") or arg.startswith("-c"):
            return None  # a script, stdin or -c: no module
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

__version__ = "0.1.0"
