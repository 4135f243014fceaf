"""s42e: `rehearse`'s row-choice refusals over the configs stand at a config's block, not at a glob.

Without `--config-keys` (or with one that names several configs), `rehearse --exp-name dsr1_1k1k` expands every
config, and its refusals (`matches 12 rows ...; choose one with --conc N`, `has no row with conc 3`, `no row of
exp-name ... has tp=3`) stood at `configs/*-master.yaml`: a glob, no line, and under GitHub Actions an
annotation at no file. They now stand at the key line, in its master file, of the config that holds the first row
they are about, as they did for rows all of one config. An --exp-name no row has names no config: it is said of the
flag (`--exp-name: no row has exp-name 'nope'; pick one of: ...`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from sweepgate.commands.example import build_repo


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The example fleet's repository (what `sweepgate example --keep --no-rehearse` keeps)."""
    repo = tmp_path_factory.mktemp("example")
    build_repo(str(repo))
    return repo


def _rehearse(repo, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full.update({"PYTHONPATH": str(ROOT / "utils"), **env})
    return subprocess.run([sys.executable, "-m", "sweepgate", "rehearse", *args], cwd=repo, env=full,
                          capture_output=True, text=True, timeout=300)


def _key_at(repo, place: str) -> str:
    """The config key whose block starts at ``place`` (`configs/F.yaml:LINE`)."""
    path, line = place.rsplit(":", 1)
    return (repo / path).read_text().splitlines()[int(line) - 1].rstrip(":")


@pytest.mark.parametrize("flags, said", [
    ((), "exp-name 'dsr1_1k1k' matches 12 rows (conc "),
    (("--conc", "3"), "exp-name 'dsr1_1k1k' has no row with conc 3; pick --conc from: 4, "),
    (("--conc", "4", "--where", "tp=3"), "no row of exp-name 'dsr1_1k1k' has tp=3; its rows have tp 8"),
    (("--conc", "4", "--where", "tpp=8"), "no row of exp-name 'dsr1_1k1k' has a field 'tpp'; did you mean "),
    (("--conc", "4"), "exp-name 'dsr1_1k1k' matches 2 rows that differ in "),
])
def test_rows_of_several_configs_are_refused_at_the_block_of_the_first(example, flags, said):
    r = _rehearse(example, "--exp-name", "dsr1_1k1k", *flags)
    (line,) = r.stderr.splitlines()
    m = re.match(r"(configs/[a-z]+-master\.yaml:\d+): (.*)", line)
    assert r.returncode == 1 and m and m.group(2).startswith(said), r.stderr
    assert _key_at(example, m.group(1)) in ("dsr1-fp8-b300-vllm", "dsr1-fp8-mi355x-vllm"), line
    # under GitHub Actions, an annotation at that file and line
    r = _rehearse(example, "--exp-name", "dsr1_1k1k", *flags, GITHUB_ACTIONS="true")
    path, at = m.group(1).rsplit(":", 1)
    assert f"::error file={path},line={at}" in r.stderr and "::error::" not in r.stderr, r.stderr


def test_a_wildcard_s_rows_are_refused_at_the_block_of_the_first(example):
    r = _rehearse(example, "--config-keys", "dsr1-fp8-*", "--conc", "4")
    (line,) = r.stderr.splitlines()
    assert r.returncode == 1 and ": no row chosen: 4 rows (exp-name dsr1_1k1k, dsr1_8k1k)" in line, line
    assert _key_at(example, line.split(": ", 1)[0]).startswith("dsr1-fp8-"), line


def test_an_exp_name_no_row_has_is_said_of_the_flag(example):
    r = _rehearse(example, "--exp-name", "dsr1_1k1kk")
    assert r.returncode == 1 and r.stderr.splitlines() == [
        "--exp-name: no row has exp-name 'dsr1_1k1kk'; did you mean dsr1_1k1k, dsr1_8k1k?"], r.stderr
