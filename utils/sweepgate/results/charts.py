"""Throughput-per-GPU against interactivity charts for a comparison (matplotlib, Agg).

One chart per (model, precision, hardware, scenario, isl/osl). A chart holds one
series per recipe (config key plus record.RECIPE_IDENTITY: a tp4 and a tp8 entry,
a KV-offload arm and its plain twin are two series): each has its own colour (the
same in every chart and run: from its full label, see ``series_styles``) and marker, legend
entry naming what tells it apart, PR front and baseline median front; a group of more series than
one chart holds is drawn in parts (``chart_parts``), its colours, markers and labels planned over the
whole group, so a series reads alike in every part and no two share a colour and marker.
Every PR point and every baseline median point is one marker (with an SVG id a
test can count), a PR point with a baseline is joined to its median by a thin line,
each PR point is labelled with its concurrency (its request rate in a rate sweep,
``point_marks``) where the label covers no other, nearer its own marker than any other or joined to it
by a thin line crossing no other line (``_place_labels``; a context's points too), the figure larger the more
points it draws (``figure_size``), and the PR points that regressed
or improved (in any metric) are ringed, their labels naming the verdict, as a failed, not measured
or not judged point's does (``spot_labels``). Charts are drawn without pyplot and saved with fixed
metadata and SVG hash salt, so the same comparison gives the same bytes.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import statistics
from pathlib import Path

from sweepgate.core import outpaths
from sweepgate.core.errors import fail, os_reason, printable
from sweepgate.results import compare as C
from sweepgate.results import derive
from sweepgate.results import labels as L
from sweepgate.results import record as R
from sweepgate.results import show
from sweepgate.results.figures import fmt_change

X, Y = R.INTERACTIVITY, R.OUTPUT_TPUT_PER_GPU
# The unit of each axis' figure, as `results show` heads its column: the axes' labels and a not judged point's change.
AXIS_UNITS = {metric: header for header, metric in show.COLUMNS if metric in (X, Y)}


def _axis_label(metric: str) -> str:
    """``Output throughput per GPU (tok/s/GPU)``: the metric's words (``show.METRIC_WORDS``) and its unit."""
    words = show.METRIC_WORDS[metric]
    return f"{words[:1].upper()}{words[1:]} ({AXIS_UNITS[metric]})"


X_LABEL, Y_LABEL = _axis_label(X), _axis_label(Y)
GROUP = (R.MODEL, R.PRECISION, R.HARDWARE, R.SCENARIO, R.ISL, R.OSL)
PR_GID, BASE_GID = "pr-point", "baseline-point"
# A PR point's thin line to its baseline median; grey unless ringed, its ink at LINK_ALPHA drawn as #909090 on the
# BACKGROUND: 3.2:1, past WCAG's 3:1 for a graphical object, yet the faintest mark but the grid, lighter than every
# series' colour (the palette's lightest is 3.3:1) and thinner than the fronts. s43c: #9a9a9a at 0.6 was #c2c2c2, 1.8:1.
LINK_GID, LINK_INK, LINK_ALPHA = "baseline-link", "#464646", 0.6
NEW_GID, NEW_LABEL = "new-point", "new (no baseline)"  # a dashed ring round a PR point main never measured
NEW_DASHES = 8
LEADER_GID = "label-leader"  # a thin line from a point's marker to its label, where that stands off from it
RING_GID = "verdict-ring"  # the red or green ring round a regressed or improved point
MARKER_SIZE = 6  # points: a PR point's dot and, where it stands apart, its hollow baseline median marker
# A baseline median whose centre lies under its PR point's dot (unchanged: within half a marker's width)
# would hide beneath it, leaving "unchanged" to read as "no baseline": it is drawn above the dot instead,
# hollow and this large, a ring round it (review). Further off, a crescent of it shows beside the dot
# already: it stays MARKER_SIZE, below the dots, and a chart of points that moved gains no rings.
# Centred on the dot, and smaller and thinner than a verdict's ring (VERDICT_RING_*), so an unchanged point
# does not read as a ringed, changed one in a chart whose baselines take their series' colour.
BASE_RING_SIZE, BASE_RING_EDGE, BASE_RING_ZORDER = 9.5, 1.0, 4.5
VERDICT_RING_SIZE, VERDICT_RING_EDGE = 13, 2  # the red or green ring round a regressed or improved point
FORMATS = ("png", "svg")
# Text sizes (points) for a chart read at its own size, 880 pixels wide, as a PR comment shows it.
TEXT_SIZE = {"font.size": 11, "axes.titlesize": 12.5, "axes.labelsize": 12, "xtick.labelsize": 11,
             "ytick.labelsize": 11, "legend.fontsize": 10.5, "legend.title_fontsize": 10.5}
POINT_LABEL_SIZE = 10  # a point's conc (or rate) beside it
# A chart's size in inches at DPI: its width and its plot's height (each legend line adds LEGEND_ROW), for up to
# ROOMY_POINTS points; a chart of more grows, its area with its points, to MAX_GROWTH times each side at most
# (s44h: 40 points of 5 recipes were drawn at 880x687 pixels, as one point was, their labels crowded onto lines).
FIGURE_SIZE, DPI, ROOMY_POINTS, MAX_GROWTH = (8.0, 5.0), 110, 12, 1.6
# Points of white left and right of the plot and its labels, past the widest (an x axis ending at a tick,
# ``1.5M`` half past the plot's edge): matplotlib's 3 put it 4.6 pixels from the figure's edge (polish26).
SIDE_PAD = 9
LEGEND_ROW = 0.25  # inches of figure height per legend line at legend.fontsize
FIT, MIN_TEXT_SIZE = 0.98, 7  # a legend or title wider than this share of the figure gets smaller, to this at least
# Sizes a legend is drawn at before the last stays (its markers do not shrink with its text, so a fitted
# size can still be a pixel or two wide; review polish26: the second try was removed too, leaving no legend).
LEGEND_TRIES = 3
BACKGROUND = "white"  # the figure's and the plot's: every colour drawn on it is measured against it (``contrast``)
# Every text of a chart drawn as written: a config key or model `a$\\frac{1}{0}$b` is no fraction, and `x$\\undefined$y`
# no ParseFatalException (s42k: a result's strings are a job's, and matplotlib reads `$...$` as mathtext by default).
LITERAL_TEXT = {"text.parse_math": False, "text.usetex": False}
STYLE = {"svg.hashsalt": "sweepgate", "svg.fonttype": "none", **TEXT_SIZE, **LITERAL_TEXT, "axes.grid": True,
         "grid.alpha": 0.3, "axes.spines.top": False, "axes.spines.right": False,
         "figure.facecolor": BACKGROUND, "axes.facecolor": BACKGROUND, "savefig.facecolor": BACKGROUND}
# Six hues, each at least 3:1 on the BACKGROUND (WCAG 2.x's ratio for graphical objects: markers, fronts) and no
# verdict's red or green: blue, purple, teal, brown, pink, dark orange. The last (Okabe-Ito's orange, darkened:
# 3.3:1) draws the thin plus marker, which in the olive it replaced (#bcbd22, 2.0:1) was barely seen on its hollow
# baseline plus (new user s41l). s42c: the cyan (#17becf, 2.2:1) is a darker teal and the pink (#e377c2, 2.7:1) a
# deeper one; the purple, lighter and bluer (#9467bd), now stands apart from the blue to a protanope too (5.7 to 19
# CIELAB units apart in a simulation; every pair is 11 or more to a protanope or deuteranope, over 30 to normal vision).
PALETTE = ("#1f77b4", "#9e6fe0", "#00838f", "#8c564b", "#d4559e", "#c77c00")
# A point label's ink on the plot's BACKGROUND reaches at least this contrast (WCAG's ratio for large text):
# a palette colour at the edge of it as a marker gets a darker shade as text.
LABEL_CONTRAST = 3.0
ONE_SERIES_INK = "#222222"  # a point label's ink on a chart of one series
# A chart none of whose points has a baseline (recipes the baseline never measured) draws the nearest recipe the
# baseline did measure (``contexts``), thin, dotted and grey, as context: never compared, and so named in the legend
# (``context_label``); with none such, its title says there is no baseline to compare (``no_baseline_words``).
CONTEXT_GID, CONTEXT_INK = "context-recipe", "#8c8c8c"  # 3.4:1 on the BACKGROUND: faint, still seen
# A context's points are labelled with their concurrency too, in its ink, where it has at most CONTEXT_LABELS
# (s44h: main's eight grey dots beside a new recipe's labelled ones said nothing of where each was measured).
CONTEXT_LABEL_GID, CONTEXT_LABELS = "context-label", 12
NOT_MEASURED = C.NOT_MEASURED  # a point the baseline's newest run has and the PR run did not measure
# A point the PR run measured without a figure the axes show (no interactivity): also drawn at its baseline,
# marked NOT_MEASURED with its ``missing`` figure, but as a question mark under a legend entry of its own
# (review polish26: its grey cross sat under "not measured", which it was not).
NO_FIGURE_MARKER, NO_FIGURE_GID = "$?$", "no-figure-point"
COLORS = {C.REGRESSED: "#d62728", C.IMPROVED: "#2ca02c", C.FAILED: "#d62728", "baseline": "#7f7f7f",
          NOT_MEASURED: "#444444", C.NEW: "#444444"}
METADATA = {"png": {"Software": "sweepgate"}, "svg": {"Date": None, "Creator": "sweepgate"}}
# Each colour's own marker, so the series of a chart differ in shape too (review: blue and purple, cyan
# and pink read as one to a colour-blind reader, before s42c's hues); past len(PALETTE) series, a colour takes
# another marker.
MARKERS = ("o", "s", "^", "D", "v", "P")
# A chart holds at most this many series, each in its own colour; a group with more is drawn as
# parts ("part 2 of 4"), series in their labels' order (a sweep of 32 recipes on one hardware
# made a legend taller than the figure and one colour stand for five series).
MAX_SERIES = len(PALETTE)
LONG_LABEL = 48  # characters of a series label past which the legend takes one column
# Characters of a line of a legend entry that names a recipe change (``legend_labels``), past which the change goes on
# the next line: two of InferenceX's images (``rocm/atom:rocm7.2.3_ubuntu24.04_py3.12_pytorch_release_2.10.0_…``) on one
# line ran past both edges of the figure at the smallest font (s50d)
LEGEND_WRAP = 80
SERIES = (R.CONFIG_KEY, *R.RECIPE_IDENTITY)  # one recipe: one colour, legend entry and pair of fronts
BASE_FRONT, PR_FRONT = "baseline median front", "PR front"
FRONT_GID = {BASE_FRONT: "baseline-front", PR_FRONT: "pr-front"}
FRONT_INK = {BASE_FRONT: COLORS["baseline"], PR_FRONT: "#333333"}  # a chart of one series; else its colour
FRONT_STYLE = {BASE_FRONT: (0, (1.5, 0.75)), PR_FRONT: "-"}  # dash and gap, in line widths
# The baseline front is hollow dashes (its ink's edges round a white core) drawn above the solid PR front:
# where the PR front runs on it (nothing moved) the line reads hollow, solid, hollow, in one colour too
# (review: drawn alike and below, the dashed baseline front vanished under the PR front, though the
# legend named it). Widths in points: the whole line's, and its white core's (0: solid).
FRONT_WIDTH = {BASE_FRONT: 3.8, PR_FRONT: 2.0}
FRONT_CORE = {BASE_FRONT: 1.4, PR_FRONT: 0.0}
FRONT_ZORDER = {BASE_FRONT: 2.2, PR_FRONT: 2.0}
BASELINE = (C.DEFAULT_BASELINE_REF, C.DEFAULT_WINDOW)  # (ref, window) of a chart's baseline medians
# Where a conc label may sit beside its point (offset in points, alignment), tried in this order.
LABEL_SPOTS = ((5, 4, "left", "bottom"), (5, -4, "left", "top"), (-5, 4, "right", "bottom"),
               (-5, -4, "right", "top"), (0, 7, "center", "bottom"), (0, -7, "center", "top"),
               (6, 0, "left", "center"), (-6, 0, "right", "center"))
# Where no spot beside a point leaves its label nearest its own marker: the spots this many times as
# far out, the label joined to its marker by a thin line (LEADER_GID) this wide, in the label's ink.
LEADER_REACH, LEADER_WIDTH = (2.2, 3.2, 4.5, 6.5, 9.0), 0.7
# Where a label joined by a leader may sit, besides LABEL_SPOTS: between them, steeper and flatter (s44h: a point
# inside a bundle of fronts found no free spot on the eight rays its leader could take without crossing a line).
LEADER_SPOTS = LABEL_SPOTS + ((2, 6, "left", "bottom"), (2, -6, "left", "top"), (-2, 6, "right", "bottom"),
                              (-2, -6, "right", "top"), (6, 2, "left", "bottom"), (6, -2, "left", "top"),
                              (-6, 2, "right", "bottom"), (-6, -2, "right", "top"))


