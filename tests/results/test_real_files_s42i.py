"""s42i hunt: GenAI-Perf CSV exports as its exporter writes them (tests/data/results-exporter/SOURCES.tsv, "s42i hunt":
the exact bytes triton-inference-server/perf_analyzer's own exporter test expects from genai-perf's CsvExporter).

Two shapes were refused as edited files. With GPU telemetry collected (a Triton server's metrics or DCGM), the
export ends in per-GPU tables, ``Metric,GPU,avg,...`` and ``Metric,GPU,Value``, one row per metric and GPU: the
reader took them as run metrics and refused the GPU column's 'gpu0' as no number. And a statistic GenAI-Perf could
not compute (a reasoning model's tokens it cannot count, a metric it has no data for) is written ``N/A``: refused as
no number, where a blank cell, the same absence, is read as absent. The run's tables are now read, the per-GPU
tables passed over as AIPerf's GPU telemetry table is, and an ``N/A`` statistic left out as a blank one is.

GenAI-Perf's 2024 exporter wrote those per-GPU tables as a file of their own, ``<export>_telemetry.csv``: it was read
as an export and refused (no throughput, no count); it is now passed over as a file beside a result.

And a ``--goodput`` objective naming no metric GenAI-Perf measures (``request_latenC:100``) makes its goodput
calculator's INVALID_GOODPUT, -1, the run's ``Request Goodput (per sec)`` (``request_goodput.avg`` in the JSON
export): the whole run was refused as corrupt (a negative throughput). The goodput is now left out with a warning
saying why, and the run stored."""

from __future__ import annotations

import json

from helpers import ROOT, SAMPLES, file_records, run_cli
from sweepgate.results import record as R

EXPORTER = ROOT / "tests" / "data" / "results-exporter"  # an exporter test's bytes: its figures are no run's
TELEMETRY = "aiperf/genaiperf_exporter-expected_csv_gpu_telemetry_tables_metric_gpu_value.csv"
MISSING = "aiperf/genaiperf_exporter-expected_csv_missing_stats_n_a_cells.csv"
BAD_GOODPUT = "aiperf/genaiperf_exporter-expected_csv_invalid_goodput_slo_minus_one.csv"
GOODPUT_SAID = ("GenAI-Perf's mark of a --goodput objective naming no metric it measures; stored without a goodput; "
                "name metrics GenAI-Perf measures in --goodput")


def test_per_gpu_telemetry_tables_are_passed_over_and_the_run_s_tables_read():
    (rec,) = file_records(EXPORTER, TELEMETRY)
    assert (rec[R.CLIENT], rec[R.SOURCE_FORMAT], rec[R.STATUS]) == ("genai-perf", "genai-perf-csv", "success")
    m = rec[R.METRICS]
    assert (m["ttft_mean_ms"], m["ttft_p50_ms"], m["ttft_p99_ms"]) == (8.0, 8.0, 8.98)
    assert (m["e2el_p50_ms"], m["tpot_p50_ms"]) == (5.0, 11.0)  # GenAI-Perf's inter token latency is the TPOT
    assert (m[R.OUTPUT_THROUGHPUT], m[R.REQUEST_THROUGHPUT], m[R.COMPLETED]) == (456.0, 123.0, 3)
    # the run's latencies, rates and count alone: nothing of the GPU tables (power, energy, memory) became a figure
    stats = ("mean", "min", "max", "p25", "p50", "p75", "p90", "p95", "p99")
    assert set(m) == {f"{lat}_{st}_ms" for lat in ("ttft", "tpot", "e2el") for st in stats} | {
        R.COMPLETED, R.OUTPUT_THROUGHPUT, R.REQUEST_THROUGHPUT, R.INTERACTIVITY}


def test_n_a_statistics_are_absent_as_blank_cells_are():
    (rec,) = file_records(EXPORTER, MISSING)
    m = rec[R.METRICS]
    assert "e2el_mean_ms" not in m  # "Request Latency (ms),N/A,..."
    assert (m["e2el_min_ms"], m["e2el_p50_ms"], m["e2el_p99_ms"]) == (4.0, 5.0, 5.98)
    assert (m[R.OUTPUT_THROUGHPUT], m[R.REQUEST_THROUGHPUT], m[R.COMPLETED]) == (456.0, 123.0, 3)


def test_both_exports_are_stored(capsys, tmp_path):
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                           str(EXPORTER / TELEMETRY), str(EXPORTER / MISSING))
    assert rc == 0 and "ingested 2 results (2 new)" in out, (out, err)
    assert "is not a number" not in err, err


def test_genai_perf_s_own_telemetry_csv_is_passed_over_as_a_file_beside_a_result(capsys, tmp_path):
    tables = (EXPORTER / TELEMETRY).read_bytes()
    telemetry = tmp_path / "profile_export_telemetry.csv"  # its per-GPU tables alone, as the 2024 exporter wrote them
    telemetry.write_bytes(tables[tables.index(b"Metric,GPU,"):])
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(telemetry))
    assert (rc, err) == (0, ""), (out, err)
    assert "skipped 1 file with no result" in out, out


def test_an_invalid_goodput_objective_s_minus_one_is_no_goodput_and_the_run_is_stored(capsys, tmp_path):
    (rec,) = file_records(EXPORTER, BAD_GOODPUT)
    m = rec[R.METRICS]
    assert R.REQUEST_GOODPUT not in m and (m[R.REQUEST_THROUGHPUT], m[R.COMPLETED]) == (123.0, 3)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(EXPORTER / BAD_GOODPUT))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert f"{EXPORTER / BAD_GOODPUT}:13:27: warning: Request Goodput (per sec).avg: -1.0, {GOODPUT_SAID}" in err, err


def test_the_json_export_s_minus_one_goodput_alike(capsys, tmp_path):
    doc = json.loads((SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc10.json").read_text())
    doc["request_goodput"] = {"unit": "requests/sec", "avg": -1.0}  # as GenAI-Perf's JsonExporter writes its stats
    path = tmp_path / "profile_export_genai_perf.json"
    path.write_text(json.dumps(doc, indent=4))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert f"warning: request_goodput.avg: -1.0, {GOODPUT_SAID}" in err, err
