"""s46i: an AIPerf run's JSON export and its CSV export, ingested by hand as two main runs, were two baseline
values (n=2, a spread of nothing): the store tells one output stored twice by its bytes or by every figure being
the same, and the CSV rounds every figure. Both exports state the run's first request and last response to the
nanosecond (``min_request_timestamp``/``max_response_timestamp``, "Minimum Request Timestamp (ns)"/"Maximum
Response Timestamp (ns)"), which no two runs share: the record keeps them (``request-span``) and the baseline counts
the pair once, naming it. Another run (other times) still counts apart. Real exports, real SQLite store."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta

from helpers import ROW, SAMPLES, run_cli

RUN, CSV = (SAMPLES / "aiperf" / f"aiperf_kimik2.7_fp4_mi355x_tp4_conc1.{ext}" for ext in ("json", "csv"))
ROW_OF_RUN = {**ROW, "model": "amd/Kimi-K2.7-Code-MXFP4", "model-prefix": "kimik2.7", "runner": "mi355x",
              "exp-name": "kimik2.7_1k1k_tp4", "conc": 1, "tp": 4}


def _later(doc: dict, hours: int) -> dict:
    """``doc`` as another run's export, ``hours`` later (its times moved, its figures the same)."""
    out = json.loads(json.dumps(doc))
    for key in ("min_request_timestamp", "max_response_timestamp"):
        out[key]["avg"] += hours * 3600e9
    for key in ("start_time", "end_time"):
        out[key] = (datetime.fromisoformat(out[key]) + timedelta(hours=hours)).isoformat()
    return out


def _ingest(tmp_path, capsys, db, path, run, ref="refs/heads/main"):
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"),
                           "--run-id", run, "--ref", ref, str(path))
    assert rc == 0, err


def test_the_json_and_csv_exports_of_one_run_count_once_in_the_baseline(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "row.json").write_text(json.dumps(ROW_OF_RUN), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    doc = json.loads(RUN.read_text(encoding="utf-8"))
    for name, make in {"a": lambda p: shutil.copy(RUN, p / "profile_export_aiperf.json"),
                       "b": lambda p: shutil.copy(CSV, p / "profile_export_aiperf.csv"),
                       "c": lambda p: (p / "profile_export_aiperf.json").write_text(json.dumps(_later(doc, 3))),
                       "pr": lambda p: (p / "profile_export_aiperf.json").write_text(json.dumps(_later(doc, 6)))
                       }.items():
        (tmp_path / name).mkdir()
        make(tmp_path / name)
    for name, run in (("a", "400"), ("b", "401"), ("c", "403")):
        _ingest(tmp_path, capsys, db, tmp_path / name, run)
    _ingest(tmp_path, capsys, db, tmp_path / "pr", "402", ref="refs/pull/9/head")
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "402", "--json")
    assert rc == 0, err
    report = json.loads(out)
    assert {p["baseline"]["n"] for p in report["points"]} == {2}, report["points"]  # was 3: 400 and 401 apart
    assert [e["runs"] for e in report.get("echoed", [])] == [["400", "401"]], report.get("echoed")
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "402")
    assert rc == 0, err
    assert "Baseline runs 400 and 401 hold one run's measurement (its JSON and CSV exports: the same first " \
        "request and last response, to the nanosecond) at 1 point: counted once there" in " ".join(out.split()), out
