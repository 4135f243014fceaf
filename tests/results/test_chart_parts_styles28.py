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


def drawn_parts(tmp_path, monkeypatch, of=None) -> list[tuple[list[dict], object]]:
    """(items, figure) of each chart `draw_charts` draws of ``of`` (``comparison()``), as it draws them."""
    figures, real = [], charts.draw_chart

    def recorded(group, items, *args, **kw):
        fig = real(group, items, *args, **kw)
        figures.append((items, fig))
        return fig

    monkeypatch.setattr(charts, "draw_chart", recorded)
    charts.draw_charts(comparison() if of is None else of, tmp_path, formats=("png",))
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


def crowded() -> C.Comparison:
    """The nine recipes at six concurrencies each, their curves close together (as the new user's mi355x chart)."""
    keys = tuple(f"k-{i}" for i in range(len(RECIPES)))
    concs = (4, 8, 16, 32, 64, 128)
    return C.compare_records(recipes(synth.pr_run(keys=keys, concs=concs)),
                             recipes(synth.history(keys=keys, concs=concs)))


def strays(fig, items: list[dict]) -> list[str]:
    """The point labels nearer another point's marker than their own (edge to box, in pixels) and joined to
    theirs by no leader line: "8 (#bcbd22): 1.9 px from its own, 0.4 from pr-point-12". A label's own markers
    are its point's and those of any point drawn at its spot (within SAME_SPOT); its baseline median's is
    neither its own nor another's (it is the same point's, joined to it)."""
    import numpy as np

    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    scale = fig.dpi / 72
    marks = []  # (gid, item index, centre in pixels, radius in pixels)
    for line in ax.get_lines():
        gid = line.get_gid() or ""
        if line.get_linestyle() == "None" and gid.rsplit("-", 1)[-1].isdigit():
            centre = ax.transData.transform(np.column_stack(line.get_data()))[0]
            marks.append((gid, int(gid.rsplit("-", 1)[1]), centre, line.get_markersize() * scale / 2))
    leaders = {line.get_gid(): ax.transData.transform(line.get_xydata()) for line in ax.get_lines()
               if (line.get_gid() or "").startswith(charts.LEADER_GID)}
    out = []
    for text in ax.texts:
        box = text.get_window_extent(renderer)
        anchor = ax.transData.transform(text.xy)
        (i,) = [n for n, item in enumerate(items) if item["at"] == tuple(text.xy)][:1]

        def gap(centre, radius):
            dx = max(box.x0 - centre[0], 0, centre[0] - box.x1)
            dy = max(box.y0 - centre[1], 0, centre[1] - box.y1)
            return float(np.hypot(dx, dy)) - radius

        same_spot = [abs(centre - anchor).max() <= charts.SAME_SPOT * scale for _, _, centre, _ in marks]
        own = min(gap(c, r) for (g, n, c, r), at in zip(marks, same_spot) if at and not g.startswith(charts.BASE_GID))
        other = [(gap(c, r), g) for (g, n, c, r), at in zip(marks, same_spot) if not at and n != i]
        near, who = min(other, default=(float("inf"), None))
        leader = leaders.get(f"{charts.LEADER_GID}-{i}")
        if leader is not None:  # from its marker's edge to its box
            start, end = leader
            assert np.hypot(*(start - anchor)) <= 8 * scale and gap(end, 0) <= 1, (text.get_text(), leader, box)
        elif near <= own:
            out.append(f"{text.get_text()} ({text.get_color()}): {own:.1f} px from its own, {near:.1f} from {who}")
    return out


def test_a_point_label_is_nearest_its_own_marker_or_joined_to_it(tmp_path, monkeypatch):
    """The new user: an olive "4" sat nearer a neighbouring recipe's marker than its own olive one (its
    box clear of that marker, so the placement took it). A label now goes where it is nearer its own
    marker than any other, else farther out on a thin line to its marker."""
    figures = drawn_parts(tmp_path, monkeypatch, crowded())
    assert len(figures) == 2
    for items, fig in figures:
        assert len(fig.axes[0].texts) >= len(items) * 3 // 4  # most points keep a label
        assert strays(fig, items) == []
