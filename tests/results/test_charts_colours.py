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
