"""A time a client writes without a zone (stock vLLM's `date`, AIPerf's start_time/end_time: the benchmark
machine's local clock) is stored and shown as it was written, without an offset: `results show --json` said
`finished: 2026-01-01T12:00:00+00:00` for it, claiming UTC, and on a machine in another zone another instant.
A result an older sweepgate stored with such a time put in UTC is the same result when its output is ingested
again, whatever zone that older ingest ran in."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT, ROW, SAMPLES, job, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from sweepgate.results import store


def _by_hand(tmp_path, tz: str, doc: dict, *, run: str = "7", **row) -> subprocess.CompletedProcess:
    """`results ingest --row` of ``doc`` (no sidecar: the output's own times) as a real process in zone ``tz``."""
    (tmp_path / "row.json").write_text(json.dumps({**ROW, **row}), encoding="utf-8")
    (tmp_path / "o.json").write_text(json.dumps(doc), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", "TZ": tz})
    return subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db", "sqlite:///r.db",
                           "--row", "row.json", "--run-id", run, "--ref", "refs/heads/main", "o.json"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)


@pytest.mark.parametrize("tz", ["UTC", "Asia/Kolkata"])
def test_a_vllm_date_is_shown_as_written_without_a_zone_whatever_zone_ingests_it(tmp_path, capsys, tz):
    proc = _by_hand(tmp_path, tz, vllm_output())
    assert proc.returncode == 0, proc.stderr
    (rec,) = show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}")
    assert (rec[R.STARTED], rec[R.FINISHED]) == (None, "2026-01-01T12:00:00")


def test_an_aiperf_export_s_local_times_are_stored_without_a_zone(tmp_path, capsys):
    doc = json.loads((SAMPLES / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16.json").read_text(encoding="utf-8"))
    proc = _by_hand(tmp_path, "Asia/Kolkata", doc, conc=16, model="qwen3-4b")
    assert proc.returncode == 0, proc.stderr
    (rec,) = show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}")
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2026-09-30T16:53:39.902853", "2026-09-30T16:58:39.904399")


def test_an_aiperf_export_s_local_times_take_the_zone_its_unix_times_show(tmp_path, capsys):
    """A real export from a machine at UTC-8: start_time 13:38:54 local, its first request at 21:38:54 UTC
    (``min_request_timestamp``): stored as 21:38:54 UTC, not as 13:38:54 UTC (eight hours off, as before)."""
    doc = json.loads((SAMPLES / "aiperf" / "aiperf_qwen3-0.6b_rtx6000ada_conc1_plotfixture.json")
                     .read_text(encoding="utf-8"))
    proc = _by_hand(tmp_path, "UTC", doc, conc=1, model="Qwen/Qwen3-0.6B", isl=100, osl=200)
    assert proc.returncode == 0, proc.stderr
    (rec,) = show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}")
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2025-11-07T21:38:54.793124+00:00", "2025-11-07T21:43:13.730640+00:00")


@pytest.mark.parametrize("end_unix,finished", [
    (1767297600.25, "2026-01-01T20:00:00+00:00"),   # 20:00 UTC: the client's clock was at UTC-8
    (1767268740.0, "2026-01-01T12:00:00+00:00"),    # 11:59 UTC, a minute before it saved: at UTC
    (1767253920.0, "2026-01-01T12:00:00"),          # 07:52 UTC, 4:08 apart, no zone's: unknown, as written
])
def test_a_vllm_date_takes_the_zone_its_end_time_shows(tmp_path, capsys, end_unix, finished):
    proc = _by_hand(tmp_path, "Asia/Kolkata", vllm_output(benchmark_end_time_unix=end_unix))
    assert proc.returncode == 0, proc.stderr
    (rec,) = show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}")
    assert rec[R.FINISHED] == finished


def test_a_sidecar_s_zoned_times_are_still_stored_in_utc(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    side = job(started="2026-01-01T13:58:00+02:00", finished="2026-01-01T14:00:00+02:00")
    out = write_job(tmp_path / "a", "res", vllm_output(), side)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(out))
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2026-01-01T11:58:00+00:00", "2026-01-01T12:00:00+00:00")


def _as_an_older_sweepgate_stored(db: str, finished: str) -> None:
    with store.open_store(db).engine.begin() as conn:
        (rec,) = [json.loads(r[0]) if isinstance(r[0], str) else r[0]
                  for r in conn.exec_driver_sql("SELECT record FROM results")]
        rec[R.FINISHED] = finished
        conn.exec_driver_sql("UPDATE results SET record = ?, finished = ?", (json.dumps(rec), finished))


@pytest.mark.parametrize("finished", ["2026-01-01T12:00:00+00:00",   # ingested where the zone was UTC
                                      "2026-01-01T06:30:00+00:00",   # in India (+05:30)
                                      "2026-01-01T17:00:00+00:00"])  # in New York (-05:00)
def test_a_date_an_older_sweepgate_stored_in_utc_is_no_change_when_ingested_again(tmp_path, capsys, finished):
    proc = _by_hand(tmp_path, "UTC", vllm_output())
    assert proc.returncode == 0, proc.stderr
    _as_an_older_sweepgate_stored(f"sqlite:///{tmp_path / 'r.db'}", finished)
    again = _by_hand(tmp_path, "UTC", vllm_output())
    assert (again.returncode, again.stderr) == (0, ""), again.stderr
    assert "(0 new)" in again.stdout, again.stdout


def test_another_date_is_still_a_change(tmp_path):
    proc = _by_hand(tmp_path, "UTC", vllm_output())
    assert proc.returncode == 0, proc.stderr
    _as_an_older_sweepgate_stored(f"sqlite:///{tmp_path / 'r.db'}", "2026-01-01T12:00:00+00:00")
    again = _by_hand(tmp_path, "UTC", vllm_output(date="20260101-120001"))  # a second later: another result
    assert again.returncode == 1 and "changed: finished" in again.stderr, again.stderr


def test_zoneless_and_utc_times_order_alike_in_the_store_and_in_files():
    """The store orders its rows by the stored text; ``record.happened`` must give that same order: a time
    without a zone orders by its clock reading among times in UTC, on any machine."""
    recs = [{R.FINISHED: "2026-01-01T12:00:00"}, {R.FINISHED: "2026-01-01T11:59:59+00:00"},
            {R.FINISHED: "2026-01-01T12:00:01+00:00"}]
    assert [R.happened(r) for r in recs] == ["2026-01-01T12:00:00", "2026-01-01T11:59:59+00:00",
                                             "2026-01-01T12:00:01+00:00"]
    assert sorted(R.happened(r) for r in recs)[1] == "2026-01-01T12:00:00"
