"""Charts (polish26): the rightmost x tick label sat against the figure's right edge (1.6M and 1.5M ended
4.6 pixels from it, 2 pixels of a digit's curve from being cut), and could be clipped. Every tick label now
ends at least a digit's width inside the figure."""

from __future__ import annotations

import io

import matplotlib
import pytest

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

KEYS = synth.KEYS[:1]
DIGIT = 10  # pixels: a digit's width at the ticks' 11 points and the charts' 110 dpi (9.7), rounded up


def chart_ending_at(end: float, concs: tuple[int, ...], tmp_path):
    """The chart of a run whose interactivity is scaled so its x axis ends at ``end``, drawn and written
    as `--plots` writes it (the layout as saved); the PNG is kept in ``tmp_path`` to look at."""
    pr, history = synth.pr_run(keys=KEYS, concs=concs), synth.history(keys=KEYS, concs=concs)
    ((_stem, _group, items, _part),) = charts.planned(C.compare_records(pr, history))
    _low, high = charts.axis_limits([i["at"][0] for i in items] + [i["base"][0] for i in items if i["base"]])
    for rec in pr + history:
        rec[R.METRICS][R.INTERACTIVITY] *= end / high
    comparison = C.compare_records(pr, history)
    ((_stem, group, items, part),) = charts.planned(comparison)
    with matplotlib.rc_context(charts.STYLE):
        fig = charts.draw_chart(group, items, comparison.run, part)
        fig.savefig(tmp_path / "chart.png", metadata=charts.METADATA["png"])
        fig.savefig(io.BytesIO(), format="svg")
    return fig


def shown_ticks(fig) -> list:
    """The tick labels drawn: those with a text inside their axis' limits (as matplotlib draws them: an axis ending
    at 1499999.9999999998 draws its 1.5M tick)."""
    ax = fig.axes[0]
    out = []
    for labels, (low, high), i in ((ax.get_xticklabels(), ax.get_xlim(), 0), (ax.get_yticklabels(), ax.get_ylim(), 1)):
        close = (high - low) * 1e-9
        out += [t for t in labels if t.get_visible() and t.get_text() and low - close <= t.get_position()[i] <= high + close]
    return out


@pytest.mark.parametrize(("end", "concs", "last"), [(1.5e6, (4, 8), "1.5M"), (1.6e6, (4, 64), "1.6M"),
                                                    (1.5e6, (4,), "1.5M")])
def test_no_tick_label_touches_the_figure_s_edge(tmp_path, end, concs, last):
    fig = chart_ending_at(end, concs, tmp_path)
    ax = fig.axes[0]
    assert ax.get_xlim()[1] == pytest.approx(end)
    ticks = shown_ticks(fig)
    rightmost = max((t for t in ticks if t in ax.get_xticklabels()), key=lambda t: t.get_position()[0])
    assert rightmost.get_text() == last and rightmost.get_position()[0] == pytest.approx(end)
    renderer, frame = fig.canvas.get_renderer(), fig.bbox
    for tick in ticks:
        box = tick.get_window_extent(renderer)
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, tick
        assert box.x1 <= frame.x1 - DIGIT, (tick.get_text(), frame.x1 - box.x1)
