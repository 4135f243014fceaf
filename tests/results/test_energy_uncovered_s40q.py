"""s40q: GPU samples beside a job's outputs that give no energy per output token say why.

Energy is integrated only where the samples cover the window (``gpu_metrics.COVER_SLACK_S`` of each edge); a
monitor that started after the server, stopped before the client, lost one GPU's samples midway, or whose
times are in another zone than the outputs' (amd-smi writes Unix seconds, AIPerf its ``start_time`` in the
runner's local time without a zone, read in the zone of the machine that ingests) left the records without
energy and said nothing. One warning at the samples file now says what the samples cover and when the job ran,
naming the outputs, once however many outputs are beside the file; a gap of a whole number of quarter hours
that moves the job into the samples says the clocks may be in different zones. An output that states no
window at all (stock vLLM's ``date`` alone, no job sidecar) says so in that warning too, and samples none of
whose times can be read are refused in one line.

rocm-smi's MI250 samples whose secondary die has a reading now and then: that die is a secondary die (its
package's draw is its primary's reading), so its readings are left out; before, a job on all the node's GCDs
counted them on top of the packages' (card7's 500 W on top of four packages' 2000 W).
"""

from __future__ import annotations

import datetime as dt
import json
import time

import pytest

from helpers import ROOT, ROW, SAMPLES, job, no_ref_said, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from test_gpu_metrics_said_s39g import MI250_HEADER, SECONDARY
from test_gpu_power_columns_s38j import _amd_time

DAY = dt.datetime(2026, 1, 1)
REAL_GPU = ROOT / "tests" / "data" / "results-real" / "gpu"
NODE = 8


def _nvidia_smi(begin: dt.datetime, end: dt.datetime, gpus: int = NODE, stop: dict | None = None) -> str:
    """benchmark_lib.sh's nvidia-smi samples (``timestamp, index, power.draw [W]``, local time without a zone)
    every 10 s from ``begin`` to ``end``; ``stop``: GPU -> the time its samples stop (a GPU fallen off the bus)."""
    lines, at = ["timestamp, index, power.draw [W], power.limit [W]"], begin
    while at <= end:
        lines += [f"{at:%Y/%m/%d %H:%M:%S}.{gpu * 3:03d}, {gpu}, 500.00 W, 1000.00 W" for gpu in range(gpus)
                  if not stop or gpu not in stop or at <= stop[gpu]]
        at += dt.timedelta(seconds=10)
    return "\n".join(lines) + "\n"


def _ingest(folder, capsys, samples: str, outputs: dict, tz: str | None = None) -> tuple[int, str, list[dict]]:
    """Ingest ``outputs`` (name -> (output, sidecar or None)) beside one plain gpu_metrics.csv of ``samples``,
    in the local zone ``tz`` (the tests' UTC when None): (exit code, stderr, the records). An output without a
    sidecar is stored on no ref, which one line says: stderr is without it."""
    for name, (output, side) in outputs.items():
        write_job(folder, name, output, side)
    (folder / "gpu_metrics.csv").write_text(samples)
    db = f"sqlite:///{folder / 'r.db'}"
    try:
        with pytest.MonkeyPatch.context() as zone:
            zone.setenv("TZ", tz or "UTC")
            time.tzset()
            rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    finally:
        time.tzset()
    bare = any(side is None for _, side in outputs.values())
    return rc, no_ref_said(err) if bare else err, show_json(capsys, db)


def _three() -> dict:
    """A job's three outputs (conc 4, 8, 16) from 11:58:00 to 12:00:00 UTC (helpers.job's window)."""
    return {name: (vllm_output(conc), job(row={**ROW, "conc": conc})) for name, conc in (("a", 4), ("b", 8), ("c", 16))}


def _one_warning(err: str, folder) -> str:
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{folder / 'gpu_metrics.csv'}:1: warning: no energy per output token: "), line
    return line


@pytest.mark.parametrize("begin, end, covers, fix", [
    (DAY.replace(hour=11, minute=59, second=5), DAY.replace(hour=12, minute=1), "11:59:05–12:00:55",
     "start the GPU monitor before the server"),
    (DAY.replace(hour=11, minute=57, second=30), DAY.replace(hour=11, minute=59, second=10), "11:57:30–11:59:10",
     "stop the GPU monitor after the client"),
])
def test_samples_that_start_late_or_stop_early_say_so_once_naming_the_outputs(tmp_path, capsys, begin, end,
                                                                               covers, fix):
    rc, err, recs = _ingest(tmp_path, capsys, _nvidia_smi(begin, end), _three())
    assert rc == 0 and len(recs) == 3 and all(R.ENERGY_PER_OUTPUT_TOKEN_J not in r[R.METRICS] for r in recs), err
    line = _one_warning(err, tmp_path)
    assert f"the samples cover {covers}" in line and "the job ran 11:58:00–12:00:00" in line, line
    assert "(a.json, b.json, c.json; times in UTC)" in line and fix in line, line
    assert "zone" not in line.split("times in UTC")[1], line


