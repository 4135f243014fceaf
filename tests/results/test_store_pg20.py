"""PostgreSQL (store20): a server short of connections, disk or memory says so with what to do, and a
multi-host URL (as libpq allows, postgresql://u@h1:5432,h2:5433/db) works and is named as written."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa

import pgserver

from helpers import job, run_cli, vllm_output, write_job
from sweepgate.results import store


def _jobs(folder: Path, n: int = 1, run: str = "1") -> str:
    for i in range(n):
        row = dict(job()["row"], conc=4 * (i + 1), **{"exp-name": f"e{i}"})
        write_job(folder, f"job{i:03d}", vllm_output(4 * (i + 1), date=f"20260101-1200{run:0>2}"),  # a run's own bytes
                  job(run_id=run, row=row))
    return str(folder)


def _one_line(capsys, *argv) -> str:
    rc, _, err = run_cli(capsys, *argv)
    assert rc == 1 and "Traceback" not in err and "internal error" not in err, err
    (line,) = err.strip().splitlines()
    return line


@contextlib.contextmanager
def _admin(url: str):
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            yield conn
    finally:
        engine.dispose()


def test_a_role_past_its_connection_limit_is_told_the_server_takes_no_more(pg_url, tmp_path, capsys):
    """SQLSTATE 53300 (a real refusal: the role's CONNECTION LIMIT reached) got "check that the database
    exists and is writable"."""
    role = f"sg_limited_{uuid.uuid4().hex[:8]}"
    with _admin(pg_url) as conn:
        conn.exec_driver_sql(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 0")
    url = sa.engine.make_url(pg_url).set(username=role, password=None).render_as_string(hide_password=False)
    try:
        for argv in (("ingest", _jobs(tmp_path / "a")), ("show",), ("compare", "--run", "1")):
            line = _one_line(capsys, "results", argv[0], "--db", url, *argv[1:])
            port = sa.engine.make_url(pg_url).port
            assert f'too many connections for role "{role}": the PostgreSQL server at 127.0.0.1:{port} takes no ' \
                   "more connections; nothing was changed; run the same command again once other clients have " \
                   "disconnected, or have the server's admin raise max_connections" in line, line
            assert "check that the database exists" not in line
    finally:
        with _admin(pg_url) as conn:
            conn.exec_driver_sql(f"DROP ROLE {role}")


def test_a_server_at_max_connections_is_told_the_server_takes_no_more(tmp_path, capsys):
    """A server of its own with max_connections=2, both taken: libpq's "sorry, too many clients already"
    comes without a SQLSTATE, and got the generic hint too."""
    import psycopg

    binaries = pgserver.bindir()
    if binaries is None:
        pytest.skip("no PostgreSQL binaries")
    with pgserver.server(binaries, "-c max_connections=2 -c superuser_reserved_connections=0") as url:
        assert run_cli(capsys, "results", "ingest", "--db", url, _jobs(tmp_path / "a"))[0] == 0
        plain = url.replace("postgresql+psycopg://", "postgresql://")
        held = [psycopg.connect(plain) for _ in range(2)]
        try:
            port = sa.engine.make_url(url).port
            for db in (url, _multihost(url)):
                line = _one_line(capsys, "results", "show", "--db", db)
                assert "FATAL:  sorry, too many clients already: the PostgreSQL server at " in line, line
                assert f"127.0.0.1:{port} takes no more connections; nothing was changed" in line, line
        finally:
            for conn in held:
                conn.close()
        rc, out, err = run_cli(capsys, "results", "show", "--db", url)
        assert rc == 0 and "1 point" in out, err


@contextlib.contextmanager
def _small_tablespace(pg_url: str):
    """A database of its own in a tablespace on a small tmpfs (the server's WAL stays on its own disk),
    where the server runs here as the `postgres` user and this user may mount one."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a tmpfs")
    disk = Path(f"/tmp/sweepgate-pgdisk-{os.getpid()}")  # pytest's tmp_path is closed to the postgres user
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)], capture_output=True).returncode:
        disk.rmdir()
        pytest.skip("cannot mount a tmpfs here")
    name = f"sg_full_{uuid.uuid4().hex[:8]}"
    try:
        shutil.chown(disk, "postgres", "postgres")
        with _admin(pg_url) as conn:
            try:
                conn.exec_driver_sql(f"CREATE TABLESPACE {name} LOCATION '{disk}'")
            except sa.exc.SQLAlchemyError:
                pytest.skip("the test server cannot use a tablespace here (not a local server run as postgres)")
            conn.exec_driver_sql(f'CREATE DATABASE "{name}" TABLESPACE {name}')
        yield disk, sa.engine.make_url(pg_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with _admin(pg_url) as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.exec_driver_sql(f"DROP TABLESPACE IF EXISTS {name}")
        subprocess.run(["umount", "--lazy", str(disk)], check=True)
        disk.rmdir()


def test_a_server_whose_disk_is_full_says_so_and_stores_nothing_half(pg_url, tmp_path, capsys):
    """SQLSTATE 53100, for real: "could not extend file ...: No space left on device; check that the
    database exists and is writable"."""
    with _small_tablespace(pg_url) as (disk, url):
        assert run_cli(capsys, "results", "ingest", "--db", url, _jobs(tmp_path / "a", 1, "1"))[0] == 0
        with open(disk / "filler", "wb") as filler:
            filler.write(b"\0" * (os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize))
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", url, _jobs(tmp_path / "b", 300, "2"))
        first = err.strip().splitlines()[0]
        assert rc == 1 and "No space left on device: the PostgreSQL server at 127.0.0.1:" in first, err
        assert "has no disk space left; the write failed and nothing of it was stored; free space on the server's " \
               "disk that holds this database" in first and "check that the database exists" not in first, first
        stored = int(out.strip().splitlines()[-1].split()[1])
        (disk / "filler").unlink()
        with store.open_store(url, must_exist=True) as st:
            assert len(st.records()) == 1 + stored  # each stored file whole, the one in hand not at all


def test_a_server_out_of_memory_says_so():
    """SQLSTATE 53200 as psycopg raises it (a server out of memory is not provoked here)."""
    from psycopg import errors

    exc = sa.exc.OperationalError("SELECT 1", {}, errors.OutOfMemory("out of memory"))
    line = str(store.database_error("postgresql+psycopg://u:secret@db.example:5433/r", exc))
    assert "database: out of memory: the PostgreSQL server at db.example:5433 ran out of memory" in line, line
    assert "once the server is less loaded" in line and "secret" not in line


def _multihost(pg_url: str, first: str = "127.0.0.1:1") -> str:
    """The test server's URL with a host before it where nothing listens (libpq tries the next)."""
    url = sa.engine.make_url(pg_url)
    return f"postgresql://{url.username}@{first},{url.host}:{url.port}/{url.database}"


def test_a_multi_host_url_is_used_and_shown_as_written(pg_url, tmp_path, capsys):
    """It was "not a database URL: a port that is not a number" (SQLAlchemy reads no host list)."""
    url = _multihost(pg_url)
    shown = url.replace("postgresql://", "postgresql+psycopg://")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", url, _jobs(tmp_path / "a", 2))
    assert rc == 0 and out.strip().splitlines()[-1] == f"ingested 2 results (2 new) into {shown}", (out, err)
    rc, out, err = run_cli(capsys, "results", "show", "--db", url)
    assert rc == 0 and "2 points" in out, err
    with_password = url.replace("@", ":s3cret@", 1) + "?sslmode=disable"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", with_password, str(tmp_path / "a"))
    assert rc == 0 and "s3cret" not in out + err and ":***@127.0.0.1:1," in out, (out, err)


def test_a_multi_host_url_names_every_host_it_tried(tmp_path, capsys):
    url = "postgresql://u@127.0.0.1:1,127.0.0.1:2/db"
    line = _one_line(capsys, "results", "show", "--db", url)
    assert "no PostgreSQL server listens at 127.0.0.1:1 or 127.0.0.1:2 (connection refused)" in line, line
    line = _one_line(capsys, "results", "ingest", "--db", "postgresql://u@127.0.0.1:x,127.0.0.1:2/db",
                     _jobs(tmp_path / "a"))
    assert line.endswith("not a database URL: a port that is not a number; use sqlite:///PATH or "
                         "postgresql+psycopg://USER:PASSWORD@HOST/DB (percent-encode '@', ':' and '/' in a password)")


def test_a_refused_connection_names_the_servers_libpq_tried(tmp_path, capsys, monkeypatch):
    """Review (review20): a host whose name did not resolve was named as refusing (libpq never tried it),
    an empty host of a list (the local socket) and a local socket with no server got "connection is bad
    ...; check that the database exists and is writable"."""
    monkeypatch.delenv("PGPORT", raising=False)
    monkeypatch.setenv("PGHOST", str(tmp_path))  # a folder with no server's socket in it
    line = _one_line(capsys, "results", "show", "--db", "postgresql://u@nohost.invalid:5432,127.0.0.1:1/db")
    assert "no PostgreSQL server listens at 127.0.0.1:1 (connection refused); start" in line, line
    line = _one_line(capsys, "results", "show", "--db", "postgresql://u@/db")
    assert f"no PostgreSQL server listens at {tmp_path}:5432 (no socket file); start" in line, line
    line = _one_line(capsys, "results", "show", "--db", "postgresql://u@127.0.0.1:1,/db")
    # an empty host of a list is libpq's own socket folder ($PGHOST is for a URL with no host at all)
    assert re.search(r"listens at 127\.0\.0\.1:1 or /\S+:5432 \(connection refused; no socket file\); start", line), line
    assert "check that the database exists" not in line


def test_a_host_whose_name_does_not_resolve_is_named_so(capsys):
    """Review (review21): a URL whose only host's name did not resolve got "database: [Errno -2] Name or
    service not known; check that the database exists and is writable", of a database never reached."""
    line = _one_line(capsys, "results", "show", "--db", "postgresql://u:s3cret@nohost.invalid:6000/db")
    assert re.fullmatch(r"postgresql\+psycopg://u:\*\*\*@nohost\.invalid:6000/db: database: no address for the "
                        r"PostgreSQL host nohost\.invalid:6000: its name does not resolve \(\[Errno -?\d+\] [^)]+\); "
                        r"check the host in --db \(or \$SWEEPGATE_DB\), and this machine's DNS", line), line


def test_a_host_list_with_host_or_port_in_the_query_as_well_says_so(capsys):
    """Review (store20): with ?port= beside a host list the line said "a port that is not a number", and
    with ?host= it quoted SQLAlchemy's "Can't mix 'multihost' formats"."""
    for query in ("port=5", "sslmode=disable&host=h3"):
        line = _one_line(capsys, "results", "show", "--db", f"postgresql://u@127.0.0.1:1,127.0.0.1:2/db?{query}")
        key = query.rpartition("&")[2].partition("=")[0]
        assert f"lists its hosts before the database and gives ?{key}= as well; give the hosts and ports one way" \
            in line, line
