"""The store on a real PostgreSQL server: same answers as SQLite, same migrated schema."""

from __future__ import annotations

import pytest

from helpers import job, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from sweepgate.results import store


def _batch(folder, samples=None):
    for run, conc in (("r1", 4), ("r2", 4), ("r3", 8)):
        row = dict(job()["row"], conc=conc)
        write_job(folder / run, "res", vllm_output(conc=conc, duration=90.0 + conc), job(run_id=run, row=row,
                  finished=f"2026-01-0{len(run)}T12:00:00+00:00" if run != "r2" else "2026-01-03T00:00:00+00:00"))
    return [str(folder)] + ([str(samples)] if samples else [])


def test_sqlite_and_postgresql_show_the_same(pg_url, samples, tmp_path, capsys):
    paths = _batch(tmp_path / "in", samples)
    sqlite_url = f"sqlite:///{tmp_path / 'r.db'}"
    for db in (sqlite_url, pg_url):
        rc, out, _ = run_cli(capsys, "results", "ingest", "--db", db, *paths)
        assert rc == 1 and "new) into" in out  # the refused samples
    for extra in ((), ("--run", "r1"), ("--key", "dsr1-fp4-b300-vllm")):
        lite, pg = show_json(capsys, sqlite_url, *extra), show_json(capsys, pg_url, *extra)
        assert lite == pg and lite


def test_migrations_match_the_tables_on_both(pg_url, tmp_path):
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    for url in (pg_url, f"sqlite:///{tmp_path / 'm.db'}"):
        with store.open_store(url) as st, st.engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), store.metadata) == []


def test_point_queries(pg_url, tmp_path, capsys):
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", pg_url, *_batch(tmp_path / "in"))
    assert rc == 0, err
    point = {R.CONFIG_KEY: "dsr1-fp4-b300-vllm", R.HARDWARE: "b300", R.CONC: 4}
    with store.open_store(pg_url) as st:
        assert [r[R.RUN_ID] for r in st.last_runs("refs/heads/main", point, n=5)] == ["r2", "r1"]
        assert [r[R.RUN_ID] for r in st.last_runs("refs/heads/main", point, n=1)] == ["r2"]
        assert [r[R.RUN_ID] for r in st.history(point)] == ["r1", "r2"]
        assert st.last_runs("refs/heads/other", point) == []
        assert [r[R.CONC] for r in st.run_results("r3")] == [8]


def test_bad_postgresql_url_is_one_line(capsys, tmp_path):
    write_job(tmp_path, "res", vllm_output(), job())
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", "postgresql+psycopg://nobody@127.0.0.1:1/none",
                         str(tmp_path))
    assert rc == 1 and len(err.strip().splitlines()) == 1 and err.startswith("postgresql+psycopg://nobody@")


@pytest.mark.parametrize("url", ["notaurl", "mysql+nodriver://x/y"])
def test_not_a_database_url(url, capsys, tmp_path):
    rc, _, err = run_cli(capsys, "results", "show", "--db", url)
    assert rc == 1 and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("path", ["x.db", "/abs/results.db"])
def test_a_bare_path_given_as_db_is_told_its_sqlite_url(path, capsys):
    """New-user review: `--db x.db` got SQLAlchemy's "Could not parse SQLAlchemy URL from given URL string"."""
    rc, _, err = run_cli(capsys, "results", "show", "--db", path)
    assert rc == 1 and err.strip() == f"{path}: not a database URL (a path alone is not one); use sqlite:///{path}", err


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_a_postgresql_url_that_names_no_driver_uses_the_one_sweepgate_installs(pg_url, tmp_path, capsys, scheme):
    """New-user review: `--db postgresql://u:p@host/db`, the usual spelling (and $DATABASE_URL's
    `postgres://`), said "not a database URL: No module named 'psycopg2'": SQLAlchemy's default driver
    for it is not installed, psycopg 3 is. Such a URL now gets psycopg 3 and works."""
    url = scheme + "://" + pg_url.split("://", 1)[1]
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", url, *_batch(tmp_path))
    assert rc == 0 and "psycopg2" not in err, err
    assert "ingested 3 results (3 new) into postgresql+psycopg://" in out, out
    assert {rec["conc"] for rec in show_json(capsys, url)} == {4, 8}  # the newest of each point


def test_a_dialect_whose_driver_is_not_installed_is_told_so(capsys):
    """New-user review: `--db mysql://u:p@h/db` said "not a database URL: No module named 'MySQLdb'"."""
    rc, _, err = run_cli(capsys, "results", "show", "--db", "mysql://u:secret@h/db")
    assert rc == 1 and "secret" not in err and err.startswith(
        "mysql://u:***@h/db: no driver installed for 'mysql' (No module named 'MySQLdb'); sweepgate stores results "
        "in SQLite or PostgreSQL; use sqlite:///PATH"), err

    rc, _, err = run_cli(capsys, "results", "show", "--db", "postgresql+psycopg2://u:secret@h/db")
    assert rc == 1 and err.strip() == "postgresql+psycopg2://u:***@h/db: the driver 'postgresql+psycopg2' names is not " \
        "installed (No module named 'psycopg2'); write postgresql+psycopg://USER:PASSWORD@HOST/DB (psycopg 3, " \
        "installed with sweepgate)", err
