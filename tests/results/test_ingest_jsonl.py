"""`results ingest --jsonl FILE` gathers records across ingests: each call appends what FILE does
not hold yet, so a baseline can be built run by run and feeds `compare --baseline-jsonl`."""

from __future__ import annotations

import json

from helpers import job, run_cli, vllm_output, write_job
from sweepgate.results import record as R


def _ingest(capsys, tmp_path, folder, jsonl):
    return run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--jsonl", str(jsonl),
                   str(folder))


def _runs(jsonl) -> list[str]:
    return [json.loads(line)[R.RUN_ID] for line in jsonl.read_text().splitlines()]


def test_ingests_append_and_an_ingest_repeated_adds_nothing(tmp_path, capsys):
    """Review: five `ingest --jsonl main.jsonl runs/900N` calls left only the last run's lines, and
    `compare --baseline-jsonl main.jsonl` then judged every point insufficient-data."""
    jsonl = tmp_path / "main.jsonl"
    for n in range(3):
        sidecar = job(run_id=str(900 + n), finished=f"2026-01-0{n + 1}T12:00:00+00:00")
        write_job(tmp_path / f"run{n}", "res", vllm_output(4, output_throughput=409.6 + n), sidecar)
        rc, out, err = _ingest(capsys, tmp_path, tmp_path / f"run{n}", jsonl)
        assert rc == 0 and f"appended 1 record to {jsonl}" in out, err
    assert _runs(jsonl) == ["900", "901", "902"]
    rc, out, _ = _ingest(capsys, tmp_path, tmp_path / "run1", jsonl)
    assert rc == 0 and "appended 0 records" in out and "(1 already there)" in out
    assert _runs(jsonl) == ["900", "901", "902"]
    pr = job(run_id="777", ref="refs/pull/7/merge", finished="2026-02-01T12:00:00+00:00")
    write_job(tmp_path / "pr", "res", vllm_output(4, output_throughput=410.0), pr)
    assert _ingest(capsys, tmp_path, tmp_path / "pr", tmp_path / "pr.jsonl")[0] == 0
    rc, out, err = run_cli(capsys, "results", "compare", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--run", "777",
                           "--baseline-jsonl", str(jsonl), "--json")
    assert rc == 0, err
    assert {p["baseline"]["n"] for p in json.loads(out)["points"]} == {3}


def test_a_jsonl_file_that_is_not_records_is_refused_before_anything_is_stored(tmp_path, capsys):
    jsonl = tmp_path / "notes.jsonl"
    jsonl.write_text('{"run-id": "1"}\nnot json\n', encoding="utf-8")
    write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="5"))
    rc, _, err = _ingest(capsys, tmp_path, tmp_path / "run", jsonl)
    assert rc == 1 and err.startswith(f"{jsonl}:1: not a normalized result record"), err
    assert jsonl.read_text() == '{"run-id": "1"}\nnot json\n'
    rc, _, err = run_cli(capsys, "results", "show", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--run", "5")
    assert rc == 1  # nothing stored
