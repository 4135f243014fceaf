"""Which main runs make a point's baseline: the last N that measured it, failed jobs taking no
place among them, and one measurement recorded again by `ci reuse` counted once (numbers audit)."""

from __future__ import annotations

import statistics

import pytest

import synth
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import store, store_adapter

KEY, CONC = synth.KEYS[0], 4
METRIC = R.OUTPUT_TPUT_PER_GPU


def main_run(n: int, value: float, day: int, **over) -> dict:
    rec = synth.make(f"main-{n}", KEY, CONC, {**synth.curve(CONC), METRIC: value}, day=day)
    rec.update(over)
    return rec


def baseline_of(tmp_path, records: list[dict], window: int = 5) -> C.Verdict:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    pr = synth.pr_run(keys=(KEY,), concs=(CONC,))
    with store.open_store(url) as st:
        st.add(records + pr)
    head, base, _, _ = store_adapter.from_store(url, "pr-7", C.DEFAULT_BASELINE_REF, window)
    comparison = C.compare_records(head, base, run="pr-7", window=window)
    (verdict,) = [v for v in comparison.verdicts if v.metric == METRIC]
    return verdict


def test_failed_main_jobs_take_no_place_in_the_window(tmp_path):
    """Two newest main runs failed: the baseline is still the last 5 runs that measured the point."""
    values = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1200.0]  # the oldest (1200) is outside the window
    good = [main_run(n, v, day=n + 1) for n, v in enumerate(reversed(values))]
    failed = [main_run(10 + n, 0.0, day=10 + n, **{R.STATUS: "failure", R.METRICS: {}}) for n in range(2)]
    verdict = baseline_of(tmp_path, good + failed)
    assert verdict.n == 5 and verdict.median == pytest.approx(statistics.median(values[:5]))


def test_a_reused_result_recorded_three_times_is_one_baseline_run(tmp_path):
    """`ci reuse` recorded one PR measurement against three main runs: one value, not three runs
    with a spread of zero; the older measurements fill the window."""
    originals = [main_run(n, v, day=n + 1) for n, v in enumerate([1000.0, 1010.0, 990.0, 1005.0])]
    origin = {R.RUN_ID: "pr-1", R.ATTEMPT: 1, R.RESULT_FILENAME: originals[0][R.RESULT_FILENAME]}
    copies = [main_run(20 + n, 900.0, day=10 + n, **{R.REUSED_FROM: origin}) for n in range(3)]
    verdict = baseline_of(tmp_path, originals + copies)
    assert verdict.n == 5
    assert verdict.median == pytest.approx(statistics.median([900.0, 1000.0, 1010.0, 990.0, 1005.0]))
    window = C.baseline_window(originals + copies, 3)
    (runs,) = window.values()
    assert [r[R.RUN_ID] for r in runs] == ["main-22", "main-3", "main-2"]  # the newest copy, then older runs


def test_copies_of_one_point_do_not_widen_every_point_s_history(tmp_path, monkeypatch):
    """Diff review: the copies of all points were added up and every point read that many runs more
    (100 points with one copy each read 106 runs of each)."""
    keys = tuple(f"k{i:02d}" for i in range(20))
    records = [synth.make(f"main-{r}", key, CONC, synth.curve(CONC), day=r + 1) for r in range(8) for key in keys]
    for rec in records[-len(keys):]:  # the newest run of every point is a copy
        rec[R.REUSED_FROM] = {R.RUN_ID: "pr-1", R.ATTEMPT: 1, R.RESULT_FILENAME: rec[R.RESULT_FILENAME]}
    asked = []
    real = store.Store.last_runs_of_points

    def counted(self, ref, points, n=5, **kw):
        asked.append(n)
        return real(self, ref, points, n, **kw)

    monkeypatch.setattr(store.Store, "last_runs_of_points", counted)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(records + synth.pr_run(keys=keys, concs=(CONC,)))
    store_adapter.from_store(url, "pr-7", C.DEFAULT_BASELINE_REF, 5)
    assert max(asked) == 5 + 1 + 1, asked  # one copy per point: one run more, not one per copy in all


def test_a_reused_copy_in_the_run_does_not_date_it_back(tmp_path):
    """Review: a run is judged against the baseline runs before it, and its time was the earliest any
    of its records carried, a `ci reuse` copy's included: a copy keeps the time another run measured
    it, so one copy measured on day 3 made a run of day 28 be judged against main's runs before day 3
    only (2 runs here, not the last 5). A run's time is that of its own measurements, as its span is."""
    values = {1: 1000.0, 2: 1000.0, 4: 1200.0, 5: 1200.0, 6: 1200.0, 7: 1200.0}
    history = [main_run(day, v, day=day) for day, v in values.items()]
    origin = {R.RUN_ID: "pr-1", R.ATTEMPT: 1, R.RESULT_FILENAME: "other"}
    (copy_,) = synth.pr_run(keys=(synth.KEYS[1],), concs=(CONC,))
    copy_.update({R.REUSED_FROM: origin, R.FINISHED: "2026-11-03T12:00:00Z"})
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(history + [copy_] + synth.pr_run(keys=(KEY,), concs=(CONC,)))
    head, base, _, _ = store_adapter.from_store(url, "pr-7", C.DEFAULT_BASELINE_REF, 5)
    comparison = C.compare_records(head, base, run="pr-7", window=5)
    (verdict,) = [v for v in comparison.verdicts if v.metric == METRIC and v.point[0] == KEY]
    assert verdict.n == 5 and verdict.median == pytest.approx(1200.0)
    # a run of copies only: their time (and its run id, which places records of that very time; polish29)
    assert R.run_past(store_adapter.past_of([copy_])) == ("2026-11-03T12:00:00+00:00", copy_[R.RUN_ID])


def test_a_run_of_no_records_has_no_time_and_compares_to_nothing():
    """Review of ffb6a0b: compare_records read the run's time (``past_of``) and an empty run, which it had
    compared to nothing (no verdicts, nothing not measured), raised "min() arg is an empty sequence"."""
    assert C.past_of([]) is None
    comparison = C.compare_records([], synth.history(keys=(KEY,)))
    assert (comparison.verdicts, comparison.not_measured) == ([], [])
