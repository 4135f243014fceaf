"""A failure of the results store's database said in one line (``database_error``): a lock held past
the busy timeout, a folder or disk that refused a write, a PostgreSQL server that does not answer, does not resolve
or is short of a resource, a damaged row; and which failures a new transaction may not meet (``_lost_race``,
``_retry_busy``)."""

from __future__ import annotations

import errno
import os
import re
import sqlite3
import time
from pathlib import Path

import sqlalchemy as sa

from sweepgate.results import store_url
from sweepgate.results.store_url import StoreError, _sqlite_file, display_url, parse_url, url_fail

# A concurrent writer can commit the same rows between add's SELECT and INSERT (two ingests
# of one job): the INSERT then fails on the unique key and add starts over, once per such writer.
ADD_ATTEMPTS = 5
# A SQLite write that failed ("disk I/O error") on a disk with less than this left: the disk is full.
DISK_FULL_BYTES = 1 << 20
SQLITE_READONLY_DIRECTORY = 1544  # SQLite's extended code: a store whose folder cannot be written (its -shm)


def _no_answer(url: str, exc: Exception) -> StoreError | None:
    """A PostgreSQL server that did not answer within the connect timeout, or that no server listens
    for, named (None: another failure)."""
    from psycopg.conninfo import timeout_from_conninfo
    from psycopg.errors import ConnectionTimeout

    orig = getattr(exc, "orig", exc)
    lines = str(orig).splitlines()
    tried = [line for line in lines if line.startswith("- host:")] or lines[:1]  # each host's, when several
    said = [m for line in tried for m in PG_TRIED.finditer(line)]
    refused = bool(said) and len(said) == len(tried) and all(m["why"] in PG_NO_SERVER for m in said)
    if not isinstance(orig, ConnectionTimeout) and not refused:
        return None
    parsed = parse_url(url)
    where = _servers(parsed)
    if refused:  # where libpq really tried: a host whose name did not resolve is left out of its attempts
        where = " or ".join(dict.fromkeys(_tried_at(m) for m in said))
        why = "; ".join(dict.fromkeys(PG_NO_SERVER[m["why"]] for m in said))
        return url_fail(display_url(url), f"database: no PostgreSQL server listens at {where} ({why})",
                    f"start PostgreSQL there, or check the host and port in --db (or $SWEEPGATE_DB)")
    given = (parsed.query.get("connect_timeout") or os.environ.get("PGCONNECT_TIMEOUT")
             or store_url.PG_CONNECT_TIMEOUT_S)
    waited = f"{timeout_from_conninfo({'connect_timeout': str(given)})} s"  # as psycopg waited: 2 s at least
    return url_fail(display_url(url), f"database: the PostgreSQL server at {where} did not answer within {waited}",
                f"check that PostgreSQL is running at {where} (and is what listens there), or allow it longer "
                "with ?connect_timeout=SECONDS in the URL")


# What psycopg raises when no host of the URL resolved (it resolves them before libpq connects): the
# resolver's error, "[Errno -2] Name or service not known", "[Errno -3] Temporary failure in name resolution".
PG_UNRESOLVED = re.compile(r"\[Errno -?\d+\] [^\n]*")


def _unresolved(url: str, exc: Exception) -> StoreError | None:
    """A PostgreSQL URL none of whose hosts' names resolved, named with them (None: another failure;
    it was "check that the database exists and is writable", of a database never reached)."""
    orig = getattr(exc, "orig", exc)
    if not getattr(orig, "__module__", "").startswith("psycopg") or not PG_UNRESOLVED.fullmatch(str(orig)):
        return None
    where = _servers(parse_url(url))
    return url_fail(display_url(url), f"database: no address for the PostgreSQL host {where}: its name does not resolve ({orig})",
                "check the host in --db (or $SWEEPGATE_DB), and this machine's DNS")


# How libpq names a server it could not connect to, and why: a TCP address, or the local socket's file.
PG_TRIED = re.compile(r'connection to server (?:at "(?P<host>[^"]*)"(?: \([^)]*\))?, port (?P<port>\d+)'
                      r'|on socket "(?P<socket>[^"]*)") failed: (?P<why>[^\n]*)')
# Nothing listens there: no server on that port, or no socket file of one.
PG_NO_SERVER = {"Connection refused": "connection refused", "No such file or directory": "no socket file"}


def _tried_at(m: re.Match) -> str:
    """A server libpq named (``PG_TRIED``) as a URL names it: HOST:PORT, a socket's folder as its host."""
    host, port = m["host"], m["port"]
    if host is None:  # /var/run/postgresql/.s.PGSQL.5432: that folder, that port
        host, _, name = m["socket"].rpartition("/")
        port = name.rpartition(".")[2]
    return _host_port(host, port)


