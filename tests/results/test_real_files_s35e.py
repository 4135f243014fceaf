"""s35e hunt: more real outputs, each read right or refused by what it is, and an artifact folder's count.

An AIPerf run's artifact folder holds its server-metrics export twice, ``server_metrics_export.json`` and
``.csv`` (AIPerf 0.8+ with --server-metrics, as its developers' own smoke runs kept them), beside the run's
``profile_export_aiperf.json`` and ``.csv``. The walk took the server-metrics CSV for the run export's twin
(a CSV beside a JSON of the same name) and said so: "skipped 2 CSV files beside a JSON export of the same
name (the same run, read from the JSON)", though the folder held one run and its server metrics are no run
read from anything. A CSV beside a JSON that is one of AIPerf's other files is now no twin: it is looked at
as any file and counted with the files with no result. The files are real
(tests/data/results-real/SOURCES.tsv); the folder is laid out as AIPerf wrote it (dev/results/smoke-100k-conc-files)."""

from __future__ import annotations

import shutil

import pytest

from helpers import ROOT, file_records, no_ref_said, run_cli, show_json
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
SMOKE_JSON = "aiperf/aiperf0.8.0_smoke_mock_c100k_500kreq_18586_connrefused_trimmed.json"
SMOKE_CSV = "aiperf/aiperf0.8.0_smoke_mock_c100k_500kreq_18586_connrefused_sum_column.csv"
SERVER_JSON = "aiperf/aiperf0.8.0_server_metrics_export_json_smoke_c100k_trimmed.json"
SERVER_CSV = "aiperf/aiperf0.8_server_metrics_export_trimmed.csv"
READY = "aiperf/aiperf0.8.0_smoke_c100k_results_ready_marker_not_cancelled.json"
# the name AIPerf gives each in the run's artifact folder
LAYOUT = {SMOKE_JSON: "profile_export_aiperf.json", SMOKE_CSV: "profile_export_aiperf.csv",
          SERVER_JSON: "server_metrics_export.json", SERVER_CSV: "server_metrics_export.csv",
          READY: ".aiperf_results_ready.json"}
NO_RESULT = ("files with no result (GPU metrics, lm-eval samples logs, AIPerf's and GenAI-Perf's other exports: "
             "files that go beside one)")
TWINS = "beside a JSON export of the same name (the same run, read from the JSON)"


def _artifact_folder(tmp_path):
    folder = tmp_path / "smoke-100k-conc-files"
    folder.mkdir()
    for rel, name in LAYOUT.items():
        shutil.copyfile(REAL / rel, folder / name)
    return folder


def test_a_server_metrics_csv_beside_its_json_is_no_run_read_from_the_json(capsys, tmp_path):
    folder = _artifact_folder(tmp_path)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--verbose", "--db", db, str(folder))
    assert (rc, no_ref_said(err)) == (0, ""), (out, err)
    lines = out.splitlines()
    assert f"skipped 1 CSV file {TWINS}" in lines, out
    assert f"skipped 3 {NO_RESULT}" in lines, out
    assert f"skipped {folder / 'server_metrics_export.csv'}" in lines, out
    assert lines[-1].startswith("ingested 1 results (1 new)"), out
    (rec,) = show_json(capsys, db)
    assert rec[R.RESULT_FILENAME] == "profile_export_aiperf.json" and rec[R.METRICS][R.COMPLETED] == 481414


def test_the_run_export_csv_is_still_its_json_s_twin_where_no_server_metrics_are_beside_it(capsys, tmp_path):
    folder = _artifact_folder(tmp_path)
    (folder / "server_metrics_export.json").unlink()
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert (rc, no_ref_said(err)) == (0, ""), (out, err)
    assert f"skipped 1 CSV file {TWINS}" in out.splitlines() and f"skipped 2 {NO_RESULT}" in out.splitlines(), out


# s35e: the other real outputs tried this session, read right; figures checked by hand against the files.
def _one(rel: str) -> dict:
    (rec,) = file_records(REAL, rel)
    return rec


