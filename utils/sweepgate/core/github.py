"""One PR comment per tool, found by a hidden marker and updated in place (PyGithub).

PyGithub is imported only here, and only when a comment is actually posted.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable

from sweepgate.core.errors import Diagnostic, SweepgateError, os_reason
from sweepgate.core.fields import WORKFLOWS_FOLDER

PLAN_MARKER = "<!-- sweepgate-plan -->"
DEFAULT_API_URL = "https://api.github.com"
ACTIONS_BOT = "github-actions[bot]"  # the login behind a workflow's GITHUB_TOKEN
COMMENT_MAX_CHARS = 65_536  # GitHub refuses a longer issue comment (422)
COMMENT_LIMIT = 65_000  # what a report is cut to: room for the marker line under COMMENT_MAX_CHARS
# Where the token is read, first set wins: a workflow's token, then the gh CLI's variable.
TOKEN_VARIABLES = ("GITHUB_TOKEN", "GH_TOKEN")
STEP_SUMMARY_VARIABLE = "GITHUB_STEP_SUMMARY"  # the file a GitHub Actions step appends its Markdown summary to
# What GitHub Actions sets in a job, read for the web addresses a report links (``repository_url``, ``workflow_run``).
ACTIONS_VARIABLE = "GITHUB_ACTIONS"        # "true" inside a workflow run
SERVER_URL_VARIABLE = "GITHUB_SERVER_URL"  # https://github.com, or a GitHub Enterprise server
REPOSITORY_VARIABLE = "GITHUB_REPOSITORY"  # OWNER/NAME
RUN_ID_VARIABLE = "GITHUB_RUN_ID"          # the workflow run's id: its page is SERVER/OWNER/NAME/actions/runs/ID
# A GitHub owner or repository name: ASCII letters, digits, '-', '_' and '.' (not \w, which takes any script's
# letters and digits); OWNER/NAME as pr-links, remotes' URLs and GITHUB_REPOSITORY write it
NAME_PART = r"[A-Za-z0-9_.-]+"
OWNER_NAME_TEXT = rf"{NAME_PART}/{NAME_PART}"
OWNER_NAME = re.compile(rf"^{OWNER_NAME_TEXT}$")
TOKEN_HINT = "set GITHUB_TOKEN (or GH_TOKEN)"
REPOSITORY_HINT = "set GITHUB_REPOSITORY (or pass --repository OWNER/NAME)"
PASS_REPOSITORY = "pass --repository OWNER/NAME"


def not_owner_name(repository: str) -> str:
    """The refusal of a repository that is not named OWNER/NAME (OWNER_NAME)."""
    return f"repository '{repository}' is not OWNER/NAME"
API_URL_HINT = (f"check --github-api-url / GITHUB_API_URL: the REST API base, {DEFAULT_API_URL} "
                "or https://HOST/api/v3 for GitHub Enterprise")
# Every request's bounds (core.github_retry): no command waits on the API for more than about two minutes.
API_TIMEOUT_S = 30     # connect and read timeout of one request, whole seconds (PyGithub asserts an int)
API_TRIES = 3          # tries of one request: after a 5xx, a connection error or a rate limit that resets soon
API_READ_TRIES = 2     # of which a request that timed out (a slow API answers no faster the third time)
API_MAX_WAIT_S = 60.0  # the longest wait before a retry; a rate limit lasting longer gives up at once
API_BACKOFF_S = 1.0    # urllib3's backoff factor between retries after a 5xx or a connection error


def _fail(message: str, hint: str) -> SweepgateError:
    return SweepgateError(Diagnostic("github", 0, 0, "github-comment", message, hint))


def owner_name(text: str) -> str | None:
    """The argparse type of every --repository flag: OWNER/NAME, or None when empty (an unset
    workflow expression), so a malformed value is a usage error (exit 2) like any bad flag value."""
    import argparse

    text = text.strip()
    if text and not OWNER_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(f"'{text}' is not OWNER/NAME; pass e.g. SemiAnalysisAI/InferenceX")
    return text or None


# A github.com remote's URL, as git takes it (the host in any case): http(s)://[USER[:TOKEN]@]github.com[:PORT]/O/N,
# ssh://[USER@](ssh.)github.com[:PORT]/O/N (ssh.github.com:443 is GitHub's SSH over the HTTPS port), scp-like
# [USER@](ssh.)github.com:O/N (USER git, or org-ID of an SSH certificate); each with or without .git and a '/'.
# git+ssh:// and ssh+git:// are ssh:// to git, and git:// (git's own protocol) names the repository as well
REMOTE_URL = re.compile(r"^(?:https?://(?:[^@/]+@)?github\.com(?::\d+)?/|(?:ssh|git\+ssh|ssh\+git|git)://(?:[^@/]+@)?"
                        r"(?:ssh\.)?github\.com"
                        r"(?::\d+)?/|(?:[^@/:]+@)?(?:ssh\.)?github\.com:/?)"
                        rf"({NAME_PART}/{NAME_PART}?)(?:\.git)?/?$", re.IGNORECASE)  # NAME lazily: without its .git


def remote_repository(url: str) -> str | None:
    """OWNER/NAME of a github.com remote URL, else None (another host, a local path)."""
    m = REMOTE_URL.match(url.strip())
    return m.group(1) if m else None


def token() -> str | None:
    """The GitHub token: the first of TOKEN_VARIABLES that is set and not empty, else None.
    The only place sweepgate reads a token from the environment."""
    return next((os.environ[name] for name in TOKEN_VARIABLES if os.environ.get(name)), None)


def repository(explicit: str | None = None) -> str | None:
    """OWNER/NAME from --repository, else $GITHUB_REPOSITORY, else None (not checked here).
    The only place sweepgate reads GITHUB_REPOSITORY."""
    for candidate in (explicit, os.environ.get(REPOSITORY_VARIABLE)):
        if candidate and candidate.strip():
            return candidate.strip()
    return None


def step_summary_path() -> str | None:
    """$GITHUB_STEP_SUMMARY for a command that appends to it unasked (``ci decide``, ``ci watch``: no
    --step-summary flag); None when unset or blank. '-' is refused, naming the variable, before the
    command writes anything: it would name a file called '-' (compare and plan refuse it alike); so is a folder."""
    from sweepgate.core.errors import fail, is_a_folder
    from sweepgate.core.outpaths import NAMES_A_FILE, no_standard_stream

    path = os.environ.get(STEP_SUMMARY_VARIABLE, "").strip()
    if path == "-":
        raise fail(path, 0, f"${STEP_SUMMARY_VARIABLE}: {no_standard_stream('output', NAMES_A_FILE)}",
                   f"set ${STEP_SUMMARY_VARIABLE} to a file, or unset it")
    if path and os.path.isdir(path):  # found now, not after the command's outputs are written
        raise fail(path, 0, f"${STEP_SUMMARY_VARIABLE}: {is_a_folder()}",
                   f"set ${STEP_SUMMARY_VARIABLE} to a file, or unset it")
    return path or None


STEP_SUMMARY_LIMIT = 1_000_000  # bytes; GitHub caps a step's summary at 1 MiB
STEP_SUMMARY_HINT = f"check --step-summary / ${STEP_SUMMARY_VARIABLE}"


def step_summary_room(path: str) -> int:
    """The bytes a step summary at ``path`` has left under STEP_SUMMARY_LIMIT (all of them when there is no
    such file or its size cannot be read)."""
    try:
        return STEP_SUMMARY_LIMIT - os.path.getsize(path)
    except OSError:
        return STEP_SUMMARY_LIMIT


def append_step_summary(path: str, text: str) -> None:
    """Append ``text`` to the step summary at ``path`` (a refusal names STEP_SUMMARY_HINT)."""
    from sweepgate.core.atomic import append_text
    from sweepgate.core.fields import STEP_SUMMARY_RULE

    append_text(path, text, what="the step summary", hint=STEP_SUMMARY_HINT, rule=STEP_SUMMARY_RULE)


def repository_url() -> str | None:
    """The repository's web address (SERVER_URL_VARIABLE/REPOSITORY_VARIABLE, as a job has them), so a
    report links the commit and the workflow run it names; None when either is unset or malformed."""
    server, repo = os.environ.get(SERVER_URL_VARIABLE), os.environ.get(REPOSITORY_VARIABLE)
    if not (server and repo and re.fullmatch(r"https?://[^\s()]+", server) and OWNER_NAME.fullmatch(repo)):
        return None
    return f"{server.rstrip('/')}/{repo}"


def run_page(web: str, run) -> str:
    """The web page of workflow run ``run`` of the repository at ``web`` (``repository_url``)."""
    return f"{web}/actions/runs/{run}"


def workflow_run() -> tuple[str, str] | None:
    """(web address, id) of the GitHub Actions workflow run this runs in (ACTIONS_VARIABLE "true",
    RUN_ID_VARIABLE and ``repository_url``): the page that shows its jobs' step summaries and
    artifacts. None elsewhere (a GITHUB_RUN_ID set by hand names no run this wrote anything to)."""
    run, web = os.environ.get(RUN_ID_VARIABLE, ""), repository_url()
    if os.environ.get(ACTIONS_VARIABLE) != "true" or not web or not (run.isascii() and run.isdigit()):
        return None
    return run_page(web, run), run


def credentials_problem(command: str, tok: str | None, repo: str | None, *, needed_by: str = "",
                        alternative: str = "", rule: str = "github") -> Diagnostic | None:
    """The one-line diagnostic (exit 1) of a command that cannot work without a token and
    OWNER/NAME, or None when both are usable. ``needed_by`` names the flag that needs them."""
    repo_ok = bool(repo and OWNER_NAME.fullmatch(repo))
    if tok and repo_ok:
        return None
    needs, whats, fixes = [], [], []
    if not tok:
        needs.append("GITHUB_TOKEN"), whats.append("GITHUB_TOKEN is not set"), fixes.append(TOKEN_HINT)
    if not repo_ok:
        needs.append("--repository"), fixes.append(REPOSITORY_HINT)
        whats.append(not_owner_name(repo) if repo else "no repository given")
    message = f"{needed_by + ' ' if needed_by else ''}needs {' and '.join(needs)}: {' and '.join(whats)}"
    hint = " and ".join(fixes) + (f", or {alternative}" if alternative else "")
    return Diagnostic(command, 0, 0, rule, message, hint)


def credentials(command: str, explicit: str | None = None, **kw) -> tuple[str, str]:
    """(token, OWNER/NAME), or SweepgateError with ``credentials_problem``'s diagnostic."""
    tok, repo = token(), repository(explicit)
    problem = credentials_problem(command, tok, repo, **kw)
    if problem:
        raise SweepgateError(problem)
    return tok, repo


