"""s31d: an AIPerf CSV export read without its JSON, and whether its run finished.

AIPerf's CSV export holds the run's metric tables and nothing else (0.11.0 to 0.13.0's
exporters/metrics_csv_exporter.py): not its JSON export's ``was_cancelled``, nor 0.13's ``is_complete`` (its
record-stall watchdog gave up on records that never came). So a cancelled or unfinished run read from its
CSV alone was stored as a finished one, and compared as such, without a word. Beside it in the run's artifact
folder, AIPerf says it twice: in its JSON export of the same name, and (0.13+) in the ready marker it writes
once the exports are whole, ``.aiperf_results_ready.json`` ``{ready, was_cancelled, partial}``
(common/results_markers.py, write_ready_marker). A CSV named on its own is now read with what those say, and
where neither is there it is stored with a one-line warning that nothing says whether its run finished.

The exports are a real AIPerf run's (tests/data/results-samples/SOURCES.tsv: InferenceX, Kimi-K2.7 on MI355X
TP4, conc 1, the CSV and the JSON of one artifact folder)."""

from __future__ import annotations

import json

import pytest

from helpers import SAMPLES, no_ref_said, run_cli, show_json

CSV = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.csv"
JSON = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json"
WARNING = ("warning: an AIPerf CSV export does not say whether its run finished (was_cancelled, is_complete: in its "
           "JSON export only, and none of its name is beside it); stored as a finished run; ingest the run's "
           "profile_export_aiperf.json, from the same artifact folder, instead")


def _folder(tmp_path, export: dict | None = None, marker: dict | None = None):
    """An artifact folder with the run's CSV export, and its JSON export and ready marker when given."""
    folder = tmp_path / "artifacts"
    folder.mkdir()
    (folder / "profile_export_aiperf.csv").write_bytes(CSV.read_bytes())
    if export is not None:
        (folder / "profile_export_aiperf.json").write_text(json.dumps(export, indent=2), encoding="utf-8")
    if marker is not None:
        (folder / ".aiperf_results_ready.json").write_text(json.dumps(marker), encoding="utf-8")
    return folder / "profile_export_aiperf.csv"


def _ingest(capsys, tmp_path, path) -> tuple[dict, list[str]]:
    """(the one record stored, the lines on stderr but the one saying it is on no ref) of ``path`` ingested alone."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    (rec,) = show_json(capsys, db)
    return rec, no_ref_said(err).splitlines()


def test_a_lone_csv_export_is_stored_with_a_warning_that_nothing_says_its_run_finished(capsys, tmp_path):
    csv = _folder(tmp_path)
    rec, err = _ingest(capsys, tmp_path, csv)
    assert err == [f"{csv}:1:1: {WARNING}"]
    assert rec["status"] == "success" and rec["metrics"]["completed"] > 0


def test_a_csv_export_named_alone_is_of_a_cancelled_run_when_its_json_export_says_so(capsys, tmp_path):
    export = json.loads(JSON.read_text(encoding="utf-8"))
    assert export["was_cancelled"] is False
    rec, err = _ingest(capsys, tmp_path, _folder(tmp_path, {**export, "was_cancelled": True}))
    assert (rec["status"], err) == ("failure", [])


def test_a_csv_export_named_alone_is_of_an_unfinished_run_when_its_json_export_says_so(capsys, tmp_path):
    export = {**json.loads(JSON.read_text(encoding="utf-8")), "aiperf_version": "0.13.0", "is_complete": False,
              "incomplete_reason": "Record aggregation stalled at 3 of 8 records for 300s after all credits completed"}
    csv = _folder(tmp_path, export)
    rec, err = _ingest(capsys, tmp_path, csv)
    assert rec["status"] == "failure"
    # at the JSON export's is_complete (s31g: it was at the CSV's 1:1, where no such key is), naming the CSV
    twin = csv.with_suffix(".json")
    at = next(n for n, line in enumerate(twin.read_text(encoding="utf-8").splitlines(), 1) if '"is_complete"' in line)
    assert len(err) == 1 and err[0].startswith(f"{twin}:{at}:3: warning: is_complete: false (Record aggregation "
                                               "stalled "), err
    assert f"; stored as failed: its CSV export {csv}; " in err[0], err


def test_a_csv_export_whose_json_export_says_it_finished_is_stored_without_a_word(capsys, tmp_path):
    rec, err = _ingest(capsys, tmp_path, _folder(tmp_path, json.loads(JSON.read_text(encoding="utf-8"))))
    assert (rec["status"], err) == ("success", [])


def test_aiperf_0_13_s_ready_marker_tells_a_cancelled_run(capsys, tmp_path):
    rec, err = _ingest(capsys, tmp_path, _folder(tmp_path, marker={"ready": True, "was_cancelled": True,
                                                                   "partial": False}))
    assert (rec["status"], err) == ("failure", [])


def test_a_ready_marker_of_a_run_not_cancelled_still_leaves_its_finish_unsaid(capsys, tmp_path):
    """0.13's marker says whether the run was cancelled, not whether its watchdog gave up (is_complete)."""
    csv = _folder(tmp_path, marker={"ready": True, "was_cancelled": False, "partial": False})
    rec, err = _ingest(capsys, tmp_path, csv)
    # s35e: saying what the marker says (it read "was_cancelled, is_complete: in its JSON export only")
    said = WARNING.replace("(was_cancelled, is_complete: in its JSON export only, and none of its name is beside it)",
                           "(its ready marker beside it says it was not cancelled, and is_complete is in its JSON "
                           "export only, none of its name beside it)")
    assert said != WARNING and (rec["status"], err) == ("success", [f"{csv}:1:1: {said}"])


