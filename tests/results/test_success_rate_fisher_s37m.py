"""The request test of a success rate (``noise.request_p``): Fisher's exact test, made monotone in the
head's failure count so that what it keeps is one range, and bounded in cost whatever counts a file claims."""

from __future__ import annotations

import pytest

from sweepgate.results import noise
from sweepgate.results import record as R


def _monotone(total: int, base_failed: int, base_total: int) -> list[float]:
    """By brute force: each count's p is the largest Fisher p of every count at least as far out on its
    side of the expected one."""
    p = [noise.fisher_p(k, total, base_failed, base_total) for k in range(total + 1)]
    centre = min(total, max(0, round(total * base_failed / base_total)))
    return [max(p[k:]) if k > centre else max(p[:k + 1]) if k < centre else max(p) for k in range(total + 1)]


def test_a_success_rate_further_from_main_s_is_never_less_significant():
    """320 requests against 5 runs x 16 that all completed: 15 failed was flagged (p = 0.049), 16 was not
    (p = 0.050), both showing [95.625 %, 100 %]; the head at 95 % outside its interval yet unchanged."""
    judged = {k: noise.judge_all([noise.Comparison(R.SUCCESS_RATE, (320 - k) / 320, [1.0] * 5, "pt",
                                                    (k, 320, 0, 80))], 0.95)[0] for k in range(10, 40)}
    flagged = [k for k, j in judged.items() if j.significant]
    assert flagged == list(range(flagged[0], 40))
    for k, j in judged.items():
        assert j.significant == (not j.low <= (320 - k) / 320 <= j.high), (k, j)


CASES = [(1000, 2, 200), (320, 0, 80), (320, 3, 80), (200, 10, 40), (500, 1, 120), (64, 6, 16), (40, 0, 200),
         (300, 30, 200), (128, 1, 5), (257, 12, 100)]


@pytest.mark.parametrize("total, base_failed, base_total", CASES)
def test_the_request_test_is_the_brute_force_monotone_p_and_keeps_exactly_its_range(total, base_failed, base_total):
    """Where the head has more requests than all baseline runs together, Fisher's p jumps up and down
    beyond the expected count; the doubling search then missed counts (1000 vs 2 of 200: shown 96.4 %,
    every count to 96.1 % kept)."""
    want = _monotone(total, base_failed, base_total)
    for cut in (0.05, 0.01, 0.001, 0.025 / 7):
        kept = [k for k in range(total + 1) if want[k] > cut]
        expected = (((total - max(kept)) / total, (total - min(kept)) / total) if kept else
                    ((total - round(total * base_failed / base_total)) / total,) * 2)
        assert noise._rates_kept(total, base_failed, base_total, cut) == pytest.approx(expected), cut
    got = [noise.request_p(k, total, base_failed, base_total) for k in range(total + 1)]
    for k, (g, w) in enumerate(zip(got, want)):  # far out, a bound below any cut stands for the test
        assert g == pytest.approx(w, rel=1e-9) if w > 1e-9 else w <= g * (1 + 1e-9) and g < 1e-9, (k, g, w)


@pytest.mark.parametrize("counts", [(10**6, 10**7, 10**6, 10**7), (5 * 10**10, 10**11, 4 * 10**10, 10**11),
                                    (3, 10**11, 0, 10**11)])
def test_absurd_request_counts_cost_a_bounded_work(counts, monkeypatch):
    """1e11 requests in a user's file was a numpy MemoryError traceback in compare; 1e6 failures of 1e7
    took 1.4 s a call (about 4e8 probabilities told in all). The work is counted, not timed: the tables
    whose probabilities ``gammaln`` tells stay within a few times ``FISHER_WORK`` whatever the counts."""
    import numpy as np
    import scipy.special

    told, gammaln = [0], scipy.special.gammaln

    def counted(x):
        told[0] += np.size(x)
        return gammaln(x)

    monkeypatch.setattr(scipy.special, "gammaln", counted)
    noise._sides.cache_clear()
    noise.fisher_p.cache_clear()
    failed, total, base_failed, base_total = counts
    (judged,) = noise.judge_all([noise.Comparison(R.SUCCESS_RATE, 1 - failed / total, [1 - base_failed / base_total] * 5,
                                                  "pt", counts)], 0.95)
    assert 0 <= judged.p_adjusted <= 1 and 0 <= judged.low <= judged.high <= 1
    assert 0 < told[0] <= 8 * noise.FISHER_WORK
