"""`results compare` at sweep scale: noise alone flags nothing, real regressions are all found.

Review at scale: 876 points x 6 metrics, 2 % run-to-run noise, 8 main runs. Judged one comparison
at a time at 95 %, a noise-only PR had 9 points "regressed" (exit 3 under --fail-on-regression)
and a PR with 12 genuinely slower points had 12 more false ones. Now each point's noise is
moderated toward its metric's over the run and the run's p-values are adjusted together
(results/noise.py)."""

from __future__ import annotations

import math
import random

import pytest

from synth import history, pr_run
from sweepgate.results import compare as C
from sweepgate.results import noise
from sweepgate.results import record as R

KEYS = tuple(f"key-{i:03d}" for i in range(60))  # 60 keys x 5 concurrencies: 300 points, 1,800 comparisons
SLOW = {(KEYS[i], conc): {R.OUTPUT_TPUT_PER_GPU: 0.87, "tpot_p50_ms": 1.13}
        for i, conc in zip(range(0, 60, 5), (4, 8, 16, 32, 64) * 3)}  # 12 points 13 % slower


def gaussian(records: list[dict], seed: int, sd: float = 0.02) -> list[dict]:
    """The records with independent normal run-to-run noise of ``sd`` on every metric."""
    rng = random.Random(seed)
    for rec in records:
        rec[R.METRICS] = {k: v if k == R.SUCCESS_RATE else v * (1 + rng.gauss(0, sd))
                          for k, v in rec[R.METRICS].items()}
    return records


def runs(seed: int, scale: dict | None = None, window: int = 8) -> tuple[list[dict], list[dict]]:
    """(a PR run, ``window`` main runs) of the 300 points, 2 % noise."""
    base = gaussian(history(runs=window, noise=0.0, keys=KEYS), seed)
    return gaussian(pr_run(scale, noise=0.0, keys=KEYS), 100 + seed), base


def flagged(comparison) -> set[tuple]:
    return {(v.point[0], v.point[5], v.metric) for v in comparison.verdicts if v.verdict in (C.REGRESSED, C.IMPROVED)}


@pytest.mark.parametrize("seed", range(4))
def test_a_noise_only_run_of_a_sweep_flags_nothing(seed):
    result = C.compare_records(*runs(seed), window=8)
    assert not flagged(result) and not result.failing()


def test_every_slower_point_of_a_sweep_is_found_and_few_else():
    """Benjamini-Hochberg bounds the share of noise among the flagged changes (5 % on average):
    over four sweeps, every one of the 24 slower comparisons is found each time, and the few
    others flagged are changes of 7-9 % (3.5 standard deviations of noise)."""
    want = {(key, conc, metric) for (key, conc), scale in SLOW.items() for metric in scale}
    extra = []
    for seed in range(4):
        result = C.compare_records(*runs(seed, SLOW), window=8)
        assert want <= flagged(result), seed
        assert {v.verdict for v in result.verdicts if (v.point[0], v.point[5], v.metric) in want} == {C.REGRESSED}
        extra += [v for v in result.verdicts if v.verdict in (C.REGRESSED, C.IMPROVED)
                  and (v.point[0], v.point[5], v.metric) not in want]
    assert len(extra) <= 0.05 * (4 * len(want) + len(extra)) and all(abs(v.change) < 0.1 for v in extra)


def test_outside_the_interval_is_what_significant_means():
    result = C.compare_records(*runs(7, SLOW, window=5))
    judged = [v for v in result.verdicts if v.low is not None]
    assert len(judged) == 300 * 6
    for v in judged:
        outside = v.head < v.low or v.head > v.high
        assert outside == (v.p_adjusted <= 1 - C.CONFIDENCE), v
        if v.verdict in (C.REGRESSED, C.IMPROVED):
            assert outside


def test_the_prior_is_fitted_to_the_points_spreads():
    """Variances drawn from a scaled inverse-chi-square prior with 8 degrees of freedom: the fit
    finds about 8 (limma's estimator), and identical spreads give an infinite d0."""
    rng = random.Random(3)
    shapes = []
    for _ in range(4000):
        sigma2 = 1e-4 * 8 / sum(rng.gauss(0, 1) ** 2 for _ in range(8))  # the point's true variance
        x = [rng.gauss(0, math.sqrt(sigma2)) for _ in range(5)]
        shapes.append(noise._Shape(True, x, 0.0, sum((v - sum(x) / 5) ** 2 for v in x) / 4, sum(x) / 5))
    fit = noise.prior(shapes)
    assert 6 < fit.d0 < 11 and fit.s0 == pytest.approx(1e-4, rel=0.15) and fit.pooled == 4000 * 4
    same = [noise._Shape(True, [0.0, 0.1], 0.0, 0.005, 0.05) for _ in range(10)]
    assert noise.prior(same).d0 == math.inf
    assert noise.prior(same[:2]) == noise.Prior()  # too few points: each stands alone


