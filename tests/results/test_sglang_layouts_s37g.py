"""s37g: two layouts of SGLang's bench_serving line that were refused, learned from SGLang's own code.

No real file of either was found, so each line here is built from the code that writes it, key for key and
in its order, with values checked to agree with one another as that code computes them.

1. The ``sglang.benchmark`` package (sgl-project/sglang, python/sglang/benchmark/metrics.py at commit
   6e48df336a77303519023e2f95009509f0e94e83): ``save_results`` writes the run's arguments (backend,
   dataset_name, request_rate, max_concurrency, sharegpt_output_len, random_input_len, random_output_len,
   random_range_ratio), ``duration`` (seconds), then ``**metrics.__dict__``: BenchmarkMetrics' own field
   names, so the token totals are ``total_input``, ``total_output`` and ``total_output_retokenized``, and
   ``output_throughput_retokenized``, ``total_throughput_retokenized`` and ``max_itl_ms`` are written too;
   latencies in ms (``* 1000`` of seconds), throughputs per second of ``duration``. No server_info, so no
   model. ``--output-details`` nests the per-request arrays under ``details``. It was refused as "another
   script's output" by a message saying every bench_serving line holds total_input_tokens.
2. bench_serving's first layout (0.2, 2024): ``total_input``, ``total_output``, ``total_output_retokenized``,
   ``mean_e2e_latency``, ``median_e2e_latency``, ``median_ttft``, ``median_itl`` (each a ``metrics.*_ms``,
   so ms), ``output_token_throughput`` (``metrics.output_throughput``, tokens/s) and ``benchmark_duration``
   (seconds). The index holds no upstream copy of that bench_serving.py; the code read is a fork's that kept
   its result dict (code index id 66594354689, python/sglang/bench_serving.py), which writes ``completed``
   after request_rate and a ``wall_duration`` of its own. The dict 2024-12's upstream client writes (the real
   file sglang2024-12_..._medians_only_rr0.jsonl) is this one with the keys renamed and ``completed`` put last,
   which suggests 0.2's wrote none: a line without it is refused naming its layout, a line with it is read. It
   was refused as "unknown JSON output".
The router benchmarks in bench_serving's key names stay refused (test_real_files_s33e.py), for a reason now true
of every layout.
"""

from __future__ import annotations

import json

from helpers import ROOT, no_ref_said, refused_alone, run_cli, show_json
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"


def _package_line(**over) -> dict:
    """A line as sglang.benchmark's save_results writes it (metrics.py at 6e48df33): a run of 200 requests of
    512 in / 128 out, capped at 100 in flight, over 10 s."""
    line = {
        "backend": "sglang-oai", "dataset_name": "random", "request_rate": float("inf"), "max_concurrency": 100,
        "sharegpt_output_len": None, "random_input_len": 512, "random_output_len": 128, "random_range_ratio": 1.0,
        "duration": 10.0,
        "completed": 200, "total_input": 102400, "total_output": 25600, "total_output_retokenized": 25590,
        "request_throughput": 20.0, "input_throughput": 10240.0, "output_throughput": 2560.0,
        "output_throughput_retokenized": 2559.0, "total_throughput": 12800.0, "total_throughput_retokenized": 12799.0,
        "mean_ttft_ms": 800.0, "median_ttft_ms": 750.0, "std_ttft_ms": 120.0, "p99_ttft_ms": 1200.0,
        "mean_tpot_ms": 30.0, "median_tpot_ms": 29.0, "std_tpot_ms": 3.0, "p99_tpot_ms": 40.0,
        "mean_itl_ms": 30.5, "median_itl_ms": 28.0, "std_itl_ms": 10.0, "p95_itl_ms": 45.0, "p99_itl_ms": 60.0,
        "max_itl_ms": 150.0,
        "mean_e2e_latency_ms": 4600.0, "median_e2e_latency_ms": 4500.0, "std_e2e_latency_ms": 500.0,
        "p99_e2e_latency_ms": 6000.0,
        "concurrency": 92.0, "accept_length": None,
    }
    return {**line, **over}


def _first_layout_line(**over) -> dict:
    """A line of bench_serving's 0.2 layout as the fork (code index id 66594354689) writes it: 400 requests of
    512 in / 256 out at 8/s over 50 s. The upstream 0.2 client's line is this one without wall_duration (and, it
    seems, without completed)."""
    line = {
        "backend": "sglang", "dataset_name": "random", "request_rate": 8.0, "completed": 400,
        "total_input": 204800, "total_output": 102400, "total_output_retokenized": 102300,
        "mean_e2e_latency": 9000.0, "median_e2e_latency": 8800.0, "median_ttft": 250.0, "median_itl": 34.0,
        "output_token_throughput": 2048.0, "sharegpt_output_len": None, "random_input_len": 512,
        "random_output_len": 256, "random_range_ratio": 1.0, "benchmark_duration": 50.0, "wall_duration": 50.0,
    }
    return {**line, **over}


def _write(tmp_path, name: str, *lines: dict):
    src = tmp_path / name
    src.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return src


