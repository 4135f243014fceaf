"""A PR's own pushes (s45h, CONTRACTS section 9): a PR sweep reuses the PR's own earlier results.

A PR swept at one commit, then pushed again (a typo fix, one script changed): the new commit's sweep runs only the
rows whose run identity changed, taking the others from the PR's earlier run, never another PR's, never main's,
never a job that failed in part, and records what it took under the PR's ref and the swept commit (a PR's sweep is
a dispatch on main, whose GITHUB_REF and GITHUB_SHA are main's: recorded under them, the copies would have joined
main's baseline). Real git, real SQLite."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CHANGELOG
from test_matrix import entry
from test_reuse import SCRIPTS, matrix, repo, rows, script, sg  # noqa: F401 (repo: the fixture)
from helpers import vllm_output

from sweepgate.core import fields as F
from sweepgate.results import record as R
from sweepgate.results.store import open_store


def sweep(repo, m: dict, tmp_path: Path, db: str, run: str, ref: str, commit: str,
          failed: tuple[int, ...] = ()) -> None:
    """What the run's benchmark jobs leave, as run-sweep.yml's jobs do (the job context's ref and commit in
    each sidecar), then ingested; the vllm rows at the concs in ``failed`` fail in part (their eval cut short)."""
    results = tmp_path / f"results-{run}"
    results.mkdir()
    for row in rows(m):
        name = F.result_filename(row, "b300-nv_00")
        (results / f"{name}.json").write_text(json.dumps(vllm_output(row["conc"])))
        if row["framework"] == "vllm" and row["conc"] in failed:
            (results / f"{name}-eval.json").write_text('{"results": {"gsm8k": {"exact_match')
        proc = sg(repo.path, "results", "sidecar", "--tools", ".", env={
            "ROW": json.dumps(row), "RESULT_DIR": str(results), "RESULT_FILENAME": name,
            "GITHUB_RUN_ID": run, "GITHUB_RUN_ATTEMPT": "1", "GITHUB_REF": ref,
            "GITHUB_SHA": commit, "RUNNER_NAME": "b300-nv_00", "JOB_STATUS": "success"})
        assert proc.returncode == 0, proc.stderr
    proc = sg(repo.path, "results", "ingest", "--db", db, str(results))
    assert proc.returncode == 0, proc.stderr


def pr_reuse(repo, tmp_path: Path, db: str, head: str, number: int, run: str, main_sha: str, *extra: str):
    """`ci reuse` as run-sweep.yml's setup job runs it for a PR's sweep: a dispatch on main."""
    return sg(repo.path, "ci", "reuse", "--db", db, "--matrix", str(tmp_path / "matrix.json"),
              "--out", str(tmp_path / "remaining.json"), "--head-ref", head, "--pr-number", str(number), *extra,
              env={"GITHUB_RUN_ID": run, "GITHUB_REF": "refs/heads/main", "GITHUB_SHA": main_sha})


def test_a_pr_s_push_reuses_its_own_earlier_results_for_the_rows_it_did_not_change(repo, tmp_path):
    db = f"sqlite:///{tmp_path / 'results.db'}"
    main = repo.head()
    repo.git("checkout", "-q", "-b", "pr")
    first = repo.commit_changelog(CHANGELOG + "\n" + entry(*SCRIPTS), "tune both dsr1 keys")
    # the PR's sweep at its first commit: the vllm conc 16 job failed in part (its eval cut short)
    sweep(repo, matrix(repo, main, first), tmp_path, db, "100", "refs/pull/7/head", first, failed=(16,))
    # then a typo fixed in a file no job runs, and the sglang script changed
    sglang = SCRIPTS["dsr1-fp4-b300-sglang"]
    second = repo.commit({"NOTES.md": "a typo fixed\n", sglang: script("dsr1-fp4-b300-sglang", 2)}, "typo; sglang")
    (tmp_path / "matrix.json").write_text(json.dumps(matrix(repo, main, second)))

    proc = pr_reuse(repo, tmp_path, db, second, 7, "101", main)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("reused 2 of 5 jobs"), proc.stdout
    remaining = rows(json.loads((tmp_path / "remaining.json").read_text()))
    assert sorted((r["framework"], r["conc"]) for r in remaining) == [("sglang", 4), ("sglang", 8), ("vllm", 16)]
    # which rows came from which earlier run, for the step summary
    said = [line for line in proc.stdout.splitlines() if line.startswith("- ")]
    assert said == [f"- single_node/1k1k dsr1_1k1k conc {c} (b300): reused from run 100 (attempt 1) at "
                    f"{first[:12]}" for c in (4, 8)], proc.stdout
    with open_store(db) as store:
        copies = store.run_results("101")
    assert sorted(r[R.CONC] for r in copies) == [4, 8]
    assert all(r[R.REF] == "refs/pull/7/head" and r[R.COMMIT] == second and r[R.REUSED_FROM][R.RUN_ID] == "100"
               for r in copies), copies

    # the PR's results comment says which figures are the earlier run's
    proc = sg(repo.path, "results", "compare", "--db", db, "--run", "101", "--pr-number", "7",
              "--comment-file", str(tmp_path / "comment.md"))
    assert proc.returncode == 0, proc.stderr
    comment = (tmp_path / "comment.md").read_text()
    assert ("Not measured again (`ci reuse`: the same files, image and runner pool as an earlier run's job that "
            "succeeded), the figures taken from run 100: deepseek-ai/DeepSeek-R1-0528 conc 4, 8") in comment.replace("\\", ""), comment


def test_a_pr_sweep_never_reuses_another_pr_s_or_main_s_results(repo, tmp_path):
    db = f"sqlite:///{tmp_path / 'results.db'}"
    main = repo.head()
    repo.git("checkout", "-q", "-b", "pr")
    head = repo.commit_changelog(CHANGELOG + "\n" + entry(*SCRIPTS), "tune both dsr1 keys")
    m = matrix(repo, main, head)
    (tmp_path / "matrix.json").write_text(json.dumps(m))
    # the same files, measured by PR 8's sweep and by PR 70's (refs/pull/70 begins as PR 7's does)
    sweep(repo, m, tmp_path, db, "90", "refs/pull/8/head", head)
    sweep(repo, m, tmp_path, db, "91", "refs/pull/70/head", head)
    proc = pr_reuse(repo, tmp_path, db, head, 7, "101", main)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("reused 0 of 5 jobs"), proc.stdout
    with open_store(db) as store:
        assert store.run_results("101") == []


def test_a_pr_sweep_records_nothing_under_another_ref(repo, tmp_path):
    db = f"sqlite:///{tmp_path / 'results.db'}"
    main = repo.head()
    repo.git("checkout", "-q", "-b", "pr")
    head = repo.commit_changelog(CHANGELOG + "\n" + entry(*SCRIPTS), "tune both dsr1 keys")
    (tmp_path / "matrix.json").write_text(json.dumps(matrix(repo, main, head)))
    proc = pr_reuse(repo, tmp_path, db, head, 7, "101", main, "--ref", "refs/heads/main")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines()[-1].endswith(
        "argument --ref: refs/heads/main is not a ref of PR 7; leave it out: with --pr-number 7 reused results "
        "are recorded under refs/pull/7/head"), proc.stderr
    assert not (tmp_path / "remaining.json").exists()
