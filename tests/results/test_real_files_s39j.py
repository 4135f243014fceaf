"""s39j hunt: more real outputs (tests/data/results-real/SOURCES.tsv, "s39j hunt"), each read right; the figures
below were checked by hand against the files. None of these needed a change.

An lm-eval 0.3 file of reading-comprehension tasks (drop's and coqa's em and f1, race's acc, no filter, no
sample counts or date) and an lm-eval 0.4 file of February 2025 whose model is a local checkpoint path in
model_args, lambada's perplexity beside its accuracy. Refused with one line each (test_real_files.py's REFUSED):
a fork's dashboard data, a list of one process_result.py aggregate, and an SGLang MoE kernel benchmark's
per-rank batch layout trace."""

from __future__ import annotations

import pytest

from helpers import ROOT, file_records
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
READING = "lm_eval/lmeval0.3_bloom-1b1_reading_comprehension_drop_coqa_race_0shot.json"
RWKV = "lm_eval/lmeval2025-02_rwkv7-1.5b-fla_lambada_local_path_model_args.json"


def _scores(rec: dict) -> list[tuple]:
    return [(e[R.EVAL_TASK], e[R.EVAL_METRIC], e[R.EVAL_FILTER], e[R.EVAL_VALUE], e[R.EVAL_STDERR], e[R.EVAL_SAMPLES])
            for e in rec[R.EVALS]]


def test_lm_eval_0_3_reading_comprehension_scores_each_with_its_stderr():
    (rec,) = file_records(REAL, READING)
    assert (rec[R.SOURCE_FORMAT], rec[R.MODEL], rec[R.STATUS]) == ("lm-eval-results", "bigscience/bloom-1b1",
                                                                   "success")
    assert _scores(rec) == [
        ("drop", "em", "none", 0.03313758389261745, 0.0018330841858875643, None),
        ("drop", "f1", "none", 0.08634542785234882, 0.0022136353860709133, None),
        ("coqa", "f1", "none", 0.4557083534540516, 0.01876948425119881, None),
        ("coqa", "em", "none", 0.3298333333333334, 0.019473215823053027, None),
        ("race", "acc", "none", 0.3263157894736842, 0.014510987877134932, None)]
    assert (rec[R.STARTED], rec[R.FINISHED]) == (None, None)  # 0.3 wrote no date


def test_lm_eval_2025_local_checkpoint_with_perplexity_lower_is_better():
    (rec,) = file_records(REAL, RWKV)
    # model_args' pretrained=..., the checkpoint's path as written (no hub id to take instead)
    assert rec[R.MODEL] == "/workspace/RWKV-block/test/v7_goose/.hf_build/v7-1B5-world/"
    assert _scores(rec) == [
        ("lambada_openai", "perplexity", "none", 4.256701720453929, 0.09168609474642021, 5153),
        ("lambada_openai", "acc", "none", 0.6865903357267611, 0.006462746304240018, 5153)]
    assert [e.get(R.EVAL_HIGHER) for e in rec[R.EVALS]] == [False, True]
    # date 1740513272.98 (Unix time) is the start, "163.31..." seconds its length
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2025-02-25T19:54:32+00:00", "2025-02-25T19:57:16+00:00")


GENAI_PERF_CLI = "aiperf/genaiperf2025_cli_gptoss20b_c1_count66_of_request_count100_ttst.json"


def test_genai_perf_cli_layout_counts_what_it_measured_and_makes_no_success_rate_of_its_setting():
    """GenAI-Perf measured 66 requests of its --request-count 100 and states no error count: the 66 are the run's
    completed requests, and no success rate (66 %) is made of the setting, which counts no failures."""
    (rec,) = file_records(REAL, GENAI_PERF_CLI)
    assert (rec[R.CLIENT], rec[R.SOURCE_FORMAT], rec[R.CONC], rec[R.MODEL], rec[R.STATUS]) == (
        "genai-perf", "genai-perf-json", 1, "openai/gpt-oss-20b", "success")
    m = rec[R.METRICS]
    assert m[R.COMPLETED] == 66 and R.SUCCESS_RATE not in m and R.FAILED not in m
    assert (m[R.REQUEST_THROUGHPUT], m[R.OUTPUT_THROUGHPUT]) == (0.31455262548511714, 25.824770552328115)
    assert (m["ttft_p50_ms"], m["e2el_p99_ms"], m["ttft_min_ms"]) == (2088.661403, 4895.851983649999, 498.821443)
    # its inter_token_latency is the TPOT (GenAI-Perf's per-request (latency - TTFT) / (tokens - 1))
    assert m["tpot_p50_ms"] == 7.0842575 and m[R.INTERACTIVITY] == pytest.approx(1000 / 7.0842575)
