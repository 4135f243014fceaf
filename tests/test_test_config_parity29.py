"""`generate_sweep_configs.py test-config` against the reference's on the inputs a differential
run (testcfg29: corpus commits and synthetic repositories) found them to disagree on. Each test
runs the entry point as a process in a small repository of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOTH = ["--config-files", "configs/nvidia-master.yaml", "configs/amd-master.yaml"]


def generate(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    return subprocess.run([sys.executable, str(ROOT / "utils" / "generate_sweep_configs.py"), "test-config", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("text, at", [("", "1:1"), ("# the AMD recipes moved to nvidia-master.yaml\n", "1:1"),
                                      ("~\n", "1:1"), ("null\n", "1:1"), ("---\n", "2:1"), ("\n\n", "1:1")],
                         ids=["empty", "comments", "tilde", "null", "document-start", "blank"])
def test_an_empty_master_config_file_is_refused(make_repo, text, at):
    """testcfg29: an empty (or comment-only, or null) master config named by --config-files is no
    mapping of config keys, and the reference refuses it whatever keys are asked for; test-config
    read it as no configs and printed the other file's rows."""
    repo = make_repo(files={"configs/amd-master.yaml": text})
    r = generate([*BOTH, "--config-keys", "dsr1-fp4-b300-vllm"], repo.path)
    assert r.returncode == 1 and not r.stdout and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines() == [
        f"configs/amd-master.yaml:{at}: a master config file must be a mapping of config keys, and this one is "
        "empty; write 'config-key: {image: ..., ...}' entries, or leave the file out"], r.stderr


def test_a_master_config_file_of_an_empty_mapping_has_no_keys(make_repo):
    """`{}` is a mapping (of no keys): the reference reads it so, and so does test-config."""
    repo = make_repo(files={"configs/amd-master.yaml": "{}\n"})
    r = generate([*BOTH, "--config-keys", "dsr1-fp4-b300-vllm", "--no-evals"], repo.path)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert [row["conc"] for row in json.loads(r.stdout)] == [4, 8, 16]
