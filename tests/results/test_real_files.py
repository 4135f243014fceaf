"""Real outputs from repositories other than the samples' (tests/data/results-real/SOURCES.tsv):
each parsed into valid records with the numbers the file states, or refused with its reason."""

from __future__ import annotations

import pytest

from helpers import ROOT, file_records, no_ref_said, parsed_or_refused
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
FILES = sorted(str(p.relative_to(REAL)) for p in REAL.rglob("*")
               if p.suffix in (".json", ".jsonl", ".csv", ".txt", ".yaml", ".md"))

REFUSED = {
    # hunt 19: was "not JSON or CSV, not a benchmark client output"
    "aiperf/aiperf0.8_profile_export_console_mock_c250k_error_summary_trimmed.txt":
        "format: AIPerf's console tables ('NVIDIA AIPerf | ...'",
    # hunt 16: was "not JSON or CSV"
    "vllm/vllm-bench-serve0.1x_console_stdout_minimax-m2.5_hygon-bw1000_c128.txt": "a serving benchmark's console output",
    "vllm/vllm-ascend_llama8b_tp1_qps1_latency_only.json": "latency-only output",
    "inferencex/agentic_glm5.3flash_sglang_tp4_conc1_mi355x_trimmed.json": "agentic aggregate",
    "lm_eval/lighteval_igakuqa_gptoss120b.json": "a lighteval results file",
    "inferencex/agg_bmk_agentic_qwen3.5-397b_mi300x_2rows.json": "collect_results.py's agg_bmk.json",
    "aiperf/genaiperf_analyze_export_gpt2_5configs.csv": "a GenAI-Perf analyze summary",
    "sglang/sglang_bench_one_batch_server_18runs.jsonl": "an SGLang bench_one_batch result",
    "other/sglang_cosmos3_gsm8k_reasoner_accuracy_infinity_trimmed.json": "unknown JSON output",
    "other/akamas_kernel_probe_L-marlin_custom.json": "unknown JSON output",
    "trtllm/trtllm-bench0.16_llama3.1-70b_fp8_tp8_1024_128_log_trimmed.txt": "a console log, not a benchmark client output",
    # hunt 7: named for what it is (it read "process_result.py aggregate")
    "inferencex/ifx_agentic_v2flat_single_glm5.1_sglang_mi355x_tp2_conc4.json": "an InferenceX agentic aggregate",
    # hunt 8
    "sglang/sglang_bench_one_batch_runname_cudagraph_vs_eager_9runs.jsonl": "an SGLang bench_one_batch result",
    "trtllm/trtllm-bench1.2.0_report_qwen2.5-0.5b_rtx6000_in128_out40_bs1_streaming.json": "a TensorRT-LLM trtllm-bench report",
    # hunt 9
    "sglang/sglang_bench_latency_prefill_decode_2runs.jsonl": "an SGLang bench_one_batch result",
    "other/akamas_lmeval_finished_after_stopreasons.json": "unknown JSON output",
    # hunt 13: named for what they are (the JSON was "unknown JSON output", the CSV "not JSON or CSV")
    # (diff review of 7a23b23: "a report ..., a client whose output ..." called the report a client)
    "other/guidellm0.7.3_gemma4-26b_gfx1201_c1_multiturn_trimmed.json":
        "a GuideLLM benchmarks report (guidellm 0.7.3), the output of a client sweepgate does not read",
    "other/guidellm0.7.3_gemma4-26b_gfx1201_c1_multiturn_header_trimmed.csv":
        "a GuideLLM benchmarks report (CSV), the output of a client sweepgate does not read",
    # hunt 14: named for what it is (it read "collect_results.py's agg_bmk.json")
    "inferencex/ifx_app_supplemental_bmk_glm4.7_gaudi3_2rows_trimmed.json": "InferenceX-app's benchmark rows",
    "lm_eval/lmeval_results_table_gpt4o_kobest_5tasks.csv": "format: a CSV table, not a benchmark client output",
    "other/multiturn_inferencex_custom_summary_kimi_sglang_conc8.json": "format: unknown JSON output",
    "inferencex/ifx_agentic_v4_dsv4-pro_sglang_mi355x_tp8_conc32_hicache_backend_dict_trimmed.json":
        "an InferenceX agentic aggregate",
    # hunt 15: named for what it is (it read "not JSON or CSV")
    "inferencex/ifx_app_dashboard_csv_export_gptoss120b_h200_e2e_2rows_trimmed.csv":
        "format: the InferenceX dashboard's CSV export (one row a point, from process_result.py aggregates: "
        "its (ms) latencies are seconds",
    # formats23: read right (refused with one line), pinned here
    "other/ifx-fork_token_position_decode_slo_glm5_seconds_no_unit_suffix.json":
        "format: latency keys without a unit suffix (median_ttft",
    "other/vllm0.25.1_server_info_opt125m_trimmed.json": "format: unknown JSON output",
    "other/akamas_lmeval_comparison_mcnemar_pairs_trimmed.json": "format: unknown JSON output",
    "other/akamas_probe_M-mtp2_acceptance_custom.json": "format: unknown JSON output",
    "other/aiperf_artifact_user_meta_sidefile.json": "format: unknown JSON output",
    # formats24: read right (refused with one line), pinned here and in test_real_files_formats24.py
    "other/custom_per_request_csv_ttft_tpot_ms_vllm_c1_trimmed.csv": "format: a CSV table, not a benchmark client output",
    "other/sglbench_tool_per_request_log_conc32_trimmed.jsonl": "format: unknown JSON output",
    "other/together_runner_baseline_sglang_dsr1_b200_conc16.json": "format: a benchmark wrapper ({hw, metrics, gpu})",
    "other/sglang_bench_serving_stdout_glm5.2_c32_rr5_p90_p95.txt": "format: a serving benchmark's console output",
    "other/trtllm_custom_smoke_results_csv_3conc.csv": "format: a CSV table, not a benchmark client output",
    "other/vllmbench-rs_workload_config_not_result.json": "format: unknown JSON output",
    # s30h: serving clients sweepgate does not read, named (they were "unknown JSON output");
    # test_other_clients_s30h.py pins each whole line
    "other/inference-perf_summary_lifecycle_metrics_kubecon25_vllm_eagle_12981req.json":
        "format: an inference-perf report (kubernetes-sigs/inference-perf",
    "other/inference-perf_stage0_prometheus_metrics_kubecon25_vllm_eagle.json":
        "format: an inference-perf report (kubernetes-sigs/inference-perf",
    "other/llmperf_summary_groq_llama2-70b_550_150_conc5.json": "format: an LLMPerf summary",
    "other/llmperf_individual_responses_groq_llama2-70b_first2_trimmed.json": "format: LLMPerf's per-request log",
    # s31e: refused at its start (test_other_clients_s31e.py), not at its config's output.format key; named
    # since (it was "unknown JSON output")
    "other/llm-load-test_output_llama2_c20_1of_results_trimmed.json": "format: an llm-load-test output",
    # s31e: named (they were "unknown JSON output"); test_other_clients_s31e.py pins each whole line
    "other/llmperf-bench_tgi2.0.1_llama3-8b-tp1_results_by_conc_first2_trimmed.json":
        "format: LLMPerf summaries by concurrency (philschmid/llmperf-bench's",
    "other/llmperf-bench_tgi2.0.1_llama3-8b-tp1_summary_by_conc.json": "format: llmperf-bench's digest of LLMPerf runs",
    "other/genai-bench0.0.2_glm4.6_baseten_D100_100_c1_10req.json": "format: a genai-bench run (sgl-project/",
    "other/genai-bench0.0.2_experiment_metadata_glm4.6_baseten.json": "format: genai-bench's experiment metadata",
    # s32a hunt: named for what they are (the YAML was "not JSON or CSV", the others "unknown JSON output")
    "other/llm-d_benchmark_report0.2_inference-perf_wide-ep_dsr1-0528_h200x32_c2048.yaml":
        "format: an llm-d-benchmark report (version 0.2, client inference-perf",
    "other/evalscope_perf_summary_dsr1-distill-qwen32b_hygon-k100ai_vllm0.8.5_c64.json":
        "format: an EvalScope perf summary",
    "sglang/sglang_benchmark_script_mtbench_dflash_b300_2lines.jsonl": "format: an SGLang benchmark script's result",
    "lm_eval/lmeval0.4_task_scores_alone_dolphin2.8-mistral-7b_model_card_6tasks.json":
        "format: lm-eval's task scores alone",
    "sglang/sglang_bench_one_batch_results_labelled_by_hand_torch_vs_te_tp4.jsonl":
        "format: line 1 is text ('torch_tp4:'), not JSON, though line 3 is a JSON object",
    # s33e: SGLang-shaped router benchmarks, stored as bench_serving runs until s33e (test_real_files_s33e.py
    # pins each whole line); the other two read right, pinned
    "other/sglang-keys_dlora_router_benchmark_2instances_no_token_totals_2lines.jsonl":
        "format: a serving summary in SGLang bench_serving's key names without total_input_tokens",
    "other/sglang-keys_dynarank_router_benchmark_total_generated_tokens.jsonl":
        "format: a serving summary in SGLang bench_serving's key names without total_output_tokens",
    "other/aiperf_dev_sweep_isl_osl_mem_custom_table.csv": "format: a CSV table, not a benchmark client output",
    "other/aiperfjob_k8s_custom_resource_smoke-rs-c100k_failed_trimmed.json": "format: unknown JSON output",
    # s35e hunt: read right (refused with one line), pinned
    "vllm/vllm0.5.5_nightly_results_table_a100_llama8b_qps2_qps4_trimmed.json":
        "format: a summary table built from several serving results",
    "sglang/sglang_bench_one_batch_server_nottft_quant_runs_first4_trimmed.jsonl": "an SGLang bench_one_batch result",
    "other/vllm0.23dev_openai_completion_response_semantic_smoke_beside_results.json": "format: unknown JSON output",
    "other/aiperf_artifact_prom_window_sidefile_c2.json": "format: unknown JSON output",
    "other/aiperf_artifact_prefix_cache_hits_sidefile_c2.json": "format: unknown JSON output",
    "inferencex/ifx_app_etl_fixture_agentic_agg_request_metrics_nested_dsv41flash_h100_conc4_trimmed.json":
        "format: an InferenceX agentic aggregate",
    # s35e: named for what it is (it read "unknown JSON output"); test_real_files_s35e.py pins its whole line
    "inferencex/ifx_app_tpu_manual_sweep_benchmarks_and_evaluations_qwen3.5_tpuv7_1plus1_trimmed.json":
        "format: an InferenceX run's aggregates",
    # s36e hunt: a fork's chart data, dashboard rows (no latencies) then aggregates, refused as a list of aggregates
    "inferencex/ifx_fork_2025-11_frontend_data_dsr1_1k1k_b200_2dashboard_rows_1agg_trimmed.json":
        "format: InferenceX collect_results.py's agg_bmk.json",
    # s36e hunt: an lm-eval fork's own summary, its "results" key no lm-eval results (no task level, no versions)
    "other/lmeval-fork_multiturn_cot_summary_results_acc_without_versions_medqa_2samples_trimmed.json":
        "format: unknown JSON output",
    # s36e hunt: an InferenceX fork's run status beside its result.json (completed/failed counts, no figures)
    "other/ifx-fork_run_status_sidecar_completed_failed_benchmark_outcome_glm5.2_b300_c16.json":
        "format: unknown JSON output",
    # s36e hunt: a digest in vLLM's key names (means only, no duration or token totals), stored as a run until s36e
    "other/vllm-keys_digest_kimik2.5_h200_pd_disagg_c8_means_only_no_duration.json":
        "format: a serving summary in vLLM bench serve's key names without duration",
    # s38c hunt: a study's digest of SGLang runs (means and p99s, no medians, no token totals, no model_id)
    "other/slo-sched_summary_sglang_key_names_no_token_totals_2lines.jsonl": "format: unknown JSON output",
    # s39j hunt: read right (refused with one line), pinned
    "inferencex/ifx-fork_dashboard_results_gaudi25_llama70b_1row.json":
        "format: InferenceX collect_results.py's agg_bmk.json",
    "other/sglang_moe_tp_ep_layout_deepep_rank0_kernel_trace.jsonl": "format: unknown JSON output",
    # s44e hunt: the MLPerf team's inference-endpoint client, named (test_real_files_s44e.py pins each whole line)
    "other/mlperf-inference-endpoint0.1.0_result_summary_dsr1_poisson_qps85_ns_87103of90000.json":
        "format: an MLPerf inference-endpoint result summary",
    "other/mlperf-inference-endpoint_accuracy_results_dsr1_5subsets.json":
        "format: an MLPerf inference-endpoint accuracy report",
    # s44e hunt: Triton perf_analyzer's -f CSV, named (it was "a CSV table, not a benchmark client output")
    "other/perf_analyzer_csv_inception_graphdef_conc1-4_usec_docs.csv": "format: a perf_analyzer CSV",
    # s45b: llama.cpp's llama-bench -o json, named (it was "unknown JSON output"; test_results_rough_edges_s45b.py)
    "other/llama-bench_b5606_snowpiercer-15b_q3kl_rtx4090_pp8192_tg1280.json": "format: a llama-bench report",
    # s49f hunt: GenAI-Perf's early console tables, named (they were "not JSON or CSV"; test_real_files_s49f.py)
    "aiperf/genaiperf24.06_console_log_llm_metrics_untitled_ns_triton_vllm_c1.txt":
        "format: GenAI-Perf's console tables (its early form: 'LLM Metrics'",
    "aiperf/genaiperf24.03_tutorial_console_pa_llm_metrics_ns_gpt2_triton_vllm_c1.txt":
        "format: GenAI-Perf's console tables (its early form: 'PA LLM Metrics'",
    # s49f hunt: lm-eval's printed results table, named (it was "not JSON or CSV"; test_real_files_s49f.py)
    "lm_eval/lmeval0.4_printed_results_table_qwen_moe_svd_arc_mmlu_groups_trimmed.md":
        "format: lm-eval's printed results table",
    "lm_eval/lmeval0.4_stdout_log_then_printed_table_qwen3.5-2b_w4a16_trimmed.txt":
        "format: lm-eval's printed results table",
    # s49f hunt: SGLang's bench_offline_throughput table, named (it was "not JSON or CSV"; test_real_files_s49f.py)
    "sglang/sglang_bench_offline_throughput_console_qwen2.5-72b-gptq-int4_tp2_sharegpt_1000.txt":
        "format: an SGLang bench_offline_throughput console output",
    # s49f hunt: vLLM's offline throughput line, named (it was "not JSON or CSV"; test_real_files_s49f.py)
    "vllm/vllm-bench-throughput_console_lfm2.5-350m_h100_random512x256_512prompts.txt":
        "format: a vLLM benchmark_throughput console output",
    "vllm/vllm-bench-latency_console_qwen3-8b_rocm_tp1_bs8_in256_out128.txt":
        "format: a vLLM benchmark_latency console output",
}


