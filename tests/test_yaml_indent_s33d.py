"""A maintainer who indents a changelog or config line wrongly is told the indents that would do (s33d).

libyaml's `did not find expected key` and `did not find expected '-' indicator` were passed on with
"fix the YAML syntax at this position": the mistake named, not the fix. Each case runs `sweepgate` as a
real process in a real git repository, from its configs/ folder, as a maintainer types it."""

from __future__ import annotations

import pytest

from conftest import CHANGELOG, FLEET_NVIDIA, appended_entry
from test_leftovers_s31i import annotations, sweepgate

ENTRY = appended_entry("XXX")
FIRST = CHANGELOG.count("\n") + 2  # the appended entry's `- config-keys:` line


def _validate(make_repo, changelog: str, **env: str):
    repo = make_repo()
    repo.write("perf-changelog.yaml", changelog)
    return sweepgate(repo.path / "configs", "validate", "--staged", **env)


def test_a_key_one_space_too_deep_is_told_the_indents_above_it(make_repo):
    proc = _validate(make_repo, CHANGELOG + ENTRY.replace("\n  description:", "\n   description:"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        f"perf-changelog.yaml:{FIRST + 2}:4: invalid YAML: did not find expected key: this line is indented "
        "3 spaces, and the blocks open above it are indented 0, 2 and 4; indent it as the block it belongs "
        "to: 0, 2 or 4 spaces"], proc.stderr


@pytest.mark.parametrize("indent", [0, 4], ids=["at the list's column", "at the items' column"])
def test_a_key_that_left_its_entry_is_told_to_start_an_item_or_line_up_with_the_keys(make_repo, indent):
    proc = _validate(make_repo, CHANGELOG + ENTRY.replace("\n  pr-link", "\n" + " " * indent + "pr-link"),
                     GITHUB_ACTIONS="true")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    said = f"perf-changelog.yaml:{FIRST + 4}:{indent + 1}: invalid YAML: did not find expected '-' indicator: " \
           f"at {indent} spaces this line is in a list, whose items start with '- '; start a new item with " \
           "'- ', or indent it 2 spaces, as the keys above it"
    assert said in proc.stderr.splitlines(), proc.stderr
    assert f"::error file=perf-changelog.yaml,line={FIRST + 4}::{said.split(': ', 1)[1]}" in annotations(proc), \
        proc.stderr


def test_a_list_item_left_of_its_key_is_told_it_may_go_under_the_key(make_repo):
    proc = _validate(make_repo, CHANGELOG + ENTRY.replace('    - "Bump"', ' - "Bump"'))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (f"perf-changelog.yaml:{FIRST + 3}:2: invalid YAML: did not find expected '-' indicator: this line "
            "is indented 1 space, and the blocks open above it are indented 0 and 2; indent it as the block it "
            "belongs to: 0 or 2 spaces, or more than 2 to put it under the key above") in proc.stderr, proc.stderr


def test_a_master_config_key_indented_under_the_value_above_is_told_to_line_up_with_it(make_repo):
    """One space deeper after `model-prefix: dsr1`, `runner: b300` reads as more of `dsr1`: libyaml says
    only that a mapping value is not allowed there."""
    repo = make_repo()
    repo.write("configs/nvidia-master.yaml", FLEET_NVIDIA.replace("\n  runner: b300", "\n   runner: b300", 1))
    proc = sweepgate(repo.path / "configs", "full-sweep")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert ("configs/nvidia-master.yaml:5:10: invalid YAML: mapping values are not allowed in this context: "
            "this line is indented 3 spaces, more than the key above it (2), so it reads as more of that key's "
            "value; indent the two keys alike: this one 2 spaces, as the key above, or that one 3, as this one"
            ) in proc.stderr, proc.stderr
