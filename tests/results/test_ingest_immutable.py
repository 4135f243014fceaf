"""Stored results are immutable: ingesting a file again is a no-op, a changed file under a stored
(run-id, attempt, result-filename) is refused for that file only (SQLite and PostgreSQL)."""

from __future__ import annotations

import json

import pytest

from helpers import ROW, job, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    if request.param == "postgresql":
        return request.getfixturevalue("pg_url")
    return f"sqlite:///{tmp_path / 'r.db'}"


def _ingest(capsys, db, *paths):
    return run_cli(capsys, "results", "ingest", "--db", db, *map(str, paths))


def _tputs(capsys, db, runs) -> dict:
    return {r[R.RUN_ID]: r[R.METRICS][R.OUTPUT_THROUGHPUT] for run in runs
            for r in show_json(capsys, db, "--run", run)}


def test_changed_file_is_refused_others_stored(db, tmp_path, capsys):
    runs = tmp_path / "runs"
    changed = write_job(runs / "a", "res", vllm_output(), job(run_id="a"))
    write_job(runs / "b", "res", vllm_output(mean_ttft_ms=122.0), job(run_id="b"))  # no two jobs' bytes alike (s35a)
    assert _ingest(capsys, db, runs)[0] == 0
    rc, out, err = _ingest(capsys, db, runs)  # the same files again: nothing changes, nothing said
    assert (rc, err) == (0, "") and "ingested 2 results (0 new)" in out

    changed.write_text(json.dumps(vllm_output(output_throughput=819.2)), encoding="utf-8")
    write_job(runs / "c", "res", vllm_output(mean_ttft_ms=123.0), job(run_id="c"))
    rc, out, err = _ingest(capsys, db, runs)
    lines = err.strip().splitlines()
    assert rc == 1 and len(lines) == 1, err
    assert lines[0].startswith(f"{changed}: run-id 'a' attempt 1 result-filename 'res' is already stored")
    assert "is already stored with other values (changed: output_throughput);" in lines[0]  # not what derives from it
    assert lines[0].endswith("; results are immutable; ingest the rerun under its own attempt or run id: a job's "
                             ".job.json says them ('attempt', 'run-id' under 'job'; a workflow's rerun writes its "
                             "next attempt), an output without one takes them as --attempt/--run-id with --row")
    assert "ingested 2 results (1 new)" in out  # b again (no-op) and the new c
    assert _tputs(capsys, db, "abc") == {"a": 409.6, "b": 409.6, "c": 409.6}  # a keeps its stored value

    changed.with_name("res.job.json").write_text(json.dumps(job(run_id="a", attempt=2)), encoding="utf-8")
    rc, out, err = _ingest(capsys, db, runs / "a")  # the rerun under its own attempt is stored
    assert (rc, err) == (0, "") and "(1 new)" in out


def test_multi_record_file_is_refused_whole(db, tmp_path, capsys):
    out = tmp_path / "res.jsonl"
    side = job(run_id="m", row=dict(ROW, conc=[4, 8, 16]))
    (tmp_path / "res.job.json").write_text(json.dumps(side), encoding="utf-8")
    out.write_text("".join(json.dumps(vllm_output(conc=c)) + "\n" for c in (4, 8)), encoding="utf-8")
    assert _ingest(capsys, db, tmp_path)[0] == 0
    # line 2 changed and a new line 3: the file is refused as a whole, line 3 is not stored either
    lines = [vllm_output(conc=4), vllm_output(conc=8, completed=39, failed=1), vllm_output(conc=16)]
    out.write_text("".join(json.dumps(doc) + "\n" for doc in lines), encoding="utf-8")
    rc, _, err = _ingest(capsys, db, tmp_path)
    assert rc == 1 and len(err.strip().splitlines()) == 1 and err.startswith(f"{out}:2: run-id 'm'"), err
    assert sorted(r[R.CONC] for r in show_json(capsys, db, "--run", "m")) == [4, 8]


