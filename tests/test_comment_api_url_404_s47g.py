"""s47g, a new maintainer trying `results comment` against a mistyped --github-api-url (a path GitHub's API has no
route under: `https://api.github.com/nope`) got `GitHub API error 404 on acme/bench#42: Not Found; check --repository
and --pr-number`, though neither was wrong: the first request, GET /user, has no PR or repository in it, and GitHub's
API answers it for every token. A 404 there now names the API URL to check; one for the PR still names the PR."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from github_stub import TOKEN, GitHubStub  # noqa: E402
from sweepgate import cli  # noqa: E402

OWNER_NAME, NUMBER = "acme/bench", 42
USER = {"login": "sweepgate-bot", "id": 3, "type": "User"}


@pytest.fixture
def stub():
    server = GitHubStub()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def environment(monkeypatch, tmp_path):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    for name in ("GH_TOKEN", "GITHUB_ACTIONS", "GITHUB_API_URL", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def comment(url: str, tmp_path, capsys) -> str:
    body = tmp_path / "comment.md"
    body.write_text("<!-- sweepgate-results -->\n### sweepgate results\n", encoding="utf-8")
    rc = cli.main(["results", "comment", "--body", str(body), "--pr-number", str(NUMBER),
                   "--repository", OWNER_NAME, "--github-api-url", url])
    err = capsys.readouterr().err
    (line,) = err.strip().splitlines()
    assert rc == 1 and "Traceback" not in err, err
    return line


def test_a_404_for_the_token_s_own_account_names_the_api_url(stub, tmp_path, capsys):
    line = comment(stub.url + "/nope", tmp_path, capsys)  # the stub answers no route there: 404 Not Found
    assert line.startswith(f"{stub.url}/nope: GitHub API error 404 on {OWNER_NAME}#{NUMBER}: Not Found; "), line
    assert "check --github-api-url / GITHUB_API_URL" in line and "--pr-number" not in line, line


def test_a_404_for_the_pr_still_names_the_repository_and_the_pr(stub, tmp_path, capsys):
    stub.route("GET", "/user", USER)  # the API is there; the repository or PR is not
    line = comment(stub.url, tmp_path, capsys)
    assert line.endswith("check --repository and --pr-number"), line
