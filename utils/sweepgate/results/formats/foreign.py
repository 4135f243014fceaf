"""Outputs of the same tools that are not one serving run's figures: refused with what they are
(``KINDS``, GuideLLM's and other clients' reports, a serving client's console output), or passed over
as files that go beside a result (``AIPERF_COMPANIONS``, ``Auxiliary`` and its kinds: AIPerf's aggregates
and search records, an eval's side files, `vllm bench sweep serve`'s warm-up, summary table and failure records,
SGLang's steady-state report).

Each KINDS entry: the top-level keys that tell the file, what it is, and what to ingest instead. A
file matching nothing is "unknown JSON output" (sniff.py).
"""

from __future__ import annotations

import re

from sweepgate.core.errors import Diagnostic, fail


class Auxiliary(Exception):
    """A file that belongs beside a result but is not one: ``gpu_metrics.csv``, lm-eval's samples log,
    AIPerf's other files in a run's artifact folder. Passed over and counted, wherever it is: each
    kind on a line of its own, ``skipped N <NOUN>s <WHY>``."""

    NOUN = "file"
    # the kind, in a folder's no-results line
    WHAT = "GPU metrics, lm-eval samples logs, AIPerf's and GenAI-Perf's other exports"
    WHY = f"with no result ({WHAT}: files that go beside one)"
    warning: Diagnostic | None = None  # what is said of it as well (``SweepFailure``: a sweep's failed run)


class MultiRunAggregate(Auxiliary):
    """AIPerf's statistics across the repeats of one run (``--num-profile-runs N``: the confidence
    aggregate ``aggregate/profile_export_aiperf_aggregate.json`` and ``.csv``, the collated
    ``profile_export_aiperf_collated.json``). Each repeat's own export (``profile_runs/run_NNNN/``)
    is a result; the aggregate of them, with no model, concurrency or request counts of its own,
    would count them twice. Passed over and counted on a line of its own."""

    NOUN = "AIPerf multi-run aggregate"
    WHAT = "AIPerf multi-run aggregates"
    WHY = ("(statistics across the repeats of --num-profile-runs, not a run: each repeat's own "
           "profile_export_aiperf.json, under profile_runs/, is a result)")


class SweepAggregate(Auxiliary):
    """AIPerf's statistics across a sweep's runs (``--concurrency 16,32,...``:
    ``sweep_aggregate/profile_export_aiperf_sweep.json`` and ``.csv``, one entry per swept value).
    Each run's own export, in the sweep's folder for its value (``concurrency_16/``), is a result; the
    aggregate, beside them in the folder the sweep wrote, would count them twice. Passed over and
    counted on a line of its own, as the multi-run aggregate is."""

    NOUN = "AIPerf sweep aggregate"
    WHAT = "AIPerf sweep aggregates"
    WHY = ("(statistics across a sweep's runs, one entry per swept value: each run's own "
           "profile_export_aiperf.json, in the sweep's folder for its value such as concurrency_16/, is a result)")


class SearchRecord(Auxiliary):
    """What an AIPerf search (0.11+: ``--search-space``, ``--search-recipe``) concluded across its runs
    (``SEARCH_RECORDS``): ``search_history.json`` at the artifact root (the planner's iterations and the
    objective each scored, its best trials and, over one axis, the boundary between the values that met
    the SLA and the first that broke it), and a search recipe's post-process artifact in
    ``sweep_aggregate/`` (``sla_breach.json``, ``degradation_knee.json``, ``prefill_curve.json``,
    ``decode_itl_surface.json``, ``pareto_sweep.json``; ``post_process_errors.json`` when its step
    failed). Each run the search made has its own export (``search_iter_NNNN/profile_runs/run_NNNN/``,
    or the folder for its value such as ``concurrency_16/``), which is the result; these restate its
    figures. Passed over and counted on a line of its own, as the sweep aggregate is."""

    NOUN = "AIPerf search record"
    WHAT = "AIPerf search records"
    WHY = ("(search_history.json, a search recipe's sla_breach.json, prefill_curve.json and the like: what a "
           "search concluded across its runs; each run's own profile_export_aiperf.json, under search_iter_NNNN/ "
           "or the folder for its value, is a result)")


class EvalSideFile(Auxiliary):
    """What an InferenceX eval job leaves beside its scores (``eval_side``): its ``meta_env.json``, an
    eval adapter's native report and per-case log, SWE-bench's predictions and report."""

    WHAT = "files an eval leaves beside its scores"
    WHY = ("an eval left beside its scores (InferenceX's meta_env.json, eval adapters' native reports and "
           "per-case logs, SWE-bench predictions; the scores are in its results JSON)")


