"""s31e hunt: more saved reports of serving clients sweepgate does not read, refused by name, and where.

Each was refused as "unknown JSON output", a line that names neither the file's client nor that no
client of that name is read. The files are real (tests/data/results-real/SOURCES.tsv) but for
inference-perf's per-request log, which is written below as the client's own writer lays it out."""

from __future__ import annotations

import json
import shutil

import pytest

from helpers import ROOT, refused_alone, run_cli

REAL = ROOT / "tests" / "data" / "results-real"
# openshift-psap/llm-load-test output/output.json (Dec 2023): one line, its results and config
LLM_LOAD_TEST = REAL / "other" / "llm-load-test_output_llama2_c20_1of_results_trimmed.json"


LLM_LOAD_TEST_LINE = ("1:1: format: an llm-load-test output (openshift-psap/llm-load-test's output.json: one result "
                      "a request and the run's config, and in later versions a summary of them), the output of a "
                      "client sweepgate does not read; run the point with a client sweepgate reads (vllm bench serve "
                      "--save-result, AIPerf), or remove the file")


def test_an_llm_load_test_output_is_refused_by_name(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, LLM_LOAD_TEST)
    assert lines == [f"{src}:{LLM_LOAD_TEST_LINE}"]


def test_an_llm_load_test_output_with_its_summary_is_refused_by_name(capsys, tmp_path):
    """Its later layout (src/llm_load_test/utils.py write_output, indent 2): the same results and config with
    the summary after them, per-statistic min/max/median/mean/percentile_NN and the run's totals."""
    doc = json.loads(LLM_LOAD_TEST.read_text(encoding="utf-8"))
    stats = {"min": 13.5, "max": 13.5, "median": 13.5, "mean": 13.5, "percentile_80": 13.5, "percentile_90": 13.5,
             "percentile_95": 13.5, "percentile_99": 13.5}
    doc["summary"] = {"tpot": stats, "ttft": stats, "itl": stats, "tt_ack": stats, "response_time": stats,
                      "throughput_full_duration": 34.7, "full_duration": 5.3, "throughput": 4.6, "total_requests": 1,
                      "req_completed_within_test_duration": 1, "total_failures": 0, "failure_rate": 0.0}
    out = tmp_path / "output.json"
    out.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, out)
    assert lines == [f"{src}:{LLM_LOAD_TEST_LINE}"]


def test_a_refusal_of_what_a_file_is_stands_at_its_start_not_at_a_key_named_format(capsys, tmp_path):
    """llm-load-test keeps its config in its output, and the config names the output's format
    (config.output.format): a refusal opening "format: ..." was placed at that key, column 1156 of the
    one-line file, as if the key were what is wrong."""
    src, lines = refused_alone(capsys, tmp_path, LLM_LOAD_TEST)
    assert len(lines) == 1 and lines[0].startswith(f"{src}:1:1: format: "), lines
    assert '"format": "json"' in LLM_LOAD_TEST.read_text(encoding="utf-8")


NOT_READ = ("the output of a client sweepgate does not read; run the point with a client sweepgate reads "
            "(vllm bench serve --save-result, AIPerf), or remove the file")
INFERENCE_PERF_REQUESTS = ("1:1: format: inference-perf's per-request log (kubernetes-sigs/inference-perf's "
                           "per_request_lifecycle_metrics.json: one entry a request, its times in seconds, no run "
                           "summary), " + NOT_READ)

# inference-perf's per_request_lifecycle_metrics.json (request_lifecycle.per_request: true), as its writers lay
# it out, with values of our own: a JSON list, indent 2 (client/filestorage/local.py), one entry a request
# (reportgen/base.py). No real one was found to keep: the file is large, and off by default (llm-d-benchmark
# issue #700 asked that it stay so). Version 0.7.0 (its wheel's build_per_request_lifecycle_entry and
# apis/base.py): the request's times, the request and response texts, the client's info (InferenceInfo's
# model_dump, the deprecated top-level input_tokens with it) and the error, each as per_request_fields asks.
_INFO_0_7 = {"request_metrics": {"text": {"input_tokens": 591}, "image": None, "video": None, "audio": None},
             "response_metrics": {"output_tokens": 3, "server_usage": {"prompt_tokens": 591, "completion_tokens": 3},
                                  "response_chunks": ['data: {"choices": [{"text": "Hel"}]}'],
                                  "chunk_times": [1393.381, 1393.402, 1393.423],
                                  "output_token_times": [1393.381, 1393.402, 1393.423]},
             "extra_info": {}, "lora_adapter": None, "graph_event_id": None, "labels": {}, "input_tokens": 591}
