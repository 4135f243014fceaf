"""s40d: a pick of the newest that rests on a time written without its zone beside one written with a zone.

Since s39, a time written without its zone (stock vLLM's `date`, AIPerf's start_time/end_time: the benchmark
machine's clock) is stored as written, and it orders among the times stored in UTC by its clock reading
(``record.stored_time``): the one rule by which the store (SQL) and ``results compare`` on files (Python)
place records, kept. But such a time is any moment up to 14 h (``record.ZONE_SPAN``) either side of its
reading: a vLLM output saved at 12:00 in Tokyo (03:00 UTC) orders after a job that finished at 05:30 UTC,
though it came first. `results show` (a point's newest result) and `results compare` (which runs are a
point's baseline, and which came before the compared run) took such a pair's stored order without a word,
so the "newest" main figure could be the older run's. Both now say so, in one warning line naming the two
results and their times, and the sidecar that fixes it; what is stored and how it orders are unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ROW, job, run_cli, vllm_output, write_job

KEY = "dsr1-fp4-b300-vllm"
NAIVE = "2026-01-01T12:00:00"  # vllm_output's date 20260101-120000, as stored


def _ingest(capsys, folder: Path, db: str, run: str, finished: str | None, date: str = "20260101-120000",
            ref: str = "refs/heads/main", conc: int = 4) -> None:
    """Run ``run``'s job of the one point (its output's own, of a rate of its own): its sidecar's times
    (``finished`` with a zone, its start at the hour), else none (the output's own `date`, without its zone)."""
    rate = 400.0 + int(run) % 100
    times = {"started": None, "finished": None} if finished is None else {"finished": finished}
    sidecar = job(run, ref=ref, row={**ROW, "conc": conc}, **times)
    if finished is None:
        del sidecar["job"]["started"], sidecar["job"]["finished"]
    else:
        sidecar["job"]["started"] = finished[:14] + "00:00" + finished[19:]
    name = "out" if conc == 4 else f"out-conc{conc}"
    write_job(folder / run / str(conc), name, vllm_output(conc, output_throughput=rate, date=date), sidecar)
    jsonl = ("--jsonl", str(folder / "main.jsonl")) if ref == "refs/heads/main" else ()
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, *jsonl, str(folder / run / str(conc)))
    assert rc == 0, err


def _show(capsys, db: str, *extra: str) -> tuple[list[dict], list[str]]:
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--json", *extra)
    assert rc == 0, err
    return json.loads(out), err.splitlines()


def _line(db_file: Path, taken: str, how: str, other: str, more: str = "") -> str:
    return (f"sqlite:///{db_file}: warning: {taken} {how} {other}{more}, by their clock readings; a time written "
            "without its zone is any moment up to 14 h either side of its reading, so which came first is not "
            "known; ingest such outputs with their job's sidecar (.job.json, `sweepgate results sidecar`), whose "
            "times carry their zone")


def test_show_says_a_newest_without_a_zone_was_taken_over_a_near_one_with_a_zone(capsys, tmp_path):
    db_file = tmp_path / "r.db"
    db = f"sqlite:///{db_file}"
    _ingest(capsys, tmp_path, db, "1001", "2026-01-01T05:30:00+00:00")
    _ingest(capsys, tmp_path, db, "1002", None)
    for extra in ((), ("--key", KEY), ("--key", "dsr1-*"), ("--ref", "main")):
        (rec,), err = _show(capsys, db, *extra)
        assert (rec["run-id"], rec["finished"]) == ("1002", NAIVE)  # the stored order, as before
        assert err == [_line(db_file, f"run 1002's result 'out' ({NAIVE}, written without its zone)",
                             "was shown as newer than", "run 1001's result 'out' (2026-01-01T05:30:00+00:00)")]


def test_show_says_the_first_point_of_several_and_counts_the_others(capsys, tmp_path):
    db_file = tmp_path / "r.db"
    db = f"sqlite:///{db_file}"
    for conc in (4, 8, 16):
        _ingest(capsys, tmp_path, db, "1001", "2026-01-01T05:30:00+00:00", conc=conc)
        _ingest(capsys, tmp_path, db, "1002", None if conc != 16 else "2026-01-01T12:30:00+00:00", conc=conc)
    assert [r["conc"] for r in _show(capsys, db)[0]] == [4, 8, 16]
    assert _show(capsys, db)[1] == [_line(
        db_file, f"run 1002's result 'out' ({NAIVE}, written without its zone)", "was shown as newer than",
        "run 1001's result 'out' (2026-01-01T05:30:00+00:00)", " (and 1 more point alike)")]


def test_show_says_a_newest_with_a_zone_was_taken_over_a_near_one_without(capsys, tmp_path):
    db_file = tmp_path / "r.db"
    db = f"sqlite:///{db_file}"
    _ingest(capsys, tmp_path, db, "1002", None)
    _ingest(capsys, tmp_path, db, "1001", "2026-01-01T13:00:00+00:00")
    (rec,), err = _show(capsys, db)
    assert rec["run-id"] == "1001"
    assert err == [_line(db_file, "run 1001's result 'out' (2026-01-01T13:00:00+00:00)", "was shown as newer than",
                         f"run 1002's result 'out' ({NAIVE}, written without its zone)")]