def series_of(point: tuple) -> tuple:
    """A point's series: its config key and recipe identity (SERIES), read from the point tuple."""
    fields = dict(zip(R.POINT_IDENTITY, point))
    return tuple(fields.get(name) for name in SERIES)


def _describe(series: tuple) -> tuple[str, ...]:
    """A series as words: config key, then its recipe as every table names it (``labels.recipe_parts``)."""
    f = dict(zip(SERIES, series))
    return (L.NO_CONFIG_KEY if f[R.CONFIG_KEY] is None else str(f[R.CONFIG_KEY]), *L.recipe_parts(f))


def series_labels(series: list[tuple]) -> dict[tuple, str]:
    """What tells each series of one chart apart: its config key, then each recipe part that differs
    between the chart's series (``kimik2.5-int4-mi355x-vllm · tp8 · lmcache (dram)``)."""
    words = [_describe(s) for s in series]
    differ = [i for i in range(len(SERIES) - 1) if i == 0 or len({w[i] for w in words}) > 1]
    labels = {s: " · ".join(w[i] for i in differ) for s, w in zip(series, words)}
    if len(set(labels.values())) < len(labels):  # two recipes that read alike: every raw value
        labels = {s: " · ".join(str(v) for v in s) for s in series}
    return labels


def legend_labels(items: list[dict]) -> dict[tuple, str]:
    """Each series' legend entry: its label (``series_labels``), then the recipe change the run made to it, as the
    table says it beside its points (``dsr1-fp8-b300-vllm: image v0.11.0 → v0.12.0``; s49e: the chart of a PR
    that changed the image drew the moved front without saying why). ``items``: the whole group's, every part's."""
    series = list(dict.fromkeys(item["series"] for item in items))
    labels = series_labels(series)
    for s in series:
        said = dict.fromkeys(change for item in items if item["series"] == s for change in item.get("changes", ()))
        if said:
            labels[s] = _broken(printable(labels[s] + ": " + "; ".join(said)))
    return labels


def _broken(entry: str) -> str:
    """A legend entry over lines of at most LEGEND_WRAP characters, at its blanks where it has them (an image's
    tag longer than a line is broken within), each line after the first indented under the series' name; ``_legend``
    makes each line an entry of its own, with no marker, so the legend's rows are ``legend_rows``' lines."""
    import textwrap

    if len(entry) <= LEGEND_WRAP:
        return entry
    return "\n".join(textwrap.wrap(entry, LEGEND_WRAP, subsequent_indent="  ", break_on_hyphens=False))


