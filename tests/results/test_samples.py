"""Every real sample output: parsed into valid records, or refused with its documented reason."""

from __future__ import annotations

import pytest

from helpers import SAMPLES, file_records, parsed_or_refused  # helpers puts utils/ on sys.path
from sweepgate.results import record as R

FILES = sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*")
               if p.is_file() and p.suffix in (".json", ".jsonl", ".csv")) if SAMPLES.is_dir() else []

# Refused samples and the reason each gives (README, "Results"). Everything else must parse.
REFUSED = {
    "aiperf/aiperf_prerelease_2025-06_records_schema_mockserver.json": "pre-release AIPerf export",
    "inferencex/agentic_v1flat_dsr1_fp4_b200_tp4_users128_offloadon.json": "agentic aggregate",
    "inferencex/agentic_v1flat_dsr1_fp4_b200_tp4_users16_offloadoff.json": "agentic aggregate",
    "inferencex/agentic_v3_kimik2.7_fp4_mi355x_tp4_conc1.json": "agentic aggregate",
    "inferencex/agentic_v3_kimik2.7_fp4_mi355x_tp4_conc16.json": "agentic aggregate",
    "inferencex/agentic_v3_kimik2.7_fp4_mi355x_tp4_conc4.json": "agentic aggregate",
    "inferencex/agg_kimik2.5_int4_mi355x_1k1k_conc4.json": "process_result.py aggregate",
    "inferencex/agg_kimik2.5_int4_mi355x_8k1k_conc32.json": "process_result.py aggregate",
    "inferencex/agg_kimik2.5_int4_mi355x_8k1k_conc64.json": "process_result.py aggregate",
    "inferencex/app_supplemental-evals_agg_eval_rows.json": "table of InferenceX eval rows",
    "inferencex/together_runner_wrapper_gptoss120b_b200_vllm_conc64.json": "benchmark wrapper",
    "inferencex/tokpos_variant_glm5fp8_vllm_tp8_isl1024_osl128_conc16_SECONDS.json": "without a unit suffix",
    "vllm/vllm-ascend0.7_llama3-8b_npu_tp1_qps16_b.json": "latency-only output",
    "vllm/vllm-ascend0.7_llama3-8b_npu_tp1_sharegpt_qps1.json": "latency-only output",
    "vllm/vllm-ascend0.7_llama3-8b_npu_tp1_sharegpt_qpsinf.json": "latency-only output",
    "vllm/vllm0.8_nightly_convert_benchmark_results_llama3.3-70b_a100x8.json": "summary table",
    "vllm/vllm-ascend0.7_offline_benchmark_latency_llama8b_tp1.json": "benchmark_latency result",
    "vllm/vllm-ascend0.7_offline_benchmark_throughput_llama8b_tp1.json": "benchmark_throughput result",
}

# Real outputs of runs that completed nothing: stored, as failures.
FAILED_RUNS = {"vllm/vllmbench0.25.1_opt125m_all_failed.json",
               "aiperf/aiperf0.8_qwen3.5-4b-gguf_llamacpp_conc1_all_timeouts.json",
               "aiperf/aiperf0.8_qwen3.5-4b-gguf_llamacpp_conc1_all_timeouts.csv"}


# AIPerf's time-slice export goes beside the run's own (--slice-duration): passed over, as its other exports are;
# so does GenAI-Perf's perf_analyzer export (realdata29: it was refused, failing the run's artifact folder)
AUXILIARY = {"aiperf/aiperf_timeslices_glm5.1_mi355x_conc40_trimmed.json",
             "aiperf/perfanalyzer2.48_raw_profile_export_conc2_trimmed.json"}


def records(rel: str) -> list[dict]:
    return file_records(SAMPLES, rel)


@pytest.mark.skipif(not FILES, reason="no result samples")
@pytest.mark.parametrize("rel", FILES)
def test_sample(rel):
    if rel in AUXILIARY:
        from sweepgate.results import sniff

        with pytest.raises(sniff.Auxiliary):
            records(rel)
        return
    for rec in parsed_or_refused(SAMPLES, rel, REFUSED) or []:
        assert rec[R.STATUS] == ("failure" if rel in FAILED_RUNS else "success")


def test_refused_list_names_real_files():
    assert set(REFUSED) <= set(FILES) or not FILES


@pytest.mark.skipif(not FILES, reason="no result samples")
def test_vllm_versions_read_alike():
    old = records("vllm/vllm0.8_llama3.3-70b_a100x8_tp8_sharegpt_qps_inf.json")[0]
    assert old[R.REQUEST_RATE] == "inf" and old[R.CONC] is None
    # p90 TTFT from the per-request array (seconds) lands in ms, between p50 and p99
    m = old[R.METRICS]
    assert m["ttft_p50_ms"] < m["ttft_p90_ms"] < m["ttft_p99_ms"]
    assert m[R.FAILED] == 0 and m[R.SUCCESS_RATE] == 1
    rows = records("vllm/vllm0.8_llama3.1-8b_h100_vllm-vs-sglang_qps1-10-inf.jsonl")
    assert len(rows) == 12 and [r[R.SOURCE_LINE] for r in rows] == list(range(1, 13))
    assert rows[0][R.METRICS][R.INTERACTIVITY] == pytest.approx(1000 / rows[0][R.METRICS]["tpot_p50_ms"])


