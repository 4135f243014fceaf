"""New user s41l: the headline of `results compare` left out the points main measured and the run did not (the
blockquote under it named them), and the line under it said the headline's counts a second time ("8 points, each
by its worst verdict: 1 regressed, 1 improved, 6 unchanged" under "1 point regressed (5 metrics), 1 point improved
(5 metrics), 6 points unchanged")."""

from __future__ import annotations

import synth
from sweepgate.results import compare as C
from sweepgate.results import render

KEY = synth.KEYS[0]


def trimmed_run() -> C.Comparison:
    """Main measured conc 4-64; the PR run 4-16, conc 4 20 % slower."""
    slow = {(KEY, 4): {"output_tput_per_gpu": 0.8}}
    return C.compare_records(synth.pr_run(slow, keys=(KEY,), concs=(4, 8, 16)), synth.history(keys=(KEY,)))


def test_the_headline_counts_the_points_not_measured():
    comp = trimmed_run()
    counts = "1 point regressed (1 metric), 2 points unchanged, 2 points not measured"
    assert render.summary_line(comp, "refs/heads/main", 5).endswith(f": {counts}")
    heading = render.markdown(comp).splitlines()[1]
    assert heading.startswith("### sweepgate results: ") and heading.endswith(f": {counts}"), heading
    assert render.table_text(comp).splitlines()[-2].endswith(f": {counts}")  # the terminal's summary, its note last


def test_the_counts_are_said_once_where_each_point_has_one_verdict():
    comp = trimmed_run()
    assert render.points_line(comp) is None
    md, text = render.markdown(comp), render.table_text(comp)
    assert "each by its worst verdict" not in md and "each by its worst verdict" not in text


def test_a_point_counted_under_two_verdicts_still_gets_its_line():
    """The headline counts a point under each verdict it has: there the line of points by their worst says how
    many points there are (a regressed metric beside a new one at one point read as two points)."""
    base = synth.history(keys=(KEY,), concs=(4,))
    for rec in base:
        del rec["metrics"]["ttft_p50_ms"]  # main never measured it: the PR's figure is new
    comp = C.compare_records(synth.pr_run({(KEY, 4): {"output_tput_per_gpu": 0.8}}, keys=(KEY,), concs=(4,)), base)
    assert render.points_line(comp) == "1 point, each by its worst verdict: 1 regressed"
