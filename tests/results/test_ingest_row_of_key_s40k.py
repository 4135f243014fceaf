"""`results ingest --row ROW --config-key KEY`: a row that KEY's config could not have expanded to.

A new user's walk (s40k) ingested a dsv4 row's output under `--config-key kimik3-fp4-mi355x-vllm-agentic-mtp`:
stored under the Kimi key without a word, though the row's model, model-prefix and runner were dsv4's, so
`results compare` judged dsv4's figures against Kimi's runs. Now ingest warns in one line, naming the fields
the row and the key's config differ in, and stores all the same (as for a key in no master config: the
config may have changed since the row ran, and results are immutable). A row of one of the config's runner
nodes (`--runner-node-filter`) is the config's.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from helpers import ROOT, ROW, run_cli, show_json, vllm_output

KEY = "dsr1-fp8-b300-vllm"  # configs/nvidia-master.yaml: dsr1, fp8, vllm, cluster:b300-nv
OTHER = "kimik3-fp4-b300-vllm-agentic-dspark"  # Kimi-K3, kimik3, fp4, vllm, cluster:b300-nv
MASTER = "configs/nvidia-master.yaml"
RUNNERS = "configs/runners.yaml"
DSR1 = {**ROW, "precision": "fp8"}  # a row of KEY


def _git(cwd, *args) -> None:
    subprocess.run(["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path, db, monkeypatch):
    """A git repository with the master config, runners and changelog, a vLLM output; the working directory."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    path = tmp_path / "bench"
    (path / "configs").mkdir(parents=True)
    for name in (MASTER, RUNNERS, "perf-changelog.yaml"):
        shutil.copy(ROOT / name, path / name)
    (path / "out.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    _git(path, "init", "-q")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "configs")
    monkeypatch.chdir(path)
    return path


def _ingest(capsys, db, repo, row: dict, key: str, run_id: str = "1"):
    (repo / "row.json").write_text(json.dumps(row), encoding="utf-8")
    return run_cli(capsys, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", run_id,
                   "--ref", "refs/heads/main", "--config-key", key, "out.json")


def test_a_row_of_another_config_is_warned_and_stored(repo, db, capsys):
    rc, out, err = _ingest(capsys, db, repo, DSR1, OTHER)
    assert rc == 0, err
    assert out.splitlines()[-1].startswith("ingested 1 results (1 new)"), out
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"--config-key: warning: the --row is not a row of config key '{OTHER}' "
                               f"({MASTER}): model deepseek-ai/DeepSeek-R1-0528, model-prefix dsr1, precision fp8 "
                               "where the config says moonshotai/Kimi-K3, kimik3, fp4; stored under it all the "
                               "same"), err
    assert "pass the key of the config the row came from" in lines[0], err
    assert [r["config-key"] for r in show_json(capsys, db)] == [OTHER]  # stored all the same


def test_a_row_of_the_key_or_of_one_of_its_runner_nodes_says_nothing(repo, db, capsys):
    rc, out, err = _ingest(capsys, db, repo, DSR1, KEY)
    assert rc == 0 and err == "", err
    (repo / "out.json").write_text(json.dumps(vllm_output(output_throughput=410.0)), encoding="utf-8")
    rc, out, err = _ingest(capsys, db, repo, {**DSR1, "runner": "b300-nv_01"}, KEY, "2")  # --runner-node-filter
    assert rc == 0 and err == "", err
    (repo / "out.json").write_text(json.dumps(vllm_output(output_throughput=411.0)), encoding="utf-8")
    rc, out, err = _ingest(capsys, db, repo, {**DSR1, "runner": "cluster:mi355x-amds"}, KEY, "3")
    assert rc == 0 and err.count("\n") == 1, err
    assert ("runner cluster:mi355x-amds where the config says cluster:b300-nv (or one of its runners in "
            f"{RUNNERS})") in err, err


def test_under_github_actions_it_is_an_annotation(repo, db, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rc, _, err = _ingest(capsys, db, repo, DSR1, OTHER)
    assert rc == 0, err
    assert f"::warning title=row-not-of-config-key::--config-key: the --row is not a row of config key '{OTHER}'" \
        in err, err
