"""The PR comment names the charts' folder so that its reader can place it (msgs27).

New-user review: `results compare --comment --plots ../charts`, run in a subfolder of the repository,
posted "was written to `../charts`": the path as typed, from a folder the PR's reader never saw. Outside
a workflow run (where the comment names the run's artifact instead) the posted comment now names the
folder from the repository's top, and says so; a comment file or step summary whose folder holds the
charts' keeps naming them from there (`charts`), and one elsewhere names them from the top too (the
absolute path was the poster's own machine's), said so; outside any repository, the absolute path.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import synth

from sweepgate import cli
from sweepgate.results import render, store

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from github_stub import TOKEN, GitHubStub  # noqa: E402

OWNER_NAME = "acme/bench"
SAID = " (output throughput per GPU against interactivity, PNG and SVG) was written to "


@pytest.fixture
def setup(tmp_path, monkeypatch):
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "SWEEPGATE_DB", "GITHUB_WORKSPACE",
                 "GITHUB_REPOSITORY", "GH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(keys=synth.KEYS[:1], concs=(4, 16)) + synth.pr_run(keys=synth.KEYS[:1], concs=(4, 16)))
    stub = GitHubStub()
    stub.route("GET", "/user", {"login": "sweepgate-bot", "id": 3, "type": "User"})
    stub.route("GET", f"/repos/{OWNER_NAME}/issues/7/comments", [])
    stub.route("POST", f"/repos/{OWNER_NAME}/issues/7/comments", {"id": 70, "body": "x"}, status=201)
    yield url, stub
    stub.close()


def _charts_line(text: str) -> str:
    (line,) = [x for x in text.splitlines() if SAID in x]
    return line


def _posted(url: str, stub: GitHubStub, plots: str, *more: str) -> str:
    stub.requests.clear()
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--plots", plots, "--comment",
                     "--repository", OWNER_NAME, "--github-api-url", stub.url, *more]) == 0
    (body,) = [payload["body"] for method, _, payload in stub.requests if method == "POST"]
    return _charts_line(body)


def test_a_posted_comment_names_the_charts_folder_from_the_repository_s_top(setup, tmp_path, monkeypatch, capsys):
    url, stub = setup
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo / "sub")
    line = _posted(url, stub, "../charts", "--comment-file", "comment.md")
    assert line.endswith(f"{SAID}`charts` (from the repository's top), {render.LOCAL}."), line
    # the comment file is that comment's body, posted later by `results comment`: it says the same
    assert _charts_line((repo / "sub" / "comment.md").read_text()) == line
    assert str(tmp_path) not in line and "../" not in line
    line = _posted(url, stub, "../../plots")  # outside the repository: nothing but the absolute path names it
    assert line.endswith(f"{SAID}`{tmp_path / 'plots'}`, {render.LOCAL}."), line
    # a folder inside the comment file's is named from there, as before (review23)
    (repo / "sub" / "out").mkdir()
    _posted(url, stub, "out/charts", "--comment-file", "out/comment.md")
    assert _charts_line((repo / "sub" / "out" / "comment.md").read_text()).endswith(f"{SAID}`charts`, {render.LOCAL}.")
    capsys.readouterr()