def _host_port(host: str, port) -> str:
    """HOST:PORT as a URL writes it, an IPv6 address in brackets."""
    return f"{f'[{host}]' if ':' in host else host}:{port}"


def _servers(parsed: sa.URL) -> str:
    """Where libpq connects: the URL's host(s) and port(s), else $PGHOST and $PGPORT, else the local
    socket and 5432; several hosts (``_multihost``) joined with 'or'."""
    def listed(value, env: str) -> list[str]:
        value = value or os.environ.get(env) or ""
        return [part for item in (value if isinstance(value, tuple) else (value,)) for part in str(item).split(",")]

    hosts = [h or "the local socket" for h in listed(parsed.host or parsed.query.get("host"), "PGHOST")]
    ports = [p or str(os.environ.get("PGPORT") or 5432) for p in listed(parsed.port or parsed.query.get("port"), "PGPORT")]
    ports = ports * len(hosts) if len(ports) == 1 else ports
    return " or ".join(_host_port(h, p) for h, p in zip(hosts, ports))


LOCKED_HINT = ("another process holds its write lock (an ingest still running, or a sqlite3 shell with a "
               "transaction open); run again once it is done")


def _detail(exc: Exception) -> str:
    """The first line of what the database (its driver) said."""
    return (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [type(exc).__name__])[0]


def database_error(url: str, exc: Exception, *, reading: bool = False) -> StoreError:
    """A database failure as one diagnostic line (a lock another process held past the busy timeout
    says so, not that the database may be missing); ``reading``: of a command that only reads."""
    detail = _detail(exc)
    if _sqlite_busy(exc):
        return url_fail(display_url(url),
                        f"database: {detail} (waited {store_url.SQLITE_BUSY_TIMEOUT_S} s for it)", LOCKED_HINT)
    refused = _write_refused(url, exc, reading)
    silent = _no_answer(url, exc) or _unresolved(url, exc) or _pg_short(url, exc, reading) if refused is None \
        else None
    if silent is not None:
        return silent
    if refused is not None:
        return url_fail(display_url(url), f"database: {detail}: {refused[0]}", refused[1])
    return url_fail(display_url(url), f"database: {detail}",
                "check that the database exists and is writable, or pass another --db URL")


# What a PostgreSQL server short of a resource says: its SQLSTATE, else (a refused connection, of
# which libpq reports no SQLSTATE) the server's own words, as an English-speaking server says them.
PG_TOO_MANY_CONNECTIONS = ("53300", ("too many clients already", "remaining connection slots are reserved",
                                     "too many connections for"))
PG_DISK_FULL = ("53100", ("No space left on device",))
PG_OUT_OF_MEMORY = ("53200", ("FATAL:  out of memory",))


def _pg_short(url: str, exc: Exception, reading: bool) -> StoreError | None:
    """A PostgreSQL server that refused for want of a resource (connections, disk, memory), named with
    what to do about it (None: another failure)."""
    orig = getattr(exc, "orig", exc)
    state, text = getattr(orig, "sqlstate", None), str(orig)

    def met(short: tuple) -> bool:
        return state == short[0] or (state is None and any(words in text for words in short[1]))

    if not getattr(orig, "__module__", "").startswith("psycopg"):
        return None
    where = _servers(parse_url(url))
    again = "then run the same command again" + ("" if reading else " (what was stored is kept)")
    if met(PG_TOO_MANY_CONNECTIONS):
        said = (f"the PostgreSQL server at {where} takes no more connections; nothing was changed",
                "run the same command again once other clients have disconnected, or have the server's admin raise "
                "max_connections (or the role's or database's CONNECTION LIMIT) or put a pooler such as PgBouncer "
                "in front of it")
    elif met(PG_DISK_FULL):
        said = (f"the PostgreSQL server at {where} has no disk space left; " + (
                "nothing was changed" if reading else "the write failed and nothing of it was stored"),
                f"free space on the server's disk that holds this database (or have its admin do so), {again}")
    elif met(PG_OUT_OF_MEMORY):
        said = (f"the PostgreSQL server at {where} ran out of memory; nothing of that transaction was kept",
                f"{again} once the server is less loaded, or have its admin give it more memory (or lower work_mem "
                "or max_connections)")
    else:
        return None
    return url_fail(display_url(url), f"database: {_detail(exc)}: {said[0]}", said[1])


