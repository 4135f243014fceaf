"""What noise alone explains, judged over a whole run rather than one comparison at a time.

A point has a handful of baseline runs (the window: 5 by default), so its own spread is a poor
estimate of its noise; and a sweep makes thousands of comparisons, of which 5 % at a 95 % level
each would be flagged by chance (a noise-only PR of 876 points showed 9 "regressions"). So:

1. Noise is relative: a comparison works on the logarithms of its values (linear values when one
   is not positive, such as a success rate of 0).
2. Each point's variance is moderated toward its metric's typical variance over the run's points,
   the empirical-Bayes estimate of limma's ``squeezeVar`` (Smyth 2004): a scaled inverse-chi-square
   prior whose ``d0`` degrees of freedom and scale are fitted to the points' log variances by the
   method of moments. A point then has ``d0 + n - 1`` degrees of freedom instead of ``n - 1``, and
   a point whose few values happen to agree no longer reads as noiseless. No comparison claims
   more degrees of freedom than the fit rests on (the sum over the points: limma's eBayes cap),
   and a metric with fewer than MIN_POINTS_FOR_PRIOR spreads is not pooled.
3. The head is one more draw from that distribution: ``t = (head - mean) / (s * sqrt(1 + 1/n))``,
   two-sided p from Student's t. The run's p-values are adjusted together, a point's metrics as
   one family (they move together: a real change to TPOT moves interactivity and E2EL too):
   Benjamini-Hochberg (``scipy.stats.false_discovery_control``) over the points' Simes p-values,
   then within each selected point at ``alpha * R / M`` (Benjamini-Bogomolov): a change is
   significant when its adjusted p is at most ``alpha = 1 - confidence``. In a run where nothing changed, the chance that anything at all is
   flagged is then about ``1 - confidence`` (4.5-6.7 % in simulations of 3 to 876 points), more
   where some points are much noisier than their metric's others: they are pooled all the same.

Each comparison's interval is where the head would not be significant (at the p-value cut-off
Benjamini-Hochberg ended at), so "outside the interval" and "significant" are one statement; its
``side`` says which way: above the baseline's centre or below it. The centre is the mean of the
logarithms, which one broken baseline run drags while the moderated spread stays small, so it can lie
away from the median a verdict's change is read from (``compare.verdict_of`` wants both one way).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache

# Fewer points with a spread than this, for a metric: no prior is fitted, each point stands alone.
MIN_POINTS_FOR_PRIOR = 5


@dataclass
class Comparison:
    """One head value against its baseline values (at least 2), for one metric."""

    metric: str
    head: float
    values: list[float]
    family: object = None  # what moves together (the point: its metrics); None: a family of its own


@dataclass
class Judged:
    significant: bool
    low: float
    high: float
    p_adjusted: float
    side: int = 0  # which way the head lies from the baseline's centre (the test's): 1 above, -1 below, 0 at it


@dataclass
class _Shape:
    log: bool
    x: list[float]
    h: float
    s2: float  # the sample variance of x
    mean: float  # the mean of x

    @property
    def d(self) -> int:
        return len(self.x) - 1


# Values closer than this, relatively, are one value told in two roundings (123.00000000000001 ms
# from 0.123 s, a median of two neighbours): no benchmark measures to a billionth. A baseline spread
# no wider is none, and a head that close to its identical baseline values is one of them.
DUST = 1e-9


def _shape(c: Comparison) -> _Shape:
    log = c.head > 0 and all(v > 0 for v in c.values)
    x = [math.log(v) for v in c.values] if log else list(c.values)
    s2 = _variance(x)
    if s2 <= (DUST * (1 if log else max(map(abs, x)))) ** 2:  # the logarithms' spread is a relative one
        s2 = 0.0
    return _Shape(log, x, math.log(c.head) if log else c.head, s2, statistics.fmean(x))


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=DUST)


def _variance(x: list[float]) -> float:
    """``statistics.variance(x)``, the same correctly rounded float, without its Fractions (they were
    a fifth of a large run's time): finite floats are integers over powers of two, so the exact
    sum of squares is integer arithmetic, and an int divided by an int is rounded once, correctly."""
    if not all(map(math.isfinite, x)):
        return statistics.variance(x)
    ratios = [v.as_integer_ratio() for v in x]
    scale = max(d for _, d in ratios)  # every denominator is a power of two, so each divides the largest
    a = [num * (scale // den) for num, den in ratios]
    n = len(a)
    if n < 2:
        return statistics.variance(x)  # its own error for too few values
    return (n * sum(v * v for v in a) - sum(a) ** 2) / (n * (n - 1) * scale * scale)


def _trigamma_inverse(x: float) -> float:
    """y with trigamma(y) = x, by Newton's method (as limma's trigammaInverse)."""
    from scipy.special import polygamma

    if x > 1e7:
        return 1 / math.sqrt(x)
    if x < 1e-6:
        return 1 / x
    y = 0.5 + 1 / x
    for _ in range(50):
        tri = float(polygamma(1, y))
        step = tri * (1 - tri / x) / float(polygamma(2, y))
        y += step
        if -step / y < 1e-8:
            break
    return y


@dataclass
class Prior:
    """A metric's noise over the run's points: scale ``s0`` (a variance of logarithms), ``d0``
    degrees of freedom (0: no prior; infinite: the points agree beyond chance), and ``pooled``,
    the degrees of freedom the fit rests on (no comparison may claim more: limma's eBayes cap)."""

    s0: float = 0.0
    d0: float = 0.0
    pooled: float = 0.0


def prior(shapes: list[_Shape]) -> Prior:
    """The Prior fitted to the log variances of ``shapes`` (limma's fitFDist without covariates)."""
    from scipy.special import digamma, polygamma

    spread = [s for s in shapes if s.log and s.s2 > 0]
    if len(spread) < MIN_POINTS_FOR_PRIOR:
        return Prior()
    pooled = float(sum(s.d for s in spread))
    half = [s.d / 2 for s in spread]  # scipy asked once per metric, not once per point
    e = [math.log(s.s2) - float(g) + math.log(h) for s, g, h in zip(spread, digamma(half), half)]
    mean = statistics.fmean(e)
    excess = statistics.variance(e) - statistics.fmean(map(float, polygamma(1, half)))
    if excess <= 0:
        return Prior(math.exp(mean), math.inf, pooled)
    d0 = 2 * _trigamma_inverse(excess)
    return Prior(math.exp(mean + float(digamma(d0 / 2)) - math.log(d0 / 2)), d0, pooled)


def _moderated(s: _Shape, p: Prior) -> tuple[float, float]:
    """(variance, degrees of freedom) of one comparison after moderation; the degrees of freedom
    never more than the fit rests on (three points' spreads are not an exactly known noise)."""
    if not s.log or p.d0 == 0:
        return s.s2, s.d
    df = min(p.d0 + s.d, p.pooled)
    if math.isinf(p.d0):
        return p.s0, df
    return (p.d0 * p.s0 + s.d * s.s2) / (p.d0 + s.d), df


@lru_cache(maxsize=4096)
def _quantile(tail: float, df: float) -> float:
    from scipy import stats

    return float(stats.norm.isf(tail) if math.isinf(df) else stats.t.isf(tail, df))


def _p_values(comparisons: list[Comparison], shapes: list[_Shape], scaled: list[tuple[float, float]]) -> list[float]:
    """Each comparison's two-sided p-value; Student's t (the normal where df is infinite) asked once
    for the whole run, element by element the same values as one call per comparison."""
    from scipy import stats

    p = [0.0] * len(comparisons)
    t_at: dict[bool, tuple[list[int], list[float], list[float]]] = {False: ([], [], []), True: ([], [], [])}
    for i, (c, s, (scale, df)) in enumerate(zip(comparisons, shapes, scaled)):
        if scale == 0:  # identical baseline values: the head differs or it does not, told in its own units
            p[i] = 1.0 if any(_same(c.head, v) for v in c.values) else 0.0  # (a logarithm and back is not the same number)
            continue
        at, ts, dfs = t_at[math.isinf(df)]
        at.append(i)
        ts.append(abs(s.h - s.mean) / scale)
        dfs.append(df)
    for normal, (at, ts, dfs) in t_at.items():
        if at:
            sf = stats.norm.sf(ts) if normal else stats.t.sf(ts, dfs)
            for i, v in zip(at, sf):
                p[i] = float(2 * v)
    return p


def _adjust(p: list[float], families: list, alpha: float) -> tuple[list[float], list[float]]:
    """(adjusted p, p-value cut) of each comparison: Benjamini-Hochberg over the families' Simes
    p-values (a point is one family: its metrics move together, so a real change counts once),
    then Benjamini-Hochberg within each selected family at alpha * R / M (Benjamini-Bogomolov).
    A comparison is significant when its adjusted p is at most alpha, which is when its p is at
    most its cut (a p at the cut would be rejected; one below it, in an unselected family, would
    have selected it)."""
    from scipy.stats import false_discovery_control

    members: dict = {}
    for i, family in enumerate(families):
        members.setdefault(family, []).append(i)
    groups = list(members.values())
    simes = [min(len(g) * p[i] / rank for rank, i in enumerate(sorted(g, key=p.__getitem__), 1)) for g in groups]
    q_family = [float(v) for v in false_discovery_control(simes)]
    selected = sum(v <= alpha for v in q_family)
    level = alpha * max(selected, 1) / len(groups)  # the within-family level (alpha alone for one family)
    adjusted, cuts = [1.0] * len(p), [0.0] * len(p)
    for g, qf in zip(groups, q_family):
        within = [float(v) for v in false_discovery_control([p[i] for i in g])]
        rejected = sum(v <= level for v in within) if qf <= alpha else 0
        for i, qw in zip(g, within):
            adjusted[i] = min(1.0, max(qf, qw * alpha / level))
            cuts[i] = level * max(rejected, 1) / len(g)
    return adjusted, cuts


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def judge_all(comparisons: list[Comparison], confidence: float) -> list[Judged]:
    """Every comparison of a run, judged together (see the module docstring)."""
    if not comparisons:
        return []
    shapes = [_shape(c) for c in comparisons]
    priors = {m: prior([s for s, c in zip(shapes, comparisons) if c.metric == m])
              for m in {c.metric for c in comparisons}}
    scaled = []
    for s, c in zip(shapes, comparisons):
        var, df = _moderated(s, priors[c.metric])
        scaled.append((math.sqrt(var * (1 + 1 / len(s.x))), df))
    p = _p_values(comparisons, shapes, scaled)
    alpha = 1 - confidence
    q, cuts = _adjust(p, [c.family if c.family is not None else i for i, c in enumerate(comparisons)], alpha)
    out = []
    for c, s, (scale, df), qv, cut in zip(comparisons, shapes, scaled, q, cuts):
        if scale == 0:  # identical baseline values: the interval is that value
            side = 0 if _same(c.head, c.values[0]) else _sign(c.head - c.values[0])
            out.append(Judged(qv <= alpha, c.values[0], c.values[0], qv, side))
            continue
        half = _quantile(cut / 2, df) * scale
        low, high = s.mean - half, s.mean + half
        if s.log:
            low, high = math.exp(low), math.exp(high)
        out.append(Judged(qv <= alpha, low, high, qv, _sign(s.h - s.mean)))
    return out
