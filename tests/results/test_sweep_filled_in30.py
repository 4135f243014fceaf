"""s30: one `vllm bench sweep serve` run read from its summary.json in one ingest and from its own run=N.json
in another (the point folder filled in, or emptied, between two ingests into one store).

The folder is the real point of a vLLM 0.25.1 sweep (tests/data/results-real/SOURCES.tsv,
er0080/vllm-benchmarking: run=0.json, run=1.json and their summary.json). Without a sidecar a file's run id is
its content's hash, so run 1 read from summary.json (``summary.json#2``) and from run=1.json are two runs'
rows, the same figures in each: the store held one measurement twice once run=1.json turned up (3 rows for 2
runs), as if the point had been measured three times. A run is stored once across ingests now: its own file
takes the place of a summary's entry stored before (``replaced``), and an entry whose run is stored from its
own file is not stored again (``skipped``), each said on a line before the last.
"""

from __future__ import annotations

import json
import shutil

from helpers import ROOT, SAMPLES, ingested_verbose, no_ref_said, run_cli, show_json

from sweepgate.results import ingest, store

REAL = ROOT / "tests" / "data" / "results-real" / "vllm"
POINT = "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8"
FILES = {"run=0.json": "vllm0.25.1_bench_sweep_run0_opt125m_c2.json",
         "run=1.json": "vllm0.25.1_bench_sweep_run1_opt125m_c2_seqs4.json",
         "summary.json": "vllm0.25.1_bench_sweep_summary_2runs_c2.json"}
TTFT = {"run=0.json": 217.27289337468392, "run=1.json": 39.30731637592544}  # each run's mean TTFT
SEVERAL = "(a vllm bench sweep's summary.json#N or SLA--*.json#N, an appended JSONL's line #N)"
REPLACED = (f"stored before from a file of several runs {SEVERAL} by the run's own file (a sweep's run=N.json): "
            "the same measurement, stored once, under its own file's name")
SKIPPED = (f"of files of several runs {SEVERAL} stored before from another file, its own or one of several (the "
           "same measurement, not stored twice)")


def _point(root, *names):
    point = root / "experiment" / POINT
    point.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copyfile(REAL / FILES[name], point / name)
    return point


def _rows(capsys, db) -> list[tuple[str, float]]:
    return sorted((r["result-filename"], r["metrics"]["ttft_mean_ms"]) for r in show_json(capsys, db))


def _ingest(capsys, db, path, *extra):
    """The lines of `results ingest` of ``path`` (no sidecar, no --row), which says nothing on stderr but, when it
    stored any result new (with --verbose: any result), that they are on no ref."""
    rc, out, err = run_cli(capsys, "results", "ingest", *extra, "--db", db, str(path))
    assert rc == 0 and no_ref_said(err, out, verbose="--verbose" in extra) == "", err
    return out.splitlines()


def test_a_run_file_that_turns_up_later_takes_the_place_of_its_summary_entry(tmp_path, capsys):
    point = _point(tmp_path, "run=0.json", "summary.json")
    db, _ = ingested_verbose(capsys, tmp_path, tmp_path / "experiment")
    assert _rows(capsys, db) == [("run=0.json", TTFT["run=0.json"]), ("summary.json#2", TTFT["run=1.json"])]
    summary_run = next(r["run-id"] for r in show_json(capsys, db) if r["result-filename"] == "summary.json#2")
    _point(tmp_path, "run=1.json")  # the missing file turns up
    out = _ingest(capsys, db, tmp_path / "experiment", "--verbose")
    # was 3 rows: run=1.json beside summary.json#2, one run twice
    assert _rows(capsys, db) == [("run=0.json", TTFT["run=0.json"]), ("run=1.json", TTFT["run=1.json"])]
    assert f"replaced summary.json#2 of run {summary_run} by {point / 'run=1.json'}" in out
    assert f"replaced 1 result {REPLACED}" in out
    assert out[-1].startswith("ingested 2 results (0 new)"), out  # no measurement the store had not
    # and again: nothing to replace, nothing said
    out = _ingest(capsys, db, tmp_path / "experiment")
    assert not any(line.startswith("replaced") for line in out) and out[-1].startswith("ingested 2 results (0 new)")
    assert len(show_json(capsys, db)) == 2


def test_a_summary_entry_whose_run_file_was_stored_before_is_skipped(tmp_path, capsys):
    """The other way round: the whole folder ingested, then run=1.json deleted: the summary is read for run 1
    again (its file is gone), and run 1 was stored a second time as summary.json#2."""
    point = _point(tmp_path, "run=0.json", "run=1.json", "summary.json")
    db, _ = ingested_verbose(capsys, tmp_path, tmp_path / "experiment")
    run1 = next(r["run-id"] for r in show_json(capsys, db) if r["result-filename"] == "run=1.json")
    (point / "run=1.json").unlink()
    out = _ingest(capsys, db, tmp_path / "experiment", "--verbose")
    assert _rows(capsys, db) == [("run=0.json", TTFT["run=0.json"]), ("run=1.json", TTFT["run=1.json"])]
    assert f"skipped {point / 'summary.json'}#2 (run=1.json of run {run1})" in out
    assert f"skipped 1 run {SKIPPED}" in out
    assert out[-1].startswith("ingested 1 results (0 new)"), out


