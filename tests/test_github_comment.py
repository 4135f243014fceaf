"""The plan's PR comment, through PyGithub, against a local fake of the GitHub REST API."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from github_stub import serve  # noqa: E402

from sweepgate import cli  # noqa: E402
from sweepgate.core import github  # noqa: E402
from sweepgate.core.errors import SweepgateError  # noqa: E402

OWNER, NAME, NUMBER = "acme", "bench", 42
TOKEN = "test-token-not-secret"


class FakeGitHub:
    """Just enough of the GitHub REST API for issue comments, with pagination."""

    def __init__(self, per_page: int = 30):
        self.comments: dict[int, dict] = {}
        self.next_id = 1000
        self.requests: list[tuple[str, str]] = []
        self.per_page = per_page
        self.login: str | None = "github-actions[bot]"  # GET /user; None answers 403 like GITHUB_TOKEN
        self.poster = "github-actions[bot]"  # whom a token without /user posts as (an app: "<app>[bot]")
        # How the next POSTs of a comment end, one each, then 201: "made-502" (made, then 502),
        # "made-slow" (made, answered after slow_s), "made-drop" (made, connection closed unanswered)
        # and "502" (nothing made).
        self.post_outcomes: list[str] = []
        self.slow_s = 2.0
        self.lock = threading.Lock()
        self.server, self.url = serve(self.handle, ("GET", "POST", "PATCH"))

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    # -- state helpers
    def add(self, body: str, user: str = "someone") -> int:
        with self.lock:
            self.next_id += 1
            cid = self.next_id
            self.comments[cid] = {"id": cid, "body": body, "user": user, "edits": 0}
            return cid

    def comment_json(self, c: dict) -> dict:
        return {"id": c["id"], "node_id": f"IC_{c['id']}", "body": c["body"],
                "url": f"{self.url}/repos/{OWNER}/{NAME}/issues/comments/{c['id']}",
                "html_url": f"https://github.com/{OWNER}/{NAME}/pull/{NUMBER}#issuecomment-{c['id']}",
                "issue_url": f"{self.url}/repos/{OWNER}/{NAME}/issues/{NUMBER}",
                "user": {"login": c["user"], "id": 1, "type": "Bot" if c["user"].endswith("[bot]") else "User"},
                "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}

    # -- routing
    def handle(self, req: BaseHTTPRequestHandler, method: str):
        parts = urlsplit(req.path)
        path, query = parts.path, parse_qs(parts.query)
        with self.lock:
            self.requests.append((method, req.path))
        if req.headers.get("Authorization") not in (f"token {TOKEN}", f"Bearer {TOKEN}"):
            return self.send(req, 401, {"message": "Bad credentials"})
        length = int(req.headers.get("Content-Length") or 0)
        payload = json.loads(req.rfile.read(length) or b"{}") if length else {}
        repo = f"/repos/{OWNER}/{NAME}"
        if method == "GET" and path == "/user":
            if self.login is None:
                return self.send(req, 403, {"message": "Resource not accessible by integration"})
            return self.send(req, 200, {"login": self.login, "id": 3, "type": "User"})
        if method == "GET" and path == repo:
            return self.send(req, 200, {"id": 1, "name": NAME, "full_name": f"{OWNER}/{NAME}",
                                        "url": self.url + repo, "owner": {"login": OWNER, "id": 2}})
        m = re.fullmatch(rf"{repo}/(issues|pulls)/(\d+)", path)
        if method == "GET" and m:
            if int(m.group(2)) != NUMBER:
                return self.send(req, 404, {"message": "Not Found"})
            return self.send(req, 200, {"id": 77, "number": NUMBER, "title": "tune", "state": "open",
                                        "url": f"{self.url}{repo}/issues/{NUMBER}",
                                        "comments_url": f"{self.url}{repo}/issues/{NUMBER}/comments",
                                        "repository_url": self.url + repo,
                                        "html_url": f"https://github.com/{OWNER}/{NAME}/pull/{NUMBER}"})
        m = re.fullmatch(rf"{repo}/issues/(\d+)/comments", path)
        if m and int(m.group(1)) != NUMBER:
            return self.send(req, 404, {"message": "Not Found"})
        if method == "GET" and m:
            per_page = int(query.get("per_page", [self.per_page])[0])
            page = int(query.get("page", ["1"])[0])
            with self.lock:
                items = [self.comment_json(c) for c in sorted(self.comments.values(), key=lambda c: c["id"])]
            chunk = items[(page - 1) * per_page: page * per_page]
            headers = {}
            if page * per_page < len(items):
                nxt = f"{self.url}{path}?per_page={per_page}&page={page + 1}"
                headers["Link"] = f'<{nxt}>; rel="next"'
            return self.send(req, 200, chunk, headers)
        if method == "POST" and m:
            with self.lock:
                outcome = self.post_outcomes.pop(0) if self.post_outcomes else "201"
            if outcome == "502":
                return self.send(req, 502, {"message": "Server Error"})
            cid = self.add(payload["body"], user=self.login or self.poster)
            if outcome == "made-502":
                return self.send(req, 502, {"message": "Server Error"})
            if outcome == "made-drop":
                return None  # the handler closes the connection: no status line was sent
            if outcome == "made-slow":
                time.sleep(self.slow_s)
            return self.send(req, 201, self.comment_json(self.comments[cid]))
        m = re.fullmatch(rf"{repo}/issues/comments/(\d+)", path)
        if method == "PATCH" and m:
            with self.lock:
                c = self.comments.get(int(m.group(1)))
                if c is None:
                    return self.send(req, 404, {"message": "Not Found"})
                if c["user"] != (self.login or self.poster):  # a bot may edit its own comments only
                    return self.send(req, 403, {"message": "Resource not accessible by integration"})
                c["body"] = payload["body"]
                c["edits"] += 1
            return self.send(req, 200, self.comment_json(c))
        return self.send(req, 404, {"message": f"fake GitHub: no route for {method} {path}"})

    def send(self, req, status: int, body, headers: dict | None = None):
        data = json.dumps(body).encode()
        req.send_response(status)
        req.send_header("Content-Type", "application/json; charset=utf-8")
        req.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            req.send_header(k, v)
        req.end_headers()
        req.wfile.write(data)


@pytest.fixture
def gh():
    server = FakeGitHub()
    yield server
    server.close()


def marked(server: FakeGitHub) -> list[dict]:
    return [c for c in server.comments.values() if github.PLAN_MARKER in c["body"]]


def test_three_runs_leave_one_comment_updated_twice(gh):
    gh.add("LGTM")  # someone else's comment stays untouched
    results = [github.upsert_comment(f"{OWNER}/{NAME}", NUMBER, f"plan v{i}", TOKEN, base_url=gh.url)
               for i in range(3)]
    assert [r[0] for r in results] == ["created", "updated", "updated"]
    assert len({r[1] for r in results}) == 1
    (comment,) = marked(gh)
    assert comment["edits"] == 2
    assert comment["body"] == f"{github.PLAN_MARKER}\nplan v2"
    assert len(gh.comments) == 2 and gh.comments[1001]["body"] == "LGTM"
    methods = [m for m, _ in gh.requests]
    assert methods.count("POST") == 1 and methods.count("PATCH") == 2


def test_marker_found_on_a_later_page(gh):
    for i in range(40):
        gh.add(f"comment {i}")
    existing = gh.add(f"{github.PLAN_MARKER}\nold plan", user="github-actions[bot]")  # 41st: page 2
    action, cid = github.upsert_comment(f"{OWNER}/{NAME}", NUMBER, "new plan", TOKEN, base_url=gh.url)
    assert (action, cid) == ("updated", existing)
    assert len(marked(gh)) == 1 and len(gh.comments) == 41
    assert gh.comments[existing]["body"].endswith("new plan")
    assert any("page=2" in path for _, path in gh.requests)


@pytest.mark.parametrize("login", ["sweepgate-bot", None])
def test_never_edits_another_accounts_marked_comment(gh, login):
    """A marked comment by someone else (pasted marker, or an old comment by another bot) stays
    as it is; ours is created once and then edited. login None: GET /user answers 403, as it
    does for a workflow's GITHUB_TOKEN, and the token comments as github-actions[bot]."""
    gh.login = login
    me = login or github.ACTIONS_BOT
    foreign = [gh.add(f"{github.PLAN_MARKER}\nfake plan", user="mallory"),
               gh.add(f"{github.PLAN_MARKER}\nother bot", user="other-app[bot]" if login else "sweepgate-bot")]
    first = github.upsert_comment(f"{OWNER}/{NAME}", NUMBER, "plan v1", TOKEN, base_url=gh.url)
    second = github.upsert_comment(f"{OWNER}/{NAME}", NUMBER, "plan v2", TOKEN, base_url=gh.url)
    assert first[0] == "created" and second == ("updated", first[1])
    assert first[1] not in foreign and gh.comments[first[1]]["user"] == me
    assert [gh.comments[c]["edits"] for c in foreign] == [0, 0]
    assert gh.comments[foreign[0]]["body"].endswith("fake plan")
    assert ("GET", "/user") in gh.requests


