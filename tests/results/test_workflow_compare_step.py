"""run-sweep.yml's compare step and the comment job's last step, run in bash as the runner would,
on a real store: a regression (compare's exit 3) does not fail the collect job, so the PR comment
still goes up; it becomes the step's `failing` output, and the comment job fails the run after
posting only when the repository variable SWEEPGATE_FAIL_ON_REGRESSION is "true"."""

from __future__ import annotations

import hashlib
import os
import re
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


# --- the collect job's steps in order, as the runner takes them (s41r) -------------------------

_CONTEXT = re.compile(r"\b(needs|steps)\.([\w-]+)\.(result|outputs\.\w+)")


def hash_files(workdir: Path | None):
    """GitHub's hashFiles(): '' when no file under the workspace matches any pattern, else a hash of those files."""
    def hashed(*patterns: str) -> str:
        found = sorted({p for pattern in patterns for p in (workdir or Path(".")).glob(pattern) if p.is_file()})
        return hashlib.sha256(b"".join(p.read_bytes() for p in found)).hexdigest() if found else ""
    return hashed


def condition(expr, ctx: dict, failed: bool = False, workdir: Path | None = None) -> bool:
    """A step's or job's `if:` as GitHub evaluates the forms run-sweep.yml uses: `needs.*` and `steps.*`
    looked up in ``ctx`` ('' when not there), success()/failure()/always()/cancelled() (no run is
    cancelled here; ``failed``: a step before failed), hashFiles() of files under ``workdir``, `!`, `&&`, `||`, `==`, `!=` on strings; one that
    calls none of those four is `success() && (…)`, as GitHub takes it."""
    text = "success()" if expr is None else str(expr).strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    if not re.search(r"\b(success|failure|always|cancelled)\(\)", text):
        text = f"success() && ({text})"
    text = _CONTEXT.sub(lambda m: repr(ctx.get(m[0], "")), text)
    text = re.sub(r"!(?!=)", " not ", text).replace("&&", " and ").replace("||", " or ")
    funcs = {"success": lambda: not failed, "failure": lambda: failed, "always": lambda: True,
             "cancelled": lambda: False, "hashFiles": hash_files(workdir)}
    return bool(eval(text, {"__builtins__": {}}, funcs))  # noqa: S307 - the workflow's own text


def env_of(found: dict, values: dict) -> dict:
    """The step's env with each `${{ … }}` replaced by ``values``' value for it (an unknown one fails)."""
    out = {}
    for name, value in (found.get("env") or {}).items():
        value = str(value)
        for expr in re.findall(r"\$\{\{\s*(.*?)\s*\}\}", value):
            assert expr in values, f"{found.get('name')}: no value for ${{{{ {expr} }}}}"
            value = value.replace(f"${{{{ {expr} }}}}", values[expr])
        out[name] = value
    return out


def run_collect_job(tmp_path: Path, values: dict, ctx: dict) -> tuple[str, dict, list[str]]:
    """The collect job's steps in order: each `if:` evaluated, each `run:` run in bash (but the
    pip install of this very checkout, which the test's interpreter already has), the actions
    (checkout, download-artifact: done by the caller; upload-artifact) noted as run. Returns the
    job's result, its outputs and the steps that ran."""
    job = JOBS["collect"]
    ran, failed, outputs = [], False, {}
    for found in job["steps"]:
        name = found.get("name") or found["uses"].split("@", 1)[0]
        if not condition(found.get("if"), ctx, failed, tmp_path):
            continue
        ran.append(name)
        if "run" not in found or found["run"].strip() == "python -m pip install --quiet -r .github/sweepgate-requirements.txt":
            continue
        proc, outs = run_step(found, tmp_path, **env_of(found, values), GITHUB_RUN_ID="2002", GITHUB_RUN_ATTEMPT="1",
                              GITHUB_STEP_SUMMARY=str(tmp_path / "step-summary.md"))
        if found.get("id"):
            ctx.update({f"steps.{found['id']}.outputs.{k}": v for k, v in outs.items()})
        if proc.returncode != 0:
            failed = True
            ran[-1] += f" (failed: {proc.stderr.strip()})"
    for key, value in job["outputs"].items():
        m = re.fullmatch(r"\$\{\{\s*(steps\.[\w-]+\.outputs\.\w+)\s*\}\}", value)
        outputs[key] = ctx.get(m[1], "") if m else value
    return ("failure" if failed else "success"), outputs, ran


