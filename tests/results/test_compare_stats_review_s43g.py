"""A statistician's review of `results compare` (s43g): what its verdicts claim, held to the numbers.

Eval scores were judged one at a time at 95 % while the throughput comparisons of the same run were
adjusted together: a run of twenty eval points, each a fair coin's worth of noise, showed one
"regression" in twenty on average (and --fail-on-regression exited 3 on it)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

import synth
from sweepgate.results import compare as C
from sweepgate.results import evals as E
from sweepgate.results import record as R

KEY = synth.KEYS[0]
TASK, METRIC, FILTER = "gsm8k", "exact_match", "strict-match"
SE = 0.01  # each side's stderr: the difference's is SE * sqrt(2)


def eval_record(run: str, conc: int, value: float, *, ref: str = synth.MAIN, day: int = 1) -> dict:
    rec = synth.make(run, KEY, conc, {}, ref=ref, day=day)
    rec.update({R.CLIENT: R.EVAL_CLIENT, R.RESULT_FILENAME: rec[R.RESULT_FILENAME] + "-eval", R.METRICS: {},
                R.EVALS: [{R.EVAL_TASK: TASK, R.EVAL_METRIC: METRIC, R.EVAL_FILTER: FILTER, R.EVAL_VALUE: value,
                           R.EVAL_STDERR: SE, R.EVAL_SAMPLES: 1319}]})
    return rec


def eval_run(moves: dict[int, float], points: int = 20) -> dict[int, E.EvalVerdict]:
    """``points`` eval points (conc 1..points) at 0.8 on main; the PR's score at each moved by ``moves[conc]``
    standard errors of the difference (none elsewhere)."""
    spread = SE * math.sqrt(2)
    main = [eval_record("main-1", conc, 0.8) for conc in range(1, points + 1)]
    pr = [eval_record("pr-1", conc, 0.8 + moves.get(conc, 0.0) * spread, ref="refs/pull/1/head", day=2)
          for conc in range(1, points + 1)]
    return {v.point[R.POINT.index(R.CONC)]: v for v in E.compare_evals(pr, main)}


def test_one_eval_score_moved_by_noise_among_twenty_is_not_a_regression():
    """2.2 standard errors down (p = 0.028) is what one score in 36 does by chance: alone it is a finding,
    among twenty scores of the run it is the noise twenty comparisons bring (it was `regressed`, exit 3)."""
    alone = eval_run({1: -2.2}, points=1)[1]
    assert alone.verdict == C.REGRESSED and abs(alone.difference) > alone.margin
    among = eval_run({1: -2.2})
    assert among[1].verdict == C.UNCHANGED and abs(among[1].difference) <= among[1].margin, among[1]
    assert {v.verdict for v in among.values()} == {C.UNCHANGED}


def test_a_real_eval_change_among_twenty_scores_is_still_found_and_its_margin_says_so():
    run = eval_run({1: -6.0, 2: 6.0})
    assert (run[1].verdict, run[2].verdict) == (C.REGRESSED, C.IMPROVED)
    for v in run.values():  # the margin shown is where the verdict turns: beyond it changed, within it not
        assert (abs(v.difference) > v.margin) == (v.verdict != C.UNCHANGED), v
    assert {v.verdict for conc, v in run.items() if conc > 2} == {C.UNCHANGED}


def steady_sweep(pr_client: str | None) -> C.Comparison:
    """Five main runs measured by vLLM's client, and a PR run 10 % slower, measured by ``pr_client``."""
    main = [synth.make(f"main-{r}", KEY, conc, synth.curve(conc), day=r + 1) for r in range(5) for conc in (4, 8)]
    for rec in main:
        rec[R.CLIENT] = "vllm-bench"
    pr = [synth.make("pr-1", KEY, conc, {**synth.curve(conc), R.OUTPUT_TPUT_PER_GPU: synth.curve(conc)[
        R.OUTPUT_TPUT_PER_GPU] * 0.9}, ref="refs/pull/1/head", day=28) for conc in (4, 8)]
    for rec in pr:
        rec[R.CLIENT] = pr_client
    return C.compare_records(pr, main)


