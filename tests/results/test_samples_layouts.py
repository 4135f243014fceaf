"""Real outputs in layouts the parsers once refused: their numbers, checked by hand against the files."""

from __future__ import annotations

import json
import shutil

import pytest

from helpers import SAMPLES  # noqa: F401 - puts utils/ on sys.path
from sweepgate.results import normalize, sidecar, sniff
from sweepgate.results import record as R


def records(rel: str) -> list[dict]:
    path = SAMPLES / rel
    content = path.read_bytes()
    ms = sniff.parse_text(content.decode(), rel)
    return [normalize.build(m, sidecar.local_job(content), rel, path.name) for m in ms]


def evals_by_key(rec: dict) -> dict:
    return {(e[R.EVAL_TASK], e[R.EVAL_METRIC], e[R.EVAL_FILTER]): e for e in rec[R.EVALS]}


def test_lm_eval_03_bare_metric_keys_read_as_unfiltered_scores():
    (rec,) = records("lm_eval/lmeval0.3_lambada_bloom-560m_0shot.json")
    evals = evals_by_key(rec)
    assert len(evals) == 4 and rec[R.MODEL] == "bigscience/bloom-560m" and rec[R.STATUS] == "success"
    acc = evals[("lambada_openai", "acc", "none")]
    assert acc[R.EVAL_VALUE] == 0.35396856200271687 and acc[R.EVAL_STDERR] == 0.006662254900290991
    assert evals[("lambada_openai_cloze", "ppl", "none")][R.EVAL_VALUE] == 6212.811566448059
    assert not any(m.endswith("_stderr") for _, m, _ in evals)
    (one,) = records("lm_eval/lmeval0.3_gsm8k_bloom-7b1_8shot.json")[0][R.EVALS]
    assert (one[R.EVAL_TASK], one[R.EVAL_VALUE], one[R.EVAL_STDERR]) == ("gsm8k", 0.018953752843062926,
                                                                        0.0037560783410314704)


@pytest.mark.parametrize("ext", ["json", "csv"])
def test_aiperf_run_whose_every_request_failed_is_a_failure_record(ext):
    (rec,) = records(f"aiperf/aiperf0.8_qwen3.5-4b-gguf_llamacpp_conc1_all_timeouts.{ext}")
    assert rec[R.STATUS] == "failure" and rec[R.CLIENT] == "aiperf"
    assert rec[R.METRICS] == {R.COMPLETED: 0, R.FAILED: 20, R.SUCCESS_RATE: 0}
    if ext == "json":
        assert rec[R.MODEL] == "qwen_qwen3.5-4b-gguf:q4_k_m" and rec[R.CONC] == 1


def test_sglang_behind_a_pd_router_names_the_model_from_its_workers():
    (rec,) = records("sglang/sglang0.5.6_pd_1p8d_qwen2.5-3b_in2048_out512_c128_serverinfo_trimmed.jsonl")
    assert rec[R.MODEL] == "Qwen/Qwen2.5-3B-Instruct"
    assert rec[R.CLIENT_VERSION] is None  # prefill says 0.5.5.post3, decode 0.5.6: no one version
    assert (rec[R.CONC], rec[R.ISL], rec[R.OSL], rec[R.REQUEST_RATE]) == (128, 2048, 512, "inf")
    m = rec[R.METRICS]
    assert m[R.OUTPUT_THROUGHPUT] == 663.568598336723 and m[R.COMPLETED] == 100
    assert m["e2el_p50_ms"] == 37229.00700336322 and m["ttft_p99_ms"] == 34760.85001917556
    assert m[R.TOTAL_TOKEN_THROUGHPUT] == 3456.207158326712


