"""Verdicts of `results compare` (compare_records), as properties and at their boundaries."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import synth
from sweepgate.results import compare as C
from sweepgate.results import noise
from sweepgate.results import record as R

KEY = synth.KEYS[0]
METRICS = synth.PLAIN_METRICS


def baseline(values: dict[str, list[float]], runs: int | None = None) -> list[dict]:
    """One record per run; ``values`` maps metric -> one value per run."""
    runs = runs if runs is not None else len(next(iter(values.values())))
    return [synth.make(f"main-{i}", KEY, 8, {m: v[i] for m, v in values.items()}, day=i + 1) for i in range(runs)]


def head(metrics: dict) -> list[dict]:
    return [synth.make("pr-1", KEY, 8, metrics, ref="refs/pull/1/merge", day=28)]


def by_metric(comparison: C.Comparison) -> dict[str, C.Verdict]:
    return {v.metric: v for v in comparison.verdicts}


tight = st.lists(st.floats(-0.001, 0.001), min_size=5, max_size=5)
levels = st.floats(1.0, 1e5)
thresholds = st.floats(0.01, 0.3)


@settings(max_examples=150, deadline=None)
@given(level=levels, noise=tight, threshold=thresholds, sign=st.sampled_from([-1, 1]), k=st.floats(2.0, 8.0))
def test_a_large_change_against_a_tight_baseline_follows_sign_and_direction(level, noise, threshold, sign, k):
    x = sign * k * threshold
    if x <= -0.95:
        x = -0.95
        if abs(x) < 2 * threshold:
            return
    values = {m: [level * (1 + e) for e in noise] for m in METRICS}
    pr = {m: statistics.median(v) * (1 + x) for m, v in values.items()}
    verdicts = by_metric(C.compare_records(head(pr), baseline(values), threshold=threshold))
    assert set(verdicts) == set(METRICS)
    for metric, v in verdicts.items():
        better = (x > 0) == (R.DIRECTION[metric] == R.HIGHER_IS_BETTER)
        assert v.verdict == (C.IMPROVED if better else C.REGRESSED), (metric, x, v)
        assert v.change == pytest.approx(x, rel=1e-6)


@settings(max_examples=150, deadline=None)
@given(level=levels, spread=st.floats(0.0, 0.2), threshold=thresholds, frac=st.floats(-0.499, 0.499),
       seed=st.integers(0, 2**32 - 1))
def test_a_change_under_half_the_threshold_is_unchanged(level, spread, threshold, frac, seed):
    rng = random.Random(seed)
    values = {m: [level * (1 + rng.uniform(-spread, spread)) for _ in range(5)] for m in METRICS}
    pr = {m: statistics.median(v) * (1 + frac * threshold) for m, v in values.items()}
    verdicts = by_metric(C.compare_records(head(pr), baseline(values), threshold=threshold))
    assert {v.verdict for m, v in verdicts.items() if m not in R.METRIC_THRESHOLDS} == {C.UNCHANGED}
    for metric in R.METRIC_THRESHOLDS:  # its own threshold (0): the interval alone decides
        v = verdicts[metric]
        outside = not v.low <= v.head <= v.high
        moved = not math.isclose(v.head, v.median, rel_tol=noise.DUST)  # within a billionth: one value (noise.DUST)
        assert (v.verdict != C.UNCHANGED) == (outside and moved), v


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), runs=st.integers(0, 9), x=st.floats(-0.5, 0.5))
def test_shuffling_the_baseline_changes_nothing(seed, runs, x):
    rng = random.Random(seed)
    base = synth.history(runs=runs, noise=0.05, seed=seed)
    pr = synth.pr_run({(KEY, 16): {R.OUTPUT_TPUT_PER_GPU: 1 + x}}, seed=seed + 1)
    expected = C.compare_records(pr, base).as_json()
    for _ in range(3):
        shuffled = base[:]
        rng.shuffle(shuffled)
        assert C.compare_records(pr, shuffled).as_json() == expected


@pytest.mark.parametrize("n, k, verdict", [(0, 3, C.NEW), (1, 3, C.INSUFFICIENT), (2, 3, C.INSUFFICIENT),
                                           (3, 3, C.REGRESSED), (4, 5, C.INSUFFICIENT), (5, 5, C.REGRESSED),
                                           (1, 2, C.INSUFFICIENT), (2, 2, C.REGRESSED)])
def test_insufficient_data_and_new_at_their_boundaries(n, k, verdict):
    values = {R.OUTPUT_TPUT_PER_GPU: [1000.0 + i for i in range(n)]}
    base = baseline(values, runs=n)
    v = by_metric(C.compare_records(head({R.OUTPUT_TPUT_PER_GPU: 700.0}), base, min_samples=k))
    (only,) = v.values()
    assert only.verdict == verdict and only.n == n
    assert (only.median is None) == (n == 0)
    assert (only.low is None) == (n < k)


def test_the_window_keeps_the_last_n_runs_and_the_last_attempt():
    old = [synth.make(f"old-{i}", KEY, 8, {R.OUTPUT_TPUT_PER_GPU: 500.0}, day=i + 1) for i in range(3)]
    new = [synth.make(f"new-{i}", KEY, 8, {R.OUTPUT_TPUT_PER_GPU: 1000.0 + i}, day=i + 10) for i in range(5)]
    retried = dict(new[-1], **{R.ATTEMPT: 2, R.METRICS: {R.OUTPUT_TPUT_PER_GPU: 1002.0}})
    failed = synth.make("new-9", KEY, 8, {R.OUTPUT_TPUT_PER_GPU: 1.0}, day=20)
    failed[R.STATUS] = "failure"
    comparison = C.compare_records(head({R.OUTPUT_TPUT_PER_GPU: 1001.0}), old + new + [retried, failed])
    (v,) = comparison.verdicts
    assert v.n == 5 and v.median == 1002.0 and v.verdict == C.UNCHANGED
    assert sorted(b[R.RUN_ID] for b in comparison.baselines[v.point]) == [f"new-{i}" for i in range(5)]


def test_both_significance_and_size_are_needed():
    # A wide baseline: a 10 % drop is inside the prediction interval, so unchanged.
    values = {R.OUTPUT_TPUT_PER_GPU: [800.0, 1200.0, 900.0, 1100.0, 1000.0]}
    (v,) = C.compare_records(head({R.OUTPUT_TPUT_PER_GPU: 900.0}), baseline(values)).verdicts
    assert v.low < 900.0 < v.high and v.change == pytest.approx(-0.1) and v.verdict == C.UNCHANGED
    # A tight baseline: a 3 % drop is significant but under the threshold, so unchanged.
    values = {R.OUTPUT_TPUT_PER_GPU: [1000.0, 1000.5, 999.5, 1000.2, 999.8]}
    (v,) = C.compare_records(head({R.OUTPUT_TPUT_PER_GPU: 970.0}), baseline(values)).verdicts
    assert 970.0 < v.low and v.verdict == C.UNCHANGED
    (v,) = C.compare_records(head({R.OUTPUT_TPUT_PER_GPU: 970.0}), baseline(values), threshold=0.02).verdicts
    assert v.verdict == C.REGRESSED


def test_per_config_thresholds_override_the_default():
    values = {R.OUTPUT_TPUT_PER_GPU: [1000.0, 1000.5, 999.5, 1000.2, 999.8], "ttft_p50_ms": [100.0] * 5}
    pr = head({R.OUTPUT_TPUT_PER_GPU: 920.0, "ttft_p50_ms": 115.0})
    per_config = {KEY: {"threshold": 0.1, "thresholds": {"ttft_p50_ms": 0.2}}}
    got = by_metric(C.compare_records(pr, baseline(values), per_config=per_config))
    assert got[R.OUTPUT_TPUT_PER_GPU].verdict == C.UNCHANGED and got["ttft_p50_ms"].verdict == C.UNCHANGED
    got = by_metric(C.compare_records(pr, baseline(values)))
    assert got[R.OUTPUT_TPUT_PER_GPU].verdict == C.REGRESSED and got["ttft_p50_ms"].verdict == C.REGRESSED


def test_recipe_changes_in_words():
    base = [synth.make(f"m{i}", KEY, 8, {R.OUTPUT_TPUT_PER_GPU: 1000.0 + i}, day=i + 1) for i in range(5)]
    for b in base:
        b.update({R.KV_OFFLOAD_BACKEND: "lmcache", R.KV_OFFLOAD_BACKEND_VERSION: "0.5.3"})
    (pr,) = head({R.OUTPUT_TPUT_PER_GPU: 700.0})
    pr.update({R.IMAGE: "vllm/vllm-openai:v0.12.0", R.RECIPE_FINGERPRINT: "other",
               R.KV_OFFLOAD_BACKEND: "lmcache", R.KV_OFFLOAD_BACKEND_VERSION: "0.5.4rc2"})
    (v,) = C.compare_records([pr], base).verdicts
    assert v.verdict == C.REGRESSED
    assert [c.words for c in v.recipe_changes] == ["image v0.11.0 \u2192 v0.12.0", "kv-offload-backend lmcache 0.5.3 \u2192 0.5.4rc2"]


def test_bad_settings_are_diagnostics():
    from sweepgate.core.errors import SweepgateError

    for kw in ({"window": 0}, {"min_samples": 1}, {"min_samples": 6}, {"threshold": -0.1}):
        with pytest.raises(SweepgateError):
            C.compare_records([], [], **kw)


def test_point_label_leaves_out_what_the_run_did_not_state():
    from sweepgate.results.render import NO_KEY, point_label
    known = dict.fromkeys(R.POINT_IDENTITY) | {R.CONFIG_KEY: "opt125m-h100-vllm", R.HARDWARE: "h100", R.CONC: 2}
    assert point_label(tuple(known[n] for n in R.POINT_IDENTITY)) == "opt125m-h100-vllm h100 conc 2"
    known |= {R.SCENARIO: "fixed-seq-len", R.ISL: 128, R.OSL: 128}
    assert point_label(tuple(known[n] for n in R.POINT_IDENTITY)) == "opt125m-h100-vllm h100 fixed-seq-len 128/128 conc 2"
    # New-user run: an output ingested without its row read " conc 2" in compare's point column; named by
    # nothing at all, it says so (s35b: "conc 2" said nothing of what ran; a comparison names its model)
    alone = dict.fromkeys(R.POINT_IDENTITY) | {R.CONC: 2}
    assert point_label(tuple(alone[n] for n in R.POINT_IDENTITY)) == f"{NO_KEY} conc 2"
    alone |= {R.CONC: None, R.SPEC_DECODING: "mtp"}  # nor a label of what follows the point alone
    assert point_label(tuple(alone[n] for n in R.POINT_IDENTITY)) == f"{NO_KEY} spec mtp"


def test_recipe_changes_are_against_main_s_newest_run():
    """Review: main moved to v0.26.0 two runs ago; a PR running v0.26.0 read "image v0.25.1 →
    v0.26.0" on every changed line. And rows without a fingerprint (`full-sweep`, `--row`) named
    no change at all though the image differed."""
    base = [synth.make(f"m{i}", KEY, 8, {R.OUTPUT_TPUT_PER_GPU: 1000.0 + i}, day=i + 1) for i in range(5)]
    for i, b in enumerate(base):  # days 1..3 on v0.25.1, 4..5 on v0.26.0
        b.update({R.IMAGE: f"vllm/vllm-openai:v0.2{6 if i >= 3 else 5}.{0 if i >= 3 else 1}",
                  R.RECIPE_FINGERPRINT: "new" if i >= 3 else "old"})
    (pr,) = head({R.OUTPUT_TPUT_PER_GPU: 700.0})
    pr.update({R.IMAGE: "vllm/vllm-openai:v0.26.0", R.RECIPE_FINGERPRINT: "new"})
    (v,) = C.compare_records([pr], base).verdicts
    # s45l: judged against main's two v0.26.0 runs alone, too few; never against a mix of both images
    assert v.verdict == C.INSUFFICIENT and v.n == 2 and [c.words for c in v.recipe_changes] == []
    assert [r[R.RUN_ID] for r in v.passed_over.runs] == ["m2", "m1", "m0"]
    (v,) = C.compare_records([pr], base, min_samples=2).verdicts
    assert v.verdict == C.REGRESSED and [c.words for c in v.recipe_changes] == []
    pr.update({R.IMAGE: "vllm/vllm-openai:v0.27.0", R.RECIPE_FINGERPRINT: "newer"})
    assert [c.words for c in C.compare_records([pr], base).verdicts[0].recipe_changes] == ["image v0.26.0 \u2192 v0.27.0"]
    for rec in (*base, pr):
        rec[R.RECIPE_FINGERPRINT] = None
    assert [c.words for c in C.compare_records([pr], base).verdicts[0].recipe_changes] == ["image v0.26.0 \u2192 v0.27.0"]
    pr[R.IMAGE] = "vllm/vllm-openai:v0.26.0"
    assert C.compare_records([pr], base).verdicts[0].recipe_changes == []


def test_a_failed_job_s_row_says_how_many_requests_completed():
    """Results review: a failed job read only `(job) | failure`, though its output said 0 of 8 completed."""
    from sweepgate.results import render

    pr = synth.pr_run(keys=synth.KEYS[:1], concs=(4, 8))
    pr[0][R.STATUS] = "failure"
    pr[0][R.METRICS] = {R.COMPLETED: 0, R.FAILED: 8}
    pr[1][R.STATUS] = "cancelled"
    pr[1][R.METRICS] = {}  # no output at all: nothing to count
    comp = C.compare_records(pr, synth.history(keys=synth.KEYS[:1], concs=(4, 8)))
    failed = [v for v in comp.verdicts if v.verdict == C.FAILED]
    assert [render.cells(v)[2] for v in failed] == ["failure (0 of 8 requests completed)", "cancelled"]


def test_the_headline_says_when_fewer_baseline_runs_were_found_than_the_window():
    """Results review: "(last 5 runs)" with one main run stored read as five."""
    from sweepgate.results import render

    pr = synth.pr_run(keys=synth.KEYS[:1])
    one = C.compare_records(pr, synth.history(runs=1, keys=synth.KEYS[:1]))
    assert "(last 5 runs; 1 found)" in render.summary_line(one, "refs/heads/main", 5)
    five = C.compare_records(pr, synth.history(runs=6, keys=synth.KEYS[:1]))
    assert "(last 5 runs):" in render.summary_line(five, "refs/heads/main", 5)


def test_the_headline_gives_the_range_when_points_had_different_baseline_runs():
    """Review charts25: a point judged on 3 main runs beside points judged on 5 read "(last 5 runs)",
    the most any point had; the charts' legend says "3–5 found" and the headline now agrees. A new
    point (no baseline run at all) does not pull the range down to 0."""
    from sweepgate.results import render

    keys = synth.KEYS[:1]
    pr = synth.pr_run(keys=keys, concs=(4, 8, 16))
    base = synth.history(runs=5, keys=keys, concs=(4,)) + synth.history(runs=3, keys=keys, concs=(8,))
    line = render.summary_line(C.compare_records(pr, base), "refs/heads/main", 5)
    assert "(last 5 runs; 3\u20135 found)" in line, line
    alike = synth.history(runs=3, keys=keys, concs=(4, 8))
    assert "(last 5 runs; 3 found)" in render.summary_line(C.compare_records(pr, alike), "refs/heads/main", 5)