def test_an_app_token_without_user_access_edits_its_own_comment_not_a_new_one(gh, capsys):
    """Review: with a GitHub App's token (GET /user: 403; it posts as "<app>[bot]") every run
    created another comment: only github-actions[bot]'s were looked for. Another app's marked
    comment (not ours to edit: 403) and a person's stay as they are."""
    gh.login, gh.poster = None, "acme-ci[bot]"
    foreign = [gh.add(f"{github.PLAN_MARKER}\nother app", user="other-app[bot]"),
               gh.add(f"{github.PLAN_MARKER}\npasted", user="mallory")]
    runs = [github.upsert_comment(f"{OWNER}/{NAME}", NUMBER, f"plan v{n}", TOKEN, base_url=gh.url)
            for n in (1, 2, 3)]
    assert runs[0][0] == "created" and runs[1:] == [("updated", runs[0][1])] * 2
    assert len(marked(gh)) == 3 and gh.comments[runs[0][1]]["body"].endswith("plan v3")
    assert [gh.comments[c]["edits"] for c in foreign] == [0, 0]
    assert "failed with 403" not in capsys.readouterr().err  # PyGithub's log lines stay muted
    # Security audit: the stand-in refuses a foreign edit, so only the requests tell whether a
    # person's comment was tried; a real app token with issues: write could edit it. Never tried.
    person = f"/repos/{OWNER}/{NAME}/issues/comments/{foreign[1]}"
    assert ("PATCH", person) not in gh.requests, gh.requests


