"""Energy per output token is integrated over the benchmark client's own run where its output states
it beyond doubt (Unix times, or times with a zone), not over the job's window, which also holds the
server's start and model loading: a PR that loads the model slower read as worse energy per token,
and the figure was not the energy of the tokens it divides by. Without such times (stock vLLM's
``date`` is local time without a zone, as are AIPerf's ``start_time``/``end_time``), the job's window
is used as before. The stored started/finished stay the job's; a re-ingest stays a no-op."""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path

import pytest

from helpers import ROOT, ROW, SAMPLES, job, run_cli, write_job
from sweepgate.results import record as R
from sweepgate.results import store

UTC = dt.timezone.utc
LOADING_W, SERVING_W = 100.0, 600.0  # per GPU: the server starting and loading its model, then serving
GPUS = 4
KIMI = {**ROW, "model": "amd/Kimi-K2.7-Code-MXFP4", "tp": 4, "conc": 1}  # the AIPerf export's job
GPT_OSS = {**ROW, "model": "openai/gpt-oss-120b", "tp": 4, "conc": 8}  # the vLLM fork output's


def _monitor_csv(begin: dt.datetime, end: dt.datetime, high_from: dt.datetime, high_to: dt.datetime) -> str:
    """nvidia-smi's samples every 10 s from ``begin`` to ``end`` (UTC, written without a zone as the
    monitor writes local time), GPUS GPUs at SERVING_W from ``high_from`` to ``high_to``, else LOADING_W."""
    lines, at = ["timestamp, index, power.draw [W]"], begin
    while at <= end:
        watts = SERVING_W if high_from <= at <= high_to else LOADING_W
        lines += [f"{at:%Y/%m/%d %H:%M:%S}.000, {gpu}, {watts:.2f} W" for gpu in range(GPUS)]
        at += dt.timedelta(seconds=10)
    return "\n".join(lines) + "\n"


def _ingest_utc(capsys, db: str, folder: Path):
    """``results ingest`` with the local zone UTC: the monitor's samples are the runner's local time."""
    try:
        with pytest.MonkeyPatch.context() as utc:
            utc.setenv("TZ", "UTC")
            time.tzset()
            return run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    finally:
        time.tzset()


def _stored(db: str) -> list[dict]:
    with store.open_store(db) as st:
        return st.records()


def _energies(db: str) -> dict:
    return {r[R.RESULT_FILENAME]: (r[R.METRICS].get(R.ENERGY_PER_OUTPUT_TOKEN_J), r[R.STARTED], r[R.FINISHED])
            for r in _stored(db)}


def _write(folder: Path, name: str, output: dict, sidecar: dict, csv: str) -> None:
    write_job(folder, name, output, sidecar)
    (folder / f"{name}.gpu_metrics.csv").write_text(csv)