FAILED_RUNS = {"vllm/vllm0.25.1_opt125m_all_failed_noconc.json",  # every request failed
               "aiperf/aiperf-e2e-fixture_failed_run_zero_placeholders_c16.json",  # every statistic 0.0
               "aiperf/aiperf2026-01_doc_failed_run_all_5_timeouts_records_error_count_only.json"}  # s35e: all 5 timed out
# Files that belong beside a result but are none (skipped, as a gpu_metrics.csv is)
AUXILIARY = {"lm_eval/lmeval0.4.8_flor760m_samples_eqbench_ca_log_samples_2lines_trimmed.jsonl",
             # AIPerf's other exports beside the run's (hunt 7 named them; refused, they failed a whole folder)
             "aiperf/aiperf0.8_server_metrics_export_trimmed.csv",
             "aiperf/aiperf0.8_profile_export_records_trimmed_3rows.csv",
             # hunt 13: the time-slice export (--slice-duration) and its CSV, refused, failed a whole folder
             "aiperf/aiperf_timeslices_glm5.1_mi355x_conc16_trimmed.json",
             "aiperf/aiperf_timeslices_glm5.1_mi355x_conc16_trimmed.csv",
             # hunt 15: InferenceX's start/stop_gpu_monitor (AMD) sidecars, refused, they failed a job's folder
             "inferencex/ifx_gpumonitor_amdsmi_energy_start_mi355x_4gpu.csv",
             "inferencex/ifx_gpumonitor_amdsmi_energy_end_mi355x_4gpu.csv",
             "inferencex/ifx_gpumonitor_amdsmi_static_identity_mi355x_trimmed.json",
             "inferencex/ifx_gpumonitor_nvidiasmi_identity_b300_8gpu.csv",
             # hunt 16: AIPerf's per-request records, a succeeded request's first (no "error" key)
             "aiperf/aiperf-records_llamacpp_llama3.2-3b-gguf_c1_success_then_timeout_2lines_trimmed.jsonl",
             # realdata29: AIPerf's sweep aggregate, JSON and CSV, beside the sweep's own exports: passed over
             # (it was refused, and failed the folder the sweep wrote; test_real_files_formats29.py)
             "aiperf/aiperf0.11_sweep_aggregate_trimmed.json", "aiperf/aiperf0.11_sweep_aggregate_trimmed.csv",
             # realdata29: GenAI-Perf's perf_analyzer export beside its run's own: passed over (it was refused)
             "aiperf/perfanalyzer2.48_raw_profile_export_conc1_first_request_trimmed.json",
             # s35e: AIPerf's server-metrics export as JSON and its ready marker, beside a run's export
             "aiperf/aiperf0.8.0_server_metrics_export_json_smoke_c100k_trimmed.json",
             "aiperf/aiperf0.8.0_smoke_c100k_results_ready_marker_not_cancelled.json",
             # s39d hunt: GPU power samples of monitors other than benchmark_lib.sh's (test_real_files_s39d.py)
             "gpu/nvidia-smi_1gpu_20hz_no_index_column.csv",
             "gpu/gpu_metrics_8gpu_gpu_index_power_W_isoZ_trimmed.csv",
             "gpu/nvidia-smi_8gpu_gpu_and_index_columns_index_all_zero_iso_tz.csv"}


# lm-eval's --log_samples log (the first of AUXILIARY until hunt 16 put AIPerf's records before it: the
# tests below, which copy it as samples_<task>_<time>.jsonl, then ran on an AIPerf record instead)
SAMPLES_LOG = "lm_eval/lmeval0.4.8_flor760m_samples_eqbench_ca_log_samples_2lines_trimmed.jsonl"


def records(rel: str) -> list[dict]:
    return file_records(REAL, rel)


@pytest.mark.parametrize("rel", FILES)
def test_real_file(rel):
    if rel in AUXILIARY:
        from sweepgate.results import sniff

        with pytest.raises(sniff.Auxiliary):
            records(rel)
        return
    for rec in parsed_or_refused(REAL, rel, REFUSED) or []:
        assert rec[R.STATUS] == ("failure" if rel in FAILED_RUNS else "success")


def test_every_file_has_a_source_line():
    listed = {line.split("\t")[0] for line in (REAL / "SOURCES.tsv").read_text().splitlines()[1:]}
    assert listed == set(FILES) and len(FILES) >= 10


@pytest.mark.parametrize("rel", ["aiperf/genaiperf25.0x_qwen2.5-72b_c144_issue393.csv",
                                 "aiperf/genaiperf_aidynamo_cloudai_docs.csv"])
