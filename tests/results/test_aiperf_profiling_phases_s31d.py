"""s31d: an AIPerf run of several profiling phases, each its own load.

AIPerf 0.12+ lets a run hold several profiling phases (``phases`` of its config, ``kind: profiling``, each its
own name and load: config/phases.py). Its own profile_export_aiperf.json holds the requests of all of them,
its throughputs over their summed durations (0.12.0's and 0.13.0's records/records_manager.py: the results of
CreditPhase.PROFILING, ``_adjust_multi_phase_aggregate_rates``), so it is no one load's measurement; each
phase's own export, phases/<phase name>/profile_export_aiperf.json (exporters/exporter_manager.py), is that
phase's, and its load is its entry of ``input_config.phases``. Such a run's export was stored as one run with
no concurrency (or under a row, at the row's), its figures the pool of every load's, and its phases' exports
passed over. Now each profiling phase's export is a run at its phase's load, the run's own export is passed
over beside its manifest and refused, saying why, without it; warm-ups are never results.

The exports are the real AIPerf 0.11 run (tests/data/results-real/SOURCES.tsv) made into what 0.12 writes for
a warm-up and two profiling phases, the phases' figures our own; the manifest as exporter_manager.py lays
it out."""

from __future__ import annotations

import copy
import json

from helpers import ROOT, ROW, ingested_verbose, no_ref_said, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real" / "aiperf"
RUN = json.loads((REAL / "aiperf0.11_qwen3-4b_g7_conc16_trimmed.json").read_text(encoding="utf-8"))
CSV = (REAL / "aiperf0.11_qwen3-4b_g7_conc16.csv").read_text(encoding="utf-8")
PROFILING = RUN["input_config"]["phases"][0]
PHASES = [{"name": "warmup", "kind": "warmup", "type": "concurrency", "exclude_from_results": True, "requests": 32,
           "concurrency": 16},
          {**PROFILING, "name": "c16", "kind": "profiling"},
          {**PROFILING, "name": "c32", "kind": "profiling", "concurrency": 32}]
THROUGHPUT = {"warmup": 402.7, "c16": 1792.3, "c32": 2911.6, "run": 2351.9}  # output tokens/s
NAME = "profile_export_aiperf"


def _export(throughput: float) -> dict:
    doc = copy.deepcopy(RUN)
    doc.update(schema_version="1.4", aiperf_version="0.12.0")
    doc["input_config"]["phases"] = copy.deepcopy(PHASES)
    doc["output_token_throughput"] = {**doc["output_token_throughput"], "avg": throughput}
    return doc


def _entry(index: int, name: str) -> dict:
    files = {"metrics_json": f"phases/{name}/{NAME}.json", "metrics_csv": f"phases/{name}/{NAME}.csv"}
    return {"end_ns": 1776690000000000000 + index, "error_request_count": 0, "error_summary": [], "phase_index": index,
            "phase_kind": "warmup" if name == "warmup" else "profiling", "phase_name": name,
            "profiling_index": None if name == "warmup" else index - 1, "start_ns": 1776689990000000000 + index,
            "successful_request_count": 32, "total_request_count": 32, "was_cancelled": False, **files}


