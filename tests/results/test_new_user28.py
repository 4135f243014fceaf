"""What a new user (new-user28) met reading a large sweep's PR comment and its terminal report."""

from __future__ import annotations

import synth
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render

KEY = synth.KEYS[0]


def test_a_comment_cut_to_its_limit_counts_unchanged_points_as_its_headline_does():
    """A 300-point sweep whose every point regressed in four metrics read "0 points unchanged" in the
    headline and "Unchanged: 300 points, 593 metrics (too many to list here ...)" at its foot: the
    regressed points' unchanged TTFT and success-rate rows were counted as unchanged points. The cut
    section counts as the headline does, and the other points' unchanged rows apart."""
    pr = synth.pr_run({(KEY, 16): {R.OUTPUT_TPUT_PER_GPU: 0.8, R.INTERACTIVITY: 0.8}}, keys=(KEY,))
    comp = C.compare_records(pr, synth.history(keys=(KEY,)))
    whole = render.markdown(comp)
    lines = render.markdown(comp, limit=len(whole.encode()) // 2).splitlines()
    tally = render.tally(comp.verdicts)[C.UNCHANGED]
    assert f"{tally[0]} points unchanged" in lines[1], lines[1]
    cut = [line for line in lines if line.startswith("Unchanged:")]
    assert cut == [f"Unchanged: {tally[0]} points, {tally[1]} metrics; 4 unchanged metrics of 1 other point "
                   "counted above (too many to list here; see `--json`)."], cut