def own_login(client) -> str | None:
    """The token's own account (GET /user); None for a token that may not read /user (403,
    "Resource not accessible by integration"): a workflow's GITHUB_TOKEN (it comments as
    ACTIONS_BOT) or a GitHub App's installation token (as "<app>[bot]")."""
    from github import GithubException

    try:
        return client.get_user().login
    except GithubException as exc:
        if exc.status == 403 and not rate_limited(exc):  # a rate limit says nothing about the token
            return None
        raise


def _candidates(comments, marker: str, me: str | None) -> list:
    """The marked comments that may be ours, the likeliest first. Known account: its own only.
    Unknown (a bot token): those of bot accounts, ACTIONS_BOT's first; a person's never (anyone
    can paste the marker), and the edit itself tells: a token may not edit another app's."""
    marked = [c for c in comments if marker in (c.body or "") and c.user is not None]
    if me is not None:
        return [c for c in marked if c.user.login == me]
    bots = [c for c in marked if c.user.type == "Bot" or c.user.login.endswith("[bot]")]
    return sorted(bots, key=lambda c: c.user.login != ACTIONS_BOT)


def comment_if_configured(command: str, explicit_repository: str | None, number: int | None, make_body,
                          *, base_url: str | None = None, marker: str = PLAN_MARKER) -> None:
    """Upsert a command's marked PR comment when a token (``token()``), a PR number and a
    repository (``repository()``) are all given; otherwise say on stderr what is missing and
    post nothing.

    ``make_body()`` builds the body only when there is somewhere to post it.
    """
    import sys

    tok, repo = token(), repository(explicit_repository)
    missing = [(what, fix) for what, value, fix in (("GITHUB_TOKEN", tok, TOKEN_HINT),
                                                    ("--pr-number", number, "pass --pr-number N"),
                                                    ("--repository", repo, REPOSITORY_HINT)) if not value]
    if missing:  # a note, and the command goes on (CONTRACTS: GitHub access); what to set, on the same line
        print(f"{command}: not commenting: {', '.join(w for w, _ in missing)} not set; "
              f"{' and '.join(f for _, f in missing)} to comment", file=sys.stderr)
        return
    action, comment_id = upsert_comment(repo, number, make_body(), tok, base_url=base_url, marker=marker)
    print(f"{command}: {action} comment {comment_id} on {repo}#{number}", file=sys.stderr)


