"""s30j: what AIPerf 0.11 to 0.13 write beside a search's (and any multi-run's) per-run exports.

AIPerf 0.11 added searches: `aiperf profile --search-space ...` or `--search-recipe NAME` runs the
load generator again and again, each iteration in a folder of its own
(``search_iter_NNNN/profile_runs/run_NNNN/``, or ``concurrency_N/`` for a recipe's grid), and writes what
it concluded beside them: ``search_history.json`` at the artifact root and, for a recipe, a post-process
artifact in ``sweep_aggregate/``. Every run its orchestrator starts also leaves ``run_config.json`` (the
whole configuration handed to the run's process) in the run's folder. Ingesting such a folder failed at
each of these files, "unknown JSON output", exit 1: now the search's records are passed over, counted on a
line of their own as the sweep aggregate is, run_config.json with AIPerf's other companion files, and the
runs are stored.

The documents below are written as AIPerf 0.11.0's released sources say their writers lay them out (the
wheel's aiperf/exporters/search_history.py, aiperf/search_recipes/_sla_breach_knee.py, post_process.py,
_ttft_curve_fit.py, _itl_surface_fit.py, _pareto_sweep_export.py, aiperf/cli_runner/_post_process.py and
aiperf/orchestrator/local_executor.py, the same files in ai-dynamo/aiperf's src/aiperf/; unchanged in 0.12
and 0.13 but for the code around them), with values of our own; each run's export is a real AIPerf 0.11
export (tests/data/results-real/SOURCES.tsv)."""

from __future__ import annotations

import json
import shutil

import pytest

from helpers import ROOT, ingested_verbose, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real"
RUN_EXPORT = REAL / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16_trimmed.json"  # a run at concurrency 16
SWEEP_AGGREGATE = REAL / "aiperf" / "aiperf0.11_sweep_aggregate_trimmed.json"
SWEPT = "phases.profiling.concurrency"
TTFT_SLA = {"metric_tag": "time_to_first_token", "stat": "p95", "op": "lt", "threshold": 1500.0}
BREACH = {**TTFT_SLA, "observed": 1733.2}

