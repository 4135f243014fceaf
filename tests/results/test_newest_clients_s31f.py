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

from helpers import ROOT, run_cli, show_json
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"


def ingest(capsys, tmp_path, *paths) -> tuple[int, str, str, str]:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *map(str, paths))
    return rc, out, err, db


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