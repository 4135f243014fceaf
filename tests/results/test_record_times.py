"""A record's started and finished times are stored in UTC, so that the store's text ordering (newest
run, a main run's own past) is the order of the instants, whatever zone a sidecar or client wrote."""

from __future__ import annotations

import json

import pytest

from helpers import job, job_key_at, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from sweepgate.results import store


def test_times_in_other_zones_are_stored_in_utc_and_order_by_instant(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    early = job(run_id="11", started="2026-01-01T11:58:00+02:00", finished="2026-01-01T12:00:00+02:00")  # 10:00 UTC
    late = job(run_id="12", started="2026-01-01T10:58:00Z", finished="2026-01-01T11:00:00Z")  # 11:00 UTC
    write_job(tmp_path / "runs" / "a", "res", vllm_output(), early)
    write_job(tmp_path / "runs" / "b", "res", vllm_output(output_throughput=500.0), late)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "runs"))
    assert rc == 0, err
    times = {r[R.RUN_ID]: (r[R.STARTED], r[R.FINISHED]) for run in ("11", "12")
             for r in show_json(capsys, db, "--run", run)}
    assert times == {"11": ("2026-01-01T09:58:00+00:00", "2026-01-01T10:00:00+00:00"),
                     "12": ("2026-01-01T10:58:00+00:00", "2026-01-01T11:00:00+00:00")}
    point = {R.CONFIG_KEY: "dsr1-fp4-b300-vllm", R.CONC: 4}
    newest = store.open_store(db).last_runs("refs/heads/main", point, n=2)
    assert [r[R.RUN_ID] for r in newest] == ["12", "11"]  # as text, 12:00+02:00 sorted after 11:00Z


def test_a_time_stored_as_written_is_no_change_when_ingested_again(tmp_path, capsys):
    """Stores written before times were kept in UTC hold them as the sidecar wrote them: the same
    file ingested again is the same result, not a changed one."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    side = job(run_id="21", started="2026-01-01T09:58:00+00:00", finished="2026-01-01T12:00:00+02:00")
    out = write_job(tmp_path / "a", "res", vllm_output(), side)
    from sweepgate.results import ingest

    with store.open_store(db) as st:
        ingest.ingest([str(out)], st)
    with store.open_store(db).engine.begin() as conn:  # as an older sweepgate stored it
        (rec,) = [json.loads(r[0]) if isinstance(r[0], str) else r[0]
                  for r in conn.exec_driver_sql("SELECT record FROM results")]
        rec[R.FINISHED] = "2026-01-01T12:00:00+02:00"
        conn.exec_driver_sql("UPDATE results SET record = ?, finished = ?", (json.dumps(rec), rec[R.FINISHED]))
    rc, text, err = run_cli(capsys, "results", "ingest", "--db", db, str(out))
    assert (rc, err) == (0, "") and "(0 new)" in text
    side["job"][R.FINISHED] = "2026-01-01T12:00:01+02:00"  # a second later is another result
    (tmp_path / "a" / "res.job.json").write_text(json.dumps(side), encoding="utf-8")
    rc, text, err = run_cli(capsys, "results", "ingest", "--db", db, str(out))
    assert rc == 1 and "changed: finished" in err, err


def test_a_sidecar_time_that_is_no_time_is_refused(tmp_path, capsys):
    """Times are stored in UTC to order runs by; a sidecar's 'yesterday' would be stored as it is and
    order anywhere among them."""
    write_job(tmp_path / "run", "r", vllm_output(), job(finished="yesterday"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 1, (out, err)
    assert err.startswith(f"{job_key_at(tmp_path / 'run' / 'r.job.json', 'finished')}: job.finished: 'yesterday' is not an ISO 8601 "
                          "time; write it as `date -u +%Y-%m-%dT%H:%M:%SZ` does"), err


@pytest.mark.parametrize("started,finished", [("2026-01-01T12:00:00+00:00", "2026-01-01T11:00:00+00:00"),
                                              ("2026-01-01T12:00:00Z", "2026-01-01T13:30:00+02:00"),
                                              ("2026-01-01T12:00:01", "2026-01-01T12:00:00")])
def test_a_sidecar_that_finished_before_it_started_is_refused(tmp_path, capsys, started, finished):
    """A sidecar whose job finished before it started was stored without a word: its GPU samples'
    window was empty (no energy) and the run was ordered by a time that cannot be right."""
    write_job(tmp_path / "run", "r", vllm_output(), job(started=started, finished=finished))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 1, (out, err)
    assert err.startswith(f"{job_key_at(tmp_path / 'run' / 'r.job.json', 'finished')}: job.finished: '{finished}' is before job.started "
                          f"'{started}'; write the times"), err


def test_a_sidecar_with_one_zoned_and_one_zoneless_time_is_stored(tmp_path, capsys):
    write_job(tmp_path / "run", "r", vllm_output(), job(started="2026-01-01T11:00:00", finished="2026-01-01T12:00:00Z"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 0, (out, err)


@pytest.mark.parametrize("started,finished", [("9999-12-31T23:59:58-01:00", "9999-12-31T23:59:59-01:00"),
                                              ("0001-01-01T00:00:00+01:00", "0001-01-01T00:00:01+01:00")])
def test_a_sidecar_time_at_the_end_of_the_calendar_is_no_internal_error(tmp_path, capsys, started, finished):
    """Review: the finished-before-started check turned these (stored before it) into `internal error:
    OverflowError: date value out of range` and exit 1; they are stored as they were."""
    write_job(tmp_path / "run", "r", vllm_output(), job(started=started, finished=finished))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 0 and "internal error" not in err, (out, err)


def test_a_sidecar_time_no_clock_can_place_is_refused_in_one_line(tmp_path, capsys):
    """A time without a zone is this machine's; year 1 is before any it can place (its GPU window
    said `internal error: ValueError: year 0 is out of range`)."""
    write_job(tmp_path / "run", "r", vllm_output(), job(started="0001-01-01T00:00:00", finished="0001-01-01T00:00:01"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 1 and "internal error" not in err, (out, err)
    assert err.startswith(f"{job_key_at(tmp_path / 'run' / 'r.job.json', 'started')}: job.started: '0001-01-01T00:00:00' is out of the "
                          "range of times; write the time the job ran"), err
