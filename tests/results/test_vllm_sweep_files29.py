"""vsweep29: the other files `vllm bench sweep serve` and GenAI-Perf write beside their runs, and
`vllm bench serve` against a pooling endpoint.

The real point folder of a vLLM 0.25.1 sweep (tests/data/results-real/SOURCES.tsv, er0080/vllm-benchmarking)
is the base; beside it, the files a newer `vllm bench sweep serve` writes, built here as its code writes
them (vllm-project/vllm vllm/benchmarks/sweep/serve.py at 0031557f20f592111a8ea7d709730fad151bdae5, with
--warmup-num-prompts and --continue-on-error; summary.csv at every version read, 4fa9174d too):

- ``warmup.json``: a `vllm bench serve --save-result` output of the point with num_prompts replaced by the
  warm-up count and ``run_number: -1`` (``run_one(..., run_number=-1, output_path=base_path / "warmup.json")``);
  left out of the point's summary.json. It was stored as a third measurement of the point.
- ``run=N.failure.json`` (and ``warmup.failure.json``): ``{"run_number", "error_type", "error",
  "serve_overrides", "bench_overrides"}``, json.dumps(indent=2) and a newline; and, when a server setting
  failed, ``SERVE-<name>-failure.json`` in the experiment folder, without run_number or bench_overrides.
  They were "unknown JSON output" (exit 1).
- ``summary.csv`` in the experiment folder: ``pd.DataFrame.from_records(all_data).to_csv(...)`` over every
  point's runs (the index as an unnamed first column). It was refused as "a CSV table" (exit 1).
"""

from __future__ import annotations

import json
import shutil

from helpers import ROOT, SAMPLES, ingested_verbose, no_ref_said, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real"
POINT = "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8"
RUNS = {"run=0.json": "vllm/vllm0.25.1_bench_sweep_run0_opt125m_c2.json",
        "run=1.json": "vllm/vllm0.25.1_bench_sweep_run1_opt125m_c2_seqs4.json",
        "summary.json": "vllm/vllm0.25.1_bench_sweep_summary_2runs_c2.json"}
RUN_TTFTS = [39.30731637592544, 217.27289337468392]  # the two runs' mean TTFT


def _point(root):
    """The real point folder (two runs and their summary.json) under ``root``/experiment."""
    point = root / "experiment" / POINT
    point.mkdir(parents=True)
    for name, rel in RUNS.items():
        shutil.copyfile(REAL / rel, point / name)
    return point


def _run(point, n: int) -> dict:
    return json.loads((point / f"run={n}.json").read_text(encoding="utf-8"))


def _warmup(point) -> dict:
    """warmup.json as serve.py (0031557f) writes it: `vllm bench serve`'s output of the point's own
    command with ``bench_comb | {"num_prompts": warmup_num_prompts}`` (here 4), then _update_run_data:
    ``run_number`` -1 and the overrides. The figures are a cold server's (a slow first TTFT)."""
    doc = {k: v for k, v in _run(point, 0).items() if k not in ("run_number", "max_num_seqs")}
    doc.update({"date": "20260818-021330", "num_prompts": 4, "duration": 2.91, "completed": 4,
                "total_input_tokens": 128, "total_output_tokens": 64, "request_throughput": 1.3745704467353952,
                "output_throughput": 21.993127147766323, "total_token_throughput": 65.97938144329896,
                "mean_ttft_ms": 2411.5, "median_ttft_ms": 2398.0, "std_ttft_ms": 30.5, "p99_ttft_ms": 2450.1})
    doc.update({"run_number": -1, "max_num_seqs": 4, "max_concurrency": 2})
    return doc


def _failure(run_number: int | None, error: str, bench: bool = True, error_type: str = "CalledProcessError") -> str:
    """A failure record as serve.py (0031557f) writes it: run_one's for a run (or the warm-up, run -1),
    run_combs' for a server setting (no run_number, no bench_overrides)."""
    doc = {} if run_number is None else {"run_number": run_number}
    doc.update({"error_type": error_type, "error": error, "serve_overrides": {"max_num_seqs": 4}})
    if bench:
        doc["bench_overrides"] = {"max_concurrency": 2, "num_prompts": 8}
    return json.dumps(doc, indent=2) + "\n"


