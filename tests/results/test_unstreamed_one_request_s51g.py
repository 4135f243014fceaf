"""s51g: bench_serving's run without streaming (TTFT the whole request's latency) is stored without TTFT, TPOT and
ITL with one warning (``vllm.first_token_at_end``); a run of one request said "in 1 requests". A streamed run of one
request whose answer is two tokens (its TTFT close to its latency, one decode step short) keeps its TTFT. Built from
the real vLLM Qwen3-32B output, its figures set to one request's; the command in-process, a real SQLite store."""

from __future__ import annotations

import json

from helpers import SAMPLES, run_cli, show_json

VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json"


def one_request(tmp_path, ttft: float, e2el: float, tpot: float):
    doc = json.loads(VLLM.read_text(encoding="utf-8"))
    doc.update(num_prompts=1, max_concurrency=1, completed=1, total_input_tokens=1024, total_output_tokens=2,
               duration=e2el / 1000, request_throughput=1000 / e2el, output_throughput=2000 / e2el,
               total_token_throughput=1026000 / e2el, max_concurrent_requests=1, max_output_tokens_per_s=2.0)
    for stat in ("mean", "median", "p99"):
        doc.update({f"{stat}_ttft_ms": ttft, f"{stat}_e2el_ms": e2el, f"{stat}_tpot_ms": tpot, f"{stat}_itl_ms": tpot})
    doc.update({f"std_{name}_ms": 0.0 for name in ("ttft", "tpot", "itl", "e2el")})
    path = tmp_path / "res.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_one_request_not_streamed_is_said_in_the_singular(tmp_path, capsys, db):
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(one_request(tmp_path, 866.9, 866.9, 0.0)))
    assert rc == 0, out + err
    (line,) = [line for line in err.splitlines() if "the time to first token is the whole request's" in line]
    assert "over 2 output tokens in 1 request)" in line, line  # was 'in 1 requests'
    (rec,) = show_json(capsys, db)
    assert not [name for name in rec["metrics"] if name.startswith(("ttft_", "tpot_", "itl_"))], rec["metrics"]


def test_one_streamed_request_of_two_tokens_keeps_its_ttft(tmp_path, capsys, db):
    """Guard: the first token 11.6 ms (a decode step) before the last is a streamed run's."""
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(one_request(tmp_path, 855.3, 866.9, 11.6)))
    assert rc == 0 and "whole request's" not in err, out + err
    (rec,) = show_json(capsys, db)
    assert rec["metrics"]["ttft_p50_ms"] == 855.3 and rec["metrics"]["tpot_p50_ms"] == 11.6, rec["metrics"]