def test_api_errors_are_diagnostics(gh):
    with pytest.raises(SweepgateError) as exc:
        github.upsert_comment(f"{OWNER}/{NAME}", 7, "x", TOKEN, base_url=gh.url)
    (d,) = exc.value.diagnostics
    assert d.rule == "github-comment" and "404" in d.message and "--pr-number" in d.hint
    with pytest.raises(SweepgateError) as exc:
        github.upsert_comment(f"{OWNER}/{NAME}", NUMBER, "x", "wrong-token", base_url=gh.url)
    assert "401" in exc.value.diagnostics[0].message
    with pytest.raises(SweepgateError):
        github.upsert_comment("not-a-repo", NUMBER, "x", TOKEN, base_url=gh.url)
    assert gh.comments == {}


def test_plan_cli_comments_once_per_push(gh, tmp_path, monkeypatch, capsys):
    """`sweepgate plan --comment` three times (three pushes): one comment, edited twice."""
    import test_plan as tp

    root = tmp_path / "repo"
    root.mkdir()
    repo = tp.Repo(root)
    base = repo.commit(tp.base_fleet(), "base")
    master = tp.nvidia_master(repo)
    master[tp.LMCACHE] = tp.kimi("lmcache")
    heads = [repo.commit({"configs/nvidia-master.yaml": master,
                          "perf-changelog.yaml": repo.append_changelog(tp.entry(tp.LMCACHE, pr=NUMBER))}, "push 1")]
    master[tp.LMCACHE]["scenarios"]["agentic-coding"][0]["search-space"][0]["conc-list"] = [4, 8]
    heads.append(repo.commit({"configs/nvidia-master.yaml": master}, "push 2"))
    master[tp.DSR1]["image"] = "vllm/vllm-openai:v2"
    heads.append(repo.commit({"configs/nvidia-master.yaml": master}, "push 3"))

    monkeypatch.chdir(root)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", gh.url)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    for head in heads:
        assert cli.main(["plan", "--base-ref", base, "--head-ref", head, "--comment",
                         "--pr-number", str(NUMBER), "--repository", f"{OWNER}/{NAME}"]) == 0
    err = capsys.readouterr().err
    assert err.count("created comment") == 1 and err.count("updated comment") == 2
    (comment,) = marked(gh)
    assert len(gh.comments) == 1 and comment["edits"] == 2
    body = comment["body"]
    assert body.startswith(github.PLAN_MARKER)
    # the last push's plan: 2 jobs (conc 4, 8) x 8 GPUs x 1 h, and the unlisted image change
    assert "2 benchmark jobs, 16.0 GPU-hours" in body
    assert "unlisted-change" in body and tp.DSR1 in body


