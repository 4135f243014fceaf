"""What a maintainer reads in a PR comment cut to fit GitHub's limit (comment review 33): where the rows
left out are (a reader of the PR cannot run `--json`), the points not measured once their fold is gone,
and the label of the run's column, the same in every table."""

from __future__ import annotations

import pytest

import synth
from sweepgate import cli
from sweepgate.core import github
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render, store

KEYS = tuple(f"dsr1-fp8-b300-vllm-k{i}" for i in range(8))
KEPT = (4, 8, 16, 32)  # the PR's concurrencies: main's conc 64 of every key is not measured
RUN_PAGE = "[run 4242](https://github.com/o/r/actions/runs/4242)"
ACTIONS = {"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r",
           "GITHUB_RUN_ID": "4242"}


def records() -> tuple[list[dict], list[dict]]:
    """(the PR run, main's history): every point the PR measured slowed by 20 %, conc 64 dropped."""
    slowed = {(key, conc): {R.OUTPUT_TPUT_PER_GPU: 0.8, R.INTERACTIVITY: 0.8} for key in KEYS for conc in KEPT}
    return synth.pr_run(slowed, keys=KEYS, concs=KEPT), synth.history(keys=KEYS)


def build(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    pr, base = records()
    with store.open_store(url) as st:
        st.add(base + pr)
    return url


def cut_notes(lines: list[str]) -> list[str]:
    """The lines of a cut report that say where its rows left out are."""
    return [line for line in lines if "more " in line and line.endswith(".") and ": see " in line
            or "too many to list here" in line]


@pytest.fixture
def small_comment(env, monkeypatch):
    """A comment limit a few kilobytes long: the report of 32 regressed points is cut to fit it."""
    monkeypatch.setattr(github, "COMMENT_LIMIT", 6000)
    return env


def test_a_cut_comment_written_in_a_workflow_run_points_at_the_run_s_step_summary(small_comment, monkeypatch):
    """Review: a cut comment said "350 more regressed rows (...): see `--json`", which a maintainer
    reading the PR cannot run. In a workflow run (run-sweep.yml's collect job writes the report into its
    step summary, $GITHUB_STEP_SUMMARY, and the comment's body), the notes link the run whose step
    summary holds the whole report."""
    url = build(small_comment)
    for name, value in ACTIONS.items():
        monkeypatch.setenv(name, value)
    summary = small_comment / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--comment-file", "c.md"]) == 0
    comment = (small_comment / "c.md").read_text()
    assert len(comment) <= 6000
    notes = cut_notes(comment.splitlines())
    assert notes and all(f"see the whole report in the step summary of {RUN_PAGE}" in n for n in notes), notes
    assert "`--json`" not in comment
    whole = summary.read_text()  # the step summary was not cut: it lists every row, and points nowhere
    assert not cut_notes(whole.splitlines()) and "<summary>Not measured by this run: 8 points</summary>" in whole


def test_a_cut_comment_without_a_step_summary_to_point_at_names_the_command(small_comment, monkeypatch):
    """Outside a workflow run (or in one that wrote no step summary) there is no page to point at: the
    notes name the command that lists every row, as a local user runs it."""
    url = build(small_comment)
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--comment-file", "c.md"]) == 0
    notes = cut_notes((small_comment / "c.md").read_text().splitlines())
    assert notes and all(n.endswith("see `sweepgate results compare --run pr-7 --json`.")
                         or n.endswith("see `sweepgate results compare --run pr-7 --json`).") for n in notes), notes
    for name, value in ACTIONS.items():  # a run, but no step summary written: no page holds the rows
        monkeypatch.setenv(name, value)
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--comment-file", "c.md"]) == 0
    notes = cut_notes((small_comment / "c.md").read_text().splitlines())
    assert notes and not any("step summary" in n for n in notes), notes


def test_a_step_summary_cut_too_points_past_itself(small_comment, monkeypatch):
    """A step summary over its own limit cannot point at itself: it names the command; the comment names
    the step summary (which holds more than it does) and the command for every row."""
    url = build(small_comment)
    for name, value in ACTIONS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(github, "STEP_SUMMARY_LIMIT", 12000)
    summary = small_comment / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--comment-file", "c.md"]) == 0
    notes = cut_notes(summary.read_text().splitlines())
    assert notes and not any("step summary" in n for n in notes), notes
    assert all("`sweepgate results compare --run pr-7 --json`" in n for n in notes), notes
    notes = cut_notes((small_comment / "c.md").read_text().splitlines())
    assert notes and all(f"the step summary of {RUN_PAGE}" in n and "`sweepgate results compare --run pr-7 --json`" in n
                         for n in notes), notes


def test_a_cut_comment_still_counts_the_points_not_measured_and_says_where_they_are():
    """Review: cut to fit, the comment lost the "Not measured" fold; the note above it named 3 points "and
    5 more", and the rest were nowhere. A cut report says how many were not measured and where the whole
    list is, within its limit."""
    pr, base = records()
    comp = C.compare_records(pr, base, run="pr-7")
    whole = render.markdown(comp)
    assert "<summary>Not measured by this run: 8 points</summary>" in whole
    for limit in (len(whole.encode()) - 1, 6000, 3000):
        body = render.markdown(comp, limit=limit)  # the pointer a caller gives none: `--json`
        assert len(body.encode()) <= limit
        assert "Not measured by this run: 8 points (too many to list here; see `--json`)." in body.splitlines()
        pointer = f"see the whole report in the step summary of {RUN_PAGE}"
        body = render.markdown(comp, limit=limit, more=pointer)
        assert len(body.encode()) <= limit
        assert "; and 5 more)" in body  # the note under the headline, as before
        assert f"Not measured by this run: 8 points (too many to list here; {pointer})." in body.splitlines(), body


@pytest.mark.parametrize("pr, word", [(7, "PR"), (None, "this run")])
def test_the_run_s_column_reads_alike_in_the_verdict_and_the_evals_tables(pr, word):
    """Review: the verdict tables headed the run's figures "head" (git's word), the Evals table "PR"
    ("this run" over a run that is no PR's). Both say "PR" (or "this run"), in Markdown and on the terminal."""
    from test_results_polish23 import POINT, _eval

    slowed = {(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}
    comp = C.compare_records(synth.pr_run(slowed, keys=synth.KEYS[:1]), synth.history(keys=synth.KEYS[:1]))
    comp.pr, comp.evals = pr, [_eval(POINT, "gsm8k")]
    md = render.markdown(comp)
    assert f"| point | metric | {word} | baseline median [interval] (n) | change (threshold) | verdict |" in md, md
    assert f"| point | score | {word} | baseline | main run | change (margin) | verdict |" in md, md
    assert "| head |" not in md
    headers = [line.split() for line in render.table_text(comp).splitlines() if line.startswith("point ")]
    assert [h[:2 + len(word.split())] for h in headers] == [["point", "metric", *word.split()],
                                                            ["point", "score", *word.split()]], headers


@pytest.mark.parametrize("variable", [None, "run-summary.md"])
def test_a_step_summary_passed_as_another_file_is_no_page_the_comment_points_at(small_comment, monkeypatch, variable):
    """The run's page shows $GITHUB_STEP_SUMMARY, not a file passed as --step-summary (kept, uploaded, or
    thrown away): a comment cut in a workflow run that wrote its report there said "see the whole report in
    the step summary of run 4242", whose step summary held none of it. It names the command instead."""
    url = build(small_comment)
    for name, value in ACTIONS.items():
        monkeypatch.setenv(name, value)
    if variable:
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(small_comment / variable))
    else:
        monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--step-summary", "other.md",
                     "--comment-file", "c.md"]) == 0
    notes = cut_notes((small_comment / "c.md").read_text().splitlines())
    assert notes and not any("step summary" in n for n in notes), notes
    assert all("`sweepgate results compare --run pr-7 --json`" in n for n in notes), notes


def test_the_step_summary_variable_passed_as_the_flag_is_still_the_run_s(small_comment, monkeypatch):
    """`--step-summary "$GITHUB_STEP_SUMMARY"` is the run's step summary all the same."""
    url = build(small_comment)
    for name, value in ACTIONS.items():
        monkeypatch.setenv(name, value)
    summary = small_comment / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--step-summary", str(summary),
                     "--comment-file", "c.md"]) == 0
    notes = cut_notes((small_comment / "c.md").read_text().splitlines())
    assert notes and all(f"see the whole report in the step summary of {RUN_PAGE}" in n for n in notes), notes
