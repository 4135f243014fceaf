"""Throughput-per-GPU against interactivity charts for a comparison (matplotlib, Agg).

One chart per (model, precision, hardware, scenario, isl/osl): every PR point and
every baseline median point (one marker each, with an SVG id a test can count),
each PR point labelled with its concurrency, the two Pareto fronts, and the PR
points that regressed or improved ringed. Charts are drawn without pyplot and
saved with fixed metadata and SVG hash salt, so the same comparison gives the
same bytes.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

from sweepgate.core.errors import fail
from sweepgate.results import compare as C
from sweepgate.results import record as R

X, Y = R.INTERACTIVITY, R.OUTPUT_TPUT_PER_GPU
X_LABEL = "Interactivity (tok/s/user)"
Y_LABEL = "Output throughput per GPU (tok/s/GPU)"
GROUP = (R.MODEL, R.PRECISION, R.HARDWARE, R.SCENARIO, R.ISL, R.OSL)
PR_GID, BASE_GID = "pr-point", "baseline-point"
FORMATS = ("png", "svg")
STYLE = {"svg.hashsalt": "sweepgate", "svg.fonttype": "none", "font.size": 9, "axes.grid": True,
         "grid.alpha": 0.3, "axes.spines.top": False, "axes.spines.right": False}
PALETTE = ("#1f77b4", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#bcbd22")
COLORS = {C.REGRESSED: "#d62728", C.IMPROVED: "#2ca02c", "baseline": "#7f7f7f"}
METADATA = {"png": {"Software": "sweepgate"}, "svg": {"Date": None, "Creator": "sweepgate"}}


def pareto_front(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The points no other point beats on both axes (higher is better on both), by x."""
    front, best_y = [], float("-inf")
    for x, y in sorted(set(points), key=lambda p: (-p[0], -p[1])):
        if y > best_y:
            front.append((x, y))
            best_y = y
    return sorted(front)


def _xy(metrics: dict) -> tuple[float, float] | None:
    x, y = C.number(metrics.get(X)), C.number(metrics.get(Y))
    return None if x is None or y is None else (x, y)


def _median_xy(records: list[dict]) -> tuple[float, float] | None:
    pairs = [p for p in (_xy(r.get(R.METRICS) or {}) for r in records) if p]
    if not pairs:
        return None
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def _flags(comparison: C.Comparison) -> dict[tuple, str]:
    """point -> regressed | improved (regressed wins), from the throughput and interactivity verdicts."""
    out: dict[tuple, str] = {}
    for v in comparison.verdicts:
        if v.metric in (X, Y) and v.verdict in (C.REGRESSED, C.IMPROVED):
            out[v.point] = C.REGRESSED if C.REGRESSED in (v.verdict, out.get(v.point)) else v.verdict
    return out


def chart_groups(comparison: C.Comparison) -> dict[tuple, list[dict]]:
    """group -> [{point, key, conc, pr: (x, y), base: (x, y) | None, flag, rehearsal}], sorted."""
    flags, groups = _flags(comparison), {}
    for pt in sorted(comparison.heads, key=C.point_sort_key):
        head = comparison.heads[pt]
        pr = _xy(head.get(R.METRICS) or {})
        if pr is None:
            continue
        base = comparison.baselines.get(pt, [])
        groups.setdefault(tuple(head.get(g) for g in GROUP), []).append({
            "point": pt, "key": head.get(R.CONFIG_KEY), "conc": head.get(R.CONC), "pr": pr,
            "base": _median_xy(base), "flag": flags.get(pt),
            "rehearsal": bool(head.get(R.REHEARSAL)) or any(b.get(R.REHEARSAL) for b in base)})
    return groups


def chart_name(group: tuple) -> str:
    model, precision, hardware, scenario, isl, osl = group
    seq = f"{isl}x{osl}" if isl is not None and osl is not None else ""
    parts = [str(p) for p in (str(model).split("/")[-1], precision, hardware, scenario, seq) if p]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", "_".join(parts)).strip("-") or "chart"


def chart_title(group: tuple) -> str:
    model, precision, hardware, scenario, isl, osl = group
    seq = f" {isl}/{osl}" if isl is not None and osl is not None else ""
    return f"{model} {precision} on {hardware}: {scenario}{seq}"


def _draw_front(ax, points: list[tuple[float, float]], color: str, style: str, label: str) -> None:
    front = pareto_front(points)
    if len(front) > 1:  # one point is no line: the legend would name something not drawn
        ax.plot([p[0] for p in front], [p[1] for p in front], linestyle=style, color=color, linewidth=1.6,
                drawstyle="default", label=label, zorder=2)