def test_outputs_ingested_again_by_a_newer_version_are_a_no_op(db, tmp_path, capsys):
    """A newer sweepgate may record a field more (the request rate, say) or derive a value otherwise:
    the job's output is the same result, so ingesting it again changes and refuses nothing."""
    from sweepgate.results import store

    write_job(tmp_path / "in", "res", vllm_output(), job(run_id="u"))
    assert _ingest(capsys, db, tmp_path / "in")[0] == 0
    (rec,) = show_json(capsys, db, "--run", "u")
    older = dict(rec, metrics=dict(rec[R.METRICS], **{R.OUTPUT_TPUT_PER_GPU: 1.0}))
    older.pop(R.REQUEST_RATE)
    older[R.STARTED] = older[R.FINISHED] = None  # not read from this client's output before
    with store.open_store(db) as st:
        assert st.add([dict(older, **{R.RUN_ID: "v"})]) == 1
    (tmp_path / "in" / "res.job.json").write_text(json.dumps(job(run_id="v")), encoding="utf-8")
    rc, out, err = _ingest(capsys, db, tmp_path / "in")
    assert (rc, err) == (0, "") and "(0 new)" in out
    assert show_json(capsys, db, "--run", "v")[0][R.METRICS][R.OUTPUT_TPUT_PER_GPU] == 1.0  # the stored one stays


def test_a_length_a_newer_version_no_longer_claims_is_no_change():
    """Diff review: 2024 SGLang lines stored with isl/osl 1024/128 (the unused random defaults), read
    by a version that claims none, were refused as changed results."""
    from sweepgate.results import store_immutable

    stored = {R.ISL: 1024, R.OSL: 128, R.METRICS: {R.OUTPUT_THROUGHPUT: 10.0}}
    assert store_immutable._changes(stored, {R.ISL: None, R.OSL: None, R.METRICS: {R.OUTPUT_THROUGHPUT: 10.0}}) == []
    assert store_immutable._changes(stored, {R.ISL: 2048, R.OSL: 128,
                                             R.METRICS: {R.OUTPUT_THROUGHPUT: 10.0}}) == [R.ISL]


def test_an_eval_sample_count_a_newer_version_adds_is_no_change():
    """lm-eval group rows were stored without a sample count; a version that adds their subtasks'
    counts must not refuse the same file as changed. A count that differs is a change."""
    from sweepgate.results import store_immutable

    def rec(samples):
        return {R.EVALS: [{R.EVAL_TASK: "mmlu", R.EVAL_METRIC: "acc", R.EVAL_FILTER: "none", R.EVAL_VALUE: 0.5,
                           R.EVAL_STDERR: 0.01, R.EVAL_SAMPLES: samples}], R.METRICS: {}}

    assert store_immutable._changes(rec(None), rec(397)) == []
    assert store_immutable._changes(rec(300), rec(397)) == [R.EVALS]
    without_stderr = {**rec(None), R.EVALS: [{**rec(None)[R.EVALS][0], R.EVAL_STDERR: None}]}
    assert store_immutable._changes(rec(None), without_stderr) == [R.EVALS]


def test_another_point_under_the_same_file_name_is_told_to_get_a_name_of_its_own(tmp_path, capsys, monkeypatch):
    """newuser25: ingesting by hand, main-101/c4/result.json and main-101/c8/result.json (two points
    of run 101) share the key (run-id, attempt, result-filename). The second was refused as a
    changed rerun, its conc hidden behind 'completed, duration_s, ... and 22 more', and told to
    ingest "the rerun" under its own attempt: it is no rerun but another point. Now the line names
    the point that differs first and says to give the output a file name of its own."""
    monkeypatch.chdir(tmp_path)  # outside a repository: the config key is not checked against one
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for conc in (4, 8):
        folder = tmp_path / f"c{conc}"
        folder.mkdir()
        (folder / "row.json").write_text(json.dumps(dict(ROW, conc=conc)), encoding="utf-8")
        (folder / "result.json").write_text(json.dumps(vllm_output(conc, output_throughput=100.0 * conc)),
                                            encoding="utf-8")
    given = ["--run-id", "101", "--ref", "refs/heads/main", "--config-key", "dsr1-fp4-b300-vllm"]
    first = tmp_path / "c4"
    assert _ingest(capsys, db, "--row", first / "row.json", *given, first / "result.json")[0] == 0
    second = tmp_path / "c8"
    rc, out, err = _ingest(capsys, db, "--row", second / "row.json", *given, second / "result.json")
    (line,) = err.strip().splitlines()
    assert rc == 1 and "ingested 0 results (0 new)" in out
    assert line.startswith(f"{second / 'result.json'}: run-id '101' attempt 1 result-filename 'result.json' "
                           "is already stored for another point (conc 4, this file 8);"), line
    assert "rerun" not in line
    assert line.endswith("; each output of one run needs a file name of its own: rename this one "
                         "(after its point, e.g. result-conc8.json) and ingest it again"), line
    # the same point changed is still a changed rerun
    (first / "result.json").write_text(json.dumps(vllm_output(4, output_throughput=1.0)), encoding="utf-8")
    rc, out, err = _ingest(capsys, db, "--row", first / "row.json", *given, first / "result.json")
    assert rc == 1 and "(changed: output_throughput); results are immutable; ingest the rerun" in err


