"""JOB_STARTED is checked by `results sidecar` as `results ingest` reads it. A start time later than
now (`date +%Y-%m-%dT%H:%M:%SZ` without -u on a runner east of UTC: local time marked as UTC) was
written into the sidecar beside `finished` (now), and the collect job's ingest then refused the job
(`job.finished ... is before job.started`): its results were lost after the job had passed. Now the
sidecar step refuses it in the job itself, one line, no sidecar; a time it accepts ingests."""

from __future__ import annotations

import datetime as dt
import json
import time

from helpers import ROW, run_cli, vllm_output  # helpers puts utils/ on sys.path

from sweepgate.core import jobfile


def job_env(monkeypatch, result_dir, started: str) -> None:
    for k, v in {"ROW": json.dumps(ROW), "RESULT_DIR": str(result_dir), "RESULT_FILENAME": "res",
                 "JOB_STATUS": "success", "GITHUB_RUN_ID": "5", "GITHUB_REF": "refs/heads/main",
                 "GITHUB_SHA": "ab" * 20, "JOB_STARTED": started}.items():
        monkeypatch.setenv(k, v)
    for k in ("ROW_ID", "MATRIX_FILE", "JOB_CONTEXT_FILE", "GITHUB_ACTIONS", "CONFIG_KEY"):
        monkeypatch.delenv(k, raising=False)


def outputs(tmp_path):
    """A RESULT_DIR holding one vLLM output, res.json."""
    results = tmp_path / "results"
    results.mkdir()
    (results / "res.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    return results


def sidecar_and_ingest(tmp_path, capsys, monkeypatch, results, started: str) -> None:
    """`results sidecar` with JOB_STARTED ``started``, then `results ingest` of the folder: both pass."""
    job_env(monkeypatch, results, started)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 0, err
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(results))
    assert (rc, err) == (0, ""), err
    assert out.splitlines()[-1] == f"ingested 1 results (1 new) into {db}", out


def test_a_start_time_after_now_is_refused_by_the_sidecar_step_not_lost_at_ingest(tmp_path, capsys, monkeypatch):
    results = outputs(tmp_path)
    later = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    job_env(monkeypatch, results, later)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and err.splitlines() == [
        f"JOB_STARTED: '{later}' is not a time before now (the job cannot have started later); set it with "
        "`date -u +%Y-%m-%dT%H:%M:%SZ` when the job starts (`date` without -u writes local time, and a `Z` "
        "after it reads as UTC)"], err
    assert not (results / f"res{jobfile.SUFFIX}").exists()


def test_a_start_time_before_now_is_written_and_the_job_ingests(tmp_path, capsys, monkeypatch):
    results = outputs(tmp_path)
    earlier = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    sidecar_and_ingest(tmp_path, capsys, monkeypatch, results, earlier)


def test_a_fractional_start_in_the_same_second_is_not_after_the_written_finish(tmp_path, capsys, monkeypatch):
    """JOB_STARTED with a fraction (`date -u +%FT%T.%NZ`) and a sidecar written in the same second:
    `finished`, to the second, read as before the start and ingest refused the job."""
    results = outputs(tmp_path)
    now = dt.datetime.now(dt.timezone.utc)
    if now.microsecond > 800_000:  # leave the sidecar the rest of this second
        time.sleep(1.05 - now.microsecond / 1e6)
        now = dt.datetime.now(dt.timezone.utc)
    sidecar_and_ingest(tmp_path, capsys, monkeypatch, results, now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
