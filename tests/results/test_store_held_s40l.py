"""s40l: what an ingest waited for or kept once through.

- An ingest into PostgreSQL ends by analyzing the results table (s39o), and ANALYZE waits for the table's SHARE
  UPDATE EXCLUSIVE lock, which a manual VACUUM, a CREATE INDEX CONCURRENTLY, another ingest's ANALYZE or an
  anti-wraparound autovacuum holds for as long as it runs: the ingest printed its last line and then never
  exited. Statistics are optional: the ANALYZE now never waits for that lock (the table is left as it was).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

from helpers import ROOT, scaled_sglang_runs

# Safety net only: an ingest here takes seconds; one that waits for the lock would otherwise hang the tests.
HANG_S = 300


def _env() -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"}
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "SWEEPGATE_DB"):
        env.pop(name, None)
    return env


def _planner_rows(engine: sa.Engine) -> float:
    """How many rows PostgreSQL's planner takes the results table to hold (its statistics: -1 never gathered)."""
    with engine.connect() as conn:
        return conn.execute(sa.text("SELECT reltuples FROM pg_class WHERE relname = 'results'")).scalar()


@pytest.mark.usefixtures("pg_server")
def test_an_ingest_ends_while_another_session_holds_the_lock_analyze_takes(pg_url, tmp_path):
    scaled_sglang_runs(tmp_path / "first", 1)
    scaled_sglang_runs(tmp_path / "more", 3, first=1)
    cli = [sys.executable, "-m", "sweepgate", "results", "ingest", "--db", pg_url]
    first = subprocess.run([*cli, str(tmp_path / "first")], env=_env(), capture_output=True, text=True,
                           timeout=HANG_S)
    assert first.returncode == 0 and first.stderr == "", first.stderr
    engine = sa.create_engine(pg_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:  # what the statistics say after is not the server's doing
            conn.execute(sa.text("ALTER TABLE results SET (autovacuum_enabled = false)"))
        assert _planner_rows(engine) == 7
        with engine.connect() as holder:
            holder.exec_driver_sql("BEGIN")
            holder.exec_driver_sql("LOCK TABLE results IN SHARE UPDATE EXCLUSIVE MODE")  # a VACUUM's, an ANALYZE's
            try:
                done = subprocess.run([*cli, str(tmp_path / "more")], env=_env(), capture_output=True, text=True,
                                      timeout=HANG_S)  # was: never exited
            finally:
                holder.exec_driver_sql("ROLLBACK")
        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert done.stdout.splitlines()[-1].startswith("ingested 21 results (21 new) into postgresql+psycopg://")
        assert _planner_rows(engine) == 7  # not analyzed: the lock was held
        again = subprocess.run([*cli, str(tmp_path / "more")], env=_env(), capture_output=True, text=True,
                               timeout=HANG_S)
        assert again.returncode == 0 and again.stderr == "", again.stderr
        assert _planner_rows(engine) == 4 * 7  # the lock let go: analyzed as before
    finally:
        engine.dispose()
