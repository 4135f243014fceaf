"""s38f: `results compare` output for people.

- The headline counted every verdict, zeros among them: "0 points failed, 0 points regressed, 0 points improved,
  8 points unchanged, 0 points insufficient-data, 0 points new; eval scores: 0 regressed, 2 new" hid its two counts
  among six zeros. It names only the verdicts some point or score has, and says "nothing failed, regressed or
  improved" first when none did.

Synthetic records (tests/results/synth.py) compared as `results compare` compares them.
"""

from __future__ import annotations

import re

import synth
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render


def _headline(pr: list[dict], history: list[dict]) -> str:
    return render.summary_line(C.compare_records(pr, history), C.DEFAULT_BASELINE_REF, C.DEFAULT_WINDOW)


def test_the_headline_of_a_run_where_nothing_changed_says_so_without_zeros():
    line = _headline(synth.pr_run(), synth.history())
    assert line == ("run pr-7 against refs/heads/main (last 5 runs): nothing failed, regressed or improved; "
                    "10 points unchanged"), line


def test_the_headline_counts_only_the_verdicts_some_point_has():
    pr = synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}},
                      keys=(*synth.KEYS, "dsr1-fp8-b300-vllm-new"))
    line = _headline(pr, synth.history())
    assert not re.search(r"\b0 ", line), line
    assert "nothing" not in line, line
    assert line.endswith("(last 5 runs): 1 point regressed (1 metric), 9 points unchanged, 5 points new (30 metrics)")


def test_a_run_without_a_point_or_a_score_says_there_was_nothing_to_compare():
    line = _headline([], synth.history())
    assert line.endswith(": nothing to compare"), line
