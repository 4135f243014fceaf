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

from helpers import ROOT, refused_alone, run_cli, show_json
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
ROUTER = "other/sglang-keys_dlora_router_benchmark_2instances_no_token_totals_2lines.jsonl"
ROUTER_GENERATED = "other/sglang-keys_dynarank_router_benchmark_total_generated_tokens.jsonl"
RETOKENIZED = "sglang/sglang2024-10_dlora_sharegpt_retokenized_1pct_of_counted_2runs.jsonl"
HINT = "ingest sglang.bench_serving's --output-file JSONL, a serving run at a concurrency"


def _what(missing: str) -> str:
    return (f"format: a serving summary in SGLang bench_serving's key names without {missing} (every "
            "bench_serving line holds total_input_tokens and total_output_tokens): another script's output, "
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
    assert err.splitlines() == [
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

