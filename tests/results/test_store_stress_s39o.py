"""The results store under stress (s39o): real processes, real signals, a real PostgreSQL server.

Each test makes the moment it is about happen every time (another process's commit, a signal) by waiting
on what the processes do, never on a clock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

from helpers import ROOT, SGLANG_RUNS, no_ref_said, scaled_sglang_runs
from sweepgate.results import ingest, store




def _env() -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"}
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "SWEEPGATE_DB"):
        env.pop(name, None)
    return env


# An ingest whose first INSERT into the results table starts another ingest of the same files (two CI jobs
# ingesting one artifact) and goes on once that one waits on a lock or has ended. Before s49b's lock of the runs a
# file writes, the other ran to its end first, and the rows this one then inserted were stored meanwhile: a lost
# race psycopg logged on stderr. The hook is SQLAlchemy's, the commands both sweepgate's own.
HOLDER = """
import json, subprocess, sys, time
import sqlalchemy as sa
from sweepgate import cli

said, other = sys.argv[1], sys.argv[2:]
url = other[other.index("--db") + 1]
started = []

def waiting():
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return bool(conn.execute(sa.text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'")).scalar())
    finally:
        engine.dispose()

@sa.event.listens_for(sa.engine.Engine, "before_cursor_execute")
def first_insert(conn, cursor, statement, parameters, context, executemany):
    if not started and statement.startswith("INSERT INTO results"):
        started.append(subprocess.Popen(other, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        while started[0].poll() is None and not waiting():
            time.sleep(0.05)

code = cli.main(["results", "ingest", *other[other.index("ingest") + 1:]]) or (0 if started else 9)
out, err = started[0].communicate(timeout=240) if started else ("", "")
with open(said, "w") as f:
    json.dump({"returncode": started[0].returncode if started else None, "stdout": out, "stderr": err}, f)
sys.exit(code)
"""


LONG_RUNS = 3000  # rows one INSERT sends: the server refuses the first long before psycopg has sent the last


def _long_jsonl(path, lines: int):
    """An SGLang JSONL of ``lines`` runs (the real sample's, their figures scaled apart)."""
    runs = [json.loads(line) for line in SGLANG_RUNS.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = [{k: v * (1 + i / 100000) if isinstance(v, float) and ("throughput" in k or k.endswith("_ms")) else v
            for k, v in runs[i % len(runs)].items()} for i in range(lines)]
    path.write_text("".join(json.dumps(doc) + "\n" for doc in out), encoding="utf-8")
    return path


def _held_ingest(tmp_path, url: str, *paths) -> tuple[subprocess.CompletedProcess, dict]:
    """`results ingest --db URL PATHS` that starts the same ingest in another process at its first INSERT
    (``HOLDER``): its own process, and what the other said (returncode, stdout, stderr); exit 9: it never
    inserted."""
    ingest_argv = [sys.executable, "-m", "sweepgate", "results", "ingest", "--db", url, *map(str, paths)]
    script, said = tmp_path / "holder.py", tmp_path / "other.json"
    script.write_text(HOLDER, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(said), *ingest_argv], env=_env(), capture_output=True,
                          text=True, timeout=300)
    return done, json.loads(said.read_text(encoding="utf-8")) if said.exists() else {}


@pytest.mark.usefixtures("pg_server")
def test_two_ingests_of_one_long_jsonl_into_postgresql_store_it_once_and_say_nothing_of_each_other(pg_url, tmp_path):
    """s39o: two ingests of one JSONL (many rows, one INSERT of them all, which psycopg sends as a pipeline) into
    PostgreSQL. Then the one whose INSERT met the other's rows committed meanwhile started over and stored nothing
    twice, but psycopg logged its aborted pipeline on stderr, once per lost race. Since s49b each file's writer
    first locks the runs it writes: the second waits for the first's commit, finds every row stored and says so,
    and neither says anything else (the first the one line that its rows are on no ref, a JSONL with no
    sidecar)."""
    path = _long_jsonl(tmp_path / "runs.jsonl", LONG_RUNS)
    records = ingest.records_of(path)
    assert len(records) == LONG_RUNS
    done, other = _held_ingest(tmp_path, pg_url, path)
    assert done.returncode == 0, done.stderr
    assert f"ingested {len(records)} results ({len(records)} new)" in done.stdout, done.stdout
    said = done.stderr.splitlines()
    assert len(said) == 1 and " stored on no ref (" in said[0], done.stderr
    assert other["returncode"] == 0 and other["stderr"] == "", other
    assert f"ingested {len(records)} results (0 new)" in other["stdout"], other
    with store.open_store(pg_url) as st:
        assert len(st.run_results(records[0]["run-id"])) == len(records)


def _planner_rows(url: str) -> float:
    """How many rows PostgreSQL's planner takes the results table to hold (its statistics: -1 never gathered)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text("SELECT reltuples FROM pg_class WHERE relname = 'results'")).scalar()
    finally:
        engine.dispose()


def _first_run_stored_autovacuum_off(pg_url: str, tmp_path) -> list[str]:
    """One run ingested into the store, three more written under tmp_path/more; the server's autovacuum off
    for the table, so what the planner's statistics say after is an ingest's doing. The ingest command line."""
    scaled_sglang_runs(tmp_path / "first", 1)
    scaled_sglang_runs(tmp_path / "more", 3, first=1)
    cli = [sys.executable, "-m", "sweepgate", "results", "ingest", "--db", pg_url]
    assert subprocess.run([*cli, str(tmp_path / "first")], env=_env(), capture_output=True).returncode == 0
    engine = sa.create_engine(pg_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("ALTER TABLE results SET (autovacuum_enabled = false)"))
    finally:
        engine.dispose()
    return cli


@pytest.mark.usefixtures("pg_server")
def test_an_ingest_into_postgresql_leaves_the_planner_s_statistics_of_what_it_stored(pg_url, tmp_path):
    """s39o: a fresh PostgreSQL store's first large ingest (2,000 job outputs) and a `results show` or `compare`
    right after it, before the server's autovacuum had analyzed the table (it looks once a minute): the planner,
    with no statistics of the rows, chose a plan of the newest-per-point query that ran for minutes (1 s once
    analyzed). An ingest that stored rows now has the table analyzed; here autovacuum is off for it, so what the
    statistics say is the ingest's doing."""
    cli = _first_run_stored_autovacuum_off(pg_url, tmp_path)
    done = subprocess.run([*cli, str(tmp_path / "more")], env=_env(), capture_output=True, text=True)
    assert done.returncode == 0 and no_ref_said(done.stderr) == "", done.stderr
    assert _planner_rows(pg_url) == 4 * 7  # was -1 (never analyzed) or the first ingest's count


@pytest.mark.usefixtures("pg_server")
def test_an_ingest_that_finishes_a_stopped_one_leaves_the_statistics_though_it_stores_nothing_new(pg_url, tmp_path):
    """s39o: an ingest stopped by Ctrl-C (or killed) after storing most of its files does not analyze; run again, it
    stored nothing new and did not analyze either, and the `results show` after it ran for 83 s. Here the files are
    stored first as a stopped ingest leaves them (each file's rows committed, nothing else done)."""
    cli = _first_run_stored_autovacuum_off(pg_url, tmp_path)
    with store.open_store(pg_url) as st:
        for path in sorted((tmp_path / "more").iterdir()):
            st.add(ingest.records_of(path), sole=True)
    assert _planner_rows(pg_url) == 7
    done = subprocess.run([*cli, str(tmp_path / "more")], env=_env(), capture_output=True, text=True)
    assert done.returncode == 0 and "(0 new)" in done.stdout, done.stderr
    assert _planner_rows(pg_url) == 4 * 7  # was 7: the statistics of the first ingest


# A stream that takes a Ctrl-C (a real SIGINT to this process) right after its first write: where print() had
# written a diagnostic's text but not yet its newline.
CUT_REPORT = """
import os, signal, sys
from sweepgate.core.errors import Diagnostic, emit, stopped

class CtrlCAfterFirstWrite:
    def __init__(self):
        self.writes = 0
    def write(self, text):
        sys.stderr.write(text)
        self.writes += 1
        if self.writes == 1:
            os.kill(os.getpid(), signal.SIGINT)
        return len(text)
    def flush(self):
        sys.stderr.flush()

try:
    emit([Diagnostic("r.json", 3, 1, "x", "warning: the first", "", severity="warning"),
          Diagnostic("r.json", 4, 1, "x", "warning: the second", "", severity="warning")], CtrlCAfterFirstWrite())
except KeyboardInterrupt as exc:
    sys.exit(stopped(exc))
"""


def test_a_ctrl_c_while_diagnostics_are_printed_leaves_its_line_on_a_line_of_its_own(tmp_path):
    """s39o: a Ctrl-C as an ingest of 2,000 files printed its warnings, all stored already, landed between a
    diagnostic's text and its newline (print() writes them apart): `... (or --row)sweepgate: interrupted`, the
    stop's line glued to the warning's. A diagnostic is now written with its newline in one write."""
    script = tmp_path / "cut.py"
    script.write_text(CUT_REPORT, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], env=_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    assert done.stderr.splitlines()[-1] == "sweepgate: interrupted", done.stderr
