"""s33e hunt: real SGLang-shaped lines that were stored as bench_serving runs though their figures are not.

A custom router benchmark writing its summary in bench_serving's key names (median_e2e_latency_ms,
total_throughput) but without the token totals every bench_serving line holds was stored as one run: its
throughputs are a router's over several servers (num_instances), its counts not bench_serving's. It is now
refused on one line naming what it lacks. And a 2024 bench_serving line whose total_output_tokens counts
what each request asked for (the client then took each request's output_len from the request, not the
server) while its re-tokenized text holds 1% of it was stored without a word: its output throughput counts
tokens never generated. It is stored as written, with a warning at total_output_tokens_retokenized. The
files are real (tests/data/results-real/SOURCES.tsv)."""

from __future__ import annotations

import json

from helpers import ROOT, no_ref_said, refused_alone, run_cli, show_json
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
ROUTER = "other/sglang-keys_dlora_router_benchmark_2instances_no_token_totals_2lines.jsonl"
ROUTER_GENERATED = "other/sglang-keys_dynarank_router_benchmark_total_generated_tokens.jsonl"
RETOKENIZED = "sglang/sglang2024-10_dlora_sharegpt_retokenized_1pct_of_counted_2runs.jsonl"
HINT = "ingest sglang.bench_serving's --output-file JSONL, a serving run at a concurrency"


def _what(missing: str) -> str:
    # s37g: the reason named total_input_tokens alone, untrue of the two layouts that name the totals otherwise
    return (f"format: a serving summary in SGLang bench_serving's key names without {missing} (every "
            "bench_serving line holds its token totals: total_input_tokens and total_output_tokens, or the "
            "sglang.benchmark package's and 0.2's total_input and total_output): another script's output, "
            "its figures no bench_serving run's")


def test_a_router_benchmark_without_token_totals_is_refused_at_its_first_line(tmp_path, capsys):
    src, lines = refused_alone(capsys, tmp_path, REAL / ROUTER)
    assert lines == [f"{src}:1:1: {_what('total_input_tokens or total_output_tokens')}; {HINT}"]


def test_one_that_counts_generated_tokens_under_another_key_is_refused_naming_the_missing_total(tmp_path, capsys):
    src, lines = refused_alone(capsys, tmp_path, REAL / ROUTER_GENERATED)
    assert lines == [f"{src}:1:1: {_what('total_output_tokens')}; {HINT}"]


def test_the_files_hold_what_the_refusals_say():
    for rel in (ROUTER, ROUTER_GENERATED):
        for text in (REAL / rel).read_text(encoding="utf-8").splitlines():
            doc = json.loads(text)
            assert "total_output_tokens" not in doc and doc["routing_strategy"] in ("static",)
            assert "median_e2e_latency_ms" in doc and "total_output_tokens_retokenized" not in doc
    first = json.loads((REAL / ROUTER).read_text(encoding="utf-8").splitlines()[0])
    assert first["num_instances"] == 2 and "total_input_tokens" not in first


def test_a_line_whose_text_holds_far_fewer_tokens_than_it_counted_is_stored_with_a_warning(tmp_path, capsys):
    src = REAL / RETOKENIZED
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(src))
    assert rc == 0 and "ingested 2 results (2 new)" in out, (out, err)
    text = src.read_text(encoding="utf-8")
    col = text.splitlines()[0].index('"total_output_tokens_retokenized"') + 1
    hint = ("the server ended its responses early (--ignore-eos off, its context limit, an adapter's "
            "EOS): rerun the point; a tokenizer other than the server's re-tokenizes the text to other counts")
    assert no_ref_said(err).splitlines() == [
        f"{src}:1:{col}: warning: total_output_tokens_retokenized: the responses' text re-tokenizes to 2356 tokens, "
        "1.1% of the 218257 output tokens the line counts (total_output_tokens: what the requests asked for, where "
        "bench_serving took no count from the server), so its output throughput counts tokens never generated; "
        f"stored as written; {hint}",
        f"{src}:2:{col}: warning: total_output_tokens_retokenized: the responses' text re-tokenizes to 2345 tokens, "
        "1.0% of the 235230 output tokens the line counts (total_output_tokens: what the requests asked for, where "
        "bench_serving took no count from the server), so its output throughput counts tokens never generated; "
        f"stored as written; {hint}"]
    first, second = show_json(capsys, db)
    assert (first[R.METRICS][R.TOTAL_OUTPUT_TOKENS], first[R.METRICS][R.OUTPUT_THROUGHPUT]) == (218257,
                                                                                              2573.7399432960988)
    assert (second[R.METRICS][R.COMPLETED], second[R.METRICS]["ttft_p50_ms"]) == (993, 14707.989184884354)


