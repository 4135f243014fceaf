"""s44e hunt: real outputs of kinds not held before (tests/data/results-real/SOURCES.tsv and
tests/data/results-exporter/SOURCES.tsv, "s44e hunt").

The MLPerf team's inference-endpoint client (the one srt-slurm's mlperf benchmark runs) writes its run as
result_summary.json (samples issued and completed, ttft/tpot/latency in ns, qps and tps) and its accuracy phase as
accuracy_results.json. Both were refused as "unknown JSON output", a line that names neither the client nor that it
is one sweepgate does not read; each is now refused by name, as the other clients' reports are.

AIPerf's Rust exporter writes the v1 summary JSON (schema 1.4) byte for byte as its Python exporter does, and its
console tables after a warning panel; its own golden files are held as an exporter's bytes (figures of no run):
the streaming export is read (its goodput the run's goodput), the one whose non-finite statistics were dropped is
refused with one line, the console text as console tables. None of these needed a change."""

from __future__ import annotations

from helpers import ROOT, file_records, refused_alone
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
EXPORTER = ROOT / "tests" / "data" / "results-exporter"
MLPERF_SUMMARY = (REAL / "other"
                  / "mlperf-inference-endpoint0.1.0_result_summary_dsr1_poisson_qps85_ns_87103of90000.json")
MLPERF_ACCURACY = REAL / "other" / "mlperf-inference-endpoint_accuracy_results_dsr1_5subsets.json"
NOT_READ = ("the output of a client sweepgate does not read; run the point with a client sweepgate reads "
            "(vllm bench serve --save-result, AIPerf), or remove the file")


def test_an_mlperf_inference_endpoint_result_summary_is_refused_by_name(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, MLPERF_SUMMARY)
    assert lines == [f"{src}:1:1: format: an MLPerf inference-endpoint result summary (the MLPerf team's "
                     "inference-endpoint client's result_summary.json: samples issued and completed, ttft, tpot and "
                     f"latency in ns, qps and tps), {NOT_READ}"]


def test_an_mlperf_inference_endpoint_accuracy_report_is_refused_by_name(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, MLPERF_ACCURACY)
    assert lines == [f"{src}:1:1: format: an MLPerf inference-endpoint accuracy report (inference-endpoint's "
                     f"accuracy_results.json: a score a dataset, no serving figures), {NOT_READ}"]


PERF_ANALYZER_CSV = REAL / "other" / "perf_analyzer_csv_inception_graphdef_conc1-4_usec_docs.csv"
PERF_ANALYZER_LINE = ("1: format: a perf_analyzer CSV (Triton's perf_analyzer -f: one row a concurrency or request "
                      f"rate, Inferences/Second and latencies in microseconds), {NOT_READ}")


def test_a_perf_analyzer_csv_is_refused_by_name(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, PERF_ANALYZER_CSV)
    assert lines == [f"{src}:{PERF_ANALYZER_LINE}"]


def test_a_perf_analyzer_csv_of_request_rates_is_refused_by_name(capsys, tmp_path):
    """--request-rate-range writes its rows a request rate, the first column named so."""
    text = PERF_ANALYZER_CSV.read_text(encoding="utf-8").replace("Concurrency,", "Request Rate,", 1)
    out = tmp_path / "perf.csv"
    out.write_text(text, encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, out)
    assert lines == [f"{src}:{PERF_ANALYZER_LINE}"]


AIPERF_RS_STREAMING = "aiperf/aiperf-rs_v1-export-golden_schema1.4_streaming_goodput.json"
AIPERF_RS_NONFINITE = "aiperf/aiperf-rs_v1-export-golden_schema1.4_nonfinite_dropped.json"
AIPERF_RS_CONSOLE = "aiperf/aiperf-rs_console-golden_warning_panel_before_error_and_metrics_tables.txt"


def test_aiperf_s_rust_exporter_schema_1_4_export_is_read_with_its_goodput():
    (rec,) = file_records(EXPORTER, AIPERF_RS_STREAMING)
    assert (rec[R.CLIENT], rec[R.CLIENT_VERSION], rec[R.SOURCE_FORMAT], rec[R.STATUS]) == (
        "aiperf", "0.0.0-test", "aiperf-json", "success")
    m = rec[R.METRICS]
    assert (m[R.REQUEST_THROUGHPUT], m[R.REQUEST_GOODPUT], m[R.COMPLETED]) == (4.0, 2.0, 3)
    assert (m["ttft_mean_ms"], m["ttft_p1_ms"], m["ttft_p99_ms"], m["ttft_std_ms"]) == (10.0, 5.5, 14.9, 2.5)
    assert (m["e2el_mean_ms"], m["e2el_p50_ms"], m["e2el_max_ms"]) == (200.0, 150.0, 300.0)


