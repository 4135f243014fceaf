"""What the GitHub API may answer besides GitHub's JSON, on every command that talks to it, against
the local stand-in (tests/github_stub.py): a web page or broken JSON at a wrong --github-api-url, a
rate limit, an API too slow to answer. Each is one line on stderr at the API's URL and exit 1, after
a bounded number of tries and waits (``core.github``'s API_* settings, shortened here)."""

from __future__ import annotations

import json
import sys
import threading
import time
from datetime import datetime, timezone
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
        st.add(synth.history() + synth.pr_run(ref=f"refs/pull/{NUMBER}/merge"))
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


# --- rate limits and a slow API ------------------------------------------------------------------

def rate_limited(reset_in: float, *, then=None):
    """GET /user answered with GitHub's primary rate limit (403, X-RateLimit-Remaining 0) resetting
    ``reset_in`` seconds from each request; after the first, ``then`` when given."""
    asked = []

    def answer(_payload, _query):
        asked.append(time.time())
        if then is not None and len(asked) > 1:
            return then
        return 403, {"message": "API rate limit exceeded for user ID 3."}, {
            "X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": str(int(time.time() + reset_in))}
    answer.asked = asked
    return answer


@pytest.fixture
def short_waits(monkeypatch):
    monkeypatch.setattr(github, "API_MAX_WAIT_S", 3, raising=False)
    monkeypatch.setattr(github, "API_TIMEOUT_S", 1, raising=False)


def test_a_rate_limit_resetting_soon_is_waited_for_with_a_line_saying_so(stub, tmp_path, capsys, short_waits):
    stub.route("GET", "/user", rate_limited(1, then=USER))
    stub.route("GET", f"{REPO}/issues/{NUMBER}/comments", [])
    stub.route("POST", f"{REPO}/issues/{NUMBER}/comments", {"id": 7, "body": "x"}, status=201)
    assert comment(stub, tmp_path) == 0
    err = capsys.readouterr().err
    assert "sweepgate: GitHub API rate limit: waiting " in err and " s (try 2 of 3)" in err, err


@pytest.mark.parametrize("limited", ["primary", "429"])
def test_a_rate_limited_comment_post_is_still_waited_for_and_sent_again(stub, tmp_path, capsys, short_waits, limited):
    """A comment's POST is not sent again after a 5xx or a timeout (it may have made the comment),
    but a rate limit refused it (nothing made): that is waited for and the POST sent again."""
    made = (201, {"id": 7, "body": "x"}, {})
    answer = rate_limited(1, then=made)
    if limited == "429":
        answer = lambda *_: made if len(stub.requests) > 3 else (429, {"message": "Too many requests"},  # noqa: E731
                                                                  {"Retry-After": "1"})
    stub.route("GET", "/user", USER)
    stub.route("GET", f"{REPO}/issues/{NUMBER}/comments", [])
    stub.route("POST", f"{REPO}/issues/{NUMBER}/comments", answer)
    assert comment(stub, tmp_path) == 0
    err = capsys.readouterr().err
    assert [r[0] for r in stub.requests] == ["GET", "GET", "POST", "POST"], stub.requests
    assert "sweepgate: GitHub API rate limit: waiting " in err and " s (try 2 of 3)" in err, err
    # the wait was made: the POST came again no sooner than the limit said (Retry-After 1 s; the
    # reset, a whole second at most 1 s after the first POST), as the server saw the two arrive
    first, again = stub.arrived[2:]
    lifts = first + 1 if limited == "429" else int(first + 1)
    assert again >= lifts, f"sent again {again - first:.2f} s after the rate-limited POST"


def test_a_rate_limit_that_outlasts_the_tries_says_until_when(stub, tmp_path, capsys, monkeypatch, short_waits):
    """Review: with a 30 s reset PyGithub retried for 310 s, then said "cannot reach the GitHub API
    … check --github-api-url and the network"."""
    monkeypatch.setattr(github, "API_TRIES", 2, raising=False)
    stub.route("GET", "/user", answer := rate_limited(1))
    assert comment(stub, tmp_path) == 1
    assert len(answer.asked) == 2, answer.asked
    waiting, line = capsys.readouterr().err.strip().splitlines()
    assert waiting.startswith("sweepgate: GitHub API rate limit: waiting ") and waiting.endswith("(try 2 of 2)")
    # one wait, until the reset the first answer named and no longer than the cap, as the server saw it
    assert int(waiting.split("waiting ")[1].split(" s ")[0]) <= github.API_MAX_WAIT_S, waiting
    assert answer.asked[1] >= int(answer.asked[0] + 1), "asked again before the rate limit's reset"
    until = datetime.fromtimestamp(int(answer.asked[-1] + 1), timezone.utc)
    assert line == (f"{stub.url}: rate limited by the GitHub API until {until:%H:%M} UTC (on {OWNER_NAME}#{NUMBER}); "
                    "rerun later or use a token with a higher limit")


