"""Three result-reading leads (s50h), each on a fixture built in the exact format the tool's own source writes
(tests/data/results-built/SOURCES.tsv names the source file and commit): no committed real output shows them.

1. lm-eval's RULER writes -1 for a context length no sample had (``"8192,none": -1``): stored, it read as a
   score of -1; it is now left out with one warning, and a real negative score (an MCC) stays stored.
2. SGLang's bench_serving --disable-stream writes a TTFT equal to (chat) or a hair above (completions) each
   request's latency and names no flag: its TTFT was stored as a time to first token without a word; it is now
   left out with TPOT and ITL, with the warning AIPerf's streaming: false gets, by the same code.
3. An AIPerf/GenAI-Perf run against an embeddings endpoint (latency only, no token counted) was stored as a
   normal success, where vLLM's and SGLang's are refused as no generation run: all three are refused now, by one
   rule and one message (measurement.refuse_tokenless).
"""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, file_records, run_cli
from sweepgate.core.errors import SweepgateError
from sweepgate.results import record as R

BUILT = ROOT / "tests" / "data" / "results-built"
RULER = "lm_eval/lmeval_built_ruler_niah_vt_4096_only_lengths_not_run_cola_mcc_negative.json"


def _scores(recs: list[dict]) -> dict:
    return {(e[R.EVAL_TASK], e[R.EVAL_METRIC]): e[R.EVAL_VALUE] for rec in recs for e in rec[R.EVALS]}


def test_a_ruler_length_not_run_is_no_score_and_a_negative_mcc_is_one():
    assert _scores(file_records(BUILT, RULER)) == {
        ("cola", "mcc"): -0.0213, ("niah_single_1", "4096"): 1.0, ("ruler_vt", "4096"): 0.964}


def test_the_lengths_not_run_are_said_in_one_warning(tmp_path, capsys):
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(BUILT / RULER))
    said = [line for line in err.splitlines() if "context length" in line]
    assert rc == 0 and len(said) == 1, err
    assert ("results.niah_single_1.8192,none: -1, lm-eval's mark of a context length no sample had (lengths 8192, "
            "16384 in niah_single_1, ruler_vt): no score; left out, the file's other scores are stored") in said[0]


def test_a_file_of_lengths_not_run_alone_is_refused(tmp_path):
    doc = json.loads((BUILT / RULER).read_text(encoding="utf-8"))
    doc["results"] = {task: {k: v for k, v in scores.items() if not k.startswith("4096")}
                      for task, scores in doc["results"].items() if task != "cola"}
    (tmp_path / "lm_eval").mkdir()
    (tmp_path / "lm_eval" / "r.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    with pytest.raises(SweepgateError) as info:
        file_records(tmp_path, "lm_eval/r.json")
    (diag,) = info.value.diagnostics
    assert diag.message.startswith("results: only lm-eval's -1 for context lengths no sample had "
                                   "(niah_single_1.8192,none, niah_single_1.16384,none, ruler_vt.8192,none, ...)")


DISABLE_STREAM = ("sglang/sglang_built_disable_stream_chat_c32_in1024_out256.jsonl",
                  "sglang/sglang_built_disable_stream_completions_c32_in1024_out256.jsonl")


@pytest.mark.parametrize("rel", DISABLE_STREAM)
def test_an_sglang_run_that_did_not_stream_keeps_no_time_to_first_token(rel, tmp_path, capsys):
    (rec,) = file_records(BUILT, rel)
    assert not [k for k in rec[R.METRICS] if k.startswith(("ttft_", "tpot_", "itl_"))], rec[R.METRICS]
    assert rec[R.METRICS][R.latency_name("e2el", "p50")] == pytest.approx(4903.118)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(BUILT / rel))
    said = [line for line in err.splitlines() if ": warning: " in line and "no ref" not in line]
    assert rc == 0 and len(said) == 1, err
    col = (BUILT / rel).read_text(encoding="utf-8").index('"mean_ttft_ms"') + 1  # the warning stands at its key
    assert (f"{BUILT / rel}:1:{col}: warning: mean_ttft_ms: the time to first token is the whole request's (at or "
            "above mean_e2e_latency_ms, the end-to-end latency, at every statistic both state, over 102400 output "
            "tokens in 400 requests), so the client did not stream (bench_serving --disable-stream) or the server "
            "sent each response whole; stored without TTFT, TPOT and ITL; rerun the point streamed") in said[0], said