def test_one_gpu_whose_samples_stop_early_is_named(tmp_path, capsys):
    samples = _nvidia_smi(DAY.replace(hour=11, minute=57, second=50), DAY.replace(hour=12, minute=0, second=10),
                          stop={3: DAY.replace(hour=11, minute=59)})
    rc, err, recs = _ingest(tmp_path, capsys, samples, _three())
    assert rc == 0 and all(R.ENERGY_PER_OUTPUT_TOKEN_J not in r[R.METRICS] for r in recs), err
    line = _one_warning(err, tmp_path)
    assert "the samples of all 8 GPUs cover 11:57:50–11:59:00 (GPU 3's stop at 11:59:00" in line, line
    assert "the job ran 11:58:00–12:00:00" in line and "what became of GPU 3" in line, line


def test_covered_outputs_beside_uncovered_ones_are_not_named(tmp_path, capsys):
    outputs = _three()
    outputs["c"] = (vllm_output(16), job(row={**ROW, "conc": 16}, started="2026-01-01T12:00:00+00:00",
                                         finished="2026-01-01T12:03:00+00:00"))
    samples = _nvidia_smi(DAY.replace(hour=11, minute=57, second=50), DAY.replace(hour=12, minute=0, second=10))
    rc, err, recs = _ingest(tmp_path, capsys, samples, outputs)
    got = {r[R.RESULT_FILENAME]: R.ENERGY_PER_OUTPUT_TOKEN_J in r[R.METRICS] for r in recs}
    assert rc == 0 and got == {"a": True, "b": True, "c": False}, err
    line = _one_warning(err, tmp_path)
    assert "the job ran 12:00:00–12:03:00 (c.json; times in UTC)" in line, line


AIPERF = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json"


def _amd_smi(begin: dt.datetime, end: dt.datetime, gpus: int = 4) -> str:
    """amd-smi ``metric -p -w``'s samples (Unix seconds) every 10 s from ``begin`` to ``end`` (UTC)."""
    lines, at = ["timestamp,gpu,socket_power"], begin
    while at <= end:
        lines += [f"{_amd_time(at)},{gpu},600" for gpu in range(gpus)]
        at += dt.timedelta(seconds=10)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("tz, apart", [("PST+8", "8 h"), ("IST-5:30", "5 h 30 min")])
def test_unix_samples_beside_zoneless_client_times_read_in_another_zone_say_the_clocks_may_differ(
        tmp_path, capsys, tz, apart):
    """The real AIPerf export (an MI355X job in UTC: start_time 2026-07-09T09:15:47.824596, local time without a
    zone) without its Unix ns stamps, beside amd-smi's samples in Unix seconds from 09:15:30 to 10:16:30 UTC,
    ingested on a machine in California (or India): its start_time read as 17:15:47 UTC (03:45:47)."""
    export = json.loads(AIPERF.read_text(encoding="utf-8"))
    zoneless = {k: v for k, v in export.items() if k not in ("min_request_timestamp", "max_response_timestamp")}
    utc = dt.timezone.utc
    samples = _amd_smi(dt.datetime(2026, 7, 9, 9, 15, 30, tzinfo=utc), dt.datetime(2026, 7, 9, 10, 16, 30, tzinfo=utc))
    rc, err, recs = _ingest(tmp_path, capsys, samples, {"profile_export_aiperf": (zoneless, None)}, tz=tz)
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
    line = _one_warning(err, tmp_path)
    assert "the job ran 09:15:47–10:16:17 (profile_export_aiperf.json; times in UTC" in line, line
    assert f"{apart} apart" in line and "different zones" in line, line
    # in the runner's zone, the same files give the energy, without a word
    rc, err, recs = _ingest(tmp_path / "utc", capsys, samples, {"profile_export_aiperf": (zoneless, None)})
    assert (rc, err) == (0, "") and R.ENERGY_PER_OUTPUT_TOKEN_J in recs[0][R.METRICS]


