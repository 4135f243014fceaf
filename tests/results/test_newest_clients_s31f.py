"""s31f: the newest releases of the clients sweepgate reads, their outputs built field by field from each
release's own writer (no real file of these layouts was found to keep), ingested as a user would.

- vLLM 0.34.0 (PyPI sdist vllm-0.34.0.tar.gz: vllm/benchmarks/serve.py, ``benchmark()`` and
  ``main_async()``): read right, kept here so that its new keys stay unread as latencies.
- SGLang 0.5.23 (PyPI wheel: sglang/benchmark/serving.py ``benchmark()``, sglang/benchmark/goodput.py,
  sglang/benchmark/steady_state_serving.py): its goodput was dropped, a multi-turn run's input counted
  as 0 tokens, a run against an embeddings endpoint stored as a generation run of 0 output tokens/s, and
  its steady-state report refused as unknown JSON output.
- AIPerf 0.13.0 (PyPI wheel: aiperf/common/models/export_models.py ``JsonExportData``,
  aiperf/exporters/metrics_json_exporter.py and metrics_csv_exporter.py,
  aiperf/metrics/types/spec_decode_metrics.py): its speculative decoding's acceptance length was dropped.
"""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, no_ref_said, run_cli, show_json
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"


def ingest(capsys, tmp_path, *paths) -> tuple[int, str, str, str]:
    """(exit code, stdout, stderr but the line saying that what it stored is on no ref, the store) of ``paths``
    ingested with no sidecar and no --row."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *map(str, paths))
    return rc, out, no_ref_said(err, out), db


def only_record(capsys, tmp_path, path) -> dict:
    rc, _, err, db = ingest(capsys, tmp_path, path)
    assert (rc, err) == (0, ""), err
    (rec,) = show_json(capsys, db)
    return rec


# ---------------------------------------------------------------------------------------------- vLLM 0.34.0

def vllm_0_34(**over) -> dict:
    """`vllm bench serve --save-result --max-concurrency 4 --request-rate 2` of vLLM 0.34.0 against a server with
    speculative decoding, as main_async() saves it: its setup keys, then benchmark()'s result in its order
    (without --save-detailed the per-request lists are deleted but latencies and queue_times, which that
    list does not name), the spec-decode deltas, then process_one_metric's statistics of --percentile-metrics'
    default for generation (ttft,tpot,itl) at --metric-percentiles' default (99), and, with a concurrency cap,
    the client's queueing ("client_queue_time") and, at a finite rate, the latency with it
    ("e2el_including_client_queue")."""
    doc = {"date": "20261201-101010", "endpoint_type": "openai", "backend": "openai", "label": None,
           "model_id": "Qwen/Qwen3-8B", "tokenizer_id": "Qwen/Qwen3-8B", "num_prompts": 8,
           "request_rate": 2.0, "burstiness": 1.0, "max_concurrency": 4,
           "duration": 6.5, "completed": 8, "failed": 0, "total_input_tokens": 8192, "total_output_tokens": 1024,
           "request_throughput": 8 / 6.5, "request_goodput": None, "output_throughput": 1024 / 6.5,
           "total_token_throughput": 9216 / 6.5, "latencies": [1.2, 1.1, 1.3, 1.25, 1.15, 1.22, 1.18, 1.3],
           "queue_times": [0.0, 0.0, 0.0, 0.0, 0.4, 0.3, 0.35, 0.2], "max_output_tokens_per_s": 400.0,
           "max_concurrent_requests": 4, "rtfx": 0.0,
           "spec_decode_acceptance_rate": 62.5, "spec_decode_acceptance_length": 2.875, "spec_decode_num_drafts": 400,
           "spec_decode_draft_tokens": 1200, "spec_decode_accepted_tokens": 750,
           "spec_decode_per_position_acceptance_rates": [0.8, 0.6, 0.475],
           "mean_ttft_ms": 80.0, "median_ttft_ms": 78.0, "std_ttft_ms": 5.0, "p99_ttft_ms": 95.0,
           "mean_tpot_ms": 8.5, "median_tpot_ms": 8.4, "std_tpot_ms": 0.3, "p99_tpot_ms": 9.2,
           "mean_itl_ms": 24.0, "median_itl_ms": 23.0, "std_itl_ms": 3.0, "p99_itl_ms": 35.0,
           "mean_client_queue_time_ms": 156.25, "median_client_queue_time_ms": 100.0,
           "std_client_queue_time_ms": 160.0, "p99_client_queue_time_ms": 395.0,
           "mean_e2el_including_client_queue_ms": 1365.0, "median_e2el_including_client_queue_ms": 1300.0,
           "std_e2el_including_client_queue_ms": 150.0, "p99_e2el_including_client_queue_ms": 1600.0}
    doc.update(over)
    return doc


def test_a_vllm_0_34_output_is_read_and_its_queueing_is_no_latency_of_the_requests(capsys, tmp_path):
    out = tmp_path / "openai-2.0qps-concurrency4-Qwen3-8B-20261201-101010.json"
    out.write_text(json.dumps(vllm_0_34()), encoding="utf-8")
    rec = only_record(capsys, tmp_path, out)
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.REQUEST_RATE], rec[R.MODEL]) == (4, 2.0, "Qwen/Qwen3-8B")
    assert m[R.ACCEPT_LENGTH] == 2.875 and (m[R.COMPLETED], m[R.FAILED]) == (8, 0)
    assert (m["ttft_p50_ms"], m["tpot_p50_ms"], m["itl_p99_ms"]) == (78.0, 8.4, 35.0)
    # e2el was not among --percentile-metrics: the client's queueing, with or without the request, is none
    assert not [k for k in m if k.startswith("e2el_") or "queue" in k], m
    assert R.REQUEST_GOODPUT not in m  # null without --goodput


# ----------------------------------------------------------------------------------------------- SGLang 0.5.23

def sglang_0_5_23(**over) -> dict:
    """A bench_serving line of SGLang 0.5.23 (`python -m sglang.bench_serving`, now sglang.benchmark.serving),
    as benchmark() builds ``result`` key by key, a random 1024/128 dataset at concurrency 8; its server_info is
    the server's whole /server_info answer, of which a few keys are kept here."""
    doc = {"tag": None, "backend": "sglang-oai-chat", "dataset_name": "random", "request_rate": float("inf"),
           "max_concurrency": 8, "sharegpt_output_len": None, "random_input_len": 1024, "random_output_len": 128,
           "random_range_ratio": 1.0,
           "server_info": {"model_path": "Qwen/Qwen3-8B", "served_model_name": "Qwen/Qwen3-8B", "version": "0.5.23",
                           "internal_states": [{"avg_spec_accept_length": None}]},
           "duration": 10.0, "completed": 64, "total_input_tokens": 65536, "total_input_text_tokens": 65536,
           "total_input_vision_tokens": 0, "total_output_tokens": 8192, "total_output_tokens_retokenized": 8190,
           "request_throughput": 6.4, "input_throughput": 6553.6, "output_throughput": 819.2,
           "total_throughput": 7372.8,
           "mean_e2e_latency_ms": 1200.0, "median_e2e_latency_ms": 1190.0, "std_e2e_latency_ms": 50.0,
           "p90_e2e_latency_ms": 1260.0, "p95_e2e_latency_ms": 1280.0, "p99_e2e_latency_ms": 1300.0,
           "mean_ttft_ms": 90.0, "median_ttft_ms": 85.0, "std_ttft_ms": 10.0, "p90_ttft_ms": 100.0,
           "p95_ttft_ms": 105.0, "p99_ttft_ms": 120.0,
           "mean_tpot_ms": 8.7, "median_tpot_ms": 8.6, "std_tpot_ms": 0.2, "p90_tpot_ms": 8.9, "p95_tpot_ms": 9.0,
           "p99_tpot_ms": 9.3,
           "mean_itl_ms": 8.7, "median_itl_ms": 8.5, "std_itl_ms": 1.0, "p90_itl_ms": 9.5, "p95_itl_ms": 10.0,
           "p99_itl_ms": 14.0,
           "concurrency": 7.68, "accept_length": None, "max_output_tokens_per_s": 900.0, "max_concurrent_requests": 8}
    doc.update(over)
    return doc


