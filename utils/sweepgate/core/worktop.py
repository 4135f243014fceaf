"""A work tree read without running git (a results command or an annotation may need it where git
is not installed): the top that holds a folder (``enclosing_top``), and a file of it as git stores it
(``stored_bytes``)."""

from __future__ import annotations

import os

WORKSPACE = "GITHUB_WORKSPACE"  # the job's workspace: the checkout's top, or a folder above it (actions/checkout path:)
GIT_DIR = ".git"  # a checkout's repository: git holds no file of its own under this name (any case)


def enclosing_top(start: str | None = None) -> str | None:
    """The nearest folder at or above ``start`` (the working directory) holding a ``.git`` entry;
    None when there is none."""
    here = os.path.abspath(start or os.getcwd())
    while True:
        if os.path.exists(os.path.join(here, GIT_DIR)):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def stored_bytes(root: str, rel: str, *, strict: bool = False) -> bytes | None:
    """The file ``rel`` (a '/' path from ``root``) of a checkout as git stores it, read without following
    a symbolic link: a link is the name it points to; a path through a linked folder or into ``.git``
    (a link's target the run identity follows), inside a folder that is a repository of its own (a submodule
    checked out: git holds its commit alone), or to anything but a regular file or link, is None
    (git holds no such file). The GPU host's steps read an approved commit so: a link it holds never
    has main's code read (or hang on) a file of the host, nor the checkout's own git config.
    ``strict``: what is there but cannot be read raises its OSError rather than reading as missing (a
    file or a folder on its way this user may not read; a folder, FIFO or device where the file is,
    ``errno.EISDIR``/``errno.EINVAL``), so that the run identity never hashes such a file as absent."""
    import errno
    import stat

    if any(part.lower() == GIT_DIR for part in rel.split("/")):
        return None
    path = root
    for part in rel.split("/")[:-1]:
        path = os.path.join(path, part)
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return None
        except OSError as exc:
            if strict and exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                raise
            return None
        if os.path.lexists(os.path.join(path, GIT_DIR)):
            return None  # a repository of its own (a submodule checked out, a clone): git tracks none of its files
    path = os.path.join(path, rel.rsplit("/", 1)[-1])
    try:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            return os.fsencode(os.readlink(path))
        if not stat.S_ISREG(mode):
            if strict:
                raise not_a_file(path, mode)
            return None  # a FIFO or a device node is never opened: opening one can wake or start something
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO put there since: no wait
    except OSError as exc:
        if strict and exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise
        return None
    with os.fdopen(fd, "rb") as fh:
        return fh.read() if stat.S_ISREG(os.fstat(fh.fileno()).st_mode) else None


# How to mend a checkout's file that is there but cannot be read (``stored_bytes`` with ``strict``)
READABLE_FIX = "make it a file this user can read (chmod a+r; a folder on its way a+x)"


def shown_path(root: str, rel: str) -> str:
    """The file ``rel`` (a '/' path from ``root``) as a message names it: a file of the repository that holds
    the working directory (``root`` its top) from that top, as every command names the repository's own
    files, from whatever folder it runs in; another checkout's (``--tools main``) from the working
    directory, its full path when it is outside it."""
    top = enclosing_top()
    if top is not None and os.path.realpath(root) == os.path.realpath(top):
        return rel
    full = os.path.join(root, *rel.split("/"))
    return os.path.relpath(full) if not os.path.relpath(full).startswith("..") else os.path.abspath(full)


def not_a_file(path: str, mode: int) -> OSError:
    """The OSError of a folder (EISDIR, said "is a folder" by ``errors.os_reason``) or a FIFO, socket or
    device (EINVAL) standing where a file is read."""
    import errno
    import stat

    if stat.S_ISDIR(mode):
        return IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    return OSError(errno.EINVAL, "not a regular file (a FIFO, socket or device)", path)
