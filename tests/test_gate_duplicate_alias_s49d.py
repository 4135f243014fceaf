"""The gate's duplicate-key pass (``yamlsafe.duplicate_keys``) over master config blocks that use anchors and aliases,
which master configs may (they are read as the reference's ``yaml.safe_load`` reads them). It composed each changed
block and walked the nodes: a block whose alias names an anchor in another block did not compose on its own
(undefined alias), so its duplicate keys were never looked for and `validate` passed them; and a billion-laughs
block was walked value by value, so `validate` never ended (real git repositories, the real command line)."""

from __future__ import annotations

import re
import signal

import pytest

from conftest import CHANGELOG, FLEET_NVIDIA, appended_entry

from sweepgate import cli  # noqa: E402

NVIDIA = "configs/nvidia-master.yaml"
ENTRY = appended_entry("5")


@pytest.fixture
def repo(repo_outside_actions):
    return repo_outside_actions


def validate(repo, capsys):
    def too_long(*_):  # a guard against a hang, not a speed goal
        raise TimeoutError("still running after 60 s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(60)
    try:
        rc = cli.main(["validate", "--base-ref", repo.base, "--head-ref", repo.head(), "--pr-number", "5"])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return rc, out, err


def test_a_duplicate_key_in_a_block_using_another_blocks_anchor_is_refused(repo, capsys):
    text = FLEET_NVIDIA.replace("  runner: b300\n", "  runner: &r b300\n", 1).replace("  runner: b300\n",
                                                                                       "  runner: *r\n")
    text = text.replace("  precision: fp4\n  framework: sglang\n", "  precision: fp4\n  precision: fp8\n"
                        "  framework: sglang\n", 1)
    repo.commit({NVIDIA: text, "perf-changelog.yaml": CHANGELOG + ENTRY})
    rc, out, err = validate(repo, capsys)
    line = text.splitlines().index("  precision: fp8") + 1
    assert rc == 1, out + err
    assert re.search(rf"^{NVIDIA}:{line}:3: key 'precision' appears twice in one mapping \(first at line {line - 1}\)",
                     err, re.M), err


def test_an_alias_that_is_a_key_counts_as_the_anchored_key(repo, capsys):
    text = FLEET_NVIDIA.replace("  model-prefix: dsr1\n", "  &p model-prefix: dsr1\n", 1)
    text = text.replace("  precision: fp4\n  framework: vllm\n", "  precision: fp4\n  *p : dsr2\n  framework: vllm\n",
                        1)
    repo.commit({NVIDIA: text, "perf-changelog.yaml": CHANGELOG + ENTRY})
    rc, out, err = validate(repo, capsys)
    line = text.splitlines().index("  *p : dsr2") + 1
    assert rc == 1, out + err
    assert re.search(rf"^{NVIDIA}:{line}:3: key 'model-prefix' appears twice in one mapping", err, re.M), err


def test_an_alias_bomb_within_one_changed_block_is_refused_by_validate(repo, capsys):
    bomb = "  bomb:\n    a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"    {b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi"))
    text = FLEET_NVIDIA.replace("  multinode: false\n", "  multinode: false\n" + bomb, 1)
    repo.commit({NVIDIA: text, "perf-changelog.yaml": CHANGELOG + ENTRY})
    rc, out, err = validate(repo, capsys)
    line = text.splitlines().index("    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]") + 1
    assert rc == 1, out + err
    assert re.search(rf"^{NVIDIA}:{line}:\d+: its aliases expand to more than 1,000,000 values \(an alias bomb\); ",
                     err, re.M), err


def test_keys_of_a_block_are_still_told_apart_and_repeated_keys_found_at_any_depth(repo, capsys):
    """Guards: keys of nested mappings and of sibling list items are their own mappings' keys."""
    text = FLEET_NVIDIA.replace("{ tp: 4, conc-list", "{ tp: 4, tp: 2, conc-list")
    repo.commit({NVIDIA: text, "perf-changelog.yaml": CHANGELOG + ENTRY})
    rc, out, err = validate(repo, capsys)
    line = text.splitlines().index("      - { tp: 4, tp: 2, conc-list: [4, 8] }") + 1
    assert rc == 1, out + err
    assert re.findall(r"appears twice.*", err) == [f"appears twice in one mapping (first at line {line}); keep one of "
                                                   "them"], err
    assert re.search(rf"^{NVIDIA}:{line}:18: key 'tp' appears twice", err, re.M), err


def test_a_stream_of_two_documents_is_left_to_the_parser_s_refusal():
    """Guard (the events are read as the composer read them): a second document is the parser's one problem, not a
    repeated key before it, which would hide it."""
    from sweepgate.core.yamlsafe import duplicate_keys

    assert duplicate_keys("f.yaml", "a: 1\na: 2\n---\nb: 1\n", lambda n: n) == []
    assert len(duplicate_keys("f.yaml", "---\na: 1\na: 2\n", lambda n: n)) == 1  # one document, its marker written
