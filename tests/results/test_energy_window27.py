"""stats27: a record says which window its energy per output token was integrated over, ``energy-window``:
``client-run`` where the output states the client's own run beyond doubt (AIPerf's first request to last
response, the InferenceX vLLM client's Unix start and end), ``job`` where it was the job's window, which
also holds the server's start and model loading; null without an energy figure. `results show --json`
returns it; a record stored before stats27 has none and ingesting its output again is still a no-op.

The outputs are the real files test_energy_window26 integrates (their figures are checked there)."""

from __future__ import annotations

import datetime as dt
import json

from helpers import ROOT, SAMPLES, job, run_cli, show_json
from sweepgate.results import record as R
from sweepgate.results import store
from test_energy_window26 import GPT_OSS, KIMI, _ingest_utc, _monitor_csv, _write

AIPERF = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json"
FORK = ROOT / "tests" / "data" / "results-real" / "vllm" / "ifx_vllm0.22_gptoss120b_h200_tp4_conc8_start_end_unix.json"
STAMPS = ("min_request_timestamp", "max_response_timestamp")


def _aiperf_jobs(folder, run_ids=("1001", "1002", "1003"), ref="refs/heads/main", day_of=None) -> None:
    """AIPerf's real export as it is ("measured": its first request and last response in Unix ns), without
    those two times ("zoneless": only its local start_time/end_time) and without the monitor's samples
    ("unsampled"), each in a job from 09:00 to 10:20 UTC with the GPUs serving from 09:15:40 to 10:15."""
    export = json.loads(AIPERF.read_text(encoding="utf-8"))
    day = dt.datetime(2026, 7, 9)
    csv = _monitor_csv(day.replace(hour=8, minute=59, second=50), day.replace(hour=10, minute=20, second=10),
                       day.replace(hour=9, minute=15, second=40), day.replace(hour=10, minute=15))
    times = {R.STARTED: "2026-07-09T09:00:00+00:00", R.FINISHED: "2026-07-09T10:20:00+00:00"}
    zoneless = {k: v for k, v in export.items() if k not in STAMPS}
    for run_id, (name, doc) in zip(run_ids, (("measured", export), ("zoneless", zoneless), ("unsampled", export))):
        _write(folder, name, doc, job(run_id=run_id, ref=ref, row=KIMI, **times), csv)
    (folder / "unsampled.gpu_metrics.csv").unlink()


def _show(db: str) -> list[dict]:
    with store.open_store(db) as st:
        return st.records()


def test_an_aiperf_record_says_which_window_its_energy_is_of(tmp_path, capsys):
    _aiperf_jobs(tmp_path / "in")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = _ingest_utc(capsys, db, tmp_path / "in")
    assert rc == 0, err
    got = {r[R.RESULT_FILENAME]: r for run in ("1001", "1002", "1003") for r in show_json(capsys, db, "--run", run)}
    assert got["measured"][R.ENERGY_WINDOW] == R.CLIENT_RUN_WINDOW == "client-run"
    assert got["zoneless"][R.ENERGY_WINDOW] == R.JOB_WINDOW == "job"
    assert got["unsampled"][R.ENERGY_WINDOW] is None  # no samples: no energy figure, so no window either
    assert got["measured"][R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] < got["zoneless"][R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J]
    assert R.ENERGY_PER_OUTPUT_TOKEN_J not in got["unsampled"][R.METRICS]


def test_the_vllm_fork_s_unix_times_give_the_client_run_and_stock_vllm_the_job(tmp_path, capsys):
    output = json.loads(FORK.read_text(encoding="utf-8"))
    stock = {k: v for k, v in output.items() if not k.endswith("_time_unix")}
    times = {R.STARTED: "2026-06-10T21:55:00+00:00", R.FINISHED: "2026-06-10T22:10:00+00:00"}
    day = dt.datetime(2026, 6, 10)
    csv = _monitor_csv(day.replace(hour=21, minute=54, second=50), day.replace(hour=22, minute=10, second=10),
                       day.replace(hour=22, minute=6, second=20), day.replace(hour=22, minute=8))
    _write(tmp_path / "in", "fork", output, job(row=GPT_OSS, **times), csv)
    _write(tmp_path / "in", "stock", stock, job(run_id="1002", row=GPT_OSS, **times), csv)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert _ingest_utc(capsys, db, tmp_path / "in")[0] == 0
    got = {r[R.RESULT_FILENAME]: r[R.ENERGY_WINDOW] for run in ("1001", "1002")
           for r in show_json(capsys, db, "--run", run)}
    assert got == {"fork": "client-run", "stock": "job"}


def test_a_record_stored_without_it_is_kept_and_compare_reads_the_same(tmp_path, capsys, monkeypatch):
    """A store an older sweepgate filled has no energy-window: ingesting the same outputs again is a no-op
    (the record is immutable and keeps none), and `results compare` says the same of either store."""
    monkeypatch.chdir(tmp_path)
    outputs = {}
    for name in ("with", "without"):
        folder = tmp_path / name
        for n in range(3):
            _aiperf_jobs(folder / f"main{n}", run_ids=(f"1{n}1", f"1{n}2", f"1{n}3"))
        _aiperf_jobs(folder / "pr", run_ids=("201", "202", "203"), ref="refs/pull/7/merge")
        db = f"sqlite:///{tmp_path / f'{name}.db'}"
        assert _ingest_utc(capsys, db, folder)[0] == 0
        if name == "without":  # as a store of an older sweepgate holds them
            with store.open_store(db) as st, st.engine.begin() as conn:
                for row_id, rec in conn.execute(store.sa.select(store.results.c.id, store.results.c.record)).all():
                    rec = {k: v for k, v in rec.items() if k != R.ENERGY_WINDOW}
                    conn.execute(store.results.update().where(store.results.c.id == row_id).values(record=rec))
            rc, out, err = _ingest_utc(capsys, db, folder)
            assert (rc, err) == (0, "") and "(0 new)" in out
            assert {r.get(R.ENERGY_WINDOW, "absent") for r in _show(db)} == {"absent"}
        else:
            assert {r[R.ENERGY_WINDOW] for r in _show(db)} == {"client-run", "job", None}
        outputs[name] = []
        for fmt in ("--json", "--markdown"):
            rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "201", fmt)
            assert rc == 0, err
            outputs[name].append(out)
    assert outputs["with"] == outputs["without"]
