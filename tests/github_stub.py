"""A local stand-in for the GitHub REST API: a route table on a real HTTP server (127.0.0.1).

Routes map (METHOD, path) to (status, JSON body) or to a callable(payload, query) returning one;
an answer may carry a third item, response headers (Link, Location, Content-Type). A bytes body
is sent as it is (an artifact zip). A public route answers without a token (a signed storage URL).
Response shapes follow GitHub's REST documentation for each endpoint the tests use.
Every request is recorded as (method, path, payload) in ``requests``, its whole target
(path and query string) in ``targets``, and when it arrived (``time.time()``) in ``arrived``: a
test of a wait checks the gap between two requests, not the wall time of a command on a busy host.
``paged`` answers a list endpoint page by page as GitHub does (``per_page`` default 30, max 100;
``page`` from 1; a ``Link`` header). ``created_filter`` reads the ``created`` filter of the
workflow-runs lists as GitHub's search syntax for dates documents it.
"""

from __future__ import annotations

import json
import re
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

TOKEN = "stub-token-not-secret"


def paged(key: str, items: list, url: str = ""):
    """A route answer for a GitHub list endpoint: ``{"total_count": N, key: [page of items]}``.
    ``url`` (the stub's URL and the route's path) makes the ``Link: <…>; rel="next"`` header."""
    def answer(payload, query):
        per_page = min(int((query.get("per_page") or ["30"])[0]), 100)
        page = int((query.get("page") or ["1"])[0])
        chunk = items[(page - 1) * per_page:page * per_page]
        more = page * per_page < len(items)
        headers = {"Link": f'<{url}?per_page={per_page}&page={page + 1}>; rel="next"'} if more and url else {}
        return 200, {"total_count": len(items), key: chunk}, headers
    return answer


# GitHub's search syntax for dates (docs.github.com, "Understanding the search syntax", "Query for dates"):
# YYYY-MM-DD, with optional time information THH:MM:SS and a UTC offset (+00:00) or Z.
SEARCH_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}:\d{2})(Z|[+-]\d{2}:\d{2}))?$")


def _span(text: str) -> tuple[datetime, datetime] | None:
    """The times a date (a whole day) or a date and time (that second) covers: [from, to)."""
    m = SEARCH_DATE.match(text)
    if not m:
        return None
    day, time, zone = m.groups()
    if time is None:
        start = datetime.fromisoformat(day).replace(tzinfo=timezone.utc)
        return start, start + timedelta(days=1)
    start = datetime.fromisoformat(f"{day}T{time}{'+00:00' if zone == 'Z' else zone}")
    return start, start + timedelta(seconds=1)


def created_filter(value: str):
    """A predicate on a run's ``created_at`` (ISO 8601) for a ``created`` query value: ``>D``, ``>=D``,
    ``<D``, ``<=D``, a range ``D..D`` (both ends included), ``D..*`` or ``*..D``, or ``D`` alone; None for
    a value that is none of these."""
    def at(run_created: str) -> datetime:
        return datetime.fromisoformat(run_created.replace("Z", "+00:00"))

    for op, test in ((">=", lambda c, s: c >= s[0]), ("<=", lambda c, s: c < s[1]),
                     (">", lambda c, s: c >= s[1]), ("<", lambda c, s: c < s[0])):
        if value.startswith(op):
            span = _span(value[len(op):])
            return None if span is None else (lambda created, span=span, test=test: test(at(created), span))
    low, dots, high = value.partition("..")
    if not dots:
        span = _span(value)
        return None if span is None else (lambda created: span[0] <= at(created) < span[1])
    lo = None if low == "*" else _span(low)
    hi = None if high == "*" else _span(high)
    if (low != "*" and lo is None) or (high != "*" and hi is None) or (lo is None and hi is None):
        return None
    return lambda created: ((lo is None or at(created) >= lo[0]) and (hi is None or at(created) < hi[1]))