def test_genai_perf_2025_csv_is_genai_perf(rel):
    # GenAI-Perf 25.x writes "Request Count (count)" too; its "(per sec)" units tell it from AIPerf
    (rec,) = records(rel)
    assert rec[R.CLIENT] == "genai-perf" and rec[R.SOURCE_FORMAT] == "genai-perf-csv"


def test_genai_perf_2025_csv_numbers():
    m = records("aiperf/genaiperf25.0x_qwen2.5-72b_c144_issue393.csv")[0][R.METRICS]
    assert m[R.COMPLETED] == 353 and m[R.REQUEST_THROUGHPUT] == 1.7 and m[R.OUTPUT_THROUGHPUT] == 410.43
    assert m["ttft_p50_ms"] == 35425.56 and m["e2el_p99_ms"] == 101001.72 and m["tpot_mean_ms"] == 159.59


def test_aiperf_csv_and_json_of_one_run_agree():
    # the CSV names the totals "Total Output Sequence Length"; the JSON "total_osl"
    (cs,) = records("aiperf/aiperf0.11_qwen3-4b_g7_conc16.csv")
    (js,) = records("aiperf/aiperf0.11_qwen3-4b_g7_conc16_trimmed.json")
    assert cs[R.CLIENT] == js[R.CLIENT] == "aiperf"
    assert cs[R.METRICS][R.TOTAL_OUTPUT_TOKENS] == js[R.METRICS][R.TOTAL_OUTPUT_TOKENS] == 537554
    for name in ("ttft_p99_ms", "tpot_p50_ms", "itl_p90_ms", R.COMPLETED, R.DURATION_S, R.OUTPUT_THROUGHPUT):
        assert cs[R.METRICS][name] == pytest.approx(js[R.METRICS][name], rel=1e-3, abs=0.01)


def test_genai_perf_24_json():
    (rec,) = records("aiperf/genaiperf24.12_trtllm_kserve_streaming_c100_issue298.json")
    m = rec[R.METRICS]
    assert rec[R.CLIENT] == "genai-perf" and rec[R.CONC] == 100 and rec[R.MODEL] == "ensemble"
    assert m["ttft_p50_ms"] == 172.8093975 and m["tpot_mean_ms"] == 2.1767344516666665
    assert m["e2el_p99_ms"] == 5910.154859249999 and m[R.OUTPUT_THROUGHPUT] == 44190.56002502682
    (plain,) = records("aiperf/genaiperf24.12_trtllm_kserve_nonstreaming_c100_issue298.json")
    assert "tpot_p50_ms" not in plain[R.METRICS] and R.INTERACTIVITY not in plain[R.METRICS]


def test_lm_eval_limit_and_filters():
    (asdiv,) = records("lm_eval/lmeval0.4.3_asdiv_llama3-8b_limit50_trimmed.json")
    assert [(e[R.EVAL_METRIC], e[R.EVAL_FILTER], e[R.EVAL_VALUE], e[R.EVAL_SAMPLES]) for e in asdiv[R.EVALS]] == [
        ("acc", "none", 0.92, 50)]
    (gsm,) = records("lm_eval/lmeval0.4.13_gsm8k_platinum_gemma4-26b_trimmed.json")
    assert {e[R.EVAL_FILTER] for e in gsm[R.EVALS]} == {"strict-match", "flexible-extract"}
    assert gsm[R.MODEL] == "gemma4-26b-l40s" and gsm[R.CLIENT_VERSION] == "0.4.13"


def test_genai_perf_config_file_layout_is_genai_perf_with_its_concurrency():
    # 2025's config-file layout keeps concurrency under perf_analyzer.stimulus, service_kind under endpoint
    (rec,) = records("aiperf/genaiperf2025_cfgfile_gptoss20b_a100_conc1_trimmed.json")
    assert (rec[R.CLIENT], rec[R.SOURCE_FORMAT], rec[R.CONC]) == ("genai-perf", "genai-perf-json", 1)
    m = rec[R.METRICS]
    assert rec[R.MODEL] == "openai/gpt-oss-20b" and m[R.COMPLETED] == 35
    assert m["ttft_mean_ms"] == pytest.approx(1524.6265132) and m[R.REQUEST_THROUGHPUT] == pytest.approx(0.4701030011)


def test_lm_eval_start_and_finish_times_and_na_stderr():
    (rec,) = records("lm_eval/lmeval0.4.13_ifeval_gemma4-26b_stderr_na.json")
    # date 1791463521.91 is the start (Unix time), total_evaluation_time_seconds "204.31..." the length
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2026-10-08T12:45:21+00:00", "2026-10-08T12:48:46+00:00")
    stderr = {e[R.EVAL_METRIC]: e[R.EVAL_STDERR] for e in rec[R.EVALS]}
    assert stderr["inst_level_strict_acc"] is None  # lm-eval wrote "N/A"
    assert stderr["prompt_level_strict_acc"] == pytest.approx(0.0136110425)


def test_aiperf_records_keyed_by_tag_are_read_and_agree_with_their_csv():
    """AIPerf of late 2025 kept the metrics under "records" by tag; it was refused as the
    pre-release export keyed by display name."""
    (js,) = records("aiperf/aiperf2025-10_records_by_tag_gptoss20b_c100.json")
    (cs,) = records("aiperf/aiperf2025-10_records_by_tag_gptoss20b_c100.csv")
    assert (js[R.CLIENT], js[R.CONC], js[R.MODEL]) == ("aiperf", 100, "openai/gpt-oss-20b")
    m = js[R.METRICS]
    assert (m[R.COMPLETED], m[R.FAILED], m[R.SUCCESS_RATE]) == (89, 11, 0.89)
    assert m["ttft_p50_ms"] == pytest.approx(2369.317693) and m[R.OUTPUT_THROUGHPUT] == pytest.approx(2320.72223)
    for name in ("ttft_p99_ms", "tpot_p50_ms", "itl_p90_ms", "e2el_mean_ms", R.REQUEST_THROUGHPUT):
        assert cs[R.METRICS][name] == pytest.approx(m[name], abs=0.01)


def test_a_2024_vllm_fork_s_latency_ms_is_the_end_to_end_latency():
    (rec,) = records("vllm/vllm0.5-fork_lambdalabs_llama3.1-8b_latency_ms.json")
    m = rec[R.METRICS]
    assert (m["e2el_mean_ms"], m["e2el_p50_ms"], m["e2el_p99_ms"]) == pytest.approx((1082.93446, 491.873048, 5397.09954))


def test_an_lm_eval_adapter_run_is_not_stored_as_its_base_model():
    """Hunt 8: a PEFT adapter's scores were stored under the base model's name."""
    (rec,) = records("lm_eval/lmeval0.4.3_asdiv_cot_llama_peft_relpath_limit512float_8shot.json")
    assert rec[R.MODEL] == ("meta-llama/Meta-Llama-3-8B-Instruct with adapter "
                            "../prompt-pursuit/results/aug17/gsm8k_8shot_pursue_numq_1000_r16_lr1e-6/epoch_5")


def test_an_old_sglang_layout_gets_its_request_rate_from_its_counts():
    """Hunt 8: the Dec 2024 layout has completed and duration but no request_throughput."""
    recs = records("sglang/sglang2024-12_llama3.3-70b_h200_rate_sweep_medians_only_rr0.jsonl")
    assert len(recs) == 5
    m = recs[0][R.METRICS]
    assert m[R.REQUEST_THROUGHPUT] == pytest.approx(300 / 298.36731477989815)
    assert m[R.INPUT_THROUGHPUT] == pytest.approx(152612 / 298.36731477989815)
    assert m[R.OUTPUT_THROUGHPUT] == pytest.approx(537.4147638064377)
    assert m[R.latency_name("ttft", "p50")] == pytest.approx(82.87082647439092)


def test_an_lm_eval_group_without_an_aggregate_is_skipped_not_a_refused_score():
    """Hunt 9: lm-eval writes {" ": " "} for a group it aggregates nothing of; the whole file was refused."""
    (rec,) = records("lm_eval/lmeval0.4.5_leaderboard_musr_gpt4o_group_space_placeholder.json")
    got = {(e[R.EVAL_TASK], e[R.EVAL_METRIC], e[R.EVAL_FILTER]): (e[R.EVAL_VALUE], e[R.EVAL_STDERR], e[R.EVAL_SAMPLES])
           for e in rec[R.EVALS]}
    assert got == {
        ("leaderboard_musr_murder_mysteries", "exact_match", "get-answer"): (0.176, pytest.approx(0.024133497525457116), 250),
        ("leaderboard_musr_object_placements", "exact_match", "get-answer"): (0.1640625, pytest.approx(0.023191106822697462), 256),
        ("leaderboard_musr_team_allocation", "exact_match", "get-answer"): (0.124, pytest.approx(0.02088638225867326), 250)}


def test_a_2024_sglang_line_without_a_dataset_name_claims_no_lengths():
    """Hunt 9: no dataset_name meant ShareGPT (bench_serving's default then); the random lengths it
    carries are unused defaults (1024/128, while its requests averaged 403 in and 255 out)."""
    recs = records("sglang/sglang_2024-11_dlora_nodataset_rr0_100prompts.jsonl")
    assert recs and all(r[R.ISL] is None and r[R.OSL] is None for r in recs)
    (fixed,) = records("sglang/sglang_2024-12_deepseek_dp_mla_rateinf.jsonl")
    assert (fixed[R.ISL], fixed[R.OSL], fixed[R.REQUEST_RATE]) == (1, 512, "inf")