def test_a_streamed_run_of_one_token_answers_keeps_its_time_to_first_token():
    """A streamed one-token answer's first token is its last: its TTFT is its latency, measured (a real GLM-5 run
    of 1,000 one-token requests: TTFT 0.01 ms under E2E). Not one that did not stream, even at equal figures."""
    real = ROOT / "tests" / "data" / "results-real"
    (rec,) = file_records(real, "sglang/sglang0.5.9_glm5_dpattn_i90000_o2000_c64_one_token_each_trimmed.jsonl")
    assert rec[R.METRICS][R.latency_name("ttft", "p50")] == pytest.approx(10246.50391866453)
    line = json.loads((BUILT / DISABLE_STREAM[0]).read_text(encoding="utf-8"))
    line.update({"total_output_tokens": line["completed"], "total_output_tokens_retokenized": line["completed"]})
    doc = json.dumps(line)
    from sweepgate.results import sniff

    (m,) = sniff.parse_text(doc + "\n", "one_token.jsonl")
    assert m.metrics[R.latency_name("ttft", "p50")] == pytest.approx(4903.118)


EMBEDDINGS = {
    "aiperf/aiperf0.11_built_embeddings_bge-small_c4_profile_export_aiperf.json":
        "an AIPerf run against an endpoint that generates no tokens (endpoint type embeddings, 2000 requests "
        "completed, no output token counted: ",
    "aiperf/genaiperf_built_embeddings_e5-mistral_c4_profile_export_genai_perf.json":
        "a GenAI-Perf run against an endpoint that generates no tokens (endpoint type embeddings, 97.31 requests/s "
        "completed, no output token counted: ",
}
TOKENLESS_REST = ("embeddings, pooling, scores or reranking; end-to-end latency only), not a generation run; "
                  "benchmark the point with a generation endpoint type (chat, completions) and ingest that output, "
                  "or remove the file")


@pytest.mark.parametrize("rel", EMBEDDINGS)
def test_an_aiperf_or_genai_perf_embeddings_run_is_refused_as_vllm_and_sglang_ones_are(rel, tmp_path, capsys):
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(BUILT / rel))
    assert rc == 1 and "nothing stored" in out
    assert err.splitlines() == [f"{BUILT / rel}:1:1: format: {EMBEDDINGS[rel]}{TOKENLESS_REST}"]


def test_an_aiperf_embeddings_csv_export_is_refused_too(tmp_path, capsys):
    """The CSV export of the same run names no endpoint type: its figures tell it."""
    csv = tmp_path / "profile_export_aiperf.csv"
    csv.write_text("Metric,avg,min,max,p99,p90,p50,std\nRequest Latency (ms),18.41,8.91,41.21,33.56,25.12,17.66,5.22\n"
                   "\nMetric,Value\nRequest Throughput (requests/sec),216.48\nRequest Count (requests),2000\n"
                   "Benchmark Duration (sec),9.24\n", encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(csv))
    assert rc == 1 and err.splitlines() == [
        f"{csv}:1: format: an AIPerf run against an endpoint that generates no tokens (endpoint type not stated, "
        f"2000 requests completed, no output token counted: {TOKENLESS_REST}"], err


def test_a_vllm_run_whose_server_sent_each_response_whole_is_told_by_the_same_code(tmp_path):
    """vLLM's client always streams a generation request, but a server (or proxy) that sends each response in one
    chunk gives it a TTFT equal to the latency (its request end is its last token chunk's): the same figures, the
    same treatment. The real output with its TTFT statistics set to its E2E ones."""
    from helpers import SAMPLES

    rel = "vllm/vllmbench0.1x_qwen3-32b_h200x8_tp8_isl1024_osl128_c100.json"
    doc = json.loads((SAMPLES / rel).read_text(encoding="utf-8"))
    doc.update({f"{stat}_ttft_ms": doc[f"{stat}_e2el_ms"] for stat in ("mean", "median", "std", "p99")})
    doc.update({key: 0.0 for key in doc if key.endswith(("_tpot_ms", "_itl_ms"))})
    (tmp_path / "vllm").mkdir()
    (tmp_path / rel).write_text(json.dumps(doc, indent=2), encoding="utf-8")
    (rec,) = file_records(tmp_path, rel)
    assert not [k for k in rec[R.METRICS] if k.startswith(("ttft_", "tpot_", "itl_"))], rec[R.METRICS]
    (real,) = file_records(SAMPLES, rel)  # as written, streamed: kept
    assert real[R.METRICS][R.latency_name("ttft", "p50")] == pytest.approx(1230.8051818981767)
