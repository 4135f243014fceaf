"""New-user review (nu32): `ci split`, `ci reuse` and `ci row-env --matrix` given another JSON file
than a matrix (a row `test-config` printed, `plan --json`'s output) said `unknown matrix key(s) conc,
dcp-size, ...; teach sweepgate.workflow.fanout.FANOUT where their rows run`: a hint to edit sweepgate's
source for a user who passed the wrong file. Now a file with no key of a matrix is said to be no
matrix, what it is instead, and which file to pass. Real processes in a real git repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

HINT = "; pass the JSON `sweepgate matrix` printed"
KEYS = ("a matrix's keys are single_node, multi_node, evals, agentic_evals, multinode_evals, "
        "multinode_agentic_evals, changelog_metadata")


def sweepgate(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def wrong_files(make_repo) -> Path:
    """A repository holding row.json (one row test-config printed) and plan.json (`plan --json`)."""
    repo = make_repo()
    rows = sweepgate(repo.path, "test-config", "--config-keys", "dsr1-fp4-b300-vllm", "--conc", "4")
    assert rows.returncode == 0, rows.stderr
    (repo.path / "row.json").write_text(json.dumps(json.loads(rows.stdout)[0]))
    repo.commit_changelog(repo.read().decode() + "\n- config-keys:\n    - dsr1-fp4-b300-vllm\n  description:\n"
                          "    - \"Bump\"\n  pr-link: https://github.com/acme/bench/pull/5\n")
    plan = sweepgate(repo.path, "plan", "--base-ref", "HEAD~1", "--head-ref", "HEAD", "--json")
    assert plan.returncode == 0, plan.stderr
    (repo.path / "plan.json").write_text(plan.stdout)
    return repo.path


COMMANDS = {
    "split": ("ci", "split", "--output", "-", "--matrix"),
    "reuse": ("ci", "reuse", "--db", "sqlite:///r.db", "--out", "left.json", "--run-id", "1", "--ref",
              "refs/heads/main", "--matrix"),
    "row-env": ("ci", "row-env", "--row-id", "fixed/0", "--runner-name", "b300-nv_00", "--output", "-", "--matrix"),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name, what", [
    ("row.json", "one matrix row"),
    ("plan.json", "an object of base_ref, by_bucket, by_runner, diff, estimated, estimates, …"),
])
def test_a_file_that_is_no_matrix_is_said_to_be_none(wrong_files, command, name, what):
    r = sweepgate(wrong_files, *COMMANDS[command], name)
    assert "Traceback" not in r.stderr and "teach sweepgate" not in r.stderr, r.stderr
    assert r.returncode == 1 and r.stdout == "", (r.stdout, r.stderr)
    assert r.stderr == f"{name}:1: not a matrix but {what}: {KEYS}{HINT}\n", r.stderr
    assert not (wrong_files / "left.json").exists()


def test_a_matrix_with_a_key_this_sweepgate_does_not_know_still_names_the_key(wrong_files):
    """A matrix that has a matrix's keys and one more (a newer generator's bucket) is a matrix: the
    unknown key is named as before, never dropped."""
    (wrong_files / "m.json").write_text(json.dumps({"single_node": {}, "evals": [], "surprise": []}))
    r = sweepgate(wrong_files, "ci", "split", "--output", "-", "--matrix", "m.json")
    assert r.returncode == 1 and "m.json:1: unknown matrix key(s) surprise" in r.stderr, r.stderr
