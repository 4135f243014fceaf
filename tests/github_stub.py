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


class GitHubStub:
    def __init__(self):
        self.routes: dict[tuple[str, str], object] = {}
        self.requests: list[tuple[str, str, dict]] = []
        self.targets: list[str] = []
        self.arrived: list[float] = []
        self.public: set[tuple[str, str]] = set()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                stub.handle(self, "GET")

            def do_POST(self):
                stub.handle(self, "POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def route(self, method: str, path: str, answer, status: int = 200, *, headers: dict | None = None,
              public: bool = False):
        self.routes[(method, path)] = answer if callable(answer) else (status, answer, headers or {})
        if public:
            self.public.add((method, path))

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
        answer = self.routes.get((method, parts.path))
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
