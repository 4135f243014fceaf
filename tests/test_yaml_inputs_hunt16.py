"""Bad input hunt 16: YAML that hung or met an internal error in `matrix`, `validate` and `plan`
(real git repositories, the real command line)."""

from __future__ import annotations

import re

import pytest

from conftest import CHANGELOG, FLEET_NVIDIA, RUNNERS, appended_entry

from sweepgate import cli  # noqa: E402

NVIDIA = "configs/nvidia-master.yaml"
ENTRY = appended_entry("5")
# A "billion laughs": 200 bytes whose aliases expand to 9**9 values.
BOMB = "".join(f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi"))
BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + BOMB


@pytest.fixture
def repo(repo_outside_actions):
    return repo_outside_actions


def run(repo, capsys, command):
    extra = {"validate": ["--pr-number", "5"], "plan": ["--json"]}.get(command, [])
    rc = cli.main([command, "--base-ref", repo.base, "--head-ref", repo.head(), *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return rc, out, err


@pytest.mark.parametrize("command", ["matrix", "validate", "plan"])
def test_an_alias_bomb_in_a_master_config_is_refused_at_its_first_alias(repo, capsys, command):
    """Hunt 16: a master config (read as the reference reads it, aliases allowed) ending in a
    billion-laughs block hung every command (the schema check and its messages walked 9**9 values)."""
    import signal

    def too_long(*_):
        raise TimeoutError("still running after 60 s")

    repo.commit({NVIDIA: FLEET_NVIDIA + BOMB, "perf-changelog.yaml": CHANGELOG + ENTRY})
    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(60)
    try:
        rc, out, err = run(repo, capsys, command)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    line = FLEET_NVIDIA.count("\n") + 2
    assert rc == 1, out
    assert re.search(rf"^{NVIDIA}:{line}:8: its aliases expand to more than 1,000,000 values \(an alias bomb\); ",
                     err, re.M), err


@pytest.mark.parametrize("command", ["matrix", "validate", "plan"])
@pytest.mark.parametrize("where", [NVIDIA, "configs/runners.yaml", "perf-changelog.yaml"])
@pytest.mark.parametrize("digits", [5000, 400])
@pytest.mark.parametrize("fast", [False, True], ids=["pyyaml", "rapidyaml"])
def test_an_integer_of_5000_digits_is_refused_where_it_stands(repo, capsys, monkeypatch, command, where, digits,
                                                               fast):
    """Hunt 16: "internal error: ValueError: Exceeds the limit (4300 digits) for integer string
    conversion" from PyYAML's int constructor, in any of the three files. New user 16: of 400 digits,
    in a master config of 16 blocks or more (read by rapidyaml where plain), it was taken, and the
    schema's refusal quoted all 400 of them."""
    from sweepgate.core import load

    if fast:  # a real master config has hundreds of blocks; the test fleet has a few
        monkeypatch.setattr(load, "FAST_YAML", 1)
    huge = "9" * digits
    files = {"perf-changelog.yaml": CHANGELOG + ENTRY}
    if where == NVIDIA:
        files[NVIDIA] = FLEET_NVIDIA.replace("{ tp: 8,", f"{{ tp: {huge},", 1)
        text = files[NVIDIA]
    elif where == "perf-changelog.yaml":
        files[where] = CHANGELOG + ENTRY.replace('"Bump"\n', f'"Bump"\n  pr-number: {huge}\n')
        text = files[where]
    else:
        files[where] = RUNNERS + f"extra: {huge}\n"
        text = files[where]
    repo.commit(files)
    rc, out, err = run(repo, capsys, command)
    at = text.index(huge)
    assert rc == 1, out
    assert f"{where}:{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}: an integer of {digits} " \
           "digits is not a finite number a field takes; " in err, err


@pytest.mark.parametrize("tail", ["holder: &self [1, *self]\n",
                                  "deep: &deep " + "[" * 900 + "1" + "]" * 900 + "\nagain: *deep\n"])
def test_a_value_holding_itself_or_nested_900_deep_behind_an_alias_is_refused(repo, capsys, tail):
    """Counting what aliases expand to must neither recurse past Python's limit (900 levels are within
    PyYAML's depth limit: internal error RecursionError) nor loop forever on a value that holds itself."""
    repo.commit({NVIDIA: FLEET_NVIDIA + tail, "perf-changelog.yaml": CHANGELOG + ENTRY})
    rc, out, err = run(repo, capsys, "matrix")
    assert rc == 1 and err.startswith(f"{NVIDIA}:{FLEET_NVIDIA.count(chr(10)) + 1}:"), err


@pytest.mark.parametrize("command", ["matrix", "full-sweep"])
def test_each_schema_problem_of_a_config_is_said_once(repo, capsys, command):
    """The master schema's if/then/else repeats a config's type and its required 'multinode': a
    config that was a list, or lacked 'multinode', got each line twice."""
    repo.commit({NVIDIA: FLEET_NVIDIA + "listed: [1, 2]\nbare: {image: x}\n", "perf-changelog.yaml": CHANGELOG + ENTRY})
    argv = {"full-sweep": ["full-sweep", "--config-files", NVIDIA]}.get(command)
    if argv:
        rc = cli.main(argv)
        out, err = capsys.readouterr()
    else:
        rc, out, err = run(repo, capsys, command)
    lines = err.strip().splitlines()
    assert rc == 1 and len(lines) == len(set(lines)), err
    assert sum("listed: [1, 2] is not of type 'object'" in line for line in lines) == 1, err
    assert sum("bare: 'multinode' is a required property" in line for line in lines) == 1, err


def test_an_alias_bomb_within_one_config_block_is_refused_at_its_first_alias(repo, capsys):
    """A master config is parsed block by block (one top-level key each) when it splits so: a bomb
    whose anchors all stand in one block was never counted, so it was checked value by value (and
    its messages held its expansion) instead of refused."""
    inner = "bomb:\n" + "".join(f"  {line}" for line in BOMB.splitlines(keepends=True))
    repo.commit({NVIDIA: FLEET_NVIDIA + "\n" + inner, "perf-changelog.yaml": CHANGELOG + ENTRY})
    rc, out, err = run(repo, capsys, "matrix")
    line = FLEET_NVIDIA.count("\n") + 4
    assert rc == 1, out
    assert re.search(rf"^{NVIDIA}:{line}:10: its aliases expand to more than 1,000,000 values \(an alias bomb\); ",
                     err, re.M), err[:2000]


def test_a_path_through_an_alias_is_placed_at_the_anchored_value():
    """Every document is counted (refused as a bomb) before its positions are indexed, so the index
    walks an alias's value under each path that reaches it: a problem met through an alias is placed
    at the field it names, not at the alias."""
    from sweepgate.core.load import YamlDoc

    doc = YamlDoc("f.yaml", "ss: &ss\n  - tp: 8\n    conc: 4\ncfg:\n  search-space: *ss\n", None)
    assert doc.locate(("cfg", "search-space", 0, "conc")) == (3, 5)


def test_a_config_file_given_twice_is_said_so(repo, capsys):
    """Hunt 17: `full-sweep --config-files X X` said each key of X 'is also defined in X'."""
    rc = cli.main(["full-sweep", "--config-files", NVIDIA, NVIDIA])
    out, err = capsys.readouterr()
    assert rc == 1 and out == "", out
    assert err == f"{NVIDIA}: this config file is given more than once; pass each config file once\n", err