class SweepWarmup(Auxiliary):
    """`vllm bench sweep serve --warmup-num-prompts N`'s warm-up of a point (``warmup.json``): a whole
    `vllm bench serve` output of the point's command with N prompts, numbered ``run_number`` -1
    (``vllm.is_sweep_warmup``), which the point's summary.json leaves out. A cold server's figures, not a
    measurement: stored, it would be one more run of the point. Passed over and counted on a line of
    its own."""

    NOUN = "vllm bench sweep warm-up run"
    WHAT = "vllm bench sweep warm-up runs"
    WHY = ("(warmup.json, run_number -1: the unmeasured run before a point's runs, which its summary.json "
           "leaves out too)")


class SweepTable(Auxiliary):
    """`vllm bench sweep serve`'s ``summary.csv`` in the experiment folder: pandas' table of every run
    of every point (``vllm.is_sweep_table``), each of which is its own run=N.json in its point's folder.
    Read too, each run would count twice; read alone, its cells are the runs' values flattened to text.
    Passed over and counted on a line of its own."""

    NOUN = "vllm bench sweep summary table"
    WHAT = "vllm bench sweep summary tables"
    WHY = ("(summary.csv, the table of a sweep's runs over all its points: not read, each run is read from "
           "its own run=N.json under SERVE-/BENCH- folders)")


class SweepFailure(Auxiliary):
    """`vllm bench sweep serve --continue-on-error`'s record of what failed (``SWEEP_FAILURE``): a run's
    ``run=N.failure.json`` (the warm-up's, run -1, ``warmup.failure.json``), or a server setting's
    ``SERVE-<name>-failure.json`` in the experiment folder. No figures, and no job to file a failure
    under: sweepgate's failure records are a job's (its sidecar names its row), and this names no model
    (it is in --serve-cmd). Passed over, counted on a line of its own, and said in a warning quoting
    its error (``warning``): the point's other runs are stored without it."""

    NOUN = "vllm bench sweep failure record"
    WHAT = "vllm bench sweep failure records"
    WHY = ("(run=N.failure.json, SERVE-...-failure.json: a run or server setting that failed under "
           "--continue-on-error, no figures)")

    def __init__(self, path: str, line: int, doc: dict):
        super().__init__(path)
        self.warning = _failure_warning(doc, path, line)


class SteadyStateReport(Auxiliary):
    """SGLang's steady-state report (``python -m sglang.benchmark.steady_state_serving
    --steady-state-output-file``, 0.5.23: one line a run, ``STEADY_STATE``): the counts and throughputs of
    the longest stretch of a run at a share of its peak concurrency, no latencies. The run itself is the
    bench_serving line the same command appends to its --output-file, which is the result; this restates
    part of it. Passed over and counted on a line of its own, as AIPerf's time slices are."""

    NOUN = "SGLang steady-state report"
    WHAT = "SGLang steady-state reports"
    WHY = ("(steady_state_serving's --steady-state-output-file: the throughputs of the part of a run at its peak "
           "concurrency; the run's own bench_serving line, in its --output-file, is the result)")


# What steady_state_serving writes (sglang/benchmark/steady_state.py SteadyStateMetrics) and no result does.
STEADY_STATE = {"concurrency_ratio", "window_start", "window_end", "concurrency_threshold", "peak_concurrency"}


# The keys of every failure record `vllm bench sweep serve` writes; a run's has run_number and bench_overrides too.
SWEEP_FAILURE = {"error_type", "error", "serve_overrides"}


def _failure_warning(doc: dict, path: str, line: int) -> Diagnostic:
    """The warning that says what failed, with the first line of its error (a traceback can follow)."""
    lines = str(doc.get("error") or "").strip().splitlines()
    error = f"{doc.get('error_type')}: {lines[0] if lines else ''}".rstrip(": ")
    run = doc.get("run_number")
    if run is None:
        what, said, fix = ("server setting that failed", "none of its points ran, nothing stored",
                           "rerun them with the server setting fixed, or remove the file")
    elif isinstance(run, int) and run < 0:
        what, said, fix = ("point's warm-up run that failed", "not a measurement, nothing stored",
                           "nothing to do (the point's runs are stored); remove the file to silence this")
    else:
        what, said, fix = ("run that failed", "no figures, nothing stored (the point's other runs are stored "
                           "without it)", "rerun the point to measure it, or remove the file")
        error = f"run {run}, {error}"
    return Diagnostic(path, line, 0, "sweep-failure", f"warning: a vllm bench sweep {what} ({error}): {said}", fix,
                      severity="warning")


# Every kind of file passed over as one that goes beside a result, each counted on a line of its own.
BESIDE_KINDS = (Auxiliary, MultiRunAggregate, SweepAggregate, SearchRecord, EvalSideFile, SweepWarmup, SweepTable,
                SweepFailure, SteadyStateReport)

# What AIPerf writes as ``metadata.aggregation_type`` over a multi-run aggregate's ``metrics``.
MULTI_RUN_AGGREGATIONS = ("confidence", "detailed")
# The header of the confidence aggregate's CSV table (``metric,mean,std,...,t_critical,unit``).
MULTI_RUN_CSV = "metric,mean,std,min,max,cv,se,ci_low,ci_high"


