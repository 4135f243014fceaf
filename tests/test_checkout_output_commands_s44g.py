"""What git prints while a PR's commit is checked out on the GPU side is read as no workflow command (s44g).

actions/checkout prints git's output as it comes, and git prints text of the commit it checks out: its
subject (`HEAD is now at 1a2b3c4 <subject>`, a detached checkout, which a commit SHA always is) and each
`.gitattributes` word it refuses (`##[error]x is not a valid attribute name: .gitattributes:1`). The runner
reads `##[...]` anywhere in a line, so a subject `tidy ##[save-state name=sshKeyPath]/models` saved state for
the checkout's post step, which removes the path its `sshKeyPath` state names (`io.rmRF`): an approved
commit's subject, which no reviewer reads as code, deleted a path of the GPU host's after the job. Every
checkout of a PR's commit in a workflow no pull request starts now runs inside a stop-commands region, opened
before it under a token drawn at run time and kept in runner.temp, closed by the step after it. (The templates
empty the workspace before the region opens: that step prints no name a past job chose as it is, s45a.)
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from test_benchmark_step_commands_s42a import runner_reads
from test_workflow_commands import runner_command
from test_workflows import NAMES, load

OPEN = "Read no workflow command while git checks out "  # the PR's commit, main's tools
CLOSE = "Read workflow commands again"
# What git prints checking out a hostile commit: its subject, and a .gitattributes line it refuses.
GIT_SAID = ["HEAD is now at 1a2b3c4 tidy ##[save-state name=sshKeyPath]/models",
            "::error::x is not a valid attribute name: .gitattributes:1",
            "##[stop-commands]mine is not a valid attribute name: .gitattributes:2",
            "::mine::"]


def pr_checkouts() -> dict[str, tuple[list, int]]:
    """In each workflow no pull request starts, every checkout of a commit other than the workflow's own (a
    `ref:` that is not `github.sha`), and every checkout on a runner GitHub does not host (main's own subject
    is a PR's title when it was squash-merged, and such a host outlives the job): where -> (the job's steps,
    the checkout's index)."""
    found = {}
    for name in NAMES:
        doc = load(name)
        if "pull_request" in doc["on"] or "pull_request_target" in doc["on"]:
            continue  # the PR's own run: its commands are its own
        for job_name, job in doc["jobs"].items():
            for i, step in enumerate(job.get("steps", [])):
                ref = (step.get("with") or {}).get("ref")
                hosted = str(job.get("runs-on", "")).startswith("ubuntu-")
                if "actions/checkout@" in step.get("uses", "") and (ref and ref != "${{ github.sha }}" or not hosted):
                    found[f"{name}:{job_name}:{step.get('name', i)}"] = (job["steps"], i)
    return found


CHECKOUTS = pr_checkouts()


def test_the_pr_commits_checked_out_are_the_gpu_jobs_and_the_matrix_s():
    assert sorted(CHECKOUTS) == [
        "benchmark-multinode-tmpl.yml:benchmark:Check out main's tools (sweepgate and the launchers)",
        "benchmark-multinode-tmpl.yml:benchmark:Check out the approved commit (its benchmark scripts run)",
        "benchmark-tmpl.yml:benchmark:Check out main's tools (sweepgate and the launchers)",
        "benchmark-tmpl.yml:benchmark:Check out the approved commit (its benchmark scripts run)",
        "run-sweep.yml:setup:Fetch the approved head (data only; none of its code runs here)"]
    assert runner_command(GIT_SAID[0]) == "save-state"  # what the runner made of the subject


def _run(block: str, temp, cwd) -> subprocess.CompletedProcess:
    script = temp.parent / "step.sh"
    script.write_text(block)
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd,
                          env={"PATH": os.environ["PATH"], "RUNNER_TEMP": str(temp)}, capture_output=True, text=True)


@pytest.mark.parametrize("where", sorted(CHECKOUTS))
def test_what_git_prints_of_a_pr_s_commit_is_no_command(where, tmp_path):
    """A step before the checkout opens a region (its token 128 random bits, drawn each run, out of the
    workspace), the step after closes it on a line of its own and removes the token; run as the runner runs
    them (and the steps between) around what git and find print of hostile names, the runner reads those two
    commands and the next step's, none of theirs."""
    steps, i = CHECKOUTS[where]
    opens = [j for j, s in enumerate(steps[:i]) if str(s.get("name")).startswith(OPEN)]
    assert opens and steps[i + 1].get("name") == CLOSE, ([s.get("name") for s in steps[:i + 2]])
    before, between, after = steps[opens[-1]], steps[opens[-1] + 1:i], steps[i + 1]
    # between the region's start and the checkout: run steps, if any, that print no command of their own
    assert all("run" in s and "::" not in s["run"] and "if" not in s for s in between), between
    assert "if" not in before and "${{" not in before["run"] + after["run"], (before, after)
    tokens = set()
    for attempt in range(2):
        temp = tmp_path / f"runner temp {attempt}"
        temp.mkdir()
        opened = _run(before["run"], temp, tmp_path)
        assert opened.returncode == 0 and opened.stderr == "", opened.stdout + opened.stderr
        workspace = tmp_path / f"workspace {attempt}"
        (workspace / ".git").mkdir(parents=True)
        for step in between:
            assert _run(step["run"], temp, workspace).returncode == 0, step
        closed = _run(after["run"], temp, tmp_path)
        assert closed.returncode == 0 and closed.stderr == "", closed.stdout + closed.stderr
        assert list(temp.iterdir()) == [], "the token was left in runner.temp"
        git = "\n".join(GIT_SAID) + " (no line break)"
        read, skipped = runner_reads(opened.stdout + git + closed.stdout + "::error::the next step\n")
        token = read[0].split("::", 2)[2]
        assert read == [f"::stop-commands::{token}", f"::{token}::", "::error::the next step"], read
        assert re.fullmatch(r"[0-9a-f]{32}", token), token
        assert all(line in skipped for line in GIT_SAID[:-1]), skipped
        tokens.add(token)
    assert len(tokens) == 2, tokens
