"""--run given a PR's number: the refusal names the runs stored for that PR (polish 21)."""

from __future__ import annotations

import pytest

from tests.results import synth
from tests.results.helpers import run_cli
from sweepgate.results import store


def _store(tmp_path, runs: list[tuple[str, str, int]]) -> str:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(runs=3, keys=synth.KEYS[:1], concs=(4,)))
        for run, ref, day in runs:
            for rec in synth.pr_run(keys=synth.KEYS[:1], concs=(4,), run=run):
                rec.update({"ref": ref, "finished": f"2026-11-{day:02d}T12:00:00Z"})
                st.add([rec])
    return url


@pytest.mark.parametrize("command", ["show", "compare"])
def test_a_pr_number_as_run_names_the_pr_s_runs(capsys, tmp_path, command):
    url = _store(tmp_path, [("12399", "refs/pull/42/merge", 20), ("12345", "refs/pull/42/head", 10),
                            ("13000", "refs/pull/420/head", 21), ("555", "refs/pull/7/head", 22)])
    rc, out, err = run_cli(capsys, "results", command, "--db", url, "--run", "42")
    assert rc == 1 and out == "", err
    assert err == (f"--run: run '42' has no results in {url} (runs stored for PR 42: 12345, 12399); "
                   "pass --run RUN_ID, the id of the PR's workflow run, not the PR's number\n"), err


def test_a_pr_of_many_runs_names_its_newest(capsys, tmp_path):
    url = _store(tmp_path, [(str(100 + day), "refs/pull/9/merge", day) for day in range(10, 18)])
    rc, _, err = run_cli(capsys, "results", "compare", "--db", url, "--run", "9")
    assert rc == 1 and err.count("\n") == 1, err
    assert "(runs stored for PR 9: 113, 114, 115, 116, 117 and 3 older)" in err, err


def test_a_number_no_pr_has_names_the_newest_runs_stored(capsys, tmp_path):
    """s34e: a mistyped run id (`--run 20` for 200) was told only "check --run and --db": the maintainer had
    to find the run ids some other way. The refusal names the newest runs the store holds, with their refs."""
    url = _store(tmp_path, [("12345", "refs/pull/42/head", 29), ("12399", "refs/pull/42/head", 30)])
    for run in ("43", "0", "main-1x"):
        rc, _, err = run_cli(capsys, "results", "show", "--db", url, "--run", run)
        assert rc == 1 and err == (f"--run: run {run!r} has no results in {url} (newest runs stored: 12399, 12345 on "
                                   "refs/pull/42/head; main-2, main-1, main-0 on refs/heads/main); check --run and "
                                   "--db, or ingest the run first (`sweepgate results ingest`)\n"), err


def test_the_newest_runs_named_for_an_unknown_run_count_the_older_ones(capsys, tmp_path):
    url = _store(tmp_path, [(str(100 + day), "refs/heads/main", day) for day in range(1, 9)])
    rc, _, err = run_cli(capsys, "results", "compare", "--db", url, "--run", "20")
    assert rc == 1 and err.count("\n") == 1, err
    assert "(newest runs stored: 108, 107, 106, 105, 104 on refs/heads/main and 6 older);" in err, err


@pytest.mark.parametrize("command", ["show", "compare"])
def test_a_run_id_too_long_for_a_number_is_refused_plainly_not_an_internal_error(capsys, tmp_path, command):
    url = _store(tmp_path, [("12345", "refs/pull/42/head", 10)])
    run = "4" * 5000  # past Python's 4,300 digits for int(): it raised ValueError, 'internal error'
    rc, out, err = run_cli(capsys, "results", command, "--db", url, "--run", run)
    assert rc == 1 and out == "" and err.count("\n") == 1, err[:300]
    assert err.startswith("--run: run '4") and "internal error" not in err and err.endswith(
        "; check --run and --db, or ingest the run first (`sweepgate results ingest`)\n"), err[-300:]


def test_a_pr_number_written_with_a_hash_names_the_pr_s_runs_too(capsys, tmp_path):
    url = _store(tmp_path, [("12345", "refs/pull/42/head", 10)])
    rc, _, err = run_cli(capsys, "results", "show", "--db", url, "--run", "#42")
    assert rc == 1 and "(runs stored for PR 42: 12345)" in err, err


@pytest.mark.parametrize("command", ["show", "compare"])
@pytest.mark.parametrize("run", ["pull/42", "refs/pull/42/merge", "pull/42/head",
                                 "https://github.com/acme/bench/pull/42"])
def test_a_pr_s_ref_or_address_as_run_names_the_pr_s_runs(capsys, tmp_path, command, run):
    """cli23: `--run pull/42` (the ref form) got the plain refusal, no suggestion."""
    url = _store(tmp_path, [("12399", "refs/pull/42/merge", 20), ("12345", "refs/pull/42/head", 10)])
    rc, out, err = run_cli(capsys, "results", command, "--db", url, "--run", run)
    assert rc == 1 and out == "", err
    form = "address" if run.startswith("https:") else "ref"  # review23: an address was called a ref
    assert err == (f"--run: run {run!r} has no results in {url} (a pull request's {form}, not a run's id; runs "
                   f"stored for PR 42: 12345, 12399); pass --run RUN_ID, the id of the PR's workflow run, not the "
                   f"PR's {form}\n")


def test_a_pr_s_ref_with_no_run_stored_says_what_to_pass(capsys, tmp_path):
    url = _store(tmp_path, [("12345", "refs/pull/42/head", 10)])
    rc, _, err = run_cli(capsys, "results", "compare", "--db", url, "--run", "pull/43")
    assert rc == 1 and err == (
        f"--run: run 'pull/43' has no results in {url} (a pull request's ref, not a run's id; none is stored for "
        "PR 43); pass --run RUN_ID, the id of PR 43's workflow run (the number in its …/actions/runs/RUN_ID "
        "address), after ingesting it (`sweepgate results ingest`)\n"), err


@pytest.mark.parametrize("run", ["42", "pull/42", "nothing-here"])
def test_compare_of_an_unknown_run_opens_the_store_once(capsys, tmp_path, monkeypatch, run):
    """cli23: the refusal opened the store a second time to look for the PR's runs."""
    url = _store(tmp_path, [("12345", "refs/pull/42/head", 10)])
    opened = []
    real = store.open_store
    monkeypatch.setattr(store, "open_store", lambda *a, **kw: opened.append(a) or real(*a, **kw))
    rc, _, err = run_cli(capsys, "results", "compare", "--db", url, "--run", run)
    assert rc == 1 and "has no results" in err and len(opened) == 1, (opened, err)
