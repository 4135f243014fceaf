"""A broken main run at one point of a sweep must not hide a regression at another.

The prior of a metric's noise was fitted to every point's log variance by moments (limma's
fitFDist): one point whose main runs read 1000, 1000, 1000, 1000, 500 raised the variance of the log
variances so far that the prior's degrees of freedom fell from infinite to about 2, every point's
interval widened, and a 10 % regression elsewhere read `unchanged`. The fit is now robust (limma's
fitFDistRobustly, Phipson et al. 2016): the hypervariable point has prior degrees of freedom of its
own, near none, and the others keep theirs."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sweepgate.results import compare as C
from sweepgate.results import noise
from test_noise_verdict_properties_s32h import ALPHA, TPUT, TTFT, judged, worse

BROKEN = [1000.0, 1000.0, 1000.0, 1000.0, 500.0]  # main's fifth run at half the throughput


def sweep(seed: int, n: int = 20, sd: float = 0.02, slower: float = 0.10) -> list[tuple[int, dict, dict]]:
    """``n`` points of 2 % run-to-run noise, the first ``slower`` down in the PR against its median."""
    rng = random.Random(seed)
    run = []
    for conc in range(1, n + 1):
        base = [1000.0 * (1 + rng.gauss(0, sd)) for _ in range(5)]
        head = 1000.0 * (1 + rng.gauss(0, sd))
        run.append((conc, {TPUT: base}, {TPUT: statistics.median(base) * (1 - slower) if conc == 1 else head}))
    return run


def with_broken_point(run: list, head: float = 1000.0) -> list:
    return run + [(999, {TPUT: list(BROKEN)}, {TPUT: head})]


def test_a_broken_main_run_at_one_point_hides_no_regression_at_another():
    """Over 30 sweeps a 10 % regression is flagged in every one without the broken point; beside it,
    the moment fit flagged it in 14 (a 13 % one in 28). The robust fit's winsorised estimate is a
    noisier one than the moments' on clean points, so a few borderline sweeps may still differ."""
    for slower, least in ((0.10, 26), (0.13, 30)):
        alone = [judged(sweep(seed, slower=slower))[1, TPUT].verdict for seed in range(30)]
        beside = [judged(with_broken_point(sweep(seed, slower=slower)))[1, TPUT].verdict for seed in range(30)]
        assert alone.count(C.REGRESSED) == 30, (slower, alone)
        assert beside.count(C.REGRESSED) >= least and set(beside) <= {C.REGRESSED, C.UNCHANGED}, (slower, beside)


def test_the_broken_point_stands_on_its_own_spread_and_the_others_keep_the_prior():
    run = with_broken_point(sweep(1))
    shapes = [noise._shape(noise.Comparison(TPUT, head[TPUT], base[TPUT])) for _, base, head in run]
    before = noise.prior(shapes[:-1])
    fit = noise.prior(shapes)
    assert fit.d0 > 10 and fit.d0 >= 0.5 * min(before.d0, 1e9), (before, fit)
    assert fit.shrunk[-1] < 1 and min(fit.shrunk[:-1]) == fit.d0, fit
    broken = judged(run)[999, TPUT]  # a PR at main's median: within the broken point's own wide spread
    assert broken.verdict == C.UNCHANGED and broken.low < 900 and broken.high > 1000, broken


@st.composite
def steady_sweeps(draw):
    """5 to 30 points of 5 main runs within ±``bound`` of their level, one of them (conc 1) ``size``
    away in the PR from its median, ``sign`` its way."""
    bound, k = draw(st.floats(0.005, 0.03)), draw(st.integers(5, 30))
    noise_ = st.lists(st.floats(-bound, bound), min_size=6, max_size=6)
    metric, sign, size = draw(st.sampled_from((TPUT, TTFT))), draw(st.sampled_from((-1, 1))), draw(st.floats(0.06, 0.3))
    run = []
    for conc in range(1, k + 1):
        level, e = draw(st.floats(1.0, 1e4)), draw(noise_)
        base = [level * (1 + x) for x in e[:5]]
        head = statistics.median(base) * (1 + sign * size) if conc == 1 else level * (1 + e[5])
        run.append((conc, {metric: base}, {metric: head}))
    return run, metric, sign


SMALL = ([(1, {TPUT: [1.0, 1.0, 1.0, 1.02734375, 0.984375]}, {TPUT: 0.9375})]
         + [(conc, {TPUT: [1.0, 1.0, 1.0, 1.0, 1.015625]}, {TPUT: 1.0}) for conc in range(2, 6)], TPUT, -1)


@settings(max_examples=150, deadline=None)
@example(SMALL, 1.0, 0.3, 0, 1.0)  # found by it: a 6 % drop, p-adjusted 1e-5, read `unchanged` (the moment fit's d0 0.6)
@given(steady_sweeps(), st.floats(1.0, 1e4), st.sampled_from((0.3, 0.5, 0.7, 1.5, 2.0, 3.0)), st.integers(0, 4),
       st.floats(0.5, 2.0))
def test_one_hypervariable_point_never_hides_a_large_regression(sweep_, level, broken, which, head):
    """A point one of whose main runs was broken (0.3-3 times the others), added to a sweep of steady
    points: a 12-60 % change elsewhere that was flagged stays flagged, its way."""
    run, metric, sign = sweep_
    before = judged(run)[1, metric]
    odd = [level] * 5
    odd[which] *= broken
    after = judged(run + [(999, {metric: odd}, {metric: level * head})])[1, metric]
    if before.verdict in (C.REGRESSED, C.IMPROVED) and before.p_adjusted <= ALPHA / 5:  # not one a 6th point's share of the cut tips
        assert after.verdict == before.verdict == (C.REGRESSED if worse(metric, sign) else C.IMPROVED), (before, after)


# Found by the property above in the forty-eighth session's clean-clone CI (the statistics unchanged that session):
# a 6.25 % drop over main runs within ±2.4 %, `regressed` at p-adjusted 0.0014 in a sweep of five points, reads
# `unchanged` (p-adjusted 0.056) once a sixth point, one of whose main runs was broken (0.3 times the others), joins
# the sweep: that point pulled the shared prior's fit. Fixed in session 49 (s49a): such a point is left out of the fit
# (noise._outliers; tests/results/test_noise_outlier_points_s49a.py), and the drop reads `regressed` at 0.0017.
FOUND_S48 = ([(1, {TPUT: [1.0, 1.0, 1.0234375, 0.9765625, 0.9765625]}, {TPUT: 0.9375})]
             + [(conc, {TPUT: [1.0, 1.0, 1.0, 1.0, 1.015625 if conc == 2 else 1.0234375]}, {TPUT: 1.0})
                for conc in range(2, 6)])


def test_the_s48_case_stays_regressed_beside_a_broken_point():
    before = judged(FOUND_S48)[1, TPUT]
    assert before.verdict == C.REGRESSED and before.p_adjusted <= ALPHA / 5
    after = judged(FOUND_S48 + [(999, {TPUT: [0.3, 1.0, 1.0, 1.0, 1.0]}, {TPUT: 1.0})])[1, TPUT]
    assert after.verdict == C.REGRESSED, after