def _pandas_csv(records: list[dict]) -> str:
    """What ``pd.DataFrame.from_records(records).to_csv(path)`` writes: an unnamed index column, the
    keys in the order first met, None as an empty cell, floats as repr, lists as their str, quoted
    where they hold a comma (QUOTE_MINIMAL), '\\n' line ends."""
    import csv
    import io

    columns = list(dict.fromkeys(k for r in records for k in r))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["", *columns])
    for i, r in enumerate(records):
        writer.writerow([i, *("" if r.get(c) is None else str(r[c]) for c in columns)])
    return out.getvalue()


def _summary_csv(experiment, *points) -> None:
    runs = [json.loads((p / f"run={n}.json").read_text(encoding="utf-8")) for p in points for n in (0, 1)]
    (experiment / "summary.csv").write_text(_pandas_csv(runs), encoding="utf-8")


def test_a_sweep_s_warmup_run_is_not_stored_as_a_measurement(tmp_path, capsys):
    """warmup.json is a whole `vllm bench serve` output (run_number -1): it was stored as a third run of
    the point, its cold-server TTFT among the measurements. It is passed over, on a line of its own."""
    point = _point(tmp_path)
    (point / "warmup.json").write_text(json.dumps(_warmup(point), indent=4), encoding="utf-8")
    db, out = ingested_verbose(capsys, tmp_path, point)
    assert f"skipped {point / 'warmup.json'}" in out.splitlines()
    assert ("skipped 1 vllm bench sweep warm-up run (warmup.json, run_number -1: the unmeasured run before a "
            "point's runs, which its summary.json leaves out too)") in out.splitlines()
    assert "ingested 2 results (2 new)" in out
    recs = show_json(capsys, db)
    assert sorted(r["metrics"]["ttft_mean_ms"] for r in recs) == RUN_TTFTS


def test_a_warmup_run_named_alone_stores_nothing(tmp_path, capsys):
    """Named on its own, the warm-up is still no result: nothing stored, and said so."""
    point = _point(tmp_path)
    (point / "warmup.json").write_text(json.dumps(_warmup(point), indent=4), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(point / "warmup.json"))
    assert rc == 0 and err == "", err
    assert out.splitlines()[-2].startswith("skipped 1 vllm bench sweep warm-up run (")
    assert "ingested 0 results (0 new)" in out and "nothing stored" in out


def test_a_warmup_line_among_results_refuses_the_file(tmp_path, capsys):
    """A warm-up appended to a JSONL file of runs is refused at its line, as any file passed over alone
    is among results: the file is not stored with the warm-up in it."""
    point = _point(tmp_path)
    lines = tmp_path / "runs.jsonl"
    lines.write_text("".join(json.dumps(d) + "\n" for d in (_run(point, 0), _warmup(point))), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(lines))
    assert rc == 1
    assert err.startswith(f"{lines}:2:"), err
    assert "not a result but of what is passed over alone (vllm bench sweep warm-up runs)" in err


def test_a_failed_run_s_record_is_said_and_the_point_s_runs_stored(tmp_path, capsys):
    """run=2.failure.json (--continue-on-error) was "unknown JSON output", failing the folder. A failed run
    has no figures and no job to file a failure under (its model is in --serve-cmd, not the record): it is
    passed over, counted, and said in a warning with its error, the point's runs stored."""
    point = _point(tmp_path)
    error = "Command '['vllm', 'bench', 'serve', '--max-concurrency', '2']' returned non-zero exit status 1."
    (point / "run=2.failure.json").write_text(_failure(2, error), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(point))
    assert rc == 0, err
    assert no_ref_said(err).splitlines() == [
        f"{point / 'run=2.failure.json'}:1:1: warning: a vllm bench sweep run that failed (run 2, "
        f"CalledProcessError: {error}): no figures, nothing stored (the point's other runs are stored without "
        "it); rerun the point to measure it, or remove the file"]
    assert ("skipped 1 vllm bench sweep failure record (run=N.failure.json, SERVE-...-failure.json: a run or "
            "server setting that failed under --continue-on-error, no figures)") in out.splitlines()
    assert "ingested 2 results (2 new)" in out
    assert sorted(r["metrics"]["ttft_mean_ms"] for r in show_json(capsys, db)) == RUN_TTFTS


