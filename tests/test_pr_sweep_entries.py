"""pr-sweep.yml runs the matrix only when the gate says the changelog gained entries.

`process_changelog.py` refuses a change that appends nothing (CONTRACTS section 1), while a
PR without an entry (code, docs, configs) is legitimate: the gate (`validate --github-output`)
decides, and the setup job's matrix, plan, preflight and fan-out steps run only on its
`matrix=true`. The workflow's own step scripts run here in bash, on real git repositories.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import CHANGELOG, FLEET_NVIDIA, appended_entry

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.workflow.kv import parse_kv  # noqa: E402

WORKFLOW = ROOT / ".github" / "workflows" / "pr-sweep.yml"
ON = "needs.gate.outputs.matrix == 'true'"
OFF = "needs.gate.outputs.matrix != 'true'"
ENTRY = appended_entry("XXX")


@pytest.fixture(scope="module")
def jobs():
    return yaml.safe_load(WORKFLOW.read_text())["jobs"]


def _validate_step(jobs) -> dict:
    return next(s for s in jobs["gate"]["steps"] if s.get("name") == "Validate")


def test_the_gate_decides_and_the_setup_job_obeys(jobs):
    step = _validate_step(jobs)
    assert "--github-output" in step["run"]
    assert jobs["gate"]["outputs"]["matrix"] == f"${{{{ steps.{step['id']}.outputs.matrix }}}}"
    setup = jobs["setup"]["steps"]
    heavy = [s for s in setup if re.search(r"process_changelog|sweepgate (preflight|ci split|matrix)",
                                            s.get("run", ""))]
    assert len(heavy) == 3 and all(s.get("if") == ON for s in heavy), heavy
    assert [s.get("if") for s in setup if s.get("if") not in (None, ON)] == [OFF]
    # the plan runs either way: without an entry it still warns about configs no entry selects
    assert {s.get("if") for s in setup if "sweepgate plan" in s.get("run", "")} == {ON, OFF}


def _bash(run: str, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", run], cwd=cwd, env=env,
                          capture_output=True, text=True)


def _env(step: dict, context: dict, tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    for name, value in (step.get("env") or {}).items():
        env[name] = re.sub(r"\$\{\{\s*(.*?)\s*\}\}", lambda m: context[m.group(1)], str(value))
    bindir = tmp / "bin"
    bindir.mkdir(exist_ok=True)
    for name, target in (("python", sys.executable), ("sweepgate", str(Path(sys.executable).parent / "sweepgate"))):
        if not (bindir / name).exists():
            (bindir / name).symlink_to(target)
    env.update(PATH=f"{bindir}:{env['PATH']}", GITHUB_OUTPUT=str(tmp / "output"),
               GITHUB_STEP_SUMMARY=str(tmp / "summary"))
    return env


def _pull_request(repo, tmp: Path, jobs) -> tuple[dict, dict]:
    """Run the gate's Validate step, then the setup steps its output selects: (outputs, {step: rc})."""
    (repo.path / "utils").symlink_to(ROOT / "utils")  # the checked-out head's entry points
    context = {"needs.decide.outputs.base_ref": repo.base, "needs.decide.outputs.head_ref": repo.head(),
               "needs.decide.outputs.pr_number": "5", "needs.decide.outputs.eval_flags": "",
               "needs.decide.outputs.trim_conc": "true"}
    step = _validate_step(jobs)
    proc = _bash(step["run"], _env(step, context, tmp), repo.path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    outputs = parse_kv((tmp / "output").read_text())
    ran = {}
    for step in jobs["setup"]["steps"]:
        if "run" not in step or "pip install" in step["run"] or "sweepgate preflight" in step["run"]:
            continue  # sweepgate is installed already; preflight needs benchmark scripts
        wanted = {None: True, ON: outputs["matrix"] == "true", OFF: outputs["matrix"] != "true"}[step.get("if")]
        if wanted:
            proc = _bash(step["run"], _env(step, context, tmp), repo.path)
            ran[step["name"]] = proc
            assert proc.returncode == 0, (step["name"], proc.stdout + proc.stderr)
    return outputs, ran


@pytest.fixture
def repo(repo_outside_actions):
    return repo_outside_actions


def test_a_pr_without_an_entry_is_green_and_runs_no_matrix(repo, tmp_path, jobs):
    repo.commit({"NOTES.md": "notes\n"})
    # what the unconditional matrix step used to run, and why it turned the check red
    proc = subprocess.run([sys.executable, str(ROOT / "utils" / "process_changelog.py"), "--base-ref", repo.base,
                           "--head-ref", "HEAD"], cwd=repo.path, capture_output=True, text=True)
    assert proc.returncode == 1 and "appends no entry" in proc.stderr
    # at `path:line` as every refusal (CONTRACTS §1): the changelog's last line, where an entry would go
    last = len((repo.path / "perf-changelog.yaml").read_bytes().splitlines())
    assert proc.stderr.startswith(f"perf-changelog.yaml:{last}: "), proc.stderr
    outputs, ran = _pull_request(repo, tmp_path, jobs)
    assert outputs == {"entries": "0", "matrix": "false"}
    assert list(ran) == ["No changelog entry appended, so nothing to sweep"]
    assert "No perf-changelog.yaml entry appended" in (tmp_path / "summary").read_text()
    assert not (repo.path / "matrix.json").exists()


def test_a_config_edit_without_an_entry_is_warned_about_on_the_pr(repo, tmp_path, jobs):
    """Review: an image bump with no entry went green in silence; only plan names it, and plan ran
    only when there were entries. The gate passes it (nothing to sweep); the plan warns."""
    repo.commit({"configs/nvidia-master.yaml": FLEET_NVIDIA.replace("vllm-openai:v0.11.0", "vllm-openai:v0.12.0")})
    outputs, ran = _pull_request(repo, tmp_path, jobs)
    assert outputs["matrix"] == "false"
    (step,) = ran.values()
    assert "changed (image) but no appended perf-changelog.yaml entry selects it" in step.stderr, step.stderr


def test_a_pr_with_an_entry_runs_the_matrix(repo, tmp_path, jobs):
    repo.commit_changelog(CHANGELOG + ENTRY)
    outputs, ran = _pull_request(repo, tmp_path, jobs)
    assert outputs == {"entries": "1", "matrix": "true"}
    assert "Compute the matrix and the plan" in ran and "Check the fan-out fits GitHub's limits" in ran
    assert '"dsr1-fp4-b300-vllm"' in (repo.path / "matrix.json").read_text()


# --- run-sweep.yml: the GPU side's setup job obeys the same gate --------------------------------

RUN_SWEEP = ROOT / ".github" / "workflows" / "run-sweep.yml"
GATE_ON = "steps.gate.outputs.matrix == 'true'"
REUSE_ON = GATE_ON + " && (github.event_name == 'push' || needs.decide.outputs.pr_number != '')"


def _dispatched_sweep(repo, tmp: Path) -> tuple[dict, list[str]]:
    """Run run-sweep.yml's setup steps for a dispatched PR sweep of the repo's head, as the runner
    would (main's checkout in the workspace, the head in pr-data/): (its outputs, the steps run)."""
    jobs = yaml.safe_load(RUN_SWEEP.read_text())["jobs"]
    workspace = tmp / "ws"
    workspace.mkdir()
    shutil.copytree(repo.path / "configs", workspace / "configs")  # main's runners.yaml
    (workspace / "pr-data").symlink_to(repo.path)
    context = {f"needs.decide.outputs.{k}": v for k, v in {
        "base_ref": repo.base, "head_ref": repo.head(), "pr_number": "5", "eval_flags": "",
        "trim_conc": "false", "canary": "true"}.items()}
    context["secrets.SWEEPGATE_DB"] = ""
    ran, gate = [], {}
    for step in jobs["setup"]["steps"]:
        if "run" not in step or "pip install" in step["run"]:
            continue
        conditions = {None: True, GATE_ON: gate.get("matrix") == "true",
                      GATE_ON.replace("==", "!="): gate.get("matrix") != "true",
                      # the reuse step: a push's, or a PR's sweep reusing its own earlier results (s45h)
                      REUSE_ON: gate.get("matrix") == "true" and context["needs.decide.outputs.pr_number"] != ""}
        assert step.get("if") in conditions, step.get("if")
        if not conditions[step.get("if")]:
            continue
        env = _env(step, context, tmp)
        env["GITHUB_WORKSPACE"] = str(workspace)
        if step.get("id") == "gate":
            env["GITHUB_OUTPUT"] = str(tmp / "gate-output")
        proc = _bash(step["run"], env, workspace / step.get("working-directory", "."))
        assert proc.returncode == 0, (step["name"], proc.stdout + proc.stderr)
        ran.append(step["name"])
        if step.get("id") == "gate":
            gate = parse_kv((tmp / "gate-output").read_text())
    outputs = parse_kv((tmp / "output").read_text())
    assert jobs["setup"]["outputs"]["matrix"] == "${{ steps.gate.outputs.matrix }}"
    outputs["matrix"] = gate["matrix"]
    return outputs, ran


def test_a_dispatched_sweep_without_an_entry_is_green_and_runs_no_job(repo, tmp_path):
    repo.commit({"NOTES.md": "notes\n"})
    outputs, ran = _dispatched_sweep(repo, tmp_path)
    assert "No changelog entry appended, so nothing to sweep" in ran
    assert not any("Matrix" in name or name.startswith("Reuse") for name in ran)
    assert outputs["matrix"] == "false" and outputs["jobs"] == "0" and outputs["canary"] == ""
    assert json.loads((tmp_path / "ws" / "matrix.json").read_text()) == {}
    assert "No perf-changelog.yaml entry appended" in (tmp_path / "summary").read_text()
    jobs = yaml.safe_load(RUN_SWEEP.read_text())["jobs"]
    # nothing ran, so nothing is collected, compared or commented on
    assert "needs.setup.outputs.matrix == 'true'" in jobs["collect"]["if"]
    assert "needs.collect.result == 'success'" in jobs["comment"]["if"]


def test_a_dispatched_sweep_with_an_entry_runs_its_rows(repo, tmp_path):
    repo.commit_changelog(CHANGELOG + ENTRY)
    outputs, ran = _dispatched_sweep(repo, tmp_path)
    assert "Matrix and plan summary with main's sweepgate" in ran
    assert any(name.startswith("Reuse the results") for name in ran)  # the PR's own earlier sweeps (s45h)
    assert outputs["matrix"] == "true" and int(outputs["jobs"]) > 0 and outputs["canary"]
    assert '"dsr1-fp4-b300-vllm"' in (tmp_path / "ws" / "matrix.json").read_text()