COMMENT_HINTS = {401: "check GITHUB_TOKEN / GH_TOKEN", 403: "the token needs 'pull-requests: write' (or issues: write)",
                 404: "check --repository and --pr-number"}


def upsert_comment(repository: str, number: int, body: str, token: str, *, base_url: str | None = None,
                   marker: str = PLAN_MARKER) -> tuple[str, int]:
    """Create the marked comment on issue/PR ``number``, or edit the existing one, which
    must carry the marker and have been written by the token's own account.

    Returns ("created" | "updated", comment id). The body always carries the marker.
    """
    if not OWNER_NAME.fullmatch(repository):
        raise _fail(not_owner_name(repository), PASS_REPOSITORY)
    if marker not in body:
        body = f"{marker}\n{body}"
    if len(body) > COMMENT_MAX_CHARS:
        raise _fail(f"the comment body is {len(body):,} characters; GitHub takes at most {COMMENT_MAX_CHARS:,}",
                    "post the body `results compare --comment-file` wrote (cut to fit), or shorten it")
    try:
        import github  # noqa: F401 - PyGithub, here so that its absence is one line
    except ImportError:  # pragma: no cover - PyGithub is a declared dependency
        raise _fail("PyGithub is not installed", "pip install PyGithub") from None

    client = connect(token, base_url, resend_posts=False)  # a POST that may have made it: _create
    asked = "user"
    try:
        me = own_login(client)
        asked = "pr"
        issue = client.get_repo(repository).get_issue(number)
        tried: set[int] = set()
        if (comment_id := _edit_ours(issue, body, marker, me, tried)) is not None:
            return "updated", comment_id
        return _create(issue, body, marker, me, tried)
    except Exception as exc:  # noqa: BLE001 - api_error raises what is not the API's doing as it is
        status = getattr(exc, "status", None)
        # GET /user names no repository or PR: its 404 is an API URL with no such route (s47g: `.../nope` was told
        # to check --repository and --pr-number)
        hint = API_URL_HINT if (asked, status) == ("user", 404) else COMMENT_HINTS.get(status, "see the GitHub API response")
        raise api_error(exc, f"on {repository}#{number}", hint, base_url) from None
    finally:
        try:
            client.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass


def _edit_ours(issue, body: str, marker: str, me: str | None, tried: set, *, as_is: bool = False) -> int | None:
    """Edit our marked comment (``_candidates``) to ``body``: its id, or None when there is none.
    A candidate in ``tried`` is passed over, and each one tried is added to it. ``as_is``: one that
    already reads ``body`` is taken without an edit."""
    from github import GithubException

    for comment in _candidates(issue.get_comments(), marker, me):
        if comment.id in tried:
            continue
        tried.add(comment.id)
        if as_is and comment.body == body:
            return comment.id
        try:
            comment.edit(body)
        except GithubException as exc:
            if me is None and exc.status in (403, 404):  # another app's: not ours to edit
                continue
            raise
        return comment.id
    return None


def _create(issue, body: str, marker: str, me: str | None, tried: set) -> tuple[str, int]:
    """POST the comment, never again blindly: after a failure that may have made it (``_maybe_made``)
    the PR's comments are listed again, and a new one of ours found there is the one made (edited to
    ``body`` unless it reads so). Only when none is does the POST go again: API_TRIES tries in all,
    API_READ_TRIES after a timeout. ("created", comment id)."""
    import sys
    import time

    attempt = 1
    while True:
        try:
            return "created", issue.create_comment(body).id
        except Exception as exc:  # noqa: BLE001 - what is not a maybe-made failure is raised as it is
            why, tries = _maybe_made(exc), API_READ_TRIES if _timed_out(exc) else API_TRIES
            if why is None or attempt >= tries:
                raise
        print(f"sweepgate: {why}: the comment may have been made: listing the PR's comments before posting it "
              f"again (try {attempt + 1} of {tries})", file=sys.stderr, flush=True)
        time.sleep(API_BACKOFF_S * attempt)  # a 502 may come before the API has finished making it
        if (comment_id := _edit_ours(issue, body, marker, me, tried, as_is=True)) is not None:
            return "created", comment_id
        attempt += 1


