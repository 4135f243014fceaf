"""Expansion and plan problems about a value stand at the value, as the gate's schema errors do since s47k.

A misspelt `runner:` (no hardware entry), a runner label the base's runners file does not list, a KV-offload backend
no benchmark_lib arm knows and an estimates figure out of range were placed at the key (`runner:`'s column 3, the
backend's `name`, `default:`), or at the config key's line. They now stand where `load.at_value` says the value
starts: on the next line for a plain value written there and for a block scalar's text (`runner: >-`), at the `[` of
a flow list written on the next line; a missing or unknown field still stands at its key.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.test_new_user import ROOT, git
from sweepgate.commands import example
from sweepgate.core.load import at_value, position_index

AGENTIC = "dsv4-fp4-mi355x-vllm-agentic-mtp"  # configs/amd-master.yaml, runner at line 31
RUNNER = "  runner: cluster:mi355x-amds\n"


@pytest.fixture()
def fleet(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    example.build_repo(str(repo))
    return repo


def _sg(repo, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["PYTHONPATH"] = str(ROOT / "utils")
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=120)


def _replace_in_block(repo, rel: str, key: str, old: str, new: str) -> int:
    """Replace ``old`` (the first after config ``key``) by ``new``; the 1-based line ``old`` started on."""
    path = repo / rel
    text = path.read_text()
    at = text.index(old, text.index(f"\n{key}:\n"))
    path.write_text(text[:at] + new + text[at + len(old):])
    return text[:at].count("\n") + 1


def _commit_with_entry(repo, key: str) -> None:
    with open(repo / "perf-changelog.yaml", "a") as fh:
        fh.write(f"\n- config-keys:\n    - {key}\n  description:\n    - \"x\"\n"
                 "  pr-link: https://github.com/sweepgate/example-fleet/pull/9\n")
    git(repo, "commit", "-qam", "change")


def test_position_index_puts_a_value_written_on_the_next_line_there():
    text = ("a:\n  plain: x\n  below:\n    x\n  folded: >-\n    # not a comment here\n    x\n"
            "  literal: |  # a comment\n\n      x\n  flow:\n    [a, b]\n  empty: >\n  block:\n    - a\n")
    index = position_index(text)
    assert index[at_value(("a", "plain"))] == (2, 10)
    assert index[at_value(("a", "below"))] == (4, 5)
    assert index[at_value(("a", "folded"))] == (6, 5)  # the text, not the indicator on the key's line
    assert index[at_value(("a", "literal"))] == (10, 7)  # past the blank line
    assert index[at_value(("a", "flow"))] == (12, 5)
    assert index[at_value(("a", "empty"))] == (13, 10)  # no text: at the indicator
    assert at_value(("a", "block")) not in index  # a block list: its items stand at themselves, a problem at the key


@pytest.mark.parametrize("written, line, col", [
    ("  runner: cluster:mi355x-amdz\n", 0, 11),
    ("  runner:\n    cluster:mi355x-amdz\n", 1, 5),
    ("  runner: >-\n    cluster:mi355x-amdz\n", 1, 5),
])
def test_a_misspelt_runner_stands_at_its_value(fleet, written, line, col):
    at = _replace_in_block(fleet, "configs/amd-master.yaml", AGENTIC, RUNNER, written)
    git(fleet, "commit", "-qam", "typo")
    proc = _sg(fleet, "full-sweep")
    assert proc.returncode == 1, proc.stderr
    (said,) = [ln for ln in proc.stderr.splitlines() if "has no hardware entry" in ln]
    assert said.startswith(f"configs/amd-master.yaml:{at + line}:{col}: runner 'cluster:mi355x-amdz' "), said


def test_a_runner_label_the_base_does_not_list_stands_at_its_value(fleet):
    at = _replace_in_block(fleet, "configs/amd-master.yaml", "dsr1-fp8-mi355x-vllm", RUNNER,
                           "  runner:\n    cluster:mi355x-new\n")
    _commit_with_entry(fleet, "dsr1-fp8-mi355x-vllm")
    proc = _sg(fleet, "plan", "--base-ref", "HEAD~1", "--head-ref", "HEAD")
    assert proc.returncode == 0, proc.stderr
    (said,) = [ln for ln in proc.stderr.splitlines() if "'cluster:mi355x-new' is not in" in ln]
    assert said.startswith(f"configs/amd-master.yaml:{at + 1}:5: warning: "), said


def test_an_unknown_kv_backend_stands_at_its_name(fleet):
    old = "kv-offload-backend: { name: lmcache,"
    at = _replace_in_block(fleet, "configs/amd-master.yaml", AGENTIC, old, "kv-offload-backend: { name: lmcachx,")
    _commit_with_entry(fleet, AGENTIC)
    proc = _sg(fleet, "plan", "--base-ref", "HEAD~1", "--head-ref", "HEAD")
    assert proc.returncode == 0, proc.stderr
    (said,) = [ln for ln in proc.stderr.splitlines() if "'lmcachx' has no arm" in ln]
    line = (fleet / "configs/amd-master.yaml").read_text().splitlines()[at - 1]
    assert said.startswith(f"configs/amd-master.yaml:{at}:{line.index('lmcachx') + 1}: warning: "), said


def test_an_estimate_out_of_range_stands_at_its_value_an_unknown_field_at_its_key(fleet):
    (fleet / "configs/estimates.yaml").write_text("minutes-per-job:\n  default:\n    -5\nspare: 1\n")
    git(fleet, "add", "configs/estimates.yaml")
    _commit_with_entry(fleet, example.SEED_KEY)
    proc = _sg(fleet, "plan", "--base-ref", "HEAD~1", "--head-ref", "HEAD")
    assert proc.returncode == 1, proc.stderr
    assert "configs/estimates.yaml:3:5: minutes-per-job.default must be" in proc.stderr, proc.stderr
    assert "configs/estimates.yaml:4:1: unknown field 'spare'" in proc.stderr, proc.stderr


AGENTIC_CONFIG = """k:
  image: i
  model: m
  model-prefix: p
  precision: fp8
  framework: vllm
  runner:
    r
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.8
      search-space:
      - { tp: 2, kv-offloading: none, conc-list: [4] }
      - { tp: 16, kv-offloading: dram, conc-list: [4] }
