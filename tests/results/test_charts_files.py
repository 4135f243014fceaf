"""Charts: one PNG and one SVG per (model, precision, hardware, scenario, isl/osl), the same bytes
for the same input, one SVG marker per point."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import labels
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
    # the legend's title: the PR run, and that its points are not compared with main's real runs (s51h)
    assert "(rehearsal); point labels: concurrency; rehearsal: not compared with real runs<" in svg.read_text()
    # Results review: main's real runs read "baseline median (rehearsal)" beside a rehearsed PR run.
    assert "last 5 runs (refs/heads/main)<" in svg.read_text() and "(rehearsal)<" not in svg.read_text().split(
        "baseline median")[1]
    pr = synth.pr_run(rehearsal=True)
    (svg,) = [p for p in charts.draw_charts(C.compare_records(pr, synth.history(rehearsal=True)), tmp_path / "both")
              if p.suffix == ".svg"][:1]
    assert "last 5 runs (refs/heads/main) (rehearsal)<" in svg.read_text()
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
        # from 0, unless the axis spans 100x (the PR's 1000x interactivity here): then a log one
        assert (low == 0) != ((ax.get_xscale(), ax.get_yscale())[i] == "log") and high >= top * 1.1, (i, high, top)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    assert ax.xaxis.get_offset_text().get_text() == "" and ax.yaxis.get_offset_text().get_text() == ""
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert any("," in t for t in labels) and not any("e" in t for t in labels), labels
    assert charts.tick_label(2500.0) == "2,500" and charts.tick_label(0.25) == "0.25"
    assert charts.tick_label(2500000.0) == "2.5M" and charts.tick_label(12000000.0) == "12M"


def test_tick_labels_of_millions_do_not_run_into_each_other():
    """A rehearsal's interactivity runs to millions (its stand-in streams at once): at the chart's
    text size, '9,500,000' and '10,000,000' touched. Neighbouring tick labels are two characters apart."""
    key = synth.KEYS[0]
    runs = synth.pr_run(keys=[key], concs=(112, 128)), synth.history(keys=[key], concs=(112, 128))
    for rec in runs[0] + runs[1]:
        rec[R.METRICS][R.INTERACTIVITY] *= 8.5e5  # 8.8 to 9.9 million: an axis around them, every 500,000
    comp = C.compare_records(*runs)
    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    fig.canvas.draw()
    renderer, ax = fig.canvas.get_renderer(), fig.axes[0]
    low, high = ax.get_xlim()
    shown = [t for t in ax.get_xticklabels() if t.get_text() and low <= t.get_position()[0] <= high]
    assert len(shown) >= 6, [t.get_text() for t in shown]
    spans = sorted((box.x0, box.x1) for box in (t.get_window_extent(renderer) for t in shown))
    char = charts.TEXT_SIZE["xtick.labelsize"] * fig.dpi / 72 * 0.6  # a digit's width in pixels, about
    gaps = [right[0] - left[1] for left, right in zip(spans, spans[1:])]
    assert min(gaps) >= 2 * char, ([t.get_text() for t in shown], gaps)


def test_a_front_of_one_point_is_neither_drawn_nor_named(tmp_path):
    """When one PR point beats the others on both axes the PR front is that point alone: no line,
    and no legend entry for a line that is not there."""
    key = synth.KEYS[0]
    pr = synth.pr_run({(key, 8): {R.INTERACTIVITY: 10.0, R.OUTPUT_TPUT_PER_GPU: 10.0}}, keys=[key], concs=(4, 8))
    base = synth.history(keys=[key], concs=(4, 8))
    (svg,) = [p for p in charts.draw_charts(C.compare_records(pr, base), tmp_path) if p.suffix == ".svg"]
    text = svg.read_text()
    assert "baseline median front" in text and "PR front" not in text


def arms(pr_factor: float = 1.3, base_runs: int = 0) -> C.Comparison:
    """One config key, two KV-offload arms at the same concurrencies (review: the chart drew them as one
    series: one colour, one legend entry, one PR front over both)."""
    key = synth.KEYS[0]

    def arm(records, offload):
        for rec in records:
            rec.update({R.TOPOLOGY: "tp8-pp1-dcp1-pcp1-ep1-dpafalse", R.SPEC_DECODING: "mtp"})
            if offload:
                rec.update({R.KV_OFFLOADING: "dram", R.KV_OFFLOAD_BACKEND: "lmcache"})
                rec[R.METRICS][R.OUTPUT_TPUT_PER_GPU] *= pr_factor
        return records
    pr = arm(synth.pr_run(keys=[key]), False) + arm(synth.pr_run(keys=[key]), True)
    base = arm(synth.history(runs=base_runs, keys=[key]), False) + arm(synth.history(runs=base_runs, keys=[key]), True)
    return C.compare_records(pr, base)


def drawn(comp: C.Comparison):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    return fig.axes[0], items


def test_each_kv_offload_arm_is_its_own_series_with_its_own_front_and_legend_entry():
    ax, items = drawn(arms(base_runs=3))
    (legend,) = ax.figure.legends  # below the plot, never over it
    assert legend.get_title().get_text() == "PR run pr-7; point labels: concurrency"
    runs = [t.get_text() for t in legend.get_texts() if t.get_text().startswith(synth.KEYS[0])]
    assert sorted(runs) == [f"{synth.KEYS[0]} · lmcache (dram)", f"{synth.KEYS[0]} · no KV offload"], runs
    lines = {line.get_gid(): line for line in ax.get_lines() if line.get_gid()}
    for kind in ("pr-front", "baseline-front"):
        fronts = sorted(gid for gid in lines if gid.startswith(kind + "-"))
        assert len(fronts) == 2, (kind, sorted(lines))
        assert lines[fronts[0]].get_color() != lines[fronts[1]].get_color()
    by_series = {}
    for i, item in enumerate(items):
        by_series.setdefault(item["series"], set()).add(lines[f"{charts.PR_GID}-{i}"].get_color())
    assert len(by_series) == 2 and all(len(colors) == 1 for colors in by_series.values())
    assert len({c for colors in by_series.values() for c in colors}) == 2  # one colour per arm
    for n in range(2):  # each PR front runs through its own arm's points only
        front = {tuple(p) for p in lines[f"pr-front-{n}"].get_xydata()}
        owners = {item["series"] for item in items if item["pr"] in front}
        assert len(owners) == 1 and len(front) == 5, (n, owners, front)


def test_conc_labels_never_cover_each_other_or_a_marker():
    """Two arms measuring the same figures put both conc labels at one spot."""
    from matplotlib.transforms import Bbox

    ax, items = drawn(arms(pr_factor=1.0))
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    assert sorted(t.get_text() for t in ax.texts) == sorted(str(item["conc"]) for item in items)
    for i, a in enumerate(boxes):
        assert all(not a.overlaps(b) for b in boxes[i + 1:]), [t.get_text() for t in ax.texts]
        assert Bbox.intersection(a, ax.bbox) is not None and ax.bbox.contains(a.x0, a.y0)
        for item in items:
            x, y = ax.transData.transform(item["pr"])
            assert not a.contains(x, y)


def test_series_labels_name_what_tells_recipes_apart():
    key = "k"
    tp4, tp8 = "tp4-pp1-dcp1-pcp1-ep8-dpatrue", "tp8-pp1-dcp1-pcp1-ep1-dpafalse"
    assert labels.short_topology(tp8) == "tp8" and labels.short_topology(tp4) == "tp4-ep8-dpa"
    assert labels.short_topology(f"p2x({tp4})_d1x({tp8})") == "p2x(tp4-ep8-dpa)_d1x(tp8)"
    assert labels.short_topology("tp8-pp1-dcp1-pcp1-ep16-dpafalse") == "tp8-ep16"
    two = [(key, tp4, None, None, None), (key, tp8, None, None, None)]
    assert list(charts.series_labels(two).values()) == ["k · tp4-ep8-dpa", "k · tp8"]
    assert charts.series_labels([("k", tp8, "mtp", None, None)]) == {("k", tp8, "mtp", None, None): "k"}
    alike = [(key, tp8, None, None, None), (key, tp8, "none", None, None)]  # read alike: raw values
    assert len(set(charts.series_labels(alike).values())) == 2


def test_the_readme_chart_is_what_charts_draw_today(tmp_path):
    """docs/img/compare-chart.png is redrawn whenever the charts change (docs/img/make_compare_chart.py)."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("make_compare_chart", root / "docs" / "img" / "make_compare_chart.py")
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    assert maker.draw(tmp_path / "chart.png") == 0
    assert (tmp_path / "chart.png").read_bytes() == (root / "docs" / "img" / "compare-chart.png").read_bytes(), (
        "run python docs/img/make_compare_chart.py and commit docs/img/compare-chart.png")


