"""Loose ends of a new-user walk of the changelog tools and `plan` (s39l), on real git repositories."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CHANGELOG
from test_changelog_tools import _conflicted, _two_branches, entry, repo, sg  # noqa: F401
from test_plan import DSR1, fleet, make, nvidia_master, rules  # noqa: F401
from test_plan import entry as plan_entry

ROOT = Path(__file__).resolve().parents[1]


def _runner_line(fleet, key: str) -> tuple[int, int]:  # noqa: F811
    text = (fleet.root / "configs/nvidia-master.yaml").read_text().splitlines()
    start = text.index(f"{key}:")
    n = next(i for i in range(start, len(text)) if text[i].strip().startswith("runner:"))
    return n + 1, text[n].index("runner:") + len("runner: ") + 1  # at its value (s48c)


def test_a_runner_label_close_to_none_listed_names_the_labels_there_are(fleet):  # noqa: F811
    """New-user walk (s39l): `runner: b2000` on the example fleet, whose labels are `cluster:b300-nv`-like, drew
    "...; Use a listed label, or add the runner ..." with no label named: none was close enough to guess.
    The hint now names the labels configs/runners.yaml lists, at the config's runner line."""
    master = nvidia_master(fleet)
    master[DSR1]["runner"] = "b2000"
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(plan_entry(DSR1, pr=5))})
    (w,) = rules(p, "unknown-runner")
    assert (w["file"], w["line"], w["col"]) == ("configs/nvidia-master.yaml", *_runner_line(fleet, DSR1)), w
    assert "'b2000' is not in the base's configs/runners.yaml" in w["message"], w
    assert w["hint"].startswith("use a listed label (cluster:b300-nv, cluster:gb200-nv, mi355x-amds), or add "
                                "the runner to configs/runners.yaml on main first"), w


def test_a_misspelt_runner_label_names_every_listed_label_close_to_it(fleet):  # noqa: F811
    master = nvidia_master(fleet)
    master[DSR1]["runner"] = "cluster:b200-nv"
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(plan_entry(DSR1, pr=5))})
    (w,) = rules(p, "unknown-runner")
    assert w["hint"].startswith("did you mean 'cluster:gb200-nv' (or cluster:b300-nv)? Use a listed label, "
                                "or add the runner"), w


@pytest.mark.parametrize("operation, ref", [("rebase", "REBASE_HEAD"), ("merge", "ORIG_HEAD")])
def test_the_gate_s_conflict_fix_names_the_operation_in_progress(repo, capsys, operation, ref):  # noqa: F811
    """New-user walk (s39l): stopped at a real conflict, the gate (the pre-commit hook's `validate --staged`)
    said one fixed sentence naming both refs ("after a merge, ... --onto origin/main --branch ORIG_HEAD; during
    a rebase, pass --branch REBASE_HEAD instead"), while `changelog rebase` knew which operation it was in. The
    gate now says the one command of the operation in progress, its --onto that operation's commit, and the
    command works as written."""
    _two_branches(repo)
    _conflicted(repo, operation, "-q", "main")
    rc, _, err = sg(capsys, "validate", "--staged")
    (line,) = [x for x in err.splitlines() if "merge conflict in the changelog" in x]
    assert rc == 1 and f"; a {operation} is in progress: `sweepgate changelog rebase" in line, err
    assert {"REBASE_HEAD": "ORIG_HEAD", "ORIG_HEAD": "REBASE_HEAD"}[ref] not in line, line
    command = line.split("`")[1].split()[1:]
    assert command == ["changelog", "rebase", "--onto", "main", "--branch", ref], line
    assert sg(capsys, *command)[0] == 0
    assert repo.read().decode() == CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + entry("dsr1-fp4-b300-sglang", "XXX")


def test_with_no_operation_in_progress_the_gate_s_conflict_fix_names_both(repo, capsys):  # noqa: F811
    """Markers committed (a CI checkout, say, where no merge or rebase is in progress): the gate cannot tell
    which operation left them, so its fix still says what to pass after either; its --onto a branch this
    repository has (s39q: it said origin/main, which a repository with no `origin` lacks)."""
    from sweepgate.core.history import conflict_fix_text

    repo.git("checkout", "-q", "-b", "feature")
    head = repo.commit_changelog(CHANGELOG + "<<<<<<< HEAD\n")
    rc, _, err = sg(capsys, "validate", "--base-ref", "main", "--head-ref", "HEAD")
    (line,) = [x for x in err.splitlines() if "merge-conflict marker" in x or "merge conflict" in x]
    assert rc == 1 and line.endswith(f"; {conflict_fix_text('main')}"), (head, err)


def _readme_precommit_config() -> str:
    """README's `.pre-commit-config.yaml` (its *Pre-commit hook* section's yaml block), as written."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Pre-commit hook"):]
    block = section[section.index("```yaml\n") + len("```yaml\n"):]
    return block[:block.index("```")]


def test_the_hooks_file_s_example_is_readme_s_config():
    """New-user walk (s39l): README's config begins `default_install_hook_types: [pre-commit, pre-merge-commit]`
    (without it `pre-commit install` sets up no pre-merge-commit hook, and a merge that commits by itself is
    checked by nothing); .pre-commit-hooks.yaml's commented example, what a maintainer reading the hook sees,
    lacked it. The example is README's config, line for line."""
    lines = (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines()
    start = lines.index("#") + 1  # after the title line and its empty comment line
    end = lines.index("#", start)
    example = "".join(line.removeprefix("#   ") + "\n" for line in lines[start:end])
    assert example == _readme_precommit_config(), example


def readme_on_request() -> str:
    """The command README's *Pre-commit hook* section says runs the hook on request."""
    import re

    section = (ROOT / "README.md").read_text().split("## Pre-commit hook", 1)[1]
    return re.search(r"`(pre-commit run [^`]*)` runs it on request", section.replace("\n", " ")).group(1)


def test_the_hooks_file_names_readme_s_command_to_run_it_on_request():
    """New-user walk (s41i): README's `pre-commit run --hook-stage manual` "runs it on request", but with
    nothing staged pre-commit skips the hook, `(no files to check)Skipped`: its `files:` keep it to commits
    that change the changelog or configs (test_precommit runs README's command, with nothing staged). The
    hooks file's comment names the same command."""
    import re

    said = re.findall(r"`(pre-commit run [^`]*)`", (ROOT / ".pre-commit-hooks.yaml").read_text())
    assert said == [readme_on_request()] and "--all-files" in said[0], said
