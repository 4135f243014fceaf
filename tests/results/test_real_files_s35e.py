"""s35e hunt: more real outputs, each read right or refused by what it is.

The files are real (tests/data/results-real/SOURCES.tsv); their figures were checked by hand."""

from __future__ import annotations

import pytest

from helpers import ROOT, file_records
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
SMOKE_JSON = "aiperf/aiperf0.8.0_smoke_mock_c100k_500kreq_18586_connrefused_trimmed.json"
SMOKE_CSV = "aiperf/aiperf0.8.0_smoke_mock_c100k_500kreq_18586_connrefused_sum_column.csv"


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
