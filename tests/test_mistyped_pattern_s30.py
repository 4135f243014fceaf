"""A --config-keys pattern that matches no config key (a mistyped word, ``dsv4-fp4-*-vllmm``) was told only
"check the key names in configs/", while the changelog's wildcard so mistyped is told the pattern put right
(``core/keypatterns.py`` ``near_wildcard``, which both now share). Each test runs the command as a user does:
a process of the entry point, from a subfolder of a repository of the example fleet."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECK = "check the key names in configs/"


def run(entry: list[str], args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["PYTHONPATH"] = str(ROOT / "utils")
    return subprocess.run([sys.executable, *entry, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def subfolder(make_repo) -> Path:
    where = make_repo().path / "benchmarks" / "single_node"
    where.mkdir(parents=True)
    return where


@pytest.mark.parametrize("pattern, fix", [
    ("dsr1-fp4-*-vllmm", "did you mean 'dsr1-fp4-*-vllm', which matches dsr1-fp4-b300-vllm?"),
    ("dsr1-fp?-b300-vllmm", "did you mean 'dsr1-fp?-b300-vllm', which matches dsr1-fp4-b300-vllm?"),
    ("DSR1-fp[48]-*", "did you mean 'dsr1-fp[48]-*', which matches dsr1-fp4-b300-vllm, dsr1-fp4-b300-sglang?"),
    ("dsr1-fp4-b300-sglang-*", f"the nearest keys are dsr1-fp4-b300-sglang, dsr1-fp4-b300-vllm; {CHECK}"),
    ("gpt-*", CHECK),  # near nothing: as before
], ids=["word", "question-mark", "class-and-case", "nearest-keys", "nothing-near"])
def test_test_config_names_the_pattern_put_right(subfolder, pattern, fix):
    r = run([str(ROOT / "utils" / "generate_sweep_configs.py"), "test-config"], ["--config-keys", pattern], subfolder)
    assert r.returncode == 1 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines() == [f"--config-keys: pattern '{pattern}' matches no config key; {fix}"], r.stderr


@pytest.mark.parametrize("command", [["test-config"], ["preflight"], ["rehearse", "--exp-name", "dsr1_1k1k"]])
def test_every_command_taking_config_keys_says_it_alike(subfolder, command):
    r = run(["-m", "sweepgate"], [*command, "--config-keys", "kimi3-*"], subfolder)
    assert r.returncode == 1 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines() == ["--config-keys: pattern 'kimi3-*' matches no config key; did you mean "
                                     "'kimik3-*', which matches kimik3-fp4-mi355x-vllm-agentic?"], r.stderr
