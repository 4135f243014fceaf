"""s50d: compare's no-baseline line counted the store's runs on no ref (s49g) with the run it judges among them. A
run whose own sidecars named no ``job.ref`` (or its outputs ingested with no sidecar), judged where main never ran
its points, read "the store holds 1 run on no ref, which no baseline takes: 1 of a job whose .job.json names no
job.ref (write job.ref, refs/heads/main, in its .job.json and ingest it again)": the one run was the judged run
itself, and the fix the line gave would store it as main's. The judged run is no baseline's to take: it is not
counted, and a store whose only run on no ref is it adds nothing to the line."""

from __future__ import annotations

import json

from helpers import ROW, job, run_cli, show_json, vllm_output, write_job

NO_REF_WORDS = "on no ref"


def _ingest(capsys, db: str, folder) -> None:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, out + err


def _no_baseline_line(capsys, db: str, run: str) -> str:
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run)
    assert rc == 0, err
    (line,) = [x for x in err.splitlines() if "no baseline results" in x]
    return line


def test_the_judged_run_on_no_ref_is_not_counted(tmp_path, capsys, db):
    write_job(tmp_path / "200", "res", {**vllm_output(4), "date": "20260105-120000"},
              job(run_id="200", ref=None, finished="2026-01-05T12:00:00+00:00"))
    _ingest(capsys, db, tmp_path / "200")
    line = _no_baseline_line(capsys, db, "200")
    assert NO_REF_WORDS not in line, line  # was: "... 1 of a job whose .job.json names no job.ref (write job.ref ..."


def test_a_judged_content_hash_run_is_not_counted(tmp_path, capsys, db):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "out.json").write_text(json.dumps({**vllm_output(8), "date": "20260103-120000"}), encoding="utf-8")
    _ingest(capsys, db, raw)
    (run,) = {rec["run-id"] for rec in show_json(capsys, db)}
    line = _no_baseline_line(capsys, db, run)
    assert NO_REF_WORDS not in line, line  # was: "... ingest its outputs with --row FILE --run-id ID --ref ..."


def test_the_other_runs_on_no_ref_are_still_counted(tmp_path, capsys, db):
    """Main's runs whose sidecars named no ref are counted, the judged run on no ref beside them not (was 3)."""
    for n, run in enumerate(("101", "102")):
        write_job(tmp_path / run, "res", {**vllm_output(4), "date": f"2026010{n + 1}-120000"},
                  job(run_id=run, ref=None, row=dict(ROW), finished=f"2026-01-0{n + 1}T12:00:00+00:00"))
        _ingest(capsys, db, tmp_path / run)
    write_job(tmp_path / "200", "res", {**vllm_output(4), "date": "20260105-120000"},
              job(run_id="200", ref=None, finished="2026-01-05T12:00:00+00:00"))
    _ingest(capsys, db, tmp_path / "200")
    line = _no_baseline_line(capsys, db, "200")
    assert "the store holds 2 runs on no ref" in line and "2 of jobs whose .job.json names no job.ref" in line, line