def test_aiperf_s_rust_export_without_its_non_finite_statistics_is_refused_with_one_line(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, EXPORTER / AIPERF_RS_NONFINITE)
    assert len(lines) == 1 and lines[0].startswith(f"{src}:") and "request_count: missing" in lines[0], lines


def test_aiperf_s_rust_console_text_with_a_panel_first_is_refused_as_console_tables(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, EXPORTER / AIPERF_RS_CONSOLE)
    assert len(lines) == 1 and lines[0].startswith(f"{src}:1: format: AIPerf's console tables"), lines


# SGLang's bench_serving wrote every TTFT and ITL statistic 0.0 over 300 completed requests against a PD-disaggregated
# (mooncake) deployment and an in-flight-batching backend (sgl-project/sglang issues #9585 and #12389, the lines
# pasted whole): its client timed no first token (0.0 is its default), so each TPOT it wrote is the whole request's
# latency over its tokens, prefill and queue in it. The TTFT was left out without a word and that TPOT (and the
# interactivity made of it) stored as the run's decode speed.
PD_LINE = REAL / "sglang" / "sglang0.5.6_qwen2.5-3b_pd_1p2d_c64_trimmed.jsonl"
UNTIMED = ("warning: mean_ttft_ms: every TTFT statistic is 0 over 100 completed requests, so the client timed no "
           "first token (each response came whole, as from a server that streamed none); its TPOT is then the "
           "whole request's latency over its tokens: stored without TTFT, TPOT and ITL")
UNTIMED_HINT = "serve the responses streamed (a PD router's too) and rerun the point to measure them"


def _first_token_untimed(path, source, zero=("ttft", "itl")):
    import json

    doc = json.loads(source.read_text(encoding="utf-8").splitlines()[0])
    for key in list(doc):
        if key.endswith(tuple(f"_{name}_ms" for name in zero)):
            doc[key] = 0.0
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    return path


def test_an_sglang_line_whose_every_ttft_is_0_keeps_no_tpot_made_of_the_whole_request(capsys, tmp_path):
    from helpers import run_cli

    line = _first_token_untimed(tmp_path / "pd.jsonl", PD_LINE)
    (rec,) = file_records(tmp_path, "pd.jsonl")
    m = rec[R.METRICS]
    assert not [k for k in m if k.startswith(("ttft_", "tpot_", "itl_"))], m
    assert R.INTERACTIVITY not in m
    # the E2E latency and throughputs as the line wrote them
    assert (m[R.COMPLETED], m["e2el_mean_ms"], m[R.OUTPUT_THROUGHPUT]) == (100, 4968.441314576194, 657.7236502614013)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(line))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert f"{UNTIMED}; {UNTIMED_HINT}" in err, err


def test_a_vllm_output_whose_every_ttft_is_0_alike():
    import json

    src = ROOT / "tests" / "data" / "results-real" / "vllm" / "vllm0.25.1_opt125m_c2_specless.json"
    doc = json.loads(src.read_text(encoding="utf-8"))
    doc.update({k: 0.0 for k in doc if k.endswith(("_ttft_ms", "_itl_ms"))})
    from sweepgate.results import sniff

    (m,) = sniff.parse_text(json.dumps(doc), "bench.json")
    assert not [k for k in m.metrics if k.startswith(("ttft_", "tpot_", "itl_")) and m.metrics[k] is not None]
    assert any(note[1].startswith("warning: mean_ttft_ms: every TTFT statistic is 0 over") for note in m.notes)


def test_an_all_failed_run_s_zero_ttft_is_no_warning():
    """Nothing completed: every statistic 0 is the client's mean of nothing, not an untimed first token."""
    from sweepgate.results import sniff

    src = ROOT / "tests" / "data" / "results-real" / "vllm" / "vllm0.25.1_opt125m_all_failed_noconc.json"
    (m,) = sniff.parse_text(src.read_text(encoding="utf-8"), "bench.json")
    assert not [note for note in m.notes if "TTFT statistic" in note[1]]