def _draw_points(ax, items: list[dict]) -> None:
    keys = list(dict.fromkeys(item["key"] for item in items))
    for i, item in enumerate(items):
        color = PALETTE[keys.index(item["key"]) % len(PALETTE)]
        if item["base"]:
            ax.plot(*item["base"], marker="o", markersize=6, markerfacecolor="white", linestyle="none",
                    markeredgecolor=COLORS["baseline"], gid=f"{BASE_GID}-{i}", zorder=3)
        ax.plot(*item["pr"], marker="o", markersize=6, color=color, linestyle="none",
                gid=f"{PR_GID}-{i}", zorder=4)
        if item["flag"]:
            ax.plot(*item["pr"], marker="o", markersize=13, markerfacecolor="none", linestyle="none",
                    markeredgewidth=2, markeredgecolor=COLORS[item["flag"]], zorder=5)
        ax.annotate(str(item["conc"]), item["pr"], xytext=(5, 4), textcoords="offset points", fontsize=8,
                    color="#222222", zorder=6)


def _legend(ax, items: list[dict], run: str) -> None:
    from matplotlib.lines import Line2D

    keys = list(dict.fromkeys(item["key"] for item in items))
    mark = " (rehearsal)" if any(item["rehearsal"] for item in items) else ""
    handles = [Line2D([], [], marker="o", linestyle="none", color=PALETTE[i % len(PALETTE)],
                      label=f"PR run {run}{mark}: {key}") for i, key in enumerate(keys)]
    handles.append(Line2D([], [], marker="o", linestyle="none", markerfacecolor="white",
                          markeredgecolor=COLORS["baseline"], label=f"baseline median{mark}"))
    handles += [h for h in ax.get_lines() if not h.get_label().startswith("_")]
    for flag in (C.REGRESSED, C.IMPROVED):
        if any(item["flag"] == flag for item in items):
            handles.append(Line2D([], [], marker="o", markersize=10, markerfacecolor="none", linestyle="none",
                                  markeredgewidth=2, markeredgecolor=COLORS[flag], label=flag))
    ax.legend(handles=handles, loc="best", fontsize=8, framealpha=0.9)


HEADROOM = 1.12  # axes end this far past the largest value, so no marker, ring or label is cut


def tick_label(value: float, _pos=None) -> str:
    """Axis ticks in plain numbers with thousands separators (never matplotlib's `1e6` offset)."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:g}"


def _axes(ax, items: list[dict]) -> None:
    """Labels, plain tick numbers, and both axes from 0 to past every point drawn."""
    from matplotlib.ticker import FuncFormatter

    ax.set_xlabel(X_LABEL)
    ax.set_ylabel(Y_LABEL)
    points = [item["pr"] for item in items] + [item["base"] for item in items if item["base"]]
    for axis, limit, i in ((ax.xaxis, ax.set_xlim, 0), (ax.yaxis, ax.set_ylim, 1)):
        axis.set_major_formatter(FuncFormatter(tick_label))
        limit(0, max(max(p[i] for p in points) * HEADROOM, 1e-9))


def draw_chart(group: tuple, items: list[dict], run: str):
    """One matplotlib Figure (not pyplot-managed) for one chart group."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 5.5), dpi=110, layout="constrained")
    ax = fig.add_subplot()
    _draw_front(ax, [item["base"] for item in items if item["base"]], COLORS["baseline"], "--",
                "baseline median front")
    _draw_front(ax, [item["pr"] for item in items], "#333333", "-", "PR front")
    _draw_points(ax, items)
    _legend(ax, items, run)
    _axes(ax, items)
    title = chart_title(group)
    if any(item["rehearsal"] for item in items):
        title += "\nREHEARSAL: stand-in server figures, not a GPU measurement"
    ax.set_title(title, loc="left")
    return fig


def draw_charts(comparison: C.Comparison, out_dir: str | Path, formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """Write one PNG and one SVG per chart group into ``out_dir``; return the paths written."""
    import matplotlib

    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(str(out), 0, f"cannot create the plots folder: {exc.strerror}",
                   "pass a writable --plots DIR") from None
    written = []
    with matplotlib.rc_context(STYLE):
        for group, items in sorted(chart_groups(comparison).items(), key=lambda kv: chart_name(kv[0])):
            fig = draw_chart(group, items, comparison.run)
            for fmt in formats:
                written.append(_save(fig, out / f"{chart_name(group)}.{fmt}", fmt))
    return written


def _save(fig, path: Path, fmt: str) -> Path:
    """Write via a temporary file and rename, so a failure never leaves half a chart."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        fig.savefig(tmp, format=fmt, metadata=METADATA[fmt])
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise fail(str(path), 0, f"cannot write the chart: {exc.strerror}", "pass a writable --plots DIR") from None
    return path