def is_multi_run_aggregate(doc) -> bool:
    """AIPerf's aggregate of a run's repeats: ``{metadata: {aggregation_type, num_profile_runs, ...}, metrics}``."""
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    return (isinstance(meta, dict) and meta.get("aggregation_type") in MULTI_RUN_AGGREGATIONS
            and "num_profile_runs" in meta and isinstance(doc.get("metrics"), dict))


# What an AIPerf search writes beside its runs' exports (``SearchRecord``), each told by the keys its writer
# always writes (AIPerf 0.11 to 0.13: exporters/search_history.py, search_recipes/'s post-process handlers,
# cli_runner/_post_process.py).
SEARCH_RECORDS = (
    {"config", "iterations", "convergence_reason"},  # search_history.json (its best as "best" or "best_trials")
    {"swept_param", "all_points", "monotonicity_check"},  # sla_breach.json (max-concurrency-under-sla, grid)
    {"swept_param", "all_points", "threshold_pct"},  # degradation_knee.json (concurrency-ramp)
    {"swept_param", "raw_points", "fit_form"},  # prefill_curve.json (prefill-ttft-curve)
    {"swept_params", "raw_points", "surface"},  # decode_itl_surface.json (decode-itl-curve)
    {"x_metric", "y_metric", "cells"},  # pareto_sweep.json (pareto-sweep)
    {"handler", "output_filename", "error"},  # post_process_errors.json: a recipe's post-process step failed
)


# AIPerf's other files beside profile_export_aiperf.json in every artifact folder (their CSV twins in
# aiperf_csv), and GenAI-Perf's beside its own export: the keys that tell each. Records, telemetry and the
# server's metrics, none the run's figures.
AIPERF_COMPANIONS = (
    {"metadata", "metrics", "error"},  # profile_export.jsonl, a failed request's record (and see _aiperf_record)
    {"aiperf_version", "summary", "metrics"},  # server_metrics_export.json
    {"gpu_index", "gpu_uuid", "metrics"},  # gpu_telemetry_export.jsonl, one sample a line
    {"ready", "was_cancelled"},  # .aiperf_results_ready.json, the run's end marker
    {"timeslices", "input_config"},  # profile_export_aiperf_timeslices.json (--slice-duration), per time slice
    # run_config.json, the run's whole configuration that AIPerf 0.11+'s multi-run orchestrator hands each run's
    # process and leaves in the run's folder (every run of a sweep, a search or --num-profile-runs)
    {"benchmark_id", "cfg", "artifact_dir"},
    # GenAI-Perf's profile_export.json (--profile-export-file), perf_analyzer's raw export of each request's
    # timestamps and responses, beside profile_export_genai_perf.json in every artifact folder
    {"experiments", "service_kind"},
)


# AIPerf 0.12+'s phase_manifest.json, at the root of a run of several phases (a warm-up and its profiling, or
# several profiling phases): one entry a phase, naming (``*_json``, ``*_csv``, relative to the manifest's folder)
# the files of that phase's own exports under phases/<name>/ (exporters/exporter_manager.py). Each entry states
# its phase so, its kind "warmup" or "profiling" (common/types.py, PhaseKind).
PHASE_ENTRY = {"phase_index", "phase_name", "phase_kind"}
PHASE_MANIFEST, WARMUP_KIND = "phase_manifest.json", "warmup"  # its name, always, at the run's artifact root
PHASES_FOLDER = "phases"  # each phase's exports in phases/<its name>/ of the run's folder
# An entry's keys of the phase's own metrics exports, written under the same names as the run's own
PHASE_EXPORT_KEYS = ("metrics_json", "metrics_csv")


def phase_manifest(doc) -> list[tuple[bool, dict[str, str]]] | None:
    """Each phase an AIPerf phase manifest lists: (whether it is a warm-up, the files it names by their keys,
    relative to the manifest's folder); None when ``doc`` is no manifest."""
    phases = doc.get("phases") if isinstance(doc, dict) else None
    if not (isinstance(phases, list) and phases and "schema_version" in doc
            and all(isinstance(entry, dict) and PHASE_ENTRY <= entry.keys() for entry in phases)):
        return None
    return [(entry["phase_kind"] == WARMUP_KIND, {key: value for key, value in entry.items() if isinstance(key, str)
                                                  and key.endswith(("_json", "_csv")) and isinstance(value, str)})
            for entry in phases]


def _phase_observability(doc: dict) -> bool:
    """A phase's GPU telemetry or server metrics under phases/<name>/ (gpu_telemetry.json, server_metrics.json):
    ``{schema_version, phase: {phase_name, ...}, data, warnings}``."""
    phase = doc.get("phase")
    return {"schema_version", "data", "warnings"} <= doc.keys() and isinstance(phase, dict) and "phase_name" in phase


def _aiperf_record(doc: dict) -> bool:
    """profile_export.jsonl's record of a request that succeeded: AIPerf 0.8 writes its metadata
    (request_start_ns, ...) and metrics and no "error" key, which only a failed request's record has."""
    meta = doc.get("metadata")
    return isinstance(meta, dict) and "request_start_ns" in meta and isinstance(doc.get("metrics"), dict)


