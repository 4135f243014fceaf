"""The SQLite file a --db names, looked at before it is opened: a folder, a broken symbolic link, a
missing folder, a file that is no SQLite database (a PostgreSQL dump), another program's database, a store this
user may read but not write; and how a reader reads a store without writing beside it."""

from __future__ import annotations

import os
import shlex
import sqlite3
from pathlib import Path

import sqlalchemy as sa

from sweepgate.core.errors import is_a_folder, link_trouble, os_reason
from sweepgate.results.store_schema import (SCHEMA_TABLE, STORE_TABLES, VersionLost, _head_revision, _lost_version,
                                            results, version_lost)
from sweepgate.results.store_url import DEFAULT_DIR, DEFAULT_FILE, StoreError, _memory, _sqlite_file, fail, parse_url


def missing_sqlite(url: str) -> str | None:
    """The file of a SQLite URL that is not there (None for other databases, memory, or a file that is)."""
    try:
        parsed = parse_url(url)
    except sa.exc.ArgumentError:
        return None
    name = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or _memory(parsed) or name.startswith("file:"):
        return None
    if Path(name).is_file():
        return None
    _no_broken_link(name, Path(name))  # a link in a loop is no missing store: said as what it is
    return name


def dangling_store(name: str) -> str:
    """What a SQLite file ``missing_sqlite`` found missing is when it is a symbolic link to nothing, in
    ``errors.LinkTrouble``'s words (``a symbolic link to X, which does not exist``); "" when it is no link: a
    reader, or `ci reuse`, that finds no store there names the link and where it points, not only the path."""
    trouble = link_trouble(name)
    return trouble.said if trouble is not None and trouble.link == name else ""


# How to mend a --db that is a symbolic link in a loop or to nothing.
STORE_LINK_FIX = "point the link at the store file (ln -sfn FILE LINK)"


def store_named(name: str) -> str:
    """A missing SQLite store as a line names it: its path, with what it is when it is a symbolic link to
    nothing (``dangling_store``): ``r.db (a symbolic link to gone.db, which does not exist)``."""
    return f"{name} ({said})" if (said := dangling_store(name)) else name


def _no_broken_link(name: str, db: Path) -> None:
    """Refuse a SQLite file that is a symbolic link in a loop, or that lies under a folder that is a link in a
    loop or to nothing (``errors.link_trouble``): SQLite opens nothing there, and its failure read as a folder
    that cannot be written, a folder to create (mkdir -p says "File exists") or, to a reader, no store. The
    file itself a link to nothing is left alone: SQLite makes the file it points to."""
    trouble = link_trouble(db)
    if trouble is None or (trouble.link == str(db) and not trouble.loops):
        return
    fix = STORE_LINK_FIX if trouble.link == str(db) else trouble.folder_fix
    raise fail(name, 0, trouble.reason(db).removeprefix("it "), f"{fix}, or pass another --db URL")


IMMUTABLE = ("mode=ro&immutable=1",)


