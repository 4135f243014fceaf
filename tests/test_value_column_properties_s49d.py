"""A value written after an anchor or a tag (`runner: &r mi355y`, `image: !!str x`), which master configs may hold
(read as the reference's ``yaml.safe_load`` reads them): PyYAML starts the node at its first property, so a problem
about the value (``load.at_value``) stood at the `&` or `!`, not at the value it names."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.test_new_user import ROOT, git
from sweepgate.commands import example
from sweepgate.core.load import at_value, position_index

AGENTIC = "dsv4-fp4-mi355x-vllm-agentic-mtp"  # configs/amd-master.yaml
RUNNER = "  runner: cluster:mi355x-amds\n"


@pytest.mark.parametrize("written, at", [
    ("  v: &r x\n", (2, 9)),
    ("  v: !!str x\n", (2, 12)),
    ("  v: !!str &r 'x'\n", (2, 15)),  # at its quote, as any quoted value
    ("  v: &r\n    x\n", (3, 5)),
    ("  v: &r # the anchor\n\n    x\n", (4, 5)),
    ("  v: &r { n: 1 }\n", (2, 9)),
    ("  v: &r >-\n    x\n", (3, 5)),
    ("  v: &r # the anchor\r\n    x\r\n", (3, 5)),
    ("  v: x\n", (2, 6)),  # guards: no property, as before
    ("  v: '&x'\n", (2, 6)),
])
def test_a_value_after_an_anchor_or_a_tag_stands_at_the_value(written, at):
    text = "a:\n" + written + "  w: 1\n"
    assert position_index(text)[at_value(("a", "v"))] == at


def test_plan_says_a_misspelt_runner_written_after_its_anchor_at_the_label(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    example.build_repo(str(repo))
    path = repo / "configs/amd-master.yaml"
    text = path.read_text()
    at = text.index(RUNNER, text.index(f"\n{AGENTIC}:\n"))
    path.write_text(text[:at] + "  runner: &r cluster:mi355x-new\n" + text[at + len(RUNNER):])
    with open(repo / "perf-changelog.yaml", "a") as fh:
        fh.write(f"\n- config-keys:\n    - {AGENTIC}\n  description:\n    - \"x\"\n"
                 "  pr-link: https://github.com/sweepgate/example-fleet/pull/9\n")
    git(repo, "commit", "-qam", "change")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["PYTHONPATH"] = str(ROOT / "utils")
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "plan", "--base-ref", "HEAD~1", "--head-ref", "HEAD"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    line = text[:at].count("\n") + 1
    (said,) = [ln for ln in proc.stderr.splitlines() if "'cluster:mi355x-new' has no hardware entry" in ln]
    col = len("  runner: &r ") + 1
    assert proc.returncode == 1 and said.startswith(f"configs/amd-master.yaml:{line}:{col}: runner "), said
    assert path.read_text().splitlines()[line - 1][col - 1:].startswith("cluster:mi355x-new")
