"""PostgreSQL (store20): a multi-host URL (as libpq allows, postgresql://u@h1:5432,h2:5433/db) works and
is named as written."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from helpers import job, run_cli, vllm_output, write_job


def _jobs(folder: Path, n: int = 1, run: str = "1") -> str:
    for i in range(n):
        row = dict(job()["row"], conc=4 * (i + 1), **{"exp-name": f"e{i}"})
        write_job(folder, f"job{i:03d}", vllm_output(4 * (i + 1)), job(run_id=run, row=row))
    return str(folder)


def _one_line(capsys, *argv) -> str:
    rc, _, err = run_cli(capsys, *argv)
    assert rc == 1 and "Traceback" not in err and "internal error" not in err, err
    (line,) = err.strip().splitlines()
    return line


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