def _sqlite_names(db: Path, modes: tuple[str, ...] = IMMUTABLE) -> list[str] | None:
    """The tables and views of a SQLite file, read as ``_sqlite_rows`` reads; None when it is no SQLite
    database."""
    rows = _sqlite_rows(db, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name", modes)
    return None if rows is None else [row[0] for row in rows]


def _sqlite_rows(db: Path, query: str, modes: tuple[str, ...] = IMMUTABLE) -> list[tuple] | None:
    """The rows ``query`` reads from a SQLite file, read without writing (by default as an unchanging
    file: no lock, no -wal/-shm made beside it), in the first of ``modes`` that opens it; None when
    it is no SQLite database (or none of them reads it)."""
    for mode in modes:
        try:
            conn = sqlite3.connect(f"{db.resolve().as_uri()}?{mode}", uri=True)
            try:
                return list(conn.execute(query))
            finally:
                conn.close()
        except sqlite3.Error:
            continue
    return None


SHOWN_TABLES = 3


def check_sqlite_target(url: str) -> None:
    """Refuse, before a writer reads any input, a SQLite --db that is a folder, no database, or
    another program's database (tables or views, not the store's): a mistyped --db must not add
    tables to it, even one whose program uses Alembic too."""
    parsed = parse_url(url)
    name = str(parsed.database or "")
    if parsed.get_backend_name() != "sqlite" or _memory(parsed):
        return
    db = Path(_sqlite_file(parsed))  # a file: URI's too: another program's database is refused alike
    if db.is_dir():
        raise _a_folder(name)
    _no_broken_link(name, db)
    if not (db.name == DEFAULT_FILE and db.parent.name == DEFAULT_DIR and not db.parent.exists()):
        _check_folder(db)  # the default's missing folder is made for it; one that is a file is refused here
    if not db.is_file() or db.stat().st_size == 0:
        return
    # As an unchanging file first (no -wal/-shm made beside another program's database); a store
    # whose newest pages are in its WAL may not read so (a full disk cut its checkpoint short, or
    # another ingest is checkpointing it): then as it is, WAL included.
    modes = ("mode=ro&immutable=1", "mode=ro")
    names = _sqlite_names(db, modes)
    if names is None:
        raise _not_sqlite(name, db, "pass --db a new file or a sweepgate results store")
    if names and not STORE_TABLES <= set(names):
        if lost := _sqlite_version_lost(db, names, modes):
            raise version_lost(url, lost)
        raise fail(name, 0, foreign_message(names), SQLITE_FOREIGN_HINT)
    _check_writable(name, db)


def _a_folder(name: str) -> StoreError:
    return fail(name, 0, is_a_folder("a SQLite database file"), "pass --db sqlite:///FOLDER/results.db")


def _check_writable(name: str, db: Path) -> None:
    """Refuse a store a writer could open only read-only: its file (or the -wal/-shm file another
    user's process left beside it) is read-only for this user while its folder is writable (an
    unwritable folder is said by SQLite's own failure). SQLite would open it read-only, leave its
    own -wal/-shm files there and fail at the first write ("attempt to write a readonly database")."""
    if not os.access(db.parent, os.W_OK):
        return
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        if path.exists() and not os.access(path, os.W_OK):
            try:
                owner = f", owned by uid {path.stat().st_uid}"
            except OSError:
                owner = ""
            what = "the store file" if path == db else f"its {path.name[len(db.name):]} file {path}"
            raise fail(name, 0, f"{what} is read-only for this user (mode {_mode(path)}{owner}); nothing was stored",
                       "make it writable for this user (chmod, or run as its owner), or pass --db a copy you "
                       "can write (show and compare read it as it is)")


def _mode(path: Path) -> str:
    try:
        return oct(path.stat().st_mode & 0o777)[2:]
    except OSError:
        return "unknown"


# The first bytes of a PostgreSQL dump given as a SQLite store: (what it is, how to load it).
PG_DUMPS = ((b"PGDMP", "a PostgreSQL archive (pg_dump -Fc)", "pg_restore -d DB FILE"),
            (b"-- PostgreSQL database dump", "a PostgreSQL SQL dump", "psql -d DB -f FILE"))


def _not_sqlite(name: str, db: Path, hint: str) -> StoreError:
    """A file SQLite could not read: one this user may not read (said so), a PostgreSQL dump (said
    so, with how to load it), else no SQLite database."""
    try:
        with open(db, "rb") as fh:
            head = fh.read(1024)
    except OSError as exc:
        return fail(name, 0, f"cannot be read: {os_reason(exc)}",
                    "give this user read access to it (and to write, write access), or pass another --db URL")
    for magic, what, load in PG_DUMPS:
        if magic in head:
            return fail(name, 0, f"is {what}, not a SQLite database", f"load it into a PostgreSQL database "
                        f"({load}) and pass --db postgresql://USER@HOST/DB, or {hint}")
    return fail(name, 0, "is not a SQLite database", hint)


SQLITE_FOREIGN_HINT = "pass --db a new file or a sweepgate results store"
PG_FOREIGN_HINT = ("pass --db a database of its own, or a schema of its own in it (CREATE SCHEMA sweepgate, "
                   "then --db URL?options=-csearch_path%3Dsweepgate)")


def foreign_message(names: list[str]) -> str:
    """What a refusal of another program's database (its tables and views ``names``) says."""
    shown = ", ".join(names[:SHOWN_TABLES]) + (f" and {len(names) - SHOWN_TABLES} more"
                                               if len(names) > SHOWN_TABLES else "")
    return f"another program's database (tables {shown}), not a sweepgate results store; nothing was written"


def _check_folder(db: Path) -> None:
    """Refuse a SQLite file whose folder is not there (or is a file): nothing could be stored. The
    fix is to create the folder only where it can be made (not on a read-only location, nor under a file).
    A store that is a symbolic link is stored where the link points: its target's folder is the one
    checked (a link into a share that is not mounted), the link named with its target."""
    from sweepgate.core.outpaths import why_not_creatable

    shown = str(db)
    if db.is_symlink():
        db = Path(os.path.realpath(db))
        shown = f"{shown} (a link to {db})"
    folder = db.parent
    if folder.is_dir():
        return
    if folder.exists():
        raise fail(shown, 0, f"the store's folder {folder} is a file, not a folder",
                   "pass a --db URL in a folder (or move that file away)")
    if blocked := why_not_creatable(folder):
        raise fail(shown, 0, f"the store's folder {folder} does not exist and cannot be created {blocked}",
                   "pass a --db URL in a folder you can write")
    raise fail(shown, 0, f"the store's folder {folder} does not exist",
               f"create it (mkdir -p {shlex.quote(str(folder))}), or pass a --db URL in an existing folder")


def _read_only(path: Path) -> bool:
    """A SQLite file this process may read but not write (or whose folder it cannot write: WAL
    needs its -shm file beside it): a read-only mount, a shared store's copy."""
    return not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))