"""


@pytest.mark.parametrize("facts, rule, at", [
    ({"available-cpu-dram-mib": 1000, "gpus-per-node": 8}, "topology-fits-node", (15, 15)),  # the point's tp
    ({"available-cpu-dram-mib": 1000}, "runner-hardware", (8, 5)),  # a fact its runner lacks: at the runner
])
def test_an_expansion_problem_stands_at_the_value_it_is_about(facts, rule, at):
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.expand import Where, expand_config
    from sweepgate.core.load import YamlDoc
    from sweepgate.core.pyyaml import yaml

    doc = YamlDoc("configs/x-master.yaml", AGENTIC_CONFIG, yaml.safe_load(AGENTIC_CONFIG))
    with pytest.raises(SweepgateError) as err:
        list(expand_config("k", doc.data["k"], {"hardware": {"r": facts}}, where=Where(doc, "k")))
    (diag,) = err.value.diagnostics
    assert (diag.rule, diag.line, diag.col) == (rule, *at), diag


def test_an_estimates_table_that_is_no_mapping_stands_at_its_value(fleet):
    (fleet / "configs/estimates.yaml").write_text("minutes-per-job: 30\n")
    git(fleet, "add", "configs/estimates.yaml")
    _commit_with_entry(fleet, example.SEED_KEY)
    proc = _sg(fleet, "plan", "--base-ref", "HEAD~1", "--head-ref", "HEAD")
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("configs/estimates.yaml:1:18: configs/estimates.yaml needs a 'minutes-per-job'"), \
        proc.stderr