def test_a_summary_ingested_alone_gives_way_to_its_run_files(tmp_path, capsys):
    """summary.json downloaded first, its run=N.json later: each of its runs is replaced by its own file, in
    one transaction each (a store never holds neither, nor both)."""
    point = _point(tmp_path, "summary.json")
    db, _ = ingested_verbose(capsys, tmp_path, tmp_path / "experiment")
    assert [name for name, _ in _rows(capsys, db)] == ["summary.json#1", "summary.json#2"]
    _point(tmp_path, "run=0.json", "run=1.json")
    out = _ingest(capsys, db, tmp_path / "experiment")
    assert _rows(capsys, db) == [("run=0.json", TTFT["run=0.json"]), ("run=1.json", TTFT["run=1.json"])]
    assert f"replaced 2 results {REPLACED}" in out
    assert "skipped 1 vllm bench sweep summary file (" in "\n".join(out)
    assert out[-1].startswith("ingested 2 results (0 new)"), out
    assert (point / "summary.json").is_file()


def test_a_store_the_earlier_version_filled_twice_holds_each_run_once_after_an_ingest(tmp_path, capsys):
    """Before b90528b a summary missing a run's file was read whole, beside the runs that have theirs: the store
    holds run=0.json and summary.json#1 (run 0 twice) and summary.json#2. Ingesting that folder again (no
    copy of anything since test_summary_copy_words30) left run 0 stored twice; summary.json#1 gives way to
    run=0.json now, which holds the same run."""
    point = _point(tmp_path, "run=0.json", "summary.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(db) as st:  # as the earlier version stored the folder: every record of both files
        for name in ("run=0.json", "summary.json"):
            st.add(ingest.records_of(point / name))
    assert [name for name, _ in _rows(capsys, db)] == ["run=0.json", "summary.json#1", "summary.json#2"]
    summary_run = next(r["run-id"] for r in show_json(capsys, db) if r["result-filename"] == "summary.json#1")
    out = _ingest(capsys, db, tmp_path / "experiment", "--verbose")
    assert _rows(capsys, db) == [("run=0.json", TTFT["run=0.json"]), ("summary.json#2", TTFT["run=1.json"])]
    assert f"replaced summary.json#1 of run {summary_run} by {point / 'run=0.json'}" in out
    assert out[-1].startswith("ingested 2 results (0 new)"), out


def test_a_sla_search_s_run_read_from_two_lists_in_one_ingest_is_stored_once(tmp_path, capsys):
    """serve_sla's SLA--*.json lists every run of its search, and each value's folder holds its runs' files and
    their summary.json. A value folder whose run=0.json is missing left its run in two lists: the SLA file
    (read for the runs not below it) and the folder's summary.json (read whole), stored twice in one ingest."""
    runs = [json.loads((REAL / FILES[name]).read_text(encoding="utf-8")) for name in ("run=0.json", "run=1.json")]
    base = tmp_path / "sla" / POINT
    listed = []
    for value, run in ((65536, runs[0]), (8, runs[1])):
        run = dict(run, request_rate=value, run_number=0)
        folder = base / f"request_rate={value}"
        folder.mkdir(parents=True)
        if value == 65536:
            (folder / "run=0.json").write_text(json.dumps(run, indent=4), encoding="utf-8")
        (folder / "summary.json").write_text(json.dumps([run], indent=4), encoding="utf-8")
        listed.append(run)
    sla = base / "SLA--p99_e2el_ms<=500.json"
    sla.write_text(json.dumps(listed, indent=4), encoding="utf-8")
    db, out = ingested_verbose(capsys, tmp_path, tmp_path / "sla")
    recs = show_json(capsys, db)
    assert sorted(r["result-filename"] for r in recs) == ["SLA--p99_e2el_ms<=500.json#2", "run=0.json"], recs
    sla_run = next(r["run-id"] for r in recs if r["result-filename"].startswith("SLA"))
    assert (f"skipped {base / 'request_rate=8' / 'summary.json'}#1 (SLA--p99_e2el_ms<=500.json#2 of run "
            f"{sla_run})") in out.splitlines()
    assert out.splitlines()[-1].startswith("ingested 2 results (2 new)"), out


def test_a_summary_entry_replaced_in_the_same_ingest_is_one_result(tmp_path, capsys):
    """A summary.json and, named after it, a copy of one of its runs' files kept elsewhere (not beside it, so
    the summary is read whole): the run's file replaces the entry the same ingest stored a moment before,
    which is then no result of it: counted once, and --jsonl holds the row the store keeps."""
    point = _point(tmp_path, "summary.json")
    elsewhere = tmp_path / "kept" / "run=1.json"
    elsewhere.parent.mkdir()
    shutil.copyfile(REAL / FILES["run=1.json"], elsewhere)
    db, jsonl = f"sqlite:///{tmp_path / 'r.db'}", tmp_path / "out.jsonl"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--jsonl", str(jsonl), str(point / "summary.json"),
                           str(elsewhere))
    assert (rc, no_ref_said(err)) == (0, ""), err
    assert _rows(capsys, db) == [("run=1.json", TTFT["run=1.json"]), ("summary.json#1", TTFT["run=0.json"])]
    assert out.splitlines()[-1].startswith("ingested 2 results (2 new)"), out  # was 3 results (3 new)
    lines = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["result-filename"] for r in lines) == ["run=1.json", "summary.json#1"]