# search_history.json as exporters/search_history.py writes it: the search's config block, one entry an
# iteration, the best trials (a list: a multi-objective search lists its Pareto front), the boundary on
# the swept axis when there is one, the recipe's name and why the loop stopped
SEARCH_HISTORY = {
    "config": {"planner": "monotonic_sla",
               "objectives": [{"metric": "output_token_throughput", "stat": "avg", "direction": "MAXIMIZE",
                               "threshold": None}],
               "outcome_constraints": [], "max_iterations": 10, "n_initial_points": 3, "random_seed": 42,
               "improvement_patience": 5, "plateau_window": 3, "plateau_threshold": 0.02,
               "search_space": [{"path": SWEPT, "lo": 1, "hi": 64, "kind": "int"}], "sla_filters": [TTFT_SLA]},
    "iterations": [
        {"iteration_idx": 0, "variation_values": {SWEPT: 16}, "objective_values": [1421.7], "feasible": True,
         "non_monotonic_warning": False},
        {"iteration_idx": 1, "variation_values": {SWEPT: 32}, "objective_values": [1650.3], "feasible": False,
         "non_monotonic_warning": False}],
    "best_trials": [{"iteration_idx": 0, "objective_values": [1421.7], "variation_values": {SWEPT: 16},
                     "feasible": True, "feasible_count": 1, "pareto_rank": 0}],
    "boundary_summary": {"swept_dim_path": SWEPT,
                         "feasible_max": {"value": 16, "iteration_idx": 0, "objective_value": 1421.7},
                         "infeasible_min": {"value": 32, "iteration_idx": 1, "first_breach": BREACH}},
    "recipe": "max-concurrency-under-sla",
    "convergence_reason": "monotonic_precision_reached",
}
# the same file as AIPerf's docs/api/search-history.md still shows it: the best iteration as "best", no
# recipe or boundary, the objective flat in the config block
SEARCH_HISTORY_AS_DOCUMENTED = {
    "config": {"algorithm": "bayes", "objective_metric": "output_token_throughput", "objective_stat": "avg",
               "objective_direction": "maximize", "max_iterations": 30, "n_initial_points": 5,
               "random_seed": None, "improvement_patience": 10, "plateau_window": 5, "plateau_threshold": 0.01,
               "search_space": [{"path": SWEPT, "lo": 1, "hi": 1000, "kind": "int"}]},
    "iterations": [{"iteration_idx": 0, "variation_values": {SWEPT: 16}, "objective_value": 1421.7}],
    "best": {"iteration_idx": 0, "objective_value": 1421.7, "variation_values": {SWEPT: 16}},
    "convergence_reason": None,
}
# run_config.json as orchestrator/local_executor.py writes it: the BenchmarkRun the run's process loads
# (model_dump, None fields left out); its cfg is the run's input_config, as the run's export states it
RUN_CONFIG = {
    "benchmark_id": "5b0c1f0e9d2a4c7e8f3a6b1d2c4e6f80", "sweep_id": "0f4d8e2a-6c1b-4e3f-9a7d-2b5c8e1f4a60",
    "cfg": json.loads(RUN_EXPORT.read_text(encoding="utf-8"))["input_config"],
    "variation": {"index": 0, "label": "search_iter_0000", "values": {SWEPT: 16}},
    "trial": 0, "artifact_dir": "artifacts/qwen3-4b-search/search_iter_0000/profile_runs/run_0001",
    "label": "run_0001", "cli_command": "aiperf profile --model qwen3-4b --search-recipe max-concurrency-under-sla",
    "random_seed": 42, "variables": {}, "resolved": {"gpu_telemetry_mode": "summary", "artifact_dir_created": True},
}
# each search recipe's post-process artifact in sweep_aggregate/, as its handler returns it
POST_PROCESS = {
    # max-concurrency-under-sla --search-style grid: search_recipes/_sla_breach_knee.py
    "sla_breach.json": {
        "swept_param": SWEPT, "max_passing_concurrency": 16, "first_failing_concurrency": 32,
        "first_failing_breach": BREACH,
        "all_points": [{"concurrency": 16, "feasible": True, "breaches": []},
                       {"concurrency": 32, "feasible": False, "breaches": [BREACH]}],
        "monotonicity_check": True, "filters": [TTFT_SLA]},
    # concurrency-ramp: search_recipes/post_process.py's knee detection
    "degradation_knee.json": {
        "baseline_concurrency": 1.0, "baseline_p99": 812.4, "knee_concurrency": 32.0, "knee_p99": 1107.9,
        "threshold_pct": 0.2, "swept_metric": "request_latency", "stat": "p99", "swept_param": SWEPT,
        "all_points": [{"concurrency": 1.0, "p99": 812.4}, {"concurrency": 32.0, "p99": 1107.9}]},
    # prefill-ttft-curve: search_recipes/_ttft_curve_fit.py
    "prefill_curve.json": {
        "fit_form": "linear", "coefficients": [0.061, 2.4], "r_squared": 0.997, "below_floor": False,
        "r_squared_floor": 0.85, "raw_points": [{"isl": 256.0, "ttft_ms": 18.1}, {"isl": 1024.0, "ttft_ms": 64.9}],
        "swept_metric": "time_to_first_token", "stat": "avg", "swept_param": "datasets.main.prompts.isl"},
    # decode-itl-curve: search_recipes/_itl_surface_fit.py
    "decode_itl_surface.json": {
        "swept_metric": "inter_token_latency", "stat": "avg",
        "swept_params": [SWEPT, "datasets.main.prompts.osl"],
        "raw_points": [{"concurrency": 1.0, "osl": 128.0, "itl_ms": 6.2}],
        "surface": {"concurrency_axis": [1.0], "osl_axis": [128.0], "itl_grid": [[6.2]]},
        "surface_fit_failed": False},
    # pareto-sweep: search_recipes/_pareto_sweep_export.py
    "pareto_sweep.json": {
        "x_metric": "time_to_first_token", "x_stat": "p95", "y_metric": "output_token_throughput", "y_stat": "avg",
        "cells": [{"isl": 1024, "osl": 128, "concurrency": 16, "x": 911.3, "y": 1421.7, "pareto_optimal": True}]},
    # a handler that raised: cli_runner/_post_process.py quarantines its error beside the sweep aggregate
    "post_process_errors.json": {
        "handler": "ttft_curve_fit", "output_filename": "prefill_curve.json",
        "error": "ttft_curve_fit: need >= 2 sweep points to fit a curve (got 1)", "type": "ValueError"},
}
SEARCH_RECORD_LINE = ("AIPerf search record (search_history.json, a search recipe's sla_breach.json, "
                      "prefill_curve.json and the like: what a search concluded across its runs; each run's own "
                      "profile_export_aiperf.json, under search_iter_NNNN/ or the folder for its value, is a result)")
COMPANION_LINE = ("skipped 1 file with no result (GPU metrics, lm-eval samples logs, AIPerf's and GenAI-Perf's other "
                  "exports: files that go beside one)")


def _write(path, doc) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def _run_folder(folder) -> None:
    """One run's folder as the orchestrator leaves it: its export and the run_config.json it ran from."""
    folder.mkdir(parents=True)
    shutil.copyfile(RUN_EXPORT, folder / "profile_export_aiperf.json")
    _write(folder / "run_config.json", RUN_CONFIG)


