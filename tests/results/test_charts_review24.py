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


def test_a_point_too_few_baseline_runs_judge_says_so_beside_it():
    """Against two main runs (three judge), a point 20 % down was drawn unringed, like one within
    noise: only the legend's "2 found" hinted that nothing on the chart was judged."""
    drop = {DROP: {R.OUTPUT_TPUT_PER_GPU: 0.8}}
    keys = synth.KEYS[:1]
    (few,) = texts(C.compare_records(synth.pr_run(drop, keys=keys), synth.history(runs=2, keys=keys)))
    assert {"16 not judged, -19.9% tok/s/GPU", "8 not judged"} <= few, few  # s37h: with its change
    (enough,) = texts(C.compare_records(synth.pr_run(drop, keys=keys), synth.history(runs=5, keys=keys)))
    assert "16 regressed" in enough and not any("not judged" in t for t in enough), enough


def test_a_point_measured_without_interactivity_keeps_its_baseline_on_the_chart():
    """Conc 32 of the PR run had no interactivity (no median TPOT): it was left off with its baseline
    median, so the dashed "baseline median front" ran from 16 straight to 64, not main's front, and
    nothing on the chart said 32 was missing. Now 32 is a cross at its baseline median, labelled with
    the figure it lacks; the terminal still names it as a point whose figure is on no chart."""
    keys = synth.KEYS[:1]
    pr = synth.pr_run(keys=keys)
    (blind,) = [rec for rec in pr if rec[R.CONC] == 32]
    del blind[R.METRICS][R.INTERACTIVITY]
    comparison = C.compare_records(pr, synth.history(keys=keys))
    ((_stem, group, items, part),) = charts.planned(comparison)
    fig = charts.draw_chart(group, items, comparison.run, part)
    ax = fig.axes[0]
    (front,) = [line for line in ax.get_lines() if (line.get_gid() or "").startswith("baseline-front")]
    assert len(front.get_xdata()) == len(synth.CONCS)  # main's five medians, 32 among them
    assert "32 no interactivity" in {t.get_text() for t in ax.texts}
    assert [line for line in ax.get_lines() if (line.get_gid() or "").startswith(charts.NO_FIGURE_GID)]
    assert [pt for pt, _why in charts.off_chart(comparison)] == [C.point_of(blind)]
