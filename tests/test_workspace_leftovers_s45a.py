"""s45a: the GPU templates emptied the kept workspace of a self-hosted runner with `find . -mindepth 1 -delete`.
A past job's container running as root leaves folders the runner's user cannot empty (a results folder made
inside the container); `find` then failed the step, with nothing but its raw messages inside a stop-commands
region, and so did every later job on that host. The step now removes what it can (its own folders made
writable first), and when something stays it stops the job before any checkout or benchmark, in one error
annotation naming each path (quoted, escaped: a past job chose the names) and the fix.

Run here as the runner runs it: the step's own block, with real bash, in a workspace owned by an unprivileged
uid (``setpriv``) holding root's folders, and as root around a file ``chattr +i`` makes immutable."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from test_benchmark_step_commands_s42a import runner_reads
from test_workflow_commands import annotation
from test_workflows import load

TEMPLATES = ("benchmark-tmpl.yml", "benchmark-multinode-tmpl.yml")
STEP = "Start from an empty workspace"
RUNNER_UID = 4242  # the runner's user: no one's on this host, so nothing else of its is touched
HOSTILE = "##[error]x\n::set-output name=a::b"  # a name a past job chose


def step_block(name: str = TEMPLATES[0]) -> str:
    (step,) = [s for s in load(name)["jobs"]["benchmark"]["steps"] if s.get("name") == STEP]
    return step["run"]


def test_each_template_empties_the_workspace_first_with_the_same_block():
    """Before anything reads or writes the workspace, and before the stop-commands region of the checkout
    (the step's annotation must be read; it prints no name as it is)."""
    for name in TEMPLATES:
        steps = load(name)["jobs"]["benchmark"]["steps"]
        assert steps[0]["name"] == STEP and steps[0]["run"] == step_block(), name
        assert steps[1]["name"].startswith("Read no workflow command while git checks out"), name
        assert "if" not in steps[0] and "continue-on-error" not in steps[0], name


@pytest.fixture
def base():
    """A folder every uid can reach (pytest's own is root's alone), removed after the test whatever it holds."""
    if os.geteuid() != 0:
        pytest.skip("needs root: a file the cleaning user cannot remove is made as root (the step runs under "
                    "setpriv as an unprivileged uid)")
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux) to run the step as an unprivileged uid")
    made = Path(tempfile.mkdtemp(prefix="sweepgate-workspace-"))
    made.chmod(0o755)
    try:
        if subprocess.run(_as_runner(["test", "-x", str(made)])).returncode != 0:
            pytest.skip(f"uid {RUNNER_UID} cannot reach {made.parent} (the temporary folder is not world-searchable)")
        yield made
    finally:
        for path in made.rglob("*"):  # an immutable file a failing test left
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        shutil.rmtree(made)


def _as_runner(argv: list[str]) -> list[str]:
    return ["setpriv", f"--reuid={RUNNER_UID}", f"--regid={RUNNER_UID}", "--clear-groups", *argv]


def run_step(workspace: Path, as_runner: bool) -> subprocess.CompletedProcess:
    script = workspace.parent / "step.sh"
    script.write_text(step_block())
    script.chmod(0o644)
    argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
    return subprocess.run(_as_runner(argv) if as_runner else argv, cwd=workspace, capture_output=True, text=True,
                          env={"PATH": os.environ["PATH"], "RUNNER_NAME": "mi355x-amds_01", "LANG": "C.UTF-8"})


def left_in(workspace: Path) -> set[str]:
    return {str(p.relative_to(workspace)) for p in workspace.rglob("*")}


def the_one_annotation(out: str) -> str:
    read, _ = runner_reads(out)
    assert len(read) == 1, read  # no name a past job chose became a command of its own
    level, props, message = annotation(read[0])
    assert level == "error" and props == {"title": "Workspace not emptied"}, read
    return message


def test_a_root_folder_a_past_container_left_stops_the_job_naming_it_and_the_fix(base):
    workspace = base / "workspace"
    for folder in ("results", HOSTILE, "own/deep", "locked"):
        (workspace / folder).mkdir(parents=True)
    for file in ("results/old.json", f"{HOSTILE}/f", "own/deep/f", "locked/f", "rootfile", ".git/hooks/post-checkout"):
        (workspace / file).parent.mkdir(parents=True, exist_ok=True)
        (workspace / file).write_text("x\n")
    shutil.chown(workspace, RUNNER_UID, RUNNER_UID)
    for path in workspace.rglob("*"):
        if not str(path.relative_to(workspace)).startswith(("results", HOSTILE, "rootfile")):
            shutil.chown(path, RUNNER_UID, RUNNER_UID)  # the rest is the runner's; those three root's
    (workspace / "locked").chmod(0)  # the runner's own, made unreadable by a past job: made writable, emptied

    r = run_step(workspace, as_runner=True)

    assert r.returncode == 1 and r.stderr == "", r.stdout + r.stderr
    assert left_in(workspace) == {"results", "results/old.json", HOSTILE, f"{HOSTILE}/f"}
    lines = the_one_annotation(r.stdout).splitlines()
    assert "holds 2 path(s) a past job left" in lines[0] and "mi355x-amds_01" in lines[0], lines
    assert f"uid:gid {RUNNER_UID}:{RUNNER_UID}" in lines[0] and "no benchmark runs on top of them" in lines[0]
    assert lines[1:3] == [r"$'./##[error]x\n::set-output name=a::b' (owner 0:0, a folder this job cannot write into)",
                          "./results (owner 0:0, a folder this job cannot write into)"], lines
    assert f"sudo chown -R {RUNNER_UID}:{RUNNER_UID} {workspace}" in lines[3], lines
    assert f"docker run --user {RUNNER_UID}:{RUNNER_UID}" in lines[3], lines


def test_a_workspace_the_runner_can_empty_is_emptied_quietly(base):
    workspace = base / "workspace"
    (workspace / "locked" / "inner").mkdir(parents=True)
    (workspace / "locked" / "inner" / "f").write_text("x\n")
    (workspace / "rootfile").write_text("root's, in the runner's folder: removable\n")
    for path in (workspace, workspace / "locked", workspace / "locked" / "inner", workspace / "locked" / "inner" / "f"):
        shutil.chown(path, RUNNER_UID, RUNNER_UID)
    (workspace / "locked" / "inner").chmod(0)
    (workspace / "locked").chmod(0o500)  # was: find could not empty it, and the job failed

    r = run_step(workspace, as_runner=True)

    assert r.returncode == 0 and r.stdout == r.stderr == "", r.stdout + r.stderr
    assert left_in(workspace) == set()


def test_an_immutable_file_stops_even_a_root_runner_naming_it(base):
    workspace = base / "workspace"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "sub" / "frozen").write_text("x\n")
    (workspace / "other").write_text("x\n")
    if subprocess.run(["chattr", "+i", str(workspace / "sub" / "frozen")], capture_output=True).returncode != 0:
        pytest.skip(f"the file system of {base} takes no immutable flag (chattr +i)")

    r = run_step(workspace, as_runner=False)

    assert r.returncode == 1 and r.stderr == "", r.stdout + r.stderr
    assert left_in(workspace) == {"sub", "sub/frozen"}
    lines = the_one_annotation(r.stdout).splitlines()
    assert lines[1] == "./sub/frozen (owner 0:0, cannot be removed)" and "sudo chattr -i" in lines[2], lines