def test_an_aiperf_run_of_100k_concurrency_with_connection_refusals_counts_them_failed():
    rec = _one(SMOKE_JSON)
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.ISL], rec[R.OSL], rec[R.STATUS]) == (100000, 128, 128, "success")
    # 481,414 completed and 18,586 refused connections: the 500,000 the phase sent
    assert (m[R.COMPLETED], m[R.FAILED], m[R.SUCCESS_RATE]) == (481414, 18586, pytest.approx(481414 / 500000))
    assert (m[R.DURATION_S], m[R.REQUEST_THROUGHPUT]) == (141.58332399600002, 3400.2168222410205)
    # inter_token_latency is the per-request decode time (TPOT), inter_chunk_latency the gaps (ITL)
    assert (m["tpot_p50_ms"], m["itl_p50_ms"], m["itl_p99_ms"]) == (46.22239606, 0, 54.688316235362805)


def test_its_csv_export_with_a_sum_column_reads_the_same_figures_to_two_decimals():
    csv, js = _one(SMOKE_CSV)[R.METRICS], _one(SMOKE_JSON)[R.METRICS]
    assert (csv[R.COMPLETED], csv[R.FAILED], csv[R.TOTAL_OUTPUT_TOKENS]) == (481414, 18586, 48622814)
    for name in ("ttft_p50_ms", "tpot_p99_ms", "e2el_mean_ms", R.REQUEST_THROUGHPUT, R.DURATION_S):
        assert csv[name] == pytest.approx(js[name], abs=0.006), name


def test_a_documented_aiperf_run_whose_every_request_timed_out_is_a_failure():
    rec = _one("aiperf/aiperf2026-01_doc_failed_run_all_5_timeouts_records_error_count_only.json")
    assert (rec[R.STATUS], rec[R.CONC], rec[R.MODEL], rec[R.ISL], rec[R.OSL]) == ("failure", 1, "test-model", 100, 50)
    assert rec[R.METRICS] == {R.COMPLETED: 0, R.FAILED: 5, R.SUCCESS_RATE: 0}


def test_a_vllm_warm_up_of_one_request_is_a_run_of_one_request():
    rec = _one("vllm/vllmbench2026_glm5.2_w4a16_warmup_1prompt_4k_16out_c1_complete.json")
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.MODEL], m[R.COMPLETED], m[R.TOTAL_OUTPUT_TOKENS]) == (1, "glm52-w4a16", 1, 16)
    assert (m["ttft_p50_ms"], m["tpot_p50_ms"], m["itl_p50_ms"]) == (3254.481003037654, 26.60278060163061,
                                                                  26.83414099738002)
    assert m["itl_p90_ms"] == pytest.approx(27.073486987501383)  # from its one request's 15 gaps


def test_a_csv_export_beside_a_ready_marker_of_a_run_not_cancelled_is_warned_of_in_what_the_marker_says(capsys,
                                                                                                     tmp_path):
    """The marker says was_cancelled (false here): the warning said was_cancelled was "in its JSON export only"."""
    folder = _artifact_folder(tmp_path)
    for name in ("profile_export_aiperf.json", "server_metrics_export.json", "server_metrics_export.csv"):
        (folder / name).unlink()
    csv = folder / "profile_export_aiperf.csv"
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert no_ref_said(err).splitlines() == [
        f"{csv}:1:1: warning: an AIPerf CSV export does not say whether its run finished (its ready marker beside it "
        "says it was not cancelled, and is_complete is in its JSON export only, none of its name beside it); "
        "stored as a finished run; ingest the run's profile_export_aiperf.json, from the same artifact folder, instead"]


def test_an_inferencex_run_s_aggregates_under_benchmarks_and_evaluations_are_refused_as_what_they_are(capsys,
                                                                                                       tmp_path):
    """InferenceX-app keeps a TPU sweep's artifacts as {benchmarks: [process_result.py rows], evaluations: [eval
    rows]}: it was refused as "unknown JSON output", though each row alone is refused as the aggregate it is."""
    from helpers import refused_alone

    src, lines = refused_alone(
        capsys, tmp_path, REAL / "inferencex/ifx_app_tpu_manual_sweep_benchmarks_and_evaluations_qwen3.5_tpuv7_1plus1_trimmed.json")
    assert lines == [
        f"{src}:1:1: format: an InferenceX run's aggregates ({{benchmarks: [...], evaluations: [...]}}: "
        "process_result.py rows, latencies in seconds, request counts dropped, and eval rows), not one job's output; "
        "ingest the client's raw output it was built from (the job's $RESULT_FILENAME.json)"]
