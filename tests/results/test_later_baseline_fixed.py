"""A point main measured only after a PR run is judged against main's FIRST `--window` runs of it
after the run, so its verdict stops moving once main has run it that often (review: judged against
main's newest runs, a PR run compared again went new -> insufficient-data (n=2) -> unchanged (n=4)
and would have kept changing with every nightly run).

The PR run is of day 10; main first measured its point on days 12..20, a night apart, at ~1000 tok/s
on days 12..16 and ~1300 on days 17..20: a baseline holding any of the later nights says so."""

from __future__ import annotations

import json
import statistics

import pytest

import synth
from helpers import run_cli
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import store

KEY, CONC = synth.KEYS[0], 4
METRIC = R.OUTPUT_TPUT_PER_GPU
EARLY = {12: 1000.0, 13: 1010.0, 14: 990.0, 15: 1005.0, 16: 995.0}  # main's first 5 nights after the run
LATE = {17: 1300.0, 18: 1310.0, 19: 1290.0, 20: 1305.0}
VALUES = {**EARLY, **LATE}
COMPARED_ON = (14, 16, 20, 25)


def main_night(day: int, value: float | None = None) -> dict:
    return synth.make(f"main-{day}", KEY, CONC, {**synth.curve(CONC), METRIC: VALUES[day] if value is None else value},
                      day=day)


def pr_run() -> list[dict]:
    (rec,) = synth.pr_run(keys=(KEY,), concs=(CONC,))
    rec[R.METRICS][METRIC] = 1000.0
    rec[R.FINISHED] = "2026-11-10T12:00:00Z"
    return [rec]


def nights(day: int) -> list[dict]:
    """Main's runs a compare on ``day`` finds: those of the nights up to it."""
    return [main_night(d) for d in VALUES if d <= day]


def _tput(out: str) -> tuple:
    (tput,) = [p for p in json.loads(out)["points"] if p["metric"] == METRIC]
    return tput["verdict"], tput["baseline"]["median"], tput["baseline"]["n"]


def from_store(capsys, db: str, day: int, main: list[dict]) -> tuple:
    """(verdict, median, n) of the PR run compared on ``day`` against the store, which then holds ``main``."""
    with store.open_store(db) as st:
        st.add(main, keep_stored=True)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--json", "--min-samples", "4")
    assert rc == 0, err
    return _tput(out)


def from_files(capsys, tmp_path, day: int, main: list[dict]) -> tuple:
    """(verdict, median, n) of the PR run compared on ``day`` against a --baseline-jsonl of ``main``."""
    jsonl = tmp_path / f"main-{day}.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in main))
    db = f"sqlite:///{tmp_path / 'pr.db'}"
    with store.open_store(db) as st:
        st.add(pr_run(), keep_stored=True)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--json", "--min-samples", "4",
                           "--baseline-jsonl", str(jsonl))
    assert rc == 0, err
    return _tput(out)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path) -> str:
    db = request.getfixturevalue("pg_url") if request.param == "postgresql" else f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(db) as st:
        st.add(pr_run())
    return db


def test_a_point_main_measured_only_after_the_run_keeps_its_verdict_once_main_ran_it_window_times(
        url, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SWEEPGATE_DB", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    got = {day: from_store(capsys, url, day, nights(day)) for day in COMPARED_ON}
    files = {day: from_files(capsys, tmp_path, day, nights(day)) for day in COMPARED_ON}
    assert got == files  # the store and the files agree, day by day
    verdict, median, n = got[14]
    assert (verdict, n) == (C.INSUFFICIENT, 3) and median == pytest.approx(1000.0)  # days 12..14
    assert got[16] == got[20] == got[25], got
    verdict, median, n = got[25]
    assert n == 5 and median == pytest.approx(statistics.median(EARLY.values())) and verdict == C.UNCHANGED, got


def test_a_copy_among_main_s_first_runs_after_the_run_counts_once(url, tmp_path, capsys, monkeypatch):
    """`ci reuse` recorded night 13's measurement again against night 14 (a copy keeps the time it was
    measured): one value, so the first 5 measurements after the run reach night 17."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SWEEPGATE_DB", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)

    def with_copy(day: int) -> list[dict]:
        out = nights(day)
        for rec in out:
            if rec[R.RUN_ID] == "main-14":
                rec.update({R.METRICS: dict(main_night(13)[R.METRICS]), R.FINISHED: main_night(13)[R.FINISHED],
                            R.REUSED_FROM: {R.RUN_ID: "main-13", R.ATTEMPT: 1,
                                            R.RESULT_FILENAME: rec[R.RESULT_FILENAME]}})
        return out

    got = {day: from_store(capsys, url, day, with_copy(day)) for day in (17, 20, 25)}
    files = {day: from_files(capsys, tmp_path, day, with_copy(day)) for day in (17, 20, 25)}
    assert got == files
    first = [VALUES[d] for d in (12, 13, 15, 16, 17)]
    assert got[17] == got[20] == got[25], got
    assert got[25][1:] == (pytest.approx(statistics.median(first)), 5), got


def test_the_window_of_a_point_measured_only_later_is_its_first_runs_and_every_other_as_before():
    """``compare.baseline_window`` with the run's time: a point with a record from before it keeps its
    last runs (whatever later records it is given), one measured only after it gets its first."""
    past = C.past_of(pr_run())
    later = nights(20)
    other = [synth.make(f"main-{d}", synth.KEYS[1], CONC, synth.curve(CONC), day=d) for d in (5, 6, 12, 13)]
    window = C.baseline_window(later + other, 3, past=past)
    assert [r[R.RUN_ID] for r in window[C.point_of(later[0])]] == ["main-14", "main-13", "main-12"]
    assert [r[R.RUN_ID] for r in window[C.point_of(other[0])]] == ["main-13", "main-12", "main-6"]
    assert C.baseline_window(later + other, 3) == C.baseline_window(later + other, 3, past=None)
    assert [r[R.RUN_ID] for r in C.baseline_window(later, 3)[C.point_of(later[0])]] == ["main-20", "main-19", "main-18"]