def _maybe_made(exc) -> str | None:
    """Why a failed POST may still have made what it asked for: a 5xx answer, no answer in time, or
    a connection closed after the request went out. None for a refusal (4xx, a rate limit), a
    connection never made, or an answer that is not GitHub's."""
    import requests
    import urllib3
    from github import GithubException

    if isinstance(exc, GithubException):
        return f"GitHub API answered {exc.status}" if exc.status >= 500 else None
    if _timed_out(exc):
        return f"GitHub API did not answer within {API_TIMEOUT_S} s"
    if isinstance(exc, requests.ConnectionError) and not any(
            isinstance(e, urllib3.exceptions.NewConnectionError) for e in _errors_in(exc)):
        return "GitHub API closed the connection without answering"
    return None


def add_repository_options(parser) -> None:
    """The options of a command that asks GitHub's API: ``--repository`` (OWNER/NAME, default
    $GITHUB_REPOSITORY) and ``add_api_url_option``'s REST API base."""
    parser.add_argument("--repository", type=owner_name, help=f"OWNER/NAME (default: ${REPOSITORY_VARIABLE})")
    add_api_url_option(parser)


def add_api_url_option(parser) -> None:
    """The one REST API base option (``--github-api-url``, also spelt ``--api-url``)."""
    parser.add_argument("--github-api-url", "--api-url", dest="github_api_url", default=None, metavar="URL",
                        type=_url_argument,
                        help=f"GitHub REST API base URL (default: $GITHUB_API_URL or {DEFAULT_API_URL})")


def _url_problem(value: str) -> str | None:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- raises on a port that is not a number
    except ValueError as exc:
        return f"{value!r} is not a URL ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{value!r} is not an http(s) URL with a host"
    return None


def _url_argument(value: str) -> str:
    import argparse

    if problem := _url_problem(value):
        raise argparse.ArgumentTypeError(f"{problem}; pass e.g. {DEFAULT_API_URL}")
    return value


def api_url(explicit: str | None = None) -> str:
    """The REST API base: ``explicit`` (the option), then GITHUB_API_URL, then api.github.com."""
    url = explicit or os.environ.get("GITHUB_API_URL") or DEFAULT_API_URL
    if problem := _url_problem(url):
        from sweepgate.core.errors import fail

        raise fail("--github-api-url" if explicit else "GITHUB_API_URL", 0, problem,
                   f"set it to the REST API base, e.g. {DEFAULT_API_URL}")
    return url.rstrip("/")


def _retry(resend_posts: bool = True):
    """Bounded retries (API_TRIES, API_MAX_WAIT_S); the last error answer is returned to PyGithub,
    which raises it as a GithubException (not urllib3's "too many 500 error responses").
    ``resend_posts`` False: a POST is tried again after a rate limit only (which made nothing), not
    after a 5xx or no answer, which may have made what it asked for."""
    from sweepgate.core.github_retry import BoundedRetry

    methods = BoundedRetry.DEFAULT_ALLOWED_METHODS | ({"GET", "POST"} if resend_posts else {"GET"})
    return BoundedRetry(total=API_TRIES - 1, read=API_READ_TRIES - 1, backoff_factor=API_BACKOFF_S,
                        raise_on_status=False, max_rate_limit_wait=API_MAX_WAIT_S, allowed_methods=methods)


def _client(token: str, base_url: str | None, resend_posts: bool = True):
    from github import Auth, Github

    client = Github(auth=Auth.Token(token), base_url=api_url(base_url), timeout=API_TIMEOUT_S,
                    retry=_retry(resend_posts), seconds_between_requests=None, seconds_between_writes=None, lazy=True)
    client.requester.requestJsonAndCheck = _checking(client.requester.requestJsonAndCheck)
    return client


def connect(token: str, base_url: str | None = None, *, resend_posts: bool = True):
    """A PyGithub client for ``base_url`` (default api.github.com); PyGithub is imported here.
    PyGithub's own failure log lines are muted: callers turn errors into one diagnostic (``api_error``).
    ``resend_posts`` False: a POST is not sent again after a 5xx or no answer (``_retry``)."""
    import logging

    import github  # noqa: F401 - importing PyGithub sets its logger's level: mute it after

    logging.getLogger("github").setLevel(logging.CRITICAL)
    return _client(token, base_url, resend_posts)


PER_PAGE = 100  # GitHub's largest page of a list endpoint (runs' jobs, secrets, runner groups, ...)
UNEXPECTED_SHAPE = "JSON of an unexpected shape"  # what an answer is that is JSON, but not of the shape asked for