def test_an_axis_starts_at_zero_unless_its_values_are_bunched_far_from_it():
    """Review: with two concurrencies a few percent apart, the points sat in one corner of axes
    running from 0; values far from 0 get an axis around them, never narrower than MIN_SPAN of the
    largest, so noise is not magnified (s45e: from 0 only where the smallest is within NEAR_ZERO of 0;
    test_chart_axes_s45e pins the rule by its properties)."""
    assert charts.axis_limits([10.0, 400.0]) == (0.0, 400.0 * charts.HEADROOM)
    low, high = charts.axis_limits([984.0, 1036.0, 1470.0])
    assert 0 < low < 984.0 and high > 1470 and high - low >= charts.MIN_SPAN * 1470
    low, high = charts.axis_limits([1000.0])
    assert low == pytest.approx(1000 - 1000 * charts.MIN_SPAN * (charts.HEADROOM - 0.5))
    assert high == pytest.approx(2000 - low)


def test_hundreds_of_points_label_only_where_a_label_fits_and_always_the_ringed_one():
    """Review: 300 concurrencies piled their labels into an unreadable block."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    key = synth.KEYS[0]
    concs = tuple(range(4, 604, 2))
    comp = C.compare_records(synth.pr_run({(key, 16): {R.OUTPUT_TPUT_PER_GPU: 0.7}}, keys=[key], concs=concs),
                             synth.history(keys=[key], concs=concs))
    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    assert 10 <= len(boxes) < len(concs) and "16 regressed" in {t.get_text() for t in ax.texts}
    for i, a in enumerate(boxes):
        assert not any(a.overlaps(b) for b in boxes[i + 1:]), ax.texts[i].get_text()


def test_each_pr_point_is_joined_to_its_own_baseline_median(tmp_path):
    """Review: a regressed point "16" at (94, 183) could not be matched to its baseline circle at
    (112, 218) among the others, nor the size of its change read. A thin line joins each PR point
    with a baseline to its median: grey, or the ring's colour for a regressed or improved point."""
    from matplotlib.colors import to_hex

    comp = comparison()
    charts.draw_charts(comp, tmp_path)
    svg = (tmp_path / "DeepSeek-R1-0528_fp8_b300_fixed-seq-len_1024x1024.svg").read_text()
    svg8k = (tmp_path / "DeepSeek-R1-0528_fp8_b300_fixed-seq-len_8192x1024.svg").read_text()
    assert len(markers(svg, "baseline-link")) == 10 and len(markers(svg8k, "baseline-link")) == 2  # conc 16 is new
    for group, items in charts.chart_groups(comp).items():
        ax = charts.draw_chart(group, items, comp.run).axes[0]
        links = {line.get_gid(): line for line in ax.get_lines() if str(line.get_gid()).startswith("baseline-link-")}
        for i, item in enumerate(items):
            if not item["base"]:
                assert f"baseline-link-{i}" not in links
                continue
            link = links[f"baseline-link-{i}"]
            assert [tuple(p) for p in link.get_xydata()] == [item["base"], item["pr"]]
            ink = charts.COLORS[item["flag"]] if item["flag"] else charts.LINK_INK
            assert to_hex(link.get_color()) == ink and link.get_linewidth() < 1 and link.get_zorder() < 3
            if item["flag"] == C.REGRESSED:
                assert ink == "#d62728" and item["conc"] == 16