@pytest.mark.parametrize("status, message, headers", [
    (403, "API rate limit exceeded for user ID 3.", {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "+30"}),
    (403, "You have exceeded a secondary rate limit.", {"Retry-After": "30"}),
    (429, "Too many requests", {"Retry-After": "30"}),
])
def test_a_rate_limit_lasting_longer_than_the_longest_wait_gives_up_at_once(stub, tmp_path, capsys, short_waits,
                                                                            status, message, headers):
    """Primary (reset time), secondary and 429 (Retry-After): a wait over API_MAX_WAIT_S is not made:
    no second request, no line saying it waits, and the command is over long before the limit lifts
    (30 s: a bound no busy host comes near, and one a wait for it cannot keep)."""
    headers = {k: str(int(time.time()) + 30) if v == "+30" else v for k, v in headers.items()}
    stub.route("GET", "/user", {"message": message}, status=status, headers=headers)
    start = time.monotonic()
    assert comment(stub, tmp_path) == 1
    assert len(stub.requests) == 1 and time.monotonic() - start < 30
    line = one_line(capsys)
    assert line.startswith(f"{stub.url}: rate limited by the GitHub API until ") and " UTC (on " in line, line


def test_an_api_that_does_not_answer_in_time_is_one_line(stub, tmp_path, capsys, short_waits):
    """Review: a slow API kept a command silent for over 5 minutes (11 tries of 30 s). Here the API
    answers no request until the command is over (60 s at most, a hang guard): each try gave up waiting,
    after the timeout (1 s here) and not before, as the server saw the tries arrive."""
    over, answered = threading.Event(), []

    def slow(_payload, _query):
        over.wait(60)
        answered.append(over.is_set())
        return USER
    stub.route("GET", "/user", slow)
    stub.server.handle_error = lambda *_: None  # its late answer finds the client gone (broken pipe)
    try:
        assert comment(stub, tmp_path) == 1
        assert answered == [], "the command waited for an answer past its timeout"
    finally:
        over.set()
    # the server stamps a request once its headers are read, which can come later for the first try than
    # for the second (seen: 0.9993 s apart on a busy host): 0.1 s of slack, far from a try cut short
    assert len(stub.requests) == 2 and stub.arrived[1] - stub.arrived[0] >= github.API_TIMEOUT_S - 0.1, stub.arrived
    retrying, line = capsys.readouterr().err.strip().splitlines()
    assert retrying == "sweepgate: GitHub API did not answer (ReadTimeoutError): retrying (try 2 of 2)"
    assert line.startswith(f"{stub.url}: the GitHub API did not answer within 1 s, 2 tries (on {OWNER_NAME}#{NUMBER})")


def test_an_api_that_refuses_the_connection_says_so_not_that_it_timed_out(tmp_path, capsys, monkeypatch):
    """New-user review: a refused connection read "did not answer within 30 s, 2 tries" after
    "try 3 of 3" (urllib3 files a failed connection under its connect timeouts)."""
    import socket

    monkeypatch.setattr(github, "API_BACKOFF_S", 0.01, raising=False)
    with socket.socket() as sock:  # a port nothing listens on once this closes
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    closed = type("Closed", (), {"url": f"http://127.0.0.1:{port}"})()
    assert comment(closed, tmp_path) == 1
    *retries, line = capsys.readouterr().err.strip().splitlines()
    assert retries and all(r.startswith("sweepgate: cannot connect to the GitHub API (Connection refused): ")
                           for r in retries), retries
    assert line == (f"github: cannot reach the GitHub API at {closed.url} on {OWNER_NAME}#{NUMBER}: Connection "
                    "refused; check --github-api-url / GITHUB_API_URL and the network"), line
