"""Wording leftovers (s31g): `ci row-env --tools DIR` and `ci split --runners DIR` whose `configs/runners.yaml`
is a folder (or a symbolic link to nothing) said "no configs/runners.yaml in this folder", at DIR: they now say
what stands there, at it (`it is a folder, not a file`), with the flag's own fix. Real folders and links,
`sweepgate` as a real process."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

from test_worktree_reads_nu32 import sweepgate  # noqa: E402  (the command as a process, from a folder)


@pytest.mark.parametrize("argv, flag, fix", [
    (["ci", "row-env", "--row", "{}", "--runner-name", "r_0", "--tools", "main"], "--tools",
     "pass main's checkout (the folder holding benchmarks/ and configs/runners.yaml)"),
    (["ci", "split", "--matrix", "m.json", "--runners", "main"], "--runners",
     "pass the default branch's checkout (every row's runner must be listed there)"),
], ids=["row-env", "split"])
@pytest.mark.parametrize("kind", ["folder", "link to nothing"])
def test_a_checkout_whose_runners_file_is_a_folder_or_a_dangling_link_says_so(tmp_path, argv, flag, fix, kind):
    (tmp_path / "m.json").write_text('{"single_node": {}, "multi_node": {}}')
    (tmp_path / "main/configs").mkdir(parents=True)
    if kind == "folder":
        (tmp_path / "main/configs/runners.yaml").mkdir()
        said = "it is a folder, not a file"
    else:
        (tmp_path / "main/configs/runners.yaml").symlink_to("gone.yaml")
        said = "it is a symbolic link to gone.yaml, which does not exist"
    proc = sweepgate(tmp_path, *argv)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.splitlines() == [f"main/configs/runners.yaml: {flag}: {said}; {fix}"], proc.stderr
