"""s42c: the chart palette's cyan (#17becf) stood at 2.2:1 against the chart's white background, its pink
(#e377c2) at 2.7:1, under the 3:1 WCAG 2.x asks of graphical objects (markers, lines). Every palette colour and
every point label's ink now reaches 3:1 against the background the charts are drawn on (read from charts.py, as
the charts read it), and the palette's colours stay apart from each other, to a reader with normal colour vision
and under a simulation of protanopia and deuteranopia (each series has its own marker shape besides)."""

from __future__ import annotations

from itertools import combinations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C

GRAPHICS = 3.0  # WCAG 2.x 1.4.11: graphical objects, and large text, against what is next to them
# Machado, Oliveira and Fernandes (2009), severity 1.0, applied to linear sRGB.
DICHROMACY = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
}
APART = {"normal": 25.0, "protanopia": 10.0, "deuteranopia": 10.0}  # least CIELAB distance between two series


def _linear(rgb):
    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]


def _luminance(rgb) -> float:
    r, g, b = _linear(rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(colour, background) -> float:
    """WCAG 2 contrast ratio, computed here from the definition (not by the module's own helper)."""
    from matplotlib.colors import to_rgb

    a, b = sorted((_luminance(to_rgb(colour)), _luminance(to_rgb(background))))
    return (b + 0.05) / (a + 0.05)


def _lab(linear) -> tuple[float, float, float]:
    x, y, z = (sum(m * c for m, c in zip(row, linear)) / w for row, w in zip(
        ((0.4124, 0.3576, 0.1805), (0.2126, 0.7152, 0.0722), (0.0193, 0.1192, 0.9505)), (0.95047, 1.0, 1.08883)))
    f = [t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def seen(colour, vision: str) -> tuple[float, float, float]:
    """The CIELAB colour a reader with ``vision`` sees of ``colour``."""
    from matplotlib.colors import to_rgb

    linear = _linear(to_rgb(colour))
    if vision in DICHROMACY:
        linear = [min(max(sum(m * c for m, c in zip(row, linear)), 0.0), 1.0) for row in DICHROMACY[vision]]
    return _lab(linear)


def test_every_palette_colour_and_label_ink_reaches_3_to_1_on_the_chart_background():
    background = charts.BACKGROUND
    low = {c: round(ratio(c, background), 2) for c in charts.PALETTE if ratio(c, background) < GRAPHICS}
    assert not low, low
    inks = {c: charts.label_ink(c) for c in charts.PALETTE}
    assert all(ratio(ink, background) >= GRAPHICS for ink in inks.values()), inks
    assert ratio(charts.ONE_SERIES_INK, background) >= GRAPHICS
    assert all(ratio(c, background) >= GRAPHICS for c in charts.COLORS.values()), charts.COLORS
    assert ratio(charts.CONTEXT_INK, background) >= GRAPHICS  # a new recipe's context (faint, still seen)


def test_the_charts_are_drawn_on_that_background_and_every_label_reads_on_it():
    """A chart of six series (every palette colour) and one of one series: the plot's background is the module's,
    and every point label's colour reaches 3:1 on it."""
    from matplotlib.colors import to_rgb

    keys = tuple(f"dsr1-fp8-b300-vllm-k{n}" for n in range(len(charts.PALETTE)))
    for chosen in (keys, keys[:1]):
        comparison = C.compare_records(synth.pr_run(keys=chosen, concs=(4, 8)), synth.history(keys=chosen, concs=(4, 8)))
        ((_stem, group, items, part),) = charts.planned(comparison)
        import matplotlib

        with matplotlib.rc_context(charts.STYLE):
            fig = charts.draw_chart(group, items, "pr-7", part)
        ax = fig.axes[0]
        assert to_rgb(ax.get_facecolor()) == to_rgb(fig.get_facecolor()) == to_rgb(charts.BACKGROUND)
        colours = {text.get_color() for text in ax.texts}
        assert colours and all(ratio(c, charts.BACKGROUND) >= GRAPHICS for c in colours), colours


def test_the_palette_s_colours_stay_apart_in_normal_and_red_green_colour_blind_vision():
    import math

    for vision, least in APART.items():
        gaps = {(a, b): math.dist(seen(a, vision), seen(b, vision)) for a, b in combinations(charts.PALETTE, 2)}
        close = {pair: round(gap, 1) for pair, gap in gaps.items() if gap < least}
        assert not close, (vision, close)
    assert len(set(charts.MARKERS)) == len(charts.PALETTE)  # and a shape of its own each


def _composited(colour, alpha: float, background=charts.BACKGROUND) -> tuple[float, float, float]:
    """``colour`` at ``alpha`` as it lands on ``background``: blended in sRGB, as matplotlib's Agg draws it."""
    from matplotlib.colors import to_rgb

    return tuple(alpha * c + (1 - alpha) * b for c, b in zip(to_rgb(colour), to_rgb(background)))


def _drawn_with_alpha(fig, but=()) -> list[tuple[str, tuple[float, float, float]]]:
    """(what, composited colour) of every ink a figure draws at an opacity under 1 but over 0, but the artists
    ``but``: an artist's alpha, or its colour's own; a fully transparent face (a hollow marker's) is no ink."""
    from matplotlib.colors import to_rgba

    out = []
    for artist in fig.findobj(lambda a: a.get_visible() and not any(a is b for b in but)):
        marked = getattr(artist, "get_marker", lambda: "o")() not in (None, "None", "", " ", "none")
        for getter in ("get_color", "get_markeredgecolor", "get_markerfacecolor", "get_edgecolor", "get_facecolor"):
            if not hasattr(artist, getter) or (getter.startswith("get_marker") and not marked):
                continue
            try:
                colours = getattr(artist, getter)()
                rgba = [to_rgba(c) for c in (colours if getattr(colours, "ndim", 1) == 2 else [colours])]
            except (TypeError, ValueError):  # not one colour (a colour map's array)
                continue
            for r, g, b, a in rgba:
                alpha = a * (artist.get_alpha() if artist.get_alpha() is not None else 1.0)
                if 0 < alpha < 1:
                    out.append((f"{type(artist).__name__} {artist.get_gid() or artist.get_label()} {getter}",
                                _composited((r, g, b), alpha)))
    return out


def test_every_ink_drawn_with_alpha_reaches_3_to_1_as_drawn():
    """s43c: a PR point's grey line to its baseline median was #9a9a9a at alpha 0.6, drawn as #c2c2c2: 1.8:1 on the
    white (its ink alone is 2.8:1). Every ink a chart draws at an opacity below 1, composited over the BACKGROUND,
    now reaches 3:1 (by this file's ratio and by charts.contrast); the axes' grid, a reading aid no point's meaning
    rests on, is left faint (at 3:1 it would draw over the links and fronts). The links stay the faintest mark but
    the grid: lighter than every series colour, and thinner than either front."""
    from matplotlib.colors import to_rgb

    keys = synth.KEYS
    scale = {(keys[0], 16): {"output_tput_per_gpu": 0.8}, (keys[1], 64): {"output_tput_per_gpu": 1.2}}
    comparison = C.compare_records(synth.pr_run(scale=scale), synth.history())
    ((_stem, group, items, part),) = charts.planned(comparison)
    import matplotlib

    with matplotlib.rc_context(charts.STYLE):
        fig = charts.draw_chart(group, items, "pr-7", part)
    ax = fig.axes[0]
    grid = [*ax.get_xgridlines(), *ax.get_ygridlines()]
    assert grid and all(line.get_alpha() == charts.STYLE["grid.alpha"] for line in grid)
    drawn = _drawn_with_alpha(fig, but=grid)
    links = [line for line in ax.get_lines() if (line.get_gid() or "").startswith(charts.LINK_GID)]
    grey = [line for line in links if line.get_alpha() is not None and line.get_alpha() < 1]
    assert grey and len(links) > len(grey)  # unchanged points' grey links, and a regressed and an improved one's
    low = {what: round(ratio(rgb, charts.BACKGROUND), 2) for what, rgb in drawn if ratio(rgb, charts.BACKGROUND) < GRAPHICS}
    assert drawn and not low, low
    assert all(charts.contrast(rgb) >= GRAPHICS for _, rgb in drawn)
    for line in grey:
        ink = _composited(line.get_color(), line.get_alpha())
        assert charts.contrast(ink) >= GRAPHICS
        assert ratio(ink, charts.BACKGROUND) < min(ratio(c, charts.BACKGROUND) for c in charts.PALETTE)
        assert line.get_linewidth() < min(charts.FRONT_WIDTH.values())
        assert len(set(to_rgb(line.get_color()))) == 1  # grey: no series' hue
