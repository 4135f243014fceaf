"""Store robustness (hunt 18): a store a full disk left with its newest pages in the WAL, and a
--db that is another program's PostgreSQL database."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys

import pytest

from helpers import ROOT, job, run_cli, vllm_output, write_job
from sweepgate.results import store


def _jobs(folder, n: int, run: str):
    for i in range(n):
        conc = (4, 8, 16, 32)[i % 4]
        write_job(folder, f"job{i:03d}", vllm_output(conc, output_throughput=400.0 + i),
                  job(run_id=run, row=dict(job()["row"], conc=conc, **{"exp-name": f"e{i}"})))
    return str(folder)


def _file_size_limit(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write fails (EFBIG), as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_store_a_full_disk_cut_short_is_ingested_into_again(db, tmp_path, capsys):
    """The disk filled while the store's WAL was copied back into it: the file's header counts pages
    only its WAL holds. Every later ingest refused it, 'is not a SQLite database', until someone
    opened it in a sqlite3 shell; it is whole (with its WAL)."""
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, _jobs(tmp_path / "a", 20, "1"))
    assert rc == 0, err
    path = tmp_path / "results.db"
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db", db,
                           _jobs(tmp_path / "b", 40, "2")], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "utils")},
                          preexec_fn=_file_size_limit(path.stat().st_size + 4096))
    assert proc.returncode == 1 and "stopped by the database" in proc.stderr, proc.stderr
    stored = int(proc.stdout.split("(")[1].split()[0])  # "ingested N results (N new) into ..."
    with pytest.raises(sqlite3.DatabaseError):  # the file alone, without its WAL, does not read
        sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True).execute("SELECT * FROM sqlite_master")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "b"))
    assert rc == 0 and f"({40 - stored} new)" in out, err
    with store.open_store(db, must_exist=True) as st:
        assert len(st.records()) == 60



def _tables(url: str, *statements: str) -> list[str]:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            for statement in statements:
                conn.exec_driver_sql(statement)
            return sorted(sa.inspect(conn).get_table_names())
    finally:
        engine.dispose()


def test_a_postgresql_database_with_another_program_s_results_table_is_refused(pg_url, tmp_path, capsys):
    """A mistyped --db naming another program's PostgreSQL database that has a table called results
    met a database error mid-ingest; it is refused with nothing written."""
    before = _tables(pg_url, "CREATE TABLE users (id integer)", "CREATE TABLE results (id integer)")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", pg_url, _jobs(tmp_path / "a", 2, "1"))
    assert rc == 1 and "another program's database (tables results, users)" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert _tables(pg_url) == before


def test_a_postgresql_database_shared_with_other_tables_takes_the_store_beside_them(pg_url, tmp_path, capsys):
    """A team's database often holds other programs' tables: the store's are made beside them (the
    first version of the refusal above refused every database with any table, PostGIS's included)."""
    _tables(pg_url, "CREATE TABLE users (id integer)", "CREATE TABLE spatial_ref_sys (srid integer)")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", pg_url, _jobs(tmp_path / "a", 2, "1"))
    assert rc == 0 and "(2 new)" in out, err
    assert {"users", "spatial_ref_sys", "results", "alembic_version"} <= set(_tables(pg_url))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_another_programs_alembic_revision_is_not_called_newer(backend, request, tmp_path, capsys):
    """A database whose alembic_version holds another program's revision, and no results table, was
    'the store's schema (revision ae1027a6acf) is newer than this sweepgate's; upgrade sweepgate'."""
    url = request.getfixturevalue("pg_url") if backend == "postgresql" else f"sqlite:///{tmp_path / 'app.db'}"
    before = _tables(url, "CREATE TABLE users (id integer)",
                     "CREATE TABLE alembic_version (version_num varchar(32) PRIMARY KEY)",
                     "INSERT INTO alembic_version VALUES ('ae1027a6acf')")
    for argv in (("show",), ("ingest", _jobs(tmp_path / "a", 1, "1"))):
        rc, _, err = run_cli(capsys, "results", argv[0], "--db", url, *argv[1:])
        assert rc == 1 and "another program's database (tables alembic_version, users)" in err, err
        assert "newer" not in err and len(err.strip().splitlines()) == 1
    assert _tables(url) == before


def _old_store(url: str, revision: str) -> None:
    """A store as an older sweepgate left it: the migrations up to ``revision`` only."""
    import sqlalchemy as sa
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", "sweepgate.results:migrations")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
    engine.dispose()


def test_an_older_store_opened_read_only_says_it_needs_upgrading(tmp_path, capsys):
    """show on a store an older sweepgate wrote, opened read-only: 'database: attempt to write a
    readonly database; check that the database exists' said nothing of the schema to upgrade."""
    path = tmp_path / "old.db"
    _old_store(f"sqlite:///{path}", "0001")
    before = path.read_bytes()
    ro = f"sqlite:///file:{path}?mode=ro&uri=true"
    for argv in (("show",), ("compare", "--run", "1")):
        rc, _, err = run_cli(capsys, "results", *argv, "--db", ro)
        (line,) = err.strip().splitlines()
        assert rc == 1 and "the store's schema (revision 0001) is older than this sweepgate's" in line, err
        assert "readonly" in line and "once with write access" in line
    assert path.read_bytes() == before
    rc, _, err = run_cli(capsys, "results", "show", "--db", f"sqlite:///{path}")  # writable: upgraded
    assert rc == 0, err
    with sqlite3.connect(path) as conn:  # a store copied out of WAL mode (sqlite3 shell, VACUUM INTO)
        conn.execute("PRAGMA journal_mode=DELETE")
    rc, out, err = run_cli(capsys, "results", "show", "--db", ro)  # read as it is
    assert rc == 0 and "0 points" in out, err


