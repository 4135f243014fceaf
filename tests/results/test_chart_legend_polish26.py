"""A chart always has its legend (polish26): a legend still a little too wide at its fitted size was
removed and not drawn again, so the chart of a long config key came out with no legend at all."""

from __future__ import annotations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

CONCS = (4, 8, 16)


def chart_of(key: str):
    """A run of ``key`` with conc 4 regressed and conc 16 not measured: a legend of five entries."""
    pr = [rec for rec in synth.pr_run(keys=(key,), concs=CONCS) if rec[R.CONC] != 16]
    pr[0][R.METRICS][R.OUTPUT_TPUT_PER_GPU] *= 0.7
    comparison = C.compare_records(pr, synth.history(keys=(key,), concs=CONCS))
    ((_stem, group, items, part),) = charts.planned(comparison)
    return charts.draw_chart(group, items, comparison.run, part)


def test_every_chart_keeps_its_legend_whatever_its_labels_width():
    """Keys of 105 to 130 characters (here 108 and 127 had none: its fonts' widths decide which)."""
    lost = []
    for n in range(86, 112):
        key = "dsr1-fp8-b300-vllm-" + "x" * n
        fig = chart_of(key)
        texts = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
        if key not in texts:
            lost.append(len(key))
        else:
            fig.canvas.draw()
            (legend,) = fig.legends
            assert legend.get_window_extent().width <= fig.bbox.width, len(key)
    assert not lost, f"charts without their legend, by key length: {lost}"
