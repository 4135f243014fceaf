"""Chart colours: a series (recipe) has the same colour in every chart and every run, whatever other
series share its chart, and two series of one chart never share one."""

from __future__ import annotations

import re
from itertools import combinations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

LMCACHE = synth.KEYS[1]


def pr_colours(svg: str) -> dict[int, str]:
    """PR marker number -> its fill colour, read from the SVG."""
    groups = re.findall(r'<g id="pr-point-(\d+)">(.*?)</g>\s*</g>', svg, flags=re.S)
    return {int(n): re.search(r"fill: (#[0-9a-f]{6})", body).group(1) for n, body in groups}


def draw(tmp_path, name: str, keys: tuple[str, ...]) -> dict[int, str]:
    comparison = C.compare_records(synth.pr_run(keys=keys), synth.history(keys=keys))
    charts.draw_charts(comparison, tmp_path / name, formats=("svg",))
    (svg,) = (tmp_path / name).glob("*.svg")
    return pr_colours(svg.read_text(encoding="utf-8"))


def test_a_series_keeps_its_colour_when_another_joins_its_chart(tmp_path):
    """Run A charts both config keys (the plain one first), run B the lmcache one alone."""
    both, alone = draw(tmp_path, "a", synth.KEYS), draw(tmp_path, "b", (LMCACHE,))
    n = len(synth.CONCS)
    assert len(both) == 2 * n and len(alone) == n
    assert {both[i] for i in range(n, 2 * n)} == set(alone.values())  # lmcache: one colour in both runs
    assert {both[i] for i in range(n)}.isdisjoint(alone.values())  # the plain key: another


def series(topology: str) -> tuple:
    return (synth.KEYS[0], topology, "none", None, None)


def test_two_series_whose_labels_land_on_one_colour_are_parted():
    items = [{"series": series(f"tp{n}")} for n in range(1, 40)]
    alone = {item["series"]: charts.series_styles([item])[item["series"]] for item in items}
    a, b = next((a, b) for a, b in combinations(alone, 2) if alone[a] == alone[b])  # the same colour alone
    for order in ((a, b), (b, a)):  # whichever comes first in the chart
        styles = charts.series_styles([{"series": s} for s in order])
        assert styles[a] != styles[b]
        first = min((a, b), key=lambda s: " · ".join(map(str, s)))  # the label sorting first keeps its colour
        assert styles[first] == alone[first]
    many = charts.series_styles(items[:len(charts.PALETTE)])
    assert len({colour for colour, _ in many.values()}) == len(charts.PALETTE)  # six series: six colours
    assert R.TOPOLOGY in charts.SERIES


def test_point_labels_are_dark_enough_to_read_on_white():
    """The new-user review: the palette's olive (#bcbd22, 2.0:1 on white) made its conc labels faint.
    Labels keep their series' hue, darkened to LABEL_CONTRAST; markers keep the palette's colour."""
    from matplotlib.colors import to_rgb

    keys = tuple(f"dsr1-fp8-b300-vllm-k{n}" for n in range(len(charts.PALETTE)))
    comparison = C.compare_records(synth.pr_run(keys=keys, concs=(4, 8)), synth.history(keys=keys, concs=(4, 8)))
    inks = set()
    for _stem, group, items, part in charts.planned(comparison):
        fig = charts.draw_chart(group, items, "pr-7", part)
        inks |= {to_rgb(text.get_color()) for text in fig.axes[0].texts}
    assert len(inks) == len(charts.PALETTE), inks  # every colour of the palette labels a series
    assert min(map(charts.contrast, inks)) >= charts.LABEL_CONTRAST
    assert charts.contrast(charts.label_ink("#bcbd22")) >= 3.0 > charts.contrast((0.737, 0.741, 0.133))


def test_the_series_of_a_chart_differ_in_shape_too():
    """Review (charts24): to a colour-blind reader the palette's blue and purple, cyan and pink read as
    one colour; every series drew circles, so two series of one chart could not be told apart. Each
    series of a chart now has its own marker, in the legend as on the plot."""
    keys = tuple(f"dsr1-fp8-b300-vllm-k{n}" for n in range(len(charts.PALETTE)))
    styles = charts.series_styles([{"series": series(f"tp{n}")} for n in range(1, 40)][:len(charts.PALETTE)])
    assert len({marker for _, marker in styles.values()}) == len(charts.PALETTE)
    comparison = C.compare_records(synth.pr_run(keys=keys, concs=(4, 8)), synth.history(keys=keys, concs=(4, 8)))
    ((_stem, group, items, part),) = charts.planned(comparison)
    fig = charts.draw_chart(group, items, "pr-7", part)
    drawn = {line.get_marker() for line in fig.axes[0].get_lines() if (line.get_gid() or "").startswith("pr-point")}
    keyed = {h.get_marker() for h in fig.legends[0].legend_handles if h.get_label() in charts.series_labels(
        list(charts.series_styles(items))).values()}
    assert len(drawn) == len(keyed) == len(charts.PALETTE), (drawn, keyed)


def test_the_plus_marked_colour_reads_on_white():
    """New user s41l: the palette's olive (#bcbd22, 2.0:1 on white) drew the thin plus marker, so a PR point
    sitting on its hollow baseline plus was barely seen. The colour that draws the plus now reaches 3:1 on white
    (WCAG's ratio for graphics) and is none of the palette's other colours nor a verdict's."""
    from matplotlib.colors import to_rgb

    plus = charts.PALETTE[charts.MARKERS.index("P")]
    assert charts.contrast(to_rgb(plus)) >= 3.0, plus
    assert len(set(charts.PALETTE)) == len(charts.PALETTE)
    assert plus not in charts.COLORS.values()