# How a reader (show, compare) says what to do about a --db that holds no store.
NO_STORE_HINT = "check --db (or $SWEEPGATE_DB); `sweepgate results ingest --db URL PATH...` creates one"


def _store_modes(db: Path) -> tuple[str, ...]:
    """How a SQLite file that may be a live store is read without writing (``_sqlite_rows``)."""
    # mode=ro first: a live store's newest pages may still be in its WAL; immutable for a store in
    # a folder we cannot write; a store this user cannot write as its reader reads it
    return (_reader_mode(db),) if _read_only(db) else ("mode=ro", "mode=ro&immutable=1")


def _reader_mode(db: Path) -> str:
    """How a reader opens a store it cannot write (``_read_only``): with its WAL (mode=ro) when its
    -wal and -shm files are there (another process, its owner's, has it open: its newest results may
    be in the WAL only) and it reads so; else as an unchanging file (immutable: no lock). Either way
    nothing is made beside it: mode=ro on a store without them would leave this user's -wal/-shm
    there, which its owner cannot write (its next ingest failed)."""
    if all(db.with_name(db.name + suffix).exists() for suffix in ("-wal", "-shm")):
        try:
            conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return "mode=ro"
            finally:
                conn.close()
        except sqlite3.Error:  # a WAL no process has open, which a reader may not recover
            pass
    return "mode=ro&immutable=1"


def _sqlite_version_lost(db: Path, names: list[str], modes: tuple[str, ...]) -> "VersionLost | None":
    """``_lost_version`` of a SQLite file whose tables are ``names`` (read in ``modes``, as its columns
    are), where its ``alembic_version`` table is gone (an empty one is found when the store is opened)."""
    if results.name not in names or SCHEMA_TABLE in names:
        return None
    rows = _sqlite_rows(db, f"PRAGMA table_info({results.name})", modes)  # (cid, name, type, ...) a column
    return None if rows is None else _lost_version(_head_revision(), {row[1] for row in rows}, gone=True)