def test_aiperf_energy_is_of_its_requests_not_of_the_server_start(tmp_path, capsys, monkeypatch):
    """AIPerf 0.8.0's real export (InferenceX, Kimi-K2.7 on MI355X TP4, conc 1): its first request
    went out at min_request_timestamp 1783588550633024512 ns (2026-07-09 09:15:50.633 UTC) and its
    last response came at max_response_timestamp 1783592093451634432 ns (10:14:53.452 UTC), 213,017
    output tokens. The job ran from 09:00 (server start, model loading at 100 W) to 10:20."""
    export = json.loads((SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json").read_text())
    row = KIMI
    sidecar = job(row=row, started="2026-07-09T09:00:00+00:00", finished="2026-07-09T10:20:00+00:00")
    day = dt.datetime(2026, 7, 9)
    csv = _monitor_csv(day.replace(hour=8, minute=59, second=50), day.replace(hour=10, minute=20, second=10),
                       day.replace(hour=9, minute=15, second=40), day.replace(hour=10, minute=15))
    no_ns = {k: v for k, v in export.items() if k not in ("min_request_timestamp", "max_response_timestamp")}
    zoned = {**no_ns, "start_time": "2026-07-09T11:15:50+02:00", "end_time": "2026-07-09T12:14:50+02:00"}
    folder = tmp_path / "in"
    _write(folder, "measured", export, sidecar, csv)
    _write(folder, "zoneless", no_ns, job(run_id="1002", row=row, **{k: sidecar["job"][k] for k in (R.STARTED,
                                                                                                    R.FINISHED)}), csv)
    _write(folder, "zoned", zoned, job(run_id="1003", row=row, **{k: sidecar["job"][k] for k in (R.STARTED,
                                                                                                R.FINISHED)}), csv)
    # its CSV export states the same two times ("Minimum Request Timestamp (ns)", ...)
    (folder / "csv.csv").write_bytes((SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.csv").read_bytes())
    _write(folder, "csv", None, job(run_id="1004", row=row, **{k: sidecar["job"][k] for k in (R.STARTED,
                                                                                             R.FINISHED)}), csv)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = _ingest_utc(capsys, db, folder)
    assert rc == 0, err
    got = _energies(db)
    tokens = 213017
    assert got["csv"][0] == pytest.approx(GPUS * SERVING_W * (1783592093.4516344 - 1783588550.6330245) / tokens)
    served = 1783592093.4516344 - 1783588550.6330245  # 3542.818... s, all of it at SERVING_W
    # the job's window 09:00:00-10:20:00: 100 W to 09:15:30, a ramp to 600 W at 09:15:40, 600 W to 10:15:00,
    # a ramp to 100 W at 10:15:10, 100 W to 10:20:00 (trapezoids between the 10 s samples)
    job_j = LOADING_W * 930 + (LOADING_W + SERVING_W) / 2 * 10 + SERVING_W * 3560 + (SERVING_W + LOADING_W) / 2 * 10 \
        + LOADING_W * 290
    assert got["measured"][0] == pytest.approx(GPUS * SERVING_W * served / tokens)
    assert got["zoned"][0] == pytest.approx(GPUS * SERVING_W * 3540 / tokens)  # 09:15:50Z to 10:14:50Z
    assert got["zoneless"][0] == pytest.approx(GPUS * job_j / tokens)  # start_time without a zone: the job's
    # what the record says of its run is the job's, as before
    assert {v[1:] for v in got.values()} == {("2026-07-09T09:00:00+00:00", "2026-07-09T10:20:00+00:00")}
    rc, out, err = _ingest_utc(capsys, db, folder)
    # the CSV export alone says nothing of whether its run finished (s31d): said when it was first stored, and
    # on this re-ingest counted, not repeated (s32b)
    assert rc == 0 and "(0 new)" in out and err == "", err
    assert "not repeated: 1 warning of a file whose results were stored before" in out, out


def test_a_result_stored_with_the_job_s_window_ingests_again_as_a_no_op(tmp_path, capsys, monkeypatch):
    """Stored results are immutable: one an older sweepgate stored with energy over the job's window
    is unchanged by a re-ingest that now integrates over the client's run (energy is derived)."""
    from sweepgate.results.formats import aiperf

    export = json.loads((SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json").read_text())
    day = dt.datetime(2026, 7, 9)
    csv = _monitor_csv(day.replace(hour=8, minute=59, second=50), day.replace(hour=10, minute=20, second=10),
                       day.replace(hour=9, minute=15, second=40), day.replace(hour=10, minute=15))
    _write(tmp_path / "in", "res", export, job(row=KIMI, started="2026-07-09T09:00:00Z",
                                               finished="2026-07-09T10:20:00Z"), csv)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    with monkeypatch.context() as older:
        older.setattr(aiperf, "client_window", lambda doc: None)
        assert _ingest_utc(capsys, db, tmp_path / "in")[0] == 0
    before = _stored(db)
    rc, out, err = _ingest_utc(capsys, db, tmp_path / "in")
    assert (rc, err) == (0, "") and "(0 new)" in out
    assert _stored(db) == before


def test_vllm_fork_energy_is_of_its_unix_window_and_without_it_of_the_job(tmp_path, capsys):
    """The InferenceX fork's real output (vLLM 0.22, gpt-oss-120b on H200 TP4, conc 8): its run went from
    benchmark_start_time_unix 1781129194.7337282 (2026-06-10 22:06:34.734 UTC) to _end_ 1781129269.3984735
    (22:07:49.398), 74,326 output tokens; its ``date`` (20260610-220749) is local time without a zone.
    The job ran from 21:55 (server start, model loading at 100 W) to 22:10."""
    real = ROOT / "tests" / "data" / "results-real" / "vllm" / "ifx_vllm0.22_gptoss120b_h200_tp4_conc8_start_end_unix.json"
    output = json.loads(real.read_text())
    stock = {k: v for k, v in output.items() if not k.endswith("_time_unix")}
    row = GPT_OSS
    times = {"started": "2026-06-10T21:55:00+00:00", "finished": "2026-06-10T22:10:00+00:00"}
    day = dt.datetime(2026, 6, 10)
    csv = _monitor_csv(day.replace(hour=21, minute=54, second=50), day.replace(hour=22, minute=10, second=10),
                       day.replace(hour=22, minute=6, second=20), day.replace(hour=22, minute=8))
    _write(tmp_path / "in", "fork", output, job(row=row, **times), csv)
    _write(tmp_path / "in", "stock", stock, job(run_id="1002", row=row, **times), csv)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = _ingest_utc(capsys, db, tmp_path / "in")
    assert rc == 0, err
    got = _energies(db)
    tokens = 74326
    served = 1781129269.3984735 - 1781129194.7337282  # 74.665 s, all of it at SERVING_W
    # the job's window 21:55:00-22:10:00: 100 W to 22:06:10, a ramp to 600 W at 22:06:20, 600 W to
    # 22:08:00, a ramp to 100 W at 22:08:10, 100 W to 22:10:00
    job_j = LOADING_W * 670 + (LOADING_W + SERVING_W) / 2 * 10 + SERVING_W * 100 + (SERVING_W + LOADING_W) / 2 * 10 \
        + LOADING_W * 110
    assert got["fork"][0] == pytest.approx(GPUS * SERVING_W * served / tokens)
    assert got["stock"][0] == pytest.approx(GPUS * job_j / tokens)
    assert {v[1:] for v in got.values()} == {(times["started"], times["finished"])}


def test_a_client_window_the_samples_do_not_cover_gives_no_energy(tmp_path, capsys):
    """The coverage rule holds for the client's window too: samples that stop before its run ended
    (more than COVER_SLACK_S short) give no energy, not one over part of the run."""
    real = ROOT / "tests" / "data" / "results-real" / "vllm" / "ifx_vllm0.22_gptoss120b_h200_tp4_conc8_start_end_unix.json"
    day = dt.datetime(2026, 6, 10)
    csv = _monitor_csv(day.replace(hour=21, minute=54, second=50), day.replace(hour=22, minute=7, second=30),
                       day.replace(hour=22, minute=6, second=20), day.replace(hour=22, minute=8))
    _write(tmp_path / "in", "fork", json.loads(real.read_text()),
           job(row=GPT_OSS, started="2026-06-10T21:55:00Z", finished="2026-06-10T22:07:30Z"), csv)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert _ingest_utc(capsys, db, tmp_path / "in")[0] == 0
    assert _energies(db)["fork"][0] is None