def test_comment_is_skipped_without_token(gh, tmp_path, monkeypatch, capsys):
    import test_plan as tp

    root = tmp_path / "repo"
    root.mkdir()
    repo = tp.Repo(root)
    base = repo.commit(tp.base_fleet(), "base")
    monkeypatch.chdir(root)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert cli.main(["plan", "--base-ref", base, "--head-ref", base, "--comment", "--pr-number", "42",
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url]) == 0
    assert "not commenting: GITHUB_TOKEN not set" in capsys.readouterr().err
    assert gh.requests == []


def test_pygithub_is_imported_lazily():
    import subprocess

    code = ("import sys; sys.path.insert(0, %r); import sweepgate.commands.plan, sweepgate.core.github; "
            "print('github' in sys.modules)") % str(ROOT / "utils")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_results_comment_posts_the_compare_report_once_per_pr(gh, tmp_path, monkeypatch, capsys):
    """run-sweep.yml's comment job: collect's `results compare --comment-file`, then `results
    comment` (the only step with pull-requests: write) on each later run edits the same comment,
    never another account's marked one."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "results"))
    import synth
    from sweepgate.results import render, store

    db = f"sqlite:///{tmp_path / 'r.db'}"
    run = [dict(r, ref=f"refs/pull/{NUMBER}/merge")  # the run of PR 42, the PR it is posted on
           for r in synth.pr_run({(synth.KEYS[0], 16): {"output_tput_per_gpu": 0.85}})]
    with store.open_store(db) as st:
        st.add(synth.history() + run)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    foreign = gh.add(f"{render.MARKER}\npasted", user="mallory")
    body = tmp_path / "comment.md"
    for attempt in range(2):
        assert cli.main(["results", "compare", "--db", db, "--run", "pr-7", "--comment-file", str(body)]) == 0
        text = body.read_text(encoding="utf-8")
        assert text.startswith(render.MARKER) and text.endswith("\n") and not text.endswith("\n\n")
        assert cli.main(["results", "comment", "--body", str(body), "--pr-number", str(NUMBER),
                         "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url]) == 0
    ours = [c for c in gh.comments.values() if render.MARKER in c["body"] and c["id"] != foreign]
    assert len(ours) == 1 and ours[0]["edits"] == 1 and "Regressed (1 point, 1 metric)" in ours[0]["body"]
    assert gh.comments[foreign]["edits"] == 0
    # anything but a compare report is refused, and nothing is posted
    (tmp_path / "other.md").write_text("hello", encoding="utf-8")
    before = len(gh.requests)
    assert cli.main(["results", "comment", "--body", str(tmp_path / "other.md"), "--pr-number", str(NUMBER),
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url]) == 1
    assert len(gh.requests) == before


# Token precedence (docs/contracts.md, "GitHub access"): GITHUB_TOKEN, else GH_TOKEN. The stand-in
# accepts only TOKEN, so a wrong token that is used shows up as a 401 and nothing posted.
TOKEN_CASES = [
    ({"GH_TOKEN": TOKEN}, True),                                # the gh CLI's variable alone
    ({"GITHUB_TOKEN": "", "GH_TOKEN": TOKEN}, True),            # an empty GITHUB_TOKEN counts as unset
    ({"GITHUB_TOKEN": TOKEN, "GH_TOKEN": "wrong-token"}, True),  # GITHUB_TOKEN wins...
    ({"GITHUB_TOKEN": "wrong-token", "GH_TOKEN": TOKEN}, False),  # ...even when GH_TOKEN would work
]


def set_tokens(monkeypatch, tokens: dict) -> None:
    for name in ("GITHUB_TOKEN", "GH_TOKEN", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in tokens.items():
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize("tokens, posts", TOKEN_CASES)
def test_plan_comment_token_precedence(gh, tmp_path, monkeypatch, capsys, tokens, posts):
    """The repository comes from GITHUB_REPOSITORY here (no --repository)."""
    import test_plan as tp

    root = tmp_path / "repo"
    root.mkdir()
    base = tp.Repo(root).commit(tp.base_fleet(), "base")
    monkeypatch.chdir(root)
    set_tokens(monkeypatch, tokens)
    monkeypatch.setenv("GITHUB_REPOSITORY", f"{OWNER}/{NAME}")
    code = cli.main(["plan", "--base-ref", base, "--head-ref", base, "--comment", "--pr-number", str(NUMBER),
                     "--github-api-url", gh.url])
    err = capsys.readouterr().err
    assert (code, len(marked(gh))) == ((0, 1) if posts else (1, 0)), err
    assert (f"created comment 1001 on {OWNER}/{NAME}#{NUMBER}" in err) == posts
    assert ("401" in err) != posts


@pytest.mark.parametrize("tokens, posts", TOKEN_CASES)
def test_results_comment_token_precedence(gh, tmp_path, monkeypatch, capsys, tokens, posts):
    from sweepgate.results.render import MARKER

    set_tokens(monkeypatch, tokens)
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    body = tmp_path / "comment.md"
    body.write_text(f"{MARKER}\nreport", encoding="utf-8")
    code = cli.main(["results", "comment", "--body", str(body), "--pr-number", str(NUMBER),
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url])
    err = capsys.readouterr().err
    assert code == (0 if posts else 1), err
    assert [c["body"] for c in gh.comments.values()] == ([f"{MARKER}\nreport"] if posts else [])
    assert ("401" in err) != posts


TOKEN_FIX, REPO_FIX = "set GITHUB_TOKEN (or GH_TOKEN)", "set GITHUB_REPOSITORY (or pass --repository OWNER/NAME)"


@pytest.mark.parametrize("argv", [
    ["results", "comment", "--body", "x.md", "--pr-number", "1"],
    ["ci", "audit"],
    ["ci", "watch", "--until", "collect", "--run-id", "1", "--attempt", "1"],
    ["ci", "dispatch", "--dry-run"],
])
@pytest.mark.parametrize("env, what", [
    # the note's leftover: a missing token alone was reported as "needs GITHUB_TOKEN and --repository"
    ({"GITHUB_REPOSITORY": f"{OWNER}/{NAME}"}, f"needs GITHUB_TOKEN: GITHUB_TOKEN is not set; {TOKEN_FIX}"),
    ({"GH_TOKEN": TOKEN}, f"needs --repository: no repository given; {REPO_FIX}"),
    ({"GH_TOKEN": TOKEN, "GITHUB_REPOSITORY": "no-slash"},
     f"needs --repository: repository 'no-slash' is not OWNER/NAME; {REPO_FIX}"),
    ({}, f"needs GITHUB_TOKEN and --repository: GITHUB_TOKEN is not set and no repository given; "
         f"{TOKEN_FIX} and {REPO_FIX}"),
])
def test_missing_credentials_are_one_line_everywhere(gh, monkeypatch, capsys, tmp_path, argv, env, what):
    """Every command that cannot work without a token and OWNER/NAME says the same thing, asks
    nothing of the API, and exits 1. (`results comment` reads and checks its report first, so it
    is given one it can post.)"""
    from sweepgate.results.render import MARKER

    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.md").write_text(f"{MARKER}\nreport\n", encoding="utf-8")
    set_tokens(monkeypatch, env)
    if "GITHUB_REPOSITORY" not in env:
        monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.setenv("GITHUB_API_URL", gh.url)
    assert cli.main(argv) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    command = "sweepgate " + " ".join(argv[:2])
    assert line == f"{command}: {what}"
    assert gh.requests == []


def test_every_github_command_takes_both_api_url_spellings_and_reads_one_default(monkeypatch):
    """--github-api-url and --api-url are one option everywhere; without it GITHUB_API_URL, then api.github.com."""
    from sweepgate import cli

    commands = {
        ("plan",): ["--base-ref", "a", "--head-ref", "b"],
        ("results", "compare"): ["--run", "r"],
        ("results", "comment"): ["--body", "b.md", "--pr-number", "1"],
        ("ci", "audit"): [],
        ("ci", "dispatch"): [],
        ("ci", "watch"): ["--until", "collect"],
    }
    for words, rest in commands.items():
        for flag in ("--github-api-url", "--api-url"):
            argv = [*words, *rest, flag, "http://127.0.0.1:9/api"]
            args = cli.build_parser(argv).parse_args(argv)
            assert args.github_api_url == "http://127.0.0.1:9/api", (words, flag)
        args = cli.build_parser([*words, *rest]).parse_args([*words, *rest])
        assert args.github_api_url is None, words
    monkeypatch.delenv("GITHUB_API_URL", raising=False)
    assert github.api_url(None) == "https://api.github.com"
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9/api/")
    assert github.api_url(None) == "http://127.0.0.1:9/api" and github.api_url("http://x/") == "http://x"


def test_a_body_over_github_s_limit_is_refused_before_posting(gh, tmp_path, monkeypatch, capsys):
    """Review: a 519 KB body was sent, and GitHub's 422 came back as "Validation Failed; see the
    GitHub API response". Refused before any request, in one line."""
    from sweepgate.results.render import MARKER

    body = tmp_path / "comment.md"
    body.write_text(MARKER + "\n" + "x" * github.COMMENT_MAX_CHARS, encoding="utf-8")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", gh.url)
    rc = cli.main(["results", "comment", "--body", str(body), "--pr-number", str(NUMBER),
                   "--repository", f"{OWNER}/{NAME}"])
    err = capsys.readouterr().err
    assert rc == 1 and "65,536" in err and len(err.strip().splitlines()) == 1, err
    assert gh.requests == [] and gh.comments == {}