PER_REQUEST_0_7 = [
    {"start_time": 1393.251, "end_time": 1393.424, "request": '{"model": "m", "prompt": "...", "max_tokens": 3}',
     "response": "Hello", "info": _INFO_0_7, "error": None},
    {"start_time": 1393.3, "end_time": 1453.3, "request": '{"model": "m", "prompt": "...", "max_tokens": 3}',
     "response": None, "info": dict(_INFO_0_7, response_metrics=None),
     "error": {"error_type": "TimeoutError", "error_msg": "request timed out"}},
]
# the same with the report's per_request_fields all off: the times and the error alone
PER_REQUEST_TIMES_ONLY = [{"start_time": e["start_time"], "end_time": e["end_time"], "error": e["error"]}
                          for e in PER_REQUEST_0_7]
# the layout of 2025 (reportgen/base.py then, and the per-request info its users' converters read: the
# token counts and output token times flat in info)
PER_REQUEST_2025 = [
    {"start_time": 1393.251, "end_time": 1395.195, "request": '{"model": "m", "prompt": "...", "max_tokens": 247}',
     "response": "...", "info": {"input_tokens": 591, "output_tokens": 140, "output_token_times": [1393.381, 1395.19]},
     "error": None},
]


@pytest.mark.parametrize("doc", [PER_REQUEST_0_7, PER_REQUEST_TIMES_ONLY, PER_REQUEST_2025],
                         ids=["0.7", "times-only", "2025"])
def test_inference_perf_per_request_log_is_refused_by_name(doc, capsys, tmp_path):
    log = tmp_path / "per_request_lifecycle_metrics.json"
    log.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, log)
    assert lines == [f"{src}:{INFERENCE_PERF_REQUESTS}"]


def test_an_inference_perf_results_folder_with_its_per_request_log_is_refused_file_by_file(capsys, tmp_path):
    """The per-request log beside the run's summary (a real one, s30h): each refused on a line of its own,
    by name, nothing stored."""
    folder = tmp_path / "results"
    folder.mkdir()
    shutil.copyfile(REAL / "other" / "inference-perf_summary_lifecycle_metrics_kubecon25_vllm_eagle_12981req.json",
                    folder / "summary_lifecycle_metrics.json")
    (folder / "per_request_lifecycle_metrics.json").write_text(json.dumps(PER_REQUEST_0_7, indent=2))
    db = tmp_path / "results.db"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", str(folder))
    assert rc == 1 and not db.exists()
    assert sorted(err.splitlines()) == [
        f"{folder / 'per_request_lifecycle_metrics.json'}:{INFERENCE_PERF_REQUESTS}",
        f"{folder / 'summary_lifecycle_metrics.json'}:1:1: format: an inference-perf report (kubernetes-sigs/"
        "inference-perf: a stage's or the run's lifecycle or Prometheus metrics, latencies in seconds), " + NOT_READ]


def test_a_list_of_timed_entries_of_other_keys_is_no_inference_perf_log(capsys, tmp_path):
    """What tells the log: every entry's times and nothing beyond what inference-perf writes beside them."""
    other = tmp_path / "spans.json"
    other.write_text(json.dumps([{"start_time": 0.5, "end_time": 1.5, "title": "intro"}]), encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, other)
    assert len(lines) == 1 and lines[0].startswith(f"{src}:1:1: format: unknown JSON output"), lines


# philschmid/llmperf-bench results/2.0.1/: LLMPerf run at each concurrency against TGI 2.0.1 (Llama-3-8B-Instruct,
# TP 1); main.py keeps each run's LLMPerf summary, by concurrency, and a digest of each
LLMPERF_BENCH_RESULTS = REAL / "other" / "llmperf-bench_tgi2.0.1_llama3-8b-tp1_results_by_conc_first2_trimmed.json"
LLMPERF_BENCH_SUMMARY = REAL / "other" / "llmperf-bench_tgi2.0.1_llama3-8b-tp1_summary_by_conc.json"
LLMPERF_BY_CONC = ("1:1: format: LLMPerf summaries by concurrency (philschmid/llmperf-bench's *_results.json: "
                   "ray-project/llmperf's *_summary.json of each run, results_* figures, latencies in seconds), "
                   + NOT_READ)
LLMPERF_BENCH_DIGEST = ("1:1: format: llmperf-bench's digest of LLMPerf runs (philschmid/llmperf-bench's "
                        "*_summary.json and *_cur_N.json: each run's concurrency, mean TTFT and ITL in ms and output "
                        "throughput, no request counts), " + NOT_READ)


