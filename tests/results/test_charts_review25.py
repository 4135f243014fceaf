"""Charts read by a maintainer (review charts25): a regression without its x value, the baseline's
run count, and a legend's height."""

from __future__ import annotations

import synth
from helpers import drawn, legend_texts
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

KEYS = synth.KEYS[:1]


def test_a_regressed_point_without_interactivity_still_reads_as_regressed():
    """Conc 32 lost 20 % of its throughput and reported no interactivity: it was drawn as the grey
    "not measured" cross alone, labelled "32 no interactivity", with no red ring and no "regressed" in
    the legend, so the chart hid the regression the table reported. Now the cross is ringed as every
    regressed point is, and its label says both."""
    pr = synth.pr_run({(KEYS[0], 32): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=KEYS)
    (blind,) = [rec for rec in pr if rec[R.CONC] == 32]
    del blind[R.METRICS][R.INTERACTIVITY]
    comparison = C.compare_records(pr, synth.history(keys=KEYS))
    assert {v.verdict for v in comparison.verdicts if v.point == C.point_of(blind)} >= {C.REGRESSED}
    fig, items = drawn(comparison)
    ax = fig.axes[0]
    assert "32 regressed, no interactivity" in {t.get_text() for t in ax.texts}
    (cross,) = [ln for ln in ax.get_lines() if (ln.get_gid() or "").startswith(charts.NO_FIGURE_GID)]
    rings = [ln for ln in ax.get_lines() if (ln.get_gid() or "").startswith(charts.RING_GID)]
    assert [ring.get_markeredgecolor() for ring in rings] == [charts.COLORS[C.REGRESSED]]
    assert (rings[0].get_xdata()[0], rings[0].get_ydata()[0]) == (cross.get_xdata()[0], cross.get_ydata()[0])
    assert C.REGRESSED in legend_texts(fig)
    assert "no interactivity figure (at its baseline)" in legend_texts(fig)  # measured: never "not measured"


def test_the_baseline_legend_entry_says_how_many_runs_each_median_is_of():
    """Main's last 5 runs measured conc 64 in only 3 of them: the legend said "baseline median of main's
    last 5 runs" (the most any point had), though conc 64's median was of 3. It names the range now,
    the one count when every point agrees, and nothing when every point had the whole window."""
    history = synth.history(keys=KEYS)
    thin = [rec for rec in history if not (rec[R.CONC] == 64 and rec[R.RUN_ID] in ("main-0", "main-1"))]
    some = "baseline median of main's last 5 runs (3\u20135 found; refs/heads/main)"
    fig, _ = drawn(C.compare_records(synth.pr_run(keys=KEYS), thin))
    assert some in legend_texts(fig), legend_texts(fig)
    fewer = [rec for rec in thin if rec[R.RUN_ID] != "main-4" or rec[R.CONC] == 64]  # 4 runs, conc 64: 3
    fig, _ = drawn(C.compare_records(synth.pr_run(keys=KEYS), fewer))
    assert "baseline median of main's last 5 runs (3\u20134 found; refs/heads/main)" in legend_texts(fig)
    fig, _ = drawn(C.compare_records(synth.pr_run(keys=KEYS), history))
    assert "baseline median of main's last 5 runs (refs/heads/main)" in legend_texts(fig)


def test_a_point_the_run_did_not_measure_is_not_counted_in_the_legends_range():
    """Review (review25): the PR run left out conc 64, which main's newest run has; the store gives that point
    main's newest run alone, its "not measured" cross drawn there, and the legend said "1–5 found" while every
    point the run measured had main's 5 runs, and the headline said "last 5 runs". Now the legend counts the
    points the run measured, as the headline does."""
    history = synth.history(keys=KEYS)
    newest = max(history, key=lambda rec: rec[R.FINISHED])[R.RUN_ID]
    baseline = [rec for rec in history if rec[R.CONC] != 64 or rec[R.RUN_ID] == newest]  # as the store gives it
    pr = [rec for rec in synth.pr_run(keys=KEYS) if rec[R.CONC] != 64]
    comparison = C.compare_records(pr, baseline)
    assert list(comparison.dropped)
    fig, _ = drawn(comparison)
    assert "baseline median of main's last 5 runs (refs/heads/main)" in legend_texts(fig), legend_texts(fig)


def test_a_baseline_run_without_the_axes_figures_is_not_counted_in_its_median():
    """A main run that measured conc 64 without an interactivity figure is in the point's baseline but
    not in the median drawn: the legend counts the runs the median is of (4 there, 5 elsewhere)."""
    history = synth.history(keys=KEYS)
    (blind,) = [rec for rec in history if rec[R.CONC] == 64 and rec[R.RUN_ID] == "main-0"]
    del blind[R.METRICS][R.INTERACTIVITY]
    fig, _ = drawn(C.compare_records(synth.pr_run(keys=KEYS), history))
    assert "baseline median of main's last 5 runs (4\u20135 found; refs/heads/main)" in legend_texts(fig)


def test_a_chart_with_one_point_has_no_blank_line_in_its_legend():
    """A chart of one point draws no front (a front of one point is no line), yet its legend reserved
    lines for both: a blank row under the legend. So did a chart whose second point lay behind its first
    on both axes (its fronts one point each, as `sweepgate example` draws a disaggregated recipe's)."""
    one = C.compare_records(synth.pr_run(keys=KEYS, concs=(16,)), synth.history(keys=KEYS, concs=(16,)))
    pr, history = synth.pr_run(keys=KEYS, concs=(16, 32)), synth.history(keys=KEYS, concs=(16, 32))
    for rec in pr + history:  # conc 32: less interactivity than conc 16 already, and now less throughput
        if rec[R.CONC] == 32:
            rec[R.METRICS][R.OUTPUT_TPUT_PER_GPU] *= 0.3
    for comparison in (one, C.compare_records(pr, history)):
        fig, items = drawn(comparison)
        assert not [ln for ln in fig.axes[0].get_lines() if "front" in (ln.get_gid() or "")]
        assert charts.legend_rows(items) == 1
        assert [t for t in legend_texts(fig) if not t.strip()] == [], legend_texts(fig)
        assert fig.get_figheight() == 5.0 + charts.LEGEND_ROW


def test_an_axis_reaching_millions_numbers_every_tick_alike():
    """A rehearsal's interactivity ran from 1.1 to 3.2 million on an axis from 0: its ticks read
    ``500,000``, ``1M``, ``1.5M``, two notations on one axis. Every tick but 0 is in millions now. (s45e: such an
    axis hugs its values now; its conc 64 here is drawn at half a million, near enough 0 for the axis to start there.)"""
    pr, history = synth.pr_run(keys=KEYS, concs=(4, 64)), synth.history(keys=KEYS, concs=(4, 64))
    for rec in pr + history:
        rec[R.METRICS][R.INTERACTIVITY] *= 3.5e4 * (0.8 if rec[R.CONC] == 64 else 1)
    fig, _ = drawn(C.compare_records(pr, history))
    fig.canvas.draw()
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    assert ax.get_xscale() == "linear" and low == 0 and high > 3e6
    shown = [t.get_text() for t in ax.get_xticklabels() if low <= t.get_position()[0] <= high]
    assert "0.5M" in shown and all(t == "0" or t.endswith("M") for t in shown), shown
    assert charts.tick_label(500000.0) == "500,000" and charts.tick_label(0.0, millions=True) == "0"


def test_a_log_axis_reaching_millions_keeps_its_small_ticks_plain():
    """On a logarithmic axis from tens to millions the small ticks stay ``100`` and ``1,000``
    (in millions they would read ``0.0001M``)."""
    pr, history = synth.pr_run(keys=KEYS, concs=(4, 64)), synth.history(keys=KEYS, concs=(4, 64))
    for rec in pr + history:
        rec[R.METRICS][R.INTERACTIVITY] *= 3.5e4 if rec[R.CONC] == 4 else 1
    fig, _ = drawn(C.compare_records(pr, history))
    fig.canvas.draw()
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    shown = [t.get_text() for t in ax.get_xticklabels() if t.get_text() and low <= t.get_position()[0] <= high]
    assert ax.get_xscale() == "log" and {"100", "1,000", "1M"} <= set(shown), shown
