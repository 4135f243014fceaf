"""A chart says what the PR changed (s49e, new-user walk): the table and the PR comment named a point's recipe change
(``image v0.21.0 → v0.22.0``) beside its verdict, but the Pareto chart of the same points did not, so a chart
attached to a PR, or opened from the artifact, showed a front that moved without saying why. Each series whose
recipe the run changed names the change in its legend entry; one the run did not change reads as before."""

from __future__ import annotations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

CHANGED, KEPT = synth.KEYS
NEW_IMAGE = "vllm/vllm-openai:v0.12.0"


def legend_of(comp: C.Comparison) -> list[str]:
    """The texts of the one chart's legend (both series are of one model, hardware and lengths: one chart)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ((_stem, group, items, part),) = charts.planned(comp)
    fig = charts.draw_chart(group, items, comp.run, part)
    FigureCanvasAgg(fig).draw()
    (legend,) = fig.legends
    return [t.get_text() for t in legend.get_texts() if t.get_text().strip()]


def pr_with_new_image() -> list[dict]:
    """The PR run, CHANGED's points on a new image (its recipe changed), KEPT's as main's."""
    pr = synth.pr_run()
    for rec in pr:
        if rec[R.CONFIG_KEY] == CHANGED:
            rec[R.IMAGE] = NEW_IMAGE
            rec[R.RECIPE_FINGERPRINT] = f"fp-{CHANGED}-{NEW_IMAGE}"
    return pr


def test_the_legend_names_the_recipe_change_of_the_series_the_pr_changed():
    comp = C.compare_records(pr_with_new_image(), synth.history())
    said = {tuple(c.words for c in v.recipe_changes) for v in comp.verdicts if v.point[0] == CHANGED}
    assert said == {("image v0.11.0 \u2192 v0.12.0",)}, said  # what the table says beside each point
    texts = legend_of(comp)
    changed = [t for t in texts if t.startswith(CHANGED) and not t.startswith(KEPT)]
    assert changed == [f"{CHANGED}: image v0.11.0 \u2192 v0.12.0"], texts
    assert KEPT in texts, texts  # the series the PR left as main's: its key alone


def test_a_run_that_changed_no_recipe_keeps_its_legend():
    texts = legend_of(C.compare_records(synth.pr_run(), synth.history()))
    assert CHANGED in texts and KEPT in texts, texts
    assert not any("\u2192" in t for t in texts), texts


def test_a_long_change_takes_the_legend_to_one_column():
    """The change lengthens the entry as a long key does (``legend_columns``): two such entries side by side were
    cut off at the figure's edge, so the legend lays them out one a row."""
    comp = C.compare_records(pr_with_new_image(), synth.history())
    ((_stem, _group, items, _part),) = charts.planned(comp)
    plain = C.compare_records(synth.pr_run(), synth.history())
    ((_s, _g, plain_items, _p),) = charts.planned(plain)
    assert charts.legend_columns(plain_items) == 2
    long_image = "vllm/vllm-openai:nightly-" + "0123456789abcdef" * 3
    pr = pr_with_new_image()
    for rec in pr:
        if rec[R.CONFIG_KEY] == CHANGED:
            rec[R.IMAGE] = long_image
    ((_s, _g, long_items, _p),) = charts.planned(C.compare_records(pr, synth.history()))
    assert charts.legend_columns(long_items) == 1
    assert charts.legend_columns(items) in (1, 2)  # a short change may keep two columns
