"""What the GitHub API may answer besides GitHub's JSON, on every command that talks to it, against
the local stand-in (tests/github_stub.py): a web page or broken JSON at a wrong --github-api-url.
Each is one line on stderr at the API's URL and exit 1."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "results"))

import synth  # noqa: E402
from github_stub import TOKEN, GitHubStub  # noqa: E402
from sweepgate import cli  # noqa: E402
from sweepgate.core import github  # noqa: E402

OWNER_NAME, NUMBER = "acme/bench", 42
REPO = f"/repos/{OWNER_NAME}"
USER = (200, {"login": "sweepgate-bot", "id": 3, "type": "User"})
HTML = (200, b"<!DOCTYPE html>\n<html><title>Sign in to GitHub Enterprise</title></html>",
        {"Content-Type": "text/html; charset=utf-8"})
ENTERPRISE_HINT = "https://HOST/api/v3 for GitHub Enterprise"


class Everywhere(dict):
    """A route table answering every path the same: a web server's sign-in page at a wrong API URL."""

    def __init__(self, answer):
        super().__init__()
        self.answer = answer

    def get(self, key, default=None):
        return self.answer


@pytest.fixture
def stub():
    server = GitHubStub()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def environment(monkeypatch, tmp_path):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    for name in ("GH_TOKEN", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_API_URL", "SWEEPGATE_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_REPOSITORY", OWNER_NAME)
    monkeypatch.chdir(tmp_path)


def comment(stub, tmp_path) -> int:
    from sweepgate.results.render import MARKER

    body = tmp_path / "comment.md"
    body.write_text(f"{MARKER}\n### sweepgate results\n", encoding="utf-8")
    return cli.main(["results", "comment", "--body", str(body), "--pr-number", str(NUMBER),
                     "--repository", OWNER_NAME, "--github-api-url", stub.url])


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err and "internal error" not in err, err
    return lines[0]


# --- an answer that is not GitHub's JSON ---------------------------------------------------------

NOT_JSON = {
    "an HTML page": {("GET", "/user"): HTML},
    "invalid JSON": {("GET", "/user"): (200, b"{not json", {})},
    "an empty body": {("GET", "/user"): (200, b"", {})},
    "JSON of an unexpected shape": {("GET", "/user"): USER,
                                    ("GET", f"{REPO}/issues/{NUMBER}/comments"): (200, {"not": "a list"}, {})},
}


@pytest.mark.parametrize("what", NOT_JSON)
def test_results_comment_names_an_answer_that_is_not_github_json(stub, tmp_path, capsys, what):
    """Review: a GitHub Enterprise web URL (not /api/v3) made `results comment` raise TypeError or
    JSONDecodeError: "sweepgate: internal error"."""
    stub.routes.update(NOT_JSON[what])
    assert comment(stub, tmp_path) == 1
    line = one_line(capsys)
    assert line.startswith(f"{stub.url}: the API answered with {what}, not GitHub's JSON (on {OWNER_NAME}#{NUMBER})")
    assert "check --github-api-url" in line and ENTERPRISE_HINT in line


def test_under_github_actions_it_is_an_annotation_too_not_a_file(stub, tmp_path, monkeypatch, capsys):
    stub.routes = Everywhere(HTML)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert comment(stub, tmp_path) == 1
    line, annotation = capsys.readouterr().err.strip().splitlines()
    assert annotation == f"::error title=github::{line}".replace("\n", "%0A")


def store_with_a_pr_run(tmp_path) -> str:
    from sweepgate.results import store

    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history() + synth.pr_run())
    return url


def decide_event(tmp_path, monkeypatch) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main", "sender": {"login": "bot"},
                                 "inputs": {"pr-number": "7", "sha": "a" * 40, "mode": "trimmed"}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "workflow_dispatch")


COMMANDS = {
    "results compare --comment": lambda tmp_path, _mp: [
        "results", "compare", "--db", store_with_a_pr_run(tmp_path), "--run", "pr-7", "--comment",
        "--pr-number", str(NUMBER)],
    "results compare --baseline-artifacts": lambda tmp_path, _mp: [
        "results", "compare", "--db", store_with_a_pr_run(tmp_path), "--run", "pr-7", "--baseline-artifacts"],
    "ci decide": lambda tmp_path, mp: decide_event(tmp_path, mp) or ["ci", "decide"],
    "ci dispatch": lambda *_: ["ci", "dispatch", "--dry-run"],
    "ci watch": lambda *_: ["ci", "watch", "--until", "collect", "--run-id", "9", "--attempt", "1",
                            "--interval", "0.1", "--max-minutes", "0.01"],  # it took a web page for no jobs yet
    "ci audit": lambda _tp, mp: mp.chdir(ROOT) or ["ci", "audit"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_github_command_names_a_web_page_at_the_api_url(stub, tmp_path, monkeypatch, capsys, command):
    """The same check for each command that reads the API (one place: core.github's client)."""
    stub.routes = Everywhere(HTML)
    argv = COMMANDS[command](tmp_path, monkeypatch)
    assert cli.main([*argv, "--github-api-url", stub.url]) == 1
    line = one_line(capsys)
    assert line.startswith(f"{stub.url}: the API answered with an HTML page, not GitHub's JSON"), line
    assert ENTERPRISE_HINT in line
