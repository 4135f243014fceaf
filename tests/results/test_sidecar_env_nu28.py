"""`sweepgate results sidecar` with only one of RESULT_DIR and RESULT_FILENAME set (new-user28, second pass):
it said "RESULT_DIR/RESULT_FILENAME are not set" with RESULT_FILENAME set, sending a newcomer to check the
variable that was there. It names the one missing. A real process in a real git repository."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import ROOT


def sidecar(cwd, **env) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items()
            if k not in ("GITHUB_ACTIONS", "RESULT_DIR", "RESULT_FILENAME", "ROW", "JOB_STATUS")}
    base.update({"PYTHONPATH": str(ROOT / "utils"), "JOB_STATUS": "success", **env})
    return subprocess.run([sys.executable, "-m", "sweepgate", "results", "sidecar"], capture_output=True, text=True,
                          cwd=cwd, env=base, timeout=120)


@pytest.mark.parametrize(("given", "missing"), [({"RESULT_FILENAME": "r"}, "RESULT_DIR is not set"),
                                               ({"RESULT_DIR": "."}, "RESULT_FILENAME is not set"),
                                               ({}, "RESULT_DIR and RESULT_FILENAME are not set")])
def test_the_sidecar_names_the_result_variable_that_is_missing(tmp_path, given, missing):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    proc = sidecar(tmp_path, **given)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if "is not set" in line or "are not set" in line]
    assert f": {missing}; run `sweepgate ci row-env` first" in line, line
    assert list(tmp_path.iterdir()) == [tmp_path / ".git"], "nothing written"