def test_a_new_point_is_marked_and_named_in_the_legend(tmp_path):
    """Review: a point main never measured (verdict new, no baseline circle) looked like an
    unchanged one, and the legend did not name it."""
    comp = comparison()
    new = [pt for pt in comp.heads if not comp.baselines.get(pt)]
    assert [pt[R.POINT.index(R.CONC)] for pt in new] == [16]
    assert {v.verdict for v in comp.verdicts if v.point in new} == {C.NEW}
    charts.draw_charts(comp, tmp_path)
    svg = (tmp_path / "DeepSeek-R1-0528_fp8_b300_fixed-seq-len_1024x1024.svg").read_text()
    svg8k = (tmp_path / "DeepSeek-R1-0528_fp8_b300_fixed-seq-len_8192x1024.svg").read_text()
    assert len(markers(svg8k, "new-point")) == 1 and "new (no baseline)" in svg8k
    assert markers(svg, "new-point") == [] and "new (no baseline)" not in svg
    groups = charts.chart_groups(comp)
    (item,) = [item for items in groups.values() for item in items if item["new"]]
    assert item["point"] in new and item["base"] is None and item["pr"] and not item["flag"]


def test_a_rate_sweep_labels_its_unlimited_point():
    """Review: in a request-rate sweep the unlimited point (the one ringed) had no label."""
    key = synth.KEYS[0]
    pr = synth.pr_run(keys=[key], concs=(4, 8, 16))
    base = synth.history(keys=[key], concs=(4, 8, 16))
    for rec in pr + base:
        rate = {4: 10.0, 8: 30.0, 16: "inf"}[rec[R.CONC]]
        rec[R.CONC], rec[R.REQUEST_RATE] = None, rate
    ax, _ = drawn(C.compare_records(pr, base))
    assert sorted(t.get_text() for t in ax.texts) == ["10/s", "30/s", "∞"]


