"""s30: the first of main runs of one time, compared with its baseline read from files.

Main runs ingested by hand (`--row ... --run-id ID --ref refs/heads/main`) from vLLM outputs of one `date`
carry one time; runs of one time are placed by run id (polish29, ``record.before``/``store_query._before``), so the
first of them has nothing of main's before it and its points are `new`, from a store and from files alike.
From a store, stderr says main measured its points only after it, naming the later runs; with the same
records in a `--baseline-jsonl` file it said "no baseline results ...; check --baseline-ref, and that both
sides were ingested with the same --config-key", sending the user after a ref and a key that were right
(docs/contracts.md: a baseline read from files is held to the same rules as a store's). Run ids of
different lengths (99, 100, 101) show the runs placed as numbers, not as text ("100" < "99").
"""

from __future__ import annotations

import json

import pytest

from helpers import ROW, compared_json, main_runs_by_hand, sweepgate_at, vllm_output

MAIN = "refs/heads/main"
AFTER = ("sweepgate results compare: run 99 is on refs/heads/main itself and is judged against its runs before "
         "it; refs/heads/main measured its points only after it (runs 100, 101; runs of one time are placed by run "
         "id), so every point that measured something is new; compare the later run (--run 101), or ingest each "
         "run with its .job.json, whose times place it")




def test_the_first_run_of_one_time_says_the_same_from_a_store_and_from_files(tmp_path):
    db = main_runs_by_hand(tmp_path, {"99": 1.0, "100": 1.01, "101": 1.02})
    for extra in ((), ("--baseline-jsonl", "main.jsonl")):
        report, err = compared_json(tmp_path, db, "99", *extra)
        (point,) = [p for p in report["points"] if p["metric"] == "output_tput_per_gpu"]
        assert (point["baseline"]["n"], point["verdict"]) == (0, "new"), (extra, point)
        assert err.strip().splitlines() == [AFTER], (extra, err)  # files: "no baseline results ...; check --baseline-ref"
        report, err = compared_json(tmp_path, db, "101", *extra)
        (point,) = [p for p in report["points"] if p["metric"] == "output_tput_per_gpu"]
        assert point["baseline"]["n"] == 2 and err == "", (extra, point, err)


def test_a_file_holding_no_later_run_still_says_no_baseline(tmp_path):
    """The line names later runs only where the files hold them: a file of run 99 alone has no baseline of
    run 99's points at all, and says so as before."""
    db = main_runs_by_hand(tmp_path, {"99": 1.0})
    report, err = compared_json(tmp_path, db, "99", "--baseline-jsonl", "main.jsonl")
    assert "no baseline results for run 99's points on refs/heads/main" in err, err
    assert "only after it" not in err


@pytest.fixture
def gh():
    from github_stub import GitHubStub
    from test_compare_artifacts import Actions

    stub = GitHubStub()
    yield Actions(stub)
    stub.close()


def test_the_first_run_of_one_time_says_so_with_baseline_artifacts(gh, tmp_path, monkeypatch, capsys):
    """The same from main's results artifacts (the GitHub stand-in): six main runs whose records carry one
    time, the first compared; the artifacts read hold the later runs, which the line names."""
    import synth
    from github_stub import TOKEN
    from test_compare_artifacts import NAME, OWNER, artifact_zip, created

    from sweepgate import cli
    from sweepgate.results import source, store

    when = "2026-11-20T12:00:00Z"  # every run's records: after GitHub created each run
    everything = [dict(r, started=when, finished=when) for r in synth.history(runs=6, keys=synth.KEYS[:1], concs=(16,))]
    for i in reversed(range(6)):
        recs = [r for r in everything if r["run-id"] == f"main-{i}"]
        gh.add_run({"id": 5000 + i, "created_at": created(i),
                    "artifacts": [{"id": 9000 + i, "name": source.RESULTS_ARTIFACT, "zip": artifact_zip(recs),
                                   "expired": False}]})
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add([r for r in everything if r["run-id"] == "main-0"])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    for name in ("SWEEPGATE_DB", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    capsys.readouterr()
    code = cli.main(["results", "compare", "--db", url, "--run", "main-0", "--json", "--baseline-artifacts",
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert {p["verdict"] for p in json.loads(out)["points"]} == {"new"}
    assert err.strip().splitlines() == [
        "sweepgate results compare: run main-0 is on refs/heads/main itself and is judged against its runs before "
        "it; refs/heads/main measured its points only after it (runs main-1, main-2, main-3, ...; runs of one time "
        "are placed by run id), so every point that measured something is new; compare the later run (--run "
        "main-5), or ingest each run with its .job.json, whose times place it"], err


def test_a_pr_s_runs_of_one_time_are_listed_by_run_id_as_numbers(tmp_path):
    """`--run 42` (a PR's number for its run's id) names the PR's newest runs, oldest first. Runs of one time
    were ordered by run id as text ("10" before "5"), so of six runs the newest, 10, was the one left out as
    "older"; they are ordered as compare places them (``record.run_order``)."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    (tmp_path / "row.json").write_text(json.dumps(ROW), encoding="utf-8")
    (tmp_path / "o.json").write_text(json.dumps(vllm_output(4)), encoding="utf-8")
    for run in ("5", "6", "7", "8", "9", "10"):
        proc = sweepgate_at(tmp_path, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", run,
                            "--ref", "refs/pull/42/merge", "o.json")
        assert proc.returncode == 0, proc.stderr
    proc = sweepgate_at(tmp_path, "results", "show", "--db", db, "--run", "42")
    assert proc.returncode == 1
    assert "(runs stored for PR 42: 6, 7, 8, 9, 10 and 1 older)" in proc.stderr, proc.stderr  # was 5, 6, 7, 8, 9
