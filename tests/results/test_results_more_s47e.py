"""s47e hunt: real outputs of the tools sweepgate reads that differ from tests/data/results-samples and results-real
(tests/data/results-more/SOURCES.tsv). Each is ingested with `sweepgate results ingest` into a new store, as a user
would: read, with the figures the file states (checked by hand against it), or refused with one line.

Two were refused as "unknown JSON output" though they are lm-eval's task scores without the run around them:
another tool's eval summary holding lm-eval's per-task block under "results" beside keys of its own, and the digest
a Hugging Face details dataset's card shows (the scores under "all", each task again beside it). Each is now
refused by what it is, as lm-eval's scores copied out alone were."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT, refused_alone, run_cli, show_json

from sweepgate.results import record as R

MORE = ROOT / "tests" / "data" / "results-more"
SOURCES = MORE / "SOURCES.tsv"
NOT_LM_EVAL = ("a results block without the configs, versions and n-samples lm-eval writes beside it), not its "
               "results file; ingest the results_<time>.json lm_eval wrote under --output_path, or remove the file")

# file: (the record's fields, its metrics), each as the file states it
READ = {
    "aiperf/aiperf0.12_schema1.4_mlx_qwen3-0.6b_c2_reasoning_trimmed.json": (
        {R.CLIENT: "aiperf", R.CLIENT_VERSION: "0.12.0", "conc": 2, "isl": 512, "osl": 128,
         "model": "Qwen/Qwen3-0.6B"},
        {R.COMPLETED: 100, "duration_s": 328.076620032, R.REQUEST_THROUGHPUT: 0.30480429264663694,
         R.OUTPUT_THROUGHPUT: 38.701001037343495, "total_token_throughput": 194.76079887242162,
         "ttft_mean_ms": 983.54124753, "ttft_p99_ms": 1132.81056, "tpot_mean_ms": 44.267734682341164,
         "itl_max_ms": 124.683166, "e2el_p50_ms": 6539.028021}),
    # the CSV export of the same run: two decimals, no concurrency, no version; its third table (GPU telemetry)
    # is its header alone, an MLX server having no GPU AIPerf reads
    "aiperf/aiperf0.12_schema1.4_mlx_qwen3-0.6b_c2_reasoning_empty_gpu_table.csv": (
        {R.CLIENT: "aiperf", "conc": None},
        {R.COMPLETED: 100, "duration_s": 328.08, R.REQUEST_THROUGHPUT: 0.3, R.OUTPUT_THROUGHPUT: 38.7,
         "total_token_throughput": 194.76, "ttft_mean_ms": 983.54, "ttft_p99_ms": 1132.81, "tpot_mean_ms": 44.27,
         "itl_max_ms": 124.68, "total_input_tokens": 51200, "total_output_tokens": 12697}),
    "vllm/vllmbench0.1x_glm4.7_b200x8_tp8_isl15000_c100_endpoint_type_vllm.json": (
        {R.CLIENT: "vllm-bench", "conc": 100, "model": "/workspace/glm47", "request-rate": "inf"},
        {R.COMPLETED: 100, "failed": 0, "duration_s": 33.277435360942036, "ttft_mean_ms": 14502.27776077576,
         "ttft_p99_ms": 28167.65083371429, "tpot_p50_ms": 139.1594502121562, "e2el_mean_ms": 31987.706601850223,
         "total_token_throughput": 45460.23404723022}),
    # no total_throughput in this release's line: input plus output throughput
    "sglang/sglang0.4.x_sharegpt_rr5_c256_no_total_throughput_accept_null_1line.jsonl": (
        {R.CLIENT: "sglang-bench", "conc": 256, "request-rate": 5.0, "isl": None, "osl": None},
        {R.COMPLETED: 1000, "duration_s": 204.53694480800186, R.REQUEST_THROUGHPUT: 4.88909229058201,
         "total_token_throughput": 1477.0827846460556 + 957.162043188693, "ttft_p50_ms": 76.41966750088613,
         "itl_mean_ms": 11.917698144217361, "e2el_p99_ms": 9813.89673267491}),
}

# file: its one line after "PATH:"
REFUSED = {
    "lm_eval/lmeval-wrapper_eval_results_smollm2-135m_lora_5tasks_limit200.json":
        "1:1: format: lm-eval's task scores under \"results\" beside another tool's keys adapter, base_model, "
        f"benchmarks, ... (arc_easy, hellaswag, piqa, ...: {NOT_LM_EVAL}",
    "lm_eval/open-llm-leaderboard_latest_results_pythia-1b_all_plus_tasks_trimmed.json":
        "1:1: format: lm-eval's task scores under \"all\" with each task again beside it, as a Hugging Face details "
        f"dataset's card shows them (leaderboard, leaderboard_bbh, leaderboard_bbh_boolean_expressions, ...: "
        f"{NOT_LM_EVAL}",
    "sglang/sglang_bench_one_batch_server_oldkeys_bs8192_15runs.jsonl":
        "1:1: format: an SGLang bench_one_batch result (one static batch's latency, no serving requests or "
        "concurrency); ingest sglang.bench_serving's --output-file JSONL, a serving run at a concurrency",
    "sglang/sglang_bench_one_batch_prefill_only_output_len1_no_decode_keys.jsonl":
        "1:1: format: an SGLang bench_one_batch result (one static batch's latency, no serving requests or "
        "concurrency); ingest sglang.bench_serving's --output-file JSONL, a serving run at a concurrency",
    "other/custom_latency_sweep_sglang0.4.7_llama3-8b_a10_5maxtokens.json":
        "1:1: format: unknown JSON output (expected vLLM bench serve JSON/JSONL, SGLang bench_serving JSONL, "
        "AIPerf/GenAI-Perf JSON or CSV, lm-eval results JSON); ingest the job's $RESULT_FILENAME.json, or remove "
        "the file",
}


def test_every_file_held_has_its_source_and_its_outcome_pinned():
    rows = [line.split("\t") for line in SOURCES.read_text(encoding="utf-8").splitlines()[1:]]
    listed = {row[0] for row in rows}
    held = {str(p.relative_to(MORE)) for p in MORE.rglob("*") if p.is_file() and p.name != "SOURCES.tsv"}
    assert listed == held == set(READ) | set(REFUSED)
    assert all(len(row) == 6 for row in rows), [row[0] for row in rows if len(row) != 6]


@pytest.mark.parametrize("rel", sorted(READ))
def test_a_file_is_read_with_the_figures_it_states(rel, capsys, tmp_path):
    fields, metrics = READ[rel]
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(MORE / rel))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    (rec,) = show_json(capsys, db)
    assert {key: rec[key] for key in fields} == fields
    got = rec[R.METRICS]
    assert {key: got.get(key) for key in metrics} == pytest.approx(metrics, rel=1e-12)


def test_the_csv_export_says_it_cannot_tell_whether_its_run_finished(capsys, tmp_path):
    rel = "aiperf/aiperf0.12_schema1.4_mlx_qwen3-0.6b_c2_reasoning_empty_gpu_table.csv"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(MORE / rel))
    assert rc == 0 and "does not say whether its run finished" in err, err


@pytest.mark.parametrize("rel", sorted(REFUSED))
def test_a_file_is_refused_with_one_line(rel, capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, MORE / rel)
    assert lines == [f"{src}:{REFUSED[rel]}"]


def test_lm_eval_s_own_results_file_with_the_same_scores_is_still_read(capsys, tmp_path):
    """The wrapper's block given the keys lm-eval writes beside it is lm-eval's results file, read as one."""
    doc = json.loads((MORE / "lm_eval/lmeval-wrapper_eval_results_smollm2-135m_lora_5tasks_limit200.json").read_text())
    own = {"results": doc["results"], "versions": {task: 1.0 for task in doc["results"]},
           "n-shot": {task: 0 for task in doc["results"]},
           "n-samples": {task: {"original": 1000, "effective": 200} for task in doc["results"]},
           "config": {"model": "hf", "model_args": "pretrained=HuggingFaceTB/SmolLM2-135M", "limit": 200.0},
           "date": 1778641442.3}
    path = tmp_path / "results_2026-05-13T03-04-02.306948.json"
    path.write_text(json.dumps(own), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
