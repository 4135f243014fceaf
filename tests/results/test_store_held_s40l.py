"""s40l: what an ingest waited for or kept once through.

- An ingest into PostgreSQL ends by analyzing the results table (s39o), and ANALYZE waits for the table's SHARE
  UPDATE EXCLUSIVE lock, which a manual VACUUM, a CREATE INDEX CONCURRENTLY, another ingest's ANALYZE or an
  anti-wraparound autovacuum holds for as long as it runs: the ingest printed its last line and then never
  exited. Statistics are optional: the ANALYZE now never waits for that lock (the table is left as it was).
- The parse of a GPU samples file (``ingest._samples_of``, kept while the file stays as it was) was kept for the
  rest of the process, up to 8 of them, and a refused one with its traceback, whose frames held the file's text
  and rows (a 12-hour, 12 MB gpu_metrics.csv of no draw kept 106 MB): the refusal is kept without its
  traceback, and nothing is kept once the ingest returns.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

from helpers import ROOT, no_ref_said, scaled_sglang_runs

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
    assert first.returncode == 0 and no_ref_said(first.stderr) == "", first.stderr
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
        assert done.returncode == 0 and no_ref_said(done.stderr) == "", done.stderr
        assert done.stdout.splitlines()[-1].startswith("ingested 21 results (21 new) into postgresql+psycopg://")
        assert _planner_rows(engine) == 7  # not analyzed: the lock was held
        again = subprocess.run([*cli, str(tmp_path / "more")], env=_env(), capture_output=True, text=True,
                               timeout=HANG_S)
        assert again.returncode == 0 and again.stderr == "", again.stderr
        assert _planner_rows(engine) == 4 * 7  # the lock let go: analyzed as before
    finally:
        engine.dispose()


def _no_draw(path, hours: float = 1, gpus: int = 8):
    """nvidia-smi's samples of ``gpus`` GPUs a second for ``hours``, every draw [N/A]: refused, no draw in it."""
    rows = [f"2026/11/30 {10 + s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.000, {g}, [N/A]"
            for s in range(int(hours * 3600)) for g in range(gpus)]
    path.write_text("timestamp, index, power.draw [W]\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_refused_samples_file_is_kept_without_the_text_and_rows_it_was_read_from(tmp_path):
    import tracemalloc

    from sweepgate.core.errors import SweepgateError
    from sweepgate.results import ingest

    csv = _no_draw(tmp_path / "gpu_metrics.csv")
    ingest._samples_of.cache_clear()
    gc.collect()
    tracemalloc.start()
    try:
        refused = ingest._samples_of(str(csv), *ingest._stamp(csv))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert isinstance(refused, SweepgateError) and "holds no number" in str(refused), refused
    assert refused.__traceback__ is None and refused.__context__ is None  # was: samples()'s frames, text and rows
    assert held < csv.stat().st_size / 10, (held, csv.stat().st_size)  # was 9 times the file's size
    assert ingest._samples_of(str(csv), *ingest._stamp(csv)) is refused  # still read once while it stays as it was
    ingest._samples_of.cache_clear()


def test_nothing_of_the_samples_files_is_kept_once_an_ingest_returns(tmp_path, capsys):
    from sweepgate.results import ingest
    from test_results_loose_ends_s39r import _ingest, _mi250_node, _three

    ingest._samples_of.cache_clear()
    rc, err, recs = _ingest(tmp_path / "read", capsys, _mi250_node(), _three(tp=2))
    assert rc == 0 and len(recs) == 3, err
    assert ingest._samples_of.cache_info().currsize == 0  # was 1: the parse, kept for the rest of the process
    rc, err, recs = _ingest(tmp_path / "refused", capsys, _no_draw(tmp_path / "na.csv").read_text(), _three())
    assert rc == 0 and len(recs) == 3 and "holds no number" in err, err
    assert ingest._samples_of.cache_info().currsize == 0
