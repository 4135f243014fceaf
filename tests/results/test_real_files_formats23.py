"""formats23 hunt: real outputs sweepgate read right, pinned so they stay right
(tests/data/results-real/SOURCES.tsv names each file's repository, path and commit)."""

from __future__ import annotations

import pytest

from helpers import ROOT, file_records
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
C768 = "aiperf/aiperf0.11_qwen3-4b_g7_c768_duration300_goodput_no_isl_trimmed.json"

# (field or metric, value as the file states it)
PINNED = [
    (R.CLIENT, "aiperf"), (R.CLIENT_VERSION, "0.11.0"), (R.CONC, 768), (R.MODEL, "qwen3-4b"),
    # start_time/end_time as written: AIPerf's local time without a zone, and no Unix time to tell it by (s39i)
    (R.STATUS, "success"), (R.STARTED, "2026-09-30T17:54:22.705066"),
    (R.FINISHED, "2026-09-30T17:59:22.742370"),
    # request_count 5097; no error_request_count and an empty error_summary: none failed
    (R.COMPLETED, 5097), (R.FAILED, 0), (R.SUCCESS_RATE, 1),
    (R.DURATION_S, 299.938114992), (R.REQUEST_THROUGHPUT, 16.993505477408057),
    (R.OUTPUT_THROUGHPUT, 4520.149098210346), (R.TOTAL_OUTPUT_TOKENS, 1355765),
    ("request_goodput", 0.6434660696762321),
    ("ttft_p50_ms", 29197.660351), ("ttft_p99_ms", 33315.87746644), ("ttft_mean_ms", 27198.160197975474),
    ("tpot_p50_ms", 53.7641742173913), ("e2el_p99_ms", 72855.52301572),
]


@pytest.mark.parametrize(("name", "want"), PINNED, ids=[n for n, _ in PINNED])
def test_aiperf_duration_sweep_top_point_is_stored_as_written(name, want):
    (rec,) = file_records(REAL, C768)
    got = rec[name] if name in rec else rec[R.METRICS][name]
    assert got == pytest.approx(want) if isinstance(want, float) else got == want


def test_aiperf_without_input_token_counts_stores_none_rather_than_zero():
    """The run read prompts from an inputs_json file and wrote no input_sequence_length or total_isl:
    its input tokens and input throughput are unknown, not 0, and its total token throughput is not
    made up from the output alone."""
    (rec,) = file_records(REAL, C768)
    for name in (R.TOTAL_INPUT_TOKENS, R.INPUT_THROUGHPUT, R.TOTAL_TOKEN_THROUGHPUT):
        assert name not in rec[R.METRICS]
