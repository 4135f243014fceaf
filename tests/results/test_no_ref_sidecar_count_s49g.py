"""s49g: compare's no-baseline line counted the store's runs on no ref only when they were content-hash runs
(outputs ingested with no .job.json and no --row). A job whose .job.json names no ``job.ref`` is stored on no ref
too (ingest warns of both kinds alike), and no baseline takes it either: a main whose sidecars were written without
a ref left a PR's compare with "no baseline results ... check --baseline-ref" and no word of the runs the store
held. Now both kinds are counted, each with what fixes it; a rehearsal's runs, on no ref by design, are not."""

from __future__ import annotations

import pytest

from helpers import job, run_cli, vllm_output, write_job

PR_REF = "refs/pull/7/head"


def _ingest(capsys, db: str, folder) -> None:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, out + err


def _compare_line(capsys, db: str) -> str:
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200")
    assert rc == 0, err
    (line,) = [x for x in err.splitlines() if "no baseline results" in x]
    return line


def _main_without_ref(tmp_path, capsys, db: str, runs=("101", "102")) -> None:
    for n, run in enumerate(runs):
        write_job(tmp_path / run, "res", {**vllm_output(4), "date": f"2026010{n + 1}-120000"},
                  job(run_id=run, ref=None, finished=f"2026-01-0{n + 1}T12:00:00+00:00"))
        _ingest(capsys, db, tmp_path / run)
    write_job(tmp_path / "200", "res", {**vllm_output(4, output_throughput=420.0), "date": "20260105-120000"},
              job(run_id="200", ref=PR_REF, finished="2026-01-05T12:00:00+00:00"))
    _ingest(capsys, db, tmp_path / "200")


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, db) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else db


def test_runs_whose_sidecar_names_no_ref_are_counted_with_their_fix(tmp_path, capsys, backend):
    db = backend
    _main_without_ref(tmp_path, capsys, db)
    line = _compare_line(capsys, db)
    # was: the line ended at "same --config-key)", the two runs on no ref unsaid
    assert ("; the store holds 2 runs on no ref, which no baseline takes: 2 of jobs whose .job.json names no "
            "job.ref (write job.ref, refs/heads/main, in their .job.json and ingest them again)") in line, line


def test_both_kinds_are_counted_apart(tmp_path, capsys, db):
    _main_without_ref(tmp_path, capsys, db, runs=("101",))
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "out.json").write_text(__import__("json").dumps({**vllm_output(8), "date": "20260103-120000"}))
    _ingest(capsys, db, raw)
    line = _compare_line(capsys, db)
    assert ("; the store holds 2 runs on no ref, which no baseline takes: 1 ingested with no .job.json and no "
            "--row (ingest its outputs with --row FILE --run-id ID --ref refs/heads/main), 1 of a job whose "
            ".job.json names no job.ref (write job.ref, refs/heads/main, in its .job.json and ingest it again)"
            ) in line, line


def test_a_rehearsal_on_no_ref_is_not_counted(tmp_path, capsys, db):
    rehearsal = tmp_path / "rehearsal"
    write_job(rehearsal, "res", {**vllm_output(4), "date": "20260101-120000"},
              job(run_id="rehearsal-w-20260101T120000Z", ref=None, rehearsal=True))
    _ingest(capsys, db, rehearsal)
    write_job(tmp_path / "200", "res", {**vllm_output(4, output_throughput=420.0), "date": "20260105-120000"},
              job(run_id="200", ref=PR_REF, finished="2026-01-05T12:00:00+00:00"))
    _ingest(capsys, db, tmp_path / "200")
    assert "on no ref" not in _compare_line(capsys, db)