def test_a_vllm_bench_multi_turn_run_names_its_concurrency_and_date():
    """Hunt 9: vllm-bench (Rust) states multi_turn_concurrency, not max_concurrency, and an ISO date."""
    (rec,) = records("vllm/vllmbench-rs_multiturn_qwen3.8-27b-fp8_gfx1201_conc2_specdecode.json")
    assert rec[R.CONC] == 2 and rec[R.FINISHED] == "2026-09-04T20:34:56+00:00"
    m = rec[R.METRICS]
    assert (m[R.COMPLETED], m[R.FAILED]) == (16, 0)
    assert m[R.latency_name("ttft", "p50")] == pytest.approx(986.3584294999999)


def test_an_unstreamed_genai_perf_run_keeps_no_time_to_first_token(tmp_path, capsys):
    """Hunt 8: GenAI-Perf with streaming off exports a time_to_first_token equal to the request's
    latency; stored as TTFT it read as a 25x change against the streamed run of the same setup.
    Its TTFT (and TPOT, ITL) is left out, with a warning; the streamed twin keeps its own."""
    import json

    from helpers import ROW, run_cli

    plain = records("aiperf/genaiperf24.12_trtllm_kserve_nonstreaming_c100_issue298.json")
    streamed = records("aiperf/genaiperf24.12_trtllm_kserve_streaming_c100_issue298.json")
    (rec,), (twin,) = plain, streamed
    assert not [k for k in rec[R.METRICS] if k.startswith(("ttft_", "tpot_", "itl_"))], rec[R.METRICS]
    assert rec[R.METRICS][R.latency_name("e2el", "p50")] == pytest.approx(4355.8502165)
    assert twin[R.METRICS][R.latency_name("ttft", "p50")] == pytest.approx(172.81, abs=0.01)
    row = tmp_path / "row.json"
    row.write_text(json.dumps({**ROW, "conc": 100, "isl": 200, "osl": 500}), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row", str(row),
                           "--run-id", "1", "--ref", "refs/heads/main",
                           str(REAL / "aiperf/genaiperf24.12_trtllm_kserve_nonstreaming_c100_issue298.json"))
    assert rc == 0 and "warning: ttft: the client did not stream (streaming: false)" in err, err


def test_a_run_whose_responses_outran_its_output_length_is_warned_of(tmp_path, capsys):
    """Hunt 8: GenAI-Perf 24.12 counted streamed tokens about five times over (2,565.9 per response
    at a fixed 500); its output throughput was stored without a word."""
    import json

    from helpers import ROW, run_cli

    row = tmp_path / "row.json"
    row.write_text(json.dumps({**ROW, "conc": 100, "isl": 200, "osl": 500}), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row", str(row),
                         "--run-id", "1", "--ref", "refs/heads/main",
                         str(REAL / "aiperf/genaiperf24.12_trtllm_kserve_streaming_c100_issue298.json"))
    assert rc == 0 and "warning: input_config.output_tokens_mean: the run fixed 500 output tokens per request but " \
        "its responses averaged " \
        "2565.9" in err, err


def test_an_lm_eval_group_counts_the_samples_of_its_subtasks_nested_groups_included():
    """A group has no n-samples entry of its own: its rows stored no sample count, so a group rerun
    on another --limit was never told apart. mmlu = mmlu_stem (100) + mmlu_humanities (126 + 171)."""
    (rec,) = records("lm_eval/lmeval0.4.7_qwen2.5-1.5b_11tasks_mmlu_groups_trimmed.json")
    samples = {e[R.EVAL_TASK]: e[R.EVAL_SAMPLES] for e in rec[R.EVALS]}
    assert (samples["mmlu_stem"], samples["mmlu_humanities"], samples["mmlu"]) == (100, 297, 397)
    assert samples["mmlu_formal_logic"] == 126 and samples["winogrande"] == 1267


def test_an_lm_eval_score_it_wrote_as_infinity_is_left_out_and_the_others_are_stored(tmp_path, capsys):
    """Hunt 10: lm-eval 0.4.8 wrote one task's mean absolute error as Infinity (its stderr NaN);
    the whole file, eleven good scores with it, was refused as "edited"."""
    from helpers import run_cli

    rel = "lm_eval/lmeval0.4.8_gpt4o-mini_materials_12tasks_mae_infinity_nan_trimmed.json"
    (rec,) = records(rel)
    scores = {e[R.EVAL_TASK]: e for e in rec[R.EVALS]}
    assert len(scores) == 11 and "polymer_tg_prediction" not in scores
    lattice = scores["pxrd_lattice_prediction"]
    assert (lattice[R.EVAL_METRIC], lattice[R.EVAL_VALUE], lattice[R.EVAL_SAMPLES]) == ("mae", 3.9685864222222222, 60)
    assert lattice[R.EVAL_HIGHER] is False
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(REAL / rel))
    assert rc == 0 and "results.polymer_tg_prediction.mae,none: lm-eval wrote inf, no score; left out" in err, err


def test_an_lm_eval_stderr_it_wrote_as_nan_is_stored_as_unknown():
    from sweepgate.results.formats import lm_eval

    doc = {"results": {"t": {"acc,none": 0.5, "acc_stderr,none": float("nan")}}, "versions": {"t": 1}}
    m = lm_eval.parse(doc, "x.json", 0)
    assert m.evals[0][R.EVAL_STDERR] is None and [n[0] for n in m.notes] == ["eval-no-stderr"]


@pytest.mark.parametrize("rel, place, start", [
    ("lm_eval/lmeval0.4.8_gpt4o-mini_materials_12tasks_mae_infinity_nan_trimmed.json", "12:65",
     "warning: results.polymer_tg_prediction.mae,none:"),
    ("aiperf/genaiperf24.12_trtllm_kserve_nonstreaming_c100_issue298.json", "1:1", "warning: ttft:")])
def test_a_warning_on_a_whole_json_output_names_its_line_and_column(tmp_path, capsys, rel, place, start):
    """Hunt 10: a stored-with-a-warning line read `out.json: warning: ...`, with no line, where a
    refusal of the same file reads `out.json:12:65: ...`."""
    from helpers import run_cli

    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(REAL / rel))
    assert rc == 0 and err.startswith(f"{REAL / rel}:{place}: {start}"), err


def test_an_lm_eval_output_folder_with_its_samples_log_is_ingested_whole(tmp_path, capsys):
    """Hunt 10: `lm_eval --log_samples --output_path DIR` writes samples_<task>_<time>.jsonl beside
    results_<time>.json; ingesting DIR refused the samples log as 'unknown JSON output' (exit 1)."""
    import shutil

    from helpers import run_cli

    shutil.copy(REAL / "lm_eval/lmeval0.4.13_ifeval_gemma4-26b_stderr_na.json", tmp_path / "results_x.json")
    shutil.copy(REAL / SAMPLES_LOG, tmp_path / "samples_eqbench_ca_x.jsonl")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path))
    assert rc == 0 and "ingested 1 results (1 new)" in out and "unknown JSON" not in err, err


def test_a_file_that_goes_with_a_result_is_said_to_be_passed_over(tmp_path, capsys):
    """Hunt 10: naming only lm-eval's samples log (or a gpu_metrics.csv) printed 'ingested 0 results
    (0 new) ...; nothing stored' and exit 0, without a word of why: it is now counted (and listed with
    --verbose) as a file that goes with a result but holds none."""
    import shutil

    from helpers import run_cli

    log = tmp_path / "samples_eqbench_ca_x.jsonl"
    shutil.copy(REAL / SAMPLES_LOG, log)
    rc, out, err = run_cli(capsys, "results", "ingest", "--verbose", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(log))
    assert rc == 0, err
    assert f"skipped {log}" in out.splitlines()
    assert ("skipped 1 file with no result (GPU metrics, lm-eval samples logs, AIPerf's and GenAI-Perf's other exports: "
            "files that go beside one)") in out
    assert "ingested 0 results (0 new)" in out and "nothing stored" in out


def test_a_folder_of_only_companion_files_is_a_folder_without_results(tmp_path, capsys):
    """Diff review: a folder holding only lm-eval's samples log (or only a GPU metrics CSV) stored
    nothing and exited 0, where the contract makes a folder with no result files exit 1 unless
    --allow-empty (a sweep whose rows were all reused)."""
    import shutil

    from helpers import run_cli

    folder = tmp_path / "onlys"
    folder.mkdir()
    shutil.copy(REAL / SAMPLES_LOG, folder / "samples_x_1.jsonl")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 1 and err.startswith(f"{folder}: no result files in this folder, only files that go with one"), err
    rc, out, err = run_cli(capsys, "results", "ingest", "--allow-empty", "--db", db, str(folder))
    assert rc == 0 and "nothing stored" in out, err


def test_inferencex_client_start_and_end_unix_times_are_the_runs_window():
    """Hunt 11: InferenceX's benchmark_serving writes benchmark_start_time_unix and
    benchmark_end_time_unix (UTC) beside the local-time ``date``; the start was dropped (stored
    unknown) and the end read from ``date`` without its zone."""
    (rec,) = records("vllm/ifx_vllm0.22_gptoss120b_h200_tp4_conc8_start_end_unix.json")
    # start 1781129194.73 (UTC); the end stays `date` (20260610-220749, as stored before: a result
    # stored by an older sweepgate must read the same on a second ingest, results being immutable)
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2026-06-10T22:06:34+00:00", "2026-06-10T22:07:49+00:00")
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.REQUEST_RATE], m[R.COMPLETED], m[R.FAILED]) == (8, "inf", 80, 0)
    assert m[R.TOTAL_TOKEN_THROUGHPUT] == pytest.approx(1983.5733788122066)
    assert (m["ttft_p50_ms"], m["ttft_p90_ms"], m["e2el_p99_ms"]) == pytest.approx((87.5548789917957, 126.09338206821155,
                                                                                    9383.856329425469))


