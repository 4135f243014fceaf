"""Formats 20: what real vLLM and SGLang outputs measure besides mean/p50/p90/p99 is stored, not
dropped: speculative decoding's acceptance length (SGLang ``accept_length``, vLLM
``spec_decode_acceptance_length``) and p95 latencies (SGLang's, vLLM's ``--metric-percentiles``)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from helpers import ROOT, file_records, run_cli, show_json
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
SGLANG_EAGLE = "sglang/sglang0.5.18_qwen3.5-397b-mxfp4_mi355x_tp4_eagle_c4_rr0.8_cache_report_trimmed.jsonl"
SGLANG_EAGLE3 = "sglang/sglang0.5.9_kimik2.5_eagle3_tp16_2nodes_c8_trimmed.jsonl"
SGLANG_PLAIN = "sglang/sglang0.5.5_qwen2.5-3b_tp1_c200_agg_trimmed.jsonl"  # accept_length null
VLLM_SPEC = "vllm/vllm0.25.1_qwen3.8-27b-fp8_spec_c2.json"
VLLM_PLAIN = "vllm/vllm0.25.1_opt125m_c2_specless.json"


def metrics(rel: str) -> dict:
    (rec,) = file_records(REAL, rel)
    return rec[R.METRICS]


@pytest.mark.parametrize("rel, tokens_per_step", [(SGLANG_EAGLE, 3.7315784124402884),
                                                  (SGLANG_EAGLE3, 2.1955540207234665),
                                                  (VLLM_SPEC, 3.161111111111111)])
def test_a_speculative_run_keeps_its_acceptance_length(rel, tokens_per_step):
    assert metrics(rel)[R.ACCEPT_LENGTH] == pytest.approx(tokens_per_step)


@pytest.mark.parametrize("rel", [SGLANG_PLAIN, VLLM_PLAIN])
def test_a_run_without_speculative_decoding_has_no_acceptance_length(rel):
    assert R.ACCEPT_LENGTH not in metrics(rel)


def test_sglang_p95_latencies_are_kept():
    m = metrics(SGLANG_EAGLE)
    assert (m["ttft_p95_ms"], m["tpot_p95_ms"], m["itl_p95_ms"], m["e2el_p95_ms"]) == pytest.approx(
        (3062.5032485171682, 7.0843884464987905, 10.499373530037701, 8326.627628866117))


def test_acceptance_length_is_higher_is_better_so_a_config_may_set_its_threshold():
    assert R.DIRECTION[R.ACCEPT_LENGTH] == R.HIGHER_IS_BETTER


def test_show_has_an_accept_len_column_only_where_a_run_has_one(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(REAL / SGLANG_PLAIN))
    assert rc == 0, err
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db)
    assert rc == 0 and "accept len" not in out
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(REAL / SGLANG_EAGLE3))
    assert rc == 0, err
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db)
    assert rc == 0 and "accept len" in out and "2.20" in out
    got = sorted(r[R.METRICS].get(R.ACCEPT_LENGTH) or 0 for r in show_json(capsys, db))
    assert got == pytest.approx([0, 2.1955540207234665])


def test_a_result_stored_before_these_metrics_is_unchanged_by_a_second_ingest(tmp_path, capsys):
    """A store an older sweepgate filled (its records without accept_length or p95) takes the same
    output again as a no-op: a metric only the newer version reads is no change to an immutable result."""
    path = tmp_path / "r.db"
    db = f"sqlite:///{path}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(REAL / SGLANG_EAGLE))
    assert rc == 0, err
    with sqlite3.connect(path) as conn:
        (row_id, text), = conn.execute("SELECT id, record FROM results").fetchall()
        rec = json.loads(text)
        rec[R.METRICS] = {k: v for k, v in rec[R.METRICS].items() if k != R.ACCEPT_LENGTH and "p95" not in k}
        conn.execute("UPDATE results SET record = ? WHERE id = ?", (json.dumps(rec), row_id))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(REAL / SGLANG_EAGLE))
    assert (rc, err) == (0, "") and out.splitlines()[-1] == f"ingested 1 results (0 new) into {db}"


@pytest.mark.parametrize("rel", ["vllm/vllmbench_gptoss120b_h100x8_tp4dp2_isl15000_c100.json", VLLM_SPEC])
def test_a_vllm_run_keeps_its_input_throughput_as_sglang_s_does(rel):
    """vLLM writes total and output throughput, not the input's: the record has it from the run's
    own input tokens over its duration (the total's share the output's is not), as SGLang's states it."""
    m = metrics(rel)
    assert m[R.INPUT_THROUGHPUT] == pytest.approx(m[R.TOTAL_INPUT_TOKENS] / m[R.DURATION_S])
    assert m[R.INPUT_THROUGHPUT] == pytest.approx(m[R.TOTAL_TOKEN_THROUGHPUT] - m[R.OUTPUT_THROUGHPUT])


AIPERF_GOODPUT = ("aiperf/aiperf0.11_qwen3-4b_g7_conc16_trimmed.json", "aiperf/aiperf0.11_qwen3-4b_g7_conc16.csv")


@pytest.mark.parametrize("rel, digits", [(AIPERF_GOODPUT[0], 6), (AIPERF_GOODPUT[1], 2)])
def test_aiperf_goodput_and_p95_latencies_are_kept(rel, digits):
    """AIPerf 0.11 run with --goodput SLOs: its ``goodput`` (requests/sec meeting them; "Goodput
    (requests/sec)" in the CSV, which rounds to 2 decimals) and its p95s were dropped."""
    m = metrics(rel)
    assert m[R.REQUEST_GOODPUT] == pytest.approx(6.814794988917071, abs=10 ** -digits)
    assert m[R.latency_name("ttft", "p95")] == pytest.approx(40.51439944999998, abs=10 ** -digits)
    assert m[R.latency_name("e2el", "p95")] == pytest.approx(5308.399138349999, abs=10 ** -digits)


def test_an_aiperf_run_without_goodput_slos_has_no_goodput():
    assert metrics("aiperf/aiperf2026-01_gptoss20b_a100_c1_reasoning_tokens_null_errors_trimmed.json").get(
        R.REQUEST_GOODPUT) is None
