"""A repository file typed from a subfolder is read from there (s42j, a new user's walk).

`full-sweep --config-files ../configs/x.yaml`, run from benchmarks/, was refused as "outside the repository"
though the file is inside it; so was any repository-data flag (--config-files, --runner-config,
--changelog-file) typed from where the user stands. One rule for the three now: a path that names a file
of the repository from the current folder is read as that file; else one that names it from the top, as the
reference's flags read it (`configs/x.yaml` typed in benchmarks/); a path leaving it both ways is refused.
Lines about a file typed so name it as typed; annotations keep its path from the top.
"""

from __future__ import annotations

import re

import pytest

from sweepgate.commands import example
from tests.test_new_user import sg

NVIDIA = "configs/nvidia-master.yaml"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    top = tmp_path_factory.mktemp("fleet")
    example.build_repo(str(top))
    return top


@pytest.mark.parametrize("argv", [
    ["full-sweep", "--single-node", "--config-files", f"../{NVIDIA}", "../configs/amd-master.yaml"],
    ["test-config", "--config-keys", "dsr1-fp8-b300-vllm", "--runner-config", "../configs/runners.yaml"],
    ["matrix", "--base-ref", "HEAD~1", "--head-ref", "HEAD", "--changelog-file", "../perf-changelog.yaml",
     "--config-files", f"../{NVIDIA}", "../configs/amd-master.yaml", "--runner-config", "../configs/runners.yaml"],
])
def test_a_path_typed_from_a_subfolder_is_read_from_there(repo, argv):
    here = sg(repo / "benchmarks", *argv)
    top = sg(repo, *(a.removeprefix("../") for a in argv))
    assert here.returncode == 0 and top.returncode == 0, (here.stderr, top.stderr)
    assert here.stdout == top.stdout


def test_a_path_from_the_top_is_still_read_from_the_top(repo):
    here = sg(repo / "benchmarks", "full-sweep", "--single-node", "--config-files", NVIDIA)
    assert here.returncode == 0 and here.stdout == sg(repo, "full-sweep", "--single-node", "--config-files",
                                                      NVIDIA).stdout, here.stderr


def test_a_problem_in_a_file_typed_from_a_subfolder_is_said_as_typed(repo, tmp_path):
    bad = repo / "configs" / "bad.yaml"
    bad.write_text((repo / NVIDIA).read_text().replace("tp: 8", "tp: eight"))
    try:
        proc = sg(repo / "benchmarks", "full-sweep", "--config-files", "../configs/bad.yaml", env={
            "GITHUB_ACTIONS": "true"})
    finally:
        bad.unlink()
    lines = proc.stderr.splitlines()
    said = [ln for ln in lines if not ln.startswith("::")]
    assert proc.returncode == 1 and said, proc.stderr
    assert all(re.match(r"\.\./configs/bad\.yaml:\d+:\d+: .*'eight' is not of type", ln) for ln in said), said
    assert all(ln.startswith("::error file=configs/bad.yaml,line=") for ln in lines if ln.startswith("::")), lines


def test_the_gate_says_the_changelog_as_typed(repo):
    proc = sg(repo / "configs", "validate", "--base-ref", "HEAD~1", "--head-ref", "HEAD",
              "--changelog-file", "../perf-changelog.yaml")
    assert proc.returncode == 0 and proc.stdout.startswith("../perf-changelog.yaml: ok ("), (proc.stdout, proc.stderr)


def test_a_path_outside_from_here_and_from_the_top_is_refused(repo):
    proc = sg(repo / "benchmarks", "full-sweep", "--config-files", "../../x.yaml")
    assert proc.returncode == 1 and proc.stderr == "../../x.yaml: outside the repository; pass a path inside it\n"


def test_a_flag_left_at_its_default_is_read_from_the_top(repo):
    stray = repo / "configs" / "perf-changelog.yaml"
    stray.write_text("not: a changelog\n")
    try:
        proc = sg(repo / "configs", "validate", "--base-ref", "HEAD~1", "--head-ref", "HEAD")
    finally:
        stray.unlink()
    assert proc.returncode == 0 and proc.stdout.startswith("perf-changelog.yaml: ok ("), (proc.stdout, proc.stderr)