def write_line(path, doc: dict):
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")  # json.dumps as bench_serving, Infinity bare
    return path


def test_an_sglang_run_keeps_its_goodput(capsys, tmp_path):
    """`--goodput ttft:500 tpot:50` adds GoodputMetrics' fields to the line (msgspec.structs.asdict): its
    request_goodput was dropped where vLLM's, GenAI-Perf's and AIPerf's are kept."""
    line = sglang_0_5_23(goodput_slos_ms={"ttft": 500.0, "tpot": 50.0}, request_goodput=5.9,
                         slo_attainment=0.921875, slo_attainment_by_metric={"ttft": 0.95, "tpot": 0.97})
    rec = only_record(capsys, tmp_path, write_line(tmp_path / "out.jsonl", line))
    assert rec[R.METRICS][R.REQUEST_GOODPUT] == 5.9


def test_an_sglang_run_without_goodput_slos_has_none(capsys, tmp_path):
    assert R.REQUEST_GOODPUT not in only_record(capsys, tmp_path, write_line(tmp_path / "out.jsonl",
                                                                             sglang_0_5_23()))[R.METRICS]


MULTI_TURN = sglang_0_5_23(dataset_name="agentic-trace", total_input_tokens=0, total_input_text_tokens=0,
                           input_throughput=0.0, total_throughput=819.2)


