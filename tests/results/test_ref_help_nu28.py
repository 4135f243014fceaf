"""`results ingest --help` and `results show --help` gave a PR's ref as `refs/pull/42/merge`, while the README's
hand-ingest example, the `--ref main` refusal and the workflow store a PR's results under `refs/pull/N/head`
(new-user28, second pass): a newcomer following the help stored a PR run where `results show --ref
refs/pull/42/head` does not find it. The help names the ref the workflow uses. Real processes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import ROOT
from sweepgate.core import jobfile


@pytest.mark.parametrize("command", ["ingest", "show"])
def test_the_ref_help_names_a_pr_s_ref_as_the_workflow_stores_it(command):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", command, "--help"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    (line,) = [line for line in proc.stdout.splitlines() if line.lstrip().startswith("--ref")]
    assert jobfile.pr_ref(42) in line and "/merge" not in line, line