def _run_folder(base) -> None:
    """The run's folder: its own export (JSON and CSV), each phase's, and the manifest."""
    base.mkdir()
    (base / f"{NAME}.json").write_text(json.dumps(_export(THROUGHPUT["run"]), indent=2), encoding="utf-8")
    (base / f"{NAME}.csv").write_text(CSV, encoding="utf-8")
    for phase in PHASES:
        folder = base / "phases" / phase["name"]
        folder.mkdir(parents=True)
        (folder / f"{NAME}.json").write_text(json.dumps(_export(THROUGHPUT[phase["name"]]), indent=2),
                                             encoding="utf-8")
        (folder / f"{NAME}.csv").write_text(CSV, encoding="utf-8")
    manifest = {"phases": [_entry(i, p["name"]) for i, p in enumerate(PHASES)], "schema_version": 1}
    (base / "phase_manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _stored(capsys, db: str) -> list[tuple]:
    return sorted((r["conc"], r["metrics"]["output_throughput"]) for r in show_json(capsys, db))


def test_each_profiling_phase_is_stored_at_its_own_load_and_the_run_s_pooled_export_passed_over(tmp_path, capsys):
    base = tmp_path / "run"
    _run_folder(base)
    db, out = ingested_verbose(capsys, tmp_path, base)
    assert _stored(capsys, db) == [(16, THROUGHPUT["c16"]), (32, THROUGHPUT["c32"])]
    lines = out.splitlines()
    assert "skipped 1 AIPerf whole-run export of several profiling phases (beside its phase_manifest.json: the " \
           "phases' requests pooled at their different loads, no one point's figures; each profiling phase's own " \
           "export under phases/<name>/ is a result)" in lines
    assert f"skipped {base / f'{NAME}.json'}" in lines  # its CSV, and each phase's, beside their JSON twins
    assert "skipped 4 CSV files beside a JSON export of the same name (the same run, read from the JSON)" in lines
    assert f"skipped {base / 'phases' / 'warmup' / f'{NAME}.json'}" in lines
    assert [line for line in lines if "per-phase export" in line][-1] == (  # the warm-up alone: no "own export" said
        "skipped 1 AIPerf per-phase export (phases/<name>/, named by the phase_manifest.json beside a run's "
        "profile_export_aiperf.json: a warm-up, or the one profiling phase of a run whose own export is its result)")
    assert "ingested 2 results (2 new)" in out


def test_a_profiling_phase_s_export_named_alone_is_its_phase_s_run(tmp_path, capsys):
    base = tmp_path / "run"
    _run_folder(base)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(base / "phases" / "c32" / f"{NAME}.json"))
    assert (rc, no_ref_said(err)) == (0, ""), err
    (rec,) = show_json(capsys, db)
    assert (rec["conc"], rec["metrics"]["output_throughput"]) == (32, THROUGHPUT["c32"])


def test_a_phase_s_load_against_another_row_is_refused_at_its_own_phase_s_key(tmp_path, capsys):
    base = tmp_path / "run"
    _run_folder(base)
    path = base / "phases" / "c32" / f"{NAME}.json"
    (tmp_path / "row.json").write_text(json.dumps({**ROW, "conc": 16}), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row",
                           str(tmp_path / "row.json"), "--run-id", "1", "--ref", "refs/heads/main", str(path))
    text = path.read_text(encoding="utf-8")
    at = text.index('"concurrency": 32')
    place = f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"
    assert rc == 1 and err.startswith(f"{path}:{place}: input_config.phases[2].concurrency: the output ran at "
                                      "concurrency 32 but its job's row (--row) says conc 16;"), err


def test_the_run_s_own_export_is_passed_over_beside_its_manifest_and_refused_without_it(tmp_path, capsys):
    base = tmp_path / "run"
    _run_folder(base)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for name in (f"{NAME}.json", f"{NAME}.csv"):  # the CSV says nothing of its phases: only its manifest does
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(base / name))
        assert (rc, err) == (0, ""), err
        assert out.splitlines()[0].startswith("skipped 1 AIPerf whole-run export of several profiling phases (")
    assert not (tmp_path / "r.db").exists()
    alone = tmp_path / "alone.json"
    alone.write_bytes((base / f"{NAME}.json").read_bytes())
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(alone))
    text = alone.read_text(encoding="utf-8")
    at = text.index('"phases":')
    assert rc == 1 and err == (
        f"{alone}:{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}: input_config.phases: 2 "
        "profiling phases (c16: concurrency 16, c32: concurrency 32): AIPerf pools their requests in the run's "
        "export, so its figures are no one load's; ingest the run's folder, whose phases/<name>/ holds each phase's "
        "own export (AIPerf 0.12+), or run each load as a run of its own\n"), err