def test_two_models_of_one_name_from_two_orgs_get_two_charts(tmp_path):
    """Review: meta-llama/Llama-3.2-3B-Instruct and someorg/Llama-3.2-3B-Instruct in one run wrote
    one chart file: the second overwrote the first (which held the regression)."""
    keys = synth.KEYS[:2]
    pr, base = synth.pr_run(keys=keys), synth.history(keys=keys)
    for rec in pr + base:
        rec[R.MODEL] = {keys[0]: "meta-llama/Llama-3.2-3B-Instruct", keys[1]: "someorg/Llama-3.2-3B-Instruct"}[
            rec[R.CONFIG_KEY]]
    written = charts.draw_charts(C.compare_records(pr, base), tmp_path)
    assert sorted(p.name for p in written if p.suffix == ".png") == [
        "meta-llama--Llama-3.2-3B-Instruct_fp8_b300_fixed-seq-len_1024x1024.png",
        "someorg--Llama-3.2-3B-Instruct_fp8_b300_fixed-seq-len_1024x1024.png"]
    one = synth.pr_run(keys=keys[:1])  # alone, a model keeps the short name
    assert [p.name for p in charts.draw_charts(C.compare_records(one, base), tmp_path / "one")][0].startswith(
        "DeepSeek-R1-0528_")


def test_a_failed_job_s_cross_is_drawn_above_any_point_or_ring():
    """Review: the ✖ of a failed tp8 job sat under the ep8 series' ringed point at the same spot."""
    key = synth.KEYS[0]
    pr = synth.pr_run({(key, 16): {R.OUTPUT_TPUT_PER_GPU: 0.7}}, keys=[key])
    pr = [r for r in pr if r[R.CONC] != 8] + [dict(next(r for r in pr if r[R.CONC] == 8), **{
        R.STATUS: "failure", R.METRICS: {}})]
    ax, _ = drawn(C.compare_records(pr, synth.history(keys=[key])))
    lines = [line for line in ax.get_lines() if line.get_gid()]
    (cross,) = [line for line in lines if line.get_gid().startswith("failed-point")]
    assert cross.get_zorder() > max(line.get_zorder() for line in ax.get_lines() if line is not cross)