# --- a comment's POST is never sent again blindly ------------------------------------------------

@pytest.fixture
def quick(gh, monkeypatch):
    """A 1 s timeout (the stand-in's slow answer takes 2 s) and short waits between tries."""
    monkeypatch.setattr(github, "API_TIMEOUT_S", 1, raising=False)
    monkeypatch.setattr(github, "API_BACKOFF_S", 0.01, raising=False)
    gh.server.handle_error = lambda *_: None  # a late answer finds the client gone (broken pipe)


def post_results_comment(gh, tmp_path, monkeypatch, text: str = "report") -> int:
    from sweepgate.results.render import MARKER

    body = tmp_path / "comment.md"
    body.write_text(f"{MARKER}\n{text}", encoding="utf-8")
    set_tokens(monkeypatch, {"GITHUB_TOKEN": TOKEN})
    return cli.main(["results", "comment", "--body", str(body), "--pr-number", str(NUMBER),
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url])


def ours(gh) -> list[dict]:
    from sweepgate.results.render import MARKER

    return [c for c in gh.comments.values() if MARKER in c["body"] and c["user"] == github.ACTIONS_BOT]


LOOKING = "the comment may have been made: listing the PR's comments before posting it again"


@pytest.mark.parametrize("login", [github.ACTIONS_BOT, None])
@pytest.mark.parametrize("outcome, why", [
    ("made-502", "GitHub API answered 502"),
    ("made-slow", "GitHub API did not answer within 1 s"),
    ("made-drop", "GitHub API closed the connection without answering"),
])
def test_a_comment_made_before_its_post_failed_is_not_posted_again(gh, quick, tmp_path, monkeypatch, capsys,
                                                                  outcome, why, login):
    """Review (a fake GitHub): a POST that made the comment and then answered 502 was sent 3 times
    (3 comments); one answered after the timeout, twice (2). Later runs edit only the first, so the
    others stayed. Now such a failure lists the comments again and takes the one it made, as it is.
    login None: a workflow's GITHUB_TOKEN (GET /user 403), and another app's marked comment, refused
    at the first listing, is not tried again."""
    from sweepgate.results.render import MARKER

    gh.login = login
    foreign = [gh.add(f"{MARKER}\npasted", user="mallory"), gh.add(f"{MARKER}\nother", user="other-app[bot]")]
    gh.post_outcomes = [outcome]
    assert post_results_comment(gh, tmp_path, monkeypatch) == 0
    err = capsys.readouterr().err
    (comment,) = ours(gh)
    assert comment["body"] == f"{MARKER}\nreport" and comment["edits"] == 0, gh.comments
    assert [m for m, _ in gh.requests].count("POST") == 1, gh.requests
    assert f"sweepgate: {why}: {LOOKING} (try 2 of {2 if outcome == 'made-slow' else 3})" in err, err
    assert err.strip().endswith(f"created comment {comment['id']} on {OWNER}/{NAME}#{NUMBER}"), err
    tried = [p for m, p in gh.requests if m == "PATCH"]  # the other app's, at the first listing only
    assert tried == ([] if login else [f"/repos/{OWNER}/{NAME}/issues/comments/{foreign[1]}"]), tried
    assert post_results_comment(gh, tmp_path, monkeypatch, "report v2") == 0  # the next run edits it
    assert [c["body"] for c in ours(gh)] == [f"{MARKER}\nreport v2"]
    assert [gh.comments[c]["edits"] for c in foreign] == [0, 0]