def test_aiperf_request_rate_is_read_from_each_config_layout():
    """loadgen.request_rate (AIPerf), request_rate (GenAI-Perf), the measured phase's rate (AIPerf 0.10+);
    a concurrency-only run has none."""
    import json

    from sweepgate.results.formats import aiperf

    real = json.loads((SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json").read_text())
    assert aiperf.parse(real, "x.json", 1).fields[R.REQUEST_RATE] is None
    genai = json.loads((SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc10.json").read_text())
    assert genai["input_config"]["request_rate"] is None
    assert aiperf.parse(genai, "x.json", 1).fields[R.REQUEST_RATE] is None
    layouts = [
        ({"loadgen": {"request_rate": 2.5}}, 2.5),
        ({"request_rate": 8}, 8),
        ({"phases": [{"exclude_from_results": True, "rate": 1.0}, {"rate": 4.0, "concurrency": 8}]}, 4.0),
        ({"phases": [{"rate": "inf"}]}, "inf"),
    ]
    for config, rate in layouts:
        doc = {**real, "input_config": {**real["input_config"], **config}}
        if "loadgen" not in config:
            doc["input_config"].pop("loadgen", None)  # the sample's loadgen has concurrency only
        assert aiperf.parse(doc, "x.json", 1).fields[R.REQUEST_RATE] == rate, config


@pytest.mark.parametrize("rel,lengths", [
    ("aiperf/genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc10.json", (200, 50)),  # synthetic_*_mean
    ("aiperf/aiperf_qwen3-0.6b_rtx6000ada_conc1_plotfixture.json", (100, 200)),  # input.prompt.*_tokens
    ("aiperf/aiperf0.8_mockserver_chat_nonstreaming_conc4.json", (550, None)),  # datasets[0].prompts.isl, no osl
    ("aiperf/aiperf0.11_qwen3-4b_g7_conc16.json", (None, None)),  # a file dataset: its lengths are the file's
    ("aiperf/aiperf0.8_qwen3.5-4b-gguf_llamacpp_conc1_all_timeouts.json", (None, None)),  # --input-file
    ("aiperf/aiperf_kimik2.7_fp4_mi355x_tp4_conc4.json", (None, None)),  # nothing configured in the export
])
def test_aiperf_and_genai_perf_state_the_lengths_their_synthetic_prompts_were_made_with(rel, lengths):
    """Hunt: the lengths these exports configure were ignored, so an output paired with another
    job's row (isl 1024 for a 200-token run) was stored under the row's lengths without a word,
    and one ingested without a row had none; SGLang's were read and checked."""
    (rec,) = records(rel)
    assert (rec[R.ISL], rec[R.OSL]) == lengths


def test_a_row_whose_lengths_contradict_an_aiperf_export_is_refused(tmp_path, capsys):
    import json

    from helpers import ROW, run_cli

    row = dict(ROW, conc=10, isl=1024, osl=50)
    (tmp_path / "row.json").write_text(json.dumps(row))
    path = SAMPLES / "aiperf/genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc10.json"
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"),
                         "--run-id", "1", "--ref", "refs/heads/main", str(path))
    (line,) = err.strip().splitlines()
    assert rc == 1 and f"{path}:106:5: input_config.synthetic_input_tokens_mean: the output used 200 input tokens but its job's row" in line and "says isl 1024" in line, err
    (tmp_path / "row.json").write_text(json.dumps(dict(row, isl=200)))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"),
                         "--run-id", "1", "--ref", "refs/heads/main", str(path))
    assert rc == 0, err


def test_a_run_whose_outputs_stopped_far_short_of_their_length_is_stored_with_a_warning(tmp_path, capsys):
    """Hunt: an SGLang run over the server's context limit "completed" 100 requests of a fixed 1024
    tokens with 31.7 tokens each (ITL all 0); it was stored as a success without a word."""
    from helpers import no_ref_said, run_cli

    path = SAMPLES / "sglang/sglang0.5.9_glm5_over_context_short_outputs_c1_trimmed.jsonl"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
    (line,) = [x for x in no_ref_said(err).splitlines() if "short" in x or "averaged" in x]
    assert rc == 0 and "ingested 1 results" in out, err
    # at its own key of the length (s31d: it stood at 1:1, as "osl", a key no client writes)
    col = path.read_text(encoding="utf-8").index('"random_output_len":') + 1
    assert line.startswith(f"{path}:1:{col}: warning: random_output_len:") and "asked for 1024 output tokens" in line \
        and "averaged 31.7" in line
    # a spread of requested lengths (half of them on average) is not warned about
    from sweepgate.results import normalize as N
    from sweepgate.results.measurement import Measurement

    m = Measurement("t", "t", 1)
    m.fields[R.OSL], m.metrics[R.TOTAL_OUTPUT_TOKENS], m.metrics[R.COMPLETED] = 1024, 100 * 512, 100
    assert N.short_outputs(m, "x") is None
    m.metrics[R.TOTAL_OUTPUT_TOKENS] = 100 * 255
    assert N.short_outputs(m, "x").rule == "short-outputs"


def test_an_itl_of_all_zeros_is_no_measurement():
    """Hunt 14: the over-context SGLang run's responses came in one chunk each: its ITL mean, median, p95
    and p99 are all exactly 0.0 (SGLang's mean of nothing), which was stored as a 0 ms ITL."""
    (rec,) = records("sglang/sglang0.5.9_glm5_over_context_short_outputs_c1_trimmed.jsonl")
    m = rec[R.METRICS]
    assert not [name for name in m if name.startswith("itl_")]
    assert m["tpot_p50_ms"] == pytest.approx(0.3712520614186282) and m["ttft_p99_ms"] == pytest.approx(787.1855725394563)


@pytest.mark.parametrize("rel,words", [
    ("vllm/vllm-ascend0.7_offline_benchmark_latency_llama8b_tp1.json", "vLLM benchmark_latency result"),
    ("vllm/vllm-ascend0.7_offline_benchmark_throughput_llama8b_tp1.json", "vLLM benchmark_throughput result"),
])
def test_other_outputs_of_the_same_tools_are_refused_saying_what_they_are(tmp_path, capsys, rel, words):
    """Hunt: these were "unknown JSON output", which leaves a user guessing what to ingest instead."""
    from helpers import run_cli

    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(SAMPLES / rel))
    (line,) = [x for x in err.splitlines() if "format:" in x]
    assert rc == 1 and words in line and "unknown" not in line and "; ingest " in line, err


def test_sglang_bench_offline_throughput_line_is_refused_saying_what_it_is(tmp_path, capsys):
    """Hunt 12: bench_offline_throughput writes result.jsonl lines with bench_serving's total_throughput, so
    they were read as bench_serving lines and refused "completed: missing; rerun sglang.bench_serving",
    which names neither the tool that wrote them nor why. The line's keys, as bench_offline_throughput.py
    writes them (last_gen_throughput only since 2025)."""
    from helpers import run_cli

    line = {"backend": "engine", "successful_requests": 1000, "total_latency": 51.2, "total_input_tokens": 302000,
            "total_output_tokens": 195000, "request_throughput": 19.53, "input_throughput": 5898.4,
            "output_throughput": 3808.6, "total_throughput": 9707.0}
    out = tmp_path / "result.jsonl"
    out.write_text("\n".join(json.dumps(d) for d in (line, dict(line, last_gen_throughput=1234.5))) + "\n")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(out))
    (msg,) = err.splitlines()
    assert rc == 1 and msg.startswith(f"{out}:1:1: format: an SGLang bench_offline_throughput result"), err
    assert "completed" not in msg and "; ingest sglang.bench_serving" in msg


