"""Start and stop a throwaway PostgreSQL server (Debian's binaries; as `postgres` when root). A watchdog
started with it stops it and removes its folder once the process that started it is gone, however it
ended (a teardown, or a SIGKILL that skips every teardown)."""

from __future__ import annotations

import contextlib
import glob
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path


def bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True)
    if found:
        return Path(found[0]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl else None


def _as_postgres(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def watchdog(binaries: Path, data: Path) -> tuple[subprocess.Popen, int]:
    """A shell in a session of its own (a hang-up or Ctrl-C of the tests' terminal does not reach it)
    reading a pipe whose write end only this process holds: the pipe ends when this process does, by
    closing it or by dying (SIGKILL included), and the shell then stops the server in ``data``
    (``pg_ctl stop -m immediate``) and removes ``data``. Returns it and the write end to close."""
    stop = shlex.join(_as_postgres([str(binaries / "pg_ctl"), "-D", str(data / "db"), "-m", "immediate", "stop"]))
    read, write = os.pipe()  # not inheritable: no other child of this process holds the pipe open
    try:
        proc = subprocess.Popen(["sh", "-c", f"cat >/dev/null; {stop}; rm -rf {shlex.quote(str(data))}"],
                                stdin=read, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
    except BaseException:
        os.close(write)
        raise
    finally:
        os.close(read)
    return proc, write


@contextlib.contextmanager
def server(binaries: Path, settings: str = ""):
    """A running server on a loopback port; yields its URL (database `postgres`). ``settings``: more
    server options (``-c max_connections=2``). Stopped and removed by its ``watchdog``."""
    data = Path(tempfile.mkdtemp(prefix="sweepgate-pg-"))
    if os.geteuid() == 0:
        shutil.chown(data, "postgres", "postgres")
    guard, release = watchdog(binaries, data)
    try:
        port = _free_port()
        subprocess.run(_as_postgres([str(binaries / "initdb"), "-D", str(data / "db"), "-A", "trust", "-U",
                                     "postgres", "--no-sync", "-E", "UTF8"]), check=True, capture_output=True)
        opts = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off {settings}".strip()
        subprocess.run(_as_postgres([str(binaries / "pg_ctl"), "-D", str(data / "db"), "-o", opts, "-l",
                                     str(data / "log"), "-w", "start"]), check=True, capture_output=True)
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        os.close(release)
        guard.wait(timeout=120)


@contextlib.contextmanager
def database(server_url: str, icu_locale: str | None = None):
    """A fresh, empty database on the server at ``server_url``; yields its URL, and drops it afterwards.
    With ``icu_locale`` (``und``, ``en-US``), its text is compared by that ICU locale's linguistic rules
    (its default collation), not the server's ``C`` (by code point)."""
    import sqlalchemy as sa

    name = f"sg_{uuid.uuid4().hex[:12]}"
    locale = f" LOCALE_PROVIDER icu ICU_LOCALE '{icu_locale}' TEMPLATE template0" if icu_locale else ""
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"{locale}'))
    url = sa.engine.make_url(server_url).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