SLOW_CREATOR = """
import pathlib, sys, time
from alembic import command
from sweepgate.results import store

def slow(*args, **kwargs):  # the schema is being made when this ingest is interrupted
    pathlib.Path(sys.argv[2]).write_text("ready")
    time.sleep(60)

command.upgrade = slow
try:
    store.open_store(sys.argv[1])
except KeyboardInterrupt:
    sys.exit(130)
"""


def test_an_interrupted_creator_never_removes_the_store_another_ingest_writes(db, tmp_path, capsys):
    """Two ingests creating one store at once, one of them interrupted while it made the schema: it
    removed the file as its own unfinished one while the other ingest, waiting for its lock, had it
    open; that one then stored its results into the deleted file and said 'ingested 3 results
    (3 new)' (3 times in 6 with two real ingests)."""
    import threading
    import time

    path, ready = tmp_path / "results.db", tmp_path / "ready"
    creator = subprocess.Popen([sys.executable, "-c", SLOW_CREATOR, db, str(ready)], cwd=tmp_path,
                               env={**os.environ, "PYTHONPATH": str(ROOT / "utils")})
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and creator.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert ready.exists()
        threading.Timer(1.5, creator.send_signal, (signal.SIGINT,)).start()  # while this ingest waits for it
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, _jobs(tmp_path / "a", 3, "1"))
        assert rc == 0 and "(3 new)" in out, err
    finally:
        assert creator.wait(timeout=60) == 130
    with store.open_store(db, must_exist=True) as st:
        assert len(st.records()) == 3
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["ready", "results.db"]


@pytest.mark.parametrize("url", ["postgresql://alice:p@w:/x@127.0.0.1:5432/db", "postgres://u:a@b:c@h/db"])
def test_an_unescaped_at_sign_with_a_colon_after_it_is_named(url, tmp_path, capsys):
    """The password's '@' and ':' made the URL's parser read a port: 'a port that is not a number';
    one holding a '/' after its '@' was shown from there on ('***@w:/x@127.0.0.1')."""
    for argv in (("show",), ("ingest", _jobs(tmp_path / "a", 1, "1"))):
        rc, out, err = run_cli(capsys, "results", *argv, "--db", url)
        (line,) = err.strip().splitlines()
        assert rc == 1 and "the password holds an '@'" in line and "port" not in line, line
        assert line.split(": ")[0] in ("postgresql+psycopg://***@127.0.0.1:5432/db", "postgresql+psycopg://***@h/db")
        assert "w:/x" not in line + out and "b:c" not in line + out


@pytest.mark.parametrize("damage", ["'not json'", "'[1]'", "'{}'", "'null'"])
def test_a_damaged_stored_record_is_one_line_not_an_internal_error(damage, db, tmp_path, capsys):
    """A record column edited by hand (or damaged) was 'internal error: JSONDecodeError / TypeError /
    KeyError: run-id; report it' from show and compare."""
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, _jobs(tmp_path / "a", 2, "1"))
    assert rc == 0, err
    with sqlite3.connect(tmp_path / "results.db") as conn:
        conn.execute(f"UPDATE results SET record = {damage} WHERE id = 1")
    for argv in (("show",), ("show", "--json"), ("compare", "--run", "1")):
        rc, _, err = run_cli(capsys, "results", *argv, "--db", db)
        (line,) = err.strip().splitlines()
        assert rc == 1 and "internal error" not in line and "damaged" in line, line
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "a"))  # the same jobs again
    assert rc == 1 and "internal error" not in err and "damaged" in err.splitlines()[0], err


@pytest.mark.parametrize("query, said", [
    ("?mode=ro", "'mode' is no option of a sqlite:/// URL"),  # was dropped: the store was written
    ("?mode=rwc&uri=true", "uri=true reads the path as a file: URI"),  # a file named 'results.db?mode=rwc'
    ("?timeout=abc", "not a database URL: could not convert string to float"),  # was an internal error
    ("?check_same_thread=maybe", "not a database URL: String is not true/false"),
])
def test_a_sqlite_url_query_that_would_not_do_what_it_says_is_refused(query, said, db, tmp_path, capsys):
    for argv in (("ingest", _jobs(tmp_path / "a", 1, "1")), ("show",)):
        rc, out, err = run_cli(capsys, "results", *argv, "--db", db + query)
        (line,) = err.strip().splitlines()
        assert rc == 1 and said in line and "internal error" not in line, line
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == []
    assert run_cli(capsys, "results", "ingest", "--db", db + "?timeout=5", str(tmp_path / "a"))[0] == 0