def test_a_nan_in_an_aiperf_export_is_refused_by_the_export_s_own_key(tmp_path, capsys):
    """Diff review of 632e207: a NaN is named by the output's own key at its place, but AIPerf's
    statistics were still refused as `ttft_p50_ms` at 1:1, a name and place the export does not have."""
    import json

    from helpers import run_cli

    doc = json.loads((REAL / "aiperf/aiperf0.10_qwen3.6-nvfp4_rtx5090_agent_c16.json").read_text(encoding="utf-8"))
    doc["time_to_first_token"]["p50"] = float("nan")
    bad = tmp_path / "export.json"
    text = json.dumps(doc, indent=2)
    bad.write_text(text, encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(bad))
    at = text.index('"p50": NaN')
    line, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    assert rc == 1 and err.startswith(f"{bad}:{line}:{col}: time_to_first_token.p50: nan is not a measurement"), err


def test_a_folder_of_only_companion_files_beside_one_with_results_is_still_refused(tmp_path, capsys):
    """Diff review of 81792d4: the companion-only folder was refused only when no other path held a
    result, while an empty folder is refused beside any other (`walk`): `ingest onlys/ results/`
    stored results/ and exited 0, `ingest empty/ results/` exited 1."""
    import shutil

    from helpers import run_cli

    onlys, results = tmp_path / "onlys", tmp_path / "results"
    onlys.mkdir()
    results.mkdir()
    shutil.copy(REAL / "lm_eval/lmeval0.4.8_flor760m_samples_eqbench_ca_log_samples_2lines_trimmed.jsonl",
                onlys / "samples_x_1.jsonl")
    shutil.copy(REAL / "aiperf/aiperf0.10_qwen3.6-nvfp4_rtx5090_agent_c16.json", results / "export.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(onlys), str(results))
    assert rc == 1 and no_ref_said(err) == f"{onlys}: no result files in this folder, only files that go with one " \
        "(GPU metrics, lm-eval samples logs, AIPerf's and GenAI-Perf's other exports); pass the folder the job outputs were downloaded into\n", err
    rc, out, err = run_cli(capsys, "results", "ingest", "--allow-empty", "--db", db, str(onlys), str(results))
    assert rc == 0, err


def test_a_run_that_states_no_count_and_served_nothing_keeps_no_latencies():
    """Hunt 13: AIPerf's fixture of a failed run writes every statistic as 0.0 and no request count;
    it was stored as failed, but with its 0 ms placeholders as measured TTFT, TPOT and E2EL."""
    (rec,) = records("aiperf/aiperf-e2e-fixture_failed_run_zero_placeholders_c16.json")
    assert rec[R.STATUS] == "failure" and rec[R.MODEL] == "mistral-7b"
    assert rec[R.METRICS] == {R.REQUEST_THROUGHPUT: 0, R.OUTPUT_THROUGHPUT: 0}


def test_an_aiperf_run_with_timed_out_requests_counts_them_failed():
    """Hunt 13: AIPerf 0.8.0 against llama.cpp, 5 of 20 requests past the 30 s timeout."""
    (rec,) = records("aiperf/aiperf0.8.0_llamacpp_qwen3-4b-gguf_c1_5timeouts_trimmed.json")
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.ISL], rec[R.OSL]) == (1, None, None)  # a custom input file: no lengths
    assert (m[R.COMPLETED], m[R.FAILED], m[R.SUCCESS_RATE]) == (15, 5, 0.75)
    assert m["ttft_p50_ms"] == pytest.approx(418.73477299999996) and m["itl_p99_ms"] == pytest.approx(47.04946756)
    assert m[R.DURATION_S] == pytest.approx(272.820771857) and m[R.TOTAL_OUTPUT_TOKENS] == 3550


def test_an_aiperf_artifact_folder_with_its_time_slice_export_stores_its_run(tmp_path, capsys):
    """Hunt 13: an InferenceX agentic job runs AIPerf with --slice-duration, which writes
    profile_export_aiperf_timeslices.json and .csv beside the run's export; ingesting the folder stored the
    run but exited 1 on the JSON ("an AIPerf timeslice export"), and the CSV alone read "not JSON or CSV"."""
    import shutil

    from helpers import run_cli

    folder = tmp_path / "aiperf_artifacts"
    folder.mkdir()
    shutil.copy(REAL / "aiperf/aiperf0.10_qwen3.6-nvfp4_rtx5090_agent_c16.json", folder / "profile_export_aiperf.json")
    for ext in ("json", "csv"):
        shutil.copy(REAL / f"aiperf/aiperf_timeslices_glm5.1_mi355x_conc16_trimmed.{ext}",
                    folder / f"profile_export_aiperf_timeslices.{ext}")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0 and no_ref_said(err) == "" and "ingested 1 results (1 new)" in out, (out, err)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder / "profile_export_aiperf_timeslices.csv"))
    assert rc == 0 and "skipped 1 file with no result" in out and "not JSON or CSV" not in err, (out, err)


def test_the_csv_export_of_a_run_with_timeouts_agrees_with_its_json():
    """Hunt 13: AIPerf 0.8.0's CSV of the 5-timeout run: its rounded figures, as written."""
    (cs,) = records("aiperf/aiperf0.8.0_llamacpp_qwen3-4b-gguf_c1_5timeouts.csv")
    (js,) = records("aiperf/aiperf0.8.0_llamacpp_qwen3-4b-gguf_c1_5timeouts_trimmed.json")
    assert (cs[R.CLIENT], cs[R.CONC], cs[R.METRICS][R.REQUEST_THROUGHPUT]) == ("aiperf", None, 0.05)  # as rounded
    for name in (R.COMPLETED, R.FAILED, R.TOTAL_OUTPUT_TOKENS, "ttft_p50_ms", "itl_p99_ms", R.DURATION_S):
        assert cs[R.METRICS][name] == pytest.approx(js[R.METRICS][name], abs=0.01)


def test_a_csv_no_reader_takes_is_called_a_csv_table(tmp_path, capsys):
    """Hunt 13: any CSV that is no AIPerf/GenAI-Perf export was refused as "not JSON or CSV"."""
    from helpers import run_cli

    table, text = tmp_path / "report.csv", tmp_path / "notes.txt"
    table.write_text("Model,Concurrency,TTFT (ms)\nqwen,8,41.2\n", encoding="utf-8")
    text.write_text("throughput was fine\nsee the log\n", encoding="utf-8")
    # Diff review of 7a23b23: one line of text with a comma in it is no table (a client's last words)
    error = tmp_path / "out.json"
    error.write_text("ERROR: server died, exit 1\n", encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(table), str(text),
                         str(error))
    lines = err.splitlines()
    assert rc == 1 and lines[0].startswith(f"{table}:1: format: a CSV table, not a benchmark client output"), err
    assert lines[1].startswith(f"{text}:1: format: not JSON or CSV"), err
    assert lines[2].startswith(f"{error}:1: format: not JSON or CSV"), err


def test_an_inferencex_run_against_atom_with_mtp_keeps_its_own_itl_and_tpot():
    """Hunt 13: InferenceX's client keeps input_lens/output_lens (no ttfts or itls) since mid-2026; under
    MTP a streamed chunk carries several tokens, so its ITL (50.1 ms) is above its TPOT (17.3 ms)."""
    (rec,) = records("vllm/ifx_atom_mtp_qwen3.5-397b-fp8_tp4_conc64_isl8192_osl1024_profile.json")
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.REQUEST_RATE], m[R.COMPLETED], m[R.FAILED]) == (64, "inf", 64, 0)
    assert (m[R.TOTAL_INPUT_TOKENS], m[R.TOTAL_OUTPUT_TOKENS]) == (468058, 59194)
    assert (m["itl_mean_ms"], m["tpot_mean_ms"]) == pytest.approx((50.101673735046504, 17.34632734162186))
    assert m["ttft_p90_ms"] == pytest.approx(10192.873542697635)  # the summary's own, not from arrays
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2026-08-04T14:32:36+00:00", "2026-08-04T14:33:00+00:00")


def test_an_sglang_run_with_eagle3_keeps_its_figures_and_its_stated_token_count():
    """Hunt 14: SGLang 0.5.9 with EAGLE3 (accept_length 2.2), TP16 over two nodes: the tokens it states
    (512000), not the retokenized count (511864); no failed count, since bench_serving states none."""
    (rec,) = records("sglang/sglang0.5.9_kimik2.5_eagle3_tp16_2nodes_c8_trimmed.jsonl")
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.ISL], rec[R.OSL], rec[R.REQUEST_RATE]) == (8, 1024, 512, "inf")
    assert (rec[R.MODEL], rec[R.CLIENT_VERSION]) == ("/data2/data_shared/Kimi-K2.5_int4_2", "0.5.9+maca3.5.3.204")
    assert (m[R.COMPLETED], m[R.TOTAL_OUTPUT_TOKENS], m.get(R.FAILED)) == (1000, 512000, None)
    assert m["e2el_p90_ms"] == pytest.approx(9059.83310751617) and m["itl_p99_ms"] == pytest.approx(56.84784039234122)
    assert m[R.TOTAL_TOKEN_THROUGHPUT] == pytest.approx(1584.180377394404) and m[R.DURATION_S] == pytest.approx(969.586558398325)


def test_lm_eval_scores_of_zero_are_stored_as_written():
    """Hunt 14: lm-eval 0.4.8's eqbench (a 0-100 scale) where no answer parsed: 0.0, its samples the limit's 10."""
    (rec,) = records("lm_eval/lmeval0.4.8_flor760m_eqbench_ca_es_limit10_all_zero_trimmed.json")
    got = {(e[R.EVAL_TASK], e[R.EVAL_METRIC]): (e[R.EVAL_VALUE], e[R.EVAL_STDERR], e[R.EVAL_SAMPLES], e[R.EVAL_HIGHER])
           for e in rec[R.EVALS]}
    assert got == {(t, name): (0.0, 0.0, 10, True) for t in ("eqbench_ca", "eqbench_es")
                   for name in ("eqbench", "percent_parseable")}
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2025-07-21T12:41:26+00:00", "2025-07-21T12:41:49+00:00")


