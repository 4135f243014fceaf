"""formats25: vLLM's max_concurrency null means the client ran uncapped (its benchmark_serving.py and
`vllm bench serve` make no semaphore when --max-concurrency is left at its default, None), so such an
output is no point at the conc its row names: refused in one line at its key. An older output with no
max_concurrency key at all states nothing about a cap and is filed under its row's conc, as before."""

from __future__ import annotations

import json
import shutil

from helpers import ROOT, ROW, SAMPLES, file_records, job, run_cli, show_json, tagged_lines
from sweepgate.results import record as R

# vllm-project/llm-d sweep (SOURCES.tsv): request rates 10/s, 30/s and inf, "max_concurrency": null
LLMD = SAMPLES / "vllm" / "vllm0.9_llama3.2-3b_l40sx4_llmd_qps10-30-inf.jsonl"
# LambdaLabsML/vllm-benchmark results/prompt_10/1xH100-80GB-SXM/Mistral-7B-Instruct-v0.3_tp1_len2048.json
# (benchmark_serving.py of Sep 2024: best_of/use_beam_search, no max_concurrency key)
NO_KEY = SAMPLES / "vllm" / "vllm0.5-0.6_mistral7b_h100_tp1_len2048_lambda.json"
LLAMA_ROW = {**ROW, "model": "meta-llama/Llama-3.2-3B-Instruct", "tp": 1}


def _ingest(capsys, tmp_path, output, *extra):
    db = tmp_path / "r.db"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", *extra, str(output))
    return rc, out, err, db


def _col(line: str, key: str) -> int:
    return line.index(f'"{key}"') + 1


def _refused_under_conc_4(capsys, tmp_path, sample, row: dict) -> None:
    """The first line of ``sample`` (max_concurrency null), ingested under ``row`` with conc 4: refused at the key."""
    out = tmp_path / "first.jsonl"
    first = sample.read_text(encoding="utf-8").splitlines()[0]
    assert json.loads(first)["max_concurrency"] is None
    out.write_text(first + "\n", encoding="utf-8")
    (tmp_path / "row.json").write_text(json.dumps({**row, "conc": 4}), encoding="utf-8")
    rc, stdout, err, db = _ingest(capsys, tmp_path, out, "--row", str(tmp_path / "row.json"), "--run-id", "1",
                                  "--ref", "refs/heads/main")
    assert rc == 1 and "ingested 0 results" in stdout and not db.exists()
    assert err.splitlines() == [
        f"{out}:1:{_col(first, 'max_concurrency')}: max_concurrency: the output ran without a concurrency cap (null) "
        "but its job's row (--row) says conc 4; rerun the point with --max-concurrency 4, or pass the matrix row "
        "this output was run with as --row"]


def test_an_uncapped_vllm_output_is_refused_under_a_row_naming_a_conc(capsys, tmp_path):
    _refused_under_conc_4(capsys, tmp_path, LLMD, LLAMA_ROW)


def test_an_uncapped_vllm_output_beside_its_sidecar_is_refused_naming_the_sidecar(capsys, tmp_path):
    out = tmp_path / "res.jsonl"
    shutil.copyfile(LLMD, out)
    side = tmp_path / "res.job.json"
    side.write_text(json.dumps(job(row={**LLAMA_ROW, "conc": 8})), encoding="utf-8")
    rc, _, err, db = _ingest(capsys, tmp_path, tmp_path)
    assert rc == 1 and not db.exists()
    (line,) = err.splitlines()
    assert line.startswith(f"{out}:1:") and (f"max_concurrency: the output ran without a concurrency cap (null) but "
                                             f"its job's row ({side}) says conc 8; rerun the point with "
                                             "--max-concurrency 8, or pair the output with its own job's .job.json"
                                             ) in line, line


def _stored_without_conc(capsys, tmp_path, output, row: dict) -> list[dict]:
    """``output`` ingested under ``row`` without its conc: stored (exit 0); the records as `results show` reads them."""
    (tmp_path / "row.json").write_text(json.dumps({k: v for k, v in row.items() if k != "conc"}), encoding="utf-8")
    rc, _, err, db = _ingest(capsys, tmp_path, output, "--row", str(tmp_path / "row.json"), "--run-id", "1",
                             "--ref", "refs/heads/main")
    assert rc == 0, err
    return show_json(capsys, f"sqlite:///{db}")


def test_an_uncapped_vllm_output_under_a_row_without_conc_is_stored_with_none(capsys, tmp_path):
    # one deployment's lines (`--metadata deployment=base`): the three deployments' are refused together
    # (test_vllm_metadata30), not stored as three measurements of each rate
    base = tmp_path / "base.jsonl"
    base.write_text(tagged_lines(LLMD, "deployment", "base"), encoding="utf-8")
    recs = _stored_without_conc(capsys, tmp_path, base, LLAMA_ROW)
    assert len(recs) == 3 and {r["conc"] for r in recs} == {None}


def test_an_older_vllm_output_without_the_key_is_still_filed_under_its_row_s_conc(capsys, tmp_path):
    assert "max_concurrency" not in json.loads(NO_KEY.read_text(encoding="utf-8"))
    row = {**ROW, "model": "mistralai/Mistral-7B-Instruct-v0.3", "tp": 1, "conc": 4}
    (tmp_path / "row.json").write_text(json.dumps(row), encoding="utf-8")
    rc, _, err, db = _ingest(capsys, tmp_path, NO_KEY, "--row", str(tmp_path / "row.json"), "--run-id", "1",
                             "--ref", "refs/heads/main")
    assert rc == 0, err
    (rec,) = show_json(capsys, f"sqlite:///{db}")
    assert rec["conc"] == 4