def _request_inputs(doc: dict) -> bool:
    """inputs.json: the requests a client sent, ``{"data": [...]}``, one entry a request: AIPerf's a
    session (``{session_id, payloads}``); GenAI-Perf's (llm_inputs.json in its earlier versions, beside
    profile_export_genai_perf.json in every artifact folder) ``{"payload": [body], ...}`` for an OpenAI
    endpoint, and for a Triton backend the body's tensors themselves, each a list or ``{content, shape}``
    (perf_analyzer's --input-data format)."""
    data = doc.get("data")
    return (doc.keys() == {"data"} and isinstance(data, list) and bool(data)
            and all(isinstance(entry, dict) and entry and _request_entry(entry) for entry in data))


def _request_entry(entry: dict) -> bool:
    if {"session_id", "payloads"} <= entry.keys() or isinstance(entry.get("payload"), list):
        return True
    return all(isinstance(v, list) or (isinstance(v, dict) and "content" in v) for v in entry.values())


# What to ingest in place of vLLM's offline benchmarks' results, their JSON or the line they print.
VLLM_SERVING_HINT = "ingest `vllm bench serve --save-result` JSON, a serving run"
KINDS = (
    ({"avg_latency", "latencies", "percentiles"},
     "a vLLM benchmark_latency result (one offline batch's latency, no requests served at a concurrency)",
     VLLM_SERVING_HINT),
    ({"elapsed_time", "num_requests", "requests_per_second", "tokens_per_second"},
     "a vLLM benchmark_throughput result (offline generation, no serving latencies)",
     VLLM_SERVING_HINT),
    ({"engine", "world_info", "request_info", "performance"},
     "a TensorRT-LLM trtllm-bench report (the engine driven in-process, not a serving client's run)",
     "serve the model with trtllm-serve and ingest the serving client's output (vllm bench serve JSON)"),
)


def companion(doc) -> bool:
    """Whether ``doc`` is one of the files AIPerf or GenAI-Perf write beside a run's export (``AIPERF_COMPANIONS``,
    a request's record, the requests sent, a phase manifest, a phase's telemetry or server metrics): no result."""
    return isinstance(doc, dict) and (any(keys <= doc.keys() for keys in AIPERF_COMPANIONS) or _aiperf_record(doc)
                                      or _request_inputs(doc) or phase_manifest(doc) is not None
                                      or _phase_observability(doc))


def refuse(doc, path: str, line: int) -> None:
    """Refuse ``doc`` with its own reason when it is one of KINDS, a GuideLLM report or another client's
    (``OTHER_CLIENTS``), pass it over (``Auxiliary``) when it is one of AIPerf's or GenAI-Perf's companion
    files, aggregates or search records or a `vllm bench sweep` failure record (``SweepFailure``); return
    otherwise."""
    other = next((what for test, what in OTHER_CLIENTS if test(doc)), None)
    if other is not None:
        raise fail(path, line, f"format: {other}, {NOT_READ}", NOT_READ_HINT)
    if not isinstance(doc, dict):
        return
    if is_multi_run_aggregate(doc):
        raise MultiRunAggregate(path)
    if any(keys <= doc.keys() for keys in SEARCH_RECORDS):
        raise SearchRecord(path)
    if companion(doc):
        raise Auxiliary(path)
    if SWEEP_FAILURE <= doc.keys() and isinstance(doc["serve_overrides"], dict):
        raise SweepFailure(path, line, doc)
    if STEADY_STATE <= doc.keys():
        raise SteadyStateReport(path)
    for keys, what, instead in KINDS:
        if keys <= doc.keys():
            raise fail(path, line, f"format: {what}", instead)
    meta = doc.get("metadata")
    if isinstance(meta, dict) and "guidellm_version" in meta and isinstance(doc.get("benchmarks"), list):
        raise fail(path, line, f"format: {GUIDELLM} (guidellm {meta['guidellm_version']}), {NOT_READ}", NOT_READ_HINT)
    _refuse_llmd_report(doc, path, line)


# GuideLLM (vllm-project/guidellm) writes its report as JSON (metadata.guidellm_version, benchmarks) and
# as CSV (a first header row of column groups, "Run Info,Run Info,..."): another client's figures and units.
GUIDELLM = "a GuideLLM benchmarks report"
NOT_READ = "the output of a client sweepgate does not read"
NOT_READ_HINT = ("run the point with a client sweepgate reads (vllm bench serve --save-result, AIPerf), "
                 "or remove the file")
GUIDELLM_CSV = "Run Info,Run Info,"
# Triton's perf_analyzer writes its summary with -f as CSV: a row a concurrency (--concurrency-range) or request
# rate (--request-rate-range), Inferences/Second then the latency parts and percentiles in microseconds.
PERF_ANALYZER_CSV = tuple(f"{first},Inferences/Second," for first in ("Concurrency", "Request Rate"))
PERF_ANALYZER = ("a perf_analyzer CSV (Triton's perf_analyzer -f: one row a concurrency or request rate, "
                 "Inferences/Second and latencies in microseconds)")


