"""Outputs of the same tools that are not one serving run's figures, refused with what they are.

Each entry: the top-level keys that tell the file, what it is, and what to ingest instead. A file
matching none is "unknown JSON output" (sniff.py).
"""

from __future__ import annotations

from sweepgate.core.errors import fail

# AIPerf's exports beside its profile_export_aiperf.json/.csv, in CSV (aiperf_csv) and JSON/JSONL alike
SAME_RUN = "ingest the same run's profile_export_aiperf.json or .csv"
SERVER_METRICS = "an AIPerf server-metrics export (the server's own metrics over the run, not the client's figures)"
PER_REQUEST = "an AIPerf per-request records export (one record per request, no statistics of the run)"
GPU_TELEMETRY = "an AIPerf GPU telemetry export (each GPU's power, memory and clocks, not the client's figures)"

KINDS = (
    ({"avg_latency", "latencies", "percentiles"},
     "a vLLM benchmark_latency result (one offline batch's latency, no requests served at a concurrency)",
     "ingest `vllm bench serve --save-result` JSON, a serving run"),
    ({"elapsed_time", "num_requests", "requests_per_second", "tokens_per_second"},
     "a vLLM benchmark_throughput result (offline generation, no serving latencies)",
     "ingest `vllm bench serve --save-result` JSON, a serving run"),
    ({"timeslices", "input_config"},
     "an AIPerf timeslice export (the run's statistics per time slice, not for the whole run)",
     "ingest the same run's profile_export_aiperf.json"),
    ({"engine", "world_info", "request_info", "performance"},
     "a TensorRT-LLM trtllm-bench report (the engine driven in-process, not a serving client's run)",
     "serve the model with trtllm-serve and ingest the serving client's output (vllm bench serve JSON)"),
    ({"metadata", "metrics", "error"}, PER_REQUEST, SAME_RUN),  # profile_export.jsonl, one line a request
    ({"aiperf_version", "summary", "metrics"}, SERVER_METRICS, SAME_RUN),  # server_metrics_export.json
    ({"gpu_index", "gpu_uuid", "metrics"}, GPU_TELEMETRY, SAME_RUN),  # gpu_telemetry_export.jsonl, one sample a line
    ({"experiments", "service_kind"},
     "perf_analyzer's raw per-request export (timestamps of each request, no statistics)",
     "ingest GenAI-Perf's profile_export_genai_perf.json of the same run"),
)


def refuse(doc, path: str, line: int) -> None:
    """Refuse ``doc`` with its own reason when it is one of KINDS; return otherwise."""
    if not isinstance(doc, dict):
        return
    for keys, what, instead in KINDS:
        if keys <= doc.keys():
            raise fail(path, line, f"format: {what}", instead)
