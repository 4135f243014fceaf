"""A new user's `results compare` (tidy28): an eval-only run's headline said "(last 5 runs; 0 found)"
though main's eval scores were found and judged; `--plots DIR` made DIR, empty, when no chart was
drawn; and at COLUMNS=60 the notes under the table (repeated points, not measured) were wrapped by rich,
a blank left at each line's end. Real processes on real SQLite stores, a real lm-eval output."""

from __future__ import annotations

import json

import pytest

import synth
from helpers import SAMPLES, job, sweepgate_at
from sweepgate.results import record as R
from sweepgate.results import store

GSM8K = SAMPLES / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"


sweepgate = sweepgate_at  # helpers: a real process of the source tree


def ingest_eval(tmp_path, db: str, run: str, ref: str) -> None:
    (tmp_path / "row.json").write_text(json.dumps(job()["row"]))
    proc = sweepgate(tmp_path, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", run, "--ref", ref,
                     str(GSM8K))
    assert proc.returncode == 0, proc.stderr


def headline(text: str, run: str) -> str:
    (line,) = [line for line in text.splitlines() if f"run {run} against" in line]
    return line


@pytest.mark.parametrize("fmt", [(), ("--markdown",)])
def test_an_eval_only_run_s_headline_says_its_scores_baseline_not_0_found(tmp_path, fmt):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    ingest_eval(tmp_path, db, "m1", "refs/heads/main")
    ingest_eval(tmp_path, db, "pe", "refs/pull/3/head")
    proc = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pe", *fmt)
    assert proc.returncode == 0, proc.stderr
    line = headline(proc.stdout, "pe")
    assert line.endswith("run pe against main (newest of last 5 runs): nothing failed, regressed or improved; "
                         "eval scores: 2 unchanged"), line  # no point's count, no zero (s38f)
    judged = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pe", "--json")
    assert [e["baseline"]["run-id"] for e in json.loads(judged.stdout)["evals"]] == ["m1", "m1"]


def test_an_eval_only_run_without_a_baseline_still_says_0_found(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    ingest_eval(tmp_path, db, "pe", "refs/pull/3/head")
    proc = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pe")
    assert proc.returncode == 0, proc.stderr
    line = headline(proc.stdout, "pe")
    assert "(newest of last 5 runs; 0 found)" in line and line.endswith("; eval scores: 2 new"), line


def test_plots_makes_no_folder_when_no_chart_is_drawn_and_keeps_one_that_existed(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    ingest_eval(tmp_path, db, "m1", "refs/heads/main")
    ingest_eval(tmp_path, db, "pe", "refs/pull/3/head")
    proc = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pe", "--plots", "out/charts")
    assert proc.returncode == 0, proc.stderr
    assert "wrote no chart: the run has no successful throughput point" in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists(), "no new folder (nor its parent) left behind, empty"
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("kept")
    proc = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pe", "--plots", "mine")
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_the_notes_under_the_table_break_between_words_at_columns_60(tmp_path):
    """A PR run of 3 of main's 5 concurrencies (4 points not measured), 4 of its points measured twice."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    pr = synth.pr_run(concs=(4, 8, 16))
    twice = [{**rec, R.RESULT_FILENAME: rec[R.RESULT_FILENAME] + "_again"} for rec in pr[:4]]
    with store.open_store(db) as st:
        st.add(synth.history(runs=5) + pr + twice)
    wide = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7")
    narrow = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7", columns="60")
    assert wide.returncode == narrow.returncode == 0, wide.stderr + narrow.stderr
    notes = [line for line in wide.stdout.splitlines() if line.startswith(("4 points were measured more", "Not measured"))]
    assert len(notes) == 2, wide.stdout
    lines = narrow.stdout.splitlines()
    assert all(len(line) <= 60 for line in lines), lines
    assert [line for line in lines if line != line.rstrip()] == [], "no line ends in a blank"
    at = next(i for i, line in enumerate(lines) if line.startswith("4 points were measured more"))
    # each note's wrapped lines go on two blanks in (s45k)
    assert " ".join(line.strip() for line in lines[at:]) == " ".join(notes), "the notes whole, broken only between words"
    assert sum(line.startswith("  ") for line in lines[at:]) == len(lines[at:]) - 2, lines[at:]


def test_a_piped_headline_longer_than_240_columns_stays_whole(tmp_path):
    """Piped with no COLUMNS a line is never wrapped, but rich cut a headline (and, once printed as it
    is, a note) at the pipe's 240 columns: a long run id left "... 0 points insufficient-d" and no more (its end now "10 points unchanged")."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    run = "pr-" + "long-run-name-" * 11  # a headline past 240 columns
    with store.open_store(db) as st:
        st.add(synth.history(runs=5) + synth.pr_run(run=run))
    proc = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", run)
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.splitlines()[-1]
    assert len(line) > 240 and line.startswith(f"run {run} against") and line.endswith("; 10 points unchanged"), line
