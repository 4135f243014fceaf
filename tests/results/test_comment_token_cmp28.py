"""cmp28: `results compare --comment` without a GitHub token noted "not commenting" on stderr and exited 0,
so a CI job that forgot the token lost the PR comment with a green check. With a pull request to post on,
a missing token (or repository) is now a failure: the report first, in full, then one line naming the
variable to set, exit 1 (3 when --fail-on-regression tripped). A run of no PR still only notes it.
Run through the console script pip installed, as a workflow runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import synth

from sweepgate.results import store

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from github_stub import GitHubStub  # noqa: E402

SCRIPT = Path(sys.executable).parent / "sweepgate"
LINE = ("sweepgate results compare: --comment needs GITHUB_TOKEN: GITHUB_TOKEN is not set; set GITHUB_TOKEN "
        "(or GH_TOKEN), or write the body with --comment-file for `sweepgate results comment` to post")


@pytest.fixture
def stub():
    gh = GitHubStub()
    yield gh
    gh.close()


def compare(tmp_path: Path, stub: GitHubStub, run: str, *extra: str, **env: str) -> subprocess.CompletedProcess:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    if not (tmp_path / "r.db").exists():
        with store.open_store(db) as st:
            st.add(synth.history() + synth.pr_run({(synth.KEYS[0], 16): {"output_tput_per_gpu": 0.85}}))
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("GITHUB_", "SWEEPGATE_")) and k not in ("GH_TOKEN", "NO_COLOR")}
    return subprocess.run([str(SCRIPT), "results", "compare", "--db", db, "--run", run, "--comment",
                           "--repository", "acme/bench", "--github-api-url", stub.url, *extra],
                          cwd=tmp_path, capture_output=True, text=True, env={**base, **env})


@pytest.mark.parametrize("gate, code", [((), 1), (("--fail-on-regression",), 3)])
def test_a_comment_without_a_token_fails_after_the_report_naming_the_variable(tmp_path, stub, gate, code):
    body = tmp_path / "comment.md"
    proc = compare(tmp_path, stub, "pr-7", "--markdown", "--comment-file", str(body), *gate)
    assert proc.returncode == code, proc.stderr
    assert proc.stderr.splitlines() == [LINE], proc.stderr
    assert "#### Regressed (1 point" in proc.stdout  # the report, in full, before the failure
    assert body.read_text(encoding="utf-8").startswith("<!--")  # and the comment file written
    assert stub.requests == []


def test_under_github_actions_the_missing_token_is_an_error_annotation(tmp_path, stub):
    proc = compare(tmp_path, stub, "pr-7", GITHUB_ACTIONS="true")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        LINE, "::error title=github::" + LINE], proc.stderr
    assert "pr-7" in proc.stdout


def test_a_run_of_no_pull_request_has_nothing_to_comment_on_and_only_notes_it(tmp_path, stub):
    proc = compare(tmp_path, stub, "main-4")
    assert proc.returncode == 0 and proc.stderr.splitlines() == [
        "sweepgate results compare: not commenting: GITHUB_TOKEN, --pr-number not set; set GITHUB_TOKEN "
        "(or GH_TOKEN) and pass --pr-number N to comment"], proc.stderr
    assert stub.requests == []