def test_failed_warmups_and_server_settings_are_said_for_what_they_are(tmp_path, capsys):
    """warmup.failure.json (run -1) and the experiment folder's SERVE-<name>-failure.json (a server that
    did not come up: none of its points ran) are failure records too, each said as what failed; the
    error's first line is quoted (a CalledProcessError's can run on)."""
    point = _point(tmp_path)
    experiment = point.parent
    (point / "warmup.failure.json").write_text(_failure(-1, "boom\nTraceback ..."), encoding="utf-8")
    (experiment / "SERVE--max_num_seqs=8-failure.json").write_text(
        _failure(None, "Server failed to start within 300 seconds", bench=False, error_type="TimeoutError"),
        encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(experiment))
    assert rc == 0, err
    assert no_ref_said(err).splitlines() == [
        f"{point / 'warmup.failure.json'}:1:1: warning: a vllm bench sweep point's warm-up run that failed "
        "(CalledProcessError: boom): not a measurement, nothing stored; nothing to do (the point's runs are "
        "stored); remove the file to silence this",
        f"{experiment / 'SERVE--max_num_seqs=8-failure.json'}:1:1: warning: a vllm bench sweep server setting that "
        "failed (TimeoutError: Server failed to start within 300 seconds): none of its points ran, nothing "
        "stored; rerun them with the server setting fixed, or remove the file"]
    assert "skipped 2 vllm bench sweep failure records (" in out
    assert "ingested 2 results (2 new)" in out


def test_a_point_folder_of_failed_runs_only_holds_no_result(tmp_path, capsys):
    """A point whose every run failed (serve.py writes no summary.json then) holds no result: named as a
    folder, that is said and exit 1, as for a folder of other files that go beside results; the failures
    are still said."""
    point = tmp_path / POINT
    point.mkdir()
    for n in (0, 1):
        (point / f"run={n}.failure.json").write_text(_failure(n, "exit status 1"), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(point))
    assert rc == 1
    assert err.count(": warning: a vllm bench sweep run that failed (run ") == 2, err
    assert err.splitlines()[-1] == (f"{point}: no result files in this folder, only files that go with one "
                                    "(vllm bench sweep failure records); pass the folder the job outputs were "
                                    "downloaded into")


def test_the_experiment_s_summary_csv_is_passed_over(tmp_path, capsys):
    """summary.csv, the pandas table of every run of every point, was refused as "a CSV table": ingesting
    the folder a sweep wrote exited 1. It is passed over, counted on its own line; the runs are read from
    their run=N.json."""
    point = _point(tmp_path)
    experiment = point.parent
    _summary_csv(experiment, point)
    db, out = ingested_verbose(capsys, tmp_path, experiment)
    assert f"skipped {experiment / 'summary.csv'}" in out.splitlines()
    assert ("skipped 1 vllm bench sweep summary table (summary.csv, the table of a sweep's runs over all its points: "
            "not read, each run is read from its own run=N.json under SERVE-/BENCH- folders)") in out.splitlines()
    assert "ingested 2 results (2 new)" in out


def test_a_whole_sweep_folder_is_ingested_each_run_once(tmp_path, capsys):
    """Everything a newer sweep writes, together: two points (the second point's run=1.json is real too),
    a warm-up in the first, a failed run in the second, the experiment's summary.csv: the four runs stored
    once each, exit 0."""
    point = _point(tmp_path)
    experiment = point.parent
    other = experiment / "SERVE--max_num_seqs=8-BENCH--max_concurrency=2-num_prompts=8"
    other.mkdir()
    shutil.copyfile(REAL / "vllm" / "vllm_sweep_run1" / other.name / "run=1.json", other / "run=1.json")
    (other / "run=0.failure.json").write_text(_failure(0, "exit status 1"), encoding="utf-8")
    (point / "warmup.json").write_text(json.dumps(_warmup(point), indent=4), encoding="utf-8")
    runs = [_run(point, 0), _run(point, 1), json.loads((other / "run=1.json").read_text(encoding="utf-8"))]
    (other / "summary.json").write_text(json.dumps(runs[2:], indent=4), encoding="utf-8")
    (experiment / "summary.csv").write_text(_pandas_csv(runs), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(experiment))
    assert rc == 0, err
    assert len(no_ref_said(err).splitlines()) == 1 and "a vllm bench sweep run that failed (run 0," in err
    assert "ingested 3 results (3 new)" in out
    assert len(show_json(capsys, db)) == 3


