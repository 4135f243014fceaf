"""s46a: a cancelled sweep's finished jobs are collected, stored and said, not thrown away.

run-sweep.yml's collect job ran only when the run was not cancelled (`!cancelled()`), so a PR's sweep the
poll cancelled (a new push, a label removed), the fail-fast watchdog cancelled, or a maintainer cancelled
left the results of every job that had already finished unstored: `ci reuse --pr-number` could not take
them, and the next sweep spent their GPU-hours again. Now collect runs in a PR's cancelled sweep (s47c: and in a
cancelled push to main, its records marked as of a cancelled run, which no baseline reads:
tests/results/test_cancelled_run_marker_s47c.py); its summary and the PR comment say the sweep was
cancelled and which jobs' results were kept; reuse still takes only jobs wholly successful.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "results"))


def collect(tmp_path: Path, results: list[str], jobs: dict[str, str], *flags: str) -> subprocess.CompletedProcess:
    """`ci collect` over a downloaded folder holding, for each job name, its sidecar with that status (and an
    output for a job that succeeded), with RESULTS the needed jobs' results."""
    folder = tmp_path / "results"
    folder.mkdir()
    for name, status in jobs.items():  # as `results sidecar` writes one: the status under "job"
        side = {"row": {"exp-name": name}, "job": {"status": status, "run-id": "9", "attempt": 1}}
        (folder / f"{name}.job.json").write_text(json.dumps(side))
        if status == "success":
            (folder / f"{name}.json").write_text("{}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(PYTHONPATH=str(ROOT / "utils"), RESULTS=json.dumps(results))
    return subprocess.run([sys.executable, "-m", "sweepgate", "ci", "collect", "--results", str(folder), *flags],
                          capture_output=True, text=True, env=env, cwd=tmp_path)


def test_a_cancelled_sweep_s_summary_says_so_and_names_the_jobs_kept(tmp_path):
    note = tmp_path / "out" / "cancelled.md"
    note.parent.mkdir()
    r = collect(tmp_path, ["success", "success", "cancelled", "skipped"],
                {"kimi_conc4": "success", "kimi_conc8": "success", "kimi_conc16": "cancelled"}, "--note", str(note))
    assert r.returncode == 0, r.stderr
    said = note.read_text()
    assert said in r.stdout  # the step summary says what the comment will
    assert "cancelled before it finished" in said
    kept, cut = said.split("Not kept", 1)
    assert "`kimi_conc4`" in kept and "`kimi_conc8`" in kept and "kimi_conc16" not in kept
    assert "`kimi_conc16` (cancelled)" in cut
    assert "2 jobs" in kept and "stored" in kept and "reuses them" in said


def test_a_whole_sweep_writes_no_note(tmp_path):
    note = tmp_path / "cancelled.md"
    r = collect(tmp_path, ["success", "success"], {"a": "success", "b": "success"}, "--note", str(note))
    assert r.returncode == 0, r.stderr
    assert not note.exists() and "cancelled before it finished" not in r.stdout


def test_a_cancelled_sweep_without_a_finished_job_says_none_was_kept(tmp_path):
    note = tmp_path / "cancelled.md"
    r = collect(tmp_path, ["success", "cancelled"], {"a": "cancelled"}, "--note", str(note))
    assert r.returncode == 0, r.stderr
    assert "Kept: nothing; no job had finished." in note.read_text()


# --- the PR comment carries the note ----------------------------------------------------------

def test_the_pr_comment_says_the_sweep_was_cancelled(tmp_path, monkeypatch):
    from test_github_comment import NAME, NUMBER, OWNER, FakeGitHub
    from test_results_comment_pr import report_of

    from sweepgate import cli
    from sweepgate.results import render

    body = report_of(tmp_path, monkeypatch, f"refs/pull/{NUMBER}/head")
    note = tmp_path / "cancelled.md"
    note.write_text("**This sweep was cancelled before it finished.** kept: `a`\n")
    gh = FakeGitHub()
    try:
        assert cli.main(["results", "comment", "--body", str(body), "--note", str(note), "--pr-number", str(NUMBER),
                         "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url]) == 0
        (comment,) = gh.comments.values()
    finally:
        gh.close()
    report = body.read_text().splitlines(keepends=True)
    posted = comment["body"]
    assert posted.startswith(render.MARKER) and render.about_of(posted) == render.about_of(body.read_text())
    assert "".join(report[2:]) in posted and note.read_text() in posted
    assert posted.index(note.read_text()) < posted.index("".join(report[2:]))


# --- the workflow -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sweep():
    return yaml.safe_load((ROOT / ".github" / "workflows" / "run-sweep.yml").read_text())


def test_collect_and_comment_run_in_a_cancelled_sweep_a_pr_s_or_a_push_s(sweep):
    """The collect job's condition: always(), for a PR's run and a push to main's (s47c: a cancelled push was not
    collected, so its finished jobs' GPU-hours were spent again by main's next sweep), whether or not it was
    cancelled; the ingest step stores a cancelled run's records marked (--run-cancelled, when ci collect wrote its
    note), so no baseline reads them."""
    jobs = sweep["jobs"]
    cond = " ".join(jobs["collect"]["if"].split())
    assert cond == ("${{ always() && needs.setup.result == 'success' && needs.setup.outputs.matrix == 'true' }}"), cond
    comment = " ".join(jobs["comment"]["if"].split())
    assert "!cancelled()" not in comment and "needs.collect.result == 'success'" in comment, comment
    summarize = next(s for s in jobs["collect"]["steps"] if "ci collect" in s.get("run", ""))
    assert "--note sweepgate-results/cancelled.md" in summarize["run"] and '--pr-number "${PR_NUMBER}"' in \
        summarize["run"] and summarize["env"]["PR_NUMBER"] == "${{ needs.decide.outputs.pr_number }}"
    ingest = next(s for s in jobs["collect"]["steps"] if "results ingest" in s.get("run", ""))
    assert "if [[ -e sweepgate-results/run-cancelled ]]; then" in ingest["run"]
    assert ('run=(--run-cancelled --run-id "${GITHUB_RUN_ID}" --attempt "${CANCELLED_ATTEMPT:-${GITHUB_RUN_ATTEMPT}}")'
            in ingest["run"])  # s48f: the run named, so ci reuse's copies of its setup are marked too; s49b: the
    # attempt the run-cancelled job saw cancelled, which a collect job re-run alone later is not
    assert ingest["env"]["CANCELLED_ATTEMPT"] == "${{ needs.run-cancelled.outputs.attempt }}"
    # s49g: else the attempt finished, and un-marks what it carries of earlier, cancelled attempts
    assert 'run=(--run-finished --run-id "${GITHUB_RUN_ID}" --attempt "${GITHUB_RUN_ATTEMPT}")' in ingest["run"]
    assert '"${run[@]}"' in ingest["run"]
    post = next(s for s in jobs["comment"]["steps"] if "results comment" in s.get("run", ""))
    assert "sweepgate-results/cancelled.md" in post["run"] and '"${note[@]}"' in post["run"]


def test_reuse_takes_a_cancelled_sweep_s_finished_jobs_only(tmp_path):
    """What collect stores of a cancelled sweep: its finished jobs' successes and its cut-short jobs' cancelled
    sidecars; `ci reuse --pr-number` (store.reusable) takes the first, never the second."""
    import synth

    from sweepgate.results import store

    finished, cut = [dict(r) for r in synth.pr_run()[:2]]
    for rec, status, ident in ((finished, "success", "id-finished"), (cut, "cancelled", "id-cut")):
        rec.update({"ref": "refs/pull/7/head", "run-id": "9", "status": status, "run-identity": ident})
    with store.open_store(f"sqlite:///{tmp_path / 'r.db'}") as st:
        st.add([finished, cut])
        found = st.reusable(["id-finished", "id-cut"], pr=7)
    assert set(found) == {"id-finished"}


def test_a_cancelled_sweep_that_kept_nothing_is_not_compared(sweep):
    """A sweep cancelled while its jobs waited for runners uploaded nothing: compare would find no result of the
    run (exit 1) and turn the collect job red after the summary said nothing was kept. It is skipped then
    (``ci collect --note`` wrote the note, and no result file came): the PR's earlier comment stays."""
    jobs = sweep["jobs"]
    compare = next(s for s in jobs["collect"]["steps"] if s.get("id") == "compare")
    cond = " ".join(compare["if"].split())
    assert cond == ("!failure() && needs.decide.outputs.pr_number != '' && (hashFiles('sweepgate-results/cancelled.md') == '' "
                    "|| hashFiles('results/**') != '')"), cond
    download = next(s for s in jobs["collect"]["steps"] if "download-artifact@" in s.get("uses", ""))
    assert download["with"]["path"] == "results"


def test_a_job_name_cannot_break_out_of_its_code_span():
    """A result name comes from the PR's configs (its exp-name): a backtick in it would end the code span and
    post the rest (a mention, a link) as the comment's own markdown."""
    from sweepgate.workflow.fanout import cancelled_note

    note = cancelled_note(["cancelled"], {"x` @someone [y](http://e.example) `": "success", "c\x1b[31m`": "cancelled"})
    assert "- `x' @someone [y](http://e.example) '`" in note
    assert "\x1b" not in note and "`c\\x1b[31m'` (cancelled)" in note