def serve(handle, methods: tuple[str, ...]) -> tuple[ThreadingHTTPServer, str]:
    """A real HTTP server on 127.0.0.1 (a free port) serving from a daemon thread, and its URL: a request of one of
    ``methods`` goes to ``handle(request, method)``, any other gets http.server's 501; nothing is logged."""
    def answer(method: str):
        return lambda request: handle(request, method)

    handler = type("Handler", (BaseHTTPRequestHandler,), {"log_message": lambda request, *args: None,
                                                          **{f"do_{m}": answer(m) for m in methods}})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class GitHubStub:
    def __init__(self):
        self.routes: dict[tuple[str, str], object] = {}
        self.requests: list[tuple[str, str, dict]] = []
        self.targets: list[str] = []
        self.arrived: list[float] = []
        self.public: set[tuple[str, str]] = set()
        self.prefixes: dict[tuple[str, str], object] = {}  # (method, path prefix) -> answer(payload, query, rest)
        self.server, self.url = serve(self.handle, ("GET", "POST"))

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def route(self, method: str, path: str, answer, status: int = 200, *, headers: dict | None = None,
              public: bool = False):
        self.routes[(method, path)] = answer if callable(answer) else (status, answer, headers or {})
        if public:
            self.public.add((method, path))

    def route_prefix(self, method: str, prefix: str, answer):
        """Answer every ``method`` request under ``prefix`` no exact route answers: ``answer(payload,
        query, rest)``, ``rest`` the path after the prefix (a compare's BASE...HEAD)."""
        self.prefixes[(method, prefix)] = answer

    def _prefixed(self, method: str, path: str):
        for (m, prefix), answer in self.prefixes.items():
            if m == method and path.startswith(prefix):
                return lambda payload, query, answer=answer, rest=path[len(prefix):]: answer(payload, query, rest)
        return None

    def handle(self, req, method):
        self.arrived.append(time.time())
        parts = urlsplit(req.path)
        length = int(req.headers.get("Content-Length") or 0)
        payload = json.loads(req.rfile.read(length) or b"{}") if length else {}
        self.requests.append((method, parts.path, payload))
        self.targets.append(req.path)
        public = (method, parts.path) in self.public
        if not public and req.headers.get("Authorization") not in (f"token {TOKEN}", f"Bearer {TOKEN}"):
            return self.send(req, 401, {"message": "Bad credentials"})
        answer = self.routes.get((method, parts.path)) or self._prefixed(method, parts.path)
        if answer is None:
            return self.send(req, 404, {"message": "Not Found",
                                        "documentation_url": "https://docs.github.com/rest"})
        if callable(answer):
            answer = answer(payload, parse_qs(parts.query))
        self.send(req, *answer)

    def send(self, req, status, body, headers=None):
        raw = isinstance(body, bytes)
        data = body if raw else b"" if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/octet-stream" if raw else "application/json; charset=utf-8",
                   **(headers or {})}
        req.send_response(status)
        for name, value in headers.items():
            req.send_header(name, value)
        req.send_header("Content-Length", str(len(data)))
        req.end_headers()
        req.wfile.write(data)


GIT_ENV = {"GIT_AUTHOR_NAME": "stand-in", "GIT_AUTHOR_EMAIL": "stand-in@example.invalid", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_COMMITTER_NAME": "stand-in", "GIT_COMMITTER_EMAIL": "stand-in@example.invalid",
           "HOME": "/nonexistent", "PATH": "/usr/local/bin:/usr/bin:/bin"}


