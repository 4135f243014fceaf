"""The report's New section said every new point was "a config key or recipe this run adds" (s35d): a PR
that runs a concurrency (or a sequence length) main never ran, of a recipe main runs, has a new point of
neither. The sentence names what a new point can be."""

from __future__ import annotations

import synth
from sweepgate.results import compare as C
from sweepgate.results import render

KEY = synth.KEYS[0]


def test_a_new_concurrency_of_a_recipe_main_runs_is_not_called_a_new_config_key_or_recipe():
    pr = synth.pr_run(keys=(KEY,), concs=(8, 16, 64))  # main ran 8 and 16 of the same recipe
    md = render.markdown(C.compare_records(pr, synth.history(keys=(KEY,), concs=(8, 16))))
    assert "#### New (1 point)" in md, md
    assert "a config key or recipe this run adds" not in md, md
    assert ("1 point no main run has measured (a config key, recipe, sequence length or concurrency this run "
            "adds): its figures, not judged.") in md, md
