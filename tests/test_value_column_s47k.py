"""A bad scalar value is placed at the value's column, not its key's (s47k).

`validate` said a bad pr-link at `perf-changelog.yaml:N:3`, the column of `pr-link:`, and so every schema error of a
field's scalar value (`evals-only: 3`, a master config's `precision: 8`, runners' `labels: 3`), while a bad list item
already stood at the item. Now the value's column (`  pr-link: X` -> 12); an unknown field, and a missing one,
still stand at the key or the entry; `::error` annotations keep their form (file and line).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.test_new_user import ROOT, git
from sweepgate.commands import example

ENTRY = f"\n- config-keys:\n    - {example.SEED_KEY}\n  description:\n    - \"x\"\n"


@pytest.fixture()
def fleet(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    example.build_repo(str(repo))
    return repo


def _validate(repo, changelog_tail: str = "", files: dict | None = None, actions: bool = False):
    """Commit the change, run `sweepgate validate` on it; (the process, the changelog tail's first line)."""
    path = repo / "perf-changelog.yaml"
    path.write_text(path.read_text() + changelog_tail)
    for rel, (old, new) in (files or {}).items():
        (repo / rel).write_text((repo / rel).read_text().replace(old, new, 1))
    git(repo, "commit", "-q", "-am", "change")
    first = len(path.read_text().splitlines()) - changelog_tail.count("\n") + 1
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({"PYTHONPATH": str(ROOT / "utils"), **({"GITHUB_ACTIONS": "true"} if actions else {})})
    return subprocess.run([sys.executable, "-m", "sweepgate", "validate", "--base-ref", "HEAD~1", "--head-ref", "HEAD"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=120), first


def test_a_bad_pr_link_and_a_wrong_type_stand_at_their_values(fleet):
    proc, first = _validate(fleet, ENTRY + "  evals-only: 3\n  pr-link: \"https://example.com/acme/bench/pull/7\"\n")
    assert proc.returncode == 1
    assert f"perf-changelog.yaml:{first + 5}:15: evals-only: 3 is not of type 'boolean'" in proc.stderr, proc.stderr
    assert f"perf-changelog.yaml:{first + 6}:12: pr-link 'https://example.com/acme/bench/pull/7' is not a " \
           "canonical GitHub pull-request URL" in proc.stderr, proc.stderr


def test_an_unknown_field_and_an_empty_value_stand_at_their_keys(fleet):
    proc, first = _validate(fleet, ENTRY + "  pr-lnk: https://github.com/x/y/pull/1\n  pr-link:\n")
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert any(ln.startswith(f"perf-changelog.yaml:{first + 5}:3: ") and "unknown field 'pr-lnk'" in ln
               for ln in lines), proc.stderr
    assert any(ln.startswith(f"perf-changelog.yaml:{first + 6}:3: pr-link: has no value") for ln in lines), proc.stderr


def test_a_master_config_s_value_too(fleet):
    proc, _ = _validate(fleet, files={"configs/amd-master.yaml": ("  precision: fp8\n", "  precision: 8\n")})
    assert proc.returncode == 1
    line = next(ln for ln in proc.stderr.splitlines() if "precision" in ln)
    assert line.startswith("configs/amd-master.yaml:11:14: "), proc.stderr


def test_annotations_keep_their_form(fleet):
    proc, first = _validate(fleet, ENTRY + "  pr-link: https://example.com/acme/bench/pull/7\n",
                            actions=True)
    assert f"perf-changelog.yaml:{first + 5}:12: pr-link " in proc.stderr, proc.stderr
    assert f"::error file=perf-changelog.yaml,line={first + 5}::pr-link " in proc.stderr, proc.stderr