@pytest.mark.skipif(not FILES, reason="no result samples")
def test_sglang_infinity_and_total_throughput():
    rows = records("sglang/sglang_2024-12_llama3.3-70b_h200x4_offline.jsonl")
    assert rows[0][R.REQUEST_RATE] == "inf" and rows[0][R.ISL] == 1024
    new = records("sglang/sglang0.5.8_gptoss120b_a100x8_tp8_in1024_out128_c100_details.jsonl")[0]
    assert new[R.METRICS][R.TOTAL_TOKEN_THROUGHPUT] == pytest.approx(5909.024638772354)
    assert new[R.CLIENT_VERSION].startswith("0.5.8")


@pytest.mark.skipif(not FILES, reason="no result samples")
def test_aiperf_json_and_csv_agree():
    js = records("aiperf/aiperf_kimik2.7_fp4_mi355x_tp4_conc4.json")[0][R.METRICS]
    cs = records("aiperf/aiperf_kimik2.7_fp4_mi355x_tp4_conc4.csv")[0][R.METRICS]
    for name in ("ttft_p50_ms", "tpot_p90_ms", "e2el_p99_ms", R.OUTPUT_THROUGHPUT, R.DURATION_S):
        assert cs[name] == pytest.approx(js[name], rel=1e-3, abs=0.01)
    # AIPerf's CSV has an "Error Request Count" row only when a request failed: none means none did
    assert (cs[R.FAILED], cs[R.SUCCESS_RATE]) == (js[R.FAILED], js[R.SUCCESS_RATE]) == (0, 1)
    genai = records("aiperf/genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc10.json")[0]
    assert genai[R.CLIENT] == "genai-perf" and genai[R.CONC] == 10


@pytest.mark.skipif(not FILES, reason="no result samples")
def test_lm_eval_na_stderr():
    (rec,) = records("lm_eval/lmeval0.4.8_gsm8k_granite_limit1_smoketest.json")
    by_filter = {e[R.EVAL_FILTER]: e for e in rec[R.EVALS]}
    assert by_filter["strict-match"][R.EVAL_STDERR] is None and by_filter["strict-match"][R.EVAL_SAMPLES] == 1
    (big,) = records("lm_eval/lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json")
    scores = {e[R.EVAL_FILTER]: e[R.EVAL_VALUE] for e in big[R.EVALS]}
    assert scores["strict-match"] != scores["flexible-extract"]


@pytest.mark.skipif(not FILES, reason="no result samples")
def test_newer_exports_name_their_point():
    # AIPerf 0.10+ keeps the model under models.items and the load under phases
    (ai,) = records("aiperf/aiperf0.11_qwen3-4b_g7_conc16.json")
    assert ai[R.CONC] == 16 and ai[R.MODEL] == "qwen3-4b" and ai[R.CLIENT_VERSION] == "0.11.0"
    assert ai[R.METRICS][R.INTERACTIVITY] == pytest.approx(1000 / 8.731694873219372)
    # vllm bench sweep's summary.json: a list of runs of one point, one record each
    runs = records("vllm/vllmbench0.25.1_opt125m_sweep_summary_list.json")
    assert [r[R.CONC] for r in runs] == [2, 2] and runs[1][R.METRICS]["e2el_p50_ms"] == pytest.approx(157.98742300103186)
    (failed,) = records("vllm/vllmbench0.25.1_opt125m_all_failed.json")
    assert failed[R.METRICS][R.COMPLETED] == 0 and failed[R.METRICS][R.SUCCESS_RATE] == 0


@pytest.mark.skipif(not FILES, reason="no result samples")
def test_sglang_names_its_model_from_server_info():
    (rec,) = records("sglang/sglang0.5.5_qwen2.5-3b_1gpu_in128_out128_c8.jsonl")
    assert rec[R.MODEL] == "Qwen/Qwen2.5-3B-Instruct" and rec[R.CONC] == 8 and rec[R.CLIENT_VERSION] == "0.5.5.post3"
    assert rec[R.METRICS]["e2el_p50_ms"] == pytest.approx(330.32854506745934)


def test_eval_rows_table_points_at_the_lm_eval_output(tmp_path, capsys):
    """New-user review: InferenceX's table of eval rows was told to be replaced by the job's
    $RESULT_FILENAME.json, a throughput output; the rows were built from lm-eval's results."""
    from helpers import run_cli

    rel = "inferencex/app_supplemental-evals_agg_eval_rows.json"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(SAMPLES / rel))
    assert rc == 1 and err.count("\n") == 1, err
    assert "table of InferenceX eval rows" in err and "$RESULT_FILENAME-eval.json" in err, err
