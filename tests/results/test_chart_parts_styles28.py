"""Charts drawn in parts (charts28, a new user): the parts of one chart are read side by side, so a
recipe keeps its colour, marker and legend label in every part, and two recipes of one chart never
share a colour and marker (while the palette and markers last: len(PALETTE) * len(MARKERS) recipes)."""

from __future__ import annotations

from itertools import combinations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

# Nine recipes on one hardware, so two parts (5 and 4); speculative decoding varies only among the
# first part's, so a label made from one part would drop "no spec decoding" in the second.
RECIPES = [("dsr1-fp8-mi355x-atom", "tp8", "none"), ("dsr1-fp8-mi355x-atom-mtp", "tp8", "mtp"),
           ("dsr1-fp8-mi355x-sglang", "tp8", "none"), ("dsr1-fp8-mi355x-sglang-disagg", "tp4", "none"),
           ("dsr1-fp8-mi355x-sglang-disagg", "tp8", "none"), ("dsr1-fp8-mi355x-trt", "tp4", "none"),
           ("dsr1-fp8-mi355x-trt", "tp8", "none"), ("dsr1-fp8-mi355x-vllm", "tp4", "none"),
           ("dsr1-fp8-mi355x-vllm", "tp8", "none")]


def recipes(records: list[dict]) -> list[dict]:
    """synth's records of key index i made into RECIPES[i] (its key, topology and spec decoding)."""
    for rec in records:
        key, tp, spec = RECIPES[int(rec[R.CONFIG_KEY].rsplit("-", 1)[1])]
        rec[R.CONFIG_KEY], rec[R.TOPOLOGY], rec[R.SPEC_DECODING] = key, f"{tp}-pp1-dcp1-pcp1-ep1-dpafalse", spec
        rec[R.RESULT_FILENAME] += f"-{tp}-{spec}"
    return records


def comparison() -> C.Comparison:
    keys = tuple(f"k-{i}" for i in range(len(RECIPES)))
    return C.compare_records(recipes(synth.pr_run(keys=keys, concs=(4, 16))),
                             recipes(synth.history(keys=keys, concs=(4, 16))))


def drawn_parts(tmp_path, monkeypatch) -> list[tuple[list[dict], object]]:
    """(items, figure) of each chart `draw_charts` draws, as it draws them."""
    figures, real = [], charts.draw_chart

    def recorded(group, items, *args, **kw):
        fig = real(group, items, *args, **kw)
        figures.append((items, fig))
        return fig

    monkeypatch.setattr(charts, "draw_chart", recorded)
    charts.draw_charts(comparison(), tmp_path, formats=("png",))
    return figures


def keys_of(items: list[dict], fig) -> dict[tuple, tuple[str, str, str]]:
    """series -> (colour, marker, legend label), read from the figure: its PR points' colour and marker,
    and the label of the legend entry drawn with that colour and marker."""
    from matplotlib.colors import to_hex

    styles = {}
    for line in fig.axes[0].get_lines():
        gid = line.get_gid() or ""
        if gid.startswith(charts.PR_GID + "-"):
            style = (to_hex(line.get_color()), line.get_marker())
            series = items[int(gid.rsplit("-", 1)[1])]["series"]
            assert styles.setdefault(series, style) == style, series  # one style for all a series' points
    entries = {}
    for handle in fig.legends[0].legend_handles:
        if hasattr(handle, "get_marker") and handle.get_label().strip():
            entries.setdefault((to_hex(handle.get_color()), handle.get_marker()), []).append(handle.get_label())
    return {series: (*style, *entries[style]) for series, style in styles.items()}


def test_a_recipe_has_one_colour_marker_and_label_in_every_part_and_no_two_share_one(tmp_path, monkeypatch):
    """The new user: atom in part 1 and another recipe in part 2 were both purple squares, read as one
    recipe; and "· no spec decoding" followed a recipe's name in part 1 only."""
    parts = drawn_parts(tmp_path, monkeypatch)
    assert len(parts) == 2
    seen: dict[tuple, set] = {}
    for items, fig in parts:
        mine = keys_of(items, fig)
        assert set(mine) == {item["series"] for item in items}
        assert len({colour for colour, _, _ in mine.values()}) == len(mine)  # within a part: a colour each,
        assert len({marker for _, marker, _ in mine.values()}) == len(mine)  # and a marker each (charts24)
        for series, key in mine.items():
            seen.setdefault(series, set()).add(key)
    assert len(seen) == len(RECIPES)
    assert all(len(keys) == 1 for keys in seen.values()), seen  # one colour, marker and label in every part
    keys = {series: next(iter(k)) for series, k in seen.items()}
    labels = [label for _, _, label in keys.values()]  # what tells them apart in the whole chart, in each part
    assert len(set(labels)) == len(labels)
    assert all(label.endswith(" · no spec decoding") or label.endswith(" · spec mtp") for label in labels), labels
    for a, b in combinations(keys, 2):
        assert keys[a][:2] != keys[b][:2], (a, b, keys[a])  # two recipes: never one colour and marker
    whole = [item for items, _ in parts for item in items]  # as planned for the whole chart, whichever part
    assert {s: k[:2] for s, k in keys.items()} == charts.series_styles(whole)
    assert {s: k[2] for s, k in keys.items()} == charts.series_labels(list(keys))


def series(n: int) -> tuple:
    return (f"dsr1-fp8-b300-vllm-v{n:02d}", "tp8", "none", None, None)


def test_the_palette_parts_no_two_recipes_of_a_chart_until_it_runs_out():
    """Planned over the whole chart: up to len(PALETTE) * len(MARKERS) recipes (six parts) each has a
    colour and marker of its own; past that pairs repeat, but within one part colours and markers never do."""
    for count in (7, 13, 20, len(charts.PALETTE) * len(charts.MARKERS), 40):
        items = [{"series": series(n)} for n in range(count)]
        styles = charts.series_styles(items)
        assert set(styles) == {item["series"] for item in items}
        if count <= len(charts.PALETTE) * len(charts.MARKERS):
            assert len(set(styles.values())) == count, count
        for part in charts.chart_parts(items):
            mine = {styles[item["series"]] for item in part}
            assert len({colour for colour, _ in mine}) == len({m for _, m in mine}) == len(mine) == len(part), count
    few = [{"series": series(n)} for n in range(len(charts.PALETTE))]  # one part: as before, a colour's own marker
    assert all(charts.MARKERS.index(m) == charts.PALETTE.index(c) for c, m in charts.series_styles(few).values())