@pytest.mark.parametrize("history", [SEARCH_HISTORY, SEARCH_HISTORY_AS_DOCUMENTED], ids=["0.11", "as-documented"])
def test_an_aiperf_search_folder_stores_its_run_and_passes_over_what_the_search_wrote(history, tmp_path, capsys):
    """An adaptive search's folder (the layout orchestrator.py and the planners' search_iter_NNNN labels
    make): search_history.json at the root, the sweep aggregate beside it, each iteration's run with its
    run_config.json. It failed at search_history.json and at run_config.json (exit 1)."""
    base = tmp_path / "qwen3-4b-search"
    _write(base / "search_history.json", history)
    _run_folder(base / "search_iter_0000" / "profile_runs" / "run_0001")
    (base / "sweep_aggregate").mkdir()
    shutil.copyfile(SWEEP_AGGREGATE, base / "sweep_aggregate" / "profile_export_aiperf_sweep.json")
    db, out = ingested_verbose(capsys, tmp_path, base)
    lines = out.splitlines()
    assert f"skipped {base / 'search_history.json'}" in lines
    assert f"skipped 1 {SEARCH_RECORD_LINE}" in lines
    assert f"skipped {base / 'search_iter_0000' / 'profile_runs' / 'run_0001' / 'run_config.json'}" in lines
    assert COMPANION_LINE in lines
    assert any(line.startswith("skipped 1 AIPerf sweep aggregate ") for line in lines)
    assert "ingested 1 results (1 new)" in out
    (rec,) = show_json(capsys, db)
    assert (rec["client"], rec["conc"]) == ("aiperf", 16)


@pytest.mark.parametrize("name", sorted(POST_PROCESS))
def test_a_search_recipe_s_post_process_artifact_is_passed_over_beside_its_runs(name, tmp_path, capsys):
    """A grid recipe's folder: each swept value's run in its own folder, the recipe's artifact in
    sweep_aggregate/ beside the sweep aggregate. The artifact failed the folder (exit 1)."""
    base = tmp_path / "qwen3-4b-recipe"
    _run_folder(base / "concurrency_16")
    _write(base / "sweep_aggregate" / name, POST_PROCESS[name])
    db, out = ingested_verbose(capsys, tmp_path, base)
    assert f"skipped {base / 'sweep_aggregate' / name}" in out.splitlines()
    assert f"skipped 1 {SEARCH_RECORD_LINE}" in out.splitlines()
    assert "ingested 1 results (1 new)" in out
    assert [r["conc"] for r in show_json(capsys, db)] == [16]


def test_a_search_s_records_alone_hold_no_result(tmp_path, capsys):
    """The search's records without its runs: a folder of no result files (exit 1), as the sweep
    aggregate's folder alone is, the line naming what the folder held."""
    base = tmp_path / "search"
    _write(base / "search_history.json", SEARCH_HISTORY)
    _write(base / "sweep_aggregate" / "sla_breach.json", POST_PROCESS["sla_breach.json"])
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(base))
    assert rc == 1
    assert err.startswith(f"{base}: no result files in this folder, only files that go with one"), err
    assert "AIPerf search records" in err


def test_the_sweep_aggregate_csv_of_a_sweep_over_several_parameters_is_passed_over(tmp_path, capsys):
    """A sweep over two parameters or more (a recipe such as prefill-ttft-curve or pareto-sweep, or
    `--concurrency 8,16 --isl 512,1024`): its profile_export_aiperf_sweep.csv has a column for each
    swept parameter before the metrics' (0.11's exporters/aggregate/aggregate_sweep_csv_exporter.py, the
    parameters' leaf names from cli_runner/_sweep_aggregate.py), and each cell's folder joins its values
    with "__" (config/sweep/config.py). Only a one-parameter table was known: this one was refused as "a
    CSV table, not a benchmark client output", exit 1. Made from the real 0.11 table (one parameter) by
    adding the isl column."""
    base = tmp_path / "qwen3-4b-prefill-ttft-curve"
    (base / "concurrency_16__isl_1024").mkdir(parents=True)
    shutil.copyfile(RUN_EXPORT, base / "concurrency_16__isl_1024" / "profile_export_aiperf.json")
    rows = (REAL / "aiperf" / "aiperf0.11_sweep_aggregate_trimmed.csv").read_bytes().split(b"\r\n")
    rows[0] = rows[0].replace(b"concurrency,", b"concurrency,isl,", 1)
    rows[1:3] = [row.replace(b",", b",1024,", 1) for row in rows[1:3]]  # the two cells' rows
    (base / "sweep_aggregate").mkdir()
    (base / "sweep_aggregate" / "profile_export_aiperf_sweep.csv").write_bytes(b"\r\n".join(rows))
    db, out = ingested_verbose(capsys, tmp_path, base)
    assert any(line.startswith("skipped 1 AIPerf sweep aggregate ") for line in out.splitlines())
    assert "ingested 1 results (1 new)" in out
