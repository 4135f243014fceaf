"""Charts say a cancelled job was cancelled, and a legend names only what is drawn (polish 21)."""

from __future__ import annotations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

KEY = synth.KEYS[0]


def _ended(statuses: dict[int, str]) -> C.Comparison:
    """A PR run of KEY whose job at each conc in ``statuses`` ended so, against main's history."""
    pr = [dict(r, **{R.STATUS: statuses[r[R.CONC]], R.METRICS: {}}) if r[R.CONC] in statuses else r
          for r in synth.pr_run(keys=[KEY])]
    return C.compare_records(pr, synth.history(keys=[KEY]))


def _drawn(comp: C.Comparison):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    (legend,) = fig.legends
    entries = {t.get_text(): h for t, h in zip(legend.get_texts(), legend.legend_handles) if t.get_text().strip()}
    return fig.axes[0], entries


def test_a_cancelled_job_is_labelled_cancelled_and_a_failed_one_failed():
    ax, entries = _drawn(_ended({32: "cancelled"}))
    assert "32 cancelled" in [t.get_text() for t in ax.texts]
    assert "PR job cancelled (at its baseline)" in entries and not any("failed" in e for e in entries)
    ax, entries = _drawn(_ended({32: "cancelled", 8: "failure"}))
    assert {"32 cancelled", "8 failed"} <= {t.get_text() for t in ax.texts}
    assert "PR job failed or cancelled (at its baseline)" in entries
    ax, entries = _drawn(_ended({8: "failure"}))
    assert "8 failed" in [t.get_text() for t in ax.texts] and "PR job failed (at its baseline)" in entries


def test_a_chart_whose_every_pr_job_failed_names_no_dot_or_ring_it_does_not_draw(tmp_path):
    comp = _ended({conc: "cancelled" for conc in synth.CONCS})
    ax, entries = _drawn(comp)
    assert not any(label.startswith("baseline median of") for label in entries), entries
    assert entries[KEY].get_marker() in ("none", "None", "", " "), entries[KEY].get_marker()  # the name, no dot
    assert "PR job cancelled, at its baseline median of main's last 5 runs (refs/heads/main)" in entries and "baseline median front" in entries
    assert not [line for line in ax.get_lines() if (line.get_gid() or "").startswith("pr-point")]
    # a chart with one measured point keeps both
    ax, entries = _drawn(_ended({conc: "cancelled" for conc in synth.CONCS[1:]}))
    assert entries[KEY].get_marker() not in ("none", "None", "", " ")
    assert any(label.startswith("baseline median of") for label in entries), entries
    assert {p.suffix for p in charts.draw_charts(comp, tmp_path)} == {".png", ".svg"}