def test_a_group_of_many_recipes_is_drawn_in_parts_with_the_legend_below_the_plot(tmp_path):
    """Review at scale: 32 recipes on one hardware made one chart whose legend was taller than the
    figure (the plot squashed into a strip) and whose colours each stood for five series."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    keys = tuple(f"dsr1-fp8-b300-vllm-v{i:02d}" for i in range(20))
    comp = C.compare_records(synth.pr_run({(keys[3], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=keys),
                             synth.history(keys=keys))
    planned = charts.planned(comp)
    assert [stem.rsplit("_", 1)[1] for stem, *_ in planned] == [f"part{k}of4" for k in range(1, 5)]
    assert sorted(s for _, _, items, _ in planned for s in {i["series"] for i in items}) == sorted(
        {charts.series_of(pt) for pt in comp.heads})  # every series in exactly one part
    assert charts.with_a_change(planned) == [planned[0][0]]  # variant 03 sorts into the first part
    for stem, group, items, part in planned:
        fig = charts.draw_chart(group, items, comp.run, part)
        FigureCanvasAgg(fig).draw()
        ax = fig.axes[0]
        assert ax.get_legend() is None and len(fig.legends) == 1  # beside the plot, never on it
        assert ax.get_title(loc="left").endswith(f"(part {part[0]} of 4)")
        colours = {c for c, _ in charts.series_styles(items).values()}
        assert len(colours) == len({i["series"] for i in items}) <= charts.MAX_SERIES
        legend_box = fig.legends[0].get_window_extent()
        assert legend_box.y1 <= ax.get_window_extent().y0  # wholly below the axes
    written = charts.draw_charts(comp, tmp_path)
    assert sorted(p.stem for p in written) == sorted(stem for stem, *_ in planned for _ in ("png", "svg"))


def test_the_comment_names_the_charts_with_a_change_and_folds_the_others():
    """Review at scale: 68 file names (each chart as PNG and SVG) in one paragraph, none telling
    which chart held the regression."""
    from sweepgate.results import render

    lines = render.charts_paragraph([("a_part1of2", True), ("a_part2of2", False), ("b", False)])
    text = "\n".join(lines)
    # new-user run: it read "Charts (..., PNG and SVG; 1) were written to"
    assert lines[0].startswith("3 charts (output throughput per GPU against interactivity, PNG and SVG) ")
    (one,) = [x for x in render.charts_paragraph([("a", True)], "plots") if x]
    assert one == ("1 chart (output throughput per GPU against interactivity, PNG and SVG) was written to `plots`, "
                   f"{render.LOCAL}; with a change: `a`")
    assert lines[0].endswith("with a change: `a_part1of2`")
    assert "<details><summary>2 charts without a change</summary>" in text and "`a_part2of2`, `b`" in text
    assert ".png" not in text and render.charts_paragraph([]) == []


def test_a_legend_of_long_multinode_labels_stays_inside_the_figure():
    """Review: two columns of multinode recipe labels ran off both edges of an 8-inch figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    keys = tuple(f"dsr1-fp4-mi355x-sglang-disagg-8k1k-mtp-variant{i:02d}" for i in range(4))  # real keys run so long

    def multinode(recs):
        for rec in recs:
            i = int(rec[R.CONFIG_KEY][-2:])
            rec[R.TOPOLOGY] = f"p{i + 1}x(tp4-pp1-dcp1-pcp1-ep4-dpatrue)_d{5 - i}x(tp8-pp1-dcp1-pcp1-ep8-dpafalse)"
            rec[R.SPEC_DECODING] = "mtp" if i % 2 else "none"  # a part that differs: a longer label
        return recs

    comp = C.compare_records(multinode(synth.pr_run(keys=keys)), multinode(synth.history(keys=keys)))
    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    box, frame = fig.legends[0].get_window_extent(canvas.get_renderer()), fig.bbox
    assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0, (box, frame)


def test_an_interrupt_while_a_chart_is_written_leaves_no_part_of_it(tmp_path, monkeypatch):
    """Bad-input review: Ctrl-C during `results compare --plots` left `.<chart>.png.tmp` files behind."""
    import pytest
    from matplotlib.figure import Figure

    real = Figure.savefig
    calls = []

    def interrupted(self, fname, **kw):
        calls.append(fname)
        if len(calls) == 3:  # the third file: half written, then Ctrl-C
            Path(fname).write_bytes(b"\x89PNG half")
            raise KeyboardInterrupt
        return real(self, fname, **kw)

    monkeypatch.setattr(Figure, "savefig", interrupted)
    with pytest.raises(KeyboardInterrupt):
        charts.draw_charts(comparison(), tmp_path / "plots")
    left = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert len(left) == 2 and not any(name.endswith(".tmp") for name in left), left


