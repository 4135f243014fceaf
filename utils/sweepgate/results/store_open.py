"""Opening the results store's database: its engine (a reader's of a store it cannot write made
read-only, the default's folder made and ignored by git), a new SQLite store made whole in a file of its own and
linked into place (with the leftovers of killed openers removed)."""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from pathlib import Path

import sqlalchemy as sa

from sweepgate.results import store_url
from sweepgate.results.store_file import (NO_STORE_HINT, STORE_LINK_FIX, _a_folder, _check_folder, _not_sqlite,
                                          _read_only, _reader_mode, _sqlite_names, _sqlite_version_lost, _store_modes,
                                          check_sqlite_target, dangling_store, missing_sqlite)
from sweepgate.results.store_schema import SCHEMA_TABLE, NotAStore, _alembic_config, version_lost
from sweepgate.results.store_url import (DEFAULT_DIR, DEFAULT_FILE, StoreError, _check_url, _fast_sqlite, _memory,
                                         _mute_psycopg, _pg_connect_args, _sqlite_file, display_url, fail, parse_url,
                                         url_fail)

# A new store's part file (``_part_file``) of a dead opener, untouched this long, is a leftover to remove.
PART_LEFTOVER_S = 60


def _engine(url: str, must_exist: bool = False) -> sa.Engine:
    _check_url(url)
    parsed = parse_url(url)
    if parsed.get_backend_name() != "sqlite":
        _mute_psycopg()
        return sa.create_engine(parsed, connect_args=_pg_connect_args(parsed))
    db = Path(_sqlite_file(parsed))
    if must_exist and db.is_dir():
        raise _a_folder(parsed.database)
    if must_exist and (missing := missing_sqlite(url)):
        if said := dangling_store(missing):
            raise fail(missing, 0, f"no results store here: it is {said}",
                       f"{STORE_LINK_FIX}, or {NO_STORE_HINT}")
        raise fail(parsed.database, 0, "no results store here", NO_STORE_HINT)
    if must_exist and db.is_file():
        modes = _store_modes(db)
        names = _sqlite_names(db, modes)  # read once: whether it is a database, and whether it holds the schema
        if names is None and db.stat().st_size:
            raise _not_sqlite(parsed.database, db, NO_STORE_HINT)  # a text file, say
        if SCHEMA_TABLE not in (names or []):
            if lost := _sqlite_version_lost(db, names or [], modes):
                raise version_lost(url, lost)
            raise NotAStore()  # found before connecting for real: the file is left byte for byte as it was
    if not must_exist:
        check_sqlite_target(url)
    if must_exist and db.is_file() and _read_only(db):
        # A reader of a store it cannot write makes nothing beside it (``_reader_mode``).
        uri = f"{db.resolve().as_uri()}?{_reader_mode(db)}"
        return sa.create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False))
    if db.name == DEFAULT_FILE and db.parent.name == DEFAULT_DIR and not db.parent.exists():
        # The embedded default (.sweepgate/results.db of any repository root) gets its folder,
        # ignored by git from the start (else `git status` lists it and `git add -A` commits the store).
        try:
            db.parent.mkdir(parents=True, exist_ok=True)
            (db.parent / ".gitignore").write_text("# sweepgate's local results store\n*\n", encoding="utf-8")
        except OSError as exc:
            raise fail(str(db.parent), 0, f"cannot create the results store's folder: {exc.strerror}",
                       "run from a checkout you can write, or pass --db URL (or set $SWEEPGATE_DB)") from None
    if not str(parsed.database or "").startswith("file:") and not _memory(parsed):
        _check_folder(db)
    engine = sa.create_engine(parsed, connect_args={"timeout": store_url.SQLITE_BUSY_TIMEOUT_S})
    sa.event.listen(engine, "connect", _fast_sqlite)
    return engine


def _not_a_store(url: str) -> StoreError:
    return url_fail(display_url(url), "not a sweepgate results store (it holds no results tables)", NO_STORE_HINT)


def _plain_sqlite_file(parsed: sa.URL) -> Path | None:
    """The file of a SQLite URL that names one by its path (None: a server, memory or a file: URI)."""
    name = str(parsed.database or "")
    if parsed.get_backend_name() != "sqlite" or not name or name.startswith("file:") or _memory(parsed):
        return None
    return Path(name)


def _new_sqlite_file(parsed: sa.URL) -> Path | None:
    """The SQLite file this open is about to create (None: a server, memory, a URI or a file that exists)."""
    path = _plain_sqlite_file(parsed)
    return None if path is None or path.exists() else path


def _part_file(made: Path, pid: int) -> Path:
    """Where opener ``pid`` makes the new store ``made`` whole before linking it into place."""
    return made.with_name(f".{made.name}.{pid}.new")


def _remove_dead_parts(parsed: sa.URL) -> None:
    """Remove the files (``_part_file`` and its -journal) in which openers killed while making the store
    (SIGKILL, a lost machine) left it half made: files of that exact name whose PID is no process here, last
    written PART_LEFTOVER_S ago or more (an opener on another host sharing the folder, whose PID means
    nothing here, writes its file all the while). Each ingest into the store removes them, so none pile up."""
    db = _plain_sqlite_file(parsed)
    if db is None:
        return
    prefix, suffixes = _part_file(db, 0).name[:-len("0.new")], (".new", ".new-journal")
    try:
        entries = [e for e in os.scandir(db.parent) if e.name.startswith(prefix) and e.name.endswith(suffixes)]
    except OSError:
        return
    for entry in entries:
        pid = entry.name[len(prefix):].partition(".new")[0]
        if not (pid.isascii() and pid.isdigit() and pid[0] != "0") or \
                entry.name not in (f"{prefix}{pid}{suffix}" for suffix in suffixes) or _alive(int(pid)):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and \
                    time.time() - entry.stat(follow_symlinks=False).st_mtime >= PART_LEFTOVER_S:
                os.unlink(entry.path)
        except OSError:  # another ingest removed it first, or the folder is read-only: left as it is
            pass


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a process on this machine (one of another user's too; this very one)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process; a number no PID can be
        return True
    return True


def _create_sqlite(made: Path) -> None:
    """Make a new SQLite store whole in a file of its own beside ``made`` and link it there, unless
    another opener's store got there first (that one is used): a store file is never seen without
    its schema, so a failed or interrupted open leaves nothing behind, and no opener ever removes
    ``made``. One that removed its unfinished store removed it under another ingest that had it open,
    which then stored its results into the deleted file. Where the file system has no hard links,
    the store is made in place (as an unfinished one may then be left: never removed)."""
    part = _part_file(made, os.getpid())
    engine = sa.create_engine(f"sqlite:///{part}", connect_args={"timeout": store_url.SQLITE_BUSY_TIMEOUT_S})
    try:
        from alembic import command

        with engine.begin() as conn:  # a file no other opener knows: made at once, in one transaction
            cfg = _alembic_config()
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
        engine.dispose()
        try:
            os.link(part, made)
        except FileExistsError:
            pass  # another opener's store, whole: it is used
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.ENOSYS,
                                 errno.EMLINK):
                raise
    finally:
        engine.dispose()
        for path in (part, part.with_name(part.name + "-journal")):
            try:
                path.unlink(missing_ok=True)
            except OSError:  # a read-only file system says EROFS even of a file that is not there
                pass  # the failure that brought us here is said, not this one
