"""The matrix step and the gate run on every pull request: what a command added for its messages must not
cost them work. review27 found two costs on that path, both for naming a commit in a hint:

- naming the flag of a ref that is not a commit (``argtypes.resolve_refs``) looked up --base-ref and
  --head-ref in a `git rev-parse` each, where the matrix step had looked both up in one;
- the short commit id (``short_sha``) and the commit-id pattern came from ``core.jobfile``, the results'
  job sidecar module, which `matrix` and `validate` then imported for nothing else.

Real processes in a real git repository (the example fleet); git's own trace counts its processes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
REFS = ("--base-ref", "HEAD~1", "--head-ref", "HEAD")


def run(cwd: Path, *argv: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GIT_TRACE"))}
    full.update({"PYTHONPATH": str(ROOT / "utils"), **env})
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=full, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("command", ["matrix", "validate", "plan"])
def test_both_refs_are_looked_up_in_one_git_call(example_fleet, tmp_path, command):
    trace = tmp_path / "trace.txt"
    proc = run(example_fleet, "-m", "sweepgate", command, *REFS, GIT_TRACE=str(trace))
    assert proc.returncode == 0, proc.stderr
    lookups = [line for line in trace.read_text().splitlines()
               if re.search(r"built-in: git rev-parse .*\^\{commit\}", line)]
    assert len(lookups) == 1, lookups
    assert "HEAD~1^{commit}" in lookups[0] and "'HEAD^{commit}'" in lookups[0], lookups


@pytest.mark.parametrize("command", ["matrix", "validate"])
def test_the_results_job_file_module_is_not_loaded(example_fleet, command):
    proc = run(example_fleet, "-X", "importtime", "-m", "sweepgate", command, *REFS)
    assert proc.returncode == 0, proc.stderr
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "sweepgate.core.select" in loaded or "sweepgate.core.gate" in loaded, "the trace was read"
    assert "sweepgate.core.jobfile" not in loaded
