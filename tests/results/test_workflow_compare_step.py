"""run-sweep.yml's compare step and the comment job's last step, run in bash as the runner would,
on a real store: a regression (compare's exit 3) does not fail the collect job, so the PR comment
still goes up; it becomes the step's `failing` output, and the comment job fails the run after
posting only when the repository variable SWEEPGATE_FAIL_ON_REGRESSION is "true"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import ROOT
from sweepgate.workflow.kv import parse_kv
from test_compare_evals import PR_REF, gsm8k, ingest_job

RUN_SWEEP = ROOT / ".github" / "workflows" / "run-sweep.yml"
JOBS = yaml.safe_load(RUN_SWEEP.read_text(encoding="utf-8"))["jobs"]


def step(job: str, name: str) -> dict:
    (found,) = [s for s in JOBS[job]["steps"] if s.get("name", "").startswith(name)]
    return found


def run_step(found: dict, tmp_path: Path, **env) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "github-output"
    out.write_text("")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_"))}
    base["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{base['PATH']}"
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", found["run"]], cwd=tmp_path, capture_output=True,
                          text=True, env={**base, "GITHUB_OUTPUT": str(out), **env})
    return proc, parse_kv(out.read_text())


@pytest.mark.parametrize("pr_delta, failing", [(-0.05, True), (0.0, False)])
def test_a_regression_is_the_compare_steps_output_not_its_failure(tmp_path, capsys, pr_delta, failing):
    db = f"sqlite:///{tmp_path / 'sweepgate-results' / 'results.db'}"
    (tmp_path / "sweepgate-results").mkdir()
    ingest_job(tmp_path, db, capsys, "1001", gsm8k())
    ingest_job(tmp_path, db, capsys, "2002", gsm8k(pr_delta), ref=PR_REF, day=2)
    proc, outputs = run_step(step("collect", "Compare with main"), tmp_path, GITHUB_RUN_ID="2002", PR_NUMBER="7",
                             SWEEPGATE_DB=db)
    assert proc.returncode == 0, proc.stderr
    assert outputs.get("failing") == ("true" if failing else None), outputs
    assert (tmp_path / "sweepgate-results" / "comment.md").read_text().startswith("<!--")
    assert JOBS["collect"]["outputs"]["failing"] == "${{ steps.compare.outputs.failing }}"


def test_a_compare_that_cannot_run_still_fails_the_step(tmp_path):
    proc, outputs = run_step(step("collect", "Compare with main"), tmp_path, GITHUB_RUN_ID="2002", PR_NUMBER="7",
                             SWEEPGATE_DB=f"sqlite:///{tmp_path / 'results.db'}")
    assert proc.returncode == 1 and "failing" not in outputs, (proc.stdout, proc.stderr)


@pytest.mark.parametrize("setting, rc", [("true", 1), ("", 0), ("false", 0)])
def test_the_comment_job_fails_the_run_after_posting_only_when_the_repository_asks(tmp_path, setting, rc):
    last = JOBS["comment"]["steps"][-1]
    assert last["if"] == "needs.collect.outputs.failing == 'true'"
    assert last["env"]["FAIL_ON_REGRESSION"] == "${{ vars.SWEEPGATE_FAIL_ON_REGRESSION }}"
    assert JOBS["comment"]["steps"][-2]["name"] == "Create or update the PR's results comment"
    proc, _ = run_step(last, tmp_path, FAIL_ON_REGRESSION=setting)
    assert proc.returncode == rc
    assert ("::error::" if rc else "::warning::") in proc.stdout


def test_the_comment_names_the_artifact_and_folder_the_workflow_uploads_the_charts_in(tmp_path):
    """Review: the comment said the charts were in "the results artifact" of the run, which has many
    (bmk_*, server_logs_*, the matrix, sweepgate-results). The compare step as the runner runs it, with
    a regression to chart: the comment names the artifact the collect job uploads and the folder in it
    that holds the charts, links the run's page, and never names the runner's --plots path."""
    import re

    import synth
    from sweepgate.results import record as R
    from sweepgate.results import store

    db = f"sqlite:///{tmp_path / 'sweepgate-results' / 'results.db'}"
    (tmp_path / "sweepgate-results").mkdir()
    with store.open_store(db) as st:
        st.add(synth.history(keys=synth.KEYS[:1]) + synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}},
                                                                  keys=synth.KEYS[:1], run="2002"))
    proc, _ = run_step(step("collect", "Compare with main"), tmp_path, GITHUB_RUN_ID="2002", PR_NUMBER="7",
                       SWEEPGATE_DB=db, GITHUB_ACTIONS="true", GITHUB_SERVER_URL="https://github.com",
                       GITHUB_REPOSITORY="o/r")
    assert proc.returncode == 0, proc.stderr
    (upload,) = [s for s in JOBS["collect"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    name, root = upload["with"]["name"], tmp_path / upload["with"]["path"]
    (line,) = [x for x in (root / "comment.md").read_text().splitlines() if " (output throughput per GPU" in x]
    where = re.search(r"is in the `([^`]+)/` folder of the `([^`]+)` artifact of \[run 2002\]\(([^)]+)\)", line)
    assert where and where[2] == name and where[3] == "https://github.com/o/r/actions/runs/2002#artifacts", line
    assert sorted(p.suffix for p in (root / where[1]).iterdir()) == [".png", ".svg"]
    assert "sweepgate-results/charts" not in line  # the runner's --plots path means nothing to a reader