def _stored(capsys, tmp_path, src) -> tuple[list[dict], str]:
    """(the records stored, stderr but its no-ref line) of ``src`` ingested alone (no sidecar, no --row)."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(src))
    assert rc == 0, (out, err)
    return show_json(capsys, db), no_ref_said(err)


def test_a_sglang_benchmark_package_line_is_stored_with_the_figures_it_writes(tmp_path, capsys):
    (rec,), err = _stored(capsys, tmp_path, _write(tmp_path, "pkg.jsonl", _package_line()))
    assert err == ""
    m = rec[R.METRICS]
    assert (rec[R.CLIENT], rec[R.SOURCE_FORMAT], rec[R.CLIENT_VERSION], rec[R.MODEL]) == (
        "sglang-bench", "sglang-bench-serving", None, None)
    assert (rec[R.CONC], rec[R.ISL], rec[R.OSL], rec[R.REQUEST_RATE]) == (100, 512, 128, "inf")
    # the totals under the package's names, the rates per second of duration, as written
    assert (m[R.COMPLETED], m[R.DURATION_S], m[R.TOTAL_INPUT_TOKENS], m[R.TOTAL_OUTPUT_TOKENS]) == (
        200, 10.0, 102400, 25600)
    assert (m[R.REQUEST_THROUGHPUT], m[R.INPUT_THROUGHPUT], m[R.OUTPUT_THROUGHPUT], m[R.TOTAL_TOKEN_THROUGHPUT]) == (
        20.0, 10240.0, 2560.0, 12800.0)
    # latencies already in ms: stored as written, max_itl_ms too
    assert (m["ttft_mean_ms"], m["ttft_p50_ms"], m["ttft_p99_ms"], m["tpot_p50_ms"]) == (800.0, 750.0, 1200.0, 29.0)
    assert (m["itl_p95_ms"], m["itl_max_ms"], m["e2el_mean_ms"], m["e2el_p99_ms"]) == (45.0, 150.0, 4600.0, 6000.0)
    assert R.ACCEPT_LENGTH not in m and R.FAILED not in m


def test_its_output_details_are_read_from_where_it_nests_them(tmp_path, capsys):
    """save_results puts --output-details' arrays under "details" (the older client wrote them at the top): the
    failed request is counted and the p90 TTFT computed from the three that completed, as for a top-level one."""
    details = {"input_lens": [512, 512, 512, 512], "output_lens": [128, 128, 128, 0],
               "ttfts": [0.5, 0.7, 0.9, 0.0], "itls": [[0.03, 0.03], [0.03], [0.02], []],
               "generated_texts": ["a", "b", "c", ""], "errors": ["", "", "", "Timeout"]}
    line = _package_line(completed=3, total_input=1536, total_output=384, total_output_retokenized=384,
                         request_throughput=0.3, input_throughput=153.6, output_throughput=38.4,
                         total_throughput=192.0, concurrency=1.38, details=details)
    (rec,), _ = _stored(capsys, tmp_path, _write(tmp_path, "pkg-details.jsonl", line))
    m = rec[R.METRICS]
    assert (m[R.COMPLETED], m[R.FAILED]) == (3, 1)
    assert abs(m["ttft_p90_ms"] - 860.0) < 1e-9  # numpy's linear p90 of 0.5, 0.7, 0.9 s


def test_a_bad_time_in_its_details_is_refused_at_the_nested_key(tmp_path, capsys):
    details = {"ttfts": [0.5, -1.0], "itls": [[], []], "errors": ["", ""]}
    src = _write(tmp_path, "pkg-bad.jsonl", _package_line(details=details))
    _, lines = refused_alone(capsys, tmp_path, src)
    col = src.read_text(encoding="utf-8").index('"ttfts"') + 1  # the key within details
    assert lines == [f"{tmp_path / 'in' / src.name}:1:{col}: details.ttfts[1]: expected seconds (a number >= 0), "
                     "got -1.0; the output was edited or comes from an unsupported client version"]


def test_a_bad_total_is_named_by_the_package_s_own_key(tmp_path, capsys):
    src = _write(tmp_path, "pkg-neg.jsonl", _package_line(total_output=-5))
    _, lines = refused_alone(capsys, tmp_path, src)
    col = src.read_text(encoding="utf-8").index('"total_output"') + 1
    assert lines == [f"{tmp_path / 'in' / src.name}:1:{col}: total_output: negative (-5); a latency, count or "
                     "throughput cannot be negative; the output is corrupt, rerun it"]


def test_a_package_line_of_a_multi_turn_run_warns_at_its_total_input(tmp_path, capsys):
    """Its 0 input tokens (no prompts passed to the metrics) are warned of at the key the line has."""
    line = _package_line(total_input=0, input_throughput=0.0, total_throughput=2560.0,
                         total_throughput_retokenized=2559.0)
    src = _write(tmp_path, "pkg-multiturn.jsonl", line)
    (rec,), err = _stored(capsys, tmp_path, src)
    col = src.read_text(encoding="utf-8").index('"total_input"') + 1
    assert err.splitlines()[0].startswith(f"{src}:1:{col}: warning: total_input: 0 over 200 completed requests")
    assert R.TOTAL_INPUT_TOKENS not in rec[R.METRICS] and rec[R.METRICS][R.OUTPUT_THROUGHPUT] == 2560.0


def test_a_package_line_whose_text_re_tokenizes_short_is_warned_of_in_its_own_key_names(tmp_path, capsys):
    src = _write(tmp_path, "pkg-short.jsonl", _package_line(total_output_retokenized=256))
    (rec,), err = _stored(capsys, tmp_path, src)
    col = src.read_text(encoding="utf-8").index('"total_output_retokenized"') + 1
    assert err.splitlines()[0].startswith(
        f"{src}:1:{col}: warning: total_output_retokenized: the responses' text re-tokenizes to 256 tokens, 1.0% of "
        "the 25600 output tokens the line counts (total_output: what the requests asked for, ")
    assert rec[R.METRICS][R.TOTAL_OUTPUT_TOKENS] == 25600

def test_the_hunt_s_line_is_read(tmp_path, capsys):
    """The hunt's repro: the real 0.5.5 line above re-keyed as the package writes it (total_input, total_output,
    total_output_retokenized, the two *_retokenized rates), no server_info."""
    real = json.loads((REAL / "sglang/sglang0.5.5_qwen2.5-3b_tp1_c200_agg_trimmed.jsonl").read_text().splitlines()[0])
    names = {"total_input_tokens": "total_input", "total_output_tokens": "total_output",
             "total_output_tokens_retokenized": "total_output_retokenized"}
    line = {names.get(k, k): v for k, v in real.items()
            if k not in ("tag", "server_info", "total_input_text_tokens", "total_input_vision_tokens")}
    line.update(output_throughput_retokenized=7420.0, total_throughput_retokenized=36913.0)
    (rec,), _ = _stored(capsys, tmp_path, _write(tmp_path, "asdict.jsonl", line))
    m = rec[R.METRICS]
    assert (m[R.TOTAL_INPUT_TOKENS], m[R.TOTAL_OUTPUT_TOKENS], m[R.COMPLETED], rec[R.CONC]) == (52317, 13162, 200, 200)
    assert m[R.OUTPUT_THROUGHPUT] == real["output_throughput"] and m["e2el_p50_ms"] == real["median_e2e_latency_ms"]


def test_a_first_layout_line_with_completed_is_stored_in_ms_and_seconds(tmp_path, capsys):
    (rec,), err = _stored(capsys, tmp_path, _write(tmp_path, "sgl02.jsonl", _first_layout_line()))
    assert err == ""
    m = rec[R.METRICS]
    assert (rec[R.CLIENT], rec[R.CONC], rec[R.ISL], rec[R.OSL], rec[R.REQUEST_RATE]) == (
        "sglang-bench", None, 512, 256, 8.0)
    assert (m[R.COMPLETED], m[R.DURATION_S], m[R.TOTAL_INPUT_TOKENS], m[R.TOTAL_OUTPUT_TOKENS]) == (
        400, 50.0, 204800, 102400)
    # output_token_throughput is tokens/s as written; the request and input rates from the counts over 50 s
    assert (m[R.OUTPUT_THROUGHPUT], m[R.REQUEST_THROUGHPUT], m[R.INPUT_THROUGHPUT]) == (2048.0, 8.0, 4096.0)
    # latencies without a unit suffix are ms (metrics.*_ms): stored as written, not scaled
    assert (m["e2el_mean_ms"], m["e2el_p50_ms"], m["ttft_p50_ms"], m["itl_p50_ms"]) == (9000.0, 8800.0, 250.0, 34.0)
    assert not any(k.startswith("tpot_") for k in m) and "ttft_mean_ms" not in m


def test_a_first_layout_line_without_completed_is_refused_naming_its_layout(tmp_path, capsys):
    line = _first_layout_line()
    del line["completed"], line["wall_duration"]
    src = _write(tmp_path, "sgl02-upstream.jsonl", line, line)
    _, lines = refused_alone(capsys, tmp_path, src)
    assert lines == [(
        f"{tmp_path / 'in' / src.name}:1:1: format: an SGLang bench_serving line in its first layout (0.2, 2024: "
        "total_input, median_ttft and the other latencies in ms without _ms, output_token_throughput, "
        "benchmark_duration) without completed: no request count, which a stored run needs; "
        "ingest the line of a later bench_serving, which writes completed, or remove the file")]


def test_a_first_layout_line_s_bad_latency_is_named_by_its_own_key(tmp_path, capsys):
    src = _write(tmp_path, "sgl02-bad.jsonl", _first_layout_line(median_ttft="fast"))
    _, lines = refused_alone(capsys, tmp_path, src)
    col = src.read_text(encoding="utf-8").index('"median_ttft"') + 1
    assert lines == [f"{tmp_path / 'in' / src.name}:1:{col}: median_ttft: expected a number, got 'fast'; the output "
                     "was edited or comes from an unsupported client version"]

