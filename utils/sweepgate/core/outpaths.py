"""Output paths checked before a command does any work, so a bad one costs one line and no
half-done output: ``writable_file`` for a file to write or append to, ``creatable_dir`` for a
folder that is created when missing."""

from __future__ import annotations

import os
from pathlib import Path

from sweepgate.core.errors import fail


def writable_file(path: str, flag: str) -> None:
    """Refuse ``path`` unless it is (or can become) a writable file in an existing folder."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise fail(path, 0, f"{flag}: is a folder, not a file", f"pass {flag} FILE")
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise fail(path, 0, f"{flag}: its folder {folder} {what}",
                   f"create the folder first or pass {flag} in an existing one")
    if not os.access(target if target.exists() else folder, os.W_OK):
        raise fail(path, 0, f"{flag}: not writable", f"pass {flag} in a folder you can write to")


def creatable_dir(path: str, flag: str) -> None:
    """Refuse ``path`` unless it is a writable folder or one that ``mkdir -p`` can create."""
    target = Path(path)
    existing = next(p for p in (target, *target.parents) if p.exists() or p == Path(p.anchor or "."))
    if not existing.is_dir():
        where = "is a file" if existing == target else f"cannot be created: {existing} is a file"
        raise fail(path, 0, f"{flag}: {where}", f"pass {flag} DIR, a folder or a path under one")
    if not os.access(existing, os.W_OK):
        raise fail(path, 0, f"{flag}: {existing} is not writable", f"pass {flag} DIR in a folder you can write to")