def test_real_samples_with_an_offset_beside_a_sidecar_written_in_local_time_without_one(tmp_path, capsys):
    """The real 8-GPU monitor file whose times carry +08:00 (17:26:50 to 17:26:58, 09:26:50Z to 09:26:58Z; every GPU to :56), beside
    a job whose sidecar wrote the same clock's times without the zone (``date +%Y-%m-%dT%H:%M:%S``, no ``-u``),
    ingested on a machine in UTC: the job is read as 17:26:50Z, 8 hours after the samples."""
    side = job(row={**ROW, "tp": 8}, started="2025-09-08T17:26:51", finished="2025-09-08T17:26:57")
    samples = (REAL_GPU / "nvidia-smi_8gpu_gpu_and_index_columns_index_all_zero_iso_tz.csv").read_text()
    rc, err, recs = _ingest(tmp_path, capsys, samples, {"res": (vllm_output(), side)})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
    line = _one_warning(err, tmp_path)
    assert "the samples cover 09:26:50–09:26:56, the job ran 17:26:51–17:26:57 (res.json; times in UTC): 8 h apart" \
        in line and "different zones" in line, line
    # the sidecar's times with their zone: the energy, without a word
    side = job(row={**ROW, "tp": 8}, started="2025-09-08T17:26:51+08:00", finished="2025-09-08T17:26:57+08:00")
    rc, err, recs = _ingest(tmp_path / "zoned", capsys, samples, {"res": (vllm_output(), side)})
    assert (rc, err) == (0, "") and R.ENERGY_PER_OUTPUT_TOKEN_J in recs[0][R.METRICS]


def test_an_output_with_no_window_beside_samples_says_so(tmp_path, capsys):
    """Stock vLLM's real output (its ``date`` alone, local time: no start) with no job sidecar."""
    output = (SAMPLES / "vllm" / "vllm0.8_llama3.3-70b_a100x8_tp8_sharegpt_qps_inf.json").read_text()
    samples = _nvidia_smi(DAY.replace(hour=11, minute=57, second=50), DAY.replace(hour=12, minute=0, second=10))
    rc, err, recs = _ingest(tmp_path, capsys, samples, {"res": (output, None)})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
    line = _one_warning(err, tmp_path)
    assert "res.json states no start of its run" in line and "sidecar" in line, line


def test_a_job_that_finished_when_it_started_says_so(tmp_path, capsys):
    """A sidecar whose started and finished are one time (a step that wrote both at its end): an empty window."""
    samples = _nvidia_smi(DAY.replace(hour=11, minute=57, second=50), DAY.replace(hour=12, minute=0, second=10))
    side = job(started="2026-01-01T12:00:00+00:00", finished="2026-01-01T12:00:00+00:00")
    rc, err, recs = _ingest(tmp_path, capsys, samples, {"res": (vllm_output(), side)})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
    line = _one_warning(err, tmp_path)
    assert "res.json states a run that ends no later than it starts" in line and "started and finished" in line


def test_samples_none_of_whose_times_are_read_are_refused_in_one_line(tmp_path, capsys):
    """A monitor loop of its own, ``echo "$(date),$(nvidia-smi --query-gpu=index,power.draw ...)"``."""
    lines = ["timestamp,index,power.draw [W]"]
    lines += [f"Thu Jan  1 11:{57 + s // 60}:{s % 60:02d} UTC 2026,{g},500.00 W" for s in range(50, 131, 10)
              for g in range(NODE)]
    rc, err, recs = _ingest(tmp_path, capsys, "\n".join(lines) + "\n", _three())
    assert rc == 0 and all(R.ENERGY_PER_OUTPUT_TOKEN_J not in r[R.METRICS] for r in recs), err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{tmp_path / 'gpu_metrics.csv'}:2: warning: no energy per output token: "), line
    assert "'Thu Jan  1 11:57:50 UTC 2026'" in line and "no time" in line, line


def _rocm_smi(cell) -> str:
    """A monitor's rocm-smi ``--showpower --csv`` every 10 s of an MI250 node's 8 GCDs from 11:57:30 to 12:00:30."""
    lines = [MI250_HEADER]
    for second in range(0, 181, 10):
        at = _amd_time(DAY.replace(hour=11, minute=57, second=30, tzinfo=dt.timezone.utc)
                       + dt.timedelta(seconds=second))
        lines += [f"{at},card{card},{cell(card, second)}" for card in range(NODE)]
    return "\n".join(lines) + "\n"


def _read_now_and_then(card: int, second: int) -> str:
    """card7, a secondary die, has a reading at some rounds."""
    return "500.0" if card % 2 == 0 or (card == 7 and second % 30 == 0) else SECONDARY


@pytest.mark.parametrize("tp, packages", [(8, 4), (4, 2)])
def test_a_secondary_die_s_readings_now_and_then_are_not_counted_on_top_of_its_package(tmp_path, capsys, tp,
                                                                                       packages):
    rc, err, recs = _ingest(tmp_path, capsys, _rocm_smi(_read_now_and_then), {"a": (vllm_output(), job(row={
        **ROW, "tp": tp}))})
    assert (rc, err) == (0, "")
    tokens = vllm_output()["total_output_tokens"]
    assert recs[0][R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(packages * 500 * 120 / tokens)
