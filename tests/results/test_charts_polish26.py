"""Charts (polish26): a point measured without the figure a chart plots has a legend entry of its own."""

from __future__ import annotations

import synth
from helpers import drawn, legend_texts
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

KEYS = synth.KEYS[:1]


def lacking(concs: dict[int, str], dropped: tuple[int, ...] = ()) -> C.Comparison:
    """The PR run without conc ``dropped``, and each conc in ``concs`` measured without that metric."""
    pr = [rec for rec in synth.pr_run(keys=KEYS) if rec[R.CONC] not in dropped]
    for rec in pr:
        rec[R.METRICS].pop(concs.get(rec[R.CONC]), None)
    return C.compare_records(pr, synth.history(keys=KEYS))


def test_a_point_measured_without_interactivity_is_not_called_not_measured():
    """Conc 32 was measured (its throughput is in the table) but has no interactivity: its grey cross sat
    under the legend entry "not measured by the PR run", which it was not. Now it is a question mark
    under "no interactivity figure", and a point the run skipped keeps its cross and "not measured"."""
    fig, items = drawn(lacking({32: R.INTERACTIVITY}, dropped=(64,)))
    texts = legend_texts(fig)
    assert "no interactivity figure (at its baseline)" in texts, texts
    assert "not measured by the PR run (at its baseline)" in texts, texts
    assert charts.legend_rows(items) * charts.legend_columns(items) >= len([t for t in texts if t.strip()])
    gids = [line.get_gid() or "" for line in fig.axes[0].get_lines()]
    assert sum(g.startswith(charts.NO_FIGURE_GID) for g in gids) == 1
    assert sum(g.startswith("not-measured-point") for g in gids) == 1
    (key,) = [h for legend in fig.legends for h in legend.legend_handles if h.get_label().startswith("no interactivity")]
    assert key.get_marker() == charts.NO_FIGURE_MARKER  # the chart's mark, not the skipped point's cross


def test_only_points_measured_without_a_figure_name_no_skipped_point():
    fig, _ = drawn(lacking({16: R.INTERACTIVITY, 32: R.OUTPUT_TPUT_PER_GPU}))
    texts = legend_texts(fig)
    assert not [t for t in texts if "not measured" in t], texts
    assert "no interactivity or throughput per GPU figure (at its baseline)" in texts, texts  # one mark, one entry
