"""s48a: three holes the no-ref warning of s47a left.

1. A job whose ``.job.json`` names no ref (``job.ref`` null or left out) was stored on no ref without a word: the
   warning was only for outputs with no sidecar and no --row. It now gets the same kind of line, placed at the
   sidecar's ref and naming that fix (write job.ref; how the workflow's steps write it), --fail-on-no-ref too.
2. Ingesting the same output again once its sidecar names the ref said `1 results (0 new)` and kept the stored
   record on no ref: a stored null ref or commit was taken for "a field an older sweepgate did not record". The
   record is the same output, so the ref and commit the sidecar (or --row's --commit) now gives are written into
   the stored record, in the file's one transaction, and said on a line of their own; a ref or commit that differs
   from a stored one is still refused, as every changed field of a stored result is.
3. A re-ingest of results stored on no ref said nothing of it even with --verbose, which says again the warnings
   of results stored before: --verbose now says the line again (counting those stored before), and without it
   the line is one of the warnings the `not repeated:` line counts.
Real files, real SQLite and PostgreSQL, the command in-process."""

from __future__ import annotations

import json

import pytest

from helpers import NO_REF_LINE, ROW, job, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R

MAIN = "refs/heads/main"
SHA = "c0ffee" * 6 + "abcd"
JOB_FIX = "write job.ref, ingest again (docs/contracts.md §8)"  # the why and how in full: there (s51c)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "postgresql":
        return request.getfixturevalue("pg_url")
    return f"sqlite:///{tmp_path / 'r.db'}"


def _ingest(capsys, db, *argv):
    return run_cli(capsys, "results", "ingest", "--db", db, *map(str, argv))