def test_a_genai_perf_csv_export_says_nothing_more_than_its_json_and_is_not_warned_of(capsys, tmp_path):
    """GenAI-Perf's exports, JSON and CSV alike, state no cancellation or completion."""
    rec, err = _ingest(capsys, tmp_path, SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc100.csv")
    assert (rec["client"], rec["status"], err) == ("genai-perf", "success", [])


@pytest.mark.parametrize("beside", ["profile_export_aiperf.json", ".aiperf_results_ready.json"])
def test_a_fifo_beside_a_csv_export_where_its_json_or_marker_would_be_is_never_opened(tmp_path, beside):
    """Review (s31r): looking for the JSON export or the ready marker beside a CSV export, ingest opened whatever
    stood at that name and read it to its end: a FIFO there (nothing writing to it) hung the ingest for good. A
    FIFO is no export and no marker, never opened, as the walk never opens one: the CSV is stored, said unknown
    in its finish. A real process, with a timeout (the fault was a hang)."""
    import os
    import subprocess
    import sys

    from helpers import ROOT

    csv = _folder(tmp_path)
    os.mkfifo(csv.parent / beside)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"}
    try:
        proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db",
                               f"sqlite:///{tmp_path / 'r.db'}", str(csv)], capture_output=True, text=True,
                              env=env, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"ingest waited on the FIFO {beside} beside the CSV export")
    assert proc.returncode == 0 and "ingested 1 results (1 new)" in proc.stdout, proc.stderr
    assert no_ref_said(proc.stderr).splitlines() == [f"{csv}:1:1: {WARNING}"], proc.stderr


def test_a_ready_marker_of_a_run_that_ended_in_an_error_stores_it_as_failed(capsys, tmp_path):
    """s35h: AIPerf's newer ready marker writes the phase a run ended in and the error it ended with
    (``terminal_phase``, ``terminal_error``, each left out when there is none: common/results_markers.py,
    write_ready_marker); read for was_cancelled alone, a run that ended in an error was stored as finished, with
    a warning that the marker said it was not cancelled. It is stored as failed, as a cancelled run is, with
    one warning at the marker's terminal_error quoting it."""
    marker = {"ready": True, "was_cancelled": False, "terminal_phase": "profiling",
              "terminal_error": "RuntimeError: worker 3 lost its connection\nTraceback ..."}
    csv = _folder(tmp_path, marker=marker)
    rec, err = _ingest(capsys, tmp_path, csv)
    at = csv.with_name(".aiperf_results_ready.json")
    col = json.dumps(marker).index('"terminal_error"') + 1
    assert (rec["status"], err) == ("failure", [
        f"{at}:1:{col}: warning: terminal_error: AIPerf's ready marker says the run ended in an error in its "
        "profiling phase (RuntimeError: worker 3 lost its connection), so its figures are of a part of it at most; "
        f"stored as failed: its CSV export {csv}; check the run's log and rerun the point"]), err


def test_a_ready_marker_naming_a_terminal_phase_and_no_error_says_only_that_it_was_not_cancelled(capsys, tmp_path):
    """``terminal_phase`` without ``terminal_error`` says where the run ended, not that it failed."""
    csv = _folder(tmp_path, marker={"ready": True, "was_cancelled": False, "terminal_phase": "profiling"})
    rec, err = _ingest(capsys, tmp_path, csv)
    assert rec["status"] == "success" and len(err) == 1 and "says it was not cancelled" in err[0], err


def test_a_cancelled_run_s_marker_with_an_error_is_stored_as_failed_without_a_word(capsys, tmp_path):
    """As the JSON export's cancelled run is: the cancellation is the reason, said by the run's own log."""
    csv = _folder(tmp_path, marker={"ready": True, "was_cancelled": True, "terminal_error": "cancelled by signal"})
    rec, err = _ingest(capsys, tmp_path, csv)
    assert (rec["status"], err) == ("failure", [])
