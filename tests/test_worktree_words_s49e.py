"""A repository with no master config is told so in words (s49e, new-user walk): `test-config` and `full-sweep`, which
read the working tree, said `configs: no configs/*-master.yaml at WORKTREE`, the work tree's internal label printed
as if it were a commit; they say `in the working tree`, as validate --staged does of its changelog."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "utils"))

from sweepgate import cli  # noqa: E402


@pytest.mark.parametrize("argv", [["test-config", "--config-keys", "x"], ["full-sweep"]])
def test_no_master_config_in_the_work_tree_is_said_in_words(tmp_path, monkeypatch, capsys, argv):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    rc = cli.main(argv)
    err = capsys.readouterr().err
    assert rc == 1, err
    assert err.splitlines() == ["configs: no configs/*-master.yaml in the working tree; add at least one master "
                                "config file"], err
