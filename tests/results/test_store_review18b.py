"""Store URLs (review 18b): another program's SQLite file named by a file: URI, and uri=1 / uri=yes,
which SQLAlchemy reads as uri=true, and a PostgreSQL schema of the store's own set by search_path."""

from __future__ import annotations

import sqlite3

import pytest

from helpers import job, run_cli, vllm_output, write_job


def _jobs(folder, n: int, run: str) -> str:
    for i in range(n):
        write_job(folder, f"job{i}", vllm_output(4 * (i + 1), output_throughput=400.0 + i),
                  job(run_id=run, row=dict(job()["row"], conc=4 * (i + 1), **{"exp-name": f"e{i}"})))
    return str(folder)


def _names(path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))


def test_another_programs_sqlite_file_named_by_a_file_uri_is_refused(tmp_path, capsys):
    """`--db 'sqlite:///file:app.db?mode=rwc&uri=true'` naming another program's database added
    alembic_version and results to it: the plain path is refused, the file: URI was not checked."""
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (id integer)")
    before = path.read_bytes()
    for argv, said in ((("ingest", _jobs(tmp_path / "a", 1, "1")), "another program's database (tables users)"),
                      (("show",), "not a sweepgate results store")):
        rc, _, err = run_cli(capsys, "results", argv[0], "--db", f"sqlite:///file:{path}?mode=rwc&uri=true",
                             *argv[1:])
        assert rc == 1 and said in err, err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert _names(path) == ["users"] and path.read_bytes() == before


def test_a_store_made_through_a_file_uri_is_still_used(tmp_path, capsys):
    """The refusal above must not refuse the store's own file: made through the URI, then read again."""
    url = f"sqlite:///file:{tmp_path / 'r.db'}?mode=rwc&uri=true"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", url, _jobs(tmp_path / "a", 2, "1"))
    assert rc == 0 and "(2 new)" in out, err
    rc, out, err = run_cli(capsys, "results", "show", "--db", f"sqlite:///file:{tmp_path / 'r.db'}?mode=ro&uri=true")
    assert rc == 0 and "2 points" in out, err


@pytest.mark.parametrize("spelling", ["1", "yes", "on", "True"])
def test_uri_spelled_as_sqlalchemy_reads_it_is_a_uri(tmp_path, capsys, spelling):
    """SQLAlchemy reads uri=1, yes and on as true (and passes ?mode=ro to SQLite): they were refused as
    "'mode' is no option of a sqlite:/// URL ... write ...&uri=true", which they already were."""
    path = tmp_path / "r.db"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{path}", _jobs(tmp_path / "a", 1, "1"))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "show", "--db", f"sqlite:///file:{path}?mode=ro&uri={spelling}")
    assert rc == 0 and "1 point\n" in out, err
    rc, _, err = run_cli(capsys, "results", "show", "--db", f"sqlite:///{path}?uri={spelling}&mode=ro")
    assert rc == 1 and "uri=true reads the path as a file: URI, and this one is none" in err, err


def test_a_postgresql_schema_of_the_stores_own_beside_another_programs_results(pg_url, tmp_path, capsys):
    """The refusal of a database holding another program's results table tells to give the store a
    schema of its own with search_path in the URL: that works, and leaves the other table alone."""
    import sqlalchemy as sa

    engine = sa.create_engine(pg_url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE results (id integer)")
        conn.exec_driver_sql("CREATE SCHEMA sweepgate")
    engine.dispose()
    url = f"{pg_url}?options=-csearch_path%3Dsweepgate"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", url, _jobs(tmp_path / "a", 2, "1"))
    assert rc == 0 and "(2 new)" in out, err
    rc, out, err = run_cli(capsys, "results", "show", "--db", url)
    assert rc == 0 and "2 points" in out, err
    engine = sa.create_engine(pg_url)
    with engine.connect() as conn:
        assert sa.inspect(conn).get_table_names(schema="public") == ["results"]
        assert {"results", "alembic_version"} <= set(sa.inspect(conn).get_table_names(schema="sweepgate"))
    engine.dispose()


@pytest.mark.parametrize("url", ["sqlite:///file:mem1?mode=memory&uri=true", "sqlite:///file::memory:?uri=true"])
def test_an_in_memory_file_uri_is_refused_as_keeping_nothing(tmp_path, capsys, url):
    """A file: URI to an in-memory database said 'ingested 1 results (1 new)' into nothing, exit 0."""
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", url, _jobs(tmp_path / "a", 1, "1"))
    assert rc == 1 and "an in-memory store keeps nothing" in err, err
