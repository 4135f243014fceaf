"""Wording leftovers (s31g): an AIPerf CSV export whose JSON export beside it says `is_complete: false` was
warned of at the CSV's `:1:1`, where no such key is. The warning is now placed at the JSON export's line of
`is_complete`, and names the CSV it is said of. The exports are a real AIPerf run's
(tests/data/results-samples/SOURCES.tsv), `sweepgate` a real process."""

from __future__ import annotations

import json

from helpers import SAMPLES, no_ref_said, sweepgate_at

CSV = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.csv"
JSON = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json"


def test_an_unfinished_run_s_warning_is_placed_at_is_complete_in_the_json_export(tmp_path):
    folder = tmp_path / "artifacts"
    folder.mkdir()
    csv, twin = folder / "profile_export_aiperf.csv", folder / "profile_export_aiperf.json"
    csv.write_bytes(CSV.read_bytes())
    reason = "Record aggregation stalled at 3 of 8 records for 300s after all credits completed"
    export = {**json.loads(JSON.read_text(encoding="utf-8")), "aiperf_version": "0.13.0", "is_complete": False,
              "incomplete_reason": reason}
    twin.write_text(json.dumps(export, indent=2), encoding="utf-8")
    lines = twin.read_text(encoding="utf-8").splitlines()
    (line,) = [n for n, text in enumerate(lines, 1) if text.lstrip().startswith('"is_complete"')]
    col = lines[line - 1].index('"is_complete"') + 1
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(csv))
    assert proc.returncode == 0 and "ingested 1 results (1 new)" in proc.stdout, proc.stderr
    assert no_ref_said(proc.stderr).splitlines() == [
        f"{twin}:{line}:{col}: warning: is_complete: false ({reason}): AIPerf finished the run without all its "
        f"records, so its figures are of a part of it; stored as failed: its CSV export {csv}; check the run's log "
        "(workers that sent no records) and rerun the point"], proc.stderr
    shown = sweepgate_at(tmp_path, "results", "show", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--json")
    assert [r["status"] for r in json.loads(shown.stdout)] == ["failure"], shown.stderr
