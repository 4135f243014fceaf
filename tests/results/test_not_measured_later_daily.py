"""daily: "not measured" of a PR run compared again after main moved on. Its verdicts stay those it got
(the baseline is main's runs before it), but what it dropped was read from main's newest record of each
point, whatever its time, and then left out when that record came after the run: a concurrency the PR
dropped was said right after the run and no longer once main had run it again. And a point main measured
only after the PR (judged against those later runs) made main's later run the picture of the seq-len, so
what the PR dropped from main's picture before it went unsaid too. Only main's runs before the run count,
as for its verdicts (CONTRACTS section 8)."""

from __future__ import annotations

import json

import synth

from sweepgate import cli
from sweepgate.results import record as R
from sweepgate.results import store

KEY = synth.KEYS[0]


def not_measured(tmp_path, capsys, *batches: list[dict]) -> list[tuple]:
    """`results compare --run pr-7 --json`'s not-measured entries once ``batches`` are stored, in turn."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        for batch in batches:
            st.add(batch)
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    return [(p["conc"], p["not-measured"], p["baseline-run"]) for p in out["not-measured"]]


def main_run(run: str, day: int, concs) -> list[dict]:
    return [synth.make(run, KEY, conc, synth.curve(conc), day=day) for conc in concs]


def pr_without_64(concs=synth.CONCS) -> list[dict]:
    """PR 7's run (day 28) of ``concs`` but conc 64."""
    return [synth.make("pr-7", KEY, conc, synth.curve(conc), ref="refs/pull/7/merge", day=28)
            for conc in concs if conc != 64]


def test_a_dropped_concurrency_is_still_said_once_main_ran_it_again_after_the_pr(env, capsys):
    history = synth.history(runs=3, keys=(KEY,))  # main-0..2, days 1-3, conc 4..64
    assert not_measured(env, capsys, history, pr_without_64()) == [(64, "point", "main-2")]
    # main's nightly runs on: compared again, the PR dropped the same point of main's run before it
    later = main_run("main-3", 29, synth.CONCS)
    (env / "again").mkdir()
    assert not_measured(env / "again", capsys, history, pr_without_64(), later) == [(64, "point", "main-2")]


def test_a_point_main_measured_only_after_the_pr_does_not_make_main_s_later_run_its_picture(env, capsys):
    """The PR ran conc 128 (new then) and dropped conc 64; main ran conc 128 alone on days 29-31. Conc 128
    is judged against those later runs, but main's picture before the PR, main-2, still had conc 64."""
    history = synth.history(runs=3, keys=(KEY,))
    pr = pr_without_64((*synth.CONCS, 128))
    later = [rec for day in (29, 30, 31) for rec in main_run(f"main-{day}", day, (128,))]
    (env / "again").mkdir()
    assert not_measured(env / "again", capsys, history, pr, later) == [(64, "point", "main-2")]


def test_a_dropped_concurrency_is_said_when_main_s_newest_night_failed_entirely(env, capsys):
    """main-3's every job failed (a broken runner pool): no failed job takes a place in the baseline, so
    main's picture before the PR is main-2, and the concurrency the PR dropped from it is said. The
    newest record of the point was main-3's failure, which measured nothing, and the drop went unsaid."""
    failed = [{**rec, R.STATUS: "failure", R.METRICS: {}} for rec in main_run("main-3", 4, synth.CONCS)]
    assert not_measured(env, capsys, synth.history(runs=3, keys=(KEY,)), failed, pr_without_64()) == [
        (64, "point", "main-2")]


def test_a_dropped_concurrency_is_said_when_main_s_newest_record_of_it_is_a_rehearsal(env, capsys):
    """Diff review: a rehearsal stored on main (`sweepgate rehearse` of main's tip) is no picture of main
    for a real run, but the newest record of each point was picked first and rehearsals left out after,
    so a rehearsal of conc 64 newer than main-2 hid the drop, as a failed night did."""
    rehearsed = [{**rec, R.REHEARSAL: True} for rec in main_run("main-r", 4, synth.CONCS)]
    assert not_measured(env, capsys, synth.history(runs=3, keys=(KEY,)), rehearsed, pr_without_64()) == [
        (64, "point", "main-2")]