def test_an_interrupt_between_the_temporary_file_and_its_writing_leaves_nothing(tmp_path, monkeypatch):
    """New-user run: a Ctrl-C during `results compare --plots` left an empty `.<chart>.png.<x>.tmp`: the
    temporary file was made before the block that removes it (closed and given its mode there)."""
    import os

    import pytest

    real, calls = os.chmod, []

    def interrupted(path, mode, **kw):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(path, mode, **kw)

    monkeypatch.setattr(charts.os, "chmod", interrupted)
    with pytest.raises(KeyboardInterrupt):
        charts.draw_charts(comparison(), tmp_path / "plots")
    left = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert len(left) == 1 and not any(name.endswith(".tmp") for name in left), left


def test_a_point_whose_ttft_alone_regressed_is_ringed_and_its_chart_has_a_change():
    """Results review: a TTFT regression (exit 3) left its chart "without a change" and unringed."""
    comp = C.compare_records(synth.pr_run({DROP: {"ttft_p50_ms": 1.4}}), synth.history())
    assert [(v.point[5], v.metric) for v in comp.verdicts if v.verdict == C.REGRESSED] == [(16, "ttft_p50_ms")]
    planned = charts.planned(comp)
    assert charts.with_a_change(planned) == [planned[0][0]]
    (ringed,) = [item for _, _, items, _ in planned for item in items if item["flag"]]
    assert ringed["flag"] == C.REGRESSED and ringed["conc"] == 16


def test_a_point_the_pr_did_not_measure_is_drawn_at_its_baseline_and_its_chart_has_a_change(tmp_path):
    """Review: a recipe whose PR run skipped conc 32 and 64 lost those baseline points from the chart
    (its baseline front stopped at 16), and the comment listed the chart as "without a change"."""
    key = synth.KEYS[0]
    pr = [r for r in synth.pr_run(keys=[key]) if r[R.CONC] < 32]
    comp = C.compare_records(pr, synth.history(keys=[key]))
    assert {pt[R.POINT.index(R.CONC)] for pt in comp.dropped} == {32, 64}
    planned = charts.planned(comp)
    (stem, group, items, part), = planned
    dropped = [i for i in items if i["flag"] == charts.NOT_MEASURED]
    assert sorted(i["conc"] for i in dropped) == [32, 64] and all(i["pr"] is None and i["base"] for i in dropped)
    assert charts.with_a_change(planned) == [stem]
    charts.draw_charts(comp, tmp_path)
    svg = (tmp_path / f"{stem}.svg").read_text()
    assert len(markers(svg, "not-measured-point")) == 2 and len(markers(svg, charts.BASE_GID)) == 5
    assert "not measured by the PR run (at its baseline)" in svg and "32 not measured" in svg


def test_the_parts_of_one_group_share_their_axes(tmp_path, monkeypatch):
    """Review: parts 1 and 5 of one group had y axes to 15,000 and 21,000, x to 350 and 480."""
    keys = tuple(f"dsr1-fp8-b300-vllm-v{i:02d}" for i in range(12))
    scale = {(k, c): {R.OUTPUT_TPUT_PER_GPU: 1 + i / 4, R.INTERACTIVITY: 1 + i / 5}
             for i, k in enumerate(keys) for c in synth.CONCS}
    comp = C.compare_records(synth.pr_run(scale, keys=keys), synth.history(keys=keys))
    planned = charts.planned(comp)
    assert len(planned) == 2
    limits, real = [], charts.draw_chart

    def recorded(*args, **kw):
        fig = real(*args, **kw)
        limits.append((fig.axes[0].get_xlim(), fig.axes[0].get_ylim()))
        return fig

    monkeypatch.setattr(charts, "draw_chart", recorded)
    charts.draw_charts(comp, tmp_path, formats=("png",))
    assert len(limits) == 2 and len(set(limits)) == 1, limits


