"""CONTRACTS section 7 has two implementations: core.recipes.script_candidates (Python: plan,
rehearse) and launch::resolve_script (bash: the runner launchers). They must pick the same
script for every row of the example fleet, single- and multi-node, in the repository's own
tree and when only the fallback candidate exists."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from sweepgate.core import fields as F
from sweepgate.core.jobenv import job_env
from sweepgate.core.placement import runners_at
from sweepgate.core.recipes import gpu_family, script_candidates
from sweepgate.core.sweep import worktree_rows

ROOT = Path(__file__).resolve().parents[1]
RUNNERS = ROOT / "benchmarks" / "runners"
ROWS = worktree_rows(ROOT)
# the bash function reads only these variables of the job environment
RESOLUTION_ENV = ("MODEL_PREFIX", "PRECISION", "FRAMEWORK", "SPEC_DECODING", "SCENARIO_TYPE", "MULTINODE",
                  "EXP_NAME")


def _runner_name(row: dict) -> str:
    label = str(row[F.RUNNER]).removeprefix(F.CLUSTER_PREFIX)
    return f"{label}_00"


def _launcher_gpu(runner_name: str) -> str:
    """The GPU family the runner's launcher (launch_<runner-name prefix>.sh) passes to launch::main."""
    launcher = RUNNERS / f"launch_{runner_name.split('_', 1)[0]}.sh"
    found = re.search(r"^\s*launch::main (\S+) ", launcher.read_text(), re.M)
    assert found, f"{launcher.name} does not call launch::main"
    return found.group(1)


def bash_resolve(cwd: Path, env: dict[str, str], gpu: str) -> str | None:
    proc = subprocess.run(["bash", "-c", 'source "$1" && launch::resolve_script "$2"', "resolve",
                           str(RUNNERS / "launch_common.sh"), gpu],
                          cwd=cwd, env={"PATH": "/usr/bin:/bin", **env}, capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def python_resolve(cwd: Path, row: dict, gpu: str) -> str | None:
    return next((c for c in script_candidates(row, gpu) if (cwd / c).is_file()), None)


def test_the_fleet_has_both_kinds_of_rows():
    assert any(F.PREFILL in row for row in ROWS) and any(F.PREFILL not in row for row in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[f"{i}-{row[F.EXP_NAME]}" for i, row in enumerate(ROWS)])
def test_python_and_bash_resolve_the_same_script(tmp_path, row):
    runner_name = _runner_name(row)
    gpu = _launcher_gpu(runner_name)
    assert gpu_family(runner_name) == gpu_family(str(row[F.RUNNER])) == gpu
    full = job_env(row, runner_name, "results", source="row", runners=runners_at(str(ROOT)))
    env = {name: full[name] for name in RESOLUTION_ENV if name in full}

    # the repository's own scripts
    real = python_resolve(ROOT, row, gpu)
    assert real is not None, f"no script for {row[F.EXP_NAME]}: {script_candidates(row, gpu)}"
    assert bash_resolve(ROOT, env, gpu) == real

    # every candidate present, then only the fallback, then none
    candidates = script_candidates(row)
    for present in (candidates, candidates[1:], []):
        tree = tmp_path / str(len(present))
        for rel in present:
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            (tree / rel).write_text("#!/usr/bin/env bash\n")
        tree.mkdir(exist_ok=True)
        expected = present[0] if present else None
        assert python_resolve(tree, row, gpu) == expected
        assert bash_resolve(tree, env, gpu) == expected, (present, env)