def test_an_ingest_whose_every_file_the_store_refused_says_nothing_stored(tmp_path, capsys):
    """newuser25: CONTRACTS §8 spells the last line of an ingest that stored nothing (every input
    refused) `ingested 0 results (0 new) into <db>; nothing stored`. A file refused by the store
    itself (a changed result under a stored key) left it off, as if something had been stored."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    out = write_job(tmp_path / "a", "res", vllm_output(), job(run_id="a"))
    assert _ingest(capsys, db, out)[0] == 0
    out.write_text(json.dumps(vllm_output(output_throughput=1.0)), encoding="utf-8")
    rc, stdout, err = _ingest(capsys, db, out)
    assert rc == 1 and "results are immutable" in err
    assert stdout.strip().splitlines()[-1] == f"ingested 0 results (0 new) into {db}; nothing stored"


def test_another_topology_under_the_same_file_name_is_told_a_short_name(tmp_path, capsys, monkeypatch):
    """polish25: a tp4 and a tp8 output of run 101 given one file name were told to rename the second
    "after its point, e.g. result-topologytp8-pp1-dcp1-pcp1-ep1-dpafalse.json": the field's name glued
    to its whole stored value. The example is now the recipe's short label: result-tp8.json."""
    monkeypatch.chdir(tmp_path)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    given = ["--run-id", "101", "--ref", "refs/heads/main", "--config-key", "dsr1-fp4-b300-vllm"]
    for tp in (4, 8):
        folder = tmp_path / f"tp{tp}"
        folder.mkdir()
        (folder / "row.json").write_text(json.dumps(dict(ROW, tp=tp)), encoding="utf-8")
        (folder / "result.json").write_text(json.dumps(vllm_output(output_throughput=10.0 * tp)), encoding="utf-8")
        rc, out, err = _ingest(capsys, db, "--row", folder / "row.json", *given, folder / "result.json")
    (line,) = err.strip().splitlines()
    assert rc == 1 and "another point (topology tp4-pp1-dcp1-pcp1-ep1-dpafalse, this file tp8-" in line, line
    assert line.endswith("(after its point, e.g. result-tp8.json) and ingest it again"), line


@pytest.mark.parametrize(("field", "rec", "name"), [
    (R.CONC, {R.CONC: 8}, "result-conc8.json"),
    (R.CONC, {R.CONC: None}, "result-no-conc.json"),
    (R.ISL, {R.ISL: 2048}, "result-isl2048.json"),
    (R.REQUEST_RATE, {R.REQUEST_RATE: 2.5}, "result-rate2.5.json"),
    (R.REQUEST_RATE, {R.REQUEST_RATE: "inf"}, "result-rateinf.json"),
    (R.TOPOLOGY, {R.TOPOLOGY: "tp4-pp1-dcp1-pcp1-ep8-dpatrue"}, "result-tp4-ep8-dpa.json"),
    (R.TOPOLOGY, {R.TOPOLOGY: "p2x(tp4-pp1-dcp1-pcp1-ep1-dpafalse)_d1x(tp8-pp1-dcp1-pcp1-ep1-dpafalse)"},
     "result-p2x-tp4-d1x-tp8.json"),
    (R.SPEC_DECODING, {R.SPEC_DECODING: "mtp"}, "result-spec-mtp.json"),
    (R.SPEC_DECODING, {R.SPEC_DECODING: "none"}, "result-no-spec-decoding.json"),
    (R.KV_OFFLOAD_BACKEND, {R.KV_OFFLOADING: "dram", R.KV_OFFLOAD_BACKEND: "lmcache"}, "result-lmcache-dram.json"),
    (R.CONFIG_KEY, {R.CONFIG_KEY: "dsr1/fp4 b300:vllm"}, "result-dsr1-fp4-b300-vllm.json"),
    (R.HARDWARE, {R.HARDWARE: "../.."}, "result-hardware.json"),
])
def test_the_suggested_file_name_is_short_and_safe(field, rec, name):
    from sweepgate.results import store

    assert store.point_file_name(field, rec) == name


