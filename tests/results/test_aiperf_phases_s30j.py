"""s30j: AIPerf 0.12+'s per-phase exports of a run of several phases.

From 0.12 on, a run of more than one phase (a warm-up before its profiling, `--warmup-request-count`)
writes, besides its own profile_export_aiperf.json, each phase's own export under
``phases/<phase name>/`` (the same JSON and CSV exporters run over that phase's records alone, with the
phase's GPU telemetry and server metrics as ``gpu_telemetry.json`` / ``server_metrics.json``), and
``phase_manifest.json`` at the run's root naming them (0.12.0's and 0.13.0's
aiperf/exporters/exporter_manager.py, ``_export_phase_metric_artifacts`` and ``_write_phase_manifest``;
src/aiperf/exporters/exporter_manager.py in ai-dynamo/aiperf). Ingesting the run's folder stored the warm-up
phase as a run of its own, at the run's concurrency with the warm-up's figures, the profiling phase a second
time, and failed at phase_manifest.json ("unknown JSON output", exit 1). Now the files the manifest names
are passed over and counted on a line of their own, the manifest with AIPerf's other companion files, and
the run is stored once.

The run is a real AIPerf 0.11 export (tests/data/results-real/SOURCES.tsv) made into what 0.12 writes for the
same run with a warm-up: schema 1.4 and 0.12.0 (common/models/export_models.py), the warm-up phase before
the profiling one in input_config.phases as config/flags/converter.py builds it, and the warm-up's own
figures (values of our own) in its phase export; the manifest's entries as exporter_manager.py lays them out,
keys sorted, one line at its end."""

from __future__ import annotations

import copy
import json