def test_the_parts_of_one_group_have_plot_areas_of_one_size(tmp_path, monkeypatch):
    """Review: flipping between `_part1of2` and `_part2of2` the "shared" axes changed size: part 1's
    legend (a regressed, an improved, a failed and a new point) was taller than part 2's."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    keys = tuple(f"dsr1-fp8-b300-vllm-v{i:02d}" for i in range(7))
    pr = synth.pr_run({(keys[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.7}, (keys[1], 16): {R.OUTPUT_TPUT_PER_GPU: 1.4}},
                      keys=keys)
    pr[3] = dict(pr[3], **{R.STATUS: "failure", R.METRICS: {}})  # v00: conc 16 regressed, conc 32 failed
    comp = C.compare_records(pr, [r for r in synth.history(keys=keys) if (r[R.CONFIG_KEY], r[R.CONC]) != (keys[2], 64)])
    planned = charts.planned(comp)
    assert [len({i["series"] for i in items}) for _, _, items, _ in planned] == [4, 3]
    assert {i["flag"] for i in planned[0][2]} > {C.REGRESSED, C.IMPROVED, C.FAILED} and any(
        i["new"] for i in planned[0][2])
    assert not any(i["flag"] or i["new"] for i in planned[1][2])
    boxes, real = [], charts.draw_chart

    def measured(*args, **kw):
        fig = real(*args, **kw)
        FigureCanvasAgg(fig).draw()
        boxes.append((tuple(fig.bbox.size), tuple(fig.axes[0].get_window_extent().extents.round(1))))
        return fig

    monkeypatch.setattr(charts, "draw_chart", measured)
    charts.draw_charts(comp, tmp_path, formats=("png",))
    assert len(boxes) == 2 and boxes[0] == boxes[1], boxes


def test_many_ringed_points_never_overprint_their_labels():
    """Review: 42 regressions among 300 concurrencies printed their labels over each other
    ("273 224"): a ringed point's label was placed even where it covered another."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    key = synth.KEYS[0]
    concs = tuple(range(4, 604, 2))
    scale = {(key, c): {R.OUTPUT_TPUT_PER_GPU: 0.7} for c in concs[::6]}
    comp = C.compare_records(synth.pr_run(scale, keys=[key], concs=concs), synth.history(keys=[key], concs=concs))
    ((group, items),) = charts.chart_groups(comp).items()
    assert sum(i["flag"] == C.REGRESSED for i in items) >= 40
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    for i, a in enumerate(boxes):
        assert not any(a.overlaps(b) for b in boxes[i + 1:]), ax.texts[i].get_text()
    ringed = {str(i["conc"]) for i in items if i["flag"]}
    kept = {t.get_text().removesuffix(" regressed") for t in ax.texts if t.get_text().endswith(" regressed")}
    assert len(ringed & kept) >= 10  # the ringed ones that fit keep their label


def test_a_plots_folder_that_is_a_dangling_link_says_so(tmp_path):
    """Review leftover: `--plots` at a symbolic link to a missing folder said only "File exists"."""
    import pytest

    from sweepgate.core.errors import SweepgateError

    link = tmp_path / "plots"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(SweepgateError) as exc:
        charts.draw_charts(comparison(), link)
    (d,) = exc.value.diagnostics
    assert "symbolic link" in d.message and str(tmp_path / "gone") in d.message, d.message
    assert "File exists" not in d.message


def test_a_plots_folder_under_a_dangling_link_or_a_loop_says_so(tmp_path):
    """Diff review: `--plots gone/sub` under a dangling link still said "File exists", and a
    link to itself read as one to a missing folder."""
    import pytest

    from sweepgate.core.errors import SweepgateError

    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for given, link, said in ((tmp_path / "gone" / "sub", tmp_path / "gone", "which does not exist"),
                              (tmp_path / "loop", tmp_path / "loop", "in a loop")):
        with pytest.raises(SweepgateError) as exc:
            charts.draw_charts(comparison(), given)
        (d,) = exc.value.diagnostics
        assert d.file == str(link) and said in d.message, (d.file, d.message)