@pytest.mark.parametrize("path, line", [(LLMPERF_BENCH_RESULTS, LLMPERF_BY_CONC),
                                        (LLMPERF_BENCH_SUMMARY, LLMPERF_BENCH_DIGEST)], ids=["results", "summary"])
def test_llmperf_bench_files_are_refused_by_name(path, line, capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, path)
    assert lines == [f"{src}:{line}"]


def test_llmperf_bench_digest_of_one_concurrency_is_refused_by_name(capsys, tmp_path):
    """main.py also writes each run's digest alone, <model>_tp_<n>_cur_<concurrency>.json (json.dump of the
    summary file's entry for it, indent 2): concurrency 1's, from the real summary."""
    digest = json.loads(LLMPERF_BENCH_SUMMARY.read_text(encoding="utf-8"))["1"]
    cur = tmp_path / "meta-llama_Meta-Llama-3-8B-Instruct_tp_1_cur_1.json"
    cur.write_text(json.dumps(digest, indent=2), encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, cur)
    assert lines == [f"{src}:{LLMPERF_BENCH_DIGEST}"]


def test_llmperf_bench_files_hold_what_the_refusals_name():
    """Its results: LLMPerf summaries keyed by concurrency (each concurrency its own num_concurrent_requests);
    its summary: the digest of the same runs (TTFT in ms of LLMPerf's seconds)."""
    results = json.loads(LLMPERF_BENCH_RESULTS.read_text(encoding="utf-8"))
    summary = json.loads(LLMPERF_BENCH_SUMMARY.read_text(encoding="utf-8"))
    assert {k: v["num_concurrent_requests"] for k, v in results.items()} == {"1": 1, "2": 2}
    assert list(summary) == ["1", "2", "4", "8", "16", "32", "64", "128"]
    ttft_ms = results["2"]["results_ttft_s_mean"] * 1000
    assert round(summary["2"]["first-time-to-token_mean_in_ms"], 6) == round(ttft_ms, 6)


# sgl-project/genai-bench regression_main_branch/: an experiment folder committed to genai-bench's own repository
# (genai-bench 0.0.2 against Baseten's GLM-4.6 API, D(100,100), concurrency 1, 10 requests)
GENAI_BENCH_RUN = REAL / "other" / "genai-bench0.0.2_glm4.6_baseten_D100_100_c1_10req.json"
GENAI_BENCH_METADATA = REAL / "other" / "genai-bench0.0.2_experiment_metadata_glm4.6_baseten.json"
GENAI_BENCH = ("1:1: format: a genai-bench run (sgl-project/genai-bench's file of one traffic scenario at one "
               "concurrency or batch size: aggregated_metrics and each request's, latencies in seconds or as its "
               "_time_unit says), " + NOT_READ)
GENAI_BENCH_EXPERIMENT = ("1:1: format: genai-bench's experiment metadata (sgl-project/genai-bench's "
                          "experiment_metadata.json: the command and settings of an experiment's runs, no figures), "
                          + NOT_READ)


def test_a_genai_bench_experiment_folder_is_refused_file_by_file(capsys, tmp_path):
    """The folder genai-bench writes, its files named as it names them: each refused by name, nothing stored."""
    folder = tmp_path / "regression_main_branch"
    folder.mkdir()
    run = folder / "D100_100_text-to-text_num_concurrency_1_time_120s.json"
    shutil.copyfile(GENAI_BENCH_RUN, run)
    shutil.copyfile(GENAI_BENCH_METADATA, folder / "experiment_metadata.json")
    db = tmp_path / "results.db"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", str(folder))
    assert rc == 1 and not db.exists()
    assert sorted(err.splitlines()) == [f"{run}:{GENAI_BENCH}",
                                        f"{folder / 'experiment_metadata.json'}:{GENAI_BENCH_EXPERIMENT}"]


def test_genai_bench_files_hold_what_the_refusals_name():
    run = json.loads(GENAI_BENCH_RUN.read_text(encoding="utf-8"))
    meta = json.loads(GENAI_BENCH_METADATA.read_text(encoding="utf-8"))
    assert set(run) == {"aggregated_metrics", "individual_request_metrics", "_time_unit"} and run["_time_unit"] == "s"
    agg = run["aggregated_metrics"]
    assert (agg["scenario"], agg["num_concurrency"], len(run["individual_request_metrics"])) == ("D(100,100)", 1, 10)
    assert (meta["traffic_scenario"], meta["iteration_type"], meta["api_backend"]) == (["D(100,100)"],
                                                                                       "num_concurrency", "baseten")