class NotGitHubJSON(Exception):
    """A success answer that is not GitHub's JSON (a web page at a wrong --github-api-url); ``what`` it was."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


def _not_github_json(verb: str, data) -> str | None:
    """What a parsed answer is when it is not GitHub's JSON, else None. PyGithub wraps a body that
    is not JSON as {"data": text} (plus "url" on a GET) and an empty one as None (fine for a write's 204)."""
    if data is None:
        return "an empty body" if verb == "GET" else None
    if isinstance(data, dict) and set(data) <= {"data", "url"} and isinstance(data.get("data"), str):
        return "an HTML page" if data["data"].lstrip().startswith("<") else "text that is not JSON"
    return None if isinstance(data, (dict, list)) else UNEXPECTED_SHAPE


def _checking(request):
    """``Requester.requestJsonAndCheck`` (every JSON call PyGithub makes) refusing an answer that
    is not GitHub's JSON with NotGitHubJSON, instead of PyGithub's TypeError or JSONDecodeError."""
    def request_json_and_check(verb, url, *args, **kwargs):
        try:
            headers, data = request(verb, url, *args, **kwargs)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise NotGitHubJSON("invalid JSON") from None
        if what := _not_github_json(verb, data):
            raise NotGitHubJSON(what)
        return headers, data

    return request_json_and_check


def json_object(data) -> dict:
    """``data`` when a JSON object, else NotGitHubJSON (for callers reading an endpoint's answer)."""
    if not isinstance(data, dict):
        raise NotGitHubJSON(UNEXPECTED_SHAPE)
    return data


def _api_message(exc):
    """GitHub's message in an error response, with what a 422 says it refused (its ``errors``)."""
    data = getattr(exc, "data", None)
    if not isinstance(data, dict):
        return data or exc
    if what := _not_github_json("", data):  # a proxy's error page
        return what
    errors = data.get("errors") if isinstance(data.get("errors"), list) else []
    said = [e.get("message") or json.dumps(e) if isinstance(e, dict) else str(e) for e in errors]
    return "; ".join([str(data.get("message")), *said]) if said else data.get("message")


def _misread(exc) -> bool:
    """A TypeError/AttributeError/KeyError raised inside PyGithub: it built its objects from JSON of
    another shape than GitHub's (a dict where a list was due)."""
    import traceback
    from pathlib import Path

    import github

    if not isinstance(exc, (TypeError, AttributeError, KeyError)):
        return False
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and Path(frames[-1].filename).is_relative_to(Path(github.__file__).parent)


def _header(exc, name: str) -> str | None:
    headers = getattr(exc, "headers", None) or {}
    return next((str(v) for k, v in headers.items() if k.lower() == name.lower()), None)


def rate_limited(exc) -> bool:
    """Whether ``exc`` is GitHub's primary or secondary rate limit (a 403 or 429 saying so)."""
    from github import GithubException, RateLimitExceededException

    if not isinstance(exc, GithubException) or exc.status not in (403, 429):
        return False
    return (isinstance(exc, RateLimitExceededException) or exc.status == 429 or _header(exc, "Retry-After") is not None
            or _header(exc, "X-RateLimit-Remaining") == "0")


def transient(exc) -> bool:
    """Whether the API may answer ``exc``'s call if asked again later: a rate limit, a 5xx, no answer
    in time, no connection (not a refusal such as 401, 403 without a rate limit, 404 or 422)."""
    from github import GithubException

    if isinstance(exc, GithubException):
        return rate_limited(exc) or exc.status >= 500
    return _timed_out(exc) or isinstance(exc, OSError)


def _rate_limit_end(exc):
    """The UTC time a rate limit lifts (its reset time, else now + Retry-After); None when not said."""
    from datetime import datetime, timedelta, timezone

    reset, after = _header(exc, "X-RateLimit-Reset"), _header(exc, "Retry-After")
    if reset and reset.isdigit():
        return datetime.fromtimestamp(int(reset), timezone.utc)
    if after and after.isdigit():
        return datetime.now(timezone.utc) + timedelta(seconds=int(after))
    return None


def _timed_out(exc) -> bool:
    """Whether requests/urllib3 gave up waiting for an answer (a timeout, maybe inside MaxRetryError)."""
    import requests
    import urllib3

    for e in _errors_in(exc):
        if isinstance(e, urllib3.exceptions.NewConnectionError):
            return False  # refused or unresolvable: urllib3 files it under its connect timeouts
        if isinstance(e, (requests.Timeout, urllib3.exceptions.TimeoutError, TimeoutError)):
            return True
    return False


def _errors_in(exc):
    """``exc`` and the errors inside it (requests' and urllib3's wrappers: args, reason, cause, context)."""
    seen, todo = set(), [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo += [a for a in getattr(e, "args", ()) if isinstance(a, BaseException)]
        todo += [getattr(e, "reason", None), e.__cause__, e.__context__]


def _at(url: str, message: str, hint: str, rule: str = "github") -> SweepgateError:
    return SweepgateError(Diagnostic(url, 0, 0, rule, message, hint))


def api_error(exc, what: str, hint: str, base_url: str | None = None) -> SweepgateError:
    """One diagnostic line for what a PyGithub call raised while doing ``what`` ("on OWNER/NAME#7"):
    an answer that is not GitHub's JSON, a rate limit or a timeout (located at the API's URL), an
    error status (with ``hint``) or no connection. Anything else (a bug, a SweepgateError) is
    raised again as it is."""
    import github

    url = api_url(base_url)
    if isinstance(exc, (NotGitHubJSON, github.BadAttributeException)) or _misread(exc):
        # BadAttributeException: PyGithub met a value of another type than GitHub's ("draft": "yes")
        what_it_was = exc.what if isinstance(exc, NotGitHubJSON) else UNEXPECTED_SHAPE
        return _at(url, f"the API answered with {what_it_was}, not GitHub's JSON ({what})", API_URL_HINT)
    if rate_limited(exc):
        until = _rate_limit_end(exc)
        return _at(url, f"rate limited by the GitHub API{f' until {until:%H:%M} UTC' if until else ''} ({what})",
                   "rerun later or use a token with a higher limit")
    if _timed_out(exc):
        return _at(url, f"the GitHub API did not answer within {API_TIMEOUT_S} s, {API_READ_TRIES} tries ({what})",
                   "rerun later; " + API_URL_HINT)
    if isinstance(exc, github.GithubException):
        if exc.status >= 500:  # GitHub's side failed, after the retries: the token is not what to check
            hint = "GitHub's side failed; it may answer later (githubstatus.com says when it is down)"
        return _at(url, f"GitHub API error {exc.status} {what}: {_api_message(exc)}", hint, "github-comment")
    if isinstance(exc, OSError):  # requests' errors derive from OSError
        from sweepgate.core.github_retry import connection_failure

        return _fail(f"cannot reach the GitHub API at {url} {what}: {connection_failure(exc)}",
                     "check --github-api-url / GITHUB_API_URL and the network")
    raise exc


# What one artifact zip may hold (s42k: its bytes are a GPU job's, which ran a PR's code): the zip as downloaded,
# its members, and what they unpack to, by the sizes the zip declares (zipfile writes no more of a member than
# its declared size, so the sum bounds the disk used). A results artifact (a store, its JSONL, the charts) holds
# a few hundred files and some MB; these leave it a hundredfold room.
MAX_ARTIFACT_ZIP_BYTES = 1 << 30
MAX_ARTIFACT_MEMBERS = 20_000
MAX_ARTIFACT_UNZIPPED_BYTES = 2 << 30
ARTIFACT_HINT = "check what uploaded the artifact (main's collect job writes it); re-run the main workflow"


def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB"


def _members(zf, what: str) -> list:
    """The members of artifact zip ``zf`` to extract, each checked: a regular file or a folder (no symbolic link,
    device or FIFO: upload-artifact stores the files links point at, never a link), not encrypted, within the
    limits above; else one refusal naming ``what`` (the artifact)."""
    import stat

    members = zf.infolist()
    if len(members) > MAX_ARTIFACT_MEMBERS:
        raise _fail(f"{what} holds {len(members):,} files, more than the {MAX_ARTIFACT_MEMBERS:,} a results "
                    "artifact may", ARTIFACT_HINT)
    total = sum(m.file_size for m in members)
    if total > MAX_ARTIFACT_UNZIPPED_BYTES:
        raise _fail(f"{what} unpacks to {_mib(total)} by its own sizes, more than the "
                    f"{_mib(MAX_ARTIFACT_UNZIPPED_BYTES)} a results artifact may (a zip bomb?)", ARTIFACT_HINT)
    for member in members:
        kind = stat.S_IFMT(member.external_attr >> 16) if member.create_system == 3 else 0  # 3: Unix modes
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            name = "a symbolic link" if kind == stat.S_IFLNK else "no regular file"
            raise _fail(f"{what}: member '{member.filename}' is {name}", ARTIFACT_HINT)
        if member.flag_bits & 0x1:
            raise _fail(f"{what}: member '{member.filename}' is encrypted", ARTIFACT_HINT)
    return members


def _unzip(data, dest, what: str = "the artifact") -> None:
    """Extract an artifact zip (bytes or a file) into ``dest``, refusing members that would land outside it and
    any zip ``_members`` refuses; a zip that is none, or whose data do not unpack, is one line naming ``what``."""
    import io
    import zipfile
    import zlib
    from pathlib import Path

    root = Path(dest).resolve()
    try:
        with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data) as zf:
            members = _members(zf, what)
            for member in members:
                target = (root / member.filename).resolve()
                if not target.is_relative_to(root):
                    raise _fail(f"{what}: member '{member.filename}' points outside its folder", "re-upload the artifact")
            zf.extractall(root, members)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError) as exc:
        raise _fail(f"{what} is no zip file that unpacks: {exc}", ARTIFACT_HINT) from None
    except OSError as exc:
        raise _fail(f"cannot unpack {what} into {root}: {os_reason(exc)}", "free some disk space, or set TMPDIR "
                    "to a folder with room") from None


