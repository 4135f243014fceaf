"""What a single-node benchmark container leaves in the workspace (it mounts it read-write) never steers the
host's steps after it (s41g security review). A job whose run identity `ci row-env` could not take before the
benchmark ran records none: its sidecar never takes one from the files the container left (row-env wrote no
SWEEPGATE_RUN_IDENTITY for a script that sources `<(...)`, and the sidecar, after the container had deleted that
line, hashed the rewritten script and recorded an identity `ci reuse` would match). And the core.fsmonitor guard
holds for a submodule the container plants too, or the job stops before the benchmark."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from test_workflows import AGENTIC_SCRIPT, ROOT, TEMPLATES, _git, apply_env_file, benchmark_job_run, load

SOURCE_FROM_THE_RUN = "source <(echo :)"  # a file only the run knows: no identity before the benchmark


def _origin(tmp_path: Path) -> tuple[Path, str, str]:
    """main: this checkout's tools; the approved commit: a script the identity cannot see all of, which
    (as its container may) deletes that line and writes its result."""
    origin = tmp_path / "origin"
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in ("utils", "benchmarks", "configs"):
        shutil.copytree(ROOT / part, origin / part, symlinks=True, ignore=skip)
    _git("init", "-q", "-b", "main", cwd=origin)
    _git("add", ".", cwd=origin)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "main tools", cwd=origin)
    main_sha = _git("rev-parse", "HEAD", cwd=origin)
    (origin / AGENTIC_SCRIPT).write_text(
        f"{SOURCE_FROM_THE_RUN}\n"
        f"sed -i '1d' {AGENTIC_SCRIPT}\n"  # the container rewrites the script the sidecar would hash
        "echo '{}' > \"$RESULT_DIR/$RESULT_FILENAME.json\"\n")
    (origin / "results").mkdir(exist_ok=True)
    (origin / "results/.keep").write_text("")
    _git("add", "-A", cwd=origin)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "pr", cwd=origin)
    return origin, main_sha, _git("rev-parse", "HEAD", cwd=origin)


@pytest.mark.parametrize("name", TEMPLATES)
def test_a_job_row_env_took_no_identity_for_records_none_whatever_its_container_rewrote(tmp_path, name):
    from workflow_job import run_job  # noqa: PLC0415
    from sweepgate.core import fields, jobfile  # noqa: PLC0415

    origin, main_sha, pr_sha = _origin(tmp_path)
    work, temp, job_run = benchmark_job_run(tmp_path, origin, main_sha, pr_sha, status="success")
    results = run_job(load(name)["jobs"]["benchmark"], **job_run)
    log = "\n".join(f"--- {n}: {rc}\n{out}" for n, rc, out in results)
    assert [n for n, rc, _ in results if rc] == [], log
    assert SOURCE_FROM_THE_RUN not in (work / AGENTIC_SCRIPT).read_text(), "the container stand-in did not rewrite"
    env = apply_env_file(temp / "github_env")
    sidecar = json.loads(Path(jobfile.path_for(str(work / "results"), env["RESULT_FILENAME"])).read_text())
    assert sidecar[jobfile.JOB].get(jobfile.RUN_IDENTITY) is None, log
    assert env.get(fields.RUN_IDENTITY_ENV) == fields.NO_RUN_IDENTITY, log  # row-env said so, before the benchmark


@pytest.mark.parametrize("name", TEMPLATES)
def test_a_host_git_that_drops_git_config_count_for_submodules_stops_the_job(tmp_path, name):
    """The guard's GIT_CONFIG_* must reach the git actions/checkout's post step runs in each submodule
    (`git submodule foreach --recursive`), and a container can plant a populated submodule, its own
    core.fsmonitor set, in the workspace's index. git 2.31 and 2.32 take GIT_CONFIG_* but clear them for a
    submodule's git (upstream "submodule: refrain from filtering GIT_CONFIG_COUNT", June 2021), so the
    guard asks a submodule's git too and stops the job on such a host (s41g security review: the guard
    checked the top repository's git only, which 2.31 passed)."""
    import subprocess  # noqa: PLC0415

    job_steps = load(name)["jobs"]["benchmark"]["steps"]
    (guard,) = [s["run"] for s in job_steps if "GIT_CONFIG_KEY_0=core.fsmonitor" in s.get("run", "")]
    work, old, temp = tmp_path / "work", tmp_path / "git-2.32", tmp_path / "temp"
    for d in (work, old, temp):
        d.mkdir()
    _git("init", "-q", cwd=work)
    real = shutil.which("git")
    # `git submodule` as 2.31 and 2.32 run it: the git it starts in each submodule (from its own exec path, so
    # no stand-in on PATH is asked) gets no GIT_CONFIG_COUNT or pairs; the top repository's reads need none here
    (old / "git").write_text(f"#!/bin/sh\ncase \" $* \" in *\" submodule \"*)\n"
                             f"  unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0;;\nesac\nexec {real} \"$@\"\n")
    (old / "git").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for path, ok in ((os.environ["PATH"], True), (f"{old}:{os.environ['PATH']}", False)):
        env_file = tmp_path / f"github_env_{ok}"
        proc = subprocess.run(["bash", "-e", "-c", guard], cwd=work, capture_output=True, text=True,
                              env={**env, "PATH": path, "GITHUB_ENV": str(env_file), "RUNNER_TEMP": str(temp)})
        assert (proc.returncode == 0) is ok, proc.stdout + proc.stderr
        assert ("::error::this host's git clears GIT_CONFIG_COUNT for a submodule" in proc.stdout) is not ok, \
            proc.stdout + proc.stderr
        assert list(temp.iterdir()) == [], "the probe repository was left in runner.temp"