def test_a_replacement_is_one_transaction(tmp_path, capsys):
    """The entry's row is deleted in the transaction that stores the run's own file: one that fails before its
    commit leaves the entry stored, not the run stored by neither."""
    import pytest

    point = _point(tmp_path, "summary.json")
    db, _ = ingested_verbose(capsys, tmp_path, point)
    _point(tmp_path, "run=1.json")

    def fail_before_commit():
        raise KeyboardInterrupt

    with store.open_store(db) as st, pytest.raises(KeyboardInterrupt):
        st.add(ingest.records_of(point / "run=1.json"), sole=True, before_commit=fail_before_commit)
    assert [name for name, _ in _rows(capsys, db)] == ["summary.json#1", "summary.json#2"]
    with store.open_store(db) as st:
        alike: list = []
        assert st.add(ingest.records_of(point / "run=1.json"), sole=True, alike=alike) == 0  # no new measurement
    assert [(a.record["result-filename"], a.kept["result-filename"], a.replaced) for a in alike] == [
        ("summary.json#2", "run=1.json", True)]
    assert [name for name, _ in _rows(capsys, db)] == ["run=1.json", "summary.json#1"]


def test_postgresql_stores_the_run_once_too(tmp_path, capsys, pg_url):
    """The look-up of a stored measurement matches the columns a local file leaves null (IS NULL, not = NULL)
    and the deletion runs in the store's transaction on PostgreSQL as on SQLite."""
    point = _point(tmp_path, "run=0.json", "summary.json")
    _ingest(capsys, pg_url, tmp_path / "experiment")
    _point(tmp_path, "run=1.json")
    out = _ingest(capsys, pg_url, tmp_path / "experiment")
    assert _rows(capsys, pg_url) == [("run=0.json", TTFT["run=0.json"]), ("run=1.json", TTFT["run=1.json"])]
    assert out[-1].startswith("ingested 2 results (0 new)") and any(x.startswith("replaced 1 result") for x in out)
    (point / "run=1.json").unlink()
    (point / "run=0.json").unlink()
    out = _ingest(capsys, pg_url, tmp_path / "experiment")
    assert f"skipped 2 runs {SKIPPED}" in out
    assert len(show_json(capsys, pg_url)) == 2


def test_an_appended_jsonl_ingested_again_as_it_grows_stores_each_line_once(tmp_path, capsys):
    """A file of runs that grows: SGLang's bench_serving (and `vllm bench serve --append-result`) append each
    run to one JSONL (the real 7-line sample, tests/data/results-samples). Its bytes, and so its content-hash
    run id, change with each line: ingested with 4 lines and again with 7, its first 4 were stored twice (11 rows
    for 7 runs). Each line is stored once, and (s32b) all under the run its first ingest gave the file: its
    first 4 lines are stored before under that run, as a re-ingest's are, its 3 new ones beside them."""
    lines = (SAMPLES / "sglang" / "sglang_2024-12_llama3.3-70b_h200x4_online.jsonl").read_text(encoding="utf-8")
    lines = lines.splitlines(keepends=True)
    out_file = tmp_path / "llama_3_3_70b_online_output.jsonl"
    out_file.write_text("".join(lines[:4]), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    _ingest(capsys, db, out_file)
    out_file.write_text("".join(lines), encoding="utf-8")
    out = _ingest(capsys, db, out_file, "--verbose")
    stored = show_json(capsys, db)
    names = sorted(r["result-filename"] for r in stored)
    assert names == [f"{out_file.name}#{n}" for n in range(1, 8)], names
    assert len({r["run-id"] for r in stored}) == 1  # was two runs: lines 5 to 7 under the grown file's new hash
    assert out == [out[-1]] and out[-1].startswith("ingested 7 results (3 new)"), out
