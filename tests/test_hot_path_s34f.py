"""What the matrix step and the gate import, they pay for on every run, cold or warm. Session 34 found
three modules neither uses imported on their way:

- pathlib (and with it urllib.parse and ipaddress), by ``core.load`` for two work-tree helpers that
  neither command calls: about 17M instructions a run;
- dataclasses (and with it inspect, ast, dis and tokenize), by ``core.gate`` and ``core.history`` for
  four record classes: about 45M instructions a gate run;
- difflib, by ``core.history``, which needs it only when HEAD does more than append to the changelog.

Session 48 found one more: textwrap, by the CLI's help formatter class, which argparse makes for every
parser's usage prefix though only written help wraps text (about 3M instructions a run).

Real processes of the reference's entry points in a real git repository (the example fleet, whose last
commit appends one changelog entry); the modules are read from the process that ran the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
REFS = ("--base-ref", "HEAD~1", "--head-ref", "HEAD")
UNUSED = {"pathlib", "urllib.parse", "ipaddress", "dataclasses", "inspect", "difflib", "textwrap"}

# Runs an entry point as `python utils/X.py ...` would, then writes the modules that process imported.
RUN_AND_LIST = """
import json, runpy, sys
out, sys.argv = sys.argv[1], sys.argv[2:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as exc:
    code = exc.code
finally:
    with open(out, "w") as f:
        json.dump({"code": code, "modules": sorted(sys.modules)}, f)
"""


@pytest.mark.parametrize("script", ["process_changelog.py", "validate_perf_changelog.py"])
@pytest.mark.parametrize("cache", ["0", "1"])
def test_the_matrix_and_the_gate_import_no_module_they_do_not_use(example_fleet, tmp_path, script, cache):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GIT_TRACE"))}
    env.update(PYTHONPATH=str(ROOT / "utils"), SWEEPGATE_NO_CACHE=cache)
    listed = tmp_path / "modules.json"
    proc = subprocess.run([sys.executable, "-c", RUN_AND_LIST, str(listed), str(ROOT / "utils" / script), *REFS],
                          cwd=example_fleet, env=env, capture_output=True, text=True, timeout=120)
    ran = json.loads(listed.read_text())
    assert ran["code"] == 0, proc.stderr
    loaded = set(ran["modules"])
    assert "sweepgate.core.select" in loaded, "the command ran its work"
    assert not loaded & UNUSED, sorted(loaded & UNUSED)


def _run(cwd: Path, script: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GIT_TRACE", "SWEEPGATE_"))}
    full.update(PYTHONPATH=str(ROOT / "utils"), **env)
    return subprocess.run([sys.executable, str(ROOT / "utils" / script), *REFS], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("script", ["process_changelog.py", "validate_perf_changelog.py"])
def test_the_top_and_both_refs_are_found_in_one_git_process(example_fleet, tmp_path, script):
    """The repository's top (`rev-parse --show-toplevel`) was a git process of its own before the one that
    looks up both refs: one process more on every run, about 4 ms of a warm matrix on this host."""
    trace = tmp_path / "trace.txt"
    proc = _run(example_fleet, script, GIT_TRACE=str(trace))
    assert proc.returncode == 0, proc.stderr
    asked = [line.split("built-in: ", 1)[1] for line in trace.read_text().splitlines() if "built-in: git " in line]
    assert [line for line in asked if line.startswith("git rev-parse")] == [
        "git rev-parse --show-toplevel --git-common-dir 'HEAD~1^{commit}' 'HEAD^{commit}'"], asked


def test_from_a_subdirectory_the_matrix_and_its_cache_are_the_repositorys(example_fleet):
    """git names the git directory from where it ran (``../.git`` in configs/): the cache must still be the
    repository's own, and the matrix the one its top gives."""
    top = _run(example_fleet, "process_changelog.py", SWEEPGATE_NO_CACHE="1")
    below = _run(example_fleet / "configs", "process_changelog.py")
    assert top.returncode == below.returncode == 0, below.stderr
    assert json.loads(below.stdout) == json.loads(top.stdout)
    assert (example_fleet / ".git" / "sweepgate-cache").is_dir()
    assert not (example_fleet.parent / ".git").exists() and not (example_fleet / "configs" / ".git").exists()
