"""A new user (tidy28): `ci collect` by hand, with no `results` folder or an empty one and no RESULTS,
printed a table header with no rows. Real processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sweepgate(cwd: Path, *argv: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items()
            if not k.startswith("GITHUB_") and k not in ("RESULTS", "COLUMNS", "SWEEPGATE_DB")}
    full.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", **env})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("folder", ["missing", "empty"])
def test_collect_without_job_results_says_so_instead_of_an_empty_table(tmp_path, folder):
    if folder == "empty":
        (tmp_path / "results").mkdir()
    proc = sweepgate(tmp_path, "ci", "collect")
    assert proc.returncode == 0, proc.stderr  # nothing to collect is no failure: a run of reused rows has none
    assert "| job result |" not in proc.stdout, proc.stdout
    assert ("No job results to count: RESULTS is unset or `[]` (run-sweep.yml sets it to "
            "`toJSON(needs.*.result)`, one result a job).") in proc.stdout.splitlines(), proc.stdout
    assert "0 result files (0 job sidecars beside them)." in proc.stdout
    said = {"missing": "results: no such folder, so no job uploaded a result file",
            "empty": "results: no result file in it, so no job uploaded one"}[folder]
    assert proc.stderr == f"sweepgate ci collect: {said}\n", proc.stderr
    counted = sweepgate(tmp_path, "ci", "collect", RESULTS='["skipped"]')
    assert counted.returncode == 0 and "| skipped | 1 |" in counted.stdout and "No job results" not in counted.stdout