def test_inferencex_clients_percentiles_as_asked_for():
    """Hunt 14: --metric-percentiles 50,90,95,99 writes p50_* beside median_* (the same) and p95_*
    (kept since formats20: it was dropped); a multi-node output's model is a cache snapshot path ending in '/'."""
    (rec,) = records("vllm/ifx_benchserving_gptoss120b_nebius_metric_percentiles_50_90_95_99_4prompts_c4.json")
    m = rec[R.METRICS]
    assert (rec[R.CONC], m[R.COMPLETED], m[R.FAILED]) == (4, 4, 0)
    assert (m["ttft_p50_ms"], m["ttft_p90_ms"], m["e2el_p99_ms"]) == pytest.approx(
        (911.2682650002171, 1208.019636399331, 7152.181428949916))
    assert (m["ttft_p95_ms"], m["tpot_p95_ms"], m["itl_p95_ms"], m["e2el_p95_ms"]) == pytest.approx(
        (1236.5425776992197, 6.7661305540780265, 6.432928199592425, 7104.861956750028))
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2026-06-07T09:07:54+00:00", "2026-06-07T09:08:01+00:00")
    (mm,) = records("vllm/ifx_benchserving_minimax-m2.5_disagg_16gpu_snapshot_slash_conc4.json")
    assert mm[R.MODEL].endswith("/snapshots/f710177d938eff80b684d42c5aa84b382612f21f/") and mm[R.CONC] == 4
    assert mm[R.METRICS]["tpot_p99_ms"] == pytest.approx(15.41568306727628) and mm[R.METRICS][R.FAILED] == 0


def test_a_steered_model_is_its_base_model_with_its_steering_vector():
    """Hunt 14: lm-eval's sae_steered_beta names its model base_name and its steering vector csv_path;
    the scores were stored under lm-eval's model_name, the steering CSV's path, as if it were the model."""
    (rec,) = records("lm_eval/lmeval2025-01_sae_steered_gemma2-2b_dog_steer_csv_mmlu_abstract_algebra.json")
    assert rec[R.MODEL] == ("google/gemma-2-2b with adapter "
                            "/home/cs29824/matthew/lm-evaluation-harness/examples/dog_steer.csv")
    (e,) = rec[R.EVALS]
    assert (e[R.EVAL_TASK], e[R.EVAL_VALUE], e[R.EVAL_SAMPLES]) == ("mmlu_abstract_algebra", 0.34, 100)
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2025-01-21T00:38:59+00:00", "2025-01-21T00:40:09+00:00")


@pytest.mark.parametrize("args, model", [
    ("pretrained=google/gemma-2-2b,steer_path=/x/steer.pt", "google/gemma-2-2b with adapter /x/steer.pt"),
    ("pretrained=google/gemma-2-2b,dtype=bfloat16", "google/gemma-2-2b")])
def test_hf_steered_model_args_name_the_steering_vector(args, model):
    """Hunt 14: lm-eval's `steered` model (hf) takes pretrained= and steer_path=; as the file above."""
    import json

    from sweepgate.results.formats import lm_eval

    doc = json.loads((REAL / "lm_eval/lmeval2025-01_sae_steered_gemma2-2b_dog_steer_csv_mmlu_abstract_algebra.json")
                     .read_text(encoding="utf-8"))
    doc["config"] = {**doc["config"], "model": "steered", "model_args": args}
    assert lm_eval.parse(doc, "res.json", 1).fields[R.MODEL] == model


def test_lm_eval_2026_results_with_names_and_sample_counts():
    """Hunt 14: lm-eval of 2026 writes "name", "sample_len" and a group's "sample_count" object beside the
    scores; a group without aggregate_metric_list is {"alias", "name"} alone (lm_eval/api/group.py,
    Group.aggregate), which was refused: 'results.<group>.name: expected a finite number'."""
    import json

    from sweepgate.results.formats import lm_eval

    rel = "lm_eval/lmeval2026_cpu_group_regression_expected_arc_limit10_name_sample_len.json"
    (rec,) = records(rel)
    got = {(e[R.EVAL_TASK], e[R.EVAL_METRIC]): (e[R.EVAL_VALUE], e[R.EVAL_STDERR], e[R.EVAL_SAMPLES]) for e in rec[R.EVALS]}
    assert got[("regression_arc", "acc")] == (0.15, None, 20) and got[("arc_easy", "acc_norm")] == (0.1, None, 10)
    assert len(got) == 6
    doc = json.loads((REAL / rel).read_text(encoding="utf-8"))
    doc["results"]["regression_arc"] = {"alias": "regression_arc", "name": "regression_arc"}
    m = lm_eval.parse(doc, "res.json", 1)
    assert sorted({e[R.EVAL_TASK] for e in m.evals}) == ["arc_challenge", "arc_easy"]


def test_a_run_of_one_token_per_request_keeps_no_tpot_or_itl():
    """Hunt 14: 1000 requests asking 2000 tokens each produced one (90000-token prompts on a GLM-5 with
    too little KV cache): SGLang writes TPOT and ITL as 0.0, its mean of nothing. They were stored as
    0 ms measured latencies (TPOT p50 0.00 in the table); the short-output warning stays."""
    (rec,) = records("sglang/sglang0.5.9_glm5_dpattn_i90000_o2000_c64_one_token_each_trimmed.jsonl")
    m = rec[R.METRICS]
    assert not [name for name in m if name.startswith(("tpot_", "itl_"))] and R.INTERACTIVITY not in m
    assert (m[R.COMPLETED], m[R.TOTAL_OUTPUT_TOKENS], rec[R.OSL]) == (1000, 1000, 2000)
    assert m["ttft_p50_ms"] == pytest.approx(10246.50391866453) and m["e2el_p90_ms"] == pytest.approx(10713.136776490137)


def test_a_vllm_ramp_up_run_is_refused_not_stored_at_an_unlimited_rate(tmp_path, capsys):
    """Hunt 14: with --ramp-up-strategy, vllm bench serve (vllm/benchmarks/serve.py, main) writes
    ramp_up_strategy, ramp_up_start_rps and ramp_up_end_rps beside request_rate "inf", its unused default;
    it was stored as an unlimited-rate run and matched with one. Here a real 0.25.1 output with the keys."""
    import json

    from helpers import run_cli

    doc = json.loads((REAL / "vllm/vllm0.25.1_opt125m_c2_specless.json").read_text(encoding="utf-8"))
    doc.update(request_rate="inf", ramp_up_strategy="linear", ramp_up_start_rps=1, ramp_up_end_rps=10)
    out = tmp_path / "ramp.json"
    out.write_text(json.dumps(doc), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(out))
    assert rc == 1 and f"{out}:1:" in err and "ramp_up_strategy: a linear ramp-up run (from 1 to 10 req/s)" in err, err


SGL_0518 = "sglang/sglang0.5.18_qwen3.5-397b-mxfp4_mi355x_tp4_eagle_c4_rr0.8_cache_report_trimmed.jsonl"


def test_sglang_0_5_18_with_a_cache_report_and_text_and_vision_token_counts():
    """Hunt 15: SGLang 0.5.18 adds total_input_text_tokens, total_input_vision_tokens and a cache_report
    object; concurrency (3.97, the mean in flight) and max_concurrent_requests (7) are not the point's."""
    (rec,) = records(SGL_0518)
    m = rec[R.METRICS]
    assert (rec[R.MODEL], rec[R.CONC], rec[R.ISL], rec[R.OSL]) == ("amd/Qwen3.5-397B-A17B-MXFP4", 4, 32768, 1024)
    assert (m[R.COMPLETED], m[R.TOTAL_INPUT_TOKENS], m[R.TOTAL_OUTPUT_TOKENS]) == (40, 1184722, 36717)
    assert m["ttft_p90_ms"] == 2390.4992796015 and m["itl_p50_ms"] == 3.3433176507242024
    assert m["e2el_p99_ms"] == 9695.38447559229 and m[R.DURATION_S] == 62.85776704293676
    assert rec[R.CLIENT_VERSION] == "0.5.18.dev20260829+g4d53767b09" and rec[R.REQUEST_RATE] == "inf"


def test_an_inferencex_amd_job_folder_with_its_gpu_monitor_sidecars_stores_its_run(tmp_path, capsys):
    """Hunt 15: InferenceX's start_gpu_monitor on AMD writes amd-smi's energy snapshots
    (gpu_metrics_energy_start.csv, _end.csv: gpu,total_energy_consumption) and its static dump
    (gpu_metrics_identity.json) beside the output; a folder holding them stored the run and exited 1,
    'a CSV table' twice and 'unknown JSON output'. (The energy files here are from another run of the
    same repository's bench_results, the output's own being alike.)"""
    import shutil

    from helpers import run_cli

    folder = tmp_path / "20260909_162432"
    folder.mkdir()
    shutil.copy(REAL / SGL_0518, folder / "qwen35_mxfp4_mtp_isl32768_osl1024_c4.jsonl")
    for rel, name in (("energy_start_mi355x_4gpu.csv", "gpu_metrics_energy_start.csv"),
                      ("energy_end_mi355x_4gpu.csv", "gpu_metrics_energy_end.csv"),
                      ("static_identity_mi355x_trimmed.json", "gpu_metrics_identity.json")):
        shutil.copy(REAL / f"inferencex/ifx_gpumonitor_amdsmi_{rel}", folder / name)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(folder))
    assert rc == 0 and no_ref_said(err) == "" and "ingested 1 results (1 new)" in out, (out, err)
    assert "skipped 3 files with no result" in out


