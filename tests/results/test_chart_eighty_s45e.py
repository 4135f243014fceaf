"""s45e: a chart of 80 points (5 recipes of 16 concurrencies, conc 4 to 768: a real gpt-oss-120b vLLM sweep's
outputs, each recipe and run scaled, through `results ingest`) drew 14 leaders into the bundle of fronts, 6 of them
crossing other recipes' fronts, where a reader could not tell whose point each "128" was. Now no leader crosses a
line, and in a chart this crowded a label stands off its point only for a point that changed or ends its sweep
(``charts.CROWDED_POINTS``); the rest are labelled where a label fits beside them. Measured on matplotlib's objects
(pixel boxes, segments, marker centres), never on the image's pixels."""

from __future__ import annotations

import numpy as np
import pytest

import test_chart_crowded_s44h as crowded
from sweepgate.results import charts

CONCS = (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768)


@pytest.fixture(scope="module")
def eighty(tmp_path_factory):
    comp = crowded._comparison(tmp_path_factory.mktemp("eighty"), list(crowded.KEYS), list(crowded.KEYS), CONCS)
    fig, items = crowded._draw(comp)
    assert len(items) == 80
    return fig, items


def _cross(a, b, c, d) -> bool:
    """Whether segment ab crosses segment cd (each end strictly on either side of the other)."""
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def _leaders(ax):
    return [ln for ln in ax.get_lines() if (ln.get_gid() or "").startswith(charts.LEADER_GID)]


def test_no_leader_crosses_a_line(eighty):
    fig, _ = eighty
    ax = fig.axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() != "None"]
    crossed = []
    for leader in _leaders(ax):
        (a, b) = ax.transData.transform(leader.get_xydata())
        for line in lines:
            if line is leader:
                continue
            xy = ax.transData.transform(line.get_xydata())
            crossed += [(leader.get_gid(), line.get_gid()) for c, d in zip(xy, xy[1:]) if _cross(a, b, c, d)]
    assert not crossed, crossed


def test_labels_cover_no_label_and_no_marker_and_stay_in_the_plot(eighty):
    fig, items = eighty
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts]
    centres = ax.transData.transform([item["at"] for item in items] + [item["base"] for item in items if item["base"]])
    half = charts.MARKER_SIZE / 2 * fig.dpi / 72
    for i, (text, box) in enumerate(boxes):
        assert ax.bbox.contains(box.x0, box.y0) and ax.bbox.contains(box.x1, box.y1), text
        assert not any(box.overlaps(other) for _, other in boxes[i + 1:]), text
        dx = np.maximum(np.maximum(box.x0 - centres[:, 0], centres[:, 0] - box.x1), 0)
        dy = np.maximum(np.maximum(box.y0 - centres[:, 1], centres[:, 1] - box.y1), 0)
        assert (np.hypot(dx, dy) >= half).all(), text


def test_only_a_changed_point_or_a_sweep_s_end_is_labelled_off_its_point(eighty):
    """The stated rule (``charts._may_lead``): every leader is a changed point's or a recipe's lowest or highest
    concurrency's; the ringed points are all labelled, with their verdict; most points are labelled."""
    fig, items = eighty
    ax = fig.axes[0]
    ends = set()
    for series in {item["series"] for item in items}:
        concs = [item["conc"] for item in items if item["series"] == series]
        ends |= {(series, min(concs)), (series, max(concs))}
    for leader in _leaders(ax):
        item = items[int(leader.get_gid().rsplit("-", 1)[1])]
        assert item["flag"] or item["new"] or (item["series"], item["conc"]) in ends, leader.get_gid()
    texts = [t.get_text() for t in ax.texts]
    ringed = [item for item in items if item["verdict"]]
    assert ringed and sum(("regressed" in t or "improved" in t) for t in texts) == len(ringed), texts
    assert len(texts) >= 0.8 * len(items), len(texts)
