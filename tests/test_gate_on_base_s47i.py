"""`sweepgate validate` marks each config problem BASE has too (same file, rule and message, any line), and counts
them, without dropping any or changing the exit code (real git repositories)."""

from __future__ import annotations

import re

import pytest

from conftest import FLEET_AMD, FLEET_NVIDIA

from sweepgate import cli  # noqa: E402

AMD, NVIDIA = "configs/amd-master.yaml", "configs/nvidia-master.yaml"
OLD_SLIP = ("{ tp: 8, ep: 1, kv-offloading: none", "{ tp: 8, epp: 1, kv-offloading: none")  # in AMD: base's
NEW_SLIP = ("{ tp: 8,", "{ tpp: 8,")  # in NVIDIA: the change's


@pytest.fixture
def repo(repo_outside_actions):
    """main holds a problem in the AMD config; branch pr, off it, moves that problem down three lines
    (its line shifts, its key path does not) and brings one of its own into the NVIDIA config."""
    r = repo_outside_actions
    assert OLD_SLIP[0] in FLEET_AMD
    r.commit({AMD: FLEET_AMD.replace(*OLD_SLIP)}, "main: a slip already merged")
    r.git("checkout", "-q", "-b", "pr")
    r.commit({AMD: "# moved\n# down\n# three lines\n" + FLEET_AMD.replace(*OLD_SLIP),
              NVIDIA: FLEET_NVIDIA.replace(*NEW_SLIP, 1)}, "pr: a slip of its own")
    return r


def run(capsys, *argv):
    rc = cli.main(["validate", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def test_a_problem_already_on_the_base_is_marked_and_a_new_one_is_not(repo, capsys):
    rc, out, err = run(capsys, "--base-ref", "main", "--head-ref", "pr")
    assert rc == 1, out + err
    lines = err.splitlines()
    old = [x for x in lines if x.startswith(f"{AMD}:")]
    new = [x for x in lines if x.startswith(f"{NVIDIA}:")]
    assert len(old) == 1 and len(new) == 1 and len(lines) == 2, err
    assert re.match(rf"{AMD}:16:\d+: .*'epp'.*; .* \(also on main\)$", old[0]), old  # line 13 on main
    assert "also on" not in new[0] and "'tpp'" in new[0], new
    assert "1 of 2 problems was already on main; 1 is new" in out.splitlines(), out


def test_nothing_is_marked_when_every_problem_is_the_change_s(repo, capsys):
    """The same slip, made by the change where main has it mended, is the change's own."""
    repo.git("checkout", "-q", "main")
    repo.commit({AMD: FLEET_AMD}, "main: the slip mended")
    repo.git("checkout", "-q", "-b", "pr2")
    repo.commit({AMD: FLEET_AMD.replace(*OLD_SLIP), NVIDIA: FLEET_NVIDIA.replace(*NEW_SLIP, 1)}, "pr2: two slips")
    rc, out, err = run(capsys, "--base-ref", "main", "--head-ref", "pr2")
    assert rc == 1 and "also on" not in err and len(err.splitlines()) == 2, err
    assert "0 of 2 problems were already on main; 2 are new" in out.splitlines(), out


def test_a_staged_check_names_the_upstream_it_compared_with(repo, capsys):
    """--staged finds its base itself (the merge-base with main), and says which."""
    rc, out, err = run(capsys, "--staged")
    assert rc == 1, out + err
    assert [x.endswith("(also on main)") for x in err.splitlines()] == [True, False], err
    assert "1 of 2 problems was already on main; 1 is new" in out.splitlines(), out


def test_a_refusal_of_the_changelog_alone_asks_nothing_of_the_base(repo, capsys, monkeypatch):
    """No config problem: no base configs are read, no count is printed."""
    from sweepgate.core import configgate

    def asked(*_):
        raise AssertionError("BASE's configs were checked for a refusal of the changelog alone")

    monkeypatch.setattr(configgate, "also_on_base", asked)
    repo.git("checkout", "-q", "main")
    repo.commit({AMD: FLEET_AMD}, "main: the slip mended")
    base = repo.head()
    repo.commit_changelog(repo.read().decode() + "\n\n- not an entry\n")
    rc, out, err = run(capsys, "--base-ref", base, "--head-ref", "HEAD")
    assert rc == 1 and "also on" not in err, err
    assert "already on" not in out, out