def test_a_csv_table_that_is_no_sweep_summary_is_still_refused(tmp_path, capsys):
    """Only a table of sweep runs is passed over: one without run_number (a table of runs someone made,
    the same columns) is refused as before."""
    point = _point(tmp_path)
    table = tmp_path / "table.csv"
    table.write_text(_pandas_csv([{k: v for k, v in _run(point, 0).items() if k != "run_number"}]), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(table))
    assert rc == 1 and "format: a CSV table, not a benchmark client output" in err


# GenAI-Perf's request inputs, written into every artifact folder beside profile_export_genai_perf.json:
# inputs.json (triton-inference-server/perf_analyzer genai-perf/genai_perf/inputs/input_constants.py
# DEFAULT_INPUT_DATA_JSON at 00afbedf; inputs.py _write_json_to_file, json.dumps indent=2), llm_inputs.json
# before (triton-inference-server/client src/c++/perf_analyzer/genai-perf/genai_perf/llm_inputs/llm_inputs.py
# at 0127e9be). {"data": [...]}, one entry a request: {"payload": [body]} for OpenAI endpoints
# (openai_chat_completions_converter.py, base_converter._finalize_payload at 053bdb77; metadata such as
# "timestamp": [t] beside it), the body's tensors themselves for Triton backends (tensorrtllm_engine_converter.py
# at 053bdb77: input_ids {content, shape}, input_lengths, request_output_len; llm_inputs.py: text_input, max_tokens).
GENAI_PERF_INPUTS = {
    "inputs.json": {"data": [{"payload": [{"model": "meta/llama3-8b-instruct",
                                           "messages": [{"role": "user", "content": "Tell me about GPUs."}],
                                           "stream": True, "max_tokens": 50}]},
                             {"payload": [{"model": "meta/llama3-8b-instruct",
                                           "messages": [{"role": "user", "content": "And CPUs?"}],
                                           "stream": True, "max_tokens": 50}], "timestamp": [0]}]},
    "llm_inputs.json": {"data": [{"payload": [{"messages": [{"role": "user", "content": "Tell me about GPUs."}],
                                               "model": "meta/llama3-8b-instruct", "stream": True}]}]},
}
GENAI_PERF_TRITON_INPUTS = [
    {"data": [{"text_input": ["Tell me about GPUs."], "max_tokens": [256], "stream": [True]}]},
    {"data": [{"input_ids": {"content": [101, 2023, 102], "shape": [3]}, "input_lengths": [3],
               "request_output_len": [256], "streaming": [True]}]},
]


def test_a_genai_perf_artifact_folder_with_its_inputs_is_ingested_whole(tmp_path, capsys):
    """inputs.json (llm_inputs.json before) is in every GenAI-Perf artifact folder by default; it was
    "unknown JSON output", failing the folder (exit 1). It goes beside the result, as AIPerf's inputs.json does."""
    from test_real_files_formats29 import GENAI_PERF_FILES

    folder = tmp_path / "meta_llama3-8b-instruct-openai-chat-concurrency1"
    folder.mkdir()
    for name, rel in GENAI_PERF_FILES.items():
        shutil.copyfile((REAL if (REAL / rel).is_file() else SAMPLES) / rel, folder / name)
    for name, doc in GENAI_PERF_INPUTS.items():
        (folder / name).write_text(json.dumps(doc, indent=2), encoding="utf-8")
    db, out = ingested_verbose(capsys, tmp_path, folder)
    for name in GENAI_PERF_INPUTS:
        assert f"skipped {folder / name}" in out.splitlines()
    assert ("skipped 3 files with no result (GPU metrics, lm-eval samples logs, AIPerf's and GenAI-Perf's other "
            "exports: files that go beside one)") in out.splitlines()
    assert "ingested 1 results (1 new)" in out