def _free_bytes(folder: Path) -> int:
    """The space left to this user on the disk holding ``folder`` (a full tmpfs makes SQLite say "disk I/O
    error": its -shm file could not grow)."""
    try:
        stat = os.statvfs(folder)
    except OSError:
        return DISK_FULL_BYTES
    return stat.f_bavail * stat.f_frsize


def _write_refused(url: str, exc: Exception, reading: bool = False) -> tuple[str, str] | None:
    """(what happened, what to do) when a SQLite store's folder or disk refused a write: a folder
    this user cannot write (SQLite makes the new store and its -wal/-shm/-journal files there), a
    full disk, a write that failed (a file size limit, a failing disk). None for any other failure.
    A command that only ``reading`` writes too (its -wal/-shm files), and is told so."""
    try:
        parsed = parse_url(url)
    except sa.exc.ArgumentError:
        return None
    if parsed.get_backend_name() != "sqlite":
        return None
    folder = Path(os.path.abspath(_sqlite_file(parsed))).parent
    orig = getattr(exc, "orig", exc)
    code, err = getattr(orig, "sqlite_errorcode", None) or 0, getattr(orig, "errno", None)
    again = "then run the same command again (what was stored is kept)"
    if code & 0xFF == sqlite3.SQLITE_CANTOPEN or code == SQLITE_READONLY_DIRECTORY or \
            err in (errno.EACCES, errno.EROFS, errno.EPERM):
        return (f"the store's folder {folder} cannot be written; nothing was stored",
                f"make the folder writable for this user, or pass --db sqlite:///PATH in a folder you can write")
    if code & 0xFF == sqlite3.SQLITE_FULL or err in (errno.ENOSPC, errno.EDQUOT) or (
            code & 0xFF == sqlite3.SQLITE_IOERR and _free_bytes(folder) < DISK_FULL_BYTES):
        if reading:
            return (f"the disk holding {folder} is full: reading the store needs room for its -shm and -wal files "
                    "beside it; nothing was changed", "free space on that disk (a few MB), or copy the store "
                    "to another disk and pass --db sqlite:///COPY, then run the same command again")
        return (f"the disk holding {folder} is full; the write failed and nothing of it was stored",
                f"free space on that disk (or pass another --db URL), {again}")
    if code & 0xFF == sqlite3.SQLITE_IOERR or err == errno.EFBIG:
        return (f"writing to {folder} failed (a full disk, a file size limit or a failing disk); nothing "
                "of that write was stored", f"free space there or fix the disk (or pass another --db URL), {again}")
    return None


def damaged(url: str, what: str) -> StoreError:
    """A stored record that is not one (edited by hand, or the file damaged)."""
    return url_fail(display_url(url), f"the store is damaged: a row's record is {what}",
                "restore the store from a backup, or delete the damaged rows and ingest their jobs again")


def _lost_race(exc: sa.exc.SQLAlchemyError) -> bool:
    """A failure that a concurrent writer caused and a new transaction may not meet: a unique-key
    clash with rows committed meanwhile, a PostgreSQL deadlock or serialization failure, or a
    SQLite busy error its busy timeout did not wait out (``_sqlite_busy``)."""
    orig = getattr(exc, "orig", None)
    return (getattr(orig, "sqlstate", None) in ("23505", "40P01", "40001")  # psycopg
            or getattr(orig, "sqlite_errorcode", None) == sqlite3.SQLITE_CONSTRAINT_UNIQUE
            or _sqlite_busy(exc))


def _sqlite_busy(exc: Exception) -> bool:
    """"database is locked" from SQLite without its busy timeout having waited: SQLite returns it at
    once where waiting could deadlock (a reader asking to write) and while another connection
    sets up a fresh file's WAL. Seen 1 time in 15 with two ingests creating one store at once."""
    orig = getattr(exc, "orig", exc)
    return getattr(orig, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or (
        isinstance(orig, sqlite3.OperationalError) and "database is locked" in str(orig))


def _retry_busy(step, attempts: int = ADD_ATTEMPTS):
    """Run ``step()``; a SQLite busy error (``_sqlite_busy``) met at once is retried after a growing pause."""
    for attempt in range(1, attempts + 1):
        started = time.monotonic()
        try:
            return step()
        except sa.exc.OperationalError as exc:
            if attempt == attempts or not _sqlite_busy(exc) or _waited_out(started):
                raise
            time.sleep(0.05 * 2 ** attempt)


def _waited_out(started: float) -> bool:
    """Whether a busy error came after the busy timeout was waited out (the lock was held all along:
    trying again would wait as long again, ADD_ATTEMPTS times), not at once (``_sqlite_busy``)."""
    return time.monotonic() - started >= store_url.SQLITE_BUSY_TIMEOUT_S * 0.9
