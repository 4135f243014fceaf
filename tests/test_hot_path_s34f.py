"""What the matrix step and the gate import, they pay for on every run, cold or warm. Session 34 found
three modules neither uses imported on their way:

- pathlib (and with it urllib.parse and ipaddress), by ``core.load`` for two work-tree helpers that
  neither command calls: about 17M instructions a run;
- dataclasses (and with it inspect, ast, dis and tokenize), by ``core.gate`` and ``core.history`` for
  four record classes: about 45M instructions a gate run;
- difflib, by ``core.history``, which needs it only when HEAD does more than append to the changelog.

Real processes of the reference's entry points in a real git repository (the example fleet, whose last
commit appends one changelog entry); the modules are read from the process that ran the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sweepgate.commands import example

ROOT = Path(__file__).resolve().parents[1]
REFS = ("--base-ref", "HEAD~1", "--head-ref", "HEAD")
UNUSED = {"pathlib", "urllib.parse", "ipaddress", "dataclasses", "inspect", "difflib"}

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


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("fleet")
    example.build_repo(str(repo))
    return repo


@pytest.mark.parametrize("script", ["process_changelog.py", "validate_perf_changelog.py"])
@pytest.mark.parametrize("cache", ["0", "1"])
def test_the_matrix_and_the_gate_import_no_module_they_do_not_use(fleet, tmp_path, script, cache):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GIT_TRACE"))}
    env.update(PYTHONPATH=str(ROOT / "utils"), SWEEPGATE_NO_CACHE=cache)
    listed = tmp_path / "modules.json"
    proc = subprocess.run([sys.executable, "-c", RUN_AND_LIST, str(listed), str(ROOT / "utils" / script), *REFS],
                          cwd=fleet, env=env, capture_output=True, text=True, timeout=120)
    ran = json.loads(listed.read_text())
    assert ran["code"] == 0, proc.stderr
    loaded = set(ran["modules"])
    assert "sweepgate.core.select" in loaded, "the command ran its work"
    assert not loaded & UNUSED, sorted(loaded & UNUSED)
