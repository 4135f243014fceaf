"""A chart's legend says exactly what was drawn (comment23): what the run is, the baseline's ref and
window on every chart, and each key drawn as what it names."""

from __future__ import annotations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

KEY = synth.KEYS[0]


def drawn(comp: C.Comparison):
    """The one chart of ``comp``: (axes, legend)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    (legend,) = fig.legends
    return fig.axes[0], legend


def texts(legend) -> list[str]:
    return [t.get_text() for t in legend.get_texts() if t.get_text().strip()]


def test_a_chart_of_main_s_own_run_is_not_titled_a_pr_run():
    """Review: `results compare --run` on a run of main drew charts whose legend said "PR run main-4" and
    "PR front": it is named by its ref, and "PR" is said only of a pull request's run."""
    history = synth.history(keys=(KEY,))
    run = [r for r in history if r[R.RUN_ID] == "main-4"]
    comp = C.compare_records(run, [r for r in history if r[R.RUN_ID] != "main-4"], run="main-4")
    _, legend = drawn(comp)
    assert legend.get_title().get_text() == "run main-4 on main; point labels: concurrency"
    assert "this run's front" in texts(legend) and not any("PR" in t for t in texts(legend)), texts(legend)
    _, legend = drawn(C.compare_records(synth.pr_run(keys=(KEY,)), history))
    assert legend.get_title().get_text() == "PR run pr-7; point labels: concurrency"
    assert charts.PR_FRONT in texts(legend)


def test_a_main_run_s_failed_and_dropped_points_are_not_called_the_pr_s():
    history = synth.history(keys=(KEY,))
    run = [dict(r, **{R.STATUS: "failure", R.METRICS: {}}) if r[R.CONC] == 8 else r
           for r in history if r[R.RUN_ID] == "main-4" and r[R.CONC] != 64]
    comp = C.compare_records(run, [r for r in history if r[R.RUN_ID] != "main-4"], run="main-4")
    _, legend = drawn(comp)
    assert {"this run's job failed (at its baseline)", "not measured by this run (at its baseline)"} <= set(texts(legend))


def test_a_chart_whose_every_point_failed_names_the_baseline_its_crosses_stand_at():
    """Review: with every PR job failed no baseline marker shows (each cross stands over its own), and
    the legend, which names main's ref and window on every other chart, said only "(at its baseline)"."""
    pr = [dict(r, **{R.STATUS: "failure", R.METRICS: {}}) for r in synth.pr_run(keys=(KEY,))]
    _, legend = drawn(C.compare_records(pr, synth.history(keys=(KEY,))))
    assert "PR job failed, at its baseline median of main's last 5 runs (refs/heads/main)" in texts(legend), texts(legend)
    _, legend = drawn(C.compare_records(pr[:1] + synth.pr_run(keys=(KEY,))[1:], synth.history(keys=(KEY,))))
    assert {"PR job failed (at its baseline)", "baseline median of main's last 5 runs (refs/heads/main)"} <= set(
        texts(legend)), texts(legend)


def test_the_keys_of_the_fronts_and_medians_look_like_them_on_a_chart_of_several_series():
    """Review: on a chart of two recipes each front is drawn in its series' colour, and the legend's keys
    for "baseline median front", "PR front" and the baseline medians were grey and black, like nothing on
    the chart. Each key now holds one part per series, in the colour and style the chart draws it in."""
    from matplotlib.colors import to_hex
    from matplotlib.lines import Line2D

    ax, legend = drawn(C.compare_records(synth.pr_run({(KEY, 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}), synth.history()))
    keys = [line for line in legend.findobj(Line2D) if line.get_label().strip()]
    for kind, gid in ((charts.BASE_FRONT, "baseline-front-"), (charts.PR_FRONT, "pr-front-")):
        fronts = [line for line in ax.get_lines() if (line.get_gid() or "").startswith(gid)]
        inks = sorted(to_hex(line.get_color()) for line in fronts)
        assert len(set(inks)) == 2 and charts.FRONT_INK[kind] not in inks  # the series' colours, not the grey
        mine = [line for line in keys if line.get_label() == kind]
        assert sorted(to_hex(line.get_color()) for line in mine) == inks, kind
        assert {(line.get_linestyle(), line.get_linewidth()) for line in mine} == {
            (fronts[0].get_linestyle(), fronts[0].get_linewidth())}
    medians = [line for line in ax.get_lines() if (line.get_gid() or "").startswith(charts.BASE_GID)]
    label = "baseline median of main's last 5 runs (refs/heads/main)"
    mine = [line for line in keys if line.get_label() == label]
    assert {to_hex(line.get_markeredgecolor()) for line in mine} == {to_hex(m.get_markeredgecolor()) for m in medians}
    assert len(mine) == 2 and {line.get_markerfacecolor() for line in mine} == {"white"}
