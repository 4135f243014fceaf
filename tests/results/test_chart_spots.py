"""Points of one series drawn at one spot (a saturated server measures four concurrencies alike) get
one label, ``4–64``, not four labels round one dot with a fifth left out; and a logarithmic axis has
enough labelled ticks, in plain numbers, to be read."""

from __future__ import annotations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R


def drawn(comp: C.Comparison):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    return fig.axes[0]


def alike(concs: tuple, same: set, **kw) -> C.Comparison:
    """One config key at ``concs``; those in ``same`` measure conc 16's figures, in every run."""
    def flatten(records):
        for rec in records:
            if rec[R.CONC] in same:
                rec[R.METRICS] = synth.curve(16)
        return records
    keys = synth.KEYS[:1]
    return C.compare_records(flatten(synth.pr_run(keys=keys, concs=concs, noise=0, **kw)),
                             flatten(synth.history(keys=keys, concs=concs, noise=0)))


def no_overlap(ax) -> None:
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    for i, a in enumerate(boxes):
        assert all(not a.overlaps(b) for b in boxes[i + 1:]), [t.get_text() for t in ax.texts]


def test_points_at_one_spot_share_one_label():
    ax = drawn(alike((4, 8, 16, 64, 128), {4, 8, 16, 64}))
    assert sorted(t.get_text() for t in ax.texts) == ["128", "4\u201364"]
    no_overlap(ax)


def test_points_at_one_spot_that_are_not_neighbours_are_listed():
    ax = drawn(alike((4, 8, 16, 32), {4, 16}))
    assert sorted(t.get_text() for t in ax.texts) == ["32", "4, 16", "8"]
    no_overlap(ax)
