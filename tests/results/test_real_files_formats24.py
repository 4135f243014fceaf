"""formats24 hunt: real files from repositories not tried before, each refused with its own one line
(tests/data/results-real/SOURCES.tsv names each file's repository, path and commit).

None is a benchmark client's saved output: per-request logs and CSVs of study harnesses, a fork's
summary of a run, a client's stdout, a workload config. Each must be refused at its place with
what to ingest instead, exit 1, and no store created."""

from __future__ import annotations


import pytest

from helpers import ROOT, refused_alone

REAL = ROOT / "tests" / "data" / "results-real"
ANY_CLIENT = ("(expected vLLM bench serve JSON/JSONL, SGLang bench_serving JSONL, AIPerf/GenAI-Perf JSON or CSV, "
              "lm-eval results JSON); ingest the job's $RESULT_FILENAME.json, or remove the file")

# file -> its one line after "<path>:"
REFUSALS = {
    # llm-serving-lab/vllm-benchmark: request_id,prompt,ttft_ms,tpot_ms,... one row a request
    "other/custom_per_request_csv_ttft_tpot_ms_vllm_c1_trimmed.csv":
        "1: format: a CSV table, not a benchmark client output " + ANY_CLIENT,
    # liqcui/sglang-benchmark-tools: {"request_id", "ttft_ms", "tpot_ms", ...} a line, no run summary
    "other/sglbench_tool_per_request_log_conc32_trimmed.jsonl": "1:1: format: unknown JSON output " + ANY_CLIENT,
    # togethercomputer/InferenceX: medians and throughputs of an SGLang run, no counts or duration
    "other/together_runner_baseline_sglang_dsr1_b200_conc16.json":
        "1:1: format: a benchmark wrapper ({hw, metrics, gpu}) whose metrics omit completed/failed requests "
        "and duration; ingest the client's raw output it was built from (the job's $RESULT_FILENAME.json)",
    # liqcui/sglang-benchmark-tools: sglang.bench_serving's stdout, its table rounded for display
    "other/sglang_bench_serving_stdout_glm5.2_c32_rr5_p90_p95.txt":
        "1: format: a serving benchmark's console output (its 'Serving Benchmark Result' table, figures "
        "rounded for display), not the client's saved result; run the client with --save-result (vllm bench "
        "serve) or --output-file (sglang.bench_serving) and ingest that JSON, or remove the file",
    # SRO-SA/trtllm-qwen-benchmark: a study's own summary, one row a concurrency (CRLF)
    "other/trtllm_custom_smoke_results_csv_3conc.csv":
        "1: format: a CSV table, not a benchmark client output " + ANY_CLIENT,
    # big-yellow-duck/vllm-bench-collection: the workload's config, kept beside its results
    "other/vllmbench-rs_workload_config_not_result.json": "1:1: format: unknown JSON output " + ANY_CLIENT,
}


@pytest.mark.parametrize("rel", sorted(REFUSALS))
def test_refused_with_its_own_line_and_nothing_stored(rel, tmp_path, capsys):
    src, lines = refused_alone(capsys, tmp_path, REAL / rel)
    assert lines == [f"{src}:{REFUSALS[rel]}"]
