"""s51g: a job's output of several measurements is stored as ``X#1``, ``X#2``, ... (``R.measurement_name``), one job
``X``. The store's own word for a record's job (``store._job_name``) took ``X#1`` for a job of its own, so after a
cancelled attempt whose job ``X`` wrote two lines and a *Re-run failed jobs* attempt whose ``X`` wrote one (stored as
``X``), `results ingest --run-finished` took the first attempt's ``X#1`` and ``X#2`` for jobs no later attempt ran
again and un-marked them: a cancelled attempt's records, which the re-run replaced, back in main's baseline beside
the re-run's. Real SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from helpers import ROW, job, run_cli, vllm_output

MAIN = "refs/heads/main"
RUN = "204"


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, db) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else db


def _job(folder: Path, attempt: int, lines: int) -> Path:
    """Job ``again`` (conc 16) of attempt ``attempt``: its output of ``lines`` repeats, one JSONL line each."""
    folder.mkdir(parents=True)
    text = "".join(json.dumps({**vllm_output(16, output_throughput=400.0 + 10 * attempt + n),
                               "date": f"20260104-12{attempt}{n}00"}) + "\n" for n in range(lines))
    (folder / "again.jsonl").write_text(text, encoding="utf-8")
    (folder / "again.job.json").write_text(json.dumps(job(
        run_id=RUN, attempt=attempt, ref=MAIN, row={**ROW, "conc": 16},
        finished=f"2026-01-04T12:{attempt}9:00+00:00")), encoding="utf-8")
    return folder


def _marks(url: str) -> dict:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT attempt, result_filename, run_cancelled FROM results")).all()
    engine.dispose()
    return {(attempt, name): bool(marked) for attempt, name, marked in rows}


def _ingest(capsys, db: str, folder: Path, *flags: str) -> str:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *flags, str(folder))
    assert rc == 0, out + err
    return out


def test_a_re_run_job_s_earlier_measurements_stay_marked(tmp_path, capsys, backend):
    _ingest(capsys, backend, _job(tmp_path / "a1", 1, 2), "--run-cancelled", "--run-id", RUN, "--attempt", "1")
    assert _marks(backend) == {(1, "again#1"): True, (1, "again#2"): True}
    out = _ingest(capsys, backend, _job(tmp_path / "a2", 2, 1), "--run-finished", "--run-id", RUN, "--attempt", "2")
    # was (1, 'again#1'): False, (1, 'again#2'): False, 'un-marked 2 results'
    assert _marks(backend) == {(1, "again#1"): True, (1, "again#2"): True, (2, "again"): False}, out
    assert "un-marked" not in out, out


def test_a_job_of_several_measurements_not_run_again_is_carried_whole(tmp_path, capsys, backend):
    """Guard: attempt 2 ran another job; attempt 1's job of two measurements is carried, both un-marked."""
    _ingest(capsys, backend, _job(tmp_path / "a1", 1, 2), "--run-cancelled", "--run-id", RUN, "--attempt", "1")
    other = tmp_path / "a2"
    other.mkdir()
    (other / "other.json").write_text(json.dumps(vllm_output(32)), encoding="utf-8")
    (other / "other.job.json").write_text(json.dumps(job(run_id=RUN, attempt=2, ref=MAIN, row={**ROW, "conc": 32})),
                                          encoding="utf-8")
    _ingest(capsys, backend, other, "--run-finished", "--run-id", RUN, "--attempt", "2")
    assert _marks(backend) == {(1, "again#1"): False, (1, "again#2"): False, (2, "other"): False}
