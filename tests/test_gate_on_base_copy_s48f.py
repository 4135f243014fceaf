"""`sweepgate validate`'s '(also on BASE)' mark never goes on a line the change wrote: a search-space entry copied
with main's slip to the head of its list takes the original's index, so the same message, and was marked main's
while main's own, one index down, was called new (s48f review). Real git repositories."""

from __future__ import annotations

from conftest import FLEET_AMD

from sweepgate import cli  # noqa: E402

AMD = "configs/amd-master.yaml"
SLIPPED = "      - { tp: 8, epp: 1, kv-offloading: none, conc-list: [1, 4, 8] }\n"  # main's slip ('epp')


def test_a_copied_entry_with_mains_slip_is_the_change_s_own(repo_outside_actions, capsys):
    r = repo_outside_actions
    bad = FLEET_AMD.replace("{ tp: 8, ep: 1, kv-offloading: none", "{ tp: 8, epp: 1, kv-offloading: none")
    assert SLIPPED in bad
    r.commit({AMD: bad}, "main: a slip already merged")
    r.git("checkout", "-q", "-b", "pr")
    copy = SLIPPED.replace("conc-list: [1, 4, 8]", "conc-list: [16]")
    r.commit({AMD: bad.replace(SLIPPED, copy + SLIPPED)}, "pr: the entry copied above itself, slip and all")
    rc = cli.main(["validate", "--base-ref", "main", "--head-ref", "pr"])
    out, err = capsys.readouterr()
    assert rc == 1, out + err
    lines = err.splitlines()
    assert len(lines) == 2 and all(x.startswith(f"{AMD}:") for x in lines), err
    new, old = lines  # the copy (line 13, search-space[0]) above main's entry (line 14, search-space[1])
    assert new.startswith(f"{AMD}:13:") and "also on" not in new, err
    assert old.startswith(f"{AMD}:14:"), err
    # main's entry now has another index, so another message: not matched either, never the copy instead
    assert "0 of 2 problems were already on main; 2 are new" in out.splitlines(), out


def test_a_slip_on_a_line_the_change_left_alone_is_still_main_s(repo_outside_actions, capsys):
    """The guard: main's slip, its line untouched (lines added elsewhere, above and below it), stays marked."""
    r = repo_outside_actions
    bad = FLEET_AMD.replace("{ tp: 8, ep: 1, kv-offloading: none", "{ tp: 8, epp: 1, kv-offloading: none")
    r.commit({AMD: bad}, "main: a slip already merged")
    r.git("checkout", "-q", "-b", "pr")
    r.commit({AMD: "# a note\n" + bad.replace(SLIPPED, SLIPPED + "      # after it\n")}, "pr: comments")
    rc = cli.main(["validate", "--base-ref", "main", "--head-ref", "pr"])
    out, err = capsys.readouterr()
    assert rc == 1 and err.rstrip("\n").endswith("(also on main)") and len(err.splitlines()) == 1, err
    assert "1 of 1 problem was already on main; 0 are new" in out.splitlines(), out
