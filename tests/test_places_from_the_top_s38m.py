"""Review s38m: the location part of a problem line names a file of the repository the command works
on from the repository's top, from whatever folder the command runs in. `ci row-env` and `ci split
--runners` said `runners.yaml:321:5` in configs/ (and the full path in benchmarks/), while `plan`,
`validate`, `preflight` and the rest said `configs/runners.yaml:321:5`. Paths typed on the command line
and the commands of a fix stay from the current folder (not checked here)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import pytest
from test_plan import DSR1, RUNNERS, entry, fleet  # noqa: F401

UTILS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "utils")

# each command's words; {base}, {row}, {top}, {out} filled in per run
COMMANDS = {
    "full-sweep": ["full-sweep"],
    "test-config": ["test-config", "--config-keys", DSR1],
    "validate": ["validate", "--base-ref", "{base}", "--head-ref", "HEAD"],
    "matrix": ["matrix", "--base-ref", "{base}", "--head-ref", "HEAD"],
    "plan": ["plan", "--base-ref", "{base}", "--head-ref", "HEAD"],
    "preflight": ["preflight", "--config-keys", DSR1],
    "rehearse": ["rehearse", "--config-keys", DSR1, "--work-dir", "{out}"],
    "ci row-env": ["ci", "row-env", "--row", "{row}", "--runner-name", "b300-nv_0", "--output", "{out}"],
    "ci row-env --tools": ["ci", "row-env", "--row", "{row}", "--runner-name", "b300-nv_0", "--tools", "{top}",
                           "--output", "{out}"],
    "ci split --runners": ["ci", "split", "--matrix", "{matrix}", "--runners", "{top}", "--output", "{out}"],
    # last: it writes its entry all the same, the runners file's problem a warning
    "changelog add": ["changelog", "add", "--key", DSR1, "--description", "x"],
}


def _run(args: list[str], cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": UTILS}
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "ROW", "ROW_ID", "MATRIX_FILE", "RUNNER_NAME"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def broken(fleet, tmp_path):  # noqa: F811
    """The fleet with a head commit whose runners file holds gpus-per-node 0 (every command that reads
    it refuses it at that line), and a row of the base and a matrix of it."""
    rows = _run(["test-config", "--config-keys", DSR1], fleet.root)
    assert rows.returncode == 0, rows.stderr
    row = json.loads(rows.stdout)[0]
    (tmp_path / "matrix.json").write_text(json.dumps({"single_node": {"1k1k": [row]}}))
    runners = copy.deepcopy(RUNNERS)
    runners["hardware"]["cluster:b300-nv"]["gpus-per-node"] = 0
    changelog = fleet.append_changelog(entry(DSR1, pr=5)).replace("\n- config-keys", "\n\n- config-keys")
    fleet.commit({"configs/runners.yaml": runners, "perf-changelog.yaml": changelog}, "head")
    lines = (fleet.root / "configs/runners.yaml").read_text().splitlines()
    fleet.bad_line = next(i for i, line in enumerate(lines, 1) if line.strip() == "gpus-per-node: 0")
    fleet.row = json.dumps(row)
    fleet.matrix = str(tmp_path / "matrix.json")
    fleet.out = str(tmp_path / "out")
    return fleet


@pytest.mark.parametrize("folder", ["configs", "benchmarks"])
def test_every_command_names_the_repository_s_files_from_its_top_in_a_subfolder(broken, folder):
    cwd = broken.root / folder
    fill = {"base": broken.base, "row": broken.row, "top": "..", "out": broken.out, "matrix": broken.matrix}
    said = {}
    for name, words in COMMANDS.items():
        proc = _run([w.format(**fill) for w in words], cwd)
        assert proc.returncode == (0 if name == "changelog add" else 1), (name, proc.stderr)
        assert "Traceback" not in proc.stderr, (name, proc.stderr)
        said[name] = proc.stderr.splitlines()[0].split(":")[:2]
    assert said == {name: ["configs/runners.yaml", str(broken.bad_line)] for name in COMMANDS}, said
