"""Charts: one PNG and one SVG per (model, precision, hardware, scenario, isl/osl), the same bytes
for the same input, one SVG marker per point."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

DROP = (synth.KEYS[0], 16)


def comparison(**kw) -> C.Comparison:
    pr = synth.pr_run({DROP: {R.OUTPUT_TPUT_PER_GPU: 0.85}}, **kw)
    # a second chart group: another sequence length, with only two baseline runs
    pr += synth.pr_run(isl=8192, concs=(4, 8, 16), keys=synth.KEYS[:1], **kw)
    base = synth.history() + synth.history(runs=2, isl=8192, concs=(4, 8), keys=synth.KEYS[:1])
    return C.compare_records(pr, base)


def markers(svg: str, prefix: str) -> list[str]:
    return re.findall(rf'id="({prefix}-\d+)"', svg)


def test_files_exist_are_non_empty_and_hold_one_marker_per_point(tmp_path):
    comp = comparison()
    written = charts.draw_charts(comp, tmp_path / "plots")
    names = sorted(p.name for p in written)
    assert names == sorted(f"DeepSeek-R1-0528_fp8_b300_fixed-seq-len_{seq}.{fmt}"
                           for seq in ("1024x1024", "8192x1024") for fmt in ("png", "svg"))
    for path in written:
        assert path.stat().st_size > 1000
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in written if p.suffix == ".png")
    svg = (tmp_path / "plots" / "DeepSeek-R1-0528_fp8_b300_fixed-seq-len_1024x1024.svg").read_text()
    pr_points = [pt for pt in comp.heads if pt[R.POINT.index(R.ISL)] == 1024]
    assert len(markers(svg, charts.PR_GID)) == len(pr_points) == 10
    assert len(markers(svg, charts.BASE_GID)) == 10
    svg8k = (tmp_path / "plots" / "DeepSeek-R1-0528_fp8_b300_fixed-seq-len_8192x1024.svg").read_text()
    assert len(markers(svg8k, charts.PR_GID)) == 3 and len(markers(svg8k, charts.BASE_GID)) == 2  # conc 16 is new
    for text in (charts.X_LABEL, charts.Y_LABEL, "PR front", "baseline median front", "regressed"):
        assert text in svg, text
    assert "regressed" not in svg8k


def test_the_same_input_draws_the_same_bytes_in_another_process(tmp_path):
    first = charts.draw_charts(comparison(), tmp_path / "a")
    code = ("import sys; sys.path[:0] = [%r, %r]; import synth, test_charts_files as t; "
            "from sweepgate.results import charts; charts.draw_charts(t.comparison(), %r)") % (
        str(Path(__file__).parent), str(Path(__file__).resolve().parents[2] / "utils"), str(tmp_path / "b"))
    subprocess.run([sys.executable, "-c", code], check=True)
    for path in first:
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name


def test_rehearsal_figures_are_marked(tmp_path):
    (svg,) = [p for p in charts.draw_charts(comparison(rehearsal=True), tmp_path) if p.suffix == ".svg"][:1]
    assert "REHEARSAL" in svg.read_text()  # the title
    assert "baseline median (rehearsal)" in svg.read_text() and "(rehearsal): " in svg.read_text()  # the legend
    (svg,) = [p for p in charts.draw_charts(comparison(), tmp_path / "real") if p.suffix == ".svg"][:1]
    assert "REHEARSAL" not in svg.read_text() and "(rehearsal)" not in svg.read_text()


def test_pareto_front():
    pts = [(10, 100), (20, 90), (15, 80), (30, 50), (5, 120), (30, 40)]
    assert charts.pareto_front(pts) == [(5, 120), (10, 100), (20, 90), (30, 50)]


def test_an_unwritable_plots_folder_is_one_diagnostic(tmp_path):
    import pytest

    from sweepgate.core.errors import SweepgateError

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(SweepgateError) as exc:
        charts.draw_charts(comparison(), blocker / "plots")
    assert "--plots" in exc.value.diagnostics[0].hint


def test_axes_leave_room_past_every_point_and_print_plain_numbers():
    """Review: with the limits pinned at 0 the top and rightmost points sat on the frame (their
    rings and conc labels cut), and an axis in the millions read `1e6` below the ticks."""
    big = {R.INTERACTIVITY: 1000.0}  # interactivity in the 100 000s: matplotlib's offset kicked in
    comp = C.compare_records(synth.pr_run({(k, c): big for k in synth.KEYS for c in synth.CONCS}),
                             synth.history())
    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    ax = fig.axes[0]
    fig.canvas.draw()
    drawn = [item["pr"] for item in items] + [item["base"] for item in items if item["base"]]
    for i, (low, high) in enumerate((ax.get_xlim(), ax.get_ylim())):
        top = max(p[i] for p in drawn)
        assert low == 0 and high >= top * 1.1, (i, high, top)
    assert ax.xaxis.get_offset_text().get_text() == "" and ax.yaxis.get_offset_text().get_text() == ""
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert any("," in t for t in labels) and not any("e" in t for t in labels), labels
    assert charts.tick_label(2500000.0) == "2,500,000" and charts.tick_label(0.25) == "0.25"


def test_a_front_of_one_point_is_neither_drawn_nor_named(tmp_path):
    """When one PR point beats the others on both axes the PR front is that point alone: no line,
    and no legend entry for a line that is not there."""
    key = synth.KEYS[0]
    pr = synth.pr_run({(key, 8): {R.INTERACTIVITY: 10.0, R.OUTPUT_TPUT_PER_GPU: 10.0}}, keys=[key], concs=(4, 8))
    base = synth.history(keys=[key], concs=(4, 8))
    (svg,) = [p for p in charts.draw_charts(C.compare_records(pr, base), tmp_path) if p.suffix == ".svg"]
    text = svg.read_text()
    assert "baseline median front" in text and "PR front" not in text