def _inference_perf(doc) -> bool:
    """inference-perf's reports (kubernetes-sigs/inference-perf, the client llm-d's benchmarks drive):
    ``stage_N_lifecycle_metrics.json`` and ``summary_lifecycle_metrics.json`` (its own timings of the
    requests) and their ``_prometheus_metrics.json`` twins (the server's metrics over the same span),
    each ``{load_summary, successes, failures}``, latencies in seconds."""
    parts = ("load_summary", "successes", "failures")
    return isinstance(doc, dict) and all(isinstance(doc.get(part), dict) for part in parts)


# What inference-perf writes for each request in per_request_lifecycle_metrics.json (reportgen/base.py:
# its times always, the request and response texts, the client's info on it, 0.7's computed_metrics and
# the error, each as the report's per_request_fields ask for).
INFERENCE_PERF_REQUEST = frozenset({"start_time", "end_time", "request", "response", "info", "computed_metrics",
                                    "error"})


def _inference_perf_requests(doc) -> bool:
    """inference-perf's ``per_request_lifecycle_metrics.json`` (``request_lifecycle.per_request``): a list
    of one entry a request, its start and end times in seconds (the client's clock) and what the report
    asked for beside them; no run summary."""
    times = ("start_time", "end_time")
    return isinstance(doc, list) and bool(doc) and all(
        isinstance(entry, dict) and set(times) < entry.keys() <= INFERENCE_PERF_REQUEST
        and all(isinstance(entry[t], (int, float)) and not isinstance(entry[t], bool) for t in times)
        for entry in doc)


def _llmperf_summary(doc) -> bool:
    """ray-project/llmperf's summary of a run: results_<metric>_s_mean/_quantiles_pNN, the load as
    num_concurrent_requests."""
    return isinstance(doc, dict) and {"num_concurrent_requests", "results_num_completed_requests"} <= doc.keys()


def _by_concurrency(test):
    """A test of a dict of one ``test`` document a concurrency (its keys "1", "2", ...), as
    philschmid/llmperf-bench collects a sweep's runs."""
    return lambda doc: isinstance(doc, dict) and bool(doc) and all(test(v) for v in doc.values())


# philschmid/llmperf-bench's digest of one LLMPerf run (main.py): the run's concurrency, the lengths it
# asked for, and its mean TTFT and ITL in ms and output throughput, copied from LLMPerf's summary.
LLMPERF_BENCH_DIGEST = frozenset({"concurrency", "input_token_length", "output_token_length",
                                  "first-time-to-token_mean_in_ms", "throughput_token_per_s", "latency_ms_per_token"})


def _llmperf_bench_digest(doc) -> bool:
    return isinstance(doc, dict) and LLMPERF_BENCH_DIGEST <= doc.keys()


def _genai_bench_run(doc) -> bool:
    """sgl-project/genai-bench's file of one run (a traffic scenario at one concurrency or batch size):
    ``{aggregated_metrics: {scenario, ..., stats}, individual_request_metrics: [...]}`` (its metrics collector's
    save), latencies in seconds or the unit its ``_time_unit`` names."""
    agg = doc.get("aggregated_metrics") if isinstance(doc, dict) else None
    return isinstance(agg, dict) and {"scenario", "stats"} <= agg.keys() and "individual_request_metrics" in doc


# genai-bench's experiment_metadata.json, beside an experiment's runs: the command and its settings.
GENAI_BENCH_EXPERIMENT = frozenset({"api_backend", "traffic_scenario", "iteration_type"})


def _llm_load_test(doc) -> bool:
    """openshift-psap/llm-load-test's output (``output/output.json``): ``{results, config, summary}``, one
    result a request, the run's config.yaml as loaded (its ``load_options``: concurrency and duration), and
    (since 2024) the summary of the results."""
    config = doc.get("config") if isinstance(doc, dict) else None
    return isinstance(config, dict) and "load_options" in config and isinstance(doc.get("results"), list)


def _llmperf_requests(doc) -> bool:
    """LLMPerf's ``*_individual_responses.json``: a list of one entry a request, its times in seconds."""
    return isinstance(doc, list) and bool(doc) and all(
        isinstance(entry, dict) and {"ttft_s", "end_to_end_latency_s"} <= entry.keys() for entry in doc)


