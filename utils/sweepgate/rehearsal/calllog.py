"""The shims' call log: one JSON line per shim call ($SWEEPGATE_REHEARSE_LOG, written by standin.py).

The rehearsed script can write to it too (it knows the path, and runs as the same user): a line of
any bytes, JSON that is no call. Reading it never fails on such a line: a line that is not UTF-8 is
read with replacement characters, one that is no shim call is left out, and each is said once, in
one warning line naming the log and the line (``read_calls``).
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

from sweepgate.core.errors import Diagnostic, emit
from sweepgate.rehearsal.standin import LOG_ENV

HINT = f"the script should leave ${LOG_ENV} to the shims"

# (log, line) already warned of: the log is read after the script ends and again for the verdict.
_warned: set[tuple[str, int]] = set()


def shim_call(text: str) -> dict | None:
    """A log line as a shim call ({"tool", "argv", "pid", "start", ...}), or None when it is no such call."""
    try:
        call = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        return None
    argv = call.get("argv")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        return None
    for name in ("pid", "start"):  # a PID to stop, its start time (clock ticks since boot) to know it by
        value = call.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            return None
    return call


def read_calls(log: Path) -> list[dict]:
    """The shim calls in ``log``, in order ([] when there is none). A line that is not UTF-8 is read with
    replacement characters (its call kept: its PID is still one to stop); a line that is no shim call is
    left out; both are warned of once. Raises OSError when the log cannot be read (not when it is missing)."""
    try:
        with open_log(log) as fh:
            data = fh.read()
    except FileNotFoundError:
        return []
    calls = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            text, odd = raw.decode("utf-8"), ""
        except UnicodeDecodeError as exc:
            text, odd = raw.decode("utf-8", errors="replace"), f"not UTF-8 text (byte {exc.start + 1} of the line)"
        call = shim_call(text)
        if call is None:
            _warn(log, number, (f"{odd} and " if odd else "")
                  + "not a shim call (a JSON object with a tool and its argv); left out")
        elif odd:
            _warn(log, number, f"{odd}; read with replacement characters")
        if call is not None:
            calls.append(call)
    return calls


def open_log(log: Path):
    """The log opened to read (binary), never waiting: the script may have put a FIFO at its path, whose
    open would wait for a writer that never comes, and no Ctrl-C cuts a wait under the Stopping hold.
    Raises OSError for anything but a regular file (a FIFO, a device, a folder)."""
    fd = os.open(log, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file (a FIFO or a device the script put in its place)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def forget(log: Path) -> None:
    """A new log at this path (a rehearsal again in the same work dir): its lines are warned of afresh."""
    for key in [k for k in _warned if k[0] == str(log)]:
        _warned.discard(key)


def _warn(log: Path, line: int, message: str) -> None:
    if (str(log), line) in _warned:
        return
    _warned.add((str(log), line))
    emit([Diagnostic(str(log), line, 0, "rehearse-call-log", message, HINT, severity="warning")])
