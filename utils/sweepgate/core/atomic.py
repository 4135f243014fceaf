"""Atomic file writes: a reader sees the old bytes or the new ones, never half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from sweepgate.core.errors import fail


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temp file in the same directory and os.replace.

    The file keeps its permission bits (a new file gets 0644); on any error the temp
    file is removed and ``path`` is untouched.
    """
    path = Path(path)
    if path.is_dir():
        raise fail(str(path), 0, "is a directory, not a file", "pass a file path to write to")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    except OSError as exc:
        raise fail(str(path), 0, f"cannot write here: {exc.strerror}",
                   "pass a path in an existing, writable folder") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        except FileNotFoundError:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):  # a full disk, a file made immutable or read-only to us
            raise fail(str(path), 0, f"cannot write it: {exc.strerror or exc}",
                       "make the file and its folder writable (and the disk not full), then rerun; "
                       "the file is as it was") from None
        raise


def append_text(path: str | os.PathLike, text: str) -> None:
    """Append ``text`` to a file the workflow named ($GITHUB_OUTPUT, a step summary, ...).

    One ``write`` of the whole text, so a reader sees all of it or none of the new part;
    a path that cannot be appended to is one diagnostic, not a traceback.
    """
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise fail(str(path), 0, f"cannot append to it: {exc.strerror}",
                   "point $GITHUB_OUTPUT / $GITHUB_STEP_SUMMARY (or --output) at a writable file") from None