RUNS_SEARCH_LIMIT = 1000  # GitHub lists at most this many runs for a filtered search (branch, event, status, created)
FIRST_SPAN_DAYS = 1  # the first span of days after a time that ``_runs_after`` asks for; each next is twice as long


def _search_time(at) -> str:
    """An aware datetime as the workflow-runs ``created`` filter reads it (GitHub's search syntax for
    dates: ISO 8601 with a time, here in UTC), to the second: a run's ``created_at`` has no fraction, so
    one created by 12:00:00.5 is one created by 12:00:00 (the runs listed are checked against ``at`` itself)."""
    from datetime import timezone

    return at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _runs_by(wf, at, filters: dict):
    """``wf``'s runs (``filters``) created at ``at`` or before, newest first: asked of the API with
    ``created=<=AT``, and each run listed checked too, as a server that does not know the filter lists
    every run (a run whose creation time is not given is taken). A listing of RUNS_SEARCH_LIMIT runs
    (all GitHub lists of a search) is followed by one up to the oldest of them."""
    seen: set = set()
    while True:
        listed, oldest = 0, None
        for run in wf.get_runs(**filters, created=f"<={_search_time(at)}"):
            listed += 1
            if run.id in seen or (run.created_at is not None and run.created_at > at):
                continue
            seen.add(run.id)
            oldest = run.created_at or oldest
            yield run
        if listed < RUNS_SEARCH_LIMIT or oldest is None:
            return
        at = oldest