def test_a_post_that_made_nothing_is_sent_again_a_bounded_number_of_times(gh, quick, tmp_path, monkeypatch,
                                                                          capsys):
    """A 502 that made nothing: the listing finds no comment, so the POST goes again, 3 tries in all."""
    gh.post_outcomes = ["502", "502"]
    assert post_results_comment(gh, tmp_path, monkeypatch) == 0
    assert len(ours(gh)) == 1 and [m for m, _ in gh.requests].count("POST") == 3
    err = capsys.readouterr().err
    assert err.count(LOOKING) == 2 and "(try 3 of 3)" in err, err
    gh.comments.clear()
    gh.post_outcomes = ["502"] * 4
    before = len(gh.requests)
    assert post_results_comment(gh, tmp_path, monkeypatch) == 1
    assert ours(gh) == [] and [m for m, _ in gh.requests[before:]].count("POST") == 3
    *looking, line = capsys.readouterr().err.strip().splitlines()
    assert [x.endswith(f"{LOOKING} (try {n} of 3)") for n, x in enumerate(looking, 2)] == [True, True], looking
    assert line.startswith(f"{gh.url}: GitHub API error 502 on {OWNER}/{NAME}#{NUMBER}: Server Error; "), line


def compare_store(tmp_path) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent / "results"))
    import synth
    from sweepgate.results import store

    db = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(db) as st:
        st.add(synth.history() + synth.pr_run({(synth.KEYS[0], 16): {"output_tput_per_gpu": 0.85}},
                                              ref=f"refs/pull/{NUMBER}/merge"))
    return db


