"""s32j: under GITHUB_ACTIONS=true, `preflight --config-keys nope-key` and `test-config --config-keys nope-key`
(and `full-sweep --runner-type nope`) exited 1, bad input, but annotated `::error title=usage::`, the title of
argparse's argument syntax (exit 2, docs/contracts.md "Exit codes"). A name of no config key or runner label is
bad input: exit 1, titled by what is wrong. Real processes in a real git repository of the example fleet."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sweepgate(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(PYTHONPATH=str(ROOT / "utils"), GITHUB_ACTIONS="true")
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("argv, title, said", [
    (["preflight", "--config-keys", "nope-key"], "unknown-config-key",
     "--config-keys: config key 'nope-key' not found; check the key names in configs/"),
    (["test-config", "--config-keys", "nope-key"], "unknown-config-key",
     "--config-keys: config key 'nope-key' not found; check the key names in configs/"),
    (["test-config", "--config-keys", "gpt-*"], "unknown-config-key",
     "--config-keys: pattern 'gpt-*' matches no config key; check the key names in configs/"),
    (["full-sweep", "--runner-type", "nope"], "unknown-runner",
     "--runner-type: unknown runner type(s): nope; use labels from configs/runners.yaml: b300, cluster:mi355x-amds"),
], ids=["preflight", "test-config", "test-config-pattern", "full-sweep-runner-type"])
def test_a_name_of_nothing_is_bad_input_not_titled_as_argument_syntax(make_repo, argv, title, said):
    r = sweepgate(argv, make_repo().path)
    assert (r.returncode, r.stdout) == (1, ""), r
    assert r.stderr.splitlines() == [said, f"::error title={title}::{said}"], r.stderr
