"""Atomic file writes: a reader sees the old bytes or the new ones, never half a file."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sweepgate.core.errors import fail, is_a_folder, os_reason
from sweepgate.core.signals import Held


def atomic_write(path: Path, data: bytes, before_replace: Callable[[], None] | None = None, *,
                 through: bool = True) -> None:
    """Write ``data`` to ``path`` through a temp file in the same directory and os.replace.

    The file keeps its permission bits (a new file gets 0644); on any error the temp
    file is removed and ``path`` is untouched. ``before_replace`` runs right before the
    rename, the point of no return (``SignalsHeld.defer``: a Ctrl-C from then on waits).
    ``through`` False: whatever is at ``path`` (a symlink, a FIFO, a device) is itself replaced,
    never followed or written to, for a path a less trusted program could have planted (a job
    sidecar beside what a benchmark container wrote: a link there must not reach a host file).
    """
    named = Path(path)
    if named.is_dir() and (through or not named.is_symlink()):
        raise fail(str(named), 0, is_a_folder(), "pass a file path to write to")
    if through and named.exists() and not named.is_file():  # /dev/stdout, a FIFO, a device: written through
        _write_through(named, data)
        return
    # a symlink stays a link: the file it points at is replaced (``through``), else the link itself
    path = Path(os.path.realpath(named)) if through else named
    tmp = None
    try:
        with temporary_beside(path) as (fd, tmp):
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, _mode_of(path, through))
            if before_replace is not None:
                before_replace()
            os.replace(tmp, path)
    except OSError as exc:
        if tmp is None:
            raise fail(str(named), 0, f"cannot write here: {os_reason(exc)}",
                       "pass a path in an existing, writable folder") from None
        # a full disk, a file made immutable or read-only to us
        raise fail(str(named), 0, f"cannot write it: {os_reason(exc)}",
                   "make the file and its folder writable (and the disk not full), then rerun; "
                   "the file is as it was") from None


@contextmanager
def temporary_beside(path: Path) -> Iterator[tuple[int, str]]:
    """A new temporary file beside ``path``, named after it and no other (``.NAME.XXXXXXXX.tmp``), as
    (fd, name), removed when the block fails in any way. It is made inside what removes it, so a Ctrl-C
    the moment after it exists, before the block has begun, leaves no empty file behind either: it waits
    (``Held``) until the file is named here, where it is removed."""
    name = None
    try:
        with Held():
            fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
        yield fd, name
    except BaseException:
        if name is not None:
            Path(name).unlink(missing_ok=True)
        raise


def create_whole(path: Path, data: bytes) -> bool:
    """``path`` made new, holding ``data`` whole (synced; mode 0644 less the umask, as ``open(O_CREAT,
    0o644)`` makes it), or not at all: written to a temporary file beside it and hard-linked into place.
    A link, unlike ``atomic_write``'s rename, never replaces a file made at ``path`` meanwhile: False
    then, and where the file system makes no hard links (some network and FUSE ones). OSError when
    ``data`` cannot be written (a full disk); nothing is left behind either way."""
    with temporary_beside(path) as (fd, tmp):
        try:
            write_whole(fd, data, None)
            os.fsync(fd)
            os.fchmod(fd, 0o644 & ~_umask())  # mkstemp makes 0600
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
            return True
        except OSError:  # FileExistsError among them
            return False
        finally:
            os.unlink(tmp)


def _umask() -> int:
    """The process's file mode mask (read by setting it, and set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode_of(path: Path, through: bool) -> int:
    """The permission bits the new file takes: those of the file it replaces, 0644 for a new one.
    ``through`` False: what is at ``path`` itself, never what a link there points at (a host file's
    bits, a set-id or world-writable one, are not copied onto the sidecar); 0644 for no regular file."""
    try:
        st = path.stat() if through else path.lstat()
    except FileNotFoundError:
        return 0o644
    return st.st_mode & 0o7777 if through or stat.S_ISREG(st.st_mode) else 0o644


def _write_through(path: Path, data: bytes) -> None:
    """Write ``data`` to a path that is no regular file (a pipe, a terminal, a device) as it is: such a
    path cannot be replaced by a rename without destroying it (as root, /dev/stdout would become a file)."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as exc:
        raise fail(str(path), 0, f"cannot write it: {os_reason(exc)}", "pass a writable file path") from None
    try:
        write_whole(fd, data, None)
    except OSError as exc:
        raise fail(str(path), 0, f"cannot write it: {os_reason(exc)}",
                   "write to a file on a disk with free space") from None
    finally:
        os.close(fd)


def write_whole(fd: int, data: bytes, start: int | None) -> None:
    """Write all of ``data`` to ``fd``; if that fails (a full disk, Ctrl-C), cut a regular file back to
    ``start`` (where it ended) and raise again: none of the new part stays. ``start`` None: a pipe or
    a device, which cannot be cut back."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except BaseException:
        if start is not None:
            os.ftruncate(fd, start)
        raise


def append_text(path: str | os.PathLike, text: str, *, what: str = "",
                hint: str = "point $GITHUB_OUTPUT / $GITHUB_STEP_SUMMARY (or --output) at a writable file",
                rule: str = "") -> None:
    """Append ``text`` to a file the workflow named ($GITHUB_OUTPUT, a step summary, ...), whole or
    not at all (``write_whole``); a pipe or /dev/stdout is written as it is. A path that cannot be
    appended to is one diagnostic (``what`` names the file's role), not a traceback."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        raise _append_failed(path, exc, what, hint, rule) from None
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
        write_whole(fd, text.encode("utf-8"), os.lseek(fd, 0, os.SEEK_END) if regular else None)
    except OSError as exc:
        raise _append_failed(path, exc, what, hint, rule) from None
    finally:
        os.close(fd)


def _append_failed(path, exc: OSError, what: str, hint: str, rule: str):
    if exc.errno == errno.EISDIR:  # said as every other path given for a file that is a folder
        return fail(str(path), 0, f"{what} {is_a_folder()}" if what else is_a_folder(), hint, rule=rule)
    message = f"cannot write {what}: {os_reason(exc)}" if what else f"cannot append to it: {os_reason(exc)}"
    return fail(str(path), 0, message + ("; the file is as it was" if what else ""), hint, rule=rule)
