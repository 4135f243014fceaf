"""cmp28: "not measured" looked only at each config key's newest baseline run by record time. When
main's newest run overlapped the run before it (a re-run of some jobs dispatched while the sweep was
still going), that newest run held only the re-run jobs' points, and a concurrency the PR dropped went
unsaid. Main's picture of a key, hardware and seq-len is now every run that overlapped its newest one
in time; runs one after the other still leave the newest alone (a trimmed sweep on main)."""

from __future__ import annotations

import json

import pytest
import synth

from sweepgate import cli
from sweepgate.results import record as R
from sweepgate.results import store

KEY = synth.KEYS[0]


def timed(run: str, conc: int, started: str, finished: str, isl: int = 1024) -> dict:
    rec = synth.make(run, KEY, conc, synth.curve(conc), isl=isl)
    return {**rec, R.STARTED: started, R.FINISHED: finished}


def sweep(run: str, day: int, start_hour: int, concs=synth.CONCS, isl: int = 1024) -> list[dict]:
    """A main run whose jobs ran one after the other, an hour each, from ``start_hour`` on day ``day``."""
    return [timed(run, conc, f"2026-11-{day:02d}T{start_hour + i:02d}:00:00Z",
                  f"2026-11-{day:02d}T{start_hour + i:02d}:50:00Z", isl) for i, conc in enumerate(concs)]


def not_measured(tmp_path, capsys, main: list[dict], pr: list[dict]) -> list[tuple]:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(runs=3, keys=(KEY,)) + main)
        st.add(pr)
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    return [(p["isl"], p["conc"], p["not-measured"], p["baseline-run"]) for p in out["not-measured"]]


def test_a_concurrency_the_pr_dropped_is_said_when_main_s_newest_run_overlapped_the_one_before(env, capsys):
    # main-10 runs conc 4..64 from 10:00 to 14:50; main-11 re-runs conc 4 and 8 from 11:00, ending last
    main = sweep("main-10", 5, 10) + sweep("main-11", 5, 11, concs=(4, 8))
    main[-1] = {**main[-1], R.FINISHED: "2026-11-05T15:30:00Z"}
    pr = [r for r in synth.pr_run(keys=(KEY,)) if r[R.CONC] != 64]
    assert not_measured(env, capsys, main, pr) == [(1024, 64, "point", "main-10")]


def test_a_run_after_main_s_last_one_is_main_s_picture_alone(env, capsys):
    """The contrast: main-11 started after main-10 had ended, so main measures conc 4 and 8 only now
    (a trimmed sweep): the PR's missing conc 64 is no drop of main's newest picture, as before."""
    main = sweep("main-10", 5, 10) + sweep("main-11", 5, 16, concs=(4, 8))
    pr = [r for r in synth.pr_run(keys=(KEY,)) if r[R.CONC] != 64]
    assert not_measured(env, capsys, main, pr) == []


def test_each_seq_len_has_main_s_own_newest_picture(env, capsys):
    """main-11 ran only isl 1024 of the key, after main-10 ran isl 1024 and 8192: main's picture of
    8192 is still main-10's, so the PR's 8192 run without conc 64 dropped one."""
    main = sweep("main-10", 5, 0) + sweep("main-10", 5, 6, isl=8192) + sweep("main-11", 6, 0)
    pr = synth.pr_run(keys=(KEY,)) + [r for r in synth.pr_run(keys=(KEY,), isl=8192) if r[R.CONC] != 64]
    assert not_measured(env, capsys, main, pr) == [(8192, 64, "point", "main-10")]


@pytest.mark.parametrize("newest_too, said", [(False, []), (True, [(8192, c, "point", "main-11") for c in synth.CONCS])])
def test_a_seq_len_the_pr_ran_none_of_is_a_drop_only_when_main_s_newest_run_of_the_key_has_it(env, capsys,
                                                                                              newest_too, said):
    """CI on 1552413: with pictures per seq-len, a seq-len main had stopped running (main-10's 8192, not in
    main-11) read as dropped by every later PR of the key that ran none of it, and compare charted it."""
    main = (sweep("main-10", 5, 0) + sweep("main-10", 5, 6, isl=8192) + sweep("main-11", 6, 0)
            + (sweep("main-11", 6, 6, isl=8192) if newest_too else []))
    assert not_measured(env, capsys, main, synth.pr_run(keys=(KEY,))) == said


def test_results_ci_reuse_copied_do_not_reach_back_to_the_run_that_measured_them(env, capsys):
    """main-8 ran conc 4..64; main-9 dropped conc 64 (main's config no longer runs it); main-10 reused
    conc 4..16 from main-8 and ran conc 32. The copies carry main-8's times: read as main-10's own, its
    span reached back over main-9 to main-8, and conc 64 would read as dropped by every later PR."""
    copies = [{**r, R.RUN_ID: "main-10", R.REUSED_FROM: {R.RUN_ID: "main-8", R.ATTEMPT: 1,
                                                           R.RESULT_FILENAME: r[R.RESULT_FILENAME]}}
              for r in sweep("main-8", 5, 0, concs=(4, 8, 16))]
    main = (sweep("main-8", 5, 0) + sweep("main-9", 6, 0, concs=(4, 8, 16, 32)) + copies
            + sweep("main-10", 7, 0, concs=(32,)))
    pr = [r for r in synth.pr_run(keys=(KEY,)) if r[R.CONC] != 64]
    assert not_measured(env, capsys, main, pr) == []


def test_eval_scores_of_the_overlapped_run_are_main_s_too(env, capsys):
    """The same overlap hid eval scores: main-10 evaluated conc 16, main-11 (a re-run of conc 4 and 8
    that ended last) did not, and a PR that measured conc 16 without its eval read clean."""
    main = sweep("main-10", 5, 10) + sweep("main-11", 5, 11, concs=(4, 8))
    main[-1] = {**main[-1], R.FINISHED: "2026-11-05T15:30:00Z"}
    (at16,) = [r for r in main if r[R.RUN_ID] == "main-10" and r[R.CONC] == 16]
    main.append({**at16, R.CLIENT: R.EVAL_CLIENT, R.RESULT_FILENAME: at16[R.RESULT_FILENAME] + "-eval",
                 R.METRICS: {}, R.EVALS: [{R.EVAL_TASK: "gsm8k", R.EVAL_METRIC: "exact_match",
                                           R.EVAL_FILTER: "strict-match", R.EVAL_VALUE: 0.9,
                                           R.EVAL_STDERR: 0.01, R.EVAL_SAMPLES: 1319}]})
    assert not_measured(env, capsys, main, synth.pr_run(keys=(KEY,))) == [(1024, 16, "eval scores", "main-10")]