@pytest.mark.parametrize("results, good", [('["success","success","failure","skipped"]', True),
                                           ("not json", False)])
def test_one_failed_job_still_ingests_compares_uploads_and_comments(tmp_path, capsys, results, good):
    """s41r: `ci collect` (the Summarize step) exited 1 when a benchmark job had failed, so the steps after
    it (ingest, compare) were skipped and the comment job, which needs the collect job's success, never
    ran: one failed job lost every other job's results and the PR comment. The collect job's steps as
    the runner takes them, with two jobs that succeeded and one that failed (its sidecar uploaded, its
    output not): the summary says the failure; ingest, compare (exit 3: failing=true), the upload run,
    and the comment job runs, then fails the run or warns. A Summarize that cannot read RESULTS still
    fails the job."""
    from helpers import job, run_cli, vllm_output, write_job

    db = f"sqlite:///{tmp_path / 'team.db'}"
    for n in range(5):  # main's last 5 runs of conc 4 and 8
        for conc in (4, 8):
            side = job(run_id=str(100 + n), row={**job()["row"], "conc": conc},
                       finished=f"2026-01-0{n + 1}T12:00:00+00:00")
            write_job(tmp_path / "main" / str(n), f"res_c{conc}", vllm_output(conc, output_throughput=409.6 + n,
                      date=f"2026010{n + 1}-12000{conc}"), side)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "main"))
    assert rc == 0, err
    downloaded = tmp_path / "results"  # the bmk_* artifacts, merged as download-artifact does
    for conc, status in ((4, "success"), (8, "failure")):
        side = job(run_id="2002", row={**job()["row"], "conc": conc}, status=status, ref="refs/pull/7/merge",
                   finished="2026-02-01T12:00:00+00:00")
        write_job(downloaded, f"res_c{conc}", vllm_output(conc) if status == "success" else None, side)
    values = {"toJSON(needs.*.result)": results, "secrets.SWEEPGATE_DB": db, "github.token": "",
              "needs.decide.outputs.pr_number": "7", "needs.run-cancelled.outputs.attempt": ""}
    ctx = {"needs.decide.outputs.pr_number": "7", "needs.run-cancelled.result": "skipped"}  # not cancelled
    result, outputs, ran = run_collect_job(tmp_path, values, ctx)
    upload = "actions/upload-artifact"
    comment = JOBS["comment"]
    needs = {"needs.decide.outputs.pr_number": "7", "needs.collect.result": result,
             **{f"needs.collect.outputs.{k}": v for k, v in outputs.items()}}
    if not good:  # bad RESULTS is an error of the workflow: seen, nothing after it runs but the upload
        assert result == "failure" and ran[4].startswith("Summarize (failed: RESULTS:1: not valid JSON"), ran
        assert ran[5:] == [upload], ran
        assert not condition(comment["if"], needs)
        return
    assert result == "success", ran
    assert [r.split(" (failed: ")[0] for r in ran] == [JOBS["collect"]["steps"][0]["name"], "actions/download-artifact",
                                              "actions/setup-python", "Install sweepgate", "Summarize", "Ingest results",
                                              "Compare with main", upload], ran
    summary = (tmp_path / "step-summary.md").read_text()
    assert "| failure | 1 |" in summary and "1 job failed" in summary, summary
    assert (tmp_path / "sweepgate-results" / "results.jsonl").read_text().count('"2002"') >= 1
    assert (tmp_path / "sweepgate-results" / "comment.md").read_text().startswith("<!--")
    assert outputs == {"failing": "true"}
    assert condition(comment["if"], needs)  # the comment job runs: it posts, then fails the run or warns
    assert condition(comment["steps"][-1]["if"], needs)
