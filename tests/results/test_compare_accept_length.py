"""Speculative decoding's acceptance length (tokens a decoding step yields) is judged by `results
compare` where a point has it: a draft that guesses worse is a regression of its own, before (or
without) its TPOT showing it among everything else. Points without it get no such row."""

from __future__ import annotations

import json

import synth
from helpers import run_cli
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import store

KEY = synth.KEYS[0]
MAIN_VALUES = (3.02, 2.98, 3.0, 3.01, 2.99)


def spec_history() -> list[dict]:
    return [synth.make(f"main-{i}", KEY, 8, dict(synth.curve(8), **{R.ACCEPT_LENGTH: a}), day=i + 1)
            for i, a in enumerate(MAIN_VALUES)]


def pr(accept: float | None) -> list[dict]:
    metrics = synth.curve(8) if accept is None else dict(synth.curve(8), **{R.ACCEPT_LENGTH: accept})
    return [synth.make("pr-1", KEY, 8, metrics, ref="refs/pull/1/merge", day=28)]


def verdicts(records_pr: list[dict], base: list[dict]) -> dict[str, C.Verdict]:
    return {v.metric: v for v in C.compare_records(records_pr, base, run="pr-1").verdicts}


def test_a_drop_in_acceptance_length_is_a_regression_and_nothing_else_moved():
    got = verdicts(pr(2.4), spec_history())
    assert got[R.ACCEPT_LENGTH].verdict == C.REGRESSED, got[R.ACCEPT_LENGTH]
    assert round(got[R.ACCEPT_LENGTH].change, 3) == -0.2
    assert {m: v.verdict for m, v in got.items() if m != R.ACCEPT_LENGTH} == dict.fromkeys(synth.PLAIN_METRICS,
                                                                                            C.UNCHANGED)


def test_a_rise_is_an_improvement_and_noise_is_unchanged():
    assert verdicts(pr(3.6), spec_history())[R.ACCEPT_LENGTH].verdict == C.IMPROVED
    assert verdicts(pr(3.03), spec_history())[R.ACCEPT_LENGTH].verdict == C.UNCHANGED


def test_a_point_without_speculative_decoding_has_no_acceptance_row():
    assert R.ACCEPT_LENGTH not in verdicts(pr(None), spec_history())
    assert list(verdicts(pr(None), synth.history())) == list(synth.PLAIN_METRICS)


def test_compare_json_and_fail_on_regression_count_it(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(db) as st:
        st.add(spec_history() + pr(2.4))
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-1", "--json", "--fail-on-regression")
    assert rc == 3, err
    rows = [p for p in json.loads(out)["points"] if p["metric"] == R.ACCEPT_LENGTH]
    assert [(r["verdict"], r["head"], r["baseline"]["n"]) for r in rows] == [("regressed", 2.4, 5)], rows


def test_a_metric_main_never_stored_at_a_point_it_measured_is_insufficient_data_not_new():
    """A store whose main runs predate acceptance length (or any figure their client did not write): the
    PR's spec point is no new point (main measured it 5 times), so its acceptance row is insufficient-data
    with no baseline value; `new` stays for a point no main run has (CONTRACTS section 8)."""
    got = verdicts(pr(3.0), synth.history(keys=(KEY,), concs=(8,)))
    row = got[R.ACCEPT_LENGTH]
    assert (row.verdict, row.n, row.median, row.head) == (C.INSUFFICIENT, 0, None, 3.0), row
    assert {m: v.verdict for m, v in got.items() if m != R.ACCEPT_LENGTH} == dict.fromkeys(synth.PLAIN_METRICS,
                                                                                            C.UNCHANGED)
    added = synth.make("pr-1", "dsr1-fp8-b300-vllm-new", 8, dict(synth.curve(8), **{R.ACCEPT_LENGTH: 3.0}),
                       ref="refs/pull/1/merge", day=28)
    fresh = {v.metric: v.verdict for v in C.compare_records([added], spec_history(), run="pr-1").verdicts}
    assert set(fresh.values()) == {C.NEW}, fresh


def test_a_point_with_one_metric_not_judged_reads_alike_in_the_headline_and_the_points_line():
    """Review: the headline counted such a point "1 point insufficient-data (1 metric)" and "0 points
    unchanged", while the line under it called it "1 unchanged" by its worst verdict. A point is
    unchanged only when every row is, in both lines."""
    from sweepgate.results import render

    comp = C.compare_records(pr(3.0), synth.history(keys=(KEY,), concs=(8,)), run="pr-1")
    assert render.points_line(comp) is None  # the headline's count alone: each point under one verdict (s41o)
    headline = render.summary_line(comp, "main", 5)
    assert "1 point insufficient-data (1 metric)" in headline and "unchanged" not in headline  # no zero count