# modelscope/evalscope's `evalscope perf` summary of a run (benchmark_summary.json, its percentiles beside it
# in benchmark_percentile.json): the console table's display names as keys, latencies in seconds.
EVALSCOPE_SUMMARY = frozenset({"Number of concurrency", "Succeed requests"})
# The MLPerf team's inference-endpoint client (the one srt-slurm's mlperf benchmark runs): its run's
# result_summary.json (the samples it issued and completed, ttft/tpot/latency stats and histograms in ns, qps and
# tps over the loadgen window) and its accuracy phase's accuracy_results.json (a score a dataset, no serving figures).
MLPERF_ENDPOINT_SUMMARY = frozenset({"n_samples_issued", "n_samples_completed", "duration_ns"})
MLPERF_ENDPOINT_ACCURACY = frozenset({"average_accuracy", "accuracy_scores"})
# llama.cpp's llama-bench (-o json: a list of one entry a test; -o jsonl: an entry a line): each test's tokens per
# second (avg_ts, its repetitions' samples_ts) at prompt processing (n_prompt tokens in batches) or generation
# (n_gen tokens, one sequence), the engine driven in-process: no server, requests, concurrency or latencies. The keys
# every version since its first (2023) writes.
LLAMA_BENCH_TEST = frozenset({"build_commit", "model_filename", "n_prompt", "n_gen", "avg_ts"})


def _holds(keys: frozenset):
    """A test of a document: an object holding every one of ``keys``."""
    return lambda doc: isinstance(doc, dict) and keys <= doc.keys()


# The saved reports of other serving clients, told by their own keys (GuideLLM's above, with its
# version): each refused as what it is. Their figures are that client's, in its own keys and units.
OTHER_CLIENTS = (
    (_inference_perf, "an inference-perf report (kubernetes-sigs/inference-perf: a stage's or the run's lifecycle "
     "or Prometheus metrics, latencies in seconds)"),
    (_inference_perf_requests, "inference-perf's per-request log (kubernetes-sigs/inference-perf's "
     "per_request_lifecycle_metrics.json: one entry a request, its times in seconds, no run summary)"),
    (_llmperf_summary,
     "an LLMPerf summary (ray-project/llmperf's *_summary.json: results_* figures, latencies in seconds)"),
    # philschmid/llmperf-bench runs LLMPerf at each concurrency and keeps its summaries, and a digest of them
    (_by_concurrency(_llmperf_summary), "LLMPerf summaries by concurrency (philschmid/llmperf-bench's "
     "*_results.json: ray-project/llmperf's *_summary.json of each run, results_* figures, latencies in seconds)"),
    (lambda d: _llmperf_bench_digest(d) or _by_concurrency(_llmperf_bench_digest)(d),
     "llmperf-bench's digest of LLMPerf runs (philschmid/llmperf-bench's *_summary.json and *_cur_N.json: each "
     "run's concurrency, mean TTFT and ITL in ms and output throughput, no request counts)"),
    (_llmperf_requests, "LLMPerf's per-request log (ray-project/llmperf's *_individual_responses.json: one entry a "
     "request, no run summary)"),
    (_llm_load_test, "an llm-load-test output (openshift-psap/llm-load-test's output.json: one result a request "
     "and the run's config, and in later versions a summary of them)"),
    # sgl-project/genai-bench's experiment folder: a file a run, and the experiment's metadata
    (_genai_bench_run, "a genai-bench run (sgl-project/genai-bench's file of one traffic scenario at one "
     "concurrency or batch size: aggregated_metrics and each request's, latencies in seconds or as its "
     "_time_unit says)"),
    (_holds(EVALSCOPE_SUMMARY),
     "an EvalScope perf summary (modelscope/evalscope's benchmark_summary.json: display names as keys, such as "
     "'Average time to first token (s)', latencies in seconds)"),
    (_holds(GENAI_BENCH_EXPERIMENT),
     "genai-bench's experiment metadata (sgl-project/genai-bench's experiment_metadata.json: the command and "
     "settings of an experiment's runs, no figures)"),
    (_holds(MLPERF_ENDPOINT_SUMMARY),
     "an MLPerf inference-endpoint result summary (the MLPerf team's inference-endpoint client's "
     "result_summary.json: samples issued and completed, ttft, tpot and latency in ns, qps and tps)"),
    (lambda d: _holds(LLAMA_BENCH_TEST)(d) or (isinstance(d, list) and bool(d)
                                                 and all(map(_holds(LLAMA_BENCH_TEST), d))),
     "a llama-bench report (llama.cpp's llama-bench -o json or jsonl: tokens per second of prompt processing and "
     "generation tests, the engine driven in-process; no server, requests, concurrency or latencies)"),
    (_holds(MLPERF_ENDPOINT_ACCURACY),
     "an MLPerf inference-endpoint accuracy report (inference-endpoint's accuracy_results.json: a score a "
     "dataset, no serving figures)"),
)


# llm-d-benchmark's benchmark report (llm-d/llm-d-benchmark): what its harness makes of a client's run, beside
# the client's own output, as YAML (benchmark_report,_*.yaml) or JSON: version 0.1 {version, scenario, metrics},
# 0.2 {version, scenario, results, run}; the harness names its client under scenario.load (0.2's
# standardized.tool, 0.1's name). Its figures are converted, each in the units the report states beside it.
LLMD_REPORT_FIGURES = ("metrics", "results")
# The llm-d harnesses whose own output sweepgate reads (InferenceX's benchmark_serving writes vLLM's JSON).
LLMD_TOOLS_READ = {"vllm-benchmark": "vllm bench serve", "inferencemax": "benchmark_serving", "aiperf": "AIPerf"}
# A report's top-level lines, before its YAML is parsed: the text of no client output holds them.
LLMD_REPORT_YAML = (re.compile(r"^scenario:[ \t]*$", re.M), re.compile(r"^(metrics|results):[ \t]*$", re.M))


