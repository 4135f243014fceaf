"""s38c hunt: more real outputs (tests/data/results-real/SOURCES.tsv, "s38c hunt"), each read right or
refused by what it is; the figures below were checked by hand against the files.

None of them needed a change: they pin what a later change must keep. An SGLang bench_serving line of a
VLM run (dataset "image", vision tokens counted among the input tokens, a peak of 3 requests in flight
over a cap of 1), an lm-eval task whose one score is a perplexity (lower is better, stderr "N/A", the task
under an alias of its own), and a study's digest of SGLang runs in SGLang's key names, refused."""

from __future__ import annotations

import pytest

from helpers import ROOT, file_records, no_ref_said, run_cli
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
VLM = "sglang/sglang_dev2026_qwen3-vl-8b_image_dataset_vision_tokens_c1_peak3_trimmed.jsonl"
PERPLEXITY = "lm_eval/lmeval0.4.3dev_benczechmark_essay_word_perplexity_only_task_alias_trimmed.json"
DIGEST = "other/slo-sched_summary_sglang_key_names_no_token_totals_2lines.jsonl"


def test_an_sglang_vlm_run_s_line_is_read_as_written():
    """Its 20500 input tokens are 2860 of text and 17640 of images: the input rate is of all of them."""
    (rec,) = file_records(REAL, VLM)
    assert (rec[R.SOURCE_FORMAT], rec[R.CLIENT_VERSION], rec[R.CONC], rec[R.REQUEST_RATE], rec[R.STATUS]) == (
        "sglang-bench-serving", "0.0.0.dev1+gda802ddca", 1, "inf", "success")
    assert rec[R.MODEL].endswith("/models--Qwen--Qwen3-VL-8B-Instruct/snapshots/0c351dd01ed87e9c1b53cbc748cba10e6187ff3b")
    m = rec[R.METRICS]
    assert (m[R.COMPLETED], m[R.TOTAL_INPUT_TOKENS], m[R.TOTAL_OUTPUT_TOKENS]) == (20, 20500, 2560)
    assert (m["ttft_p50_ms"], m["tpot_p50_ms"], m["itl_p95_ms"], m["e2el_p90_ms"]) == (
        141.24508225359023, 5.649911826403121, 6.427247682586309, 907.6975568197669)
    assert m[R.OUTPUT_THROUGHPUT] == 146.64354289050442 and m[R.INPUT_THROUGHPUT] == 1174.2939958028674
    assert m[R.INTERACTIVITY] == pytest.approx(1000 / 5.649911826403121)


def test_the_vlm_line_is_stored_without_a_word(capsys, tmp_path):
    """One request at a time, 20 of them: a peak of 3 in flight (max_concurrent_requests, the client's own
    count, which overlaps a request's last chunk with the next one's start) is no cap unfilled or broken."""
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(REAL / VLM))
    assert (rc, no_ref_said(err)) == (0, "") and "ingested 1 results (1 new)" in out, (out, err)


def test_a_perplexity_only_task_is_a_lower_is_better_score_without_stderr():
    (rec,) = file_records(REAL, PERPLEXITY)
    assert (rec[R.MODEL], rec[R.STATUS], rec[R.CLIENT]) == ("BUT-FIT/CSTinyLlama-1.2B", "success", "lm-eval")
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2024-07-15T14:10:56+00:00", "2024-07-15T14:12:23+00:00")
    (score,) = rec[R.EVALS]
    assert (score[R.EVAL_TASK], score[R.EVAL_METRIC], score[R.EVAL_VALUE], score[R.EVAL_STDERR],
            score[R.EVAL_SAMPLES], score[R.EVAL_HIGHER]) == (
        "benczechmark_essay", "word_perplexity", 82.42259089871621, None, 1693, False)


def test_a_digest_of_runs_in_sglang_s_key_names_is_refused(capsys, tmp_path):
    path = REAL / DIGEST
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
    assert rc == 1 and "nothing stored" in out, (out, err)
    assert err.startswith(f"{path}:1:1: format: unknown JSON output (") and len(err.splitlines()) == 1, err
