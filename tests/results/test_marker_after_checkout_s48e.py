"""s48e: the collect job's run-cancelled marker must be written after the job checks out main, not before.

s47l made the marker a file, sweepgate-results/run-cancelled, written by the collect job's first step (when the
run-cancelled job ran) and read by the Ingest step (`results ingest --run-cancelled`). The step after it is
actions/checkout into the workspace. On a fresh runner the workspace holds no `.git`, and actions/checkout then
deletes everything in it before it clones (src/git-directory-helper.ts, prepareExistingDirectory: "Delete the contents
of the directory"), the marker with it: on GitHub a cancelled run's records were never marked, and a cancelled push to
main joined main's baseline. The workflow tests ran the named `run:` steps alone and never the checkout.

Here the collect job's steps run in their order, each `if:` evaluated, the checkout doing what it does on a fresh
runner (the workspace emptied, then main's tree: its utils/), the download putting the jobs' outputs in results/.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import ROOT, job, show_json, vllm_output, write_job
from test_workflow_compare_step import JOBS, condition, env_of, run_step

from sweepgate.results import record as R

MAIN = "refs/heads/main"


def _checkout(workspace: Path) -> None:
    """actions/checkout of main into a workspace with no `.git` (a fresh runner's): its contents go, then the clone."""
    for entry in workspace.iterdir():
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    (workspace / ".git").mkdir()
    (workspace / "utils").symlink_to(ROOT / "utils")


def _collect_until_ingest(workspace: Path, run_cancelled: str) -> list[str]:
    """The collect job's steps up to and with Ingest results, on a push to main whose second job was cancelled."""
    values = {"toJSON(needs.*.result)": json.dumps(["success", "success", "cancelled"]), "secrets.SWEEPGATE_DB": "",
              "github.token": "", "needs.decide.outputs.pr_number": "",
              "needs.run-cancelled.outputs.attempt": "1" if run_cancelled == "success" else ""}
    ctx = {"needs.decide.outputs.pr_number": "", "needs.run-cancelled.result": run_cancelled}
    ran = []
    for found in JOBS["collect"]["steps"]:
        name = found.get("name") or found["uses"].split("@", 1)[0]
        if not condition(found.get("if"), ctx, False, workspace):
            continue
        ran.append(name)
        uses = found.get("uses", "")
        if uses.startswith("actions/checkout@"):
            assert not (found.get("with") or {}).get("path"), found  # the workspace itself
            _checkout(workspace)
        elif uses.startswith("actions/download-artifact@"):
            write_job(workspace / "results", "kimi_conc4", vllm_output(4, output_throughput=600.0),
                      job(run_id="104", ref=MAIN, finished="2026-01-04T12:00:00+00:00"))
        elif "run" in found and found["run"].strip() != "python -m pip install --quiet -r .github/sweepgate-requirements.txt":
            proc, _ = run_step(found, workspace, **env_of(found, values),
                               GITHUB_STEP_SUMMARY=str(workspace.parent / "summary.md"), GITHUB_RUN_ID="104",
                               GITHUB_RUN_ATTEMPT="1")
            assert proc.returncode == 0, (name, proc.stderr)
        if name == "Ingest results":
            return ran
    raise AssertionError(f"no Ingest results step ran: {ran}")


def test_a_cancelled_run_s_records_are_marked_after_the_checkout_of_main(tmp_path, capsys):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    ran = _collect_until_ingest(workspace, "success")  # the run-cancelled job ran: the run was cancelled
    db = f"sqlite:///{workspace / 'sweepgate-results' / 'results.db'}"
    marks = [r.get(R.RUN_CANCELLED) for r in show_json(capsys, db, "--run", "104")]
    assert marks == [True], (marks, ran)  # was [None]: the checkout had removed the marker its first step wrote


def test_a_run_not_cancelled_stays_unmarked(tmp_path, capsys):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    _collect_until_ingest(workspace, "skipped")
    db = f"sqlite:///{workspace / 'sweepgate-results' / 'results.db'}"
    assert [r.get(R.RUN_CANCELLED) for r in show_json(capsys, db, "--run", "104")] == [None]