def llmd_report(doc) -> tuple[str, object] | None:
    """An llm-d-benchmark report's version and client (None where it names none), or None for anything else."""
    if not (isinstance(doc, dict) and "version" in doc and isinstance(doc.get("scenario"), dict)
            and any(isinstance(doc.get(part), dict) for part in LLMD_REPORT_FIGURES)):
        return None
    load = doc["scenario"].get("load")
    load = load if isinstance(load, dict) else {}
    standard = load.get("standardized") if isinstance(load.get("standardized"), dict) else {}
    tool = standard.get("tool") or load.get("name")
    return str(doc["version"]), tool if isinstance(tool, str) and tool.strip() else None


def _refuse_llmd_report(doc, path: str, line: int) -> None:
    report = llmd_report(doc)
    if report is None:
        return
    version, tool = report
    what = (f"format: an llm-d-benchmark report (version {version}{f', client {tool}' if tool else ''}: the "
            "harness's summary of a client's output, its figures converted), not the client's output")
    if tool in LLMD_TOOLS_READ:
        raise fail(path, line, what, f"ingest the {tool} output the harness saved beside it ({LLMD_TOOLS_READ[tool]}"
                   "'s JSON), or remove the file")
    raise fail(path, line, f"{what}; {tool or 'its client'} is a client sweepgate does not read", NOT_READ_HINT)


def refuse_yaml_report(text: str, path: str) -> None:
    """Refuse an llm-d-benchmark report written as YAML as what it is; return for any other text. Its
    YAML is parsed only where its top-level lines are a report's, and not where it holds anchors,
    aliases or tags (nothing is constructed from them)."""
    if not all(pattern.search(text) for pattern in LLMD_REPORT_YAML):
        return
    from sweepgate.core import yamlsafe
    from sweepgate.core.pyyaml import yaml

    if yamlsafe.refuse_features(path, text, lambda n: n):
        return
    try:
        doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return
    _refuse_llmd_report(doc, path, 1)


def refuse_csv(first_line: str, path: str) -> None:
    """Refuse GuideLLM's CSV report and perf_analyzer's CSV with their own reasons; return for any other text."""
    first_line = first_line.lstrip("\ufeff")
    if first_line.startswith(GUIDELLM_CSV):
        raise fail(path, 1, f"format: {GUIDELLM} (CSV), {NOT_READ}", NOT_READ_HINT)
    if first_line.startswith(PERF_ANALYZER_CSV):
        raise fail(path, 1, f"format: {PERF_ANALYZER}, {NOT_READ}", NOT_READ_HINT)


# The table vLLM's bench serve (and SGLang's bench_serving) prints to stdout at a run's end.
SERVING_TABLE = "============ Serving Benchmark Result ============"


# The clients that print their figures as console tables titled "NVIDIA <client>" (AIPerf, and GenAI-Perf before
# it), the tables AIPerf also saves as profile_export_console.txt beside its exports: client -> the export to ingest.
PERF_CONSOLE_CLIENTS = {"AIPerf": "profile_export_aiperf.json", "GenAI-Perf": "profile_export_genai_perf.json"}
# Such a table as rich draws it, wherever it stands in the text (after a preamble of log lines and progress bars
# of any length, an error table or a warning panel): a line holding only its title, "NVIDIA AIPerf" alone or with
# " | <table>" after it ("| LLM Metrics", "| Error Summary", "| LLM Metrics: Effective"), centred between blanks,
# and on the next line the table's top border, a box-drawing character first (┏, ┌ or ╭; rich's ASCII boxes, +).
PERF_CONSOLE_TITLE = "NVIDIA "
PERF_CONSOLE_TABLE = re.compile(r"%s(?P<client>%s)(?: \|[^\n]*)?[ \t]*\n[ \t]*[\u2500-\u257f+]" % (
    PERF_CONSOLE_TITLE, "|".join(map(re.escape, PERF_CONSOLE_CLIENTS))))


def _console_table(text: str) -> re.Match | None:
    """The first console table of ``PERF_CONSOLE_TABLE``'s form in ``text``, else None (``_at_line_start``)."""
    return _at_line_start(PERF_CONSOLE_TABLE, text)


def _at_line_start(pattern: re.Pattern, text: str) -> re.Match | None:
    """The first match of ``pattern`` in ``text`` where only blanks stand before it on its line, else None: searched
    for in place (the regular expression's literal start, in C); nothing of the text is split or copied, however
    long."""
    found = pattern.search(text)
    while found:
        if _line_starts(text, found.start()):
            return found
        found = pattern.search(text, found.start() + 1)
    return None