def test_an_output_that_arrives_after_its_sidecar_fills_the_placeholder(db, tmp_path, capsys):
    """New user (newuser27): an artifact copied in two goes (the sidecars first, or a download cut
    short) stored each job whose sidecar says success as a failure with no figures ("left no result
    file"); ingesting the output once it was there was refused for good ("already stored with other
    values (changed: status); results are immutable") and the run read as failed. The placeholder
    measured nothing, so the job's output now takes its place; a placeholder for a job stored with its
    output, and the genuinely failed job's, stay as they are."""
    runs = tmp_path / "runs"
    out = write_job(runs, "res", vllm_output(), job(run_id="late"))
    held = out.read_bytes()
    out.unlink()
    rc, _, err = _ingest(capsys, db, runs)
    assert rc == 0 and "left no result file; stored as a failure" in err
    assert [r[R.STATUS] for r in show_json(capsys, db, "--run", "late")] == ["failure"]

    out.write_bytes(held)
    rc, out_text, err = _ingest(capsys, db, runs)
    assert (rc, err) == (0, ""), err
    assert "ingested 1 results (1 new)" in out_text
    (rec,) = show_json(capsys, db, "--run", "late")
    assert (rec[R.STATUS], rec[R.METRICS][R.OUTPUT_THROUGHPUT]) == ("success", 409.6)

    out.unlink()  # the output gone again: its placeholder does not undo what is stored, nor count (ingest29)
    rc, out_text, err = _ingest(capsys, db, runs)
    assert (rc, err) == (0, "") and "ingested 0 results (0 new)" in out_text, (out_text, err)
    assert [r[R.STATUS] for r in show_json(capsys, db, "--run", "late")] == ["success"]


def test_a_run_id_stored_on_another_ref_is_refused(db, tmp_path, capsys):
    """New user (newuser27): a PR's output ingested by hand with `--run-id 101` (a typo for 201) while
    run 101 was one of main's was stored under a file name of its own, so run 101 then held main's
    measurement and the PR's: `compare --run 101` judged the median of the two ("measured more than
    once") and called a 15 % drop unchanged. A run is of one ref: such an output is refused, naming
    the ref the run is on; the run's own later outputs and a retried attempt are stored."""
    write_job(tmp_path / "main", "c4", vllm_output(), job(run_id="101"))
    assert _ingest(capsys, db, tmp_path / "main")[0] == 0
    wrong = write_job(tmp_path / "pr", "pr", vllm_output(output_throughput=348.2),
                      job(run_id="101", ref="refs/pull/7/head"))
    rc, out, err = _ingest(capsys, db, tmp_path / "pr")
    assert rc == 1 and "nothing stored" in out, (out, err)
    assert err.splitlines() == [
        f"{wrong}: run-id '101' is stored on refs/heads/main, but this output is on refs/pull/7/head; "
        "a run is of one ref: give this output its own run's id (its .job.json's, or --run-id with --row), "
        "or the ref run 101 is on"]
    assert [r[R.REF] for r in show_json(capsys, db, "--run", "101")] == ["refs/heads/main"]
    write_job(tmp_path / "main2", "c8", vllm_output(conc=8), job(run_id="101", row=dict(ROW, conc=8)))
    # a retry writes its own bytes (s36c: the same bytes as attempt 1's, stored before, are a copy, warned of)
    write_job(tmp_path / "main2", "c4", vllm_output(date="20260101-130000"), job(run_id="101", attempt=2))
    rc, out, err = _ingest(capsys, db, tmp_path / "main2")
    assert (rc, err) == (0, "") and "(2 new)" in out, (out, err)


def test_an_output_that_completed_nothing_fills_its_placeholder_too(db, tmp_path, capsys):
    """review27: a job's output that arrived after its sidecar filled the placeholder only when it was
    a success. One that completed nothing (a failure too) was "ingested 1 results (0 new)": the store
    kept the sidecar's empty record and dropped the output's figures (40 failed requests) without a
    word, while `--jsonl` appended the output's record, so the store and the file disagreed."""
    runs = tmp_path / "runs"
    nothing = vllm_output(completed=0, failed=40, output_throughput=0.0, request_throughput=0.0,
                          total_token_throughput=0.0)
    out = write_job(runs, "res", nothing, job(run_id="none-done"))
    held = out.read_bytes()
    out.unlink()
    assert _ingest(capsys, db, runs)[0] == 0
    out.write_bytes(held)
    rc, out_text, err = _ingest(capsys, db, runs)
    assert (rc, err) == (0, "") and "ingested 1 results (1 new)" in out_text, (out_text, err)
    (rec,) = show_json(capsys, db, "--run", "none-done")
    assert (rec[R.STATUS], rec[R.SOURCE_FORMAT], rec[R.METRICS][R.FAILED]) == ("failure", "vllm-serving", 40)
    out.unlink()  # the sidecar alone again: what is stored stays
    assert _ingest(capsys, db, runs)[0] == 0
    assert [r[R.SOURCE_FORMAT] for r in show_json(capsys, db, "--run", "none-done")] == ["vllm-serving"]
