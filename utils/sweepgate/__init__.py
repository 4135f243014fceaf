"""sweepgate: changelog gate, benchmark matrix and GPU fan-out for InferenceX-style repositories."""

import sys as _sys

# First, before anything else of ours runs: a Ctrl-C while the command's own modules load (its entry
# script's `from sweepgate.cli import main`, before main()'s guard) is "interrupted" and exit 130, not a
# KeyboardInterrupt traceback. Only a sweepgate program gets the hook (a library user keeps its own).
_PROGRAMS = ("sweepgate", "-m", "process_changelog.py", "validate_perf_changelog.py", "generate_sweep_configs.py")


def _interrupted_hook(kind, value, tb):
    if not issubclass(kind, KeyboardInterrupt):
        return _sys.__excepthook__(kind, value, tb)
    import os

    try:
        _sys.stderr.write("sweepgate: interrupted\n")
        _sys.stderr.flush()
    finally:
        os._exit(130)


if _sys.excepthook is _sys.__excepthook__ and _sys.argv and _sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1] in (
        *_PROGRAMS, "sweepgate.exe", "sweepgate-script.py"):
    _sys.excepthook = _interrupted_hook

__version__ = "0.1.0"