# formats25 hunt: real outputs read right, pinned (tests/data/results-real/SOURCES.tsv names each source)
REAL = ROOT / "tests" / "data" / "results-real"
AIPERF = "aiperf/aiperf0.8.0_llamacpp_llama3.2-3b_c1_10of20_timeouts_trimmed.json"
SGLANG = "sglang/sglang0.5.9_glm5_i194560_o1024_c1_over_context_trimmed.jsonl"


def test_aiperf_run_with_half_its_requests_timed_out_keeps_both_counts():
    """databloom/aiperf-lab-tests artifacts/llama-3.2-3b-instruct-gguf:q4_k_m-openai-chat-concurrency1/
    profile_export_aiperf.json: 20 requests asked, request_count 10, error_request_count 10."""
    (rec,) = file_records(REAL, AIPERF)
    m = rec[R.METRICS]
    assert (rec[R.CONC], m[R.COMPLETED], m[R.FAILED], m[R.SUCCESS_RATE]) == (1, 10, 10, 0.5)
    assert m[R.DURATION_S] == 191.236231223 and m[R.REQUEST_THROUGHPUT] == 0.05229134634189182
    assert m[R.OUTPUT_THROUGHPUT] == 0.57520480976081 and m[R.TOTAL_INPUT_TOKENS] == 95
    assert (m["ttft_p50_ms"], m["ttft_p99_ms"], m["e2el_p50_ms"]) == (239.48402199999998, 1572.3343452800002, 584.203521)
    assert m["tpot_p50_ms"] == 22.415845266666665  # AIPerf's inter_token_latency: per request, (e2e - ttft) / (osl - 1)


def test_sglang_run_over_its_context_limit_is_stored_as_written_with_its_lengths():
    """Wentao274/sglang-benchmark-test .../test_02/01/1-100-i194560-o1024/bench-test_02-1-100-i194560-o1024.jsonl:
    a one-line JSONL of SGLang 0.5.9 (MetaX), conc 1, 100 prompts of 194560 tokens. Its model is the folder the
    server loaded, not the alias it served it as, 'glm-5' (stored until s34b)."""
    (rec,) = file_records(REAL, SGLANG)
    m = rec[R.METRICS]
    assert (rec[R.CONC], rec[R.ISL], rec[R.OSL], rec[R.MODEL], rec[R.REQUEST_RATE]) == (
        1, 194560, 1024, "/var_docker/data_shared/GLM-5-W8A8", "inf")
    assert rec[R.CLIENT_VERSION] == "0.5.9+maca3.5.3.204"
    assert (m[R.COMPLETED], m[R.TOTAL_OUTPUT_TOKENS], m[R.DURATION_S]) == (100, 3169, 68.89609331730753)
    assert (m["ttft_p50_ms"], m["e2el_p90_ms"], m["tpot_p99_ms"]) == (697.17648322694, 753.3168779686093,
                                                                     0.41701118695756323)
    assert "itl_p50_ms" not in m  # every ITL statistic 0.0: one chunk per response, not measured
    assert m[R.ACCEPT_LENGTH] == 3.872767306341704


# SGLang's bench_serving (adapted from vLLM's) makes the same semaphore only when --max-concurrency is
# given (default None) and writes that None as its line's max_concurrency (sglang-project bench_serving.py,
# benchmark(): `semaphore = asyncio.Semaphore(max_concurrency) if max_concurrency else None`).
# datacrunch-research/h200-benchmarks: a request-rate sweep (rates 1-16/s), every line "max_concurrency": null
SGLANG_SWEEP = SAMPLES / "sglang" / "sglang_2024-12_llama3.3-70b_h200x4_online.jsonl"
SGLANG_ROW = {**ROW, "model": "meta-llama/Llama-3.3-70B-Instruct", "framework": "sglang", "tp": 4}


def test_an_uncapped_sglang_output_is_refused_under_a_row_naming_a_conc(capsys, tmp_path):
    _refused_under_conc_4(capsys, tmp_path, SGLANG_SWEEP, SGLANG_ROW)


def test_an_uncapped_sglang_sweep_under_a_row_without_conc_is_stored_with_none(capsys, tmp_path):
    """The sweep's five random-length lines (its two ShareGPT lines are another workload than the row's)."""
    out = tmp_path / "online.jsonl"
    lines = [line for line in SGLANG_SWEEP.read_text(encoding="utf-8").splitlines()
             if json.loads(line)["dataset_name"] == "random"]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    recs = _stored_without_conc(capsys, tmp_path, out, SGLANG_ROW)
    assert len(recs) == 5 and {r["conc"] for r in recs} == {None}


def test_an_sglang_line_without_the_key_is_still_filed_under_its_row_s_conc(capsys, tmp_path):
    """bench_serving before --max-concurrency (2024) wrote no such key: it states nothing about a cap."""
    doc = json.loads(SGLANG_SWEEP.read_text(encoding="utf-8").splitlines()[0])
    del doc["max_concurrency"]
    out = tmp_path / "old.jsonl"
    out.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    (tmp_path / "row.json").write_text(json.dumps({**SGLANG_ROW, "conc": 4}), encoding="utf-8")
    rc, _, err, db = _ingest(capsys, tmp_path, out, "--row", str(tmp_path / "row.json"), "--run-id", "1",
                             "--ref", "refs/heads/main")
    assert rc == 0, err
    (rec,) = show_json(capsys, f"sqlite:///{db}")
    assert rec["conc"] == 4
