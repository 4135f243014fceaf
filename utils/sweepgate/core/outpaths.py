"""Output paths checked before a command does any work, so a bad one costs one line and no
half-done output: ``writable_file`` for a file to write or append to, ``creatable_dir`` for a
folder that is created when missing."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from sweepgate.core.errors import fail, is_a_folder, link_trouble

NAMES_A_FILE = "it would name a file called '-'"  # why '-' is no standard output where a file is written


def no_standard_stream(stream: str, why: str) -> str:
    """How '-' is refused where a path is wanted (``stream``: input or output): ``'-' is no standard
    output here: WHY``, for a flag's value (commands.argtypes) as for a variable's (``writable_file``)."""
    return f"'-' is no standard {stream} here: {why}"


def writable_file(path: str, flag: str, given: str | None = None) -> None:
    """Refuse ``path`` unless it is (or can become) a writable file in an existing folder; a symbolic
    link's is the folder of the file it points at, where ``atomic_write`` and appends write.
    ``given``: what named the path when the user did not pass ``flag`` (its default's variable)."""
    target = Path(path)
    folder = Path(os.path.realpath(target)).parent if target.is_symlink() else target.parent
    said = f"{given} (the default of {flag})" if given else flag
    if given and path.strip() == "-":  # a flag's '-' is argparse's to refuse (argtypes.output_file, exit 2)
        raise fail(path, 0, f"{said}: {no_standard_stream('output', NAMES_A_FILE)}",
                   f"set {given} to a file, or pass {flag} FILE")
    if target.is_dir():
        raise fail(path, 0, f"{said}: {is_a_folder()}", f"pass {flag} FILE")
    if not folder.is_dir():
        # a file where a folder on its way should be: said as that file ("out/afile is a file, not a folder")
        blocking = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            what = "is a file, not a folder" if blocking.is_file() else "is not a folder"
            raise fail(path, 0, f"{said}: {blocking} {what}", f"pass {flag} in an existing folder")
        raise fail(path, 0, f"{said}: its folder {folder} does not exist",
                   f"create the folder first or pass {flag} in an existing one")
    if not os.access(target if target.exists() else folder, os.W_OK):
        raise fail(path, 0, f"{said}: not writable", f"pass {flag} in a folder you can write to")


def no_dangling_link(out: Path, flag: str) -> None:
    """Refuse a folder that is, or lies under, a symbolic link to nothing (mkdir says only "File
    exists"), naming the link and where it points, or that it is in a loop (``errors.link_trouble``)."""
    if (trouble := link_trouble(out)) is not None:
        where = "" if trouble.link == str(out) else f" (in {flag} {out})"
        raise fail(trouble.link, 0, f"is {trouble.said}{where}", f"{trouble.folder_fix}, or pass another {flag} DIR")


def _nearest(path: Path) -> Path:
    """The nearest of ``path`` and the folders above it that is there (at the last, the root or ".")."""
    return next(p for p in (path, *path.parents) if p.exists() or p == Path(p.anchor or "."))


def _make_a_folder_in(existing: Path) -> None:
    """Make a folder in ``existing`` and remove it; OSError when it takes none (permission bits do not tell).
    A Ctrl-C (SIGTERM, SIGHUP) meanwhile waits until it is gone: it left a .sweepgate-probe-* in the user's folder."""
    from sweepgate.core.signals import Held

    with Held():
        os.rmdir(tempfile.mkdtemp(prefix=".sweepgate-probe-", dir=existing))


def why_not_creatable(path: Path) -> str | None:
    """Why ``mkdir -p path`` would fail, said after "cannot be created": the nearest path that is
    there is a file, or a folder that takes no new folder from this process (a folder is made and removed there, as
    permission bits do not tell: root, /proc, read-only mounts); None when it would work."""
    existing = _nearest(path)
    if not existing.is_dir():
        return f"under {existing}, a file"
    try:
        _make_a_folder_in(existing)
    except OSError as exc:
        reason = "it takes no new folders" if exc.errno == errno.ENOENT else exc.strerror  # /proc says ENOENT
        return f"in {existing} ({reason})"
    return None


def creatable_dir(path: str, flag: str) -> None:
    """Refuse ``path`` unless it is a writable folder or one that ``mkdir -p`` can create: a folder is
    made (and removed) where it would go, as permission bits do not tell (root, /proc, read-only mounts)."""
    target = Path(path)
    no_dangling_link(target, flag)
    existing = _nearest(target)
    if not existing.is_dir():
        where = "is a file" if existing == target else f"cannot be created: {existing} is a file"
        raise fail(path, 0, f"{flag}: {where}", f"pass {flag} DIR, a folder or a path under one")
    try:
        _make_a_folder_in(existing)
    except OSError as exc:
        what = "is not writable" if existing == target else f"cannot be created in {existing}"
        raise fail(path, 0, f"{flag}: {what} ({exc.strerror})",
                   f"pass {flag} DIR in a folder you can write to") from None