def test_genai_perf_inputs_for_triton_backends_are_passed_over(tmp_path, capsys):
    for n, doc in enumerate(GENAI_PERF_TRITON_INPUTS):
        path = tmp_path / f"inputs{n}.json"
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
        assert rc == 0 and err == "", err
        assert "skipped 1 file with no result (" in out


def test_a_data_list_of_other_things_is_still_unknown(tmp_path, capsys):
    """Only GenAI-Perf's shape is passed over: {"data": [...]} of records that are no request inputs
    (a dashboard's export, say) stays "unknown JSON output"."""
    path = tmp_path / "data.json"
    path.write_text(json.dumps({"data": [{"model": "x", "ttft_ms": 12.5, "conc": 4}]}), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
    assert rc == 1 and "format: unknown JSON output" in err


# `vllm bench serve` against a pooling endpoint (--backend openai-embeddings, vllm-pooling, vllm-rerank, ...),
# as vllm-project/vllm vllm/benchmarks/serve.py at 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1 writes it: its
# EmbedBenchmarkMetrics result (no failed, no output tokens, no TTFT/TPOT/ITL: only E2EL, the default
# --percentile-metrics for pooling), latencies and queue_times (not among the fields --save-detailed drops),
# the client queue time's statistics beside --max-concurrency; main_async's date ... max_concurrency before it.
def _pooling(**over) -> dict:
    doc = {"date": "20260901-101500", "endpoint_type": "openai-embeddings", "backend": "openai-embeddings",
           "label": None, "model_id": "BAAI/bge-base-en-v1.5", "tokenizer_id": "BAAI/bge-base-en-v1.5",
           "num_prompts": 100, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 16,
           "duration": 1.52, "completed": 100, "total_input_tokens": 3200, "total_input_sequences": 100,
           "request_throughput": 65.78947368421052, "input_sequence_throughput": 65.78947368421052,
           "total_token_throughput": 2105.2631578947367, "latencies": [0.21, 0.23],
           "queue_times": [0.0, 0.01], "mean_e2el_ms": 231.4, "median_e2el_ms": 228.0, "std_e2el_ms": 12.1,
           "p99_e2el_ms": 262.7, "mean_client_queue_time_ms": 4.1, "median_client_queue_time_ms": 0.0,
           "std_client_queue_time_ms": 6.3, "p99_client_queue_time_ms": 20.4}
    doc.update(over)
    return doc


# s50h: one message for every client's run against such an endpoint (measurement.refuse_tokenless)
POOLING = ("format: a vllm bench serve run against an endpoint that generates no tokens (openai-embeddings: "
           "embeddings, pooling, scores or reranking; end-to-end latency only), not a generation run; benchmark the "
           "point with a generation backend (openai, openai-chat, vllm) and ingest that output, or remove the file")


def test_a_pooling_run_is_refused_as_what_it_is(tmp_path, capsys):
    """It read "unknown JSON output", as if sweepgate did not know vLLM's client."""
    path = tmp_path / "embed.json"
    path.write_text(json.dumps(_pooling(), indent=2), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
    assert rc == 1
    assert err.splitlines() == [f"{path}:1:1: {POOLING}"]


def test_an_older_pooling_run_and_a_sweep_of_them_are_refused_as_pooling(tmp_path, capsys):
    """The shape earlier serve.py versions wrote (no total_input_sequences nor input_sequence_throughput, no
    queue times) is the same kind; so is a sweep's summary.json of pooling runs (a list of them)."""
    older = {k: v for k, v in _pooling(backend="vllm-rerank", endpoint_type="vllm-rerank").items()
             if "sequence" not in k and "queue" not in k and k != "latencies"}
    one = tmp_path / "rerank.json"
    one.write_text(json.dumps(older, indent=2), encoding="utf-8")
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps([dict(older, run_number=0), dict(older, run_number=1)], indent=4), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(one), str(summary))
    assert rc == 1
    lines = err.splitlines()
    assert len(lines) == 2 and all("generates no tokens (vllm-rerank: embeddings" in x for x in lines)
    assert lines[1].startswith(f"{summary}:1:1: format: a list of 2 vllm bench serve runs against an endpoint "
                               "that generates no tokens"), lines[1]


def test_a_generation_run_with_e2el_only_is_still_read(tmp_path, capsys):
    """A generation run with --percentile-metrics e2el has no TTFT either, but its output tokens: it is
    no pooling run. (It was refused as "unknown JSON output" for its want of TTFT/TPOT, the defect s30e
    fixed: it is stored with its E2EL, tests/results/test_vllm_percentile_metrics30.py.)"""
    doc = {k: v for k, v in _pooling().items() if "sequence" not in k}
    doc.update({"backend": "openai", "endpoint_type": "openai", "failed": 0, "total_output_tokens": 12800,
                "output_throughput": 8421.0, "total_token_throughput": 2105.2631578947367 + 8421.0})
    path = tmp_path / "gen.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
    assert (rc, no_ref_said(err)) == (0, "") and out.startswith("ingested 1 results (1 new)"), err


# `vllm bench sweep serve_sla` (vllm-project/vllm vllm/benchmarks/sweep/serve_sla.py at 79bf4ccf, and 0826bcfb):
# each value its search tries is a folder of its own under the point's, `<sla_variable>=<value>/` (run_sla:
# run=N.json and their summary.json), and the point's folder gets `SLA--<criteria>.json`, json.dump(indent=4) of
# every run of every value tried (search_sla's sla_data), beside those folders, not beside the runs.
def test_a_serve_sla_search_s_runs_are_stored_once(tmp_path, capsys):
    """The SLA file lists the runs of the value folders below it: it was read, storing each run twice
    (request_rate=N/run=0.json and SLA--....json#k). It is skipped as a point's summary.json is."""
    point = _point(tmp_path)
    base = tmp_path / "sla" / POINT
    runs = []
    for value, n in ((65536, 0), (8, 1)):
        run = dict(_run(point, n), request_rate=value, run_number=0)
        folder = base / f"request_rate={value}"
        folder.mkdir(parents=True)
        (folder / "run=0.json").write_text(json.dumps(run, indent=4), encoding="utf-8")
        (folder / "summary.json").write_text(json.dumps([run], indent=4), encoding="utf-8")
        runs.append(run)
    sla = base / "SLA--p99_e2el_ms<=500.json"
    sla.write_text(json.dumps(runs, indent=4), encoding="utf-8")
    db, out = ingested_verbose(capsys, tmp_path, tmp_path / "sla")
    assert f"skipped {sla}" in out.splitlines()
    assert "skipped 3 vllm bench sweep summary files (" in out
    assert "ingested 2 results (2 new)" in out
    assert sorted(r["metrics"]["ttft_mean_ms"] for r in show_json(capsys, db)) == RUN_TTFTS


def test_an_sla_file_with_a_run_not_below_it_is_read(tmp_path, capsys):
    """As a summary.json with a run not beside it: an SLA file whose runs are not all in the folders below
    it holds the only copy of some, and is read for those (s30: it was read whole, storing the run below it
    twice, request_rate=8/run=0.json and SLA--....json#2: 3 results for 2 runs)."""
    point = _point(tmp_path)
    base = tmp_path / "sla"
    (base / "request_rate=8").mkdir(parents=True)
    run = dict(_run(point, 1), request_rate=8, run_number=0)
    (base / "request_rate=8" / "run=0.json").write_text(json.dumps(run, indent=4), encoding="utf-8")
    (base / "SLA--p99_e2el_ms<=500.json").write_text(
        json.dumps([dict(_run(point, 0), request_rate=65536, run_number=0), run], indent=4), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(base))
    assert rc == 0 and no_ref_said(err) == "", err
    assert "ingested 2 results (2 new)" in out and "skipped 1 run of vllm bench sweep summaries (" in out
    assert sorted(r["result-filename"] for r in show_json(capsys, db)) == ["SLA--p99_e2el_ms<=500.json#1",
                                                                            "run=0.json"]