def test_a_lone_point_is_judged_on_its_own_spread():
    """One point, no other to pool with: a 27 % drop over 0.3 % noise is still a regression."""
    base = history(runs=5, noise=0.003, keys=KEYS[:1], concs=(4,))
    result = C.compare_records(pr_run({(KEYS[0], 4): {R.OUTPUT_TPUT_PER_GPU: 0.73}}, noise=0.003,
                                      keys=KEYS[:1], concs=(4,)), base)
    verdicts = {v.metric: v.verdict for v in result.verdicts}
    assert verdicts[R.OUTPUT_TPUT_PER_GPU] == C.REGRESSED
    assert {v for m, v in verdicts.items() if m != R.OUTPUT_TPUT_PER_GPU} == {C.UNCHANGED}


def test_a_small_run_is_not_judged_as_if_its_noise_were_known_exactly():
    """Review: a PR of one config key (5 points) flagged noise in 8-17 % of runs: when the points'
    spreads agreed, their pooled noise was taken as exact (infinite degrees of freedom). No
    comparison now claims more degrees of freedom than the fit rests on (limma's eBayes cap)."""
    rng = random.Random(11)
    flagged_runs = 0
    for _ in range(300):
        comparisons = []
        for _point in range(5):
            scale = rng.uniform(10, 1000)
            for metric in ("a", "b"):
                values = [scale * (1 + rng.gauss(0, 0.02)) for _ in range(3)]
                comparisons.append(noise.Comparison(metric, scale * (1 + rng.gauss(0, 0.02)), values))
        flagged_runs += any(j.significant for j in noise.judge_all(comparisons, C.CONFIDENCE))
    assert flagged_runs <= 0.07 * 300, flagged_runs  # about 5 % of noise-only runs flag anything


def test_a_head_equal_to_identical_baseline_values_is_not_significant():
    """Review: logarithms and back made 47.697905259425305 differ from itself: p-adjusted 0."""
    value = 47.697905259425305
    (judged,) = noise.judge_all([noise.Comparison("interactivity", value, [value] * 5)], C.CONFIDENCE)
    assert not judged.significant and judged.p_adjusted == 1.0 and judged.low == judged.high == value


def test_a_point_s_metrics_count_once_when_the_run_s_p_values_are_adjusted():
    """Review: a real regression moves five metrics together (throughput, interactivity, TPOT,
    E2EL, TTFT); adjusted row by row it counted five times and loosened the cut for every other
    point (65 % of runs with 12 real regressions flagged a noise point too). Points are families:
    Benjamini-Hochberg over their Simes p-values, then within each selected point."""
    p = [1e-9] * 5 + [0.003] + [0.5 + i / 200 for i in range(94)]  # one real point, one borderline
    families = ["real"] * 5 + [f"p{i}" for i in range(95)]
    adjusted, cuts = noise.adjust(p, families, 0.05)
    assert all(a <= 0.05 for a in adjusted[:5]) and adjusted[5] > 0.05  # row by row, 0.003 passed
    assert all(c >= 1e-9 for c in cuts[:5]) and cuts[5] < 0.003
    rows, _ = noise.adjust(p, list(range(100)), 0.05)  # every row its own family: the old way
    assert rows[5] <= 0.05


def test_the_interval_agrees_with_the_verdict_when_points_are_families():
    rng = random.Random(21)
    comparisons = []
    for point in range(40):
        scale, slow = rng.uniform(10, 1000), 1.15 if point < 3 else 1.0
        for metric in ("a", "b", "c"):
            values = [scale * (1 + rng.gauss(0, 0.02)) for _ in range(5)]
            comparisons.append(noise.Comparison(metric, scale * slow * (1 + rng.gauss(0, 0.02)), values, point))
    judged = noise.judge_all(comparisons, C.CONFIDENCE)
    assert sum(j.significant for j in judged[:9]) >= 8
    for c, j in zip(comparisons, judged):
        assert (not j.low <= c.head <= j.high) == j.significant == (j.p_adjusted <= 1 - C.CONFIDENCE)
