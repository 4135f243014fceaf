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
   a point whose few values happen to agree no longer reads as noiseless. The fit is robust, so one
   point whose main runs held a broken one (1000, 1000, 1000, 1000, 500) does not drag ``d0`` from
   infinite to 2 and widen every interval of its metric. First the points whose spread the others
   make a one-in-a-million chance are left out (``_outliers``: Rosner's generalised ESD on the log
   variances, each against the F distribution the points below it imply), and each is judged on its
   own spread alone: the others' prior is the one they have without it, however few they are
   (winsorising alone cannot do that for five or six points: it pulls the broken point down only
   to the next widest spread, which then counts twice). The rest are fitted as limma's
   ``fitFDistRobustly`` (Phipson et al. 2016) does: on winsorised log variances, a point the prior
   does not explain getting a prior of its own, of fewer degrees of freedom the less it explains
   its spread. Two departures, both for small runs: at least the largest log variance is winsorised
   however few the points (limma's 10 % half-clips the largest of 6), and an infinite ``d0`` shrinks
   from the pooled degrees of freedom for the outliers. No comparison claims more degrees of freedom
   than the fit rests on (the sum over the points fitted: limma's eBayes cap), and a metric with
   fewer than MIN_POINTS_FOR_PRIOR spreads is not pooled.
3. The head is one more draw from that distribution: ``t = (head - mean) / (s * sqrt(1 + 1/n))``,
   two-sided p from Student's t. The run's p-values are adjusted together, a point's metrics as
   one family (they move together: a real change to TPOT moves interactivity and E2EL too):
   Benjamini-Hochberg (``scipy.stats.false_discovery_control``) over the points' Simes p-values,
   then within each selected point at ``alpha * R / M`` (Benjamini-Bogomolov): a change is
   significant when its adjusted p is at most ``alpha = 1 - confidence``. In a run where nothing changed, the chance that anything at all is
   flagged is then about ``1 - confidence`` (4.5-6.7 % in simulations of 3 to 876 points), more
   where some points are somewhat noisier than their metric's others: they are pooled all the same.

4. A success rate is a share of requests, whose noise is the requests' own: five main runs that each
   completed all of theirs show no spread, yet only bound main's failure rate. Where the requests are
   counted, its p-value is the larger of the test above and Fisher's exact test of the head's failed
   requests against the baseline's, so a failure is flagged only when neither explains it. Fisher's
   p is made monotone in the head's failures (each count's is the largest of every count at least as
   far from the expected one on its side): a count further out is never less significant.

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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# Fewer points with a spread than this, for a metric: no prior is fitted, each point stands alone.
MIN_POINTS_FOR_PRIOR = 5


@dataclass
class Comparison:
    """One head value against its baseline values (at least 2), for one metric."""

    metric: str
    head: float
    values: list[float]
    family: object = None  # what moves together (the point: its metrics); None: a family of its own
    # A success rate's requests, (head failed, head total, baseline failed, baseline total): judged by them too
    requests: tuple[int, int, int, int] | None = None


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


def _trigamma_inverse(x):
    """y with trigamma(y) = x, by Newton's method (as limma's trigammaInverse), element by element
    for an array of positive x."""
    import numpy as np
    from scipy.special import polygamma

    scalar = np.ndim(x) == 0
    x = np.atleast_1d(np.asarray(x, dtype=float))
    y = np.where(x > 1e7, 1 / np.sqrt(x), np.where(x < 1e-6, 1 / x, 0.5 + 1 / x))
    todo = (x >= 1e-6) & (x <= 1e7)
    for _ in range(50):
        if not todo.any():
            break
        tri = polygamma(1, y[todo])
        step = tri * (1 - tri / x[todo]) / polygamma(2, y[todo])
        y[todo] += step
        todo[todo] = -step / y[todo] >= 1e-8
    return float(y[0]) if scalar else y


@dataclass
class Prior:
    """A metric's noise over the run's points: scale ``s0`` (a variance of logarithms), ``d0``
    degrees of freedom (0: no prior; infinite: the points agree beyond chance), ``pooled``, the
    degrees of freedom the fit rests on (no comparison may claim more: limma's eBayes cap), and
    ``shrunk``, each point's own prior degrees of freedom (``d0``, less for a point whose spread the
    prior does not explain: limma's df2.shrunk; 0 for one left out of the fit, ``_outliers``), in
    the order ``prior`` was given them."""

    s0: float = 0.0
    d0: float = 0.0
    pooled: float = 0.0
    shrunk: tuple[float, ...] = ()


# The shares of the log variances winsorised below and above (limma's winsor.tail.p); above, at
# least the largest one however few the points, so one hypervariable point among 5 is still clipped.
WINSOR_TAILS = (0.05, 0.1)


def _tails(n: int) -> tuple[float, float]:
    return WINSOR_TAILS[0], max(WINSOR_TAILS[1], 1 / (n - 1))


def _moments(spread: list[_Shape]) -> tuple[float, float]:
    """(s0, d0) fitted to the log variances by the method of moments (limma's fitFDist)."""
    from scipy.special import digamma, polygamma

    half = [s.d / 2 for s in spread]  # scipy asked once per metric, not once per point
    e = [math.log(s.s2) - float(g) + math.log(h) for s, g, h in zip(spread, digamma(half), half)]
    mean = statistics.fmean(e)
    excess = statistics.variance(e) - statistics.fmean(map(float, polygamma(1, half)))
    if excess <= 0:
        return math.exp(mean), math.inf
    d0 = 2 * _trigamma_inverse(excess)
    return math.exp(mean + float(digamma(d0 / 2)) - math.log(d0 / 2)), d0


class _scaled_f:  # noqa: N801 - called as the distribution it stands for
    """F(d1, d2), chi-square / d1 where d2 is infinite: scipy's functions with their arguments bound
    (a frozen scipy distribution takes milliseconds to build, and the fit asks for hundreds)."""

    def __init__(self, d1: float, d2: float):
        from scipy import stats

        self.dist, self.args = ((stats.chi2, {"df": d1, "scale": 1 / d1}) if math.isinf(d2)
                                else (stats.f, {"dfn": d1, "dfd": d2}))

    def __getattr__(self, name: str):
        method = getattr(self.dist, name)
        return lambda x: method(x, **self.args)


def _winsorised_moments(d1: float, d2: float, tails: tuple[float, float]) -> tuple[float, float]:
    """Mean and variance of log F(d1, d2) winsorised at ``tails``."""
    import numpy as np
    from scipy.integrate import fixed_quad

    dist, (low, high) = _scaled_f(d1, d2), tails
    za, zb = (math.log(q) for q in dist.ppf([low, 1 - high]))
    density = lambda z: np.exp(dist.logpdf(np.exp(z)) + z)  # noqa: E731 - of log F, by the change of variable
    mean = fixed_quad(lambda z: z * density(z), za, zb, n=128)[0] + low * za + high * zb
    var = fixed_quad(lambda z: (z - mean) ** 2 * density(z), za, zb, n=128)[0]
    return mean, var + low * (za - mean) ** 2 + high * (zb - mean) ** 2


def _same_d1(spread: list[_Shape], s0: float, d0: float) -> tuple[np.ndarray, int]:
    """The points' variances as if each had the most degrees of freedom any has: each mapped to the
    same tail probability of F(d1, d0) at the moment fit (limma's way with unequal df1)."""
    import numpy as np

    s2, d = np.array([s.s2 for s in spread]), np.array([s.d for s in spread])
    most = int(d.max())
    for k in set(d.tolist()) - {most}:
        at = d == k
        f = s2[at] / s0
        up, down = _scaled_f(k, d0).sf(f), _scaled_f(k, d0).cdf(f)
        mapped = np.where(up < down, _scaled_f(most, d0).isf(up), _scaled_f(most, d0).ppf(down))
        s2[at] = np.where((up > 0) & (down > 0), mapped, f) * s0  # beyond a double's tail: as it was
    return s2, most


def _robust(spread: list[_Shape], s0: float, d0: float, pooled: float) -> Prior:
    """The Prior fitted to winsorised log variances, with prior degrees of freedom of their own for
    the points the fit does not explain (limma's fitFDistRobustly, Phipson et al. 2016), and at
    least the moment fit's ``d0``; the moment fit ``(s0, d0)`` maps unequal degrees of freedom."""
    import numpy as np
    from scipy import stats
    from scipy.optimize import brentq

    s2, d1 = _same_d1(spread, s0, d0)
    z, tails = np.log(s2), _tails(len(s2))
    trend = float(stats.trim_mean(z, WINSOR_TAILS[1]))
    wins = np.clip(z - trend, *np.quantile(z - trend, [tails[0], 1 - tails[1]]))
    spread_ = float(np.var(wins, ddof=1))
    gap = lambda u: math.log(spread_ / _winsorised_moments(d1, u / (1 - u), tails)[1]) if u < 1 else at_inf  # noqa: E731
    at_inf = math.log(spread_ / _winsorised_moments(d1, math.inf, tails)[1]) if spread_ > 0 else -math.inf
    if at_inf <= 0:
        d2 = math.inf
    elif gap(d0 / (1 + d0)) >= 0:
        d2 = d0
    else:
        u = brentq(gap, d0 / (1 + d0), 1.0, xtol=1e-10)
        d2 = u / (1 - u)
    centre = trend + float(np.mean(wins)) - _winsorised_moments(d1, d2, tails)[0]
    return Prior(math.exp(centre), d2, pooled, _own_d0(np.exp(z - centre), d1, d2, pooled))


def _own_d0(f: np.ndarray, d1: int, d2: float, pooled: float) -> tuple[float, ...]:
    """Each point's prior degrees of freedom: ``d2``, less by the chance its F is an outlier (its
    tail probability against the share of points at least as high), down to the degrees of freedom
    that would put the highest F at its distribution's median; never fewer for a less extreme F."""
    import numpy as np
    from scipy import stats
    from scipy.optimize import brentq

    tail = _scaled_f(d1, d2).logsf(f)
    not_outlier = np.minimum(tail - np.log((len(f) - stats.rankdata(f) + 0.5) / len(f)), 0.0)
    if not (not_outlier < 0).any():
        return tuple([d2] * len(f))
    most = min(d2, pooled)  # an infinite d0 shrinks from the degrees of freedom the fit rests on
    at_median = lambda d: _scaled_f(d1, d).sf(f.max()) - 0.5  # noqa: E731
    outlier = brentq(at_median, 1e-8, most) if at_median(most) < 0 < at_median(1e-8) else 0.0
    own = np.exp(not_outlier) * most + -np.expm1(not_outlier) * outlier
    own[not_outlier == 0] = d2
    order = np.argsort(tail)
    own[order] = np.maximum.accumulate(own[order])
    return tuple(map(float, own))


# A point is left out of its metric's fit when the chance that the widest of the points' spreads lies
# that far above what the others imply, by noise alone, is at most this (``_outliers``). A broken main
# run is hundreds of times its point's others' variance; a point that is only the noisiest of a metric
# whose noise varies from point to point stays in (in simulations of 5-30 point sweeps whose points'
# variances vary as a prior of 4 degrees of freedom, a level of 1e-3 left out enough of them to raise
# the share of noise-only runs flagging anything from 7.9 % to 8.8 %; 1e-6, to 8.1 %).
OUTLIER_LEVEL = 1e-6


def _outliers(spread: list[_Shape]) -> list[bool]:
    """Which of ``spread`` the prior is not fitted to: the generalised extreme Studentized deviate
    procedure (Rosner 1983) on the log variances, each candidate judged against the distribution
    the points below it imply. The candidates are the points in falling order of their log
    variance, bias-corrected for their degrees of freedom as ``_moments`` does; the i-th is tested
    against the moment fit ``(s0, d0)`` of the points below it: its variance over ``s0`` against
    F(d, d0), ``d0`` no more than those points' degrees of freedom (as ``_moderated`` caps a
    comparison's: ``s0`` is an estimate), the tail made the chance that the largest of the points
    left lies that far out (Sidak). The i highest points are left out for the largest i whose
    chance is at most OUTLIER_LEVEL (so a second broken point does not mask the first): at most
    half the points, and never so many that fewer than MIN_POINTS_FOR_PRIOR stay."""
    import numpy as np
    from scipy import stats
    from scipy.special import digamma, polygamma

    n = len(spread)
    most = min(n - MIN_POINTS_FOR_PRIOR, n // 2)
    if most < 1:
        return [False] * n
    d = np.array([s.d for s in spread], dtype=float)
    bias = digamma(d / 2) - np.log(d / 2)  # E log(chi-square(d) / d)
    e = np.log([s.s2 for s in spread]) - bias
    order = np.argsort(-e, kind="stable")
    e, d, bias = e[order], d[order], bias[order]
    centred = e - e.mean()  # sums of squares without cancellation
    # the moments of the points below the i-th candidate (order[i + 1:]), i = 0 .. most - 1
    below = lambda v: np.cumsum(v[::-1])[::-1][1:most + 1]  # noqa: E731 - suffix sums
    m = np.arange(n - 1, n - 1 - most, -1, dtype=float)
    mean = below(centred) / m
    excess = (below(centred**2) - m * mean**2) / (m - 1) - below(polygamma(1, d / 2)) / m
    d0 = np.full(most, math.inf)
    d0[excess > 0] = 2 * _trigamma_inverse(excess[excess > 0])
    finite = np.isfinite(d0)
    log_s0 = mean + e.mean()
    log_s0[finite] += digamma(d0[finite] / 2) - np.log(d0[finite] / 2)
    f = np.exp(e[:most] + bias[:most] - log_s0)  # each candidate's variance over s0
    tail = stats.f.sf(f, d[:most], np.minimum(d0, below(d)))
    chance = -np.expm1((m + 1) * np.log1p(-tail))  # the largest of the m + 1 points left that far out
    out = np.flatnonzero(chance <= OUTLIER_LEVEL)
    left_out = [False] * n
    for i in order[:out[-1] + 1] if len(out) else ():
        left_out[i] = True
    return left_out


def prior(shapes: list[_Shape]) -> Prior:
    """The Prior fitted to the log variances of ``shapes``, robustly: the points ``_outliers`` finds
    left out, the rest fitted by ``_robust``; ``shrunk`` has one entry per shape, ``d0`` for those
    without a spread and 0 for those left out (each stands on its own spread), and ``pooled`` counts
    only the points fitted."""
    spread = [s for s in shapes if s.log and s.s2 > 0]
    if len(spread) < MIN_POINTS_FOR_PRIOR:
        return Prior()
    out = iter(_outliers(spread))
    left_out = [s.log and s.s2 > 0 and next(out) for s in shapes]  # one per shape
    kept = [s for s, o in zip(shapes, left_out) if s.log and s.s2 > 0 and not o]
    pooled = float(sum(s.d for s in kept))
    s0, d0 = _moments(kept)
    fit = Prior(s0, d0, pooled) if math.isinf(d0) else _robust(kept, s0, d0, pooled)
    own = iter(fit.shrunk or [fit.d0] * len(kept))
    return Prior(fit.s0, fit.d0, pooled, tuple(0.0 if o else next(own) if s.log and s.s2 > 0 else fit.d0
                                               for s, o in zip(shapes, left_out)))


def _moderated(s: _Shape, p: Prior, d0: float) -> tuple[float, float]:
    """(variance, degrees of freedom) of one comparison after moderation by a prior of ``d0`` degrees
    of freedom (its own share of ``p``); the degrees of freedom never more than the fit rests on
    (three points' spreads are not an exactly known noise)."""
    if not s.log or d0 == 0:
        return s.s2, s.d
    df = min(d0 + s.d, p.pooled)
    if math.isinf(d0):
        return p.s0, df
    return (d0 * p.s0 + s.d * s.s2) / (d0 + s.d), df


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
    return [max(v, request_p(*_within_reach(c.requests))) if c.requests else v for v, c in zip(p, comparisons)]


@lru_cache(maxsize=65536)
def fisher_p(failed: int, total: int, base_failed: int, base_total: int) -> float:
    """The two-sided p-value of Fisher's exact test of ``failed`` of ``total`` requests against
    ``base_failed`` of ``base_total``: ``scipy.stats.fisher_exact``'s (see ``_fisher``)."""
    return _fisher(failed, total, base_failed, base_total)[0]


# Fisher's test sums the hypergeometric probabilities within this many standard deviations (and as
# many tables) of the mode: beyond, each is below e^-800 of the mode's, and the cost of a table is
# bounded however many requests a file claims (1e11 were a numpy MemoryError).
FISHER_REACH = 40


def _fisher(failed: int, total: int, base_failed: int, base_total: int) -> tuple[float, float, float]:
    """(two-sided p, P(at least ``failed``), P(at most ``failed``)) of the head's failed requests given
    both margins, from the hypergeometric probabilities told by ``scipy.special.gammaln`` at once
    (fisher_exact and scipy's hypergeom take a millisecond a table, and a run asks for thousands)."""
    import numpy as np
    from scipy.special import gammaln

    everyone, failures = total + base_total, failed + base_failed
    if failures in (0, everyone):
        return 1.0, 1.0, 1.0
    low, high = max(0, total - (everyone - failures)), min(total, failures)
    mode = (total + 1) * (failures + 1) // (everyone + 2)
    sd = math.sqrt(total * failures / everyone * (1 - failures / everyone) * base_total / max(everyone - 1, 1))
    reach = FISHER_REACH * (sd + 1)
    if abs(failed - mode) > reach:  # below e^-800 of the mode's: no table that far is any chance
        return 0.0, float(failed < mode), float(failed > mode)
    x = np.arange(max(low, math.floor(mode - reach)), min(high, math.ceil(mode + reach)) + 1, dtype=float)
    log_pmf = (-gammaln(x + 1) - gammaln(failures - x + 1) - gammaln(total - x + 1)
               - gammaln(everyone - failures - total + x + 1))  # what is common to every table left out
    pmf = np.exp(log_pmf - log_pmf.max())
    whole, at = pmf.sum(), pmf[failed - int(x[0])]
    two = min(1.0, float(pmf[pmf <= at * (1 + 1e-7)].sum() / whole))  # fisher_exact's tolerance for ties
    return two, float(pmf[x >= failed].sum() / whole), float(pmf[x <= failed].sum() / whole)


# The failure counts a success rate's request test walks either way from the expected one, at most
# (in tables summed), and how small a p-value it walks down to: beyond, a bound stands for the test.
FISHER_WORK = 2_000_000
FISHER_FLOOR = 1e-12


@dataclass
class _Side:
    """The monotone p-values of one side of the expected failure count: ``p[i]`` at ``start + way * i``,
    and beyond them ``bound`` (``(total + 2)`` times the one-sided tail: no table's two-sided p is above it)."""

    start: int
    way: int
    p: list[float]
    bound: object

    def at(self, k: int) -> float:
        i = (k - self.start) * self.way
        return self.p[i] if i < len(self.p) else self.bound(k)

    def last_kept(self, cut: float, edge: int) -> int:
        """The failure count farthest from the start whose p is above ``cut`` (the start's is)."""
        i = sum(v > cut for v in self.p) - 1  # the p-values fall from the start outwards
        if i < len(self.p) - 1 or self.start + self.way * i == edge:
            return self.start + self.way * i
        kept, beyond = self.start + self.way * i, edge + self.way
        while abs(beyond - kept) > 1:
            mid = (kept + beyond) // 2
            kept, beyond = (mid, beyond) if self.bound(mid) > cut else (kept, mid)
        return kept


# More requests than this, head and baseline together, are judged as this many in the same shares: the
# test's cost grows with the counts (1e11 in a file was a MemoryError), and beyond a million requests
# any failure share worth a verdict is far outside what their noise explains. (What one run may have sent,
# ingest's cap, is ``record.MAX_RUN_REQUESTS``; many runs together pass this one.)
MAX_REQUESTS = 10**6


def _within_reach(requests: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """``requests`` (head failed, head total, baseline failed, baseline total) scaled down to MAX_REQUESTS."""
    failed, total, base_failed, base_total = requests
    scale = MAX_REQUESTS / (total + base_total)
    if scale >= 1:
        return requests
    total, base_total = max(1, round(total * scale)), max(1, round(base_total * scale))
    return min(total, round(failed * scale)), total, min(base_total, round(base_failed * scale)), base_total


def _expected(total: int, base_failed: int, base_total: int) -> int:
    return min(total, max(0, round(total * base_failed / base_total)))


@lru_cache(maxsize=4096)
def _sides(total: int, base_failed: int, base_total: int) -> tuple[_Side, _Side]:
    """The request test's p-values either side of the expected failure count, made monotone: Fisher's
    two-sided p is not (320 requests against 5 x 16: 15 failed p = 0.049, 16 failed p = 0.050), so a
    count's p is the largest of every count at least as far out on its side. The walk outwards stops
    where ``(total + 2)`` times the one-sided tail (which only falls outwards) is below FISHER_FLOOR, or
    after FISHER_WORK tables summed; beyond, that bound is the p-value (never below the test's own)."""
    centre, sides = _expected(total, base_failed, base_total), []
    for way, edge, tail in ((1, total, 1), (-1, 0, 2)):
        ps, k, work = [], centre, 0
        while True:
            p = _fisher(k, total, base_failed, base_total)
            ps.append(p[0])
            work += 2 * FISHER_REACH * (1 + math.sqrt(min(total, k + base_failed))) + 1
            if k == edge or (total + 2) * p[tail] < FISHER_FLOOR or work > FISHER_WORK:
                break
            k += way
        bound = (lambda j, tail=tail: min(1.0, (total + 2) * _fisher(j, total, base_failed, base_total)[tail]))
        beyond = bound(k + way) if k != edge else 0.0
        for i in range(len(ps) - 1, -1, -1):  # the largest at least as far out
            beyond = ps[i] = max(ps[i], beyond)
        sides.append(_Side(centre, way, ps, bound))
    top = max(sides[0].p[0], sides[1].p[0])
    sides[0].p[0] = sides[1].p[0] = top
    return sides[0], sides[1]


def request_p(failed: int, total: int, base_failed: int, base_total: int) -> float:
    """The p-value of the head's failed requests against the baseline's: Fisher's exact test's, made
    monotone in ``failed`` (``_sides``), so what it keeps is one range of counts."""
    up, down = _sides(total, base_failed, base_total)
    return (up if failed >= up.start else down).at(failed)


@lru_cache(maxsize=4096)
def _rates_kept(total: int, base_failed: int, base_total: int, cut: float) -> tuple[float, float]:
    """(lowest, highest) success rate of ``total`` requests that the request test against the
    baseline's would not flag at ``cut`` (``request_p``: one range of failure counts)."""
    up, down = _sides(total, base_failed, base_total)
    if up.p[0] <= cut:
        return (total - up.start) / total, (total - up.start) / total
    return (total - up.last_kept(cut, total)) / total, (total - down.last_kept(cut, 0)) / total


def adjust(p: list[float], families: list, alpha: float) -> tuple[list[float], list[float]]:
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
    scaled: list = [None] * len(comparisons)
    for metric in {c.metric for c in comparisons}:
        at = [i for i, c in enumerate(comparisons) if c.metric == metric]
        fit = prior([shapes[i] for i in at])
        for i, d0 in zip(at, fit.shrunk or [0.0] * len(at)):
            var, df = _moderated(shapes[i], fit, d0)
            scaled[i] = (math.sqrt(var * (1 + 1 / len(shapes[i].x))), df)
    p = _p_values(comparisons, shapes, scaled)
    alpha = 1 - confidence
    q, cuts = adjust(p, [c.family if c.family is not None else i for i, c in enumerate(comparisons)], alpha)
    out = []
    for c, s, (scale, df), qv, cut in zip(comparisons, shapes, scaled, q, cuts):
        if scale == 0:  # identical baseline values: the interval is that value
            side = 0 if _same(c.head, c.values[0]) else _sign(c.head - c.values[0])
            low = high = c.values[0]
        else:
            half = _quantile(cut / 2, df) * scale
            low, high, side = s.mean - half, s.mean + half, _sign(s.h - s.mean)
            if s.log:
                low, high = math.exp(low), math.exp(high)
        if c.requests:  # not significant where either test keeps it: the two intervals joined
            few, many = _rates_kept(*_within_reach(c.requests)[1:], cut)
            low, high = min(low, few), max(high, many)
        out.append(Judged(qv <= alpha, low, high, qv, side))
    return out