def test_an_inferencex_fork_output_with_its_benchmark_outcome():
    """Hunt 15: a fork's benchmark_serving adds benchmark_outcome {status, requested, completed, failed,
    max_failure_rate} and keeps input_lens/output_lens; no failed key of its own."""
    (rec,) = records("vllm/ifx_benchserving_glm5.2-nvfp4_b300_tp4dpep_8k1k_c16_benchmark_outcome.json")
    m = rec[R.METRICS]
    assert (rec[R.MODEL], rec[R.CONC], rec[R.ISL], rec[R.OSL]) == ("nvidia/GLM-5.2-NVFP4", 16, None, None)
    assert (m[R.COMPLETED], m[R.FAILED], m[R.TOTAL_INPUT_TOKENS], m[R.TOTAL_OUTPUT_TOKENS]) == (160, 0, 1175512, 146426)
    assert m["tpot_p50_ms"] == 14.176823969447048 and m["itl_mean_ms"] == 1170.0699144647058
    assert m["e2el_p90_ms"] == 17000.082414550707 and m[R.DURATION_S] == 147.33634771499783
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2026-09-22T00:02:43+00:00", "2026-09-22T00:05:10+00:00")


def test_an_agentic_aggregate_points_to_the_aiperf_export_it_was_built_from():
    """Hunt 15: an InferenceX agentic job names its aggregate $RESULT_FILENAME.json; the refusal's hint sent
    the user to 'the job's $RESULT_FILENAME.json', the very file refused, instead of its AIPerf export."""
    from sweepgate.core.errors import SweepgateError

    with pytest.raises(SweepgateError) as info:
        records("inferencex/ifx_agentic_v4_dsv4-pro_sglang_mi355x_tp8_conc32_hicache_backend_dict_trimmed.json")
    (diag,) = info.value.diagnostics
    assert "aiperf_artifacts/profile_export_aiperf.json" in diag.hint, diag.hint


def test_a_vllm_output_with_a_prompt_short_and_no_failed_key_counts_the_missing_one_as_failed():
    """Hunt 16: a fork's benchmark_serving of 40 prompts completed 39 and wrote no "failed" key."""
    (rec,) = records("vllm/ifx_vllm_kimik2.5_h200_pdfix_c4_39of40_nofailed.json")
    m = rec[R.METRICS]
    assert (rec[R.MODEL], rec[R.CONC], rec[R.REQUEST_RATE]) == ("Kimi-K2.5", 4, "inf")
    assert (m[R.COMPLETED], m[R.FAILED], m[R.SUCCESS_RATE]) == (39, 1, 0.975)
    assert m["ttft_p90_ms"] == 2771.1593719985126 and m["ttft_p99_ms"] == 3517.8807665783097  # not p99.9's 3518.19
    assert m["e2el_p99_ms"] == 26594.920467259362 and m[R.DURATION_S] == 447.08269421799923
    assert (m[R.TOTAL_INPUT_TOKENS], m[R.TOTAL_OUTPUT_TOKENS]) == (319488, 37462)


def test_lm_eval_monotonic_start_time_is_not_a_date_and_perplexity_is_lower_is_better():
    """Hunt 16: lm-eval writes start_time/end_time from a monotonic clock (10192137.37: days since boot);
    the run's times come from its Unix "date" and the evaluation's length."""
    (rec,) = records("lm_eval/lmeval2025-03_rwkv7-0.1b_lambada_perplexity_monotonic_start_time.json")
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2025-03-10T18:50:31+00:00", "2025-03-10T18:53:05+00:00")
    got = {e[R.EVAL_METRIC]: (e[R.EVAL_VALUE], e[R.EVAL_STDERR], e[R.EVAL_SAMPLES], e[R.EVAL_HIGHER])
           for e in rec[R.EVALS]}
    assert got == {"perplexity": (13.83580044796159, 0.43682214761178434, 5153, False),
                   "acc": (0.4814671065398797, 0.006961190829726008, 5153, True)}
    assert rec[R.MODEL] == "fla-hub/rwkv7-0.1B-g1" and rec[R.METRICS] == {}


def test_an_aiperf_artifact_folder_whose_records_start_with_a_success_stores_its_run(tmp_path, capsys):
    """Hunt 16: AIPerf 0.8 writes no "error" key in a succeeded request's record; profile_export.jsonl
    starting with one was "unknown JSON output" and the artifact folder exited 1."""
    import shutil

    from helpers import run_cli

    folder = tmp_path / "aiperf_artifacts"
    folder.mkdir()
    shutil.copy(REAL / "aiperf" / "aiperf-records_llamacpp_llama3.2-3b-gguf_c1_success_then_timeout_2lines_trimmed.jsonl",
                folder / "profile_export.jsonl")
    shutil.copy(REAL / "aiperf" / "aiperf0.8.0_llamacpp_qwen3-4b-gguf_c1_5timeouts_trimmed.json",
                folder / "profile_export_aiperf.json")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(folder))
    assert rc == 0 and no_ref_said(err) == "", err
    assert "skipped 1 file with no result" in out and "ingested 1 results (1 new)" in out, out


def test_lm_eval_0_3_ppl_and_scores_without_a_stderr():
    """Hunt 17: lm-eval 0.3 states no higher_is_better: its lambada "ppl" is judged lower-is-better by
    name, and squad2's metrics, written without any stderr key (0-100 scale), are stored as written."""
    (lam,) = records("lm_eval/lmeval0.3_bloom-560m_lambada_openai_ppl_0shot.json")
    got = {(e[R.EVAL_TASK], e[R.EVAL_METRIC]): (e[R.EVAL_VALUE], e[R.EVAL_STDERR]) for e in lam[R.EVALS]}
    assert got[("lambada_openai", "ppl")] == (28.67792043529687, 1.0838905590384336)
    assert got[("lambada_openai_cloze", "acc")] == (0.00446341936735882, 0.0009286980441682362)
    assert R.eval_direction("ppl") == R.LOWER_IS_BETTER and lam[R.MODEL] == "bigscience/bloom-560m"
    (qa,) = records("lm_eval/lmeval0.3_bloom-560m_question_answering_squad2_no_stderr_0shot.json")
    got = {(e[R.EVAL_TASK], e[R.EVAL_METRIC]): (e[R.EVAL_VALUE], e[R.EVAL_STDERR]) for e in qa[R.EVALS]}
    assert len(got) == 18 and {e[R.EVAL_FILTER] for e in qa[R.EVALS]} == {"none"}
    assert got[("squad2", "best_f1")] == (50.07159100480081, None) and got[("squad2", "exact")] == (0.4295460288048513, None)
    assert got[("headqa_es", "acc_norm")] == (0.27169948942377825, 0.00849660053640109)
    assert got[("truthfulqa_mc", "mc2")] == (0.42431454034377986, 0.015119647586282134)


def test_lm_eval_0_3_translation_error_rate_is_lower_is_better():
    """lm-eval 0.3's translation tasks (wmt, flores) write bleu, chrf and ter with no higher_is_better:
    ter is an error rate, so a rising ter is a regression, while bleu and chrf are better higher."""
    assert R.eval_direction("ter") == R.LOWER_IS_BETTER
    assert R.eval_direction("bleu") == R.eval_direction("chrf") == R.HIGHER_IS_BETTER


def test_sglang_pd_server_info_with_internal_states_names_model_and_version():
    """Hunt 18: a PD router's server_info of {internal_states: [...], prefill: [...]} (no decode list)."""
    (rec,) = records("sglang/sglang0.5.6_pd_inter_node_gh200_a100_internal_states_trimmed.jsonl")
    m = rec[R.METRICS]
    assert rec[R.MODEL] == "Qwen/Qwen2.5-3B-Instruct" and rec[R.CLIENT_VERSION] == "0.5.6"
    assert rec[R.CONC] == 8 and (rec[R.ISL], rec[R.OSL]) == (128, 64) and rec[R.REQUEST_RATE] == "inf"
    assert m[R.COMPLETED] == 50 and m["e2el_p50_ms"] == 288.6011437512934 and m["tpot_p50_ms"] == 6.123667815700173


def test_sglang_trace_replay_is_stored_without_a_request_rate(tmp_path, capsys):
    """Hunt 18: sglang.bench_serving --use-trace-timestamps (a mooncake trace replay) writes
    "request_rate": "trace" (sgl-project/sglang python/sglang/bench_serving.py: `"trace" if
    use_trace_timestamps else request_rate`); the line was refused as not valid under the result schema.
    Its requests came at the trace's own times, at no one rate: stored with the rate unknown."""
    import json

    from helpers import run_cli, show_json

    line = json.loads((REAL / "sglang/sglang0.5.6_pd_inter_node_gh200_a100_internal_states_trimmed.jsonl")
                      .read_text(encoding="utf-8"))
    line.update(request_rate="trace", dataset_name="mooncake")
    out = tmp_path / "trace.jsonl"
    out.write_text(json.dumps(line) + "\n", encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(out))
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    assert rec[R.REQUEST_RATE] is None and rec[R.METRICS][R.COMPLETED] == 50


