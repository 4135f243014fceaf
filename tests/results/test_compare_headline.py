"""The headline of `results compare` (Markdown heading, terminal summary) counts eval scores too: a
run whose only regression is an eval score fails --fail-on-regression, and its PR comment must not
read as if nothing regressed. Real lm-eval output (llama3-70b gsm8k), ingested with its job's sidecar."""

from __future__ import annotations

import pytest

from helpers import run_cli
from test_compare_evals import PR_REF, gsm8k, ingest_job

EVALS = "1 point insufficient-data (6 metrics); eval scores: 1 regressed, 1 unchanged"  # no zero count (s38f)


@pytest.fixture
def db(db, tmp_path, capsys):
    url = db  # conftest's empty store, filled here
    ingest_job(tmp_path, url, capsys, "1001", gsm8k())
    ingest_job(tmp_path, url, capsys, "2002", gsm8k(-0.05), ref=PR_REF, day=2)  # strict-match drops 5 points
    return url


def test_an_eval_regression_is_in_the_headline_of_the_markdown_and_the_terminal(db, capsys):
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown",
                          "--fail-on-regression")
    assert rc == 3, err
    heading = md.splitlines()[1]
    assert heading.startswith("### sweepgate results: run 2002 against main")
    assert heading.endswith(f" found): {EVALS}"), heading
    rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--fail-on-regression")
    assert rc == 3, err
    (summary,) = [line for line in text.splitlines() if line.startswith("run 2002 against")]
    assert summary.endswith(f" found): {EVALS}"), summary


def test_a_run_without_an_eval_regression_still_says_none_regressed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SWEEPGATE_DB", raising=False)
    url = f"sqlite:///{tmp_path / 'results.db'}"
    ingest_job(tmp_path, url, capsys, "1001", gsm8k())
    ingest_job(tmp_path, url, capsys, "2002", gsm8k(), ref=PR_REF, day=2)
    rc, md, err = run_cli(capsys, "results", "compare", "--db", url, "--run", "2002", "--markdown")
    assert rc == 0, err
    assert md.splitlines()[1].endswith("found): nothing failed, regressed or improved; 1 point insufficient-data (6 metrics); "
                                      "eval scores: 2 unchanged"), md


def test_the_comment_names_the_commit_it_measured(db, capsys):
    """A later push without a changelog entry runs no sweep and leaves this comment up: it must say
    which commit its numbers are of (the sidecar's commit, shortened), not read as the newer head's."""
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    assert rc == 0, err
    assert "Measured on commit `c0ffeec0ffee` (run 2002)." in md.splitlines()[2:5]


def test_in_a_workflow_the_comment_links_the_commit_and_the_run(db, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/bench")
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    assert rc == 0, err
    sha = "c0ffee" * 6 + "abcd"
    assert (f"Measured on commit [`c0ffeec0ffee`](https://github.com/acme/bench/commit/{sha}) "
            "([run 2002](https://github.com/acme/bench/actions/runs/2002)).") in md.splitlines()[2:5]
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/bench)[x](https://evil.example")  # not a repository name
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    assert "Measured on commit `c0ffeec0ffee` (run 2002)." in md.splitlines()[2:5]


def test_the_headline_counts_the_not_judged_metrics_that_moved_past_their_threshold(tmp_path, capsys):
    """s44d (a maintainer's first week: main has run each point once or twice): a PR run 12 % down at one
    point headed its comment and ended its terminal table with "nothing failed, regressed or improved;
    7 points insufficient-data (42 metrics)"; the terminal said nothing more, and the comment said it
    only in the section under the headline. The headline now counts those metrics where it counts the
    points they are of."""
    import synth
    from sweepgate.results import record as R
    from sweepgate.results import store

    url = f"sqlite:///{tmp_path / 'r.db'}"
    key = synth.KEYS[0]
    with store.open_store(url) as st:
        st.add(synth.history(runs=2, keys=(key,), noise=0.0))
        st.add(synth.pr_run({(key, 16): {R.OUTPUT_TPUT_PER_GPU: 0.88}}, keys=(key,), noise=0.0))
    counts = "nothing failed, regressed or improved; 5 points insufficient-data (30 metrics; 1 changed beyond its threshold)"
    rc, md, err = run_cli(capsys, "results", "compare", "--db", url, "--run", "pr-7", "--markdown")
    assert rc == 0, err
    assert md.splitlines()[1].endswith(f"(last 5 runs; 2 found): {counts}"), md
    rc, text, err = run_cli(capsys, "results", "compare", "--db", url, "--run", "pr-7")
    assert rc == 0, err
    (summary,) = [line for line in text.splitlines() if line.startswith("run pr-7 against")]
    assert summary.endswith(f"(last 5 runs; 2 found): {counts}"), text
    # none moved that far: the count stands alone, as before
    with store.open_store(url) as st:
        st.add(synth.pr_run(keys=(key,), noise=0.0, run="pr-8", ref="refs/pull/8/merge"))
    rc, md, err = run_cli(capsys, "results", "compare", "--db", url, "--run", "pr-8", "--markdown")
    assert md.splitlines()[1].endswith("found): nothing failed, regressed or improved; 5 points insufficient-data (30 metrics)"), md
