"""s33c: under GITHUB_ACTIONS=true, refusals that exit 1 (bad input) were annotated `::error title=usage::`, the
title of argparse's argument syntax (exit 2, docs/contracts.md "Exit codes"): a repository-data path outside the
repository or naming a folder, a repository pr-links cannot be told for (`changelog add`, `canonicalize`) or a
malformed $GITHUB_REPOSITORY (`validate`), `results compare --baseline-artifacts` without a token. Each is titled
now by what is wrong, and a refusal that does exit 2 keeps `usage`. Real processes in real git repositories."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "results"))

import synth  # noqa: E402


def sweepgate(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    base.update(PYTHONPATH=str(ROOT / "utils"), GITHUB_ACTIONS="true", **env)
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, env=base, capture_output=True,
                          text=True, timeout=120)


def titles(r: subprocess.CompletedProcess) -> list[str]:
    """The title of each `::error` annotation on stderr ('' for one without)."""
    out = []
    for line in r.stderr.splitlines():
        if line.startswith("::error"):
            props = line[len("::error"):].split("::", 1)[0].strip()
            found = [p[len("title="):] for p in props.split(",") if p.startswith("title=")]
            out.append(found[0] if found else "")
    return out


def test_a_path_outside_the_repository_is_titled_so(make_repo):
    repo = make_repo()
    r = sweepgate(["validate", "--staged", "--changelog-file", "../../perf-changelog.yaml"], repo.path / "configs")
    assert (r.returncode, titles(r)) == (1, ["outside-repository"]), r.stderr
    r = sweepgate(["matrix", "--base-ref", "HEAD", "--head-ref", "HEAD", "--runner-config", "/nope/runners.yaml"],
                  repo.path)
    assert (r.returncode, titles(r)) == (1, ["outside-repository"]), r.stderr
    assert r.stderr.startswith("/nope/runners.yaml: outside the repository; pass a path inside it\n"), r.stderr


def test_a_repository_data_flag_naming_a_folder_is_titled_as_a_missing_file(make_repo):
    repo = make_repo()
    r = sweepgate(["matrix", "--base-ref", "HEAD", "--head-ref", "HEAD", "--config-files", "configs"], repo.path)
    assert (r.returncode, titles(r)) == (1, ["missing-file"]), r.stderr


def test_a_repository_pr_links_cannot_be_told_for_is_titled_pr_link(make_repo):
    repo = make_repo(changelog="")
    r = sweepgate(["changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "Bump"], repo.path)
    assert (r.returncode, titles(r)) == (1, ["pr-link"]), r.stderr
    assert r.stderr.startswith("--repository: cannot tell which repository pr-links point to: "), r.stderr
    assert (repo.path / "perf-changelog.yaml").read_text() == ""
    r = sweepgate(["changelog", "canonicalize", "--pr-number", "5", "--base", "main"], repo.path)
    assert (r.returncode, titles(r)) == (1, ["pr-link"]), r.stderr


def test_a_malformed_github_repository_is_said_at_the_variable_and_titled_pr_link(make_repo):
    repo = make_repo()
    head = repo.head()
    r = sweepgate(["validate", "--base-ref", head, "--head-ref", head], repo.path, GITHUB_REPOSITORY="no-slash")
    assert (r.returncode, titles(r)) == (1, ["pr-link"]), r.stderr
    assert r.stderr.splitlines()[0] == ("$GITHUB_REPOSITORY: repository 'no-slash' is not OWNER/NAME; set it to "
                                        "OWNER/NAME, or pass --repository OWNER/NAME (e.g. SemiAnalysisAI/InferenceX)")


def test_compare_without_a_token_for_the_baseline_artifacts_is_titled_github(tmp_path, make_repo):
    from sweepgate.results import store

    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history() + synth.pr_run(ref="refs/pull/7/merge"))
    r = sweepgate(["results", "compare", "--db", url, "--run", "pr-7", "--baseline-artifacts"], make_repo().path)
    assert (r.returncode, titles(r)) == (1, ["github"]), r.stderr
    assert "--baseline-artifacts needs GITHUB_TOKEN" in r.stderr, r.stderr


@pytest.mark.parametrize("argv", [
    ["results", "compare", "--run", "1", "--window", "0"],  # a value out of range
    ["results", "compare", "--run", "1", "--pr-number", "3"],  # a flag that needs another
    ["ci", "split", "--matrix", "m.json", "--max-jobs", "0"],
], ids=["window", "pr-number", "max-jobs"])
def test_argument_syntax_keeps_its_usage_title_and_exit_2(make_repo, argv):
    r = sweepgate(argv, make_repo().path)
    assert (r.returncode, titles(r)) == (2, ["usage"]), r.stderr


def test_the_checks_the_parser_never_reaches_are_titled_by_what_is_wrong(tmp_path):
    """What a library caller (no argparse parser to exit 2 with) is refused with, exit 1: never `usage`."""
    from sweepgate.commands import argtypes
    from sweepgate.core.changelog_edit import add_entry
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.load import Git
    from sweepgate.workflow.fanout import split

    with pytest.raises(SweepgateError) as caught:
        argtypes.usage_error(argparse.Namespace(), "argument --min-conc: 8 is above --max-conc 4; swap the bounds")
    assert caught.value.diagnostics[0].annotation().startswith("::error title=flags::sweepgate: argument --min-conc")
    with pytest.raises(SweepgateError) as caught:
        split({"single_node": {}, "multi_node": {}}, max_jobs=0)
    assert caught.value.diagnostics[0].annotation().startswith("::error title=ci-fanout::--max-jobs: 0 rows")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "perf-changelog.yaml").write_text("")
    with pytest.raises(SweepgateError) as caught:
        add_entry(Git(str(tmp_path)), "perf-changelog.yaml", ["k"], [" "], repository="acme/bench")
    assert caught.value.diagnostics[0].annotation().startswith("::error title=schema-changelog::--description: ")
