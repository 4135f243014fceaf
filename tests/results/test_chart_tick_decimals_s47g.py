"""s47g, a new maintainer's first chart: an interactivity axis from 3.1 to 4.6 tok/s/user read ``3.8``, ``4``,
``4.2`` (each tick written in as few digits as it needs, ``{:g}``), so the one whole number among them looked
like another scale's. The ticks of a linear axis now share one count of decimals: ``3.8``, ``4.0``, ``4.2``."""

from __future__ import annotations

import re

import matplotlib

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

KEYS = synth.KEYS[:1]


def shown(axis, limits: tuple[float, float]) -> list[str]:
    low, high = limits
    close = (high - low) * 1e-9
    return [t.get_text() for t in axis.get_ticklabels()
            if t.get_text() and low - close <= t.get_position()[axis is axis.axes.yaxis] <= high + close]


def decimals(text: str) -> int:
    return len(text.rstrip("M").split(".")[1]) if "." in text else 0


def drawn(scale: float):
    """The chart of a conc 32 and 64 sweep whose interactivity is ``scale`` times synth's (32.7 and 18.9)."""
    pr, history = synth.pr_run(keys=KEYS, concs=(32, 64)), synth.history(keys=KEYS, concs=(32, 64))
    for rec in pr + history:
        rec[R.METRICS][R.INTERACTIVITY] *= scale
    comparison = C.compare_records(pr, history)
    ((_stem, group, items, part),) = charts.planned(comparison)
    with matplotlib.rc_context(charts.STYLE):
        fig = charts.draw_chart(group, items, comparison.run, part)
        fig.canvas.draw()
    return fig.axes[0]


def test_the_ticks_of_a_linear_axis_share_one_count_of_decimals():
    ax = drawn(0.12)  # 2.3 to 3.9 tok/s/user, a linear axis with ticks a fraction apart
    assert ax.get_xscale() == "linear"
    ticks = shown(ax.xaxis, ax.get_xlim())
    whole = [t for t in ticks if re.fullmatch(r"\d+\.0+", t)]
    assert len(ticks) >= 4 and whole, ticks  # a whole number among fractions, written as they are
    assert len({decimals(t) for t in ticks}) == 1, ticks


def test_an_axis_of_whole_numbers_keeps_them_whole():
    ax = drawn(30.0)  # 570 to 980 tok/s/user: ticks 100 or 50 apart
    ticks = shown(ax.xaxis, ax.get_xlim())
    assert ticks and all(decimals(t) == 0 for t in ticks), ticks
    assert charts.tick_label(4.0, decimals=1) == "4.0" and charts.tick_label(1500.0, decimals=0) == "1,500"
    assert charts.tick_label(2.0e6, millions=True, decimals=1) == "2.0M"
    assert charts.tick_label(0.0, millions=True, decimals=1) == "0"  # 0 stays 0 on an axis in millions
    assert charts.tick_label(4.0) == "4"  # without decimals (a log axis' 1, 3, 10), as few digits as it needs