def _runs_after(wf, after, filters: dict):
    """``wf``'s runs (``filters``) created after ``after``, OLDEST first. GitHub lists runs newest first,
    and at most RUNS_SEARCH_LIMIT of a search, so the first runs after a time are asked for a span at a
    time (``created=FROM..TO``), from ``after`` on, each span twice the last (FIRST_SPAN_DAYS first), up to
    the newest run; a span that lists the limit is asked again in halves. A server that does not know the
    filter lists every run: each run listed is checked, and a span's listing stops at its first older run."""
    from datetime import timedelta

    newest = next(iter(wf.get_runs(**filters, created=f">{_search_time(after)}")), None)
    horizon = newest.created_at if newest is not None else None
    start, span = after, timedelta(days=FIRST_SPAN_DAYS)
    while horizon is not None and start < horizon:
        end = start + span
        listed = []
        for run in wf.get_runs(**filters, created=f"{_search_time(start)}..{_search_time(end)}"):
            if run.created_at is None or run.created_at <= start:
                break  # newest first: the rest were created before the span
            if run.created_at <= end:
                listed.append(run)
        if len(listed) >= RUNS_SEARCH_LIMIT and span > timedelta(seconds=1):
            span = timedelta(seconds=span.total_seconds() // 2)  # its oldest runs may lie past the limit
            continue
        yield from sorted(listed, key=lambda r: (r.created_at, r.id))
        start, span = end, span * 2


def _workflow_file(path, repository: str, workflow: str) -> bool:
    """Whether a workflow run's ``path`` is ``workflow``'s file in ``repository``: GitHub gives
    ``.github/workflows/FILE``, and its REST reference shows ``OWNER/NAME/.github/workflows/FILE@REF`` too
    (an ``@REF`` is the ref the file was read at; OWNER/NAME compared as GitHub does, in any case)."""
    own = f"{WORKFLOWS_FOLDER}/{workflow}"
    where = path.split("@", 1)[0] if isinstance(path, str) else ""
    return where == own or (where.endswith(f"/{own}") and where[:-len(own) - 1].casefold() == repository.casefold())


# GitHub's words for how a run or job ended (its `conclusion`; a needed job's `needs.<job>.result`), those read here.
SUCCESS, FAILURE, CANCELLED, SKIPPED, TIMED_OUT = "success", "failure", "cancelled", "skipped", "timed_out"
# The conclusions of a completed run whose results artifact holds a baseline (GitHub's documented run conclusions:
# success, failure, neutral, cancelled, skipped, timed_out, action_required, stale, startup_failure): a run with a
# failed benchmark job still ingests and uploads its results (its failed jobs' records are left out, as the store
# leaves them out); a cancelled, skipped or timed-out run's are not read.
BASELINE_CONCLUSIONS = (SUCCESS, FAILURE)
COMPLETED = "completed"  # the `status` of a run or job that ended (queued, in_progress and waiting have not)
LISTED_STATUS = COMPLETED  # the `status` filter asked of the API: GitHub lists completed runs of every conclusion


def counted_runs(runs: str) -> str:
    """``runs`` (``push runs of OWNER/NAME's run-sweep.yml on main``) as a message names the runs whose artifacts
    are read: with the conclusions that count (BASELINE_CONCLUSIONS), ``... (conclusion success or failure)``
    (s42c: "completed push runs" read as every run that ended, a cancelled one too, which is passed over)."""
    return f"{runs} (conclusion {' or '.join(BASELINE_CONCLUSIONS)})"


def run_mismatch(run, repository: str, workflow: str, *, event: str, branch: str, succeeded: bool = True) -> str:
    """What of a run GitHub listed is not what the list was asked for: its documented fields (GitHub's
    "List workflow runs for a workflow") that differ, as ``event pull_request, head_branch feature``; ""
    for an ``event`` run of ``workflow`` in ``repository`` on ``branch``, its head commit in ``repository``
    too (not a fork's), and, when ``succeeded``, completed with success or failure (``BASELINE_CONCLUSIONS``,
    ``download_run_artifacts``; the
    poller, ``ci dispatch``, takes a run in any state). GitHub applies the filters it is sent; a proxy, a
    server that ignores one, or a paging quirk may still list another run, which would then be taken for
    one of these (its artifact read as ``branch``'s own, its title as a PR's sweep)."""
    def full_name(repo):
        return getattr(repo, "full_name", None) if repo is not None else None

    def ours(name) -> bool:
        return isinstance(name, str) and name.casefold() == repository.casefold()

    fields = [("repository", full_name(run.repository), ours),
              ("head_repository", full_name(run.head_repository), ours),
              ("path", run.path, lambda v: _workflow_file(v, repository, workflow)),
              ("event", run.event, lambda v: v == event),
              ("head_branch", run.head_branch, lambda v: v == branch)]
    if succeeded:
        fields += [("status", run.status, lambda v: v == LISTED_STATUS),
                   ("conclusion", run.conclusion, lambda v: v in BASELINE_CONCLUSIONS)]
    return ", ".join(f"{field} {'none' if value is None else value}" for field, value, ok in fields if not ok(value))


PASSED_OVER_NAMED = 5  # the runs a line of runs passed over names one by one; it counts the rest
# What every line of runs passed over says to check: the API (or a proxy) listed runs past the filters sent.
PASSED_OVER_HINT = ("the API answered past the filters sent; check --github-api-url / GITHUB_API_URL "
                    "and any proxy on the way")


def passed_over_runs(passed_over: dict, listed_as: str) -> str:
    """How a command says which runs the API listed as ``listed_as`` (``successful push runs of OWNER/NAME's
    run-sweep.yml on main``) that ``run_mismatch`` found are not, and what of each differs: ``passed over 2
    runs the API listed as ... that are not: run 6001 (event pull_request), run 6002 (conclusion failure)``,
    PASSED_OVER_NAMED named and the rest counted."""
    runs = [f"run {run} ({what})" for run, what in passed_over.items()]
    if len(runs) > PASSED_OVER_NAMED:
        runs[PASSED_OVER_NAMED:] = [f"and {len(runs) - PASSED_OVER_NAMED} more"]
    n = len(passed_over)
    return (f"passed over {n} run{'' if n == 1 else 's'} the API listed as {listed_as} that "
            f"{'is' if n == 1 else 'are'} not: {', '.join(runs)}")


def _download(client, artifact, folder, run_id, max_zip_bytes: int = MAX_ARTIFACT_ZIP_BYTES):
    """Download ``artifact``'s zip (of run ``run_id``, as a refusal names it) and extract it into ``folder`` (made);
    ``folder``. The zip goes to a temporary file beside it, refused past ``max_zip_bytes`` as it streams, not into
    memory."""
    import tempfile

    what = f"{artifact.name} artifact of run {run_id}"
    folder.mkdir(parents=True, exist_ok=True)
    _, _, body = client.requester.getStream(artifact.archive_download_url, chunk_size=1 << 16)
    with tempfile.TemporaryFile(dir=folder.parent) as zipped:
        for chunk in body:
            if zipped.tell() + len(chunk) > max_zip_bytes:
                raise _fail(f"{what} is larger than the {_mib(max_zip_bytes)} a results artifact may",
                            ARTIFACT_HINT)
            try:
                zipped.write(chunk)
            except OSError as exc:  # not the API's doing: api_error would say GitHub could not be reached
                raise _fail(f"cannot write {what} into {folder.parent}: {os_reason(exc)}",
                            "free some disk space, or set TMPDIR to a folder with room") from None
        zipped.seek(0)
        _unzip(zipped, folder, what)
    return folder


def _run_artifact(run, name: str, mismatch: str, commit_mismatch: Callable[[str], str]) -> tuple:
    """(the run's unexpired artifact ``name`` or None, what of the run differs or ""): a run ``mismatch``
    already tells apart is not asked for its artifacts, and ``commit_mismatch`` (a compare call) is asked
    of the run's commit only when it has the artifact."""
    if mismatch:
        return None, mismatch
    artifact = next((a for a in run.get_artifacts() if a.name == name and not a.expired), None)
    return (artifact, commit_mismatch(run.head_sha)) if artifact is not None else (None, "")


def _ended_as_counted(listed):
    """The runs ``listed`` (asked as ``LISTED_STATUS``: of every conclusion) but those that completed with a
    conclusion that holds no baseline (cancelled, skipped, timed out): listed as asked, so passed over unsaid."""
    return (run for run in listed if run.status != LISTED_STATUS or run.conclusion in BASELINE_CONCLUSIONS)


def download_run_artifacts(repository: str, token: str, dest, *, workflow: str, branch: str, runs: int,
                           name: str, event: str = "push", base_url: str | None = None, until=None,
                           created_by=None, created_after=None, passed_over: dict | None = None,
                           history=None, max_zip_bytes: int = MAX_ARTIFACT_ZIP_BYTES) -> list:
    """Download artifact ``name`` of the last ``runs`` ``event`` runs of ``workflow`` on ``branch`` ended in success
    or failure (``_ended_as_counted``) into ``dest/<run id>/``, newest first, skipping runs without it (or with it
    expired). With ``created_by`` (an aware datetime), of the runs created then or before, newest first; with
    ``created_after``, of the first ``runs`` created after it, oldest first (``_runs_by``, ``_runs_after``).
    ``until(folder)``, called on each folder written, stops the downloads early by answering True.
    Each run listed is checked to be such a run (``run_mismatch``), the filters asked of the API not
    trusted to have been applied, then, when it has the artifact, its commit to be in ``branch``'s history
    (``history``, shared by a caller reading twice: one compare per commit, none for a run without the
    artifact), as a tag named ``branch`` has runs with every field of the branch's own; one that is not is
    passed over, its artifact never downloaded, and put in ``passed_over`` (run id -> what of it differs)
    for the caller to say. A zip over ``max_zip_bytes`` is refused (``_download``). Returns the folders written."""
    import zipfile
    from pathlib import Path

    from sweepgate.core.branch_history import BranchHistory

    history = history if history is not None else BranchHistory(branch)
    client = connect(token, base_url)
    folders = []
    try:
        repo = client.get_repo(repository)
        wf = repo.get_workflow(workflow)
        filters = {"branch": branch, "event": event, "status": LISTED_STATUS}
        listed = (_runs_after(wf, created_after, filters) if created_after is not None
                  else _runs_by(wf, created_by, filters) if created_by is not None else wf.get_runs(**filters))
        for run in _ended_as_counted(listed):
            if len(folders) >= runs:
                break
            artifact, mismatch = _run_artifact(run, name, run_mismatch(run, repository, workflow, event=event,
                                                                       branch=branch),
                                               lambda sha: history.mismatch(repo, sha))
            if mismatch and passed_over is not None:
                passed_over.setdefault(run.id, mismatch)
            if mismatch or artifact is None:
                continue
            folders.append(_download(client, artifact, Path(dest) / str(run.id), run.id, max_zip_bytes))
            if until is not None and until(folders[-1]):
                break
        return folders
    except zipfile.BadZipFile as exc:
        raise _fail(f"an artifact of {workflow} on {repository} is not a zip file: {exc}",
                    "check GITHUB_API_URL; re-run the main workflow") from None
    except Exception as exc:  # noqa: BLE001 - api_error raises what is not the API's doing as it is
        raise _artifacts_error(exc, repository, workflow, base_url) from None
    finally:
        client.close()


def _artifacts_error(exc, repository: str, workflow: str, base_url: str | None) -> SweepgateError:
    """``api_error`` of what reading ``workflow``'s runs and artifacts raised, with what to check."""
    hint = "the token needs 'actions: read' and 'contents: read'; check --repository"
    if getattr(exc, "status", None) == 404:  # no such repository, or no workflow of that file name in it
        hint = (f"check --repository, and that it has {WORKFLOWS_FOLDER}/{workflow} (a copy of sweepgate's "
                "workflow keeps that file name); the token needs 'actions: read' and 'contents: read'")
    return api_error(exc, f"reading {workflow} artifacts of {repository}", hint, base_url)