def test_a_point_measured_by_another_client_than_main_s_says_so_beside_its_verdict():
    """Every client's figures are stored in one set of units (ms, tok/s), but two clients count a run apart
    (AIPerf tokenizes the responses itself, vLLM's client may take the server's counts): the row names the change,
    as it names an image's, the recipe fingerprint being the same (it named nothing: a 10 % drop read as the PR's),
    and since s46f the point is not judged against main's figures (insufficient-data, saying why)."""
    changed = steady_sweep("aiperf")
    rows = [v for v in changed.verdicts if v.metric == R.OUTPUT_TPUT_PER_GPU]
    assert {v.verdict for v in rows} == {C.INSUFFICIENT}
    assert all(v.client == "client vllm-bench \u2192 aiperf" and "another benchmark client" in v.why for v in rows)
    assert all([c.words for c in v.recipe_changes] == ["client vllm-bench \u2192 aiperf"] for v in rows), rows
    assert all(not v.recipe_changes for v in steady_sweep("vllm-bench").verdicts)
    assert all(not v.recipe_changes for v in steady_sweep(None).verdicts)  # a client not known: no change said


scores = st.lists(st.tuples(st.floats(0.05, 0.95), st.floats(-0.2, 0.2), st.floats(0.001, 0.05)), min_size=1,
                  max_size=12)


def scored(run: str, points: list[tuple[float, float, float]], side: int, ref: str, day: int) -> list[dict]:
    """One record a point (conc 1..): its score ``value + side * move``, its stderr ``se``."""
    out = []
    for conc, (value, move, se) in enumerate(points, 1):
        rec = eval_record(run, conc, min(1.0, max(0.0, value + side * move)), ref=ref, day=day)
        rec[R.EVALS][0][R.EVAL_STDERR] = se
        out.append(rec)
    return out


@settings(max_examples=60, deadline=None)
@given(scores)
def test_swapping_the_run_and_main_flips_every_eval_verdict(points):
    """Judged together or alone, an eval verdict is a statement about a difference: the run's score against
    main's, or main's against the run's, the opposite verdict, the same margin; the same scores on both
    sides, no verdict at all."""
    ahead = {v.point: v for v in E.compare_evals(scored("pr-1", points, 1, "refs/pull/1/head", 2),
                                                 scored("main-1", points, 0, synth.MAIN, 1))}
    back = {v.point: v for v in E.compare_evals(scored("pr-1", points, 0, "refs/pull/1/head", 2),
                                                scored("main-1", points, 1, synth.MAIN, 1))}
    flip = {C.REGRESSED: C.IMPROVED, C.IMPROVED: C.REGRESSED, C.UNCHANGED: C.UNCHANGED}
    for pt, v in ahead.items():
        assert back[pt].verdict == flip[v.verdict] and math.isclose(back[pt].margin, v.margin), (v, back[pt])
    same = E.compare_evals(scored("pr-1", points, 1, "refs/pull/1/head", 2), scored("main-1", points, 1, synth.MAIN, 1))
    assert {v.verdict for v in same} == {C.UNCHANGED}


def rowless(run: str, model: str, ttft: float, *, ref: str = synth.MAIN, day: int = 1) -> dict:
    """A conc-4 record of ``model`` with no matrix row: no config key, hardware, scenario or recipe."""
    rec = synth.make(run, None, 4, {"ttft_p50_ms": ttft, R.OUTPUT_THROUGHPUT: 1000.0}, ref=ref, day=day)
    rec.update({R.CONFIG_KEY: None, R.HARDWARE: None, R.SCENARIO: None, R.MODEL: model, R.TP: None,
                R.RECIPE_FINGERPRINT: None})
    return rec


def test_a_point_without_its_matrix_row_is_matched_to_no_main_run():
    """A point ingested without its matrix row is named only by its conc and lengths (no config key, hardware or
    scenario): it matched any such point of main's, of any model, and DeepSeek-R1's TTFT of 400 ms 'regressed'
    against Llama-8B's 20 ms, under a note saying no main run is matched to it. Now none is: it is new."""
    main = [rowless(f"main-{r}", "meta-llama/Llama-3.1-8B", 20.0 + r / 10, day=r + 1) for r in range(5)]
    result = C.compare_records([rowless("pr-1", "deepseek-ai/DeepSeek-R1", 400.0, ref="refs/pull/1/head", day=28)],
                               main)
    assert [(v.metric, v.verdict, v.n) for v in result.verdicts] == [("ttft_p50_ms", C.NEW, 0)]
    assert any("no main run is matched to it" in note for note in result.notes)