def test_show_finds_the_near_one_with_a_zone_below_several_without(capsys, tmp_path):
    """The newest is without a zone, and so is the run after it: the one with a zone below both is the pair."""
    db_file = tmp_path / "r.db"
    db = f"sqlite:///{db_file}"
    _ingest(capsys, tmp_path, db, "1001", "2026-01-01T05:30:00+00:00")
    _ingest(capsys, tmp_path, db, "1003", None, date="20260101-110000")
    _ingest(capsys, tmp_path, db, "1002", None)
    (rec,), err = _show(capsys, db)
    assert rec["run-id"] == "1002"
    assert err == [_line(db_file, f"run 1002's result 'out' ({NAIVE}, written without its zone)",
                         "was shown as newer than", "run 1001's result 'out' (2026-01-01T05:30:00+00:00)")]


@pytest.mark.parametrize("finished", ["2025-12-31T21:59:00+00:00", "2026-01-02T02:01:00+00:00"])
def test_show_says_nothing_of_times_further_apart_than_any_zone_or_all_with_zones(capsys, tmp_path, finished):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    _ingest(capsys, tmp_path, db, "1001", finished)
    _ingest(capsys, tmp_path, db, "1002", None)
    assert _show(capsys, db)[1] == []
    _ingest(capsys, tmp_path, db, "1003", "2026-01-01T11:00:00+00:00")  # near 1002, without a zone
    (rec,), err = _show(capsys, db)
    assert len(err) == (rec["run-id"] == "1002")  # said where 1002 is the newest (1001 is 14 h 01 min later)
    db2 = f"sqlite:///{tmp_path / 'zoned.db'}"
    _ingest(capsys, tmp_path, db2, "1001", finished)
    _ingest(capsys, tmp_path, db2, "1003", "2026-01-01T11:00:00+00:00")
    assert _show(capsys, db2)[1] == []


def test_show_says_so_of_a_postgresql_store_as_of_sqlite(capsys, tmp_path, pg_url):
    """The rows without a zone are found in SQL (no ``+00:00`` at the end, by code point: COLLATE "C")."""
    _ingest(capsys, tmp_path, pg_url, "1001", "2026-01-01T05:30:00+00:00")
    _ingest(capsys, tmp_path, pg_url, "1003", None, date="20260101-110000")
    _ingest(capsys, tmp_path, pg_url, "1002", None)
    (rec,), err = _show(capsys, pg_url)
    assert rec["run-id"] == "1002"
    assert [line.split(": warning: ", 1)[1] for line in err] == [
        _line(tmp_path, f"run 1002's result 'out' ({NAIVE}, written without its zone)", "was shown as newer than",
              "run 1001's result 'out' (2026-01-01T05:30:00+00:00)").split(": warning: ", 1)[1]]


PR = "refs/pull/7/merge"
POINT = "dsr1-fp4-b300-vllm b300 fixed-seq-len 1024/1024 conc 4 tp8"


def _compare(capsys, tmp_path, db: str, run: str, *extra: str) -> tuple[dict, list[str]]:
    """(`results compare --json`'s document, its stderr lines), from the store and from main's JSONL alike."""
    said = []
    for source in (("--db", db), ("--db", db, "--baseline-jsonl", str(tmp_path / "main.jsonl"))):
        rc, out, err = run_cli(capsys, "results", "compare", *source, "--run", run, "--json", *extra)
        assert rc == 0, err
        said.append((json.loads(out), err.splitlines()))
    assert [s[0] for s in said] == [said[0][0]] * 2
    return said[0][0], [line.split(": warning: ", 1)[1] for s in said for line in s[1]]


def _said(taken: str, how: str, other: str) -> str:
    return _line(Path(), taken, how, other).split(": warning: ", 1)[1]


def test_compare_says_a_baseline_window_that_took_a_run_without_a_zone_over_a_near_one_with(capsys, tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    _ingest(capsys, tmp_path, db, "1001", "2026-01-01T05:30:00+00:00")
    _ingest(capsys, tmp_path, db, "1002", None)
    _ingest(capsys, tmp_path, db, "1003", "2026-01-02T06:00:00+00:00")  # 18 h after 1002's reading
    _ingest(capsys, tmp_path, db, "2001", "2026-01-03T12:00:00+00:00", ref=PR)
    doc, err = _compare(capsys, tmp_path, db, "2001", "--window", "2")
    assert err == [_said(f"run 1002's result 'out' ({NAIVE}, written without its zone)",
                         f"was taken into the baseline of {POINT} as newer than",
                         "run 1001's result 'out' (2026-01-01T05:30:00+00:00)")] * 2
    doc, err = _compare(capsys, tmp_path, db, "2001")  # both in the window: no choice rests on their order
    assert err == [], err


def test_compare_says_a_baseline_run_without_a_zone_counted_as_before_a_near_run_with_one(capsys, tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    _ingest(capsys, tmp_path, db, "1001", "2026-01-01T01:30:00+00:00")
    _ingest(capsys, tmp_path, db, "1002", None)
    _ingest(capsys, tmp_path, db, "2001", "2026-01-01T13:00:00+00:00", ref=PR)
    doc, err = _compare(capsys, tmp_path, db, "2001")
    assert err == [_said(f"run 1002's result 'out' ({NAIVE}, written without its zone)",
                         f"was counted in the baseline of {POINT} as before", "run 2001 (2026-01-01T13:00:00+00:00)")
                   ] * 2


def test_compare_says_nothing_of_a_baseline_all_with_zones_or_far_apart(capsys, tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    _ingest(capsys, tmp_path, db, "1001", "2025-12-31T21:00:00+00:00")
    _ingest(capsys, tmp_path, db, "1002", None)
    _ingest(capsys, tmp_path, db, "1003", "2026-01-02T09:00:00+00:00")
    _ingest(capsys, tmp_path, db, "2001", "2026-01-03T13:00:00+00:00", ref=PR)
    for window in ("2", "5"):
        assert _compare(capsys, tmp_path, db, "2001", "--window", window)[1] == []
