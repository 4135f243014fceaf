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


def spread(low: float, high: float) -> C.Comparison:
    """A concurrency sweep from 1 to 256 whose interactivity runs from ``high`` down to ``low``."""
    concs = (1, 2, 4, 8, 16, 32, 64, 128, 256)

    def shape(records):
        for rec in records:
            share = concs.index(rec[R.CONC]) / (len(concs) - 1)
            rec[R.METRICS][R.INTERACTIVITY] = high * (low / high) ** share
            rec[R.METRICS][R.OUTPUT_TPUT_PER_GPU] = 30.0 * rec[R.CONC] ** 0.5
        return records
    keys = synth.KEYS[:1]
    return C.compare_records(shape(synth.pr_run(keys=keys, concs=concs)), shape(synth.history(keys=keys, concs=concs)))


def tick_texts(axis) -> list[str]:
    """The labelled ticks of ``axis`` inside its limits, as drawn, checked not to overlap each other."""
    renderer = axis.figure.canvas.get_renderer()
    low, high = sorted(axis.get_view_interval())
    ticks = [t for t in axis.get_major_ticks() if low <= t.get_loc() <= high and t.label1.get_text()]
    boxes = [t.label1.get_window_extent(renderer) for t in ticks]
    assert all(not a.overlaps(b) for a, b in zip(boxes, boxes[1:])), [t.label1.get_text() for t in ticks]
    return [t.label1.get_text() for t in ticks]


def test_a_log_axis_over_a_small_range_has_ticks_enough_in_plain_numbers():
    """Review: interactivity from 6 to 600 tok/s/user, logarithmic, was labelled 10 and 100 alone."""
    ax = drawn(spread(6.0, 600.0))
    assert ax.get_xscale() == "log"
    assert tick_texts(ax.xaxis) == ["10", "30", "100", "300"]


def test_a_log_axis_over_many_decades_keeps_one_tick_a_decade():
    ax = drawn(spread(0.5, 40000.0))
    assert tick_texts(ax.xaxis) == ["1", "10", "100", "1,000", "10,000"]


def test_the_legend_says_what_the_point_labels_are():
    """Review: a chart seen on its own (a PR comment links it) said "4–64" and "128" and never of what."""
    ax = drawn(alike((4, 8, 16, 64, 128), {4, 8, 16, 64}))
    assert ax.figure.legends[0].get_title().get_text() == "PR run pr-7; point labels: concurrency"

    def item(conc, rate):
        fields = {**dict.fromkeys(R.POINT_IDENTITY), R.CONFIG_KEY: "k", R.CONC: conc, R.REQUEST_RATE: rate}
        return {"series": ("k",), "conc": conc, "point": tuple(fields[n] for n in R.POINT_IDENTITY)}
    assert charts.marks_named([item(1, "10"), item(1, None)]) == "; point labels: request rate"
    assert charts.marks_named([item(1, "10"), item(2, None)]) == "; point labels: request rate and concurrency"
    assert charts.marks_named([item(None, None)]) == ""
