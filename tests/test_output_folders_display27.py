"""A file to write needs a folder that is there; a folder to fill is made (docs/contracts.md §8, Output
paths). `--comment-file` and `--step-summary` in a missing folder are refused in one line before any work
(a mistyped path, most often: a report written into a new folder nobody reads is lost unseen), while
`--plots out/charts` names a new folder, which is made with its parents. compare's side is in
tests/results/test_compare_outputs.py and the example's `--plots` in test_reader_leaves_display27; this is
`plan --step-summary`'s, which no test held to it. Real processes."""

from __future__ import annotations

import os
import subprocess
import sys

from test_plan import DSR1_SCRIPT, ROOT, fleet  # noqa: F401 - the fixture, imported for pytest


def plan(fleet, *argv: str, **env: str) -> subprocess.CompletedProcess:  # noqa: F811
    head = fleet.commit({DSR1_SCRIPT: "#!/usr/bin/env bash\nvllm serve dsr1 --changed\n"}, "script only")
    clean = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY")}
    return subprocess.run([sys.executable, "-m", "sweepgate", "plan", "--base-ref", fleet.base, "--head-ref", head,
                           *argv], capture_output=True, text=True, cwd=fleet.root,
                          env={**clean, "PYTHONPATH": str(ROOT / "utils"), **env}, timeout=120)


def test_plan_refuses_a_step_summary_in_a_missing_folder_before_its_work(fleet):  # noqa: F811
    proc = plan(fleet, "--step-summary", "missing/s.md")
    assert (proc.returncode, proc.stdout) == (1, ""), proc
    assert proc.stderr == ("missing/s.md: --step-summary: its folder missing does not exist; create the folder "
                           "first or pass --step-summary in an existing one\n"), proc.stderr
    assert not (fleet.root / "missing").exists()


def test_plan_names_the_variable_when_github_step_summary_is_in_a_missing_folder(fleet):  # noqa: F811
    proc = plan(fleet, GITHUB_STEP_SUMMARY="missing/s.md")
    assert (proc.returncode, proc.stdout) == (1, ""), proc
    assert proc.stderr.startswith("missing/s.md: $GITHUB_STEP_SUMMARY (the default of --step-summary): its folder "
                                  "missing does not exist; "), proc.stderr