def _line_starts(text: str, at: int) -> bool:
    """Whether only blanks stand before ``at`` on its line."""
    while at and text[at - 1] in " \t":
        at -= 1
    return not at or text[at - 1] == "\n"


# GenAI-Perf's metrics table before it was titled "NVIDIA GenAI-Perf | ...": "PA LLM Metrics" (its first releases),
# then "LLM Metrics" alone, on a title line over rich's border and a header whose first column is "Statistic" (AIPerf
# heads its "Metric"), so that the words in a line of text are no table. Searched for from its literal "LLM Metrics"
# (as _console_table searches), the "PA " before it looked at where it is found.
EARLY_GENAI_PERF = "GenAI-Perf"
EARLY_GENAI_PERF_PREFIX = "PA "
EARLY_GENAI_PERF_TABLE = re.compile(r"LLM Metrics[ \t]*\n[ \t]*[\u2500-\u257f+][^\n]*\n"
                                    r"[ \t]*[\u2500-\u257f|][ \t]*Statistic[ \t]*[\u2500-\u257f|]")


def _early_genai_perf_title(text: str) -> str | None:
    """The title of the first of GenAI-Perf's early tables in ``text`` ("PA LLM Metrics" or "LLM Metrics"), else
    None."""
    found = EARLY_GENAI_PERF_TABLE.search(text)
    while found:
        start = found.start()
        if start >= len(EARLY_GENAI_PERF_PREFIX) and text.startswith(EARLY_GENAI_PERF_PREFIX,
                                                                     start - len(EARLY_GENAI_PERF_PREFIX)):
            start -= len(EARLY_GENAI_PERF_PREFIX)
        if _line_starts(text, start):
            return text[start:found.start()] + "LLM Metrics"
        found = EARLY_GENAI_PERF_TABLE.search(text, found.start() + 1)
    return None


# The line vLLM's offline throughput benchmark prints (benchmark_throughput.py, `vllm bench throughput`), at a line's
# start: "Throughput: N requests/s, N total tokens/s, N output tokens/s" ("..., N tokens/s" before late 2024).
VLLM_THROUGHPUT_LINE = re.compile(r"Throughput: [0-9.]+ requests/s, [0-9.]+ (?:total )?tokens/s")
# What vLLM's offline latency benchmark (benchmark_latency.py, `vllm bench latency`) prints, at a line's start: its
# mean, then a line a percentile under it ("10% percentile latency: N seconds"), which other tools' "Avg latency" lacks.
VLLM_LATENCY_LINES = re.compile(r"Avg latency: [0-9.e+-]+ seconds[ \t]*\r?\n[ \t]*[0-9]+% percentile latency: ")


def refuse_console(text: str, path: str) -> None:
    """Refuse a serving client's stdout (its result table among progress bars) as what it is: the
    run's figures rounded for display, not its saved output. Told by the tables' form anywhere in the text,
    however long a preamble of log lines comes first (``_console_table``, GenAI-Perf's early untitled form
    ``_early_genai_perf_title``, ``SERVING_TABLE``, vLLM's offline ``VLLM_THROUGHPUT_LINE`` and
    ``VLLM_LATENCY_LINES``)."""
    if found := _console_table(text):
        client = found["client"]
        raise fail(path, 1, f"format: {client}'s console tables ('NVIDIA {client} | ...', as "
                   "profile_export_console.txt keeps them; figures rounded for display), not its export",
                   f"ingest the run's {PERF_CONSOLE_CLIENTS[client]} beside it, or remove the file")
    if title := _early_genai_perf_title(text):
        client = EARLY_GENAI_PERF
        raise fail(path, 1, f"format: {client}'s console tables (its early form: '{title}' over a "
                   f"'Statistic' column, as it printed them before titling them '{PERF_CONSOLE_TITLE}{client} | "
                   "...'; figures rounded for display), not its export",
                   f"ingest the run's {PERF_CONSOLE_CLIENTS[client]} (or the .csv beside it) from its artifacts "
                   "folder, or remove the file")
    if SERVING_TABLE in text:
        raise fail(path, 1, "format: a serving benchmark's console output (its 'Serving Benchmark Result' "
                   "table, figures rounded for display), not the client's saved result",
                   "run the client with --save-result (vllm bench serve) or --output-file (sglang.bench_serving) "
                   "and ingest that JSON, or remove the file")
    if _at_line_start(VLLM_THROUGHPUT_LINE, text):
        raise fail(path, 1, "format: a vLLM benchmark_throughput console output (its 'Throughput: ... requests/s, "
                   "...' line: offline generation, no serving latencies), not a serving result", VLLM_SERVING_HINT)
    if _at_line_start(VLLM_LATENCY_LINES, text):
        raise fail(path, 1, "format: a vLLM benchmark_latency console output (its 'Avg latency: ... seconds' and "
                   "percentile lines: one offline batch's latency, no requests served at a concurrency), not a "
                   "serving result", VLLM_SERVING_HINT)
