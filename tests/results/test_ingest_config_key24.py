"""`results ingest --row ... --config-key KEY`: a key in none of the repository's master configs.

A new user's typo (`dsr1-fp8-b300-vlm` for `dsr1-fp8-b300-vllm`) was stored without a word;
`results compare` then found no baseline for those points, called each one new, and
`--fail-on-regression` passed. Now ingest warns (one line, the nearest key named) and still stores:
a store may hold results of keys since renamed or removed. Outside a repository there is no check.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from helpers import ROOT, ROW, run_cli, show_json, vllm_output

KEY = "dsr1-fp8-b300-vllm"  # a key of configs/nvidia-master.yaml
TYPO = "dsr1-fp8-b300-vlm"
MASTER = "configs/nvidia-master.yaml"


def _git(cwd, *args) -> None:
    subprocess.run(["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   check=True, capture_output=True)


def _folder(path, repo: bool):
    """A benchmark folder with a master config and a changelog (committed in a git repository when
    ``repo``), a matrix row and one vLLM output."""
    (path / "configs").mkdir(parents=True)
    shutil.copy(ROOT / MASTER, path / MASTER)
    shutil.copy(ROOT / "perf-changelog.yaml", path / "perf-changelog.yaml")
    # a row of KEY (ROW's fp4 is no row of it: s40k warns of that)
    (path / "row.json").write_text(json.dumps({**ROW, "precision": "fp8"}), encoding="utf-8")
    (path / "out.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    if repo:
        _git(path, "init", "-q")
        _git(path, "add", "-A")
        _git(path, "commit", "-q", "-m", "configs")
    return path


@pytest.fixture
def here(tmp_path, db, monkeypatch):
    """The working directory: no repository above tmp_path counts (the machine's own)."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    return tmp_path


def _ingest(capsys, db, folder, key, run_id="1", *extra):
    return run_cli(capsys, "results", "ingest", "--db", db, "--row", str(folder / "row.json"), "--run-id", run_id,
                   "--ref", "refs/heads/main", "--config-key", key, *extra, str(folder / "out.json"))


def test_a_key_in_no_master_config_is_warned_with_the_nearest_and_stored(here, db, capsys, monkeypatch):
    repo = _folder(here / "bench", repo=True)
    monkeypatch.chdir(repo / "configs")  # from anywhere in the repository
    rc, out, err = _ingest(capsys, db, repo, TYPO)
    assert rc == 0, err
    assert "ingested 1 results (1 new)" in out
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"--config-key: warning: config key '{TYPO}' is in none of this repository's "
                               f"master configs ({MASTER})"), err
    assert f"did you mean '{KEY}'?" in lines[0] and "pass the key as the master config spells it" in lines[0], err
    assert [r["config-key"] for r in show_json(capsys, db)] == [TYPO]  # stored all the same
    # the key as the master config spells it: no word (a run of its own figures: one output given two run ids is
    # warned of, s33g)
    (repo / "out.json").write_text(json.dumps(vllm_output(output_throughput=410.0)), encoding="utf-8")
    rc, _, err = _ingest(capsys, db, repo, KEY, "2")
    assert rc == 0 and err == "", err


def test_outside_a_repository_the_key_is_not_checked(here, db, capsys, monkeypatch):
    folder = _folder(here / "bench", repo=False)  # configs/ and all, but no git repository
    monkeypatch.chdir(folder)
    rc, out, err = _ingest(capsys, db, folder, TYPO)
    assert rc == 0 and err == "", err
    assert "ingested 1 results (1 new)" in out
    _git(folder, "init", "-q")  # the same folder made a repository: now it is checked
    rc, _, err = _ingest(capsys, db, folder, TYPO, "2")
    assert rc == 0 and f"config key '{TYPO}' is in none" in err, err


def test_under_github_actions_the_warning_is_an_annotation(here, db, capsys, monkeypatch):
    repo = _folder(here / "bench", repo=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rc, _, err = _ingest(capsys, db, repo, TYPO)
    assert rc == 0, err
    assert (f"::warning title=unknown-config-key::--config-key: config key '{TYPO}' is in none of this "
            f"repository's master configs ({MASTER})") in err, err
    assert err.count("\n") == 2, err  # the line, then its annotation


def test_the_configs_are_read_once_per_ingest_not_per_file(here, db, capsys, monkeypatch):
    from sweepgate.core import load

    repo = _folder(here / "bench", repo=True)
    monkeypatch.chdir(repo)
    for n in range(3):
        (repo / f"out{n}.json").write_text(json.dumps(vllm_output(date=f"20260101-12000{n}")), encoding="utf-8")
    calls = []
    real = load.master_keys_in
    monkeypatch.setattr(load, "master_keys_in", lambda git, *a: calls.append(git) or real(git, *a))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", "1",
                           "--ref", "refs/heads/main", "--config-key", TYPO, *(f"out{n}.json" for n in range(3)))
    assert rc == 0 and "ingested 3 results (3 new)" in out, err
    assert len(calls) == 1 and err.count(f"config key '{TYPO}'") == 1, err