def test_a_chart_s_words_are_readable_at_its_own_size(tmp_path, monkeypatch):
    """Leftover: at 880 pixels wide (a PR comment shows it so) the axis labels, ticks, legend, title
    and point labels were 8-9 pt, too small to read. As `results compare --plots` draws them: axis
    labels 12 pt, ticks 11, title 12.5, legend and point labels 10 or more; a title too long for the
    figure (a long model name, a part number) is made smaller to fit it, never cut off."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figures, real = [], charts.draw_chart

    def kept(*args, **kw):
        figures.append(real(*args, **kw))
        return figures[-1]

    monkeypatch.setattr(charts, "draw_chart", kept)
    long_model = [dict(r, **{R.MODEL: "nvidia/Llama-3.3-Nemotron-Super-49B-v1.5-FP8-dynamic-quantized"})
                  for r in synth.pr_run(isl=8192, keys=synth.KEYS[:1])]
    comp = C.compare_records([*synth.pr_run({DROP: {R.OUTPUT_TPUT_PER_GPU: 0.85}}), *long_model],
                             [*synth.history(), *(dict(r, **{R.MODEL: long_model[0][R.MODEL]})
                                                  for r in synth.history(isl=8192, keys=synth.KEYS[:1]))])
    charts.draw_charts(comp, tmp_path, formats=("png",))
    assert len(figures) == 2
    for fig in figures:
        FigureCanvasAgg(fig).draw()
        ax, (legend,) = fig.axes[0], fig.legends
        assert ax.xaxis.label.get_size() >= 12 and ax.yaxis.label.get_size() >= 12
        assert min(t.get_size() for t in ax.get_xticklabels() + ax.get_yticklabels()) >= 11
        assert min(t.get_size() for t in [*legend.get_texts(), legend.get_title()]) >= 10
        assert min(t.get_size() for t in ax.texts) >= 10  # the points' conc labels
        title = ax._left_title  # loc="left"
        assert title.get_size() >= charts.MIN_TEXT_SIZE and title.get_window_extent().x1 <= fig.bbox.x1
    sizes = sorted(fig.axes[0]._left_title.get_size() for fig in figures)
    assert charts.MIN_TEXT_SIZE < sizes[0] < sizes[1] == 12.5  # the long model's title, made smaller to fit


def test_values_spanning_a_hundredfold_get_a_log_axis_and_a_change_stays_visible(tmp_path):
    """Review: a sweep from conc 1 to 4096 drew its low-interactivity points on the axis line, a
    -20 % interactivity change at conc 4096 (0.35 tok/s/user beside 111) less than a pixel long. An axis
    whose values span 10x or more is logarithmic and says so: here both (300x and 25x; s35b: 100x before)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    concs = (1, 16, 256, 4096)
    pr = synth.pr_run({(synth.KEYS[0], 4096): {R.INTERACTIVITY: 0.8}}, keys=synth.KEYS[:1], concs=concs)
    comp = C.compare_records(pr, synth.history(keys=synth.KEYS[:1], concs=concs))
    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert ax.get_xlabel() == charts.X_LABEL + " (log scale)" and ax.get_ylabel() == charts.Y_LABEL + " (log scale)"
    (moved,) = [item for item in items if item["conc"] == 4096]
    (x0, y0), (x1, y1) = ax.transData.transform([moved["pr"], moved["base"]])
    assert abs(x1 - x0) > 10, "the change is drawn as a distance"
    ticks = [t.get_text() for t in ax.xaxis.get_ticklabels() if t.get_text()]
    assert "1" in ticks and "10" in ticks and all(re.fullmatch(r"[\d.,]+M?", t) for t in ticks), ticks  # no 10^x
    assert not charts.is_log_axis([0.0, 5.0, 1000.0]) and not charts.is_log_axis([10.0, 99.0])
    assert charts.is_log_axis([10.0, 100.0])


def test_a_ring_on_the_frame_is_drawn_whole():
    """Review: a PR point whose throughput fell to 0 sat on the x axis, its regression ring cut in
    half by the frame (and the baseline circle of a 0.001 tok/s point likewise)."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import to_rgb

    pr = synth.pr_run({DROP: {R.OUTPUT_TPUT_PER_GPU: 0.0}}, keys=synth.KEYS[:1])
    comp = C.compare_records(pr, synth.history(keys=synth.KEYS[:1]))
    ((group, items),) = charts.chart_groups(comp).items()
    (zero,) = [item for item in items if item["flag"] == C.REGRESSED]
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    assert ax.get_ylim()[0] == 0 and zero["pr"][1] == 0
    x, y = ax.transData.transform(zero["pr"])
    pixels = np.asarray(fig.canvas.buffer_rgba())[:, :, :3] / 255.0
    row = pixels.shape[0] - int(round(y))  # image rows run downward
    below = pixels[row + 4:row + 12, int(x) - 3:int(x) + 4]  # under the frame: the ring's lower arc
    red = np.all(np.abs(below - to_rgb(charts.COLORS[C.REGRESSED])) < 0.15, axis=-1)
    assert red.any(), "the ring's lower half is drawn"