def test_aiperf_fixed_schedule_export_and_csv():
    """Hunt 18: AIPerf 0.10 (schema 1.3) replaying a mooncake trace: phases [{type: fixed_schedule}]
    give no concurrency or rate; models under models.items; the CSV has reasoning-token rows."""
    (js,) = records("aiperf/aiperf0.10_schema1.3_fixed_schedule_mooncake_trace_trimmed.json")
    (cs,) = records("aiperf/aiperf0.10_toolagent_fixed_schedule_reasoning_tokens.csv")
    assert js[R.MODEL] == "qwen3.6-nvfp4" and js[R.CONC] is None and js[R.REQUEST_RATE] is None
    assert js[R.CLIENT] == cs[R.CLIENT] == "aiperf" and js[R.CLIENT_VERSION] == "0.10.0"
    for name in ("ttft_p50_ms", "tpot_p50_ms", "itl_p99_ms", R.COMPLETED, R.DURATION_S, R.OUTPUT_THROUGHPUT,
                 R.TOTAL_OUTPUT_TOKENS):
        assert cs[R.METRICS][name] == pytest.approx(js[R.METRICS][name], rel=1e-3, abs=0.01)
    assert js[R.METRICS]["tpot_p50_ms"] == 43.36406036581621 and js[R.METRICS][R.COMPLETED] == 320


def test_vllm_fork_ttfts_without_itls_or_errors():
    """Hunt 18: the InferenceX client's per-request arrays without itls or errors; its own p90s stand."""
    (rec,) = records("vllm/ifx_benchserving_gptoss120b_nebius_gt_c4_ttfts_only_arrays_trimmed.json")
    m = rec[R.METRICS]
    assert m["ttft_p90_ms"] == 366.86542309889774 and m["itl_p90_ms"] == 6.579866399988532
    assert m[R.FAILED] == 0 and rec[R.STARTED] == "2026-06-07T08:55:58+00:00"


def test_lm_eval_2023_dev_results_in_a_jsonl_file():
    """Hunt 18: lm-eval 0.4.0 of 2023 (versions "Yaml", no n-shot), one pretty-printed document named .jsonl."""
    (rec,) = records("lm_eval/lmeval0.4.0dev_logiqa_pythia160m_versions_yaml_pretty_json_in_jsonl.jsonl")
    assert rec[R.MODEL] == "EleutherAI/pythia-160m"
    assert [(e[R.EVAL_METRIC], e[R.EVAL_VALUE]) for e in rec[R.EVALS]] == [
        ("acc", 0.18740399385560677), ("acc_norm", 0.250384024577573)]


def test_lm_eval_0_3_crows_pairs_bias_measure_is_lower_is_better():
    """Hunt 19: lm-eval 0.3's crows_pairs writes likelihood_difference (and pct_stereotype) with no
    higher_is_better; lm-eval's own is False for both (a model less biased scores lower), so a rising
    value is a regression. It was judged better-higher, every verdict backwards. 0.4 names it likelihood_diff."""
    (rec,) = records("lm_eval/lmeval0.3_crows_pairs_english_likelihood_difference_lower_is_better.json")
    (e,) = rec[R.EVALS]
    assert (e[R.EVAL_TASK], e[R.EVAL_METRIC], e[R.EVAL_FILTER]) == ("crows_pairs_english", "likelihood_difference", "none")
    assert (e[R.EVAL_VALUE], e[R.EVAL_STDERR]) == (0.3367363060632734, 0.005827747024053628)
    assert R.eval_direction(e[R.EVAL_METRIC], e.get(R.EVAL_HIGHER)) == R.LOWER_IS_BETTER
    assert R.eval_direction("likelihood_diff") == R.eval_direction("pct_stereotype") == R.LOWER_IS_BETTER
    from sweepgate.results import compare as C, evals

    more_biased = {**e, R.EVAL_VALUE: e[R.EVAL_VALUE] + 0.05}  # a PR run's score, 0.05 higher
    assert evals.judge(more_biased, e, e[R.EVAL_METRIC], stated=e.get(R.EVAL_HIGHER))[0] == C.REGRESSED


def test_lm_eval_0_3_bigbench_multiple_choice_grade():
    """Hunt 19: lm-eval 0.3 BIG-bench (bloom-7b1, 3-shot): 21 tasks' multiple_choice_grade, and
    geometric_shapes' exact_str_match 0.0 beside it; every score stored as written, filter none."""
    (rec,) = records("lm_eval/lmeval0.3_bloom-7b1_bigbench_21tasks_multiple_choice_grade_3shot.json")
    got = {(e[R.EVAL_TASK], e[R.EVAL_METRIC]): (e[R.EVAL_VALUE], e[R.EVAL_STDERR]) for e in rec[R.EVALS]}
    assert len(got) == 22 and {e[R.EVAL_FILTER] for e in rec[R.EVALS]} == {"none"}
    assert got[("bigbench_hyperbaton", "multiple_choice_grade")] == (0.48618, 0.0022352360227943418)
    assert got[("bigbench_geometric_shapes", "exact_str_match")] == (0.0, 0.0)
    assert rec[R.MODEL] == "bigscience/bloom-7b1" and rec[R.STARTED] is None


def test_vllm_bench_serve_half_failed_with_per_request_arrays():
    """Hunt 19: vllm bench serve (2026, spec decode, DCP4, 399,744-token prompts, conc 4): 2 of 4
    requests failed ("Never received a valid chunk"), their ttfts 0.0 and itls []. The p90s come from
    the two that succeeded (seconds -> ms); the file's own p50/p99 stand."""
    (rec,) = records("vllm/vllmbench2026_glm5.2_dcp4_isl399744_c4_2of4_failed_specdecode_arrays_trimmed.json")
    m = rec[R.METRICS]
    assert (m[R.COMPLETED], m[R.FAILED], m[R.SUCCESS_RATE]) == (2, 2, 0.5) and rec[R.CONC] == 4
    assert m["ttft_p90_ms"] == pytest.approx(114846.30288401968 + 0.9 * (226499.38509298954 - 114846.30288401968))
    assert m["ttft_p50_ms"] == 170672.8439885046 and m["itl_p99_ms"] == 2544.015230596706
    assert m["itl_p90_ms"] == pytest.approx(2459.053636394674)
    assert m[R.INTERACTIVITY] == pytest.approx(1000 / 825.3467046210343) and rec[R.STATUS] == "success"


def test_aiperf_0_10_poisson_request_rate_run():
    """Hunt 19: AIPerf 0.10 with --request-rate 0.8 (phases of type poisson, no concurrency) and no
    error_request_count key: the rate from the measured phase, nothing failed (error_summary is [])."""
    (rec,) = records("aiperf/aiperf0.10_schema1.3_poisson_rate0.8_phases_sharegpt_trimmed.json")
    m = rec[R.METRICS]
    assert rec[R.REQUEST_RATE] == 0.8 and rec[R.CONC] is None and rec[R.MODEL] == "qwen3.6-nvfp4"
    assert (m[R.COMPLETED], m[R.FAILED], m[R.DURATION_S]) == (96, 0, 118.900130676)
    assert m["ttft_p50_ms"] == 96.58306549999999 and m["itl_p99_ms"] == 6.630223958208333
    assert m[R.INPUT_THROUGHPUT] == pytest.approx(55819 / 118.900130676)
    assert (rec[R.ISL], rec[R.OSL]) == (None, None)  # a public dataset's own lengths


def test_aiperf_reasoning_tokens_count_in_the_output_totals():
    """Hunt 19: AIPerf (Jan 2026) against gpt-oss: total_osl (28348) is the visible output (2781) plus
    the reasoning tokens (25567), as its output_token_throughput counts them; error_request_count null."""
    (rec,) = records("aiperf/aiperf2026-01_gptoss20b_a100_c1_reasoning_tokens_null_errors_trimmed.json")
    m = rec[R.METRICS]
    assert m[R.TOTAL_OUTPUT_TOKENS] == 28348 and m[R.OUTPUT_THROUGHPUT] == pytest.approx(28348 / 519.597973721)
    assert (m[R.COMPLETED], m[R.FAILED], rec[R.CONC]) == (100, 0, 1)
    assert m["ttft_p50_ms"] == 82.04407599999999  # the first token, reasoning or not
    assert (rec[R.ISL], rec[R.OSL]) == (None, None)  # requested with a spread (stddev 30)


def test_aiperf_console_tables_are_named_with_the_export_to_ingest(tmp_path, capsys):
    """Hunt 19: AIPerf saves its console tables as profile_export_console.txt beside its exports; named
    on the command line it was "not JSON or CSV, not a benchmark client output". Now one line naming
    it, and the export beside it to ingest; exit 1, nothing stored."""
    from helpers import run_cli

    rel = "aiperf/aiperf0.8_profile_export_console_mock_c250k_error_summary_trimmed.txt"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(REAL / rel))
    (line,) = err.strip().splitlines()
    assert rc == 1 and "AIPerf's console tables" in line and "ingest the run's profile_export_aiperf.json" in line
    assert "ingested 0 results" in out


def test_an_aiperf_0_10_csv_with_server_token_counts_reads_as_its_json_twin_states():
    """aiperf20 hunt: AIPerf 0.10.0's CSV of a Cloudflare-tunnelled run (usage and prompt-cache rows, an
    empty GPU telemetry table last) reads as its JSON twin (anud18/qwen36-vllm-aiperf-benchmark, same
    folder) states, within the CSV's two decimals."""
    (rec,) = records("aiperf/aiperf0.10_llama3.1-8b_cloudflare_tunnel_mooncake_c1_server_token_count.csv")
    m = rec[R.METRICS]
    assert (rec[R.CLIENT], rec[R.SOURCE_FORMAT], m[R.COMPLETED], m[R.FAILED]) == ("aiperf", "aiperf-csv", 20, 0)
    twin = {"ttft_p50_ms": 13706.369096499999, "tpot_mean_ms": 68.72453722278283, "itl_p99_ms": 113.23248124999999,
            "e2el_p90_ms": 43200.224963600005, R.OUTPUT_THROUGHPUT: 9.363829082348426,
            R.TOTAL_OUTPUT_TOKENS: 5970, R.DURATION_S: 637.559693529}
    for name, value in twin.items():
        assert m[name] == pytest.approx(value, abs=0.005), name
