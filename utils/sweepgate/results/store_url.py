"""Where the results store is and how it is reached: its URL resolved (--db, $SWEEPGATE_DB, the
repository's SQLite default), parsed (a multi-host PostgreSQL URL too, psycopg 3 for a PostgreSQL URL that names no
driver), checked before anything is touched, and shown with its password hidden; the connection settings (timeouts,
SQLite's journal mode, psycopg's log); and ``StoreError``, the one-line refusal every part of the store raises."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import sqlalchemy as sa

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError

DB_ENV = "SWEEPGATE_DB"
PG_SCHEME = "postgresql+psycopg"  # PostgreSQL through psycopg 3, the driver installed with sweepgate
STORE_RULE = "results-store"  # the title of a store that cannot be opened, read or written
DEFAULT_DIR = F.OWN_DIR
DEFAULT_FILE = "results.db"
# How long a SQLite writer waits for another's transaction (Python's default is 5 s; a concurrent
# ingest on a loaded CI machine has exceeded that).
SQLITE_BUSY_TIMEOUT_S = 60
PG_CONNECT_TIMEOUT_S = 10  # how long a PostgreSQL server may take to answer a connection (psycopg's own: 130 s)


def repo_root(start: Path | None = None) -> Path:
    """The enclosing git work tree (a ``.git`` entry), else the start folder."""
    from sweepgate.core.worktop import enclosing_top

    here = (start or Path.cwd()).resolve()
    top = enclosing_top(str(here))
    return Path(top) if top else here


def default_url(root: Path | None = None) -> str:
    return f"sqlite:///{repo_root(root) / DEFAULT_DIR / DEFAULT_FILE}"


def resolve_url(url: str | None, root: Path | None = None) -> str:
    """--db, else $SWEEPGATE_DB, else the repository's ``.sweepgate/results.db``. A PostgreSQL URL
    that names no driver (``postgresql://``, ``postgres://``, the usual spelling) gets psycopg 3,
    the driver sweepgate installs (SQLAlchemy's default for it, psycopg2, is not)."""
    return _with_driver(url or _env_url() or default_url(root))


def _with_driver(url: str) -> str:
    """``url`` with psycopg 3 for a PostgreSQL scheme that names no driver (resolve_url)."""
    scheme, sep, rest = url.partition("://")
    return f"{PG_SCHEME}://{rest}" if sep and scheme.lower() in ("postgresql", "postgres") else url


ENV_WHERE = f"${DB_ENV}"  # how a refusal of the environment's URL names where it came from


def _env_url() -> str | None:
    """$SWEEPGATE_DB, checked as a URL, or None when it is unset or empty (a workflow's unset secret);
    a refusal names the variable, not a --db the user never passed: one of blanks is refused as empty."""
    url = os.environ.get(DB_ENV)
    if not url:
        return None
    if not url.strip():
        raise fail(ENV_WHERE, 0, f"empty (it holds only {len(url)} blank character{'s' if len(url) > 1 else ''})",
                   "unset it or set it to sqlite:///PATH")
    try:
        _check_url(_with_driver(url))  # as --db's is checked: postgresql:// gets the installed driver
    except StoreError as exc:  # the URL as shown (password hidden) stays in the message
        raise StoreError([Diagnostic(ENV_WHERE, 0, 0, d.rule, f"{d.file}: {d.message}", f"unset it, or {d.hint}",
                                      in_file=False) for d in exc.diagnostics]) from None
    return url


def _netloc(url: str) -> tuple[str, str, str]:
    """(scheme, user@host part, the rest from its first '/') of a URL as written."""
    scheme, _, rest = url.partition("://")
    # A server's user part ends at its last '@' (before any query): a password may hold '/' too,
    # which would otherwise end it early and show the rest of the password as the host.
    start = 0 if scheme.lower().startswith("sqlite") else rest.partition("?")[0].rfind("@") + 1
    slash = rest.find("/", start)
    return (scheme, rest, "") if slash < 0 else (scheme, rest[:slash], rest[slash:])


def _password_split(url: str) -> bool:
    """More than one '@' before the host: an unescaped '@' in the password, which a parser splits anywhere."""
    return _netloc(url)[1].count("@") > 1


def _hosts(url: str) -> list[str] | None:
    """The hosts (each with its port as written) of a PostgreSQL URL that names several, as libpq
    allows (``postgresql://u@h1:5432,h2:5433/db``); None for any other URL."""
    scheme, netloc, _ = _netloc(url)
    hosts = netloc.rpartition("@")[2]
    return hosts.split(",") if scheme.lower().startswith("postgres") and "," in hosts else None


def _multihost(url: str) -> str:
    """A multi-host URL (``_hosts``), which SQLAlchemy cannot parse (it reads the rest of the line as
    a port), in the form its psycopg dialect passes to libpq: ``u@/db?host=h1,h2&port=5432,5433``
    (an empty port: that host's default). Any other URL as it is."""
    hosts = _hosts(url)
    if hosts is None:
        return url
    scheme, netloc, rest = _netloc(url)
    names, ports = [], []
    for host in hosts:
        name, port = (host[1:].partition("]")[0], host.partition("]")[2][1:]) if host.startswith("[") else \
            (host.partition(":")[0], host.partition(":")[2])
        names.append(name)
        ports.append(port)
    path, _, query = rest.partition("?")
    user = netloc.rpartition("@")[0]
    given = f"host={','.join(names)}" + (f"&port={','.join(ports)}" if any(ports) else "")
    return f"{scheme}://{user}{'@' if user else ''}{path or '/'}?{given}{'&' + query if query else ''}"


def parse_url(url: str) -> sa.URL:
    """SQLAlchemy's URL of a store URL (a multi-host one's too, ``_multihost``)."""
    return sa.engine.make_url(_multihost(url))


def display_url(url: str) -> str:
    """``url`` fit for a log: its password hidden, and the whole user part when the URL does not
    parse or its password holds an unescaped '@' (or ':'), which split it anywhere. A multi-host
    URL is shown as written (its hosts as given), its password hidden."""
    scheme, netloc, path = _netloc(url)
    hidden = f"{scheme}://***@{netloc.rpartition('@')[2]}{path}" if "://" in url and "@" in netloc else url
    if _password_split(url):
        return hidden
    if _hosts(url) is not None:
        user, at, hosts = netloc.rpartition("@")
        name, colon, _ = user.partition(":")
        return f"{scheme}://{name}{':***' if colon else ''}{at}{hosts}{path}"
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except (sa.exc.ArgumentError, ValueError):
        return hidden


def _fast_sqlite(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")   # commits without an fsync each
    except sqlite3.OperationalError:  # a read-only connection (?mode=ro) to a store in another journal mode
        pass
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


URL_HINT = f"use sqlite:///PATH or {PG_SCHEME}://USER:PASSWORD@HOST/DB (percent-encode '@', ':' and '/' in a password)"
URL_ERRORS = (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError, ValueError)


# A scheme sweepgate stores in, written with a colon and too few slashes, or slashes and no colon
# (sqlite:x.db, sqlite:/x.db, sqlite//x.db, postgresql:/host/db), or with backslashes for its slashes
# (sqlite:\\\x.db); a path such as sqlite/x.db is none.
SCHEME_SLIP = re.compile(r"(?i)(?P<scheme>(?:sqlite|postgres(?:ql)?)(?:\+\w+)?)(?P<sep>:[/\\]*|[/\\]{2,})(?P<rest>.*)",
                         re.S)


def _slipped(url: str) -> StoreError | None:
    """A store URL whose scheme is followed by the wrong slashes (``SCHEME_SLIP``), with the URL it
    most likely means (a SQLite file after one slash is absolute) and, for SQLite, the other reading;
    a password in it is never shown. None for any other text."""
    found = SCHEME_SLIP.fullmatch(url) if "://" not in url else None
    if found is None:
        return None
    scheme, written, rest = found["scheme"], found["sep"], found["rest"]
    sep = written.replace("\\", "/")  # backslashes typed for slashes read as the slashes they stand for
    sqlite = scheme.lower().startswith("sqlite")
    if not rest.strip("/"):  # sqlite:, postgresql:/ : nothing to correct, what a URL is said
        return url_fail(url, "not a database URL: it names no file or database", "use sqlite:///PATH (from the "
                    "current folder) or sqlite:////ABSOLUTE/PATH" if sqlite else f"use {PG_SCHEME}://USER@HOST/DB")
    if not sqlite:  # a SQLite path has no password: an '@' and a ':' in it are the file's name
        user, at, tail = rest.partition("?")[0].rpartition("@")
        if at:  # user:password@host...: the password hidden, in the line and in the hint
            rest = f"{user.partition(':')[0]}{':PASSWORD' if ':' in user else ''}@{tail}{rest[len(user) + 1 + len(tail):]}"
        return url_fail(f"{scheme}{written}{rest}", f"not a database URL: '{scheme}' needs '://' before the host",
                    f"use {scheme}://{rest.replace(chr(92), '/')}")
    absolute = sep == ":/" or sep.count("/") >= 4 or rest.startswith("/")
    path = rest.lstrip("/")
    first, other = (f"{scheme}:////{path} (the file /{path})", f"{scheme}:///{path} for {path} in the current folder") \
        if absolute else (f"{scheme}:///{path} ({path} in the current folder)", f"{scheme}:////{path} for /{path}")
    return url_fail(url, "not a database URL: a SQLite URL is sqlite:/// and the file's path (an absolute path "
                "starts with a fourth slash)", f"use {first}, or {other}")


def _bad_url(url: str, exc: Exception) -> StoreError:
    """One line; never the URL's own text beyond display_url (a ValueError quotes a password's tail)."""
    slipped = _slipped(url)
    if slipped is not None:
        return slipped
    if "://" not in url and "@" not in url:  # a bare path: the SQLite URL of that very file
        return url_fail(url, "not a database URL (a path alone is not one)", f"use sqlite:///{url}")
    detail = "a port that is not a number" if isinstance(exc, ValueError) or "non-integer port" in str(exc) else \
        (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, ImportError):  # a dialect SQLAlchemy knows, its driver not installed (mysql:// wants MySQLdb)
        scheme = url.partition("://")[0]
        if scheme.lower().startswith("postgres"):  # postgresql+psycopg2:// and the like
            return url_fail(display_url(url), f"the driver '{scheme}' names is not installed ({detail})",
                        f"write {PG_SCHEME}://USER:PASSWORD@HOST/DB (psycopg 3, installed with sweepgate)")
        return url_fail(display_url(url), f"no driver installed for '{scheme}' ({detail}); "
                    "sweepgate stores results in SQLite or PostgreSQL", URL_HINT)
    return url_fail(display_url(url), f"not a database URL: {detail}", URL_HINT)


def _memory(parsed) -> bool:
    """A SQLite URL without a file (``sqlite://``, ``sqlite:///``, ``:memory:``, a file: URI with
    ?mode=memory or no path): it keeps nothing."""
    name = parsed.database or ""
    if parsed.get_backend_name() != "sqlite":
        return False
    if name.startswith("file:"):  # SQLAlchemy keeps the URI's query apart from its path
        return str(parsed.query.get("mode", "")) == "memory" or _uri_path(name) in ("", ":memory:")
    return not name or name == ":memory:" or "mode=memory" in name


def _uri_path(name: str) -> str:
    """The file a SQLite file: URI (its query apart) names: file:PATH, file:///PATH, file://localhost/PATH."""
    from urllib.parse import unquote

    rest = name[len("file:"):].partition("?")[0]
    if rest.startswith("//"):
        rest = rest[2:][rest[2:].find("/"):] if "/" in rest[2:] else ""
    return unquote(rest)


def _sqlite_file(parsed) -> str:
    """The file a SQLite URL names, a file: URI's included."""
    name = str(parsed.database or "")
    return _uri_path(name) if name.startswith("file:") else name


def _check_url(url: str) -> None:
    """Refuse a URL no engine could be made of (unknown dialect, driver not installed) or that
    would keep nothing (an in-memory SQLite), touching nothing."""
    if _password_split(url):  # before parsing: its parse error would blame a port ("p@ss:word@host")
        raise url_fail(display_url(url), "more than one '@' before the host: the password holds an '@'",
                   "percent-encode it (%40), and ':' as %3A, '/' as %2F")
    host = _netloc(url)[1].rpartition("@")[2]
    if not url.lower().startswith("sqlite") and "[" in host and "]" not in host:  # else blamed on the port
        raise url_fail(display_url(url), "the host's '[' is not closed: an IPv6 address is written in brackets",
                   f"write {url.partition('://')[0]}://USER:PASSWORD@[ADDRESS]:PORT/DB, e.g. @[::1]:5432/DB")
    query = url.partition("?")[2]
    given = [key for key in ("host", "port") if _hosts(url) and re.search(rf"(?:^|&){key}=", query)]
    if given:  # the hosts' list and ?host=/?port= at once: which would libpq take?
        raise url_fail(display_url(url), f"the URL lists its hosts before the database and gives ?{given[0]}= as well",
                   "give the hosts and ports one way: postgresql://USER@H1:P1,H2:P2/DB, or "
                   "postgresql://USER@/DB?host=H1,H2&port=P1,P2")
    try:
        parsed = parse_url(url)
        parsed.get_dialect().import_dbapi()
        if parsed.get_backend_name() == "postgresql":  # the hosts' ports read (a multi-host URL's at connect)
            parsed.get_dialect()().create_connect_args(parsed)
    except URL_ERRORS as exc:
        raise _bad_url(url, exc) from None
    if parsed.get_backend_name() == "sqlite" and parsed.host:
        raise url_fail(display_url(url), f"'{parsed.host}' is read as a host: a SQLite file follows three slashes",
                   f"write sqlite:///{parsed.host}{'/' + parsed.database if parsed.database else ''} (relative) or "
                   "sqlite:////ABSOLUTE/PATH")
    if _memory(parsed):
        raise url_fail(display_url(url), "a SQLite URL without a file: an in-memory store keeps nothing",
                   "give the file, sqlite:///PATH (is a variable in --db or $SWEEPGATE_DB empty?)")
    if parsed.get_backend_name() == "sqlite":
        _check_sqlite_query(url, parsed)


# What SQLAlchemy's SQLite driver reads of a sqlite:/// URL's query; it drops any other key unread.
SQLITE_URL_OPTIONS = ("timeout", "check_same_thread", "isolation_level", "detect_types", "cached_statements")


def _check_sqlite_query(url: str, parsed: sa.URL) -> None:
    """Refuse a SQLite URL query that would not do what it says: SQLite's own parameters (?mode=ro)
    are read only in a file: URI with uri=true (else dropped: ?mode=ro wrote to the store), and
    with uri=true a path that is no file: URI names a file whose name holds the query."""
    try:  # as the driver reads them: its options' values (?timeout=abc), uri=1/yes/on/true alike
        uri = bool(parsed.get_dialect()().create_connect_args(parsed)[1].get("uri"))
    except (ValueError, TypeError) as exc:
        raise url_fail(display_url(url), f"not a database URL: {exc}", URL_HINT) from None
    if uri and not str(parsed.database or "").startswith("file:"):
        raise url_fail(display_url(url), "uri=true reads the path as a file: URI, and this one is none "
                   "(the store would be a file named with the query)", "write sqlite:///file:PATH?...&uri=true")
    unknown = sorted(set(parsed.query) - set(SQLITE_URL_OPTIONS) - {"uri"})
    if unknown and not uri:
        raise url_fail(display_url(url), f"'{unknown[0]}' is no option of a sqlite:/// URL: it would be "
                   "ignored", f"write SQLite's own parameters in a file: URI, sqlite:///file:PATH?"
                   f"{unknown[0]}=...&uri=true, or drop '?{unknown[0]}'")


def _mute_psycopg() -> None:
    """Mute psycopg's log: each of its lines is of a failure it ignored while raising another (``error ignored
    terminating <psycopg.Pipeline [INERROR ...] (host=... user=... database=...) at 0x...>: pipeline aborted``,
    an INSERT whose rows another ingest stored meanwhile, which ``add`` starts over: s39o), which the command
    says in its own line or recovers from; with no handler set, Python printed it to stderr as it was."""
    import logging

    logging.getLogger("psycopg").setLevel(logging.CRITICAL)


def _pg_connect_args(parsed: sa.URL) -> dict:
    """PostgreSQL: a connect timeout (PG_CONNECT_TIMEOUT_S) unless the URL's ?connect_timeout= or
    $PGCONNECT_TIMEOUT gives one; psycopg's own waits 130 s on a server that takes the connection
    and says nothing (a wrong port, a proxy whose database is down)."""
    if parsed.get_backend_name() != "postgresql" or "connect_timeout" in parsed.query or \
            os.environ.get("PGCONNECT_TIMEOUT"):
        return {}
    return {"connect_timeout": PG_CONNECT_TIMEOUT_S}


class StoreError(SweepgateError):
    """The database itself failed (not one input file): ingest stops at the first."""


def fail(where: str, line: int, message: str, hint: str) -> StoreError:
    return StoreError(Diagnostic(where, line, 0, STORE_RULE, message, hint))


def url_fail(url: str, message: str, hint: str) -> StoreError:
    """A refusal of the store's URL (as shown: ``display_url``), or of text given as one (``--db x.db``):
    its place is no file of the repository, so an annotation keeps it in its text, never as ``file=``."""
    return StoreError(Diagnostic(url, 0, 0, STORE_RULE, message, hint, in_file=False))
