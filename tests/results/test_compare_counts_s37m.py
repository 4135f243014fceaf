"""One rule each for what compare and `results show` both read from a record: its request counts, the
order of its request rate, and whether it names a model."""

from __future__ import annotations

from synth import history, pr_run

from sweepgate.results import compare as C
from sweepgate.results import labels as L
from sweepgate.results import record as R
from sweepgate.results import show


def test_request_counts_whose_total_rounds_to_none_are_no_counts():
    """0.2 completed and 0.2 failed (an averaged output): a total that rounds to 0 requests was a
    ZeroDivisionError traceback in compare; the success rate is judged as a figure alone."""
    base, pr = history(), pr_run()
    for rec in base + pr:
        rec[R.METRICS].update({R.COMPLETED: 320, R.FAILED: 0, R.SUCCESS_RATE: 1.0})
    for rec in pr:
        rec[R.METRICS].update({R.COMPLETED: 0.2, R.FAILED: 0.2, R.SUCCESS_RATE: 0.5})
    rates = [v for v in C.compare_records(pr, base).verdicts if v.metric == R.SUCCESS_RATE]
    assert rates and all(v.verdict == C.REGRESSED for v in rates)


def test_show_orders_a_rate_written_as_text_after_the_numbers_as_compare_does():
    """A request rate the client wrote as text ("fast") was a ValueError traceback in `results show`."""
    recs = [{R.CONFIG_KEY: "k", R.CONC: 4, R.REQUEST_RATE: rate, R.RESULT_FILENAME: f"r{i}"}
            for i, rate in enumerate(["fast", 16, None, 2, "inf"])]
    shown = [rec[R.REQUEST_RATE] for rec in sorted(recs, key=show.sort_key)]
    assert shown == [2, 16, "fast", None, "inf"]
    points = sorted((R.point_values(rec) for rec in recs), key=C.point_sort_key)
    assert [pt[C.RATE_AT] for pt in points] == ["2", "16", "fast", None, None]


def test_an_empty_model_is_no_model_in_show_as_in_compare():
    """An output whose model is "" stood as a blank model cell among named lines in `results show`, where
    compare names its point as having no model."""
    named = {R.MODEL: "org/model", R.RESULT_FILENAME: "a.json", R.STATUS: "success"}
    empty = {R.MODEL: "", R.RESULT_FILENAME: "b.json", R.STATUS: "success"}
    columns, cells = show._columns([named, empty], True)
    at = [field for _, field in columns].index(R.MODEL)
    assert [row[at] for row in cells] == ["org/model", L.NO_KEY_OR_MODEL]
