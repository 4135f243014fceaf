"""New-user review (s32g): a `ci` command whose output file is a folder names the file it writes.

`ci row-env --output DIR` (or a `$GITHUB_ENV` that is a folder) said `point $GITHUB_OUTPUT /
$GITHUB_STEP_SUMMARY (or --output) at a writable file`: row-env writes neither.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

ROW = {"image": "vllm/vllm-openai:v0.11.0", "model": "m/M", "model-prefix": "dsr1", "precision": "fp8",
       "framework": "vllm", "runner": "cluster:b300-nv", "tp": 8, "ep": 1, "pp": 1, "dcp-size": 1,
       "pcp-size": 1, "dp-attn": False, "spec-decoding": "none", "conc": 4, "isl": 1024, "osl": 1024,
       "max-model-len": 2304, "exp-name": "dsr1_1k1k"}


def _ci(tmp_path: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full.update({"PYTHONPATH": str(ROOT / "utils"), **env})
    return subprocess.run([sys.executable, "-m", "sweepgate", "ci", *args], cwd=tmp_path, env=full,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("by_flag", [True, False])
def test_row_env_into_a_folder_names_github_env_or_its_flag(tmp_path, by_flag):
    folder = tmp_path / "envdir"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = {"ROW": json.dumps(ROW), "RUNNER_NAME": "b300-nv_00"}
    args = ["row-env", "--output", str(folder)] if by_flag else ["row-env"]
    if not by_flag:
        env["GITHUB_ENV"] = str(folder)
    proc = _ci(tmp_path, env, *args)
    assert proc.returncode == 1 and proc.stdout == "", proc.stderr
    (line,) = proc.stderr.splitlines()
    told = "--output" if by_flag else "$GITHUB_ENV"
    assert line == f"{folder}: {told}: is a folder, not a file; point {told} at a writable file", line


def test_split_into_a_folder_names_github_output(tmp_path):
    folder = tmp_path / "outdir"
    folder.mkdir()
    matrix = tmp_path / "m.json"
    matrix.write_text(json.dumps({"single_node": {"fixed-seq-len": [ROW]}}))
    proc = _ci(tmp_path, {"GITHUB_OUTPUT": str(folder)}, "split", "--matrix", str(matrix))
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line == f"{folder}: $GITHUB_OUTPUT: is a folder, not a file; point $GITHUB_OUTPUT at a writable file", line


@pytest.mark.parametrize("args", [["split", "--matrix", "m.json"], ["reuse", "--matrix", "m.json", "--out", "o.json",
                                                                     "--run-id", "7"],
                                  ["row-env", "--row-id", "fixed/0", "--matrix", "m.json", "--output", "-"]])
def test_an_empty_matrix_file_is_said_to_be_empty(tmp_path, args):
    """`sweepgate matrix ... > m.json` that refused the change leaves m.json empty; `ci split --matrix m.json`
    then said `m.json:1:1: matrix is not valid JSON: Expecting value; check the file`."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "m.json").write_text("")
    proc = _ci(tmp_path, {"RUNNER_NAME": "b300-nv_00"}, *args)
    assert proc.returncode == 1 and proc.stdout == "", proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line == ("m.json: matrix is empty; pass the matrix JSON the previous step wrote (`sweepgate matrix "
                    "... > m.json` leaves the file empty when it refuses the change)"), line
    assert not (tmp_path / "o.json").exists()


def test_a_keys_from_that_is_no_repository_is_told_at_its_flag(tmp_path):
    """`ci split --job-context c.json --keys-from /tmp` said `/tmp is not inside a git repository; cd into a clone
    of your benchmark repository ... and run sweepgate there`: the flag names the checkout, no cd mends it."""
    repo, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    repo.mkdir()
    elsewhere.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    matrix = repo / "m.json"
    matrix.write_text(json.dumps({"single_node": {"fixed-seq-len": [ROW]}}))
    proc = _ci(repo, {}, "split", "--matrix", str(matrix), "--job-context", "c.json", "--keys-from", str(elsewhere),
               "--output", "out.txt")
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line == (f"{elsewhere}: --keys-from: {elsewhere} is not inside a git repository; pass the checkout "
                    "holding the matrix's head revision (the default, ., is the current folder's)"), line
    assert not (repo / "c.json").exists() and not (repo / "out.txt").exists()
