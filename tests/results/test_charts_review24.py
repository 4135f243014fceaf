"""Charts read by a maintainer (review charts24): what a chart says without colour."""

from __future__ import annotations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

DROP, RISE = (synth.KEYS[0], 16), (synth.KEYS[1], 32)


def texts(comparison) -> list[set[str]]:
    """Each chart's point labels."""
    out = []
    for _stem, group, items, part in charts.planned(comparison):
        fig = charts.draw_chart(group, items, comparison.run, part)
        out.append({t.get_text() for t in fig.axes[0].texts})
    return out


def test_a_regressed_or_improved_point_says_so_beside_it():
    """The red and green rings read as one colour to a colour-blind reader (the README chart's conc 16
    and conc 32 looked alike): a ringed point's label names its verdict, as a failed one's does."""
    comparison = C.compare_records(
        synth.pr_run({DROP: {R.OUTPUT_TPUT_PER_GPU: 0.85}, RISE: {R.OUTPUT_TPUT_PER_GPU: 1.15}}), synth.history())
    (labels,) = texts(comparison)
    assert {"16 regressed", "32 improved"} <= labels, labels
    assert "8" in labels and not any(t.startswith("8 ") for t in labels)  # an unchanged point: its mark alone