def test_a_multi_turn_sglang_run_is_stored_without_the_input_it_did_not_count(capsys, tmp_path):
    """A multi-turn run (agentic-trace, or generated-shared-prefix over several turns) calls calculate_metrics
    with input_requests=None: total_input_tokens and input_throughput 0, total_throughput the output's alone.
    Stored so, the run read as one of no input and its total token throughput as its output's."""
    out = write_line(tmp_path / "agentic.jsonl", MULTI_TURN)
    rc, _, err, db = ingest(capsys, tmp_path, out)
    col = json.dumps(MULTI_TURN).index('"total_input_tokens"') + 1  # the warning stands at the key it names
    assert rc == 0
    assert err.splitlines() == [
        f"{out}:1:{col}: warning: total_input_tokens: 0 over "
        "64 completed requests, so bench_serving counted no input (it counts none for a multi-turn run); stored "
        "without input and total token throughput; the output throughput and latencies are stored; benchmark a "
        "single-turn dataset for the input throughput"]
    (rec,) = show_json(capsys, db)
    m = rec[R.METRICS]
    for name in (R.TOTAL_INPUT_TOKENS, R.INPUT_THROUGHPUT, R.TOTAL_TOKEN_THROUGHPUT):
        assert name not in m, name
    assert (m[R.OUTPUT_THROUGHPUT], m[R.COMPLETED], m["ttft_p50_ms"]) == (819.2, 64, 85.0)


@pytest.mark.parametrize("backend", ["sglang-embedding", "vllm-embedding"])
def test_an_sglang_run_against_an_embeddings_endpoint_is_refused_as_what_it_is(backend, capsys, tmp_path):
    """bench_serving writes an embeddings run in its generation layout: no output tokens, TTFT, TPOT and ITL
    0 (np.mean of nothing); it was stored as a serving point of 0 output tokens/s."""
    zeros = {k: 0.0 for k in sglang_0_5_23() if k.endswith(("_ttft_ms", "_tpot_ms", "_itl_ms"))}
    line = sglang_0_5_23(backend=backend, total_output_tokens=0, total_output_tokens_retokenized=0,
                         output_throughput=0.0, total_throughput=6553.6, max_output_tokens_per_s=1.0, **zeros)
    out = write_line(tmp_path / "emb.jsonl", line)
    rc, stdout, err, db = ingest(capsys, tmp_path, out)
    assert rc == 1 and "nothing stored" in stdout
    assert err.splitlines() == [
        f"{out}:1:1: format: an SGLang bench_serving run against an endpoint that generates no tokens ({backend}: "
        "embeddings, pooling, scores or reranking; end-to-end latency only), not a generation run; benchmark the "
        "point with a generation backend (sglang, sglang-oai, sglang-oai-chat, vllm) and ingest that output, or "
        "remove the file"]


STEADY_STATE = {"concurrency_ratio": 0.8, "window_start": 1.2, "window_end": 8.7, "duration": 7.5,
                "concurrency_threshold": 6, "completed": 50, "total_input": 51200, "input_throughput": 6826.7,
                "total_output": 6400.0, "total_output_retokenized": 6398.0, "output_throughput": 853.3,
                "output_throughput_retokenized": 853.1, "average_concurrency": 7.6, "peak_concurrency": 8,
                "peak_output_throughput": 910.0}  # steady_state.py SteadyStateMetrics, json.dumps(asdict(...))


