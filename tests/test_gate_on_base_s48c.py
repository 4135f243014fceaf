"""`sweepgate validate` marks as `(also on BASE)` the duplicate keys BASE has too, though their messages quote line
numbers (which move) and a key repeated in one mapping names no config: they are matched with line numbers set
aside, by the config key whose block holds them. A duplicate the change adds, even of the same key, stays new."""

from __future__ import annotations

import pytest

from conftest import FLEET_AMD, FLEET_NVIDIA

from sweepgate import cli  # noqa: E402

AMD, NVIDIA = "configs/amd-master.yaml", "configs/nvidia-master.yaml"
MODEL = "  model: moonshotai/Kimi-K3\n"
TWICE = FLEET_AMD.replace(MODEL, MODEL + MODEL, 1)  # main: a key given twice in one mapping
BUMP = ("vllm-openai-rocm:v0.12.0", "vllm-openai-rocm:v0.12.1")  # the change's edit of that block
MOVED = "# moved\n# down\n# three lines\n"


def run(capsys, *argv):
    rc = cli.main(["validate", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


@pytest.fixture
def repo(repo_outside_actions):
    r = repo_outside_actions
    assert MODEL in FLEET_AMD
    r.commit({AMD: TWICE}, "main: a duplicate already merged")
    r.git("checkout", "-q", "-b", "pr")
    return r


def test_a_duplicate_key_already_on_the_base_is_marked_though_its_lines_moved(repo, capsys):
    repo.commit({AMD: MOVED + TWICE.replace(*BUMP)}, "pr: an image bump in the block holding it")
    rc, out, err = run(capsys, "--base-ref", "main", "--head-ref", "pr")
    assert rc == 1, out + err
    (line,) = err.splitlines()
    assert line.startswith(f"{AMD}:7:") and "'model' appears twice" in line and "(first at line 6)" in line, err
    assert line.endswith(" (also on main)"), err
    assert "1 of 1 problem was already on main; 0 are new" in out.splitlines(), out


def test_a_second_duplicate_of_the_same_key_is_the_change_s(repo, capsys):
    repo.commit({AMD: MOVED + FLEET_AMD.replace(MODEL, MODEL * 3, 1).replace(*BUMP)}, "pr: the key a third time")
    rc, out, err = run(capsys, "--base-ref", "main", "--head-ref", "pr")
    assert rc == 1, out + err
    lines = err.splitlines()
    assert len(lines) == 2 and all("'model' appears twice" in x for x in lines), err
    assert [x.endswith(" (also on main)") for x in lines] == [True, False], err
    assert "1 of 2 problems was already on main; 1 is new" in out.splitlines(), out


def test_the_same_duplicate_in_another_config_is_the_change_s(repo, capsys):
    nvidia_model = next(x for x in FLEET_NVIDIA.splitlines(keepends=True) if x.startswith("  model:"))
    repo.commit({AMD: MOVED + TWICE.replace(*BUMP), NVIDIA: FLEET_NVIDIA.replace(nvidia_model, nvidia_model * 2, 1)},
                "pr: the same slip in the NVIDIA config")
    rc, out, err = run(capsys, "--base-ref", "main", "--head-ref", "pr")
    assert rc == 1, out + err
    marks = {x.split(":", 1)[0]: x.endswith(" (also on main)") for x in err.splitlines()}
    assert marks == {AMD: True, NVIDIA: False}, err


def test_a_config_key_defined_twice_on_the_base_is_marked(repo_outside_actions, capsys):
    r = repo_outside_actions
    r.commit({AMD: FLEET_AMD + "\n" + FLEET_AMD}, "main: a config key given twice")
    r.git("checkout", "-q", "-b", "pr")
    r.commit({AMD: MOVED + FLEET_AMD + "\n" + FLEET_AMD.replace(*BUMP)}, "pr: a bump in the second copy")
    rc, out, err = run(capsys, "--base-ref", "main", "--head-ref", "pr")
    assert rc == 1, out + err
    dup = [x for x in err.splitlines() if "is defined again here" in x]
    assert len(dup) == 1 and dup[0].endswith(" (also on main)"), err
    r.git("checkout", "-q", "-b", "pr2", "main")
    r.commit({AMD: MOVED + FLEET_AMD + "\n" + FLEET_AMD + "\n" + FLEET_AMD.replace(*BUMP)}, "pr2: a third copy")
    rc, out, err = run(capsys, "--base-ref", "main", "--head-ref", "pr2")
    dup = [x for x in err.splitlines() if "is defined again here" in x]
    assert [x.endswith(" (also on main)") for x in dup] == [True, False], err


def test_a_changelog_problem_an_old_entry_has_too_is_the_change_s(repo_outside_actions, capsys):
    """Guard of kept behaviour (passes before and after): the gate checks only the lines a change appends or alters,
    so an appended entry that repeats an old entry's slip (a pr-link to another host) made it again; it is not
    marked, while the config problem main already had, in the same refusal, is."""
    r = repo_outside_actions
    slip = "  pr-link: https://example.com/acme/bench/pull/{}\n"
    old = r.read().decode().replace("  pr-link: https://github.com/acme/bench/pull/2\n", slip.format(2))
    r.commit({AMD: TWICE, "perf-changelog.yaml": old}, "main: a duplicate and an odd pr-link already merged")
    r.git("checkout", "-q", "-b", "pr")
    entry = "\n- config-keys:\n    - kimik3-fp4-mi355x-vllm-agentic\n  description:\n    - \"Bump\"\n" + slip.format(5)
    r.commit({AMD: MOVED + TWICE.replace(*BUMP), "perf-changelog.yaml": old + entry}, "pr: the same odd pr-link")
    rc, out, err = run(capsys, "--base-ref", "main", "--head-ref", "pr", "--pr-number", "5")
    assert rc == 1, out + err
    marks = {x.split(":", 1)[0]: x.endswith(" (also on main)") for x in err.splitlines()}
    assert marks == {"perf-changelog.yaml": False, AMD: True}, err
    assert "1 of 2 problems was already on main; 1 is new" in out.splitlines(), out



def test_a_staged_check_reads_the_work_tree_s_copy_for_the_config_holding_a_duplicate(repo, capsys):
    """--staged: HEAD is the work tree, whose copy (not the last commit's, where that line lies in another config)
    says which config holds the duplicate."""
    other = FLEET_AMD.replace("kimik3-fp4-mi355x-vllm-agentic:", "kimik3-fp4-mi355x-vllm-agentic-other:", 1)
    repo.commit({AMD: TWICE.replace(*BUMP) + "\n" + other}, "pr: an image bump, and a config after it")
    repo.write(AMD, other + "\n" + TWICE.replace(*BUMP))  # staged: the new config moved first
    repo.git("add", AMD)
    rc, out, err = run(capsys, "--staged")
    assert rc == 1, out + err
    (line,) = err.splitlines()
    at = other.count("\n") + 1 + 4
    assert line.startswith(f"{AMD}:{at}:") and line.endswith(" (also on main)"), err