# Hunt 12: AIPerf writes these beside profile_export_aiperf.json in every artifact folder (shapes from
# ai-dynamo/aiperf dev/results/smoke-100k-conc-files and its artifacts reference). The JSON/JSONL were
# "unknown JSON output", the GPU telemetry CSV "not JSON or CSV", and the other CSVs refused: a whole
# artifact folder, its run export stored, exited 1 saying to ingest that export.
AIPERF_SIBLINGS = {
    "profile_export.jsonl": "\n".join(json.dumps(
        {"metadata": {"session_num": n, "x_request_id": f"r{n}", "request_start_ns": 1762551534797067827 + n,
                      "benchmark_phase": "profiling", "was_cancelled": False},
         "metrics": {"time_to_first_token": {"value": 31.7, "unit": "ms"},
                     "request_latency": {"value": 3644.26, "unit": "ms"}}, "error": None}) for n in range(2)),
    "server_metrics_export.json": json.dumps(
        {"schema_version": "1.0", "aiperf_version": "0.8.0", "benchmark_id": "6478f6aac7c34ceb8b9fd97abd63d5b3",
         "summary": {"endpoints_configured": ["http://192.168.202.118:8000/metrics"]},
         "metrics": {"aiperf_mock_requests": {"type": "counter", "unit": "requests", "series": [
             {"endpoint_url": "http://192.168.202.118:8000/metrics", "stats": {"total": 0.0, "rate": 0.0}}]}}},
        indent=2),
    "gpu_telemetry_export.jsonl": "\n".join(json.dumps(
        {"timestamp": f"2025-11-07T13:38:5{n}.793124", "endpoint": "localhost:9400", "gpu_index": 0,
         "gpu_uuid": "GPU-00000000-0000-0000-0000-000000000000", "gpu_name": "NVIDIA RTX 6000 Ada Generation",
         "metrics": {"gpu_power_usage": 129.9, "gpu_utilization": 93.0}}) for n in range(2)),
    "gpu_telemetry_export.csv": "Endpoint,GPU_Index,GPU_Name,GPU_UUID,Metric,avg,min,max,p50,p99,std\n"
                                "localhost:9401,0,NVIDIA H100 80GB HBM3,GPU-afc3c15a,GPU Power Usage (W),348.69,"
                                "120.57,386.02,378.34,386.02,85.97\n",
    "server_metrics_export.csv": "# AIPerf Server Metrics Export (CSV)\n"
                                 "Endpoint,Type,Metric,Unit,avg\nhttp://h:8000/metrics,gauge,x,requests,0.0\n",
    "profile_export_aiperf_records.csv": "request_num,session_num,request_start_ns,request_latency_ms\n"
                                         "0,0,1762551534797067827,3644.26\n",
    "inputs.json": json.dumps({"data": [{"session_id": "3ed37105-cd07-43ef-8806-6b6c4979af34", "payloads": [
        {"messages": [{"role": "user", "content": "good night"}], "model": "mock", "stream": True,
         "max_completion_tokens": 128}]}]}, indent=2),
    ".aiperf_results_ready.json": '{"ready":true,"was_cancelled":false}',
}


def test_an_aiperf_artifact_folder_stores_its_run_and_passes_over_the_other_exports(tmp_path, capsys):
    from helpers import no_ref_said, run_cli

    folder = tmp_path / "aiperf_artifacts"
    folder.mkdir()
    for name, text in AIPERF_SIBLINGS.items():
        (folder / name).write_text(text, encoding="utf-8")
    shutil.copy(SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc4.json", folder / "profile_export_aiperf.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0 and no_ref_said(err) == "", err
    # s35e: server_metrics_export.csv beside its .json is no run read from the JSON (it was counted as the twin of
    # one, "skipped 1 CSV file beside a JSON export ... (the same run, read from the JSON)"): one more with no result
    assert f"skipped {len(AIPERF_SIBLINGS)} files with no result (GPU metrics, lm-eval samples logs, AIPerf's and " \
        "GenAI-Perf's other exports: files that go beside one)" in out and "CSV file" not in out, out
    assert "ingested 1 results (1 new)" in out, out
    # named alone, each is passed over the same way: counted, nothing stored
    for name in AIPERF_SIBLINGS:
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder / name))
        assert rc == 0 and "skipped 1 file with no result" in out and "ingested 0 results" in out, (name, out, err)