def test_sglang_steady_state_report_beside_its_run_is_passed_over(capsys, tmp_path):
    """`python -m sglang.benchmark.steady_state_serving --steady-state-output-file steady.jsonl --output-file
    out.jsonl`: the run's own line in out.jsonl, and the steady stretch's throughputs in steady.jsonl, which was
    refused as unknown JSON output (exit 1) though its run was stored."""
    folder = tmp_path / "run"
    folder.mkdir()
    write_line(folder / "out.jsonl", sglang_0_5_23())
    write_line(folder / "steady.jsonl", STEADY_STATE)
    rc, out, err, db = ingest(capsys, tmp_path, folder)
    assert (rc, err) == (0, ""), err
    assert out.splitlines() == [
        "skipped 1 SGLang steady-state report (steady_state_serving's --steady-state-output-file: the throughputs "
        "of the part of a run at its peak concurrency; the run's own bench_serving line, in its --output-file, is "
        "the result)", f"ingested 1 results (1 new) into {db}"]
    (rec,) = show_json(capsys, db)
    assert rec[R.RESULT_FILENAME].endswith("out.jsonl") and rec[R.METRICS][R.OUTPUT_THROUGHPUT] == 819.2


# ---------------------------------------------------------------------------------------------- AIPerf 0.13.0

def _dist(unit: str, avg: float, count: int = 64) -> dict:
    """A record metric's JsonMetricResult (STAT_KEYS but sum, and its count)."""
    stats = {"avg": avg, "min": avg * 0.7, "max": avg * 1.5, "p1": avg * 0.8, "p5": avg * 0.85, "p10": avg * 0.9,
             "p25": avg * 0.95, "p50": avg, "p75": avg * 1.05, "p90": avg * 1.1, "p95": avg * 1.15, "p99": avg * 1.3,
             "std": avg * 0.1}
    return {"unit": unit, **stats, "count": count}


def aiperf_0_13(spec_decode: bool = True) -> dict:
    """profile_export_aiperf.json of AIPerf 0.13.0 (JsonExportData, model_dump exclude_unset/exclude_none):
    its declared fields in order, then the metrics it sets beyond them (extra="allow"). A concurrency-8 chat
    run of 64 requests against vLLM with --per-request-spec-decode-metrics, whose responses carry each
    request's speculative decoding: the spec-decode metrics, among them the run-level token-weighted
    acceptance length (a derived metric: avg alone, no count), and the pooled acceptance histogram."""
    doc = {"schema_version": "1.4", "aiperf_version": "0.13.0", "benchmark_id": "5d6f0a3e-2c8b-4c53-9d1e-1b2f3a4c5d6e",
           "request_throughput": {"unit": "requests/sec", "avg": 3.2},
           "request_latency": _dist("ms", 2480.0), "request_count": {"unit": "requests", "avg": 64},
           "time_to_first_token": _dist("ms", 95.0), "time_to_second_token": _dist("ms", 14.0),
           "inter_token_latency": _dist("ms", 9.3), "output_token_throughput": {"unit": "tokens/sec", "avg": 819.2},
           "output_token_throughput_per_user": _dist("tokens/sec/user", 107.5),
           "output_sequence_length": _dist("tokens", 256.0), "input_sequence_length": _dist("tokens", 1024.0),
           "min_request_timestamp": {"unit": "ns", "avg": 1.79e18},
           "max_response_timestamp": {"unit": "ns", "avg": 1.79e18 + 20e9},
           "inter_chunk_latency": _dist("ms", 25.0), "total_output_tokens": {"unit": "tokens", "avg": 16384},
           "benchmark_duration": {"unit": "sec", "avg": 20.0}, "total_isl": {"unit": "tokens", "avg": 65536},
           "total_osl": {"unit": "tokens", "avg": 16384},
           "input_config": {"models": {"strategy": "round_robin", "items": [{"name": "Qwen/Qwen3-8B"}]},
                            "endpoint": {"urls": ["http://localhost:8000"], "type": "chat", "streaming": True},
                            "datasets": [{"name": "default", "type": "synthetic",
                                          "prompts": {"isl": {"mean": 1024}, "osl": {"mean": 256}}}],
                            "phases": [{"name": "profiling", "type": "concurrency", "exclude_from_results": False,
                                        "requests": 64, "concurrency": 8}]},
           "was_cancelled": False, "is_complete": True,
           "start_time": "2026-12-01T10:00:00.000000", "end_time": "2026-12-01T10:00:21.000000"}
    if spec_decode:
        doc.update({"pooled_spec_decode_acceptance_histogram": {"0": 700, "1": 900, "2": 1100, "3": 2900},
                    "spec_decode_acceptance_length": _dist("ratio", 2.9),
                    "spec_decode_draft_acceptance_rate": _dist("%", 63.0),
                    "spec_decode_accepted_per_verified": _dist("ratio", 0.72),
                    "spec_decode_steps": _dist("count", 87.5),
                    "total_spec_decode_steps": {"unit": "count", "avg": 5600},
                    "total_accepted_draft_tokens": {"unit": "tokens", "avg": 10500},
                    "total_draft_tokens": {"unit": "tokens", "avg": 16800},
                    "spec_decode_token_weighted_acceptance_length": {"unit": "ratio", "avg": 2.875},
                    "spec_decode_overall_draft_acceptance_rate": {"unit": "%", "avg": 62.5}})
    return doc