def _hue(name: str) -> int:
    """A stable PALETTE index for a series' full label (sha256: Python's hash() differs per process)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") % len(PALETTE)


def label_ink(colour: str) -> tuple[float, float, float]:
    """``colour`` for text on the BACKGROUND: darkened step by step until it reaches LABEL_CONTRAST."""
    from matplotlib.colors import to_rgb

    rgb = to_rgb(colour)
    while contrast(rgb) < LABEL_CONTRAST:
        rgb = tuple(c * 0.9 for c in rgb)
    return rgb


def _luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0-1 channels)."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(rgb: tuple[float, float, float], background: str = BACKGROUND) -> float:
    """WCAG 2 contrast ratio of an sRGB colour (0-1 channels) against ``background`` (the charts')."""
    from matplotlib.colors import to_rgb

    dark, light = sorted((_luminance(rgb), _luminance(to_rgb(background))))
    return (light + 0.05) / (dark + 0.05)


def series_styles(items: list[dict]) -> dict[tuple, tuple[str, str]]:
    """series -> (colour, marker) over one whole chart (``items``: all its group's, every part of it),
    in the order the series first appear. A series' colour depends on its full label alone (config key
    and whole recipe identity, the raw values), so one recipe has one colour in every chart and every
    run; two series of a chart that land on one colour are parted, in their labels' order, the later
    taking the next free colour. Each colour has its own marker (``MARKERS``), so no two series of a
    chart share a shape either. A chart drawn in parts (``chart_parts``) is styled as one before it is
    split (charts28: its parts drew atom and another recipe as one purple square, read as one recipe):
    each part's series differ in colour and in marker, and a part whose colours an earlier part used
    shifts its markers (colour i takes MARKERS[i + shift]) by the least shift giving it no colour and
    marker the chart has, so no two series of the chart share both while len(MARKERS) parts last."""
    names = {s: " · ".join(str(v) for v in s) for s in dict.fromkeys(item["series"] for item in items)}
    taken, styles = set(), {}  # (colour, marker) indexes the chart has
    for part in chart_parts(items):
        colours: dict[tuple, int] = {}
        for s in sorted(dict.fromkeys(item["series"] for item in part), key=names.get):
            hue = _hue(names[s])
            colours[s] = next(c for c in ((hue + k) % len(PALETTE) for k in range(len(PALETTE)))
                              if c not in colours.values())  # a part holds at most len(PALETTE) series

        def pairs(shift: int) -> set[tuple[int, int]]:
            return {(c, (c + shift) % len(MARKERS)) for c in colours.values()}

        shift = min(range(len(MARKERS)), key=lambda k: len(pairs(k) & taken))  # none, while the markers last
        taken |= pairs(shift)
        styles.update({s: (PALETTE[c], MARKERS[(c + shift) % len(MARKERS)]) for s, c in colours.items()})
    return {s: styles[s] for s in names}


def pareto_front(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The points no other point beats on both axes (higher is better on both), by x."""
    front, best_y = [], float("-inf")
    for x, y in sorted(set(points), key=lambda p: (-p[0], -p[1])):
        if y > best_y:
            front.append((x, y))
            best_y = y
    return sorted(front)


def _xy(metrics: dict) -> tuple[float, float] | None:
    x, y = derive.float_figure(metrics, X), derive.float_figure(metrics, Y)
    return None if x is None or y is None else (x, y)


def _measured(records: list[dict]) -> list[tuple[float, float]]:
    """The (x, y) of each record that has both figures: what a baseline median is the median of."""
    return [p for p in (_xy(r.get(R.METRICS) or {}) for r in records) if p]


def _median_xy(records: list[dict]) -> tuple[float, float] | None:
    pairs = _measured(records)
    if not pairs:
        return None
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def _flags(comparison: C.Comparison) -> dict[tuple, str]:
    """point -> regressed | improved (regressed wins), from every metric's verdict: a point whose
    TTFT regressed is ringed too, though the axes do not show TTFT (the table says which metric)."""
    out: dict[tuple, str] = {}
    for v in comparison.verdicts:
        if v.verdict in (C.REGRESSED, C.IMPROVED):
            out[v.point] = C.REGRESSED if C.REGRESSED in (v.verdict, out.get(v.point)) else v.verdict
    return out


def _by_client(v: C.Verdict) -> bool:
    """Whether ``v`` was measured with another client than its baseline's (``C.not_comparable``)."""
    return bool(v.client)


def _stand_in(v: C.Verdict) -> bool:
    """Whether ``v`` is of a rehearsal against real runs, or the other way round (``C.rehearsal_apart``)."""
    return v.verdict == C.NOT_COMPARED


def _no_figure(head: dict) -> str:
    """Which figure the axes show a measured point lacks, as its label says it."""
    return "no throughput per GPU" if derive.figure(head.get(R.METRICS) or {}, Y) is None else "no interactivity"


def _unjudged(comparison: C.Comparison) -> dict[tuple, str | None]:
    """The points whose throughput or interactivity (what the axes show) has a baseline too small to judge ->
    how far it moved, as its label says it (``_moved``)."""
    found: dict[tuple, list[C.Verdict]] = {}
    for v in comparison.verdicts:
        if v.metric in (X, Y) and v.verdict in (C.INSUFFICIENT, C.NOT_COMPARED):
            found.setdefault(v.point, []).append(v)
    return {pt: _moved(verdicts) for pt, verdicts in found.items()}


def _moved(verdicts: list[C.Verdict]) -> str | None:
    """The change of a point too few baseline runs judged (``verdicts``: its axes' figures'), where one is past
    its threshold, with its unit: its throughput per GPU's (``-11.7% tok/s/GPU``), else its interactivity's;
    None where neither is (s37h: a -11.7 % drop and a +0.4 % wobble were both labelled ``not judged``, alike)."""
    past = {v.metric: v for v in verdicts if v.change is not None and abs(v.change) > v.threshold}
    v = past.get(Y) or past.get(X)
    return None if v is None else f"{fmt_change(v.change, v.threshold)} {AXIS_UNITS[v.metric]}"


def chart_groups(comparison: C.Comparison) -> dict[tuple, list[dict]]:
    """group -> [{point, series, conc, pr: (x, y) | None, runs, base: (x, y) | None, at, flag, new, unjudged,
    moved, rehearsal, base-rehearsal}], sorted; ``runs``: how many baseline runs ``base`` is the median of; ``new``:
    main has no run of the point (its verdicts are C.NEW); ``unjudged``: too few baseline runs to judge
    what the axes show (``_unjudged``), so an unringed point may still have moved, ``moved`` saying how far
    where that is past its threshold. A point
    whose PR job failed has no ``pr``: it is drawn ``at`` its baseline median, marked failed (a
    failed point with no baseline has nowhere to be drawn; the table names it); so is a point the
    baseline's newest run has and the PR run did not measure, marked NOT_MEASURED, and one the PR run
    measured without a figure the axes show, marked NOT_MEASURED with ``missing`` naming the figure
    (review: it was left off with its baseline median, and the baseline front skipped main's point).
    ``verdict``: regressed | improved (``_flags``), also for such a point, which is ringed beside its cross
    (review charts25: a throughput drop without an interactivity figure read as a plain "not measured").
    ``ref``: the ref all the run's results are stored under (None when they name several). ``changes``: the
    point's recipe change against main's newest run, in the table's words (``C.recipe_changes``), for the legend."""
    flags, groups, unjudged = _flags(comparison), {}, _unjudged(comparison)
    apart, stand_in = ({v.point for v in comparison.verdicts if test(v)} for test in (_by_client, _stand_in))
    changes = {v.point: tuple(c.words for c in v.recipe_changes) for v in comparison.verdicts if v.recipe_changes}
    refs = {head.get(R.REF) for head in comparison.heads.values()}
    ref = refs.pop() if len(refs) == 1 else None  # what the run is: a PR's, main's (``run_words``)
    for pt in sorted(comparison.heads, key=C.point_sort_key):
        head = comparison.heads[pt]
        base = comparison.baselines.get(pt, [])
        failed, base_xy = C.job_failed(head), _median_xy(base)
        pr = None if failed else _xy(head.get(R.METRICS) or {})
        if pr is None and base_xy is None:
            continue
        missing = None if failed or pr else _no_figure(head)
        groups.setdefault(tuple(head.get(g) for g in GROUP), []).append({
            "point": pt, "series": series_of(pt), "conc": head.get(R.CONC), "pr": pr, "runs": len(_measured(base)),
            "base": base_xy, "at": pr or base_xy, "new": not base, "missing": missing,
            "flag": C.FAILED if failed else NOT_MEASURED if missing else flags.get(pt),
            "verdict": None if failed else flags.get(pt),
            "cancelled": failed and head.get(R.STATUS) == R.CANCELLED, "ref": ref, "unjudged": pt in unjudged,
            "moved": unjudged.get(pt), "apart": pt in apart, "changes": changes.get(pt, ()),
            "not_compared": pt in stand_in,
            "rehearsal": bool(head.get(R.REHEARSAL)), "base-rehearsal": any(b.get(R.REHEARSAL) for b in base),
            "passed": pt in comparison.passed_over})
    for pt, base in sorted(comparison.dropped.items(), key=lambda kv: C.point_sort_key(kv[0])):
        base_xy = _median_xy(base)
        if base_xy is None:  # review: these were left off, and the chart read as a clean run
            continue
        newest = base[0]
        groups.setdefault(tuple(newest.get(g) for g in GROUP), []).append({
            "point": pt, "series": series_of(pt), "conc": newest.get(R.CONC), "pr": None, "runs": len(_measured(base)),
            "base": base_xy,
            "at": base_xy, "flag": NOT_MEASURED, "new": False, "rehearsal": False, "cancelled": False, "ref": ref,
            "unjudged": False, "moved": None, "missing": None, "verdict": None, "dropped": True,
            "base-rehearsal": any(b.get(R.REHEARSAL) for b in base), "passed": pt in comparison.passed_over})
    return groups


def off_chart(comparison: C.Comparison, groups: dict | None = None) -> list[tuple[tuple, str]]:
    """(point, why) of each point of the run that ``chart_groups`` has nowhere to draw (the table
    lists it), or draws only as its baseline's cross (``missing``). ``groups``: ``chart_groups(comparison)``
    when the caller has it."""
    groups = chart_groups(comparison) if groups is None else groups
    drawn = {item["point"] for items in groups.values() for item in items if not item.get("missing")}
    out = []
    for pt in sorted(set(comparison.heads) - drawn, key=C.point_sort_key):
        head = comparison.heads[pt]
        metrics = head.get(R.METRICS) or {}
        if C.job_failed(head):
            done = "was cancelled" if head.get(R.STATUS) == R.CANCELLED else "failed"
            why = f"its job {done} and it has no baseline to be drawn at"
        elif derive.figure(metrics, Y) is None:
            why = "no throughput per GPU (no GPU count: ingested without its matrix row)"
        else:
            why = "no interactivity figure (the client reported no median TPOT)"
        out.append((pt, why))
    return out


def at_baseline_only(comparison: C.Comparison, groups: dict | None = None) -> set[tuple]:
    """The points of ``off_chart`` that a chart does draw, as a mark at their baseline median (a ``?`` where
    the run measured them without a figure the axes show): new-user28 read "on no chart" of a point its
    chart labelled "32 no interactivity"."""
    groups = chart_groups(comparison) if groups is None else groups
    return {item["point"] for items in groups.values() for item in items if item.get("missing")}


def why_no_chart(comparison: C.Comparison) -> str:
    """Why ``chart_groups`` found nothing to draw, in words a user can act on."""
    heads = [h for h in comparison.heads.values() if not C.job_failed(h)]
    if not heads:
        return "the run has no successful throughput point"
    metrics = [h.get(R.METRICS) or {} for h in heads]
    if not any(derive.figure(m, Y) is not None for m in metrics):
        return ("no point has a throughput per GPU (a result ingested without its matrix row has no GPU "
                "count; ingest it with its .job.json sidecar or --row)")
    return "no point has an interactivity figure (tok/s/user: the client reported no median TPOT)"


def chart_name(group: tuple, with_org: bool = False) -> str:
    """The file name of a chart: the model's name without its org, unless ``with_org`` (two models
    of one name from two orgs in one run)."""
    model, precision, hardware, scenario, isl, osl = group
    seq = f"{isl}x{osl}" if isl is not None and osl is not None else ""
    name = str(model).replace("/", "--") if with_org else str(model).split("/")[-1]
    parts = [str(p) for p in (name, precision, hardware, scenario, seq) if p]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", "_".join(parts)).strip("-") or "chart"


def chart_names(groups) -> dict[tuple, str]:
    """Each group's file name, never one for two groups: a name two groups share gets the orgs
    (and, were they still alike, a number), so no chart overwrites another."""
    groups = list(groups)
    short = [chart_name(g) for g in groups]
    names = [chart_name(g, with_org=True) if short.count(n) > 1 else n for g, n in zip(groups, short)]
    return {g: n if names.count(n) == 1 else f"{n}-{names[:i].count(n) + 1}"
            for i, (g, n) in enumerate(zip(groups, names))}


# The fields of GROUP a neighbouring recipe may differ in (it is of the chart's model and hardware), in the order
# they weigh: the one differing in fewer, then in later ones, is nearer (``_nearness``).
NEAR_FIELDS = tuple(f for f in GROUP if f not in (R.MODEL, R.HARDWARE))


def unbased(groups: dict[tuple, list[dict]]) -> list[tuple]:
    """The chart groups (``chart_groups``) none of whose points has a baseline median: recipes the baseline never
    measured, a chart with nothing of the baseline on it."""
    return [group for group, items in groups.items() if not any(item["base"] for item in items)]


def _gap(a, b) -> float:
    """How far apart two sequence lengths are (as a factor, in logs); 0 for equal, or for one that is no number."""
    ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in (a, b))
    return abs(math.log(a / b)) if ok else float(a != b)


def _nearness(group: tuple, series: set, other_group: tuple, other_series: tuple) -> tuple:
    """How far a recipe the baseline measured (``other_group``, ``other_series``) stands from a chart's (``group``,
    its ``series``): first by the NEAR_FIELDS it differs in (how many, then which), then by the SERIES fields it
    differs in from the nearest of the chart's series (config key, recipe), then by its sequence lengths; then by
    its label, so the choice is one."""
    mine, theirs = dict(zip(GROUP, group)), dict(zip(GROUP, other_group))
    differs = tuple(mine[f] != theirs[f] for f in NEAR_FIELDS)
    recipe = min(sum(a != b for a, b in zip(s, other_series)) for s in series)
    sequence = sum(_gap(mine[f], theirs[f]) for f in (R.ISL, R.OSL))
    return sum(differs), differs, recipe, sequence, " · ".join(map(str, other_series))


def contexts(comparison: C.Comparison, candidates: list[dict], groups: dict | None = None) -> dict[tuple, tuple]:
    """Each ``unbased`` chart group -> (group, series, records) of the recipe of ``candidates`` (the baseline's
    newest record of each point of the run's models on its hardware: ``store_adapter.context_records``) nearest it
    (``_nearness``) among those of its model and hardware with a figure for both axes; a group with none has no
    entry. What its chart draws as context (review s42c: a recipe the PR added was charted alone, with nothing of
    main's to read it against)."""
    groups = chart_groups(comparison) if groups is None else groups
    found: dict[tuple, list[dict]] = {}
    for rec in candidates:
        if str(rec.get(R.RUN_ID)) != str(comparison.run) and _xy(rec.get(R.METRICS) or {}):
            found.setdefault((tuple(rec.get(g) for g in GROUP), series_of(R.point_values(rec))), []).append(rec)
    out = {}
    for group in unbased(groups):
        series = {item["series"] for item in groups[group]}
        near = [key for key in found if (key[0][0], key[0][2]) == (group[0], group[2])]  # its model, its hardware
        if near:
            best = min(near, key=lambda key: _nearness(group, series, *key))
            out[group] = (*best, found[best])
    return out


def context_label(group: tuple, context: tuple, baseline: tuple[str, int]) -> str:
    """The legend's entry of a chart's context (``contexts``): ``context, not compared: main's newest
    dsr1-fp8-b300-vllm``, and what of the chart's group it differs in (``fp4``, ``8192/1024``)."""
    other, series, _ = context
    mine, theirs = dict(zip(GROUP, group)), dict(zip(GROUP, other))
    differs = [str(theirs[f]) for f in (R.PRECISION, R.SCENARIO) if theirs[f] != mine[f]]
    if (theirs[R.ISL], theirs[R.OSL]) != (mine[R.ISL], mine[R.OSL]):
        differs.append(f"{theirs[R.ISL]}/{theirs[R.OSL]}")
    return f"context, not compared: {R.short_ref(baseline[0])}'s newest {' · '.join([_describe(series)[0], *differs])}"


def no_baseline_words(group: tuple, items: list[dict], baseline: tuple[str, int], sought: bool) -> str:
    """The line a chart's title ends with where nothing of the baseline is on it: ``no baseline to compare: main has
    no run of this recipe``; where a neighbour was sought (``contexts``) and none found, ``main never ran this model
    on h200``."""
    ref = R.short_ref(baseline[0])
    if sought:
        return f"no baseline to compare: {ref} never ran this model on {group[GROUP.index(R.HARDWARE)]}"
    return f"no baseline to compare: {ref} has no run of {'this recipe' if len({i['series'] for i in items}) == 1 else 'these recipes'}"


def context_style() -> dict:
    """A context recipe's line and markers (``contexts``), alike on the chart and in the legend."""
    return {"color": CONTEXT_INK, "linestyle": (0, (1, 1.5)), "linewidth": 1.2, "marker": "o", "markersize": 4,
            "markerfacecolor": BACKGROUND, "markeredgecolor": CONTEXT_INK, "zorder": 1.5}


def _draw_context(ax, context: tuple | None) -> list[tuple[tuple[float, float], str]]:
    """Draw a chart's context (``contexts``) as one dotted line through its points, by interactivity; its points,
    each with its label (``_context_mark``)."""
    if not context:
        return []
    points = sorted((xy, _context_mark(rec)) for rec in context[2] if (xy := _xy(rec.get(R.METRICS) or {})))
    ax.plot([p[0] for p, _ in points], [p[1] for p, _ in points], gid=CONTEXT_GID, **context_style())
    return points


def _context_mark(rec: dict) -> str:
    """A context point's label: its concurrency, else its request rate (``10/s``), else nothing."""
    if rec.get(R.CONC) is not None:
        return str(rec[R.CONC])
    return f"{rec[R.REQUEST_RATE]}/s" if rec.get(R.REQUEST_RATE) is not None else ""


def chart_title(group: tuple) -> str:
    model, precision, hardware, scenario, isl, osl = group
    seq = f" {isl}/{osl}" if isl is not None and osl is not None else ""
    return f"{model} {precision} on {hardware}: {scenario}{seq}"


def _draw_fronts(ax, items: list[dict], styles: dict[tuple, tuple[str, str]]) -> dict[str, list[str]]:
    """Each series' baseline median front and PR front (``front_lines``), in the series' colour (the fixed inks on a
    chart of one series); returns each kind drawn -> the inks it was drawn in, for the legend's key. A
    front of one point is no line: not drawn, so the legend never names something that is not there."""
    drawn: dict[str, list[str]] = {}
    for n, (series, (color, _)) in enumerate(styles.items()):
        mine = [item for item in items if item["series"] == series]
        for kind in (BASE_FRONT, PR_FRONT):
            ink = FRONT_INK[kind] if len(styles) == 1 else color
            lines = front_lines(mine, kind)
            for k, line in enumerate(lines):  # a later piece of a broken front: -n.k
                ax.plot([p[0] for p in line], [p[1] for p in line], gid=f"{FRONT_GID[kind]}-{n}{f'.{k}' if k else ''}",
                        **front_style(kind, ink))
            if lines:
                drawn.setdefault(kind, []).append(ink)
    return drawn


def front_lines(mine: list[dict], kind: str) -> list[list[tuple[float, float]]]:
    """One series' (``mine``) front of ``kind`` as the lines drawn of it, each of two points or more. The PR
    front is broken between two of its points where a point of the series the run has no figure for (its job
    failed, or it was not measured: drawn at its baseline) lies between them along the sweep
    (``_between_loads``: its concurrency and request rate between theirs), never a line across it (review
    s35b: the line from conc 16 to 256 across a failed conc 64 ran far below the baseline's front, a drop no
    point measured and the table did not report). Where that point is drawn says nothing of it: before s37h
    the front was broken wherever its interactivity lay between two front points', so a failed conc 512 drawn
    at its baseline among the PR's conc 256 and 128 cut the line between them, points the sweep measured
    side by side."""
    side = "base" if kind == BASE_FRONT else "pr"
    loads: dict[tuple, list[tuple]] = {}  # each drawn spot -> the loads of the series' points drawn at it
    for item in mine:
        if item[side]:
            loads.setdefault(item[side], []).append(_load(item))
    front = pareto_front(list(loads))
    gaps = [_load(item) for item in mine if kind == PR_FRONT and item["pr"] is None]
    lines = [front[:1]]
    for a, b in zip(front, front[1:]):
        if any(_between_loads(gap, la, lb) for gap in gaps for la in loads[a] for lb in loads[b]):
            lines.append([])
        lines[-1].append(b)
    return [line for line in lines if len(line) > 1]


def _load(item: dict) -> tuple[float, ...]:
    """Where ``item`` stands along its series' sweep: its ``record.SWEPT`` values (concurrency, request rate)
    as numbers, one with none (no cap, an unlimited rate) above every number; a rate written as no number
    (kept as written) is NaN, between no two points."""
    fields = dict(zip(R.POINT_IDENTITY, item["point"]))
    out = []
    for name in R.SWEPT:
        try:
            out.append(math.inf if fields.get(name) is None else float(fields[name]))
        except (TypeError, ValueError):
            out.append(math.nan)
    return tuple(out)


def _between_loads(gap: tuple, a: tuple, b: tuple) -> bool:
    """Whether a point at load ``gap`` (``_load``) lies between points at ``a`` and ``b`` along their sweep: in
    each swept value, within theirs (a sweep of concurrency alone: its concurrency between theirs; of both, in
    the box their two loads span)."""
    return all(min(p, q) <= g <= max(p, q) for g, p, q in zip(gap, a, b))


def front_style(kind: str, ink: str) -> dict:
    """A front's line properties in ``ink``, alike on the chart and in the legend: dashes, width and layer,
    and for a hollow one a white core (FRONT_CORE) stroked along the middle of each dash."""
    from matplotlib import patheffects

    core = [patheffects.Normal(), patheffects.Stroke(linewidth=FRONT_CORE[kind], foreground=BACKGROUND)]
    return {"linestyle": FRONT_STYLE[kind], "zorder": FRONT_ZORDER[kind], "color": ink,
            "linewidth": FRONT_WIDTH[kind], "path_effects": core if FRONT_CORE[kind] else []}


def dashed_ring():
    """The marker of a new point: a ring of NEW_DASHES dashes (matplotlib draws no dashed marker edge)."""
    from matplotlib.path import Path

    step = 360 / NEW_DASHES
    return Path.make_compound_path(*(Path.arc(k * step, (k + 0.6) * step) for k in range(NEW_DASHES)))


def _draw_points(ax, items: list[dict], styles: dict[tuple, tuple[str, str]]) -> None:
    for i, item in enumerate(items):
        color, marker = styles[item["series"]]
        if item["base"]:  # grey on a chart of one series; else ringed in its series' colour
            ax.plot(*item["base"], marker=marker, markersize=MARKER_SIZE, markerfacecolor=BACKGROUND, linestyle="none",
                    markeredgecolor=COLORS["baseline"] if len(styles) == 1 else color, gid=f"{BASE_GID}-{i}",
                    zorder=3)
        if item["pr"] is None and item["flag"] == NOT_MEASURED:  # where its baseline stands: a thin cross, or a "?"
            ax.plot(*item["at"], **_cross_style(item["missing"]), color=COLORS[NOT_MEASURED],
                    linestyle="none", gid=f"{NO_FIGURE_GID if item['missing'] else 'not-measured-point'}-{i}", zorder=5.5)
            _verdict_ring(ax, item, i)  # a figure missing, another one judged: still ringed
            continue
        if item["pr"] is None:  # the PR job failed: a cross where its baseline stands
            ax.plot(*item["at"], marker="X", markersize=9, color=COLORS[C.FAILED], linestyle="none",
                    gid=f"failed-point-{i}", zorder=5.5)  # above any point or ring it lands on
            continue
        if item["base"]:  # a thin line to its own baseline median: which circle is its, how far it moved
            ax.plot(*zip(item["base"], item["pr"]), linewidth=0.8, color=COLORS.get(item["flag"], LINK_INK),
                    alpha=1.0 if item["flag"] else LINK_ALPHA, gid=f"{LINK_GID}-{i}", zorder=2.5)
        ax.plot(*item["pr"], marker=marker, markersize=MARKER_SIZE, color=color, linestyle="none",
                gid=f"{PR_GID}-{i}", zorder=4)
        if item["new"]:  # no baseline to be judged against: not to be read as unchanged
            ax.plot(*item["pr"], marker=dashed_ring(), markersize=12, markerfacecolor="none", linestyle="none",
                    markeredgewidth=1.2, markeredgecolor=COLORS[C.NEW], gid=f"{NEW_GID}-{i}", zorder=5)
        _verdict_ring(ax, item, i)
    for line in ax.get_lines():  # a marker on the frame (a throughput of 0) drawn whole, not half its ring
        if line.get_linestyle() == "None":
            line.set_clip_on(False)


def _cross_style(missing: str | None, size: float = 8) -> dict:
    """The mark of a point drawn at its baseline for want of a figure: a thin cross where the run did not
    measure it, a question mark where it did without a figure the axes show (``missing``)."""
    if missing:
        return {"marker": _no_figure_marker(), "markersize": size + 3, "markeredgewidth": 0.6}
    return {"marker": "x", "markersize": size, "markeredgewidth": 1.6}


def _no_figure_marker():
    """NO_FIGURE_MARKER as a MarkerStyle, its path made from mathtext, which LITERAL_TEXT turns off for every text."""
    import matplotlib
    from matplotlib.markers import MarkerStyle

    with matplotlib.rc_context({"text.parse_math": True}):
        return MarkerStyle(NO_FIGURE_MARKER)


def cross_entries(items: list[dict]) -> list[str | None]:
    """The legend entries the points drawn at their baselines for want of a figure take: None for those the
    run did not measure, then one for those it measured without an axis' figure, naming what they lack
    (``no interactivity``, ``no interactivity or throughput per GPU``: one mark, so one entry)."""
    crossed = [item for item in items if item["flag"] == NOT_MEASURED]
    lacking = sorted({item["missing"].removeprefix("no ") for item in crossed if item["missing"]})
    return [None] * any(not item["missing"] for item in crossed) + (["no " + " or ".join(lacking)] if lacking else [])


def cross_label(missing: str | None, who: str) -> str:
    """``not measured by the PR run (at its baseline)``; for a point the run measured without an axis'
    figure ``no interactivity figure (at its baseline)``: measured, so never "not measured"."""
    if missing:
        return f"{missing} figure (at its baseline)"
    return f"not measured by {'the PR' if who == 'PR' else 'this'} run (at its baseline)"


def _verdict_ring(ax, item: dict, i: int) -> None:
    """The red or green ring round a regressed or improved point (``verdict``), where it is drawn (``at``)."""
    if item.get("verdict"):
        ax.plot(*item["at"], marker="o", markersize=VERDICT_RING_SIZE, markerfacecolor="none", linestyle="none",
                markeredgewidth=VERDICT_RING_EDGE, markeredgecolor=COLORS[item["verdict"]], gid=f"{RING_GID}-{i}",
                zorder=5)


def ring_hidden_baselines(fig, ax, items: list[dict]) -> set[int]:
    """Draw each baseline median whose centre lies under its PR point's dot (within half MARKER_SIZE: the
    dot would cover it) as a ring round the dot, above it (BASE_RING_SIZE); returns those items' indexes.
    Measured in pixels after the layout: a point 1 % away on a wide axis hides as one exactly on it does."""
    lines = {line.get_gid(): line for line in ax.get_lines()}
    width = MARKER_SIZE / 2 * fig.dpi / 72
    rings = set()
    for i, item in enumerate(items):
        if item["base"] and item["pr"]:
            (bx, by), (px, py) = ax.transData.transform([item["base"], item["pr"]])
            if math.hypot(bx - px, by - py) < width:
                lines[f"{BASE_GID}-{i}"].set(data=([item["pr"][0]], [item["pr"][1]]), markersize=BASE_RING_SIZE,
                                             markeredgewidth=BASE_RING_EDGE, markerfacecolor="none",
                                             zorder=BASE_RING_ZORDER)
                rings.add(i)
    return rings


def baseline_label(items: list[dict], baseline: tuple[str, int]) -> str:
    """The baseline medians' legend entry, naming what they are medians of (review: a chart seen on
    its own, as a PR comment links it, never said): ``baseline median of main's last 5 runs
    (refs/heads/main)``, with ``3 found`` when no point of the chart had that many, ``3–5 found`` when
    some had fewer than others (review charts25: it named the most, ``5``, beside a median of 3 runs); the
    counts of the points the run measured, as the headline's (``render.summary_line``), where there are any."""
    ref, window = baseline
    # A point the run did not measure (``dropped``) stands at the baseline's newest run of it (the store gives
    # that one alone): counted, it read "1–5 found" beside a headline's "last 5 runs" (review25).
    shown = [item for item in items if item["base"]]
    counted = [i for i in shown if not i.get("dropped")] or shown
    runs = sorted({item["runs"] for item in counted}) or [0]
    at = C.NEWEST_RECIPE if any(item.get("passed") for item in counted) else ""  # main's older recipe passed over
    found = [] if runs[0] >= window else [
        (f"{runs[0]}\u2013{runs[-1]} found" if len(runs) > 1 else f"{runs[0]} found") + at]
    short = R.short_ref(ref)
    where = "; ".join(found + ([ref] if ref != short else []))
    return f"baseline median of {short}'s last {window} runs" + (f" ({where})" if where else "")


FAILED_WORDS = {frozenset({False}): "failed", frozenset({True}): "cancelled",
                frozenset({False, True}): "failed or cancelled"}  # the failed points' legend entry, by what they were


def run_words(items: list[dict], run: str) -> tuple[str, str]:
    """(what the run is, as the legend's title names it; the word its own entries take): ``PR run 123``
    and ``PR`` for a pull request's run (``refs/pull/N/…``), else ``run 123 on main`` and ``this run's``
    (review: a chart of main's own run was titled "PR run" and its front "PR front")."""
    from sweepgate.core.jobfile import pr_number_of

    refs = {item.get("ref") for item in items}
    ref = refs.pop() if len(refs) == 1 else None
    if pr_number_of(ref) is not None:
        return f"PR run {run}", "PR"
    return (f"run {run} on {R.short_ref(ref)}" if isinstance(ref, str) else f"run {run}"), "this run's"


def failed_label(items: list[dict], what: str, baseline: tuple[str, int]) -> str:
    """The failed points' legend entry: ``what (at its baseline)``; where no baseline marker shows (every
    point failed, each cross over its own), naming the baseline as ``baseline_label`` does on every other
    chart: ``PR job failed, at its baseline median of main's last 5 runs (refs/heads/main)``."""
    if any(_base_shown(item) for item in items):
        return f"{what} (at its baseline)"
    mark = " (rehearsal)" if any(item["base-rehearsal"] for item in items) else ""
    return f"{what}, at its {baseline_label(items, baseline)}{mark}"


def _base_shown(item: dict) -> bool:
    """Whether the point's baseline median marker can be seen: a failed job's cross stands over it."""
    return bool(item["base"]) and not (item["pr"] is None and item["flag"] == C.FAILED)


def _keys(handles: list) -> tuple:
    """One legend key per series' ink: a tuple of them, drawn side by side (``HandlerTuple``), where a
    chart of several series draws one kind in each series' colour; the lone handle where there is one."""
    for handle in handles[1:]:
        handle.set_label(handles[0].get_label())
    return handles[0] if len(handles) == 1 else tuple(handles)


# A legend key's length, in font sizes; one of several inks (``_keys``) at least MULTI_KEY, and KEY_PART per ink.
KEY_LENGTH, MULTI_KEY, KEY_PART = 2.0, 2.5, 0.75


def _key_length(handles: list, inks: int) -> float:
    """The legend's key length: past KEY_LENGTH where a key holds several inks (``_keys``), so each ink's
    part shows a whole dash of the baseline front; ``inks``: the most series a part of the chart's group
    has, so the parts of one group share one legend layout (and plot size)."""
    return max(MULTI_KEY, KEY_PART * inks) if any(isinstance(h, tuple) for h in handles) else KEY_LENGTH


def _baseline_and_fronts(items: list[dict], styles: dict[tuple, tuple[str, str]], fronts: dict[str, list[str]],
                         who: str, baseline: tuple[str, int], base_mark: str) -> tuple[list, list]:
    """The legend keys of the baseline medians and of the fronts, each drawn as the chart draws it: on a
    chart of several series, in each series' colour (review: the keys were grey and black beside
    coloured fronts and medians). (the baseline's keys, the fronts')."""
    from matplotlib.lines import Line2D

    out, lines = [], []
    shown = [s for s in styles if any(_base_shown(item) for item in items if item["series"] == s)]
    if shown:  # a chart of new or only failed points has none to name
        label = baseline_label(items, baseline) + base_mark
        out.append(_keys([Line2D([], [], marker=styles[s][1], linestyle="none", markerfacecolor=BACKGROUND,
                                 markeredgecolor=COLORS["baseline"] if len(styles) == 1 else styles[s][0],
                                 markersize=MARKER_SIZE, label=label) for s in shown]))
    for kind in (BASE_FRONT, PR_FRONT):
        label = kind if kind == BASE_FRONT or who == "PR" else f"{who} front"
        if kind in fronts:
            lines.append(_keys([Line2D([], [], label=label, **front_style(kind, ink)) for ink in fronts[kind]]))
    return out, lines


def _legend(fig, items: list[dict], run: str, styles: dict[tuple, tuple[str, str]], fronts: dict[str, list[str]],
            rows: int, baseline: tuple[str, int], inks: int, whole: list[dict], told: list = ()) -> None:
    """Below the plot, never over it: the series (under a title naming the run, ``run_words``), then the
    baseline (``baseline_label``), the fronts and the rings; blank entries below them up to ``rows``
    rows (the parts of one group reserve one legend height, so their plot areas are one size); ``inks``:
    see ``_key_length``; ``whole``: the group's items, every part's, whose series the labels tell apart
    (charts28: "· no spec decoding" followed a recipe in the one part where it told two apart); ``told``: (line
    style, label) of each more entry after the baseline's (a context recipe's, ``contexts``)."""
    from matplotlib.legend_handler import HandlerTuple
    from matplotlib.lines import Line2D

    mark, base_mark = (" (rehearsal)" if any(item[side] for item in items) else ""
                       for side in ("rehearsal", "base-rehearsal"))
    title, who = run_words(items, run)
    labels = legend_labels(whole)
    drawn = {item["series"] for item in items if item["pr"]}  # a series whose every PR job failed: its name, no dot
    handles = [Line2D([], [], label=line, linestyle="none", color=color, marker="none" if i or s not in drawn else marker)
               for s, (color, marker) in styles.items()  # an entry broken over lines: an entry a line, one column
               for i, line in enumerate(labels[s].split("\n"))]
    base, lines = _baseline_and_fronts(items, styles, fronts, who, baseline, base_mark)
    handles += base + [Line2D([], [], label=label, **style) for style, label in told]
    if any(item["new"] for item in items):
        handles.append(Line2D([], [], marker=dashed_ring(), markersize=10, markerfacecolor="none", linestyle="none",
                              markeredgewidth=1.2, markeredgecolor=COLORS[C.NEW], label=NEW_LABEL))
    handles += lines
    ended = {item["cancelled"] for item in items if item["flag"] == C.FAILED}
    if ended:
        handles.append(Line2D([], [], marker="X", markersize=8, linestyle="none", color=COLORS[C.FAILED],
                              label=failed_label(items, f"{who} job {FAILED_WORDS[frozenset(ended)]}", baseline)))
    handles += [Line2D([], [], **_cross_style(missing, 7), linestyle="none", color=COLORS[NOT_MEASURED],
                       label=cross_label(missing, who)) for missing in cross_entries(items)]
    for flag in (C.REGRESSED, C.IMPROVED):
        if any(item.get("verdict") == flag for item in items):
            handles.append(Line2D([], [], marker="o", markersize=10, markerfacecolor="none", linestyle="none",
                                  markeredgewidth=2, markeredgecolor=COLORS[flag], label=flag))
    columns, heading = legend_columns(whole), printable(f"{title}{mark}{marks_named(items)}{unjudged_named(items)}")
    size = TEXT_SIZE["legend.fontsize"]
    for attempt in range(LEGEND_TRIES):  # a legend wider than the figure (long labels) is drawn again, smaller
        padded = _padded(handles, columns, rows)  # a tuple: one key per series' ink, side by side
        legend = fig.legend(handles=padded, labels=_labels(padded),
                            handler_map={tuple: HandlerTuple(ndivide=None, pad=0.2)}, loc="outside lower center",
                            ncols=columns, fontsize=size, handlelength=_key_length(handles, inks),
                            title=heading, title_fontsize=size,
                            frameon=False)
        fitted = _fitted_size(legend, fig, size)
        if fitted == size or attempt == LEGEND_TRIES - 1:  # the last try stays: a legend, never none
            return
        legend.remove()
        size = fitted


def _labels(handles: list) -> list[str]:
    """The legend's entries of ``handles`` (``_padded``'s), their control characters as escapes (a config key's ESC
    is no glyph, and in an SVG no XML character)."""
    return [printable((h[0] if isinstance(h, tuple) else h).get_label()) for h in handles]


def _fitted_size(text, fig, size: float) -> float:
    """The font size at which ``text`` (a legend or a title: each scales with its font) ends inside
    FIT of the figure's width, from where it starts (a legend is centred): ``size`` when it does
    already, never below MIN_TEXT_SIZE."""
    box = text.get_window_extent(fig.canvas.get_renderer())
    room = fig.bbox.width * FIT - (0 if text in fig.legends else box.x0)
    return size if box.width <= room else max(MIN_TEXT_SIZE, int(size * room / box.width * 4) / 4)


def _padded(handles: list, columns: int, rows: int) -> list:
    """``handles`` in the columns the legend lays them out in (the first ones an entry longer, as
    matplotlib splits them), each column ended with blank entries down to ``rows`` lines."""
    from matplotlib.lines import Line2D

    size, extra = divmod(len(handles), columns)
    rows = max(rows, size + bool(extra))
    out, start = [], 0
    for column in range(columns):
        n = size + (column < extra)
        out += handles[start:start + n] + [Line2D([], [], linestyle="none", label=" ") for _ in range(rows - n)]
        start += n
    return out


def legend_columns(items: list[dict]) -> int:
    """Two columns, unless a series' entry is long (a multinode recipe's ``p1x(tp4-ep4-dpa)_d5x(tp8-ep8)``, a
    recipe change named after it: ``legend_labels``):
    two of those do not fit side by side and were cut off. ``items``: the whole group's, every part's, so
    its parts have one layout and the labels they share (``series_labels``)."""
    labels = legend_labels(items).values()
    return 1 if max(map(len, labels), default=0) > LONG_LABEL or any("\n" in label for label in labels) else 2


def legend_rows(items: list[dict], whole: list[dict] | None = None, extra: int = 0) -> int:
    """How many lines the legend of ``items`` takes (the figure grows by them): a line per series (one per line of
    an entry ``legend_labels`` broke), the baseline median where one shows, each front drawn (``fronts_drawn``), and
    each kind of mark drawn (failed, not measured, each figure measured points lack, regressed, improved, new), in the
    ``legend_columns`` of ``whole`` (the group's items, when ``items`` is a part of it); ``extra``: more entries
    (a context recipe's)."""
    kinds = {item[k] for item in items for k in ("flag", "verdict") if item.get(k)} - {NOT_MEASURED}
    kinds |= {C.NEW for item in items if item["new"]}
    base = any(_base_shown(item) for item in items)  # else named by the failed points' entry, or not at all
    series = {item["series"] for item in items}
    broken = sum(label.count("\n") for s, label in legend_labels(whole or items).items() if s in series)
    entries = len(series) + base + len(fronts_drawn(items)) + len(kinds) + len(cross_entries(items)) + extra
    return -(-entries // legend_columns(whole or items)) + broken  # a line of its own each: one column


def fronts_drawn(items: list[dict]) -> set[str]:
    """The kinds of front ``_draw_fronts`` draws for ``items``: those of a series with two points or more
    on it (review charts25: a chart of one point reserved two legend entries for fronts it never drew,
    a blank line under its legend)."""
    out = set()
    for series in {item["series"] for item in items}:
        mine = [item for item in items if item["series"] == series]
        out |= {kind for kind in (BASE_FRONT, PR_FRONT) if front_lines(mine, kind)}
    return out


def chart_parts(items: list[dict]) -> list[list[dict]]:
    """A group's items, split into charts of at most MAX_SERIES series (as even as they go), the
    series in their labels' order, so one part holds neighbouring recipes."""
    series = list(dict.fromkeys(item["series"] for item in items))
    if len(series) <= MAX_SERIES:
        return [items]
    labels = series_labels(series)
    ordered = sorted(series, key=lambda s: labels[s])
    n = -(-len(ordered) // MAX_SERIES)
    size = -(-len(ordered) // n)
    chunks = [set(ordered[i:i + size]) for i in range(0, len(ordered), size)]
    return [[item for item in items if item["series"] in chunk] for chunk in chunks]


def _spot_cost(box, taken, frame) -> float:
    """How much of a label's box covers other labels, markers and lines (``taken``: an array of pixel
    boxes, x0 y0 x1 y1 a row), or lies outside the axes. In numpy: the placement weighs each label's
    spots against every box taken (2,000 points took minutes one by one)."""
    import numpy as np

    x0, y0, x1, y1 = box.extents.tolist()
    w = np.minimum(taken[:, 2], x1) - np.maximum(taken[:, 0], x0)
    h = np.minimum(taken[:, 3], y1) - np.maximum(taken[:, 1], y0)
    inside = max(min(x1, frame.x1) - max(x0, frame.x0), 0) * max(min(y1, frame.y1) - max(y0, frame.y0), 0)
    return float((np.clip(w, 0, None) * np.clip(h, 0, None)).sum()) + box.width * box.height - inside


def _marks(fig, ax, items: list[dict], rings: set[int] = frozenset(), around: list = ()):
    """Every marker as a row of an array: x, y (pixels), the radius a label keeps clear of (a ring's
    outer edge for a ringed point, and for a baseline median drawn as a ring, the indexes ``rings``),
    its item's index, and 1 where it is the point itself (drawn ``at``), 0 for its baseline median; then each
    context point (``around``: ``_draw_context``'s), its index len(items) + its place there, 1."""
    import numpy as np

    px = fig.dpi / 72
    at = ax.transData.transform([item["at"] for item in items]).reshape(-1, 2)
    rows = [(*xy, (8 if item["flag"] or item["new"] else 4) * px, i, 1) for i, (item, xy) in enumerate(zip(items, at))]
    based = [i for i, item in enumerate(items) if item["base"]]
    base = ax.transData.transform([items[i]["base"] for i in based]).reshape(-1, 2)
    rows += [(*xy, (BASE_RING_SIZE / 2 + 1 if i in rings else 4) * px, i, 0) for i, xy in zip(based, base)]
    if around:
        context = ax.transData.transform([xy for xy, _ in around]).reshape(-1, 2)
        rows += [(*xy, (context_style()["markersize"] / 2 + 1) * px, len(items) + k, 1) for k, xy in enumerate(context)]
    return np.array(rows, dtype=float).reshape(-1, 5)


def _samples(xy, px: float):
    """Boxes ``px`` wide round a polyline (pixel vertices) every few pixels along it, as rows x0 y0 x1 y1."""
    import numpy as np

    out = []
    for (x0, y0), (x1, y1) in zip(xy, xy[1:]):
        steps = max(1, int(max(abs(x1 - x0), abs(y1 - y0)) / 3))
        k = np.arange(steps + 1) / steps
        x, y = x0 + (x1 - x0) * k, y0 + (y1 - y0) * k
        out.append(np.column_stack([x - px, y - px, x + px, y + px]))
    return np.concatenate(out) if out else np.empty((0, 4))


# Points of white a label keeps from a line's stroke, past half its width (s44h: a label's box was kept a point from
# a line's middle, so it sat on a 3.8-point baseline front's dashes).
LINE_CLEAR = 1.0
# A label that has no spot clear of every line (a point inside a bundle of fronts: its leader may cross none) is
# drawn beside its point on a patch of the BACKGROUND this much of its font size wider each side, and this opaque,
# the line faint beneath it (s44h: "64" in a dashed front's ink, on that front, could not be read).
LABEL_BACKING = (0.15, 0.85)


def _obstacles(fig, ax, marks):
    """What a conc label must not cover, as pixel boxes (rows x0 y0 x1 y1): every marker (``_marks``)
    and every line (fronts, a point's line to its baseline, a context), sampled every few pixels, as wide as its
    stroke and LINE_CLEAR either side."""
    import numpy as np

    x, y, r = marks[:, 0], marks[:, 1], marks[:, 2]
    boxes = [np.column_stack([x - r, y - r, x + r, y + r])]
    boxes += [_samples(ax.transData.transform(line.get_xydata()), _half_width(fig, line)) for line in ax.get_lines()]
    return np.concatenate(boxes)


def _half_width(fig, line) -> float:
    """Pixels from a line's middle a label keeps clear of: half its stroke, and LINE_CLEAR."""
    return (line.get_linewidth() / 2 + LINE_CLEAR) * fig.dpi / 72


def _segments(ax):
    """Every line's segments (fronts, links to baselines, a context), in pixels, as rows x0 y0 x1 y1: what a leader
    may not cross (s44h: leaders crossed other recipes' fronts, reading as a label of another recipe's point)."""
    import numpy as np

    out = [np.empty((0, 4))]
    for line in ax.get_lines():
        if line.get_linestyle() != "None":
            xy = ax.transData.transform(line.get_xydata()).reshape(-1, 2)
            out.append(np.column_stack([xy[:-1], xy[1:]]))
    return np.concatenate(out)


def _crosses_any(ends, segments, anchor) -> bool:
    """Whether a leader (``_leader``'s ends) crosses one of ``segments`` (rows x0 y0 x1 y1) that does not end at
    its ``anchor`` (a row of ``_marks``: its own point's fronts and link start there, and it starts at its edge)."""
    import numpy as np

    if not len(segments):
        return False
    (px_, py_), (qx, qy) = ends
    a, b = segments[:, :2], segments[:, 2:]
    near = anchor[2] + 2
    own = (np.hypot(a[:, 0] - anchor[0], a[:, 1] - anchor[1]) <= near) | (
        np.hypot(b[:, 0] - anchor[0], b[:, 1] - anchor[1]) <= near)

    def side(o, d, r):  # which side of the line from o along d the points r lie on
        return d[0] * (r[:, 1] - o[1]) - d[1] * (r[:, 0] - o[0])

    d = (qx - px_, qy - py_)
    one = side((px_, py_), d, a) * side((px_, py_), d, b)
    e = b - a
    two = (e[:, 0] * (py_ - a[:, 1]) - e[:, 1] * (px_ - a[:, 0])) * (e[:, 0] * (qy - a[:, 1]) - e[:, 1] * (qx - a[:, 0]))
    return bool(((one < 0) & (two < 0) & ~own).any())


def _gaps(box, marks):
    """Each mark's distance from a label's box, edge to edge, in pixels (below 0: the box covers it)."""
    import numpy as np

    x0, y0, x1, y1 = box.extents.tolist()
    dx = np.maximum(np.maximum(x0 - marks[:, 0], marks[:, 0] - x1), 0)
    dy = np.maximum(np.maximum(y0 - marks[:, 1], marks[:, 1] - y1), 0)
    return np.hypot(dx, dy) - marks[:, 2]


def _nearest_own(box, own, others) -> bool:
    """Whether a label's box lies nearer one of its own marks than any other mark (rows of ``_marks``)."""
    return not len(others) or float(_gaps(box, own).min()) < float(_gaps(box, others).min())


def _leader(box, mark) -> tuple[tuple[float, float], tuple[float, float]]:
    """A thin line's ends, in pixels, from a mark's edge (a row of ``_marks``) to the nearest point of a
    label's box standing off from it."""
    x, y, r = mark[:3]
    x0, y0, x1, y1 = box.extents.tolist()
    nx, ny = min(max(x, x0), x1), min(max(y, y0), y1)
    length = max(math.hypot(nx - x, ny - y), 1e-9)
    return (x + (nx - x) * r / length, y + (ny - y) * r / length), (nx, ny)


def _crosses(a, b) -> bool:
    """Whether two segments (pairs of pixel points) cross."""
    def side(p, q, r) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(*a, b[0]) * side(*a, b[1]) < 0 and side(*b, a[0]) * side(*b, a[1]) < 0


def _leader_clear(ends, others, placed: list, leaders: list, segments=None, anchor=None) -> bool:
    """Whether a leader (``_leader``'s ends) passes clear of every other mark, every label placed and
    every leader drawn, and crosses none of ``segments`` but its ``anchor``'s own (``_crosses_any``)."""
    import numpy as np

    if any(_crosses(ends, other) for other in leaders):
        return False
    if segments is not None and _crosses_any(ends, segments, anchor):
        return False
    (sx, sy), (ex, ey) = ends
    dx, dy = ex - sx, ey - sy
    t = np.clip(((others[:, 0] - sx) * dx + (others[:, 1] - sy) * dy) / max(dx * dx + dy * dy, 1e-9), 0, 1)
    if len(others) and (np.hypot(sx + t * dx - others[:, 0], sy + t * dy - others[:, 1]) < others[:, 2]).any():
        return False
    points = [(sx + dx * k / 8, sy + dy * k / 8) for k in range(9)]
    return not any(b.contains(*p) for b in placed for p in points)


def _rate(item: dict):
    return C.point_json(item["point"])[R.REQUEST_RATE]


def _mark(item: dict, by_rate: bool, with_conc: bool = False) -> str:
    """What tells a point apart on its series' front: its request rate ``by_rate`` (the unlimited
    one "∞"; "10/s c4" ``with_conc``, when the concurrency varies too), else its concurrency, or
    its rate when the client stated no concurrency, else nothing."""
    rate = _rate(item)
    if by_rate:
        text = f"{rate}/s" if rate is not None else R.UNLIMITED_RATE
        return f"{text} c{item['conc']}" if with_conc and item["conc"] is not None else text
    if item["conc"] is not None:
        return str(item["conc"])
    return f"{rate}/s" if rate is not None else ""


def marks_named(items: list[dict]) -> str:
    """What the numbers beside the points are, for the legend's title (review: a chart seen on its own,
    as a PR comment links it, said "4–64" and "128" and never of what): ``; point labels: concurrency``,
    ``request rate``, or both; "" for points with no mark."""
    marks = point_marks(items)
    rate = any(m.endswith("/s") or m.startswith(R.UNLIMITED_RATE) or " c" in m for m in marks)
    conc = any(m.isdigit() or " c" in m for m in marks)
    kinds = [kind for kind, shown in (("request rate", rate), ("concurrency", conc)) if shown]
    return f"; point labels: {' and '.join(kinds)}" if kinds else ""


UNJUDGED = "not judged"  # a point label's word for a point too few baseline runs judged (``labelled_unjudged``)
UNJUDGED_WHY = f"; {UNJUDGED}: too few baseline runs"
UNJUDGED_APART = "another benchmark client than the baseline's"  # why, for a point ``C.not_comparable`` left so
# A point label's word for a point of a rehearsal against real runs (``C.rehearsal_apart``: ``16 not compared``), and
# what the legend's title says of it
NOT_COMPARED = "not compared"
NOT_COMPARED_WHY = f"; {C.REHEARSAL_APART}"


def labelled_unjudged(item: dict) -> bool:
    """Whether ``item``'s label says UNJUDGED (``16 not judged``): the PR run measured it, nothing rings it,
    and too few baseline runs judged it."""
    return bool(item["pr"] and not item["flag"] and item.get("unjudged"))


def _unjudged_words(item: dict) -> str:
    """What a not judged point's label says after its mark: UNJUDGED, and its change where past its threshold
    (``16 not judged, -11.7% tok/s/GPU``); a rehearsal's against real runs, NOT_COMPARED (no change is stated)."""
    if item.get("not_compared"):
        return NOT_COMPARED
    return ", ".join(filter(None, (UNJUDGED, item.get("moved"))))


def unjudged_named(items: list[dict]) -> str:
    """Why a label says "16 not judged", for the legend's title where one does (new-user29: a chart of a PR
    run against two main runs read "not judged" at every point, and its legend explained the new points'
    ring and the failed jobs' cross but not that): ``UNJUDGED_WHY``, or UNJUDGED_APART where a point measured with
    another client than the baseline's is why (``item["apart"]``), else ""."""
    labelled = [item for item in items if labelled_unjudged(item)]
    why = {"apart" if item.get("apart") else "few" for item in labelled if not item.get("not_compared")}
    stand_in = NOT_COMPARED_WHY if any(item.get("not_compared") for item in labelled) else ""
    if not why:
        return stand_in
    return {frozenset({"few"}): UNJUDGED_WHY, frozenset({"apart"}): f"; {UNJUDGED}: {UNJUDGED_APART}"}.get(
        frozenset(why), f"{UNJUDGED_WHY}, or {UNJUDGED_APART}") + stand_in


def point_marks(items: list[dict]) -> list[str]:
    """Each item's ``_mark``, by what varies between the points of its series: a request-rate sweep
    at one concurrency reads "10/s", "30/s", "∞" (review: it read "1", "1", "1"; the table said
    "rate 10/s conc 1"), a sweep of both "10/s c1", a concurrency sweep "4", "8"."""
    varies: dict[tuple, list[set]] = {}
    for item in items:
        seen = varies.setdefault(item["series"], [set(), set()])
        seen[0].add(_rate(item))
        seen[1].add(item["conc"])
    return [_mark(item, len(varies[item["series"]][0]) > 1, len(varies[item["series"]][1]) > 1)
            for item in items]


SAME_SPOT = 3  # points: markers of one series whose centres lie this close read as one dot, with one label


def _joined(marks: list[str], together: bool) -> str:
    """The marks of points drawn at one spot as one label: ``4–64`` for three or more neighbours on
    their series' front (``together``), else ``4, 16``."""
    return f"{marks[0]}\u2013{marks[-1]}" if together and len(marks) > 2 else ", ".join(marks)


def spot_labels(fig, ax, items: list[dict]) -> list[tuple[dict, str, list[int]]]:
    """(item to anchor at, label text, the spot's item indexes) per spot: the points of one series drawn
    within SAME_SPOT of each other (a saturated server measuring four concurrencies alike) share one
    label, ``4–64`` (review: four labels sat round one dot and a fifth was dropped), the first point of the spot its
    anchor (a ringed one when the spot has one). A failed or not measured point says so, and so does a
    regressed or improved one (``16 regressed``: the rings' red and green read alike to a colour-blind
    reader), and an unringed one too few baseline runs judged (``16 not judged``: review, a -20 % drop
    against two main runs read as noise); points of one spot share that state."""
    px = fig.dpi / 72 * SAME_SPOT
    marks = point_marks(items)
    spots: dict[tuple, list[list[int]]] = {}  # a series and state -> its spots, each a list of item indexes
    where = ax.transData.transform([item["at"] for item in items])
    for n, item in enumerate(items):
        state = (item["series"], item["flag"], item["cancelled"], item.get("unjudged"), item.get("moved"),
                 item.get("missing"), item.get("verdict"))
        mine = spots.setdefault(state, [])
        home = next((spot for spot in mine if abs(where[spot[0]] - where[n]).max() <= px), None)
        mine.append([n]) if home is None else home.append(n)
    rank: dict[tuple, list[int]] = {}  # a series -> its item indexes, in order
    for n, item in enumerate(items):
        rank.setdefault(item["series"], []).append(n)
    out = []
    for (series, *_), found in spots.items():
        for spot in found:
            first = rank[series].index(spot[0])
            text = _joined([marks[n] for n in spot if marks[n]], rank[series][first:first + len(spot)] == spot)
            item = items[spot[0]]
            suffix = (item["flag"] or (_unjudged_words(item) if labelled_unjudged(item) else None)) if item["pr"] else \
                ", ".join(filter(None, (item.get("verdict"), item.get("missing") or NOT_MEASURED))) \
                if item["flag"] == NOT_MEASURED else FAILED_WORDS[frozenset({bool(item["cancelled"])})]
            anchor = next((items[n] for n in spot if items[n]["flag"] or items[n]["new"]), item)
            out.append((anchor, " ".join(filter(None, (text, suffix))), spot))
    return out


def _put(label, where: tuple, reach: float):
    """Set a point label at LABEL_SPOTS entry ``where``, ``reach`` times its offset out; its box, in pixels."""
    dx, dy, ha, va = where
    label.xyann = (dx * reach, dy * reach)
    label.set(horizontalalignment=ha, verticalalignment=va)
    return label.get_window_extent(label.get_figure(root=True).canvas.get_renderer())


def label_forms(text: str) -> tuple[str, ...]:
    """A point label's text as it is tried: on one line, then, where it has a suffix of items (``48 not judged,
    -11.7% tok/s/GPU``), its last item on a line of its own, a box half as wide that fits between close points
    (s38f: such labels, 30 characters, found no free spot among eight points and were drawn over markers)."""
    head, sep, tail = text.rpartition(", ")
    return (text, f"{head},\n{tail}") if sep and " " in head else (text,)


def _label_spot(ax, label, push: float, taken, marks: tuple, placed: list, leaders: list,
                segments=None, may_lead: bool = True) -> tuple | None:
    """(text, LABEL_SPOTS entry, reach, leader ends or None, whether it covers a line) for a label ``push`` times
    past its point (``_place_labels`` says the order), each of its ``label_forms`` tried in turn; None where it has
    no spot inside the plot clear of every label and marker; ``marks``: its own marks, the others (its own baseline
    medians neither), its anchor's, and every mark, its baseline medians too, which a label beside its point never
    covers either (s45e: such a label, on a patch of the background, hid its own baseline median) (rows of
    ``_marks``); ``segments``: the lines a leader may not cross (``_segments``); ``may_lead``: whether the
    label may stand off its point, joined by a leader (``_may_lead``)."""
    own, others, anchor, every = marks
    forms = label_forms(label.get_text())
    costs: dict[tuple, float] = {}
    for form in forms:
        label.set_text(form)
        for where in LABEL_SPOTS:
            box = _put(label, where, push)
            costs[form, where] = _spot_cost(box, taken, ax.bbox)
            if costs[form, where] == 0 and _nearest_own(box, own, others):
                return form, where, push, None, False
    def led(lines) -> tuple | None:  # farther out, joined by a leader crossing none of ``lines``
        for form in forms:
            label.set_text(form)
            for reach in LEADER_REACH:
                for where in LEADER_SPOTS:
                    box = _put(label, where, push * reach)
                    ends = _leader(box, anchor)
                    if _spot_cost(box, taken, ax.bbox) == 0 and _leader_clear(ends, others, placed, leaders, lines,
                                                                              anchor):
                        return form, where, push * reach, ends, False
        return None

    found = led(segments) if may_lead else None
    if found:
        return found

    def rank(key: tuple) -> tuple:  # beside it: rather nearest its own marker, then covering least (a line)
        label.set_text(key[0])
        box = _put(label, key[1], push)
        margin = float(_gaps(box, others).min() - _gaps(box, own).min()) if len(others) else 1.0
        clear = (not any(box.overlaps(other) for other in placed) and bool((_gaps(box, every) >= 0).all())
                 and ax.bbox.contains(box.x0, box.y0) and ax.bbox.contains(box.x1, box.y1))
        return not clear, margin <= 0, costs[key], -margin
    best = min(costs, key=rank)
    if rank(best)[0] or rank(best)[1]:  # over a label or a marker, out of the plot, or nearer another point's marker
        return None  # than its own (read as that point's): left out, never a leader across a line
    return best[0], best[1], push, None, costs[best] > 0


# A chart of more points than this is crowded: past about 31 its figure grows no more (ROOMY_POINTS, MAX_GROWTH), and
# s45e's 80 points of 5 recipes drew 14 leaders into the bundle of fronts, where a reader could not tell whose point
# each "128" was. There a label stands off its point, joined by a leader, only for a point that changed (ringed,
# failed, not measured, not judged, new: what the chart is read for) or ends its recipe's sweep (where its front
# starts and ends); every other point is labelled where its label fits beside it, else left out.
CROWDED_POINTS = 40


def _may_lead(items: list[dict]) -> set[int]:
    """The indexes of ``items`` whose label may stand off its point, joined by a leader: all of them in a chart of
    CROWDED_POINTS or fewer; else those that changed (a flag or verdict, new, not judged) and each series' first and
    last point along its sweep (``_load``: its lowest and highest concurrency or rate)."""
    if len(items) <= CROWDED_POINTS:
        return set(range(len(items)))
    ends: dict[tuple, list[int]] = {}
    for i, item in enumerate(items):
        ends.setdefault(item["series"], []).append(i)
    out = set()
    for mine in ends.values():
        ordered = sorted(mine, key=lambda i: tuple(-1.0 if math.isnan(v) else v for v in _load(items[i])))
        out |= {ordered[0], ordered[-1]}
    return out | {i for i, item in enumerate(items)
                  if item["flag"] or item.get("verdict") or item["new"] or labelled_unjudged(item)}


def _place_labels(fig, ax, items: list[dict], styles: dict[tuple, tuple[str, str]], rings: set[int],
                  around: list = ()) -> list:
    """Each spot's label (``spot_labels``: a PR point's mark, ``point_marks``, or one for several
    points at one spot) beside it, at the first LABEL_SPOTS spot covering no other label, marker or
    line and lying nearer its own marker than any other (charts28: an olive "4" clear of every marker sat
    nearer a neighbour's than its own); else at the first such spot LEADER_REACH times as far out,
    joined to its marker by a thin line (LEADER_GID) that passes no other marker, label or line to a
    label (in a chart of more than CROWDED_POINTS points, only a point that changed or ends its sweep: ``_may_lead``);
    each on one line, then on two (``label_forms``); else beside it, at a spot inside the plot covering no
    label and no marker, nearest its own marker where it can be, covering least (a line). A ringed point's label
    sits past its ring. A label with no such spot is left out (hundreds of points would pile their labels into one
    unreadable block; s38f: a long ``not judged`` label was drawn over other points' markers and out of the plot,
    over the axis' label); ringed and failed points are labelled first, so theirs are left out only where they
    would cover each other or a marker (the table lists them all).
    In its series' colour when the chart has several; ``rings``: the items whose baseline median is a
    ring round their dot (``ring_hidden_baselines``). ``around``: a context's points and their labels
    (``_draw_context``), labelled last, in its ink, where they are at most CONTEXT_LABELS, and kept clear of in any
    case. A leader crosses no line but its own point's (``_crosses_any``), the label left out rather (s45e: 6 leaders
    of an 80-point chart crossed other recipes' fronts); a
    label beside its point on a line is drawn on a patch of the background (LABEL_BACKING). Measured after the
    layout, which the labels stay out of."""
    import numpy as np

    marks = _marks(fig, ax, items, rings, around)
    state = {"taken": _obstacles(fig, ax, marks), "segments": _segments(ax), "placed": [], "labels": [],
             "leaders": []}  # what a label keeps clear of; the labels' boxes, the labels, the leaders' ends
    index = {id(item): i for i, item in enumerate(items)}
    lead = _may_lead(items)
    for item, text, spot in sorted(spot_labels(fig, ax, items), key=lambda s: not s[0]["flag"]):  # ringed first
        ink = ONE_SERIES_INK if len(styles) == 1 else label_ink(styles[item["series"]][0])
        i = index[id(item)]
        push = 1.8 if item["flag"] or item["new"] else 1.3 if i in rings else 1.0  # past its ring
        _place_label(fig, ax, state, marks, (text, item["at"], ink, None), i, spot, push, bool(lead & set(spot)))
    if len(around) <= CONTEXT_LABELS:
        for k, (xy, text) in enumerate(around):
            if text:
                _place_label(fig, ax, state, marks, (text, xy, label_ink(CONTEXT_INK), CONTEXT_LABEL_GID),
                             len(items) + k, [len(items) + k], 1.0)
    return state["labels"]


def _place_label(fig, ax, state: dict, marks, label_of: tuple, i: int, spot: list[int], push: float,
                 may_lead: bool = True) -> None:
    """Place one label (``label_of``: text, where its point is, ink, gid) of the mark ``i`` (a row index of ``marks``)
    for the spot's marks ``spot``, ``push`` times past it (``_label_spot``), or leave it out; ``state``: what
    ``_place_labels`` keeps of the labels placed so far, updated."""
    import numpy as np

    text, at, ink, gid = label_of
    label = ax.annotate(text, at, xytext=(0, 0), textcoords="offset points", fontsize=POINT_LABEL_SIZE, color=ink,
                        zorder=6, in_layout=False, gid=gid)
    mine = np.isin(marks[:, 3], spot)  # the spot's points (its own marks) and their baseline medians (neither)
    anchor = marks[(marks[:, 3] == i) & (marks[:, 4] == 1)][0]
    found = _label_spot(ax, label, push, state["taken"], (marks[mine & (marks[:, 4] == 1)], marks[~mine], anchor, marks),
                        state["placed"], state["leaders"], state["segments"], may_lead)
    if found is None:  # a ringed one too: overprinted text reads as neither, a covered marker is lost
        label.remove()
        return
    form, where, reach, ends, over = found
    label.set_text(form)
    if over:  # beside its point, on a line (a point inside a bundle of fronts): on a patch of the background
        label.set_bbox({"boxstyle": f"square,pad={LABEL_BACKING[0]}", "facecolor": BACKGROUND, "edgecolor": "none",
                        "alpha": LABEL_BACKING[1]})
    box = _put(label, where, reach)
    state["taken"] = np.concatenate([state["taken"], [box.extents]])
    if ends:
        data = ax.transData.inverted().transform(ends)
        ax.plot(data[:, 0], data[:, 1], color=ink, linewidth=LEADER_WIDTH, gid=f"{LEADER_GID}-{i}", zorder=3.9,
                solid_capstyle="butt")
        state["taken"] = np.concatenate([state["taken"], _samples(np.array(ends), fig.dpi / 72)])
        state["segments"] = np.concatenate([state["segments"], [np.ravel(ends)]])
        state["leaders"].append(ends)
    state["placed"].append(box)
    state["labels"].append(label)


HEADROOM = 1.12  # axes end this far past the largest value, so no marker, ring or label is cut


def tick_label(value: float, _pos=None, millions: bool = False, decimals: int | None = None) -> str:
    """Axis ticks in plain numbers with thousands separators (never matplotlib's `1e6` offset); from a
    million on in millions (``7.5M``): nine digits and their commas ran into the next tick's. ``millions``:
    every tick but 0 so (``0.5M``), on a linear axis reaching a million (review charts25: one axis read
    ``500,000``, ``1M``, ``1.5M``). ``decimals``: this many after the point (in millions, of the millions),
    a linear axis' ticks all alike (``tick_decimals``); None: as few as the value needs (a log axis' 0.3, 1, 3)."""
    if abs(value) >= 1e6 or (millions and value):
        return f"{value / 1e6:,.6g}M" if decimals is None else f"{value / 1e6:,.{decimals}f}M"
    if decimals is not None and not millions:  # an axis in millions writes its 0 so
        return f"{value:,.{decimals}f}"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:g}"


MAX_TICK_DECIMALS = 6


def tick_decimals(locs, millions: bool = False) -> int:
    """The decimals the finest of a linear axis' ticks needs (in millions where ``millions``), for all of them: one
    axis read ``3.8``, ``4``, ``4.2`` (s47g; the whole number looked like another scale's), now ``4.0``."""
    needed = 0
    for value in locs:
        scaled = abs(value) / 1e6 if millions else abs(value)
        text = f"{round(scaled, MAX_TICK_DECIMALS):.{MAX_TICK_DECIMALS}f}".rstrip("0")  # 3.2000000000000006: 1
        needed = max(needed, len(text.split(".")[1]))
    return needed


def _linear_ticks(millions: bool):
    """The formatter of a linear axis: ``tick_label`` with the decimals its ticks share (matplotlib hands a
    formatter every tick's place, ``set_locs``, before it asks for their labels)."""
    from matplotlib.ticker import Formatter

    class SharedDecimals(Formatter):
        decimals: int | None = None

        def set_locs(self, locs):
            self.locs, self.decimals = locs, tick_decimals(locs, millions)

        def __call__(self, value, pos=None):
            return tick_label(value, millions=millions, decimals=self.decimals)

    return SharedDecimals()


# A linear axis starts at 0 where its smallest value is at most this share of its largest: 0 then costs at most this
# share of the plot, and a reader gets the origin to read distances from. Past it the axis hugs its values (s45e: a
# sweep of 42 to 134 tok/s/user drawn from 0 left the plot's left third empty and crowded its conc 128 to 512, where
# the PR's points and their baselines sit closest, into the rest; InferenceX's own charts float their throughput axis
# off 0 alike, and the PR's verdicts are changes relative to its baseline beside each point, not to 0).
NEAR_ZERO = 0.2
# Such an axis spans at least this share of its largest value, centred on its values: a spread of a few percent is
# never magnified into the plot's whole width (a 5 % change moves a point at most a sixth of it).
MIN_SPAN = 0.3


def axis_limits(values: list[float]) -> tuple[float, float]:
    """A linear axis' (low, high): from 0 to HEADROOM past the largest value where the smallest is within NEAR_ZERO
    of 0; else around the values, HEADROOM's share of their spread (at least MIN_SPAN of the largest) past either
    end. Every value lies inside, at most about a fifth of the axis lies past the outermost values at either end
    (unless their spread is under MIN_SPAN), and the low end is never below 0."""
    low, high = min(values), max(values)
    if low <= high * NEAR_ZERO or high <= 0:
        return 0.0, max(high * HEADROOM, 1e-9)
    span = max(high - low, high * MIN_SPAN)
    middle, reach = (low + high) / 2, span * (0.5 + HEADROOM - 1)
    return max(0.0, middle - reach), middle + reach


# An axis whose values span this factor or more is logarithmic (all above 0). On a linear axis from 0 a value a
# tenth of the largest sits in the plot's lowest tenth, where a change of a threshold's size (5 %) moves its
# marker a pixel or two, and a recipe 40x below another in one chart drew its whole front as a flat line
# on the axis (review s35: 100x, the bound before, left a real sweep of conc 4 to 512, 29 to 1,400
# tok/s/GPU, linear, its conc 4 to 16 in the corner).
LOG_SPAN = 10
LOG_PAD = 1.4  # a logarithmic axis ends this factor past its smallest and largest values
LOG_NOTE = " (log scale)"  # after such an axis' label
# The labelled ticks per decade of a logarithmic axis, fewest first: the first that gives the axis
# MIN_LOG_TICKS labelled ticks is used (review: 4 to 840 tok/s/user was labelled 10 and 100 alone).
LOG_SUBS = ((1.0,), (1.0, 3.0), (1.0, 2.0, 5.0), (1.0, 2.0, 3.0, 5.0))  # the last: 4 over a tenfold span
MIN_LOG_TICKS = 4


def log_ticks(low: float, high: float) -> tuple[float, ...]:
    """The LOG_SUBS entry giving a logarithmic axis from ``low`` to ``high`` MIN_LOG_TICKS labelled
    ticks (1, 10, 100, 1,000 over many decades; 10, 30, 100, 300 over two)."""
    decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    for subs in LOG_SUBS:
        if sum(low <= sub * 10.0 ** k <= high for k in decades for sub in subs) >= MIN_LOG_TICKS:
            return subs
    return LOG_SUBS[-1]


def is_log_axis(values: list[float]) -> bool:
    """Values spanning LOG_SPAN or more (review: a sweep from conc 1 to 4096, 5 to 2,000,000 tok/s/GPU
    on a linear axis, drew every point but the top one on the axis line, a +30 % change at conc 16
    invisible: the verdicts judge relative changes, which a log axis shows alike at every height).
    ``values``: the whole group's, so every recipe of a chart, and every part of it, shares the scale."""
    return min(values) > 0 and max(values) >= LOG_SPAN * min(values)


def _axes(ax, items: list[dict], extra: list[tuple[float, float]] = ()) -> None:
    """Labels, plain tick numbers, and each axis from 0 or around its values (``axis_limits``) to
    past every point of ``items`` (the whole group's, so the parts of one group share their scales);
    logarithmic where its values span LOG_SPAN (``is_log_axis``), and so labelled, with ticks enough
    to read it by (``log_ticks``)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    points = [item["at"] for item in items] + [item["base"] for item in items if item["base"]] + list(extra)
    for axis, scale, limit, label, i in ((ax.xaxis, ax.set_xscale, ax.set_xlim, X_LABEL, 0),
                                         (ax.yaxis, ax.set_yscale, ax.set_ylim, Y_LABEL, 1)):
        values = [p[i] for p in points]
        log = is_log_axis(values)
        low, high = (min(values) / LOG_PAD, max(values) * LOG_PAD) if log else axis_limits(values)
        if log:
            scale("log")
            axis.set_major_locator(LogLocator(subs=log_ticks(low, high)))
            axis.set_minor_formatter(NullFormatter())  # 2x10^3, 3x10^3 ... crowd the plain ticks
        limit(low, high)
        if log:  # a log axis' ticks as few digits as each needs (0.3, 1, 3), and 10 and 100 stay so, not 1e-05M
            axis.set_major_formatter(FuncFormatter(lambda value, _pos: tick_label(value)))
        else:
            axis.set_major_formatter(_linear_ticks(millions=high >= 1e6))
        axis.set_label_text(label + (LOG_NOTE if log else ""))


def draw_chart(group: tuple, items: list[dict], run: str, part: tuple[int, int] = (1, 1),
               whole: list[dict] | None = None, rows: int | None = None, baseline: tuple[str, int] = BASELINE,
               context: tuple | None = None, sought: bool = False):
    """One matplotlib Figure (not pyplot-managed) for one chart group (``part`` k of n of it, its
    axes scaled to ``whole``, all the group's items: review, parts 1 and 5 of one group ran to
    15,000 and 21,000 and looked alike when they were not; its series' colours, markers and legend
    labels planned over ``whole`` too, so a recipe looks alike in every part). ``rows``: the legend lines to reserve,
    the most any part of the group takes (review: a part whose legend named a regression, a
    failed and a new point had a shorter plot than the next part), else ``legend_rows(items)``.
    ``baseline``: (ref, window) the baseline medians come from, as the legend names them. ``context``: the nearest
    recipe the baseline measured, for a group with no baseline (``contexts``), drawn faint and named in the legend;
    a group with neither says so in its title (``no_baseline_words``; ``sought``: whether a context was sought)."""
    import matplotlib

    with matplotlib.rc_context(LITERAL_TEXT):  # each Text keeps it once made: in a figure drawn outside draw_charts too
        return _draw_chart(group, items, run, part, whole or items, rows, baseline, context, sought)


def _draw_chart(group, items, run, part, whole, rows, baseline, context, sought):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = rows or legend_rows(items, whole, extra=bool(context))
    width, height = figure_size(crowd(whole, context))
    fig = Figure(figsize=(width, height + LEGEND_ROW * rows), dpi=DPI, layout="constrained")
    fig.get_layout_engine().set(w_pad=SIDE_PAD / 72)  # the rightmost tick label clear of the edge
    FigureCanvasAgg(fig)  # a renderer, to measure the conc labels with
    ax = fig.add_subplot()
    chart = series_styles(whole)  # the group's, before it is split: a recipe looks alike in every part
    styles = {s: chart[s] for s in dict.fromkeys(item["series"] for item in items)}
    around = _draw_context(ax, context)
    fronts = _draw_fronts(ax, items, styles)
    _draw_points(ax, items, styles)
    inks = max(len({item["series"] for item in part}) for part in chart_parts(whole))
    told = [(context_style(), context_label(group, context, baseline))] if context else []
    _legend(fig, items, run, styles, fronts, rows, baseline, inks, whole, told)
    _axes(ax, whole, [xy for xy, _ in around])
    title = printable(chart_title(group)) + (f" (part {part[0]} of {part[1]})" if part[1] > 1 else "")
    if not context and not any(item["base"] for item in whole):
        title += "\n" + no_baseline_words(group, whole, baseline, sought)
    if any(item["rehearsal"] or item["base-rehearsal"] for item in items):
        title += "\nREHEARSAL: stand-in server figures, not a GPU measurement"
    heading = ax.set_title(title, loc="left", fontsize=TEXT_SIZE["axes.titlesize"])
    fig.get_layout_engine().execute(fig)  # where the title starts, beside the axis labels
    heading.set_fontsize(_fitted_size(heading, fig, TEXT_SIZE["axes.titlesize"]))
    fig.get_layout_engine().execute(fig)  # again, for the fitted title: where each point lands, in pixels
    _place_labels(fig, ax, items, styles, ring_hidden_baselines(fig, ax, items), around)
    return fig


def figure_size(points: int) -> tuple[float, float]:
    """(width, plot height) in inches of a chart drawing ``points`` markers of its own (``FIGURE_SIZE`` and on)."""
    growth = min(MAX_GROWTH, max(1.0, math.sqrt(points / ROOMY_POINTS)))
    return FIGURE_SIZE[0] * growth, FIGURE_SIZE[1] * growth


def crowd(whole: list[dict], context: tuple | None = None) -> int:
    """How many points a chart of the group ``whole`` draws, for its size: its fullest part's (``chart_parts``: the
    parts of one group are one size), and its context's (``contexts``)."""
    return max(len(part) for part in chart_parts(whole)) + len(context[2] if context else ())


def planned(comparison: C.Comparison) -> list[tuple[str, tuple, list[dict], tuple[int, int]]]:
    """Every chart of a comparison: (file stem, group, items, (part, parts)), in file-name order."""
    groups = chart_groups(comparison)
    out = []
    for group, name in chart_names(sorted(groups, key=lambda g: (chart_name(g), str(g)))).items():
        parts = chart_parts(groups[group])
        for k, items in enumerate(parts, 1):
            out.append((name if len(parts) == 1 else f"{name}_part{k}of{len(parts)}", group, items, (k, len(parts))))
    return out


def with_a_change(charts: list[tuple]) -> list[str]:
    """The stems of the ``planned`` charts that show a regressed, improved, failed or not measured point."""
    return [stem for stem, _, items, _ in charts if any(item["flag"] for item in items)]


def not_judged(charts: list[tuple], comparison: C.Comparison) -> list[str]:
    """The stems of the ``planned`` charts with a point the run measured that was not judged in some
    metric (too few baseline runs, or a metric main never measured): such a chart is no chart "without
    a change", whatever its points show (review: one whose only point moved -20 % against two main runs
    was folded among the unchanged)."""
    pending = {v.point for v in comparison.verdicts if v.verdict in (C.INSUFFICIENT, C.NEW)}
    return [stem for stem, _, items, _ in charts if any(item["point"] in pending for item in items)]


def draw_charts(comparison: C.Comparison, out_dir: str | Path, formats: tuple[str, ...] = FORMATS,
                progress=None, charts: list | None = None, baseline: tuple[str, int] = BASELINE,
                removed: list | None = None) -> list[Path]:
    """Write one PNG and one SVG per chart into ``out_dir``; return the paths written. ``progress``
    wraps the list of charts (a progress bar on a terminal); ``charts``: ``planned(comparison)``
    when the caller has it already; ``baseline``: the comparison's (baseline ref, window). The charts an
    earlier run wrote there that this one does not draw are removed first (``remove_stale``; their
    paths added to ``removed``), so the folder never shows a stale chart beside fresh ones. With no
    chart to draw, a folder that does not exist is not made (an empty new folder read as charts lost)."""
    import matplotlib

    out = Path(out_dir)
    outpaths.no_dangling_link(out, "--plots")
    charts = planned(comparison) if charts is None else charts
    if not charts and not out.is_dir():
        return []
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(str(out), 0, f"cannot create the plots folder: {os_reason(exc)}",
                   "pass a writable --plots DIR") from None
    written = []
    gone = remove_stale(out, {f"{stem}.{fmt}" for stem, *_ in charts for fmt in formats})
    if removed is not None:
        removed.extend(gone)
    whole: dict[tuple, list[dict]] = {}
    rows: dict[tuple, int] = {}  # a group's parts: one legend height, one plot size
    for _, group, items, _ in charts:
        whole.setdefault(group, []).extend(items)
    for _, group, items, _ in charts:
        rows[group] = max(rows.get(group, 0), legend_rows(items, whole[group], extra=group in (comparison.context or {})))
    try:
        with matplotlib.rc_context(STYLE):
            for stem, group, items, part in progress(charts) if progress else charts:
                fig = draw_chart(group, items, comparison.run, part, whole[group], rows[group], baseline,
                                 (comparison.context or {}).get(group), comparison.context is not None)
                for fmt in formats:
                    written.append(_save(fig, out / f"{stem}.{fmt}", fmt))
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM: the charts not yet redrawn are an earlier run's, same names
        unfinished = [out / f"{stem}.{fmt}" for stem, *_ in charts for fmt in formats]
        gone = remove_stale(out, {path.name for path in written}, among={path.name for path in unfinished})
        if removed is not None:
            removed.extend(gone)
        raise
    return written


# How a chart's own bytes say sweepgate wrote it (METADATA, near the file's start): what ``remove_stale``
# removes, so a user's files in the --plots folder (notes, another tool's charts) are never touched.
_PNG_TEXT = b"Software\x00" + METADATA["png"]["Software"].encode()
_OURS = {".png": re.compile(re.escape(len(_PNG_TEXT).to_bytes(4, "big") + b"tEXt" + _PNG_TEXT)),  # the whole chunk
         ".svg": re.compile(rb"<dc:creator>\s*<cc:Agent>\s*<dc:title>" + re.escape(METADATA["svg"]["Creator"].encode())
                            + rb"</dc:title>")}
_HEAD = 8192  # bytes of a file read to tell: both marks stand in the first kilobyte


def is_ours(path: Path) -> bool:
    """Whether ``path`` is a regular file (not a link) holding a chart sweepgate wrote (``_OURS``)."""
    import stat

    mark = _OURS.get(path.suffix.lower())
    try:
        if mark is None or not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        with open(path, "rb") as fh:
            return bool(mark.search(fh.read(_HEAD)))
    except OSError:
        return False


def removed_line(prog: str, removed: list, folder) -> str | None:
    """The line a command says on stderr of the charts ``remove_stale`` removed from ``folder``, None for none:
    every command that draws into a folder a user names says it (never a silent loss)."""
    from sweepgate.core.report import count

    if not removed:
        return None
    return f"{prog}: removed {count(len(removed), 'chart file')} an earlier run wrote into {folder} that this run does not draw"


def remove_stale(folder: Path, keep: set[str], among: set[str] | None = None) -> list[Path]:
    """Remove the charts sweepgate wrote into ``folder`` before whose names are not in ``keep`` (only those
    named in ``among``, when given); return them. Anything else (a user's notes, their own charts, a link)
    stays; one already gone is no error. An interrupted ``draw_charts`` removes so the charts of this run's
    names it had yet to redraw (new-user28: Ctrl-C left an earlier run's charts beside this run's, under
    the same names, and nothing told them apart)."""
    try:
        names = sorted(os.listdir(folder) if among is None else among)
    except OSError:
        return []
    gone = []
    for name in names:
        path = folder / name
        if name not in keep and is_ours(path):
            try:
                path.unlink()
            except FileNotFoundError:  # another compare into the folder removed it first
                continue
            except OSError as exc:
                raise fail(str(path), 0, f"cannot remove this chart an earlier run left: {os_reason(exc)}",
                           "remove it, or pass an empty --plots DIR") from None
            gone.append(path)
    return gone


def _save(fig, path: Path, fmt: str) -> Path:
    """Write via a temporary file and rename, so a failure never leaves half a chart."""
    from sweepgate.core.atomic import temporary_beside

    try:  # a name of its own: two runs writing one --plots folder must not rename each other's file
        with temporary_beside(path) as (fd, name):  # Ctrl-C mid-savefig, or before it began: no part is left
            os.close(fd)
            os.chmod(name, 0o644)  # mkstemp's 0600 would make every chart private
            fig.savefig(name, format=fmt, metadata=METADATA[fmt])
            os.replace(name, path)
    except OSError as exc:
        raise fail(str(path), 0, f"cannot write the chart: {os_reason(exc)}", "pass a writable --plots DIR") from None
    return path
