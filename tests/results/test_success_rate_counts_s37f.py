"""A success rate is judged by its requests, not as a figure with no spread: five main runs that each
completed every request do not make one failed request of the PR's a regression beyond noise (main's
1,600 successes only bound its failure rate), while a failure share main's counts cannot explain is one."""

from __future__ import annotations

import json

import pytest
from helpers import ROW, compare_main_and_pr, vllm_output
from scipy import stats
from synth import history, pr_run

from sweepgate.results import compare as C
from sweepgate.results import noise
from sweepgate.results import record as R


def _counted(records: list[dict], failed_at: dict | None = None, total: int = 320) -> list[dict]:
    """``records`` with ``total`` requests each, all completed but ``failed_at[conc]`` of them."""
    for rec in records:
        failed = (failed_at or {}).get(rec[R.CONC], 0)
        rec[R.METRICS].update({R.COMPLETED: total - failed, R.FAILED: failed,
                               R.SUCCESS_RATE: (total - failed) / total})
    return records


def _success(comparison, conc: int) -> C.Verdict:
    (v,) = [v for v in comparison.verdicts
            if v.point[0] == "dsr1-fp8-b300-vllm" and v.point[5] == conc and v.metric == R.SUCCESS_RATE]
    return v


def test_one_failed_request_against_main_s_perfect_runs_is_within_noise():
    """1 of 320 failed against 5 x 320 that all completed: Fisher's exact test gives p = 1/6, so no
    regression; the interval says how low the PR's success rate may go, not 100 % to 100 %."""
    base = _counted(history())
    pr = _counted(pr_run(), {16: 1})
    v = _success(C.compare_records(pr, base), 16)
    assert v.verdict == C.UNCHANGED
    assert v.low < 319 / 320 <= v.high == 1.0
    assert not C.compare_records(pr, base).failing()


def test_a_failure_share_main_s_counts_cannot_explain_regresses():
    base = _counted(history())
    pr = _counted(pr_run(), {16: 10})
    comparison = C.compare_records(pr, base)
    v = _success(comparison, 16)
    assert v.verdict == C.REGRESSED and 310 / 320 < v.low and comparison.failing()


@pytest.mark.parametrize("counts", [(1, 320, 0, 1600), (3, 320, 5, 1600), (0, 320, 4, 1600), (60, 320, 100, 1600)])
def test_the_request_test_is_fisher_s_exact_test(counts):
    k, n, f, m = counts
    assert noise.fisher_p(k, n, f, m) == pytest.approx(stats.fisher_exact([[n - k, k], [m - f, f]]).pvalue, rel=1e-9)


def test_compare_of_real_outputs_keeps_one_failed_request_of_forty_unchanged(capsys, tmp_path):
    """Three main runs that completed all 40 requests, a PR run that completed 39 of 40 (`results
    compare --json` of the ingested vLLM outputs): within noise (p = 1/4), not regressed."""
    def doc_of(tail: int) -> dict:
        return vllm_output(4, completed=39, failed=1) if tail == 10 else vllm_output(4, failed=0)

    _, as_json, _ = compare_main_and_pr(capsys, tmp_path / "out", f"sqlite:///{tmp_path / 'r.db'}", doc_of, ROW)
    (row,) = [p for p in json.loads(as_json)["points"] if p["metric"] == R.SUCCESS_RATE]
    assert row["head"] == 39 / 40 and row["verdict"] == C.UNCHANGED
    assert row["baseline"]["low"] < 39 / 40


@pytest.mark.parametrize("seed", range(6))
def test_a_success_rate_is_flagged_exactly_when_it_lies_outside_its_interval(seed):
    """The interval is where the head would not be significant, for a success rate judged by its requests too:
    a run of 12 points whose requests failed at random, some at a share main never had."""
    import random

    rng = random.Random(seed)
    comparisons = []
    for point in range(12):
        total, runs = rng.choice([40, 320, 5120]), [rng.choice([40, 320, 5120]) for _ in range(5)]
        share = rng.choice([0.0, 0.001, 0.01, 0.05])
        failed = [sum(rng.random() < share for _ in range(n)) for n in runs]
        head_share = 0.25 if point == 0 else rng.choice([share, 3 * share, 0.02])  # point 0: a sure regression
        head_failed = sum(rng.random() < head_share for _ in range(total))
        comparisons.append(noise.Comparison(R.SUCCESS_RATE, 1 - head_failed / total,
                                            [1 - f / n for f, n in zip(failed, runs)], point,
                                            (head_failed, total, sum(failed), sum(runs))))
    judged = noise.judge_all(comparisons, C.CONFIDENCE)
    assert judged[0].significant and not all(j.significant for j in judged)
    for c, j in zip(comparisons, judged):
        assert j.significant == (not j.low <= c.head <= j.high), (c, j)


def test_a_success_rate_s_interval_stays_within_0_and_100_percent():
    """A t interval on the logarithms of rates near 1 reached past it ([98.1 %, 100.7 %]): no share of
    requests is above all of them, so the interval shown stops at 100 %."""
    import random

    rng = random.Random(0)
    base, pr = history(concs=(1, 2, 3, 4)), pr_run(concs=(1, 2, 3, 4))
    for rec in base + pr:  # 1 request in 1,000 failing at random
        failed = sum(rng.random() < 0.001 for _ in range(320))
        rec[R.METRICS].update({R.COMPLETED: 320 - failed, R.FAILED: failed, R.SUCCESS_RATE: 1 - failed / 320})
    rates = [v for v in C.compare_records(pr, base).verdicts if v.metric == R.SUCCESS_RATE]
    assert len(rates) == 8 and all(0 <= v.low <= v.high <= 1 for v in rates), [(v.low, v.high) for v in rates]
