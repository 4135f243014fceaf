"""New-user review s35d: a run whose points main never measured (main ran conc 32, the PR conc 64) read
"(last 5 runs; 0 found)", as if main had no runs at all; it says none of them measured these points."""

from __future__ import annotations

import synth
from sweepgate.results import compare as C
from sweepgate.results import render


def test_a_run_of_only_new_points_says_main_measured_none_of_them_not_that_main_has_no_runs():
    keys = synth.KEYS[:1]
    comparison = C.compare_records(synth.pr_run(keys=keys, concs=(64,)),
                                   synth.history(runs=3, keys=keys, concs=(32,)))
    line = render.summary_line(comparison, "refs/heads/main", 5)
    assert "(last 5 runs; none at these points):" in line and "0 found" not in line, line


def test_a_run_with_measured_points_still_counts_the_runs_found():
    keys = synth.KEYS[:1]
    comparison = C.compare_records(synth.pr_run(keys=keys, concs=(32, 64)),
                                   synth.history(runs=3, keys=keys, concs=(32,)))
    assert "(last 5 runs; 3 found):" in render.summary_line(comparison, "refs/heads/main", 5)