def test_results_compare_comment_is_not_posted_twice_either(gh, quick, tmp_path, monkeypatch, capsys):
    set_tokens(monkeypatch, {"GITHUB_TOKEN": TOKEN})
    gh.post_outcomes = ["made-502"]
    assert cli.main(["results", "compare", "--db", compare_store(tmp_path), "--run", "pr-7", "--comment",
                     "--pr-number", str(NUMBER), "--repository", f"{OWNER}/{NAME}",
                     "--github-api-url", gh.url]) == 0
    assert len(ours(gh)) == 1 and [m for m, _ in gh.requests].count("POST") == 1
    assert "sweepgate results compare: created comment" in capsys.readouterr().err


@pytest.mark.parametrize("gate, regressed, code", [
    (True, True, 3),    # the gate tripped: exit 3 even though the comment failed
    (True, False, 1),   # nothing regressed: the failed comment is the exit
    (False, True, 1),   # no gate asked for: likewise
])
def test_a_failed_comment_does_not_hide_the_regression_gate(gh, tmp_path, monkeypatch, capsys, gate, regressed, code):
    """Review: `results compare --comment --fail-on-regression` against an API answering 401 printed
    the report and the GitHub error, and exited 1: the workflow never learned that the run regressed."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "results"))
    import synth
    from sweepgate.results import store

    db = f"sqlite:///{tmp_path / 'r.db'}"
    drop = {(synth.KEYS[0], 16): {"output_tput_per_gpu": 0.85}} if regressed else {}
    with store.open_store(db) as st:
        st.add(synth.history() + synth.pr_run(drop, ref=f"refs/pull/{NUMBER}/merge"))
    set_tokens(monkeypatch, {"GITHUB_TOKEN": "wrong-token"})
    rc = cli.main(["results", "compare", "--db", db, "--run", "pr-7", "--comment", "--pr-number", str(NUMBER),
                   "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url,
                   *(["--fail-on-regression"] if gate else [])])
    out, err = capsys.readouterr()
    assert rc == code, err
    said = "1 point regressed (1 metric)" if regressed else "nothing failed, regressed or improved; 10 points unchanged"
    assert f"(last 5 runs): {said}" in out, out  # the report, in full
    (line,) = err.strip().splitlines()
    assert line == (f"{gh.url}: GitHub API error 401 on {OWNER}/{NAME}#{NUMBER}: Bad credentials; "
                    "check GITHUB_TOKEN / GH_TOKEN"), err
    assert gh.comments == {}


def test_compare_comment_without_a_pr_number_goes_to_the_run_s_own_pull_request(gh, tmp_path, monkeypatch, capsys):
    """newuser20: `results compare --run R --comment` said "not commenting: --pr-number not set" of a
    run whose results are stored under refs/pull/N/…, which names the PR."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "results"))
    import synth
    from sweepgate.results import store

    db = f"sqlite:///{tmp_path / 'r.db'}"
    run = [dict(r, ref=f"refs/pull/{NUMBER}/merge") for r in synth.pr_run()]  # the PR run, on PR 42
    with store.open_store(db) as st:
        st.add(synth.history() + run)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    capsys.readouterr()
    assert cli.main(["results", "compare", "--db", db, "--run", "pr-7", "--comment", "--repository",
                     f"{OWNER}/{NAME}", "--github-api-url", gh.url]) == 0
    assert capsys.readouterr().err.strip().endswith(f"created comment 1001 on {OWNER}/{NAME}#{NUMBER}")
    assert [p for m, p in gh.requests if m == "POST"] == [f"/repos/{OWNER}/{NAME}/issues/{NUMBER}/comments"]
    # a run on main names no pull request: still "not commenting", as before
    assert cli.main(["results", "compare", "--db", db, "--run", "main-4", "--comment", "--repository",
                     f"{OWNER}/{NAME}", "--github-api-url", gh.url]) == 0
    assert "not commenting: --pr-number not set" in capsys.readouterr().err
