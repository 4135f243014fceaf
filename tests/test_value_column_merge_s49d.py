"""A field a config takes through a merge key (`<<: *base`, `<<: [*a, *b]`), which master configs may hold (read as
the reference's ``yaml.safe_load`` reads them): the position index held it only under the `<<` key, so a problem about
its value (a misspelt runner the config inherits) stood at the config key's line, column 1, not at the value, and
an inherited field the config overrides stood at the override. Now a merged field stands where its text is, as a
path through an alias does (hunt 16), the config's own keys and the first of several merged mappings winning, as
PyYAML's merge takes them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.test_new_user import ROOT, git
from sweepgate.commands import example
from sweepgate.core.load import YamlDoc, at_value

TEXT = """a:
  <<: &base
    image: x
    runner: r1
  model: m
b:
  <<: [*base, {runner: r2, model: m2, precision: fp8}]
  model: m3
c:
  <<: [{runner: r3}, *base]
"""


@pytest.mark.parametrize("path, at", [
    (("a", "runner"), (4, 13)),  # a's own merge
    (("b", "runner"), (4, 13)),  # the first mapping merged wins
    (("b", "image"), (3, 12)),
    (("b", "precision"), (7, 50)),
    (("b", "model"), (8, 10)),  # its own key wins
    (("c", "runner"), (10, 17)),
    (("c", "image"), (3, 12)),
])
def test_a_merged_field_stands_at_its_value(path, at):
    assert YamlDoc("f.yaml", TEXT, None).locate(at_value(path)) == at


AGENTIC = "dsv4-fp4-mi355x-vllm-agentic-mtp"  # configs/amd-master.yaml
RUNNER = "  runner: cluster:mi355x-amds\n"


def test_plan_says_a_merged_misspelt_runner_at_the_label(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    example.build_repo(str(repo))
    path = repo / "configs/amd-master.yaml"
    text = path.read_text()
    at = text.index(RUNNER, text.index(f"\n{AGENTIC}:\n"))
    path.write_text(text[:at] + "  <<: { runner: cluster:mi355x-new }\n" + text[at + len(RUNNER):])
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
    col = len("  <<: { runner: ") + 1
    assert proc.returncode == 1 and said.startswith(f"configs/amd-master.yaml:{line}:{col}: runner "), said
    assert path.read_text().splitlines()[line - 1][col - 1:].startswith("cluster:mi355x-new")


def test_mappings_merged_again_and_again_are_indexed_once_each():
    """Each mapping merged under a path is walked once (b0c6c1ca walked it again for each merge naming it, so 22
    mappings each merging the one before twice took 2**22 walks, where PyYAML builds the file at once); a mapping
    that merges itself ends."""
    import signal

    from sweepgate.core.load import position_index

    text = "a0: &a0 {k: 1}\n" + "".join(f"a{i}: &a{i} {{<<: [*a{i - 1}, *a{i - 1}], k{i}: 1}}\n" for i in range(1, 40))

    def too_long(*_):  # a guard against a hang, not a speed goal
        raise TimeoutError("still running after 60 s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(60)
    try:
        index = position_index(text)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert index[at_value(("a39", "k"))] == (1, 13) and index[at_value(("a39", "k38"))] == (39, 35)
    assert position_index("a: &a {<<: *a, k: 1}\n")[at_value(("a", "k"))] == (1, 19)