class GitHistory:
    """A repository's branches and commit comparisons, answered from a real git repository at ``path``
    (made with one commit on ``main``): ``GET {repo}/branches/NAME`` (GitHub's "Get a branch": the
    branch's head commit; a tag of that name is no branch) and ``GET {repo}/compare/BASE...HEAD``
    (GitHub's "Compare two commits": ``status`` ahead, behind, identical or diverged, ``ahead_by`` and
    ``behind_by``, git resolving each side as GitHub resolves a ref, a tag before a branch of one name;
    404 for what names no commit). ``commit`` and ``tag`` grow it. ``dispatch`` answers a workflow's
    ``POST …/dispatches`` (GitHub's "Create a workflow dispatch event": ``ref`` a branch or tag, short or
    full) and records in ``dispatched`` the full ref the run would be made on, a short name resolved as
    ``compare`` resolves one (which of a tag and a branch of one name GitHub takes, it does not say)."""

    def __init__(self, stub: GitHubStub, repo: str, path):
        self.stub, self.repo, self.path = stub, repo, str(path)
        self.dispatched: list[str] = []
        self.git("init", "-q", "-b", "main")
        self.main = self.commit()
        stub.route_prefix("GET", f"{repo}/branches/", self.branch)
        stub.route_prefix("GET", f"{repo}/compare/", self.compare)

    def git(self, *args: str, check: bool = True) -> str:
        import subprocess

        done = subprocess.run(["git", "-C", self.path, *args], capture_output=True, text=True, env=GIT_ENV)
        if check and done.returncode:
            raise RuntimeError(f"git {' '.join(args)}: {done.stderr}")
        return done.stdout.strip() if done.returncode == 0 else ""

    def commit(self, parent: str | None = None) -> str:
        """A new empty commit: on main (its head then), or, with ``parent``, beside main on no branch."""
        if parent is None:
            self.git("commit", "-q", "--allow-empty", "-m", "a commit on main")
            self.main = self.git("rev-parse", "refs/heads/main")
            return self.main
        return self.git("commit-tree", "-p", parent, "-m", "a commit on no branch", f"{parent}^{{tree}}")

    def tag(self, name: str, sha: str) -> None:
        self.git("tag", "-f", name, sha)

    def resolve(self, ref: str) -> str:
        return self.git("rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False)

    def full_ref(self, ref: str) -> str:
        """The full ref ``ref`` names: itself if it is one, else ``refs/tags/REF`` before ``refs/heads/REF``
        (git's order); "" for none."""
        candidates = [ref] if ref.startswith("refs/") else [f"refs/tags/{ref}", f"refs/heads/{ref}"]
        return next((c for c in candidates if self.git("rev-parse", "-q", "--verify", c, check=False)), "")

    def dispatch(self, payload, _query):
        ref = payload.get("ref") if isinstance(payload, dict) else None
        if not isinstance(ref, str) or not (full := self.full_ref(ref)):
            return 422, {"message": f"No ref found for: {ref}"}
        self.dispatched.append(full)
        return 204, None

    def branch(self, _payload, _query, name: str):
        from urllib.parse import unquote

        sha = self.git("rev-parse", "-q", "--verify", f"refs/heads/{unquote(name)}", check=False)
        if not sha:
            return 404, {"message": "Branch not found"}
        return 200, {"name": unquote(name), "protected": False,
                     "commit": {"sha": sha, "url": f"{self.stub.url}{self.repo}/commits/{sha}"}}

    def compare(self, _payload, _query, basehead: str):
        from urllib.parse import unquote

        base, dots, head = unquote(basehead).partition("...")
        base_sha, head_sha = self.resolve(base), self.resolve(head)
        if not (dots and base_sha and head_sha):
            return 404, {"message": "Not Found"}
        behind, ahead = map(int, self.git("rev-list", "--left-right", "--count", f"{base_sha}...{head_sha}").split())
        status = ("identical" if not (ahead or behind) else "ahead" if not behind else "behind" if not ahead
                  else "diverged")
        url = f"{self.stub.url}{self.repo}/compare/{base}...{head}"
        return 200, {"url": url, "html_url": url, "status": status, "ahead_by": ahead, "behind_by": behind,
                     "total_commits": ahead, "commits": [], "files": []}