def _sqlite(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


def _no_ref_job(folder, name="res", conc=4, run_id="8", **over):
    """A job's output and its sidecar whose job names no ref (null; left out with ``ref=...``); ``over``: more of
    the job."""
    side = job(run_id=run_id, row=dict(ROW, conc=conc), **{"ref": None, **over})
    if side["job"]["ref"] is ...:
        del side["job"]["ref"]
    return write_job(folder, name, vllm_output(conc), side)


# --- 1. a sidecar with no ref -------------------------------------------------------------------------------


def test_a_job_whose_sidecar_names_no_ref_is_said_at_its_ref(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    out = _no_ref_job(tmp_path / "job")
    side = out.with_name("res.job.json")
    text = side.read_text(encoding="utf-8")
    col = text.index('"ref"') + 1  # one line of JSON
    rc, stdout, err = _ingest(capsys, _sqlite(tmp_path), tmp_path / "job")
    assert rc == 0 and stdout.splitlines()[-1].startswith("ingested 1 results (1 new)"), (stdout, err)
    assert err.splitlines() == [
        f"{side}:1:{col}: warning: 1 result stored on no ref (no job.ref in its .job.json); {JOB_FIX}"], err
    assert [r[R.REF] for r in show_json(capsys, _sqlite(tmp_path))] == [None]  # stored all the same


def test_a_sidecar_without_the_ref_key_is_said_at_its_job_and_several_are_one_line(tmp_path, capsys):
    runs = tmp_path / "runs"
    for conc in (4, 8):
        _no_ref_job(runs / f"c{conc}", name=f"c{conc}", conc=conc, ref=...)
    rc, _, err = _ingest(capsys, _sqlite(tmp_path), runs)
    side = runs / "c4" / "c4.job.json"
    col = side.read_text(encoding="utf-8").index('"job"') + 1
    assert rc == 0 and err.splitlines() == [
        f"{side}:1:{col}: warning: 2 results of 2 jobs stored on no ref (no job.ref in their .job.json); "
        f"{JOB_FIX}"], err


def test_fail_on_no_ref_and_the_annotation_hold_for_a_sidecar_with_no_ref(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    _no_ref_job(tmp_path / "job")
    rc, stdout, err = _ingest(capsys, _sqlite(tmp_path), "--fail-on-no-ref", "job")
    line, annotation = err.splitlines()
    assert rc == 3 and "ingested 1 results (1 new)" in stdout, (stdout, err)
    assert line.startswith("job/res.job.json:1:") and " stored on no ref (no job.ref in its .job.json)" in line
    assert annotation.startswith("::warning file=job/res.job.json,line=1::1 result stored on no ref ("), annotation


def test_a_raw_output_and_a_job_with_no_ref_are_a_line_each(tmp_path, capsys):
    _no_ref_job(tmp_path / "in", name="job")
    (tmp_path / "in" / "raw.json").write_text(json.dumps(vllm_output(8)), encoding="utf-8")
    rc, _, err = _ingest(capsys, _sqlite(tmp_path), tmp_path / "in" / "job.json", tmp_path / "in" / "raw.json")
    raw, side = sorted(err.splitlines(), key=lambda line: ".job.json:" in line)
    assert rc == 0 and NO_REF_LINE.fullmatch(raw), err
    assert side.startswith(f"{tmp_path / 'in' / 'job.job.json'}:1:") and "(no job.ref in its .job.json)" in side


def test_a_rehearsal_or_a_sidecar_with_a_ref_says_nothing_of_it(tmp_path, capsys):
    _no_ref_job(tmp_path / "r", rehearsal=True)  # a rehearsal runs on no ref, in no baseline but a rehearsal's
    write_job(tmp_path / "m", "res", vllm_output(8), job(run_id="9", row=dict(ROW, conc=8)))
    rc, stdout, err = _ingest(capsys, _sqlite(tmp_path), "--fail-on-no-ref", tmp_path / "r", tmp_path / "m")
    assert (rc, err) == (0, "") and "ingested 2 results (2 new)" in stdout, (stdout, err)


def test_an_empty_ref_is_refused_with_a_fix_that_names_a_ref(tmp_path, capsys):
    """``"ref": ""`` is refused as a short ref is, but its fix said `write refs/heads/`, no ref at all."""
    out = _no_ref_job(tmp_path / "job")
    side = out.with_name("res.job.json")
    side.write_text(side.read_text(encoding="utf-8").replace('"ref": null', '"ref": ""'), encoding="utf-8")
    rc, _, err = _ingest(capsys, _sqlite(tmp_path), tmp_path / "job")
    (line,) = err.splitlines()
    assert rc == 1 and "job.ref: '' is not a full ref; write the ref the job ran on (refs/heads/main for a run of " \
        "main, refs/pull/N/head for a PR's), or null for none" in line, err
    assert "refs/heads/ " not in line and "refs/heads/ (" not in line


# --- 2. the ref and commit given after the results were stored ---------------------------------------------


def test_a_ref_written_into_the_sidecar_afterwards_is_given_to_the_stored_result(store, tmp_path, capsys):
    out = _no_ref_job(tmp_path / "job", commit=None)
    assert _ingest(capsys, store, tmp_path / "job")[0] == 0
    out.with_name("res.job.json").write_text(json.dumps(job(run_id="8")), encoding="utf-8")  # ref and commit now
    rc, stdout, err = _ingest(capsys, store, tmp_path / "job")
    assert (rc, err) == (0, ""), err
    lines = stdout.splitlines()
    assert lines[-2] == (
        "filled in the ref and commit of 1 result stored before without them (refs/heads/main, commit "
        f"{SHA[:12]}), as its .job.json or --row gives them now; nothing else of a stored result changes"), stdout
    assert lines[-1].startswith("ingested 1 results (0 new) into"), stdout
    (rec,) = show_json(capsys, store)
    assert (rec[R.REF], rec[R.COMMIT], rec[R.RUN_ID]) == (MAIN, SHA, "8")
    rc, stdout, err = _ingest(capsys, store, tmp_path / "job")  # again: nothing to fill, nothing said
    assert (rc, err) == (0, "") and "filled in" not in stdout and "(0 new)" in stdout, (stdout, err)


def test_the_line_names_what_was_filled_and_verbose_lists_each(tmp_path, capsys):
    db = _sqlite(tmp_path)
    for conc in (4, 8):
        _no_ref_job(tmp_path / "runs", name=f"c{conc}", conc=conc)
    assert _ingest(capsys, db, tmp_path / "runs")[0] == 0
    for conc in (4, 8):
        (tmp_path / "runs" / f"c{conc}.job.json").write_text(
            json.dumps(job(run_id="8", row=dict(ROW, conc=conc))), encoding="utf-8")
    rc, stdout, err = _ingest(capsys, db, "--verbose", tmp_path / "runs")
    lines = stdout.splitlines()
    assert (rc, err) == (0, "") and lines[-1].startswith("ingested 2 results (0 new)"), (stdout, err)
    assert lines[:-1] == ["filled in c4 of run 8: ref refs/heads/main", "filled in c8 of run 8: ref refs/heads/main",
                          "filled in the ref of 2 results stored before without it (refs/heads/main), as their "
                          ".job.json or --row gives it now; nothing else of a stored result changes"], stdout
    assert {r[R.REF] for r in show_json(capsys, db)} == {MAIN}


def test_a_commit_given_by_hand_afterwards_is_given_to_the_stored_result(store, tmp_path, capsys):
    (tmp_path / "row.json").write_text(json.dumps(ROW), encoding="utf-8")
    (tmp_path / "c4.json").write_text(json.dumps(vllm_output(4)), encoding="utf-8")
    given = ["--row", tmp_path / "row.json", "--run-id", "101", "--ref", MAIN]
    assert _ingest(capsys, store, *given, tmp_path / "c4.json")[0] == 0
    rc, stdout, err = _ingest(capsys, store, *given, "--commit", SHA, tmp_path / "c4.json")
    assert (rc, err) == (0, "") and f"filled in the commit of 1 result stored before without it (commit {SHA[:12]})" \
        in stdout, (stdout, err)
    assert show_json(capsys, store)[0][R.COMMIT] == SHA


def test_a_ref_other_than_the_stored_one_is_still_refused(store, tmp_path, capsys):
    out = write_job(tmp_path / "job", "res", vllm_output(4), job(run_id="8"))
    assert _ingest(capsys, store, tmp_path / "job")[0] == 0
    out.with_name("res.job.json").write_text(json.dumps(job(run_id="8", ref="refs/pull/7/head")), encoding="utf-8")
    rc, stdout, err = _ingest(capsys, store, tmp_path / "job")
    assert rc == 1 and "is stored on refs/heads/main, but this output is on refs/pull/7/head" in err, err
    assert show_json(capsys, store)[0][R.REF] == MAIN


def test_a_fill_that_puts_a_run_on_two_refs_is_refused(store, tmp_path, capsys):
    """Run 8's c8 is stored on a PR's ref; its c4, stored on no ref, cannot be filled in as main's."""
    _no_ref_job(tmp_path / "a", name="c4")
    write_job(tmp_path / "b", "c8", vllm_output(8), job(run_id="8", row=dict(ROW, conc=8), ref="refs/pull/7/head"))
    assert _ingest(capsys, store, tmp_path / "a", tmp_path / "b")[0] == 0
    (tmp_path / "a" / "c4.job.json").write_text(json.dumps(job(run_id="8")), encoding="utf-8")
    rc, stdout, err = _ingest(capsys, store, tmp_path / "a")
    assert rc == 1 and "is stored on refs/pull/7/head, but this output is on refs/heads/main" in err, err
    assert "filled in" not in stdout
    assert {r[R.CONC]: r[R.REF] for r in show_json(capsys, store)} == {4: None, 8: "refs/pull/7/head"}


def test_a_file_refused_fills_in_none_of_its_results(store, tmp_path, capsys):
    """A JSONL of two lines whose second is changed is refused whole: its first line's stored result keeps its
    null ref (no half-written file)."""
    side = job(run_id="m", row=dict(ROW, conc=[4, 8]), ref=None)
    (tmp_path / "res.job.json").write_text(json.dumps(side), encoding="utf-8")
    out = tmp_path / "res.jsonl"
    out.write_text("".join(json.dumps(vllm_output(conc=c)) + "\n" for c in (4, 8)), encoding="utf-8")
    assert _ingest(capsys, store, tmp_path)[0] == 0
    (tmp_path / "res.job.json").write_text(json.dumps(dict(side, job=dict(side["job"], ref=MAIN))), encoding="utf-8")
    out.write_text("".join(json.dumps(doc) + "\n" for doc in (vllm_output(conc=4),
                                                                vllm_output(conc=8, completed=39, failed=1))),
                   encoding="utf-8")
    rc, stdout, err = _ingest(capsys, store, tmp_path)
    assert rc == 1 and err.startswith(f"{out}:2: run-id 'm'") and "filled in" not in stdout, (stdout, err)
    assert [r[R.REF] for r in show_json(capsys, store)] == [None, None]


# --- 3. a re-ingest of results on no ref, with and without --verbose ------------------------------------------


def test_verbose_says_the_no_ref_line_again_and_without_it_the_line_is_counted(tmp_path, capsys):
    db = _sqlite(tmp_path)
    (tmp_path / "c4.json").write_text(json.dumps(vllm_output(4, mean_ttft_ms=122.0)), encoding="utf-8")
    _no_ref_job(tmp_path / "job")
    assert _ingest(capsys, db, tmp_path / "c4.json", tmp_path / "job")[0] == 0
    rc, stdout, err = _ingest(capsys, db, tmp_path / "c4.json", tmp_path / "job")
    assert (rc, err) == (0, "") and stdout.splitlines()[-2] == (
        "not repeated: 2 warnings of 2 files whose results were stored before (said when they were first stored; "
        "--verbose repeats them)"), stdout
    rc, stdout, err = _ingest(capsys, db, "--verbose", tmp_path / "c4.json", tmp_path / "job")
    raw, side = sorted(err.splitlines(), key=lambda line: ".job.json:" in line)
    assert rc == 0 and "not repeated" not in stdout, stdout
    assert raw.startswith(f"{tmp_path / 'c4.json'}: warning: 1 result stored before on no ref (no .job.json); "
                          "pass --row"), err
    assert side.startswith(f"{tmp_path / 'job' / 'res.job.json'}:1:") and \
        ": warning: 1 result stored before on no ref (no job.ref in its .job.json)" in side, err


def test_verbose_counts_the_results_stored_before_among_the_new(tmp_path, capsys):
    db = _sqlite(tmp_path)
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "c4.json").write_text(json.dumps(vllm_output(4)), encoding="utf-8")
    assert _ingest(capsys, db, runs)[0] == 0
    (runs / "c8.json").write_text(json.dumps(vllm_output(8)), encoding="utf-8")
    rc, stdout, err = _ingest(capsys, db, "--verbose", runs)
    assert rc == 0 and err.splitlines() == [
        f"{runs / 'c4.json'}: warning: 2 results of 2 outputs stored on no ref, 1 of them before (no .job.json); "
        "pass --row FILE --run-id ID --ref REF (docs/contracts.md §8)"], err
    rc, stdout, err = _ingest(capsys, db, "--fail-on-no-ref", "--verbose", runs)  # said, but nothing stored now
    assert rc == 0 and "stored before on no ref" in err, err


def test_a_jsonl_line_of_a_result_given_its_ref_now_is_warned_of(tmp_path, capsys):
    """--jsonl appends, never rewrites: FILE's line of the result, on no ref, would stay so without a word."""
    db, jsonl = _sqlite(tmp_path), tmp_path / "main.jsonl"
    out = _no_ref_job(tmp_path / "job")
    assert _ingest(capsys, db, "--jsonl", jsonl, tmp_path / "job")[0] == 0
    out.with_name("res.job.json").write_text(json.dumps(job(run_id="8")), encoding="utf-8")
    rc, stdout, err = _ingest(capsys, db, "--jsonl", jsonl, tmp_path / "job")
    assert rc == 0 and f"appended 0 records to {jsonl} (1 already there)" in stdout, (stdout, err)
    assert err.splitlines() == [
        f"{jsonl}:1: warning: a stale line: res of run 8, attempt 1, without the ref the store gives it now (ref "
        f"refs/heads/main); delete line 1 and ingest again, which appends the line as stored (ingest appends to "
        f"main.jsonl, never rewrites it)"], err
    jsonl.write_text("", encoding="utf-8")
    rc, stdout, err = _ingest(capsys, db, "--jsonl", jsonl, tmp_path / "job")
    assert (rc, err) == (0, "") and [json.loads(line)[R.REF] for line in jsonl.read_text().splitlines()] == [MAIN]