# s33e: other real outputs tried this session and read right, their figures pinned as checked by hand
# against the files (units, per-GPU vs total, percentiles).
def _one(rel: str) -> dict:
    from helpers import file_records

    (rec,) = file_records(REAL, rel)
    return rec


def test_a_vllm_run_at_a_rate_under_a_concurrency_cap_keeps_both():
    rec = _one("vllm/vllm0.8_openai_backend_rate10_and_conc2_arrays_trimmed.json")
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.REQUEST_RATE], rec[R.MODEL]) == (2, 10.0, "meta-llama/Llama-3.1-8B-Instruct")
    assert (m[R.COMPLETED], m[R.FAILED], m[R.DURATION_S]) == (100, 0, 93.98985712500007)
    assert (m["ttft_p50_ms"], m["tpot_p99_ms"], m["itl_std_ms"]) == (60.77843100001701, 10.774457600471406,
                                                                    1.785232973722408)
    assert m[R.OUTPUT_THROUGHPUT] == 180.87058029454354 and m[R.TOTAL_TOKEN_THROUGHPUT] == 1178.4888645238475


def test_a_non_streaming_aiperf_run_stores_its_request_latency_alone():
    rec = _one("aiperf/aiperf0.8.0_audit_baseline_chat_nonstreaming_mock_c4.json")
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.ISL], rec[R.MODEL], rec[R.CLIENT_VERSION]) == (4, 550, "mock-model", "0.8.0")
    assert not any(k.startswith(("ttft_", "tpot_", "itl_")) for k in m)
    assert (m["e2el_p50_ms"], m["e2el_p99_ms"], m[R.DURATION_S]) == (0.6734304999999999, 15.14387014, 0.034502655)
    assert (m[R.COMPLETED], m[R.TOTAL_INPUT_TOKENS], m[R.TOTAL_OUTPUT_TOKENS]) == (64, 35200, 35277)


def test_an_aiperf_csv_alone_reads_its_inter_token_rows_as_tpot_and_itl():
    m = _one("aiperf/aiperf0.8.0_mock_c500k_2Mreq_csv_only_two_decimals.csv")[R.METRICS]
    assert (m[R.COMPLETED], m[R.FAILED], m[R.DURATION_S], m[R.REQUEST_THROUGHPUT]) == (2000000, 0, 322.92, 6193.54)
    assert (m["ttft_p50_ms"], m["tpot_p99_ms"], m["itl_max_ms"], m["e2el_p1_ms"]) == (1.48, 0.11, 215.95, 1.13)


def test_a_genai_perf_csv_without_a_request_count_stores_no_counts():
    m = _one("aiperf/genaiperf2025-02_rag_blueprint_llama3.1-70b_h100_csv_no_request_count.csv")[R.METRICS]
    assert R.COMPLETED not in m and (m[R.OUTPUT_THROUGHPUT], m[R.REQUEST_THROUGHPUT]) == (86.48, 0.17)
    assert (m["ttft_p95_ms"], m["tpot_p50_ms"], m["e2el_max_ms"]) == (27.51, 11.53, 5934.45)


def test_an_sglang_dev_build_line_stores_its_model_path_and_accept_length():
    """s34b: its model_path, not its served alias 'qwen' (stored until s34b)."""
    rec = _one("sglang/sglang_dev2026-08_qwen3.8-nvfp4_v100_tp4_eagle_c4_served_alias_trimmed.jsonl")
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.ISL], rec[R.OSL], rec[R.MODEL]) == (4, 1024, 512, "RadixArk/Qwen3.8-Flash-Next-NVFP4")
    assert (m[R.ACCEPT_LENGTH], m["itl_p95_ms"], m["e2el_p90_ms"]) == (2.823529411764706, 44.861912549868066,
                                                                      9990.569235800012)


def test_lm_eval_files_of_two_eras_store_every_score():
    xcopa = _one("lm_eval/lmeval0.3_bloom-1b1_xcopa_11langs_0shot.json")
    assert len(xcopa[R.EVALS]) == 11 and xcopa[R.MODEL] == "bigscience/bloom-1b1"
    truthful = _one("lm_eval/lmeval0.4.x_truthfulqa_gen_mc1_mc2_llama3-70b-gptq_vllm_trimmed.json")
    scores = {(e["task"], e["metric"]): (e["value"], e["samples"]) for e in truthful[R.EVALS]}
    assert len(scores) == 14 and scores[("truthfulqa_gen", "bleu_diff")] == (0.5349729901957849, 817)
    assert scores[("truthfulqa_mc2", "acc")] == (0.5864805953061317, 817)