def test_an_aiperf_0_13_run_keeps_its_run_level_acceptance_length(capsys, tmp_path):
    """The token-weighted figure (1 + 10500 accepted / 5600 verify steps), vLLM's own; not the per-request
    mean (2.9), each request weighing alike. It was dropped: no accept len, and no compare of it."""
    out = tmp_path / "profile_export_aiperf.json"
    out.write_text(json.dumps(aiperf_0_13(), indent=2), encoding="utf-8")
    rec = only_record(capsys, tmp_path, out)
    assert rec[R.METRICS][R.ACCEPT_LENGTH] == 2.875 and rec[R.CLIENT_VERSION] == "0.13.0"
    rc, shown, _ = run_cli(capsys, "results", "show", "--db", f"sqlite:///{tmp_path / 'r.db'}")
    assert rc == 0 and "accept len" in shown and "2.88" in shown


def test_an_aiperf_0_13_run_without_speculative_decoding_has_no_acceptance_length(capsys, tmp_path):
    out = tmp_path / "profile_export_aiperf.json"
    out.write_text(json.dumps(aiperf_0_13(spec_decode=False), indent=2), encoding="utf-8")
    assert R.ACCEPT_LENGTH not in only_record(capsys, tmp_path, out)[R.METRICS]


def test_an_aiperf_csv_export_keeps_its_run_level_acceptance_length(capsys, tmp_path):
    """The CSV twin (metrics_csv_exporter.py: "<header> (<unit>)", two decimals, each table sorted by tag):
    the real 0.11 CSV with the rows 0.13 adds for speculative decoding, the per-request mean among the
    distributions after request_latency, the run-level figures among the scalars after request_throughput."""
    text = (REAL / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16.csv").read_text(encoding="utf-8")
    after = "Request Latency (ms),"
    at = text.index("\n", text.index(after)) + 1
    row = "Acceptance Length (ratio),2.90,2.03,4.35,185.60,2.32,2.47,2.61,2.76,2.90,3.05,3.19,3.34,3.77,0.29\r\n"
    text = text[:at] + row + text[at:]
    at = text.index("\n", text.index("Request Throughput (requests/sec),")) + 1
    text = text[:at] + "Overall Draft Acceptance Rate (%),62.50\r\nToken-Weighted Acceptance Length (ratio),2.88\r\n" \
        + text[at:]
    out = tmp_path / "profile_export_aiperf.csv"
    out.write_text(text, encoding="utf-8", newline="")
    rc, _, err, db = ingest(capsys, tmp_path, out)  # alone, the CSV does not say whether its run finished
    (line,) = err.splitlines()
    assert rc == 0 and line.startswith(f"{out}:1:1: warning: an AIPerf CSV export does not say whether its run "
                                       "finished"), err
    (rec,) = show_json(capsys, db)
    assert rec[R.METRICS][R.ACCEPT_LENGTH] == 2.88
