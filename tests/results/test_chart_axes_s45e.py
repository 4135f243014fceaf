"""s45e: what a chart's linear axes show, as someone judging a PR reads them. A real sweep (gpt-oss-120b on vLLM,
42 to 134 tok/s/user over 5 recipes) was drawn on an interactivity axis from 0: its left 28 % held no point, and
the conc 128 to 512 points, where a PR's points and their baselines sit closest, were crowded into the rest. The
axis now hugs its values unless the smallest is near 0, and the rule is pinned by what it guarantees (every value
inside, little of the axis past the outermost values, 0 shown near 0, a few percent never magnified into the
whole width), measured on the numbers and on matplotlib's axes, never on pixels."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sweepgate.results import charts

# At most this share of a linear axis lies past its outermost values at either end (0 shown near 0: the smallest
# value's NEAR_ZERO share of the axis at most; else the padding of HEADROOM past each end).
MOST_EMPTY = 0.2

values = st.lists(st.floats(min_value=1e-3, max_value=1e9, allow_nan=False, allow_infinity=False), min_size=1,
                  max_size=40)


def _empty_ends(low: float, high: float, vals: list[float]) -> tuple[float, float]:
    width = high - low
    return (min(vals) - low) / width, (high - max(vals)) / width


@settings(max_examples=300, deadline=None)
@given(values)
def test_every_value_lies_inside_an_axis_that_never_goes_below_zero(vals):
    low, high = charts.axis_limits(vals)
    assert 0 <= low < min(vals) and max(vals) < high


@settings(max_examples=300, deadline=None)
@given(values)
def test_zero_is_shown_where_the_values_come_near_it(vals):
    low, _high = charts.axis_limits(vals)
    if min(vals) <= charts.NEAR_ZERO * max(vals):
        assert low == 0, (min(vals), max(vals))


@settings(max_examples=300, deadline=None)
@given(values)
def test_little_of_the_axis_lies_past_the_outermost_values(vals):
    """Spread over MIN_SPAN of their largest, the values fill all but MOST_EMPTY of the axis at either end (s45e:
    42 to 134 from 0 left 28 % of it empty); a smaller spread gets an axis MIN_SPAN of the largest wide, centred
    on them, so a change of a few percent is never drawn across the whole plot."""
    low, high = charts.axis_limits(vals)
    if max(vals) - min(vals) >= charts.MIN_SPAN * max(vals):
        left, right = _empty_ends(low, high, vals)
        assert left <= MOST_EMPTY and right <= MOST_EMPTY, (left, right)
    assert high - low >= charts.MIN_SPAN * max(vals)


@pytest.mark.parametrize(("vals", "zero"), [([42.0, 60.0, 134.1], False), ([59.8, 97.4, 119.0], False),
                                            ([12.0, 80.0, 134.0], True), ([0.0, 5.0], True)])
def test_real_sweeps_spans(vals, zero):
    """The interactivity spans of real sweeps (this file's docstring: 42 to 134 over 5 recipes; conc 4 to 256 of one
    recipe, 60 to 119), and one reaching down to 12 (conc 1 on a slow recipe) and 0."""
    low, high = charts.axis_limits(vals)
    assert (low == 0) is zero
    left, right = _empty_ends(low, high, vals)
    assert left <= MOST_EMPTY and right <= MOST_EMPTY


def test_a_forty_point_chart_s_interactivity_axis_hugs_its_points(tmp_path):
    """The real 40-point chart (``test_chart_crowded_s44h``'s): every PR point and baseline median inside the plot,
    at most MOST_EMPTY of the x axis beyond them at either end."""
    import test_chart_crowded_s44h as crowded

    comp = crowded._comparison(tmp_path, list(crowded.KEYS), list(crowded.KEYS))
    fig, items = crowded._draw(comp)
    ax = fig.axes[0]
    xs = [item["at"][0] for item in items] + [item["base"][0] for item in items if item["base"]]
    ys = [item["at"][1] for item in items] + [item["base"][1] for item in items if item["base"]]
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < min(xs) and max(xs) < x1 and y0 < min(ys) and max(ys) < y1
    assert ax.get_xscale() == "linear"
    left, right = _empty_ends(x0, x1, xs)
    assert left <= MOST_EMPTY and right <= MOST_EMPTY, (ax.get_xlim(), min(xs), max(xs))

