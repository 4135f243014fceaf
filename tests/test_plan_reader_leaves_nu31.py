"""`sweepgate plan --fail-on-warning --step-summary F | head -1`: the reader of stdout leaving must
not change the verdict or lose what follows the report. It exited 1 (bad input) instead of 3, and
wrote neither the step summary nor the warnings on stderr (new-user walk-through, nu31; `results
compare` had the same fault, fixed in test_compare_points)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from test_plan import DSR1_SCRIPT, ROOT, fleet  # noqa: F401 - the fixture, imported for pytest


@pytest.mark.parametrize("fmt", [[], ["--markdown"], ["--json"]])
def test_a_reader_who_stops_reading_keeps_exit_3_the_summary_and_the_warnings(fleet, tmp_path, fmt):  # noqa: F811
    head = fleet.commit({DSR1_SCRIPT: "#!/usr/bin/env bash\nvllm serve dsr1 --changed\n"}, "script only")
    summary = tmp_path / "summary.md"
    read, write = os.pipe()
    os.close(read)  # gone before the first byte: every write to stdout fails with EPIPE
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY")}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "plan", "--base-ref", fleet.base, "--head-ref", head,
                           "--fail-on-warning", "--step-summary", str(summary), *fmt],
                          stdout=write, stderr=subprocess.PIPE, text=True, cwd=fleet.root,
                          env={**env, "PYTHONPATH": str(ROOT / "utils")})
    os.close(write)
    assert proc.returncode == 3, (fmt, proc.returncode, proc.stderr)
    assert f"{DSR1_SCRIPT}:1: warning: benchmark script {DSR1_SCRIPT} changed" in proc.stderr, proc.stderr
    assert "## sweepgate plan:" in summary.read_text(), fmt