from helpers import ROOT, ingested_verbose, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real"
RUN = json.loads((REAL / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16_trimmed.json").read_text(encoding="utf-8"))
WARMUP_PHASE = {"name": "warmup", "kind": "warmup", "type": "concurrency", "exclude_from_results": True,
                "requests": 32, "concurrency": 16}
PHASE_LINE = ("skipped 3 AIPerf per-phase exports (phases/<name>/, named by the phase_manifest.json beside a run's "
              "profile_export_aiperf.json: a warm-up, or the one profiling phase of a run whose own export is its "
              "result)")


def _export(**figures) -> dict:
    """The run's export as 0.12 writes it for a run with a warm-up phase."""
    doc = copy.deepcopy(RUN)
    doc.update(schema_version="1.4", aiperf_version="0.12.0")
    doc["input_config"]["phases"] = [WARMUP_PHASE, {**doc["input_config"]["phases"][0], "kind": "profiling"}]
    for key, value in figures.items():
        doc[key] = {**doc[key], "avg": value}
    return doc


def _entry(index: int, name: str, started: int, ended: int, done: int, files: dict) -> dict:
    return {"end_ns": ended, "error_request_count": 0, "error_summary": [], "phase_index": index, "phase_kind": name,
            "phase_name": name, "profiling_index": 0 if name == "profiling" else None, "start_ns": started,
            "successful_request_count": done, "total_request_count": done, "was_cancelled": False, **files}


def _run_folder(base) -> None:
    """The run's artifact folder: its export (with the warm-up's metrics, as 0.12's root export carries
    them), each phase's export, the profiling phase's GPU telemetry (only a warning: its export failed),
    and the manifest."""
    root = _export()
    root["warmup_metrics"] = {"request_throughput": {"unit": "requests/sec", "avg": 3.04},
                              "request_count": {"unit": "requests", "avg": 32.0}}
    phases = {"warmup": _export(request_throughput=3.04, request_count=32.0, output_token_throughput=402.7),
              "profiling": _export()}
    base.mkdir()
    (base / "profile_export_aiperf.json").write_text(json.dumps(root, indent=2), encoding="utf-8")
    for name, doc in phases.items():
        (base / "phases" / name).mkdir(parents=True)
        (base / "phases" / name / "profile_export_aiperf.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    telemetry = {"data": None, "phase": {"end_ns": 1776690300000000000, "phase_index": 1, "phase_kind": "profiling",
                                         "phase_name": "profiling", "profiling_index": 0,
                                         "start_ns": 1776690000000000000, "was_cancelled": False},
                 "schema_version": 1, "warnings": ["GPU telemetry phase export failed: TimeoutError: "]}
    (base / "phases" / "profiling" / "gpu_telemetry.json").write_text(json.dumps(telemetry, indent=2, sort_keys=True)
                                                                      + "\n", encoding="utf-8")
    manifest = {"phases": [
        _entry(0, "warmup", 1776689990000000000, 1776690000000000000, 32,
               {"metrics_json": "phases/warmup/profile_export_aiperf.json"}),
        _entry(1, "profiling", 1776690000000000000, 1776690300000000000, 2143,
               {"gpu_telemetry_json": "phases/profiling/gpu_telemetry.json",
                "metrics_json": "phases/profiling/profile_export_aiperf.json"})], "schema_version": 1}
    (base / "phase_manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def test_a_run_with_a_warm_up_is_stored_once_and_its_phases_exports_passed_over(tmp_path, capsys):
    base = tmp_path / "qwen3-4b-openai-chat-concurrency16"
    _run_folder(base)
    db, out = ingested_verbose(capsys, tmp_path, base)
    lines = out.splitlines()
    for name in ("warmup", "profiling"):
        assert f"skipped {base / 'phases' / name / 'profile_export_aiperf.json'}" in lines
    assert PHASE_LINE in lines
    assert f"skipped {base / 'phase_manifest.json'}" in lines
    assert f"skipped {base / 'phases' / 'profiling' / 'gpu_telemetry.json'}" in lines
    assert "ingested 1 results (1 new)" in out
    (rec,) = show_json(capsys, db)
    assert rec["conc"] == 16 and rec["metrics"]["output_throughput"] == RUN["output_token_throughput"]["avg"]


def test_a_phase_s_export_named_on_its_own_is_passed_over_as_the_walk_passes_it_over(tmp_path, capsys):
    """s31d: only a walk that met the manifest passed the phases over; a phase's export named on the command
    line (or its phases/<name>/ folder) was read as the run it looks like (AIPerf writes nothing in it that says
    it is a phase's), the warm-up's figures stored as a run at the run's concurrency. The manifest is looked for
    in the run's folder above phases/<name>/, and what it names is passed over as the walk passes it over."""
    base = tmp_path / "run"
    _run_folder(base)
    for given in (base / "phases" / "warmup" / "profile_export_aiperf.json", base / "phases" / "warmup",
                  base / "phases" / "profiling" / "profile_export_aiperf.json"):
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(given))
        assert (rc, err) == (0, ""), err
        assert out.splitlines() == [PHASE_LINE.replace("3 AIPerf per-phase exports", "1 AIPerf per-phase export"),
                                    f"ingested 0 results (0 new) into sqlite:///{tmp_path / 'r.db'}; nothing stored"]
    assert not (tmp_path / "r.db").exists()


def test_a_warm_up_s_csv_export_named_on_its_own_is_passed_over_too(tmp_path, capsys):
    """A phase's CSV export (the manifest's ``metrics_csv``) says nothing of its phase, not even the run's
    configuration; named alone, the warm-up's was read as a run (s31d). Its manifest names it."""
    base = tmp_path / "run"
    _run_folder(base)
    csv = base / "phases" / "warmup" / "profile_export_aiperf.csv"
    csv.write_bytes((REAL / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16.csv").read_bytes())
    manifest = json.loads((base / "phase_manifest.json").read_text(encoding="utf-8"))
    manifest["phases"][0]["metrics_csv"] = "phases/warmup/profile_export_aiperf.csv"
    (base / "phase_manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(csv))
    assert (rc, err) == (0, ""), err
    assert out.splitlines()[0].startswith("skipped 1 AIPerf per-phase export (") and "ingested 0 results" in out


def test_a_phase_manifest_and_a_phase_s_telemetry_named_alone_hold_no_result(tmp_path, capsys):
    """phase_manifest.json, and a phase's gpu_telemetry.json or server_metrics.json, are AIPerf files with
    no result wherever they are, as its run-wide telemetry export is (in its run's folder, the telemetry is
    one the manifest names, counted with the phases' exports as the walk counts it: s31d)."""
    base = tmp_path / "run"
    _run_folder(base)
    (tmp_path / "gpu_telemetry.json").write_bytes((base / "phases" / "profiling" / "gpu_telemetry.json").read_bytes())
    for given in (base / "phase_manifest.json", tmp_path / "gpu_telemetry.json"):
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(given))
        assert rc == 0 and err == "", err
        assert out.splitlines()[0].startswith("skipped 1 file with no result (")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                           str(base / "phases" / "profiling" / "gpu_telemetry.json"))
    assert rc == 0 and err == "", err
    assert out.splitlines()[0].startswith("skipped 1 AIPerf per-phase export (")
