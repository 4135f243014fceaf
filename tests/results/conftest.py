"""Fixtures for the results tests: sample files and a real PostgreSQL server.

``pg_server`` uses $SWEEPGATE_TEST_PG_URL when set; otherwise it starts its own
server (Debian's postgresql binaries: initdb + pg_ctl, as the `postgres` user
when we are root, data under /tmp, loopback port) and stops it at the end. It
skips only when no PostgreSQL binaries exist; .ci/run makes sure they do.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

SAMPLES = Path(os.environ.get("SWEEPGATE_RESULT_SAMPLES", Path(__file__).resolve().parents[3] / "shared" / "results-samples"))
PG_ENV = "SWEEPGATE_TEST_PG_URL"


def _pg_bin() -> Path | None:
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


@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL server URL (to its `postgres` database)."""
    if os.environ.get(PG_ENV):
        yield os.environ[PG_ENV]
        return
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("no PostgreSQL binaries (install Debian's postgresql, or set SWEEPGATE_TEST_PG_URL)")
    data = Path(tempfile.mkdtemp(prefix="sweepgate-pg-"))
    if os.geteuid() == 0:
        shutil.chown(data, "postgres", "postgres")
    port = _free_port()
    subprocess.run(_as_postgres([str(bindir / "initdb"), "-D", str(data / "db"), "-A", "trust", "-U", "postgres",
                                 "--no-sync", "-E", "UTF8"]), check=True, capture_output=True)
    opts = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(_as_postgres([str(bindir / "pg_ctl"), "-D", str(data / "db"), "-o", opts, "-l",
                                 str(data / "log"), "-w", "start"]), check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_postgres([str(bindir / "pg_ctl"), "-D", str(data / "db"), "-m", "immediate", "stop"]),
                       capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server):
    """A fresh, empty database on the server, dropped afterwards."""
    import sqlalchemy as sa

    name = f"sg_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(pg_server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.engine.make_url(pg_server).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def samples() -> Path:
    if not SAMPLES.is_dir():
        pytest.skip(f"no result samples at {SAMPLES} (set SWEEPGATE_RESULT_SAMPLES)")
    return SAMPLES
