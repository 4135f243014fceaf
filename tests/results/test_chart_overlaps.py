"""A PR run that measures what main measured: its dots lie on their baseline medians and its front on
the baseline front. Both must still show, or "unchanged" reads as "no baseline" while the legend names
a baseline median and a baseline front the reader cannot find (review)."""

from __future__ import annotations

import synth
from matplotlib.colors import to_rgba
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

DOWN = (synth.KEYS[0], 16)


def drawn(comp: C.Comparison):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    return fig.axes[0], items


def as_main(keys=synth.KEYS[:1], scale=None) -> C.Comparison:
    """A PR run measuring main's very figures (no noise), but for the points ``scale`` moves."""
    return C.compare_records(synth.pr_run(scale, noise=0, keys=keys), synth.history(noise=0, keys=keys))


def line(ax, gid: str):
    (found,) = [ln for ln in ax.get_lines() if ln.get_gid() == gid]
    return found


def test_a_baseline_median_under_its_pr_dot_is_a_ring_drawn_above_the_dot():
    ax, items = drawn(as_main())
    assert len(items) == 5 and all(item["pr"] == item["base"] for item in items)
    for i in range(len(items)):
        dot, base = line(ax, f"{charts.PR_GID}-{i}"), line(ax, f"{charts.BASE_GID}-{i}")
        assert base.get_visible() and base.get_zorder() > dot.get_zorder()
        assert base.get_markersize() > dot.get_markersize() + 2 * base.get_markeredgewidth()  # a gap round the dot
        assert to_rgba(base.get_markerfacecolor())[3] == 0  # hollow: the dot shows through it
        assert base.get_xydata().tolist() == dot.get_xydata().tolist()  # round the dot, not off to a side


def test_a_baseline_ring_does_not_read_as_a_verdict_ring():
    """Review (review21): the ring of a baseline under its dot (size 11, in its series' colour) was nearly
    the regressed/improved ring's size (13): in a chart of several series an unchanged point read as ringed,
    changed. It is smaller and thinner than a verdict's ring, which still sits round a changed point."""
    ax, items = drawn(as_main(scale={DOWN: {R.OUTPUT_TPUT_PER_GPU: 0.85}}))
    verdicts = [ln for ln in ax.get_lines() if ln.get_markersize() == charts.VERDICT_RING_SIZE]
    assert len(verdicts) == 1 and verdicts[0].get_markeredgewidth() == charts.VERDICT_RING_EDGE
    rings = [line(ax, f"{charts.BASE_GID}-{i}") for i, item in enumerate(items) if item["pr"] == item["base"]]
    assert rings and all(ring.get_markersize() <= charts.VERDICT_RING_SIZE - 3 for ring in rings)
    assert all(ring.get_markeredgewidth() <= charts.VERDICT_RING_EDGE / 2 for ring in rings)


def test_a_baseline_median_apart_from_its_dot_stays_small_and_below_it():
    """No clutter where the point moved: its baseline is the plain hollow marker, beneath the dots."""
    ax, items = drawn(as_main(scale={DOWN: {R.OUTPUT_TPUT_PER_GPU: 0.85}}))
    moved = [i for i, item in enumerate(items) if item["pr"] != item["base"]]
    assert [items[i]["conc"] for i in moved] == [16]
    for i in range(len(items)):
        dot, base = line(ax, f"{charts.PR_GID}-{i}"), line(ax, f"{charts.BASE_GID}-{i}")
        if i in moved:
            assert base.get_zorder() < dot.get_zorder() and base.get_markersize() == dot.get_markersize()
        else:
            assert base.get_zorder() > dot.get_zorder()


def cores(ln) -> list[tuple[float, str]]:
    """(width, ink) of each stroke a path effect draws along the line (matplotlib keeps them private)."""
    return [(effect._gc["linewidth"], effect._gc["foreground"]) for effect in ln.get_path_effects()
            if "linewidth" in getattr(effect, "_gc", {})]


def test_a_pr_front_on_the_baseline_front_leaves_the_baseline_front_readable():
    """The dashed baseline front is drawn above the solid PR front, wider than it and hollow (a core of
    another ink than the PR front's), so its dashes show on it, in a chart of one colour per series too."""
    ax, _ = drawn(as_main(keys=synth.KEYS))
    for n in range(2):
        base, pr = line(ax, f"baseline-front-{n}"), line(ax, f"pr-front-{n}")
        assert base.get_xydata().tolist() == pr.get_xydata().tolist()  # one on the other
        assert base.get_visible() and base.get_zorder() > pr.get_zorder()
        assert base.get_linestyle() == "--" and pr.get_linestyle() == "-"
        assert base.get_linewidth() > pr.get_linewidth()  # its edges show either side of the PR front
        assert [ink for width, ink in cores(base) if width < pr.get_linewidth()] == ["white"]  # its dashes hollow
        assert base.get_color() == pr.get_color()  # a series' ink: the hollow dashes alone tell them apart


def test_the_legend_draws_each_front_as_the_chart_does():
    ax, _ = drawn(as_main())
    legend = ax.figure.legends[0]
    handles = {text.get_text(): handle for text, handle in zip(legend.get_texts(), legend.legend_handles)}
    for kind, gid in ((charts.BASE_FRONT, "baseline-front-0"), (charts.PR_FRONT, "pr-front-0")):
        drawn_line, handle = line(ax, gid), handles[kind]
        assert handle.get_linestyle() == drawn_line.get_linestyle()
        assert handle.get_linewidth() == drawn_line.get_linewidth()
        assert handle.get_color() == drawn_line.get_color() and cores(handle) == cores(drawn_line)
