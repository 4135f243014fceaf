"""Who may start a GPU sweep: labels by write+ accounts, SHA-bound /sweep approvals for forks,
no drafts; decided from the GitHub API at dispatch time (a local REST stand-in here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from github_stub import TOKEN, GitHistory, GitHubStub  # noqa: E402
from sweepgate.workflow import authorize as auth, decide as decision, dispatch, kv  # noqa: E402

REPO, FORK = "acme/bench", "mallory/bench"
HEAD, OLD, BASE = "c" * 40, "d" * 40, "a" * 40
PERMS = {"maint": "admin", "dev": "write", "reader": "read", "mallory": "read", "triager": "read"}
SWEEP, FULL = decision.SWEEP_LABEL, decision.FULL_SWEEP_LABEL


def pull(*, head_repo=REPO, draft=False, state="open", labels=(), labelers=None, comments=(), head=HEAD,
         message="tune"):
    return auth.PullState(number=7, state=state, draft=draft, head_sha=head, base_sha=BASE, head_repo=head_repo,
                          base_repo=REPO, labels=frozenset(labels), labelers=labelers or {},
                          comments=tuple(comments), head_message=message)


def perm(login):
    return PERMS.get(login, "none")


# --- the decision function ------------------------------------------------------------

@pytest.mark.parametrize("state,mode,fragment", [
    (pull(labels=[SWEEP], labelers={SWEEP: "dev"}), "trimmed", SWEEP),
    (pull(labels=[FULL], labelers={FULL: "maint"}), "full", FULL),
    (pull(labels=[SWEEP], labelers={SWEEP: "reader"}), "skip", "without write permission"),
    (pull(labels=[SWEEP], labelers={}), "skip", "without write permission"),
    (pull(labels=[SWEEP], labelers={SWEEP: "dev"}, draft=True), "skip", "draft"),
    (pull(labels=[SWEEP], labelers={SWEEP: "dev"}, state="closed"), "skip", "closed"),
    (pull(labels=[SWEEP], labelers={SWEEP: "dev"}, message="x [skip-sweep]"), "skip", "[skip-sweep]"),
    (pull(comments=[("dev", f"/sweep {HEAD}")]), "trimmed", "approved"),
    # forks: labels alone never start anything
    (pull(head_repo=FORK, labels=[FULL], labelers={FULL: "maint"}), "skip", "no approval"),
    (pull(head_repo=FORK, comments=[("mallory", f"/sweep {HEAD}")]), "skip", "write permission or more"),
    (pull(head_repo=FORK, comments=[("reader", f"/sweep {HEAD}")]), "skip", "write permission or more"),
    (pull(head_repo=FORK, comments=[("maint", f"/sweep {OLD}")]), "skip", "a later push needs a new approval"),
    (pull(head_repo=FORK, comments=[("maint", f"/sweep {HEAD[:12]}")]), "skip", "full 40-hex"),
    (pull(head_repo=FORK, comments=[("maint", f"LGTM /sweep {HEAD}")]), "skip", "no approval"),
    (pull(head_repo=FORK, comments=[("maint", f"/sweep {HEAD}")], draft=True), "skip", "draft"),
    (pull(head_repo="", comments=[("maint", f"/sweep {HEAD}")]), "trimmed", "approved by maint"),
    # security audit: a PR whose fork was deleted (head.repo null) is a fork; labels alone start
    # nothing (taking "" for this repository passed every test)
    (pull(head_repo="", labels=[FULL], labelers={FULL: "maint"}), "skip", "deleted repository"),
    (pull(head_repo=FORK, comments=[("maint", f"/sweep {HEAD}")]), "trimmed", "approved by maint"),
    (pull(head_repo=FORK, comments=[("maint", f"/sweep {HEAD.upper()}\n")]), "trimmed", "approved"),
    (pull(head_repo=FORK, comments=[("maint", f"/sweep {HEAD}")], labels=[FULL], labelers={FULL: "maint"}),
     "full", FULL),
    (pull(head_repo=FORK, comments=[("maint", f"/sweep {HEAD}")], labels=[FULL], labelers={FULL: "mallory"}),
     "trimmed", "approved"),
])
def test_authorize_table(state, mode, fragment):
    d = auth.authorize(state, perm)
    assert d.mode == mode, d.reason
    assert fragment in d.reason
    assert d.head_ref == HEAD and d.pr_number == "7"


def test_a_later_push_needs_a_new_approval():
    approved = pull(head_repo=FORK, comments=[("maint", f"/sweep {OLD}")], head=OLD)
    assert auth.authorize(approved, perm).run
    pushed = pull(head_repo=FORK, comments=[("maint", f"/sweep {OLD}")], head=HEAD)
    assert not auth.authorize(pushed, perm).run
    reapproved = pull(head_repo=FORK, comments=[("maint", f"/sweep {OLD}"), ("maint", f"/sweep {HEAD}")])
    assert auth.authorize(reapproved, perm).head_ref == HEAD


def test_requested_sha_must_be_the_head():
    state = pull(head_repo=FORK, comments=[("maint", f"/sweep {HEAD}")])
    assert auth.authorize(state, perm, requested_sha=HEAD).run
    stale = auth.authorize(state, perm, requested_sha=OLD)
    assert not stale.run and "stale" in stale.reason


# --- the poller's plan ------------------------------------------------------------------

def test_dispatch_plan():
    run_now = decision.Decision("trimmed", "ok", pr_number="7", head_ref=HEAD)
    skip = decision.Decision("skip", "draft PR", pr_number="8", head_ref=HEAD)
    title = dispatch.run_title("7", HEAD, "trimmed")
    runs = [dispatch.Run(1, dispatch.run_title("7", OLD, "trimmed"), "in_progress"),
            dispatch.Run(2, dispatch.run_title("8", HEAD, "full"), "queued"),
            dispatch.Run(3, dispatch.run_title("9", HEAD, "full"), "completed"),
            dispatch.Run(4, "sweep of main", "in_progress"),
            dispatch.Run(6, dispatch.run_title("10", HEAD, "full"), "queued")]  # PR 10 was closed
    actions = dispatch.plan({"7": run_now, "8": skip}, runs)
    assert [(a.kind, a.pr, a.run_id) for a in actions] == [("dispatch", "7", 0), ("cancel", "7", 1),
                                                           ("cancel", "8", 2), ("cancel", "10", 6)]
    assert "draft" in actions[2].reason and actions[3].reason == "PR is closed"
    assert dispatch.plan({"7": run_now}, [dispatch.Run(5, title, "completed")]) == []



@pytest.mark.parametrize("status", ["queued", "in_progress", "waiting", "pending", "requested"])
def test_every_status_of_a_run_not_yet_ended_is_cancelled(status):
    """Security audit (s39h): a sweep the PR may no longer run is cancelled while it has not ended, not only
    while queued or running: a run `waiting` for a reviewer of a protected environment (its decide job
    authorized the PR before the wait) or `pending` behind another in its concurrency group would otherwise
    start its GPU jobs after the PR turned draft or was closed. The plan held only queued and in_progress to
    a test: narrowing its active statuses to those passed every test."""
    run_now = decision.Decision("trimmed", "ok", pr_number="7", head_ref=HEAD)
    runs = [dispatch.Run(1, dispatch.run_title("7", OLD, "trimmed"), status),  # pushed again
            dispatch.Run(2, dispatch.run_title("10", HEAD, "full"), status)]  # PR 10 was closed
    actions = dispatch.plan({"7": run_now}, runs)
    assert [(a.kind, a.pr, a.run_id) for a in actions] == [("dispatch", "7", 0), ("cancel", "7", 1),
                                                           ("cancel", "10", 2)], actions

# --- through the API: the stand-in answers GitHub's documented shapes --------------------

def user(login):
    return {"login": login, "id": abs(hash(login)) % 10**6, "type": "User"}


def serve_pull(stub, *, head_repo=REPO, draft=False, labels=(), events=(), comments=(), head=HEAD, number=7,
               base_sha=BASE, event_times=()):
    base = f"/repos/{REPO}"
    repo_json = {"id": 1, "name": "bench", "full_name": REPO, "url": f"{stub.url}{base}", "owner": user("acme")}
    stub.route("GET", base, repo_json)
    head_repo_json = {"full_name": head_repo, "id": 2, "name": "bench"} if head_repo else None
    pr = {"id": 70 + number, "number": number, "state": "open", "draft": draft, "title": "tune",
          "url": f"{stub.url}{base}/pulls/{number}", "user": user("author"),
          "labels": [{"id": i, "name": name, "color": "ededed"} for i, name in enumerate(labels)],
          "head": {"sha": head, "ref": "feature", "label": "x:feature", "repo": head_repo_json},
          "base": {"sha": base_sha, "ref": "main", "label": "acme:main", "repo": repo_json}}
    stub.route("GET", f"{base}/pulls/{number}", pr)
    stub.route("GET", f"{base}/issues/{number}", {**pr, "url": f"{stub.url}{base}/issues/{number}"})
    stub.route("GET", f"{base}/issues/{number}/events", [
        {"id": i, "event": "labeled", "actor": user(login), "label": {"name": name, "color": "ededed"},
         "created_at": event_times[i] if i < len(event_times) else "2026-01-01T00:00:00Z"}
        for i, (name, login) in enumerate(events)])
    stub.route("GET", f"{base}/issues/{number}/comments", [
        {"id": 100 + i, "body": body, "user": user(login), "created_at": "2026-01-02T00:00:00Z"}
        for i, (login, body) in enumerate(comments)])
    stub.route("GET", f"{base}/commits/{head}", {"sha": head, "commit": {"message": "tune kimi"}})
    for login, level in PERMS.items():
        stub.route("GET", f"{base}/collaborators/{login}/permission",
                   {"permission": level, "role_name": level, "user": user(login)})
    return pr


@pytest.fixture
def stub():
    server = GitHubStub()
    yield server
    server.close()


def run_cli(stub, *args, event=None, tmp_path=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(PYTHONPATH=str(ROOT / "utils"), GITHUB_TOKEN=TOKEN, GITHUB_API_URL=stub.url,
               GITHUB_REPOSITORY=REPO)
    if event is not None:
        path = tmp_path / "event.json"
        path.write_text(json.dumps(event))
        env.update(GITHUB_EVENT_PATH=str(path), GITHUB_EVENT_NAME="workflow_dispatch")
    return subprocess.run([sys.executable, "-m", "sweepgate", "ci", *args], env=env, capture_output=True,
                          text=True, cwd=ROOT)


def dispatch_event(sha=HEAD, ref="refs/heads/main"):
    return {"ref": ref, "inputs": {"pr-number": "7", "sha": sha, "mode": "trimmed"}, "sender": user("bot")}


@pytest.mark.parametrize("commenter,sha,runs", [
    ("maint", HEAD, True),     # the approved SHA runs
    ("mallory", HEAD, False),  # a read-only account's comment starts nothing
    ("maint", OLD, False),     # a stale SHA starts nothing
    # a login GitHub answers 404 for (a deleted account) has no permission (security audit:
    # trusting it passed every test)
    ("ghost", HEAD, False),
])
def test_decide_fork_approval_through_the_api(stub, tmp_path, commenter, sha, runs):
    serve_pull(stub, head_repo=FORK, comments=[(commenter, f"/sweep {sha}")])
    out = tmp_path / "out"
    proc = run_cli(stub, "decide", "--output", str(out), event=dispatch_event(sha), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    values = kv.parse_kv(out.read_text())
    assert values["run"] == ("true" if runs else "false"), values["reason"]
    if runs:
        assert values["head_ref"] == HEAD == sha and values["pr_number"] == "7"
    asked = {path for method, path, _ in stub.requests if method == "GET"}
    if sha == HEAD:  # the commenter's permission is asked now, from the API, not taken from the event
        assert f"/repos/{REPO}/collaborators/{commenter}/permission" in asked


@pytest.mark.parametrize("labeler,runs", [
    ("dev", True), ("reader", False),
    # security audit: the LAST account to apply the label counts (nothing checked it; keeping the
    # first applier passed every test): a writer's label re-applied by a reader starts nothing
    (("dev", "reader"), False), (("reader", "dev"), True),
])
def test_decide_label_applier_through_the_api(stub, tmp_path, labeler, runs):
    appliers = labeler if isinstance(labeler, tuple) else (labeler,)
    serve_pull(stub, labels=[SWEEP], events=[(SWEEP, login) for login in appliers])
    out = tmp_path / "out"
    proc = run_cli(stub, "decide", "--output", str(out), event=dispatch_event(), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert kv.parse_kv(out.read_text())["run"] == ("true" if runs else "false")


def dispatch_event_of_mode(mode):
    return {**dispatch_event(), "inputs": {"pr-number": "7", "sha": HEAD, "mode": mode}}


@pytest.mark.parametrize("labels,mode,runs", [
    ([SWEEP], "trimmed", True), ([FULL], "full", True),
    # the labels changed between the poll's dispatch and this decide: the run is titled with the mode asked
    # for, so the next poll (finding no run of that title) dispatches the sweep the labels ask for and cancels
    # this one; run now, it would spend GPU-hours the cancel throws away
    ([FULL], "trimmed", False), ([SWEEP], "full", False),
    # by hand, with no mode or another word: its title is no sweep of the poll's, which would start a second one
    ([SWEEP], "", False), ([SWEEP], "everything", False),
])
def test_a_dispatch_runs_only_the_mode_it_asked_for(stub, tmp_path, labels, mode, runs):
    """Spend-once review (s45f): decide checked the dispatch's sha against the head but took the mode from the
    labels whatever the dispatch asked for. A PR relabelled from sweep-enabled to full-sweep-enabled after the poll
    dispatched `sweep PR #7 at <sha> (trimmed)` ran a full sweep under that title; the next poll found no `(full)` run,
    dispatched one and cancelled the first (its concurrency group cancels it too): every GPU job the first had run or
    started was spent twice. The decided mode must now be the one asked for, else the run sweeps nothing."""
    serve_pull(stub, labels=labels, events=[(name, "dev") for name in labels])
    out = tmp_path / "out"
    proc = run_cli(stub, "decide", "--output", str(out), event=dispatch_event_of_mode(mode), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    values = kv.parse_kv(out.read_text())
    assert values["run"] == ("true" if runs else "false"), values["reason"]
    if not runs:
        wanted = "full" if FULL in labels else "trimmed"
        assert f"requested mode '{mode}'" in values["reason"] and f"ask for {wanted}" in values["reason"], values


def test_decide_refuses_dispatch_from_another_branch(stub, tmp_path):
    serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")])
    out = tmp_path / "out"
    proc = run_cli(stub, "decide", "--output", str(out), event=dispatch_event(ref="refs/heads/evil"),
                   tmp_path=tmp_path)
    assert proc.returncode == 0 and kv.parse_kv(out.read_text())["run"] == "false"
    assert stub.requests == []


def test_decide_api_error_is_one_line(stub, tmp_path):
    proc = run_cli(stub, "decide", event=dispatch_event(), tmp_path=tmp_path)  # no routes: 404
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "GitHub API error 404" in proc.stderr
    assert proc.stderr.startswith(f"{stub.url}: GitHub API error 404"), proc.stderr  # at the API's URL, as documented


# A run of run-sweep.yml as the poller makes it: a workflow_dispatch on main in REPO ("List workflow runs
# for a workflow" documents these fields); a run's own ``fields`` say what of it differs.
DISPATCH_RUN = {"event": "workflow_dispatch", "head_branch": "main", "repository": REPO, "head_repository": REPO,
                "path": f".github/workflows/{dispatch.GPU_WORKFLOW}"}


def wf_run(stub, run_id: int, title: str, status: str, created_at: str = "2026-01-01T00:00:00Z", **fields) -> dict:
    """A workflow run as GitHub lists it, a dispatch run of REPO's run-sweep.yml on main unless ``fields``
    say otherwise (``repository`` and ``head_repository`` given as OWNER/NAME)."""
    def repository(full_name):
        owner, name = full_name.split("/")
        return {"id": sum(map(ord, full_name)), "name": name, "full_name": full_name, "owner": user(owner),
                "url": f"{stub.url}/repos/{full_name}"}

    f = {**DISPATCH_RUN, **fields}
    return {"id": run_id, "name": "run-sweep", "display_title": title, "status": status, "created_at": created_at,
            "conclusion": fields.pop("conclusion", None), "updated_at": fields.pop("updated_at", created_at),
            "event": f["event"], "head_branch": f["head_branch"], "path": f["path"],
            "repository": repository(f["repository"]), "head_repository": repository(f["head_repository"]),
            "url": f"{stub.url}/repos/{REPO}/actions/runs/{run_id}"}


def serve_runs(stub, runs: list[dict], *, honours_filters: bool = True) -> str:
    """Answer the GPU workflow's runs list with ``runs`` (``wf_run``), newest first as given, 30 a page (or
    ``per_page``) with a ``Link`` to the next that keeps the query, as GitHub does. The list holds only what
    GitHub would list there: runs of this workflow in REPO, of the ``event`` and ``branch`` asked for, unless
    ``honours_filters`` is False (a proxy or server answering past them). A query it does not know is
    refused (422), so a test sees a filter sent wrong. Main's history is a real git repository's
    (``stub.history``, ``GitHistory``): a run without a ``head_sha`` is of main's head. Returns the
    workflow's API path."""
    import tempfile
    from urllib.parse import urlencode

    wf = f"/repos/{REPO}/actions/workflows/{dispatch.GPU_WORKFLOW}"  # the API takes the file name as the id
    if getattr(stub, "history", None) is None:
        stub.git_folder = tempfile.TemporaryDirectory(prefix="stand-in-git-")
        stub.history = GitHistory(stub, f"/repos/{REPO}", stub.git_folder.name)
    for run in runs:
        run.setdefault("head_sha", stub.history.main)

    def listed(run, query) -> bool:  # a run of this workflow (its path in either form) in REPO (in any case)
        path = run["path"].split("@")[0]
        path = path[len(REPO) + 1:] if path.casefold().startswith(f"{REPO}/".casefold()) else path
        return (run["repository"]["full_name"].casefold() == REPO == run["head_repository"]["full_name"].casefold()
                and path == DISPATCH_RUN["path"]
                and all(run[field] == query[key][0] for key, field in (("event", "event"), ("branch", "head_branch"))
                        if key in query))

    def answer(payload, query):
        if set(query) - {"event", "branch", "page", "per_page"}:
            return 422, {"message": f"stand-in: unexpected query {query}"}
        chosen = [r for r in runs if listed(r, query)] if honours_filters else runs
        per_page, page = min(int(query.get("per_page", ["30"])[0]), 100), int(query.get("page", ["1"])[0])
        headers = {}
        if page * per_page < len(chosen):
            following = urlencode({**{k: v[0] for k, v in query.items()}, "page": page + 1, "per_page": per_page})
            headers["Link"] = f'<{stub.url}{wf}/runs?{following}>; rel="next"'
        return 200, {"total_count": len(chosen), "workflow_runs": chosen[(page - 1) * per_page:page * per_page]}, headers

    stub.route("GET", f"{wf}/runs", answer)
    return wf


def serve_run_5(stub, pr: str, sha: str, status: str) -> str:
    """The GPU workflow's one dispatch run, id 5 (PR ``pr`` at ``sha``, trimmed, ``status``), and the
    answers to a dispatch and to run 5's cancel; returns the workflow's API path."""
    wf = serve_runs(stub, [wf_run(stub, 5, dispatch.run_title(pr, sha, "trimmed"), status)])
    stub.route("POST", f"{wf}/dispatches", None, status=204)
    stub.route("POST", f"/repos/{REPO}/actions/runs/5/cancel", {}, status=202)
    return wf


def test_dispatch_poller(stub, tmp_path):
    pr = serve_pull(stub, head_repo=FORK, comments=[("maint", f"/sweep {HEAD}")])
    base = f"/repos/{REPO}"
    stub.route("GET", f"{base}/pulls", [pr])
    wf = serve_run_5(stub, "7", OLD, "queued")
    proc = run_cli(stub, "dispatch")
    assert proc.returncode == 0, proc.stderr
    posts = [(path, payload) for method, path, payload in stub.requests if method == "POST"]
    assert posts == [(f"{wf}/dispatches",
                      {"ref": decision.MAIN_REF, "inputs": {"pr-number": "7", "sha": HEAD, "mode": "trimmed"}}),
                     (f"{base}/actions/runs/5/cancel", {})]


@pytest.mark.parametrize("ref,said", [
    ("refs/tags/v1.2", "'refs/tags/v1.2' is a tag, not a branch"),
    ("refs/pull/7/head", "'refs/pull/7/head' is a pull request's ref, not a branch"),
    ("refs/remotes/origin/main", "'refs/remotes/origin/main' is not a branch"),
    ("refs/heads/", "'refs/heads/' names no branch"),
])
def test_dispatch_refuses_a_ref_that_is_no_branch(stub, tmp_path, ref, said):
    """Review: `ci dispatch --ref refs/tags/X` took only refs/heads/ off, so it asked for the runs of branch
    "refs/tags/X", which GitHub lists none of (a run's head_branch is a short name): each PR that may run
    looked unswept and was dispatched again at every poll, a stale sweep was never cancelled, and each
    dispatch went to the tag, whose run-sweep.yml decide skips (it runs a dispatch on refs/heads/main only).
    --ref is a branch: anything else is argument syntax, exit 2, before the API is asked anything."""
    pr = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")])
    stub.route("GET", f"/repos/{REPO}/pulls", [pr])
    serve_run_5(stub, "7", OLD, "queued")
    proc = run_cli(stub, "dispatch", "--ref", ref)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("usage: sweepgate ci dispatch "), proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert line == (f"sweepgate ci dispatch: error: argument --ref: {said}; pass a branch name, main "
                    f"(run-sweep.yml runs a sweep dispatched on {decision.MAIN_REF} only)"), line
    assert stub.requests == []


def test_dispatch_takes_a_full_branch_ref_as_its_name(stub, tmp_path):
    """`--ref refs/heads/main` is the branch main: its runs are listed, and it is dispatched, by the name
    GitHub's workflow-runs filter and dispatch take."""
    pr = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")])
    stub.route("GET", f"/repos/{REPO}/pulls", [pr])
    wf = serve_run_5(stub, "7", OLD, "queued")
    proc = run_cli(stub, "dispatch", "--ref", "refs/heads/main")
    assert proc.returncode == 0, proc.stderr
    posts = [(path, payload) for method, path, payload in stub.requests if method == "POST"]
    assert posts == [(f"{wf}/dispatches", {"ref": decision.MAIN_REF, "inputs": {"pr-number": "7", "sha": HEAD, "mode": "trimmed"}}),
                     (f"/repos/{REPO}/actions/runs/5/cancel", {})]


@pytest.mark.parametrize("ref", ["main", "refs/heads/main"])
def test_dispatch_names_the_branch_not_a_tag_of_its_name(stub, tmp_path, ref):
    """s40h: the poller dispatched on the short ref `main`, which a tag named main (any writer may push one)
    names too: GitHub does not say which it takes, and a dispatch on the tag runs the tag's run-sweep.yml,
    whose decide skips it (not refs/heads/main), so the PR's sweep never ran, poll after poll. It names the
    branch in full, refs/heads/main, which no tag shares. The stand-in resolves a short name as git does,
    the tag first."""
    pr = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")])
    stub.route("GET", f"/repos/{REPO}/pulls", [pr])
    wf = serve_run_5(stub, "7", OLD, "queued")
    stub.history.tag("main", stub.history.main)
    stub.route("POST", f"{wf}/dispatches", stub.history.dispatch)
    proc = run_cli(stub, "dispatch", "--ref", ref)
    assert proc.returncode == 0, proc.stderr
    assert stub.history.dispatched == [decision.MAIN_REF], stub.history.dispatched


# Runs no dispatch of run-sweep.yml on main in acme/bench, newest first, each titled as a PR's sweep, with
# what of it differs as the poller says it.
STRAY_DISPATCH_RUNS = [
    # a PR branch's copy of run-sweep.yml run on pull_request, its run-name the PR's choice
    (6001, "7", HEAD, "completed", {"event": "pull_request", "head_branch": "feature"},
     "event pull_request, head_branch feature"),
    # a dispatch of another branch's copy (its decide job skips it: not dispatched on main)
    (6002, "7", HEAD, "completed", {"head_branch": "feature"}, "head_branch feature"),
    (6003, "7", HEAD, "completed", {"path": ".github/workflows/other.yml"}, "path .github/workflows/other.yml"),
    (6004, "7", HEAD, "completed", {"repository": "other/bench", "head_repository": "other/bench"},
     "repository other/bench, head_repository other/bench"),
    # a fork's pull_request run from its own main, still running, titled as a closed PR's sweep
    (6005, "9", OLD, "in_progress", {"event": "pull_request", "head_repository": FORK},
     "head_repository mallory/bench, event pull_request"),
    (6006, "7", HEAD, "completed", {"head_repository": FORK}, "head_repository mallory/bench"),
]


@pytest.mark.parametrize("honours_filters", [True, False])
def test_a_listed_run_that_is_no_dispatch_run_on_main_is_passed_over_and_said(stub, tmp_path, honours_filters):
    """Security hardening: the poller listed run-sweep.yml's runs with event=workflow_dispatch and took
    every run listed for one it made: a run the API (a proxy, a server answering past the filter) listed
    though it is a pull_request run, another branch's or workflow's, another repository's or a fork's, had
    its title taken as a PR's sweep (that PR never dispatched: its sweep never ran) and, while running, was
    cancelled as a closed PR's. Each run listed is re-checked by its own fields now: one that is no dispatch
    run of run-sweep.yml on main in this repository is passed over, and one warning line names it and what
    differs. A run of main's own, its path in the long form and the repository in another case, still counts."""
    p7 = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], number=7)
    p8 = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], number=8)
    base = f"/repos/{REPO}"
    stub.route("GET", f"{base}/pulls", [p7, p8])
    stray = [wf_run(stub, run_id, dispatch.run_title(pr, sha, "trimmed"), status, f"2026-02-0{9 - k}T00:00:00Z",
                    **fields) for k, (run_id, pr, sha, status, fields, _) in enumerate(STRAY_DISPATCH_RUNS)]
    own = wf_run(stub, 5, dispatch.run_title("8", HEAD, "trimmed"), "completed", "2026-02-01T00:00:00Z",
                 path=f"{REPO}/.github/workflows/{dispatch.GPU_WORKFLOW}@refs/heads/main",
                 repository=REPO.upper(), head_repository=REPO.upper())
    wf = serve_runs(stub, [*stray, own], honours_filters=honours_filters)
    stub.route("POST", f"{wf}/dispatches", None, status=204)
    stub.route("POST", f"{base}/actions/runs/6005/cancel", {}, status=202)
    proc = run_cli(stub, "dispatch")
    assert proc.returncode == 0, proc.stderr
    posts = [(path, payload) for method, path, payload in stub.requests if method == "POST"]
    assert posts == [(f"{wf}/dispatches", {"ref": decision.MAIN_REF, "inputs": {"pr-number": "7", "sha": HEAD, "mode": "trimmed"}})]
    from urllib.parse import parse_qs, urlsplit

    asked = [parse_qs(urlsplit(t).query) for t in stub.targets if urlsplit(t).path == f"{wf}/runs"]
    assert asked == [{"event": ["workflow_dispatch"], "branch": ["main"]}], stub.targets
    problems = [line for line in proc.stderr.splitlines() if not line.startswith("sweepgate ci dispatch:")]
    if honours_filters:
        assert problems == [], proc.stderr
        return
    said = [f"run {run_id} ({what})" for run_id, *_, what in STRAY_DISPATCH_RUNS]
    assert problems == [
        f"{stub.url}: warning: passed over 6 runs the API listed as workflow_dispatch runs of {REPO}'s "
        f"{dispatch.GPU_WORKFLOW} on main that are not: {', '.join(said[:5])}, and 1 more; they were neither "
        "taken for a PR's sweep nor cancelled; the API answered past the filters sent; check --github-api-url / "
        "GITHUB_API_URL and any proxy on the way"], proc.stderr


def test_a_dispatch_run_of_a_tag_named_main_is_no_pr_s_sweep(stub, tmp_path):
    """s36: a workflow_dispatch of run-sweep.yml on a tag named main has head_branch main (GitHub puts the
    tag's name there) and every other field of a dispatch on main, and its run-name is the tag's workflow's
    choice: titled as PR 7's sweep, it was taken for one, so PR 7's sweep was never dispatched. A run titled
    as a sweep the poll would dispatch counts only when its commit is in main's history (one compare per
    commit, and only for such runs: the 40 others listed ask nothing); the tag's run is passed over and said."""
    p7 = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], number=7)
    p8 = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], number=8)
    base = f"/repos/{REPO}"
    stub.route("GET", f"{base}/pulls", [p7, p8])
    others = [dict(wf_run(stub, 1000 + i, f"sweep PR #{900 + i} at {OLD} (trimmed)", "completed",
                          "2026-03-01T00:00:00Z"), head_sha=f"{i + 1:040x}") for i in range(40)]  # never asked
    tag_run = wf_run(stub, 6001, dispatch.run_title("7", HEAD, "trimmed"), "completed", "2026-02-09T00:00:00Z")
    own = wf_run(stub, 5, dispatch.run_title("8", HEAD, "trimmed"), "completed", "2026-02-01T00:00:00Z")
    wf = serve_runs(stub, [*others, tag_run, own])
    older = stub.history.main
    stub.history.commit()  # main moved on since PR 8's sweep was dispatched
    tagged = stub.history.commit(parent=stub.history.main)
    stub.history.tag("main", tagged)
    tag_run["head_sha"], own["head_sha"] = tagged, older
    stub.route("POST", f"{wf}/dispatches", None, status=204)
    proc = run_cli(stub, "dispatch")
    assert proc.returncode == 0, proc.stderr
    posts = [(path, payload) for method, path, payload in stub.requests if method == "POST"]
    assert posts == [(f"{wf}/dispatches", {"ref": decision.MAIN_REF, "inputs": {"pr-number": "7", "sha": HEAD, "mode": "trimmed"}})]
    compares = sorted(t.split("/compare/")[1].split("?")[0] for t in stub.targets if "/compare/" in t)
    assert compares == sorted(f"{stub.history.main}...{sha}" for sha in (older, tagged)), stub.targets
    problems = [line for line in proc.stderr.splitlines() if not line.startswith("sweepgate ci dispatch:")]
    assert problems == [
        f"{stub.url}: warning: passed over 1 run the API listed as workflow_dispatch runs of {REPO}'s "
        f"{dispatch.GPU_WORKFLOW} on main that is not: run 6001 (head_sha {tagged[:12]} not in main's history: "
        "a tag named main, or a commit main no longer holds); it was neither taken for a PR's sweep nor "
        "cancelled; a run of a tag is listed under the tag's name: delete a tag named main (git push origin "
        ":refs/tags/main); a run of a commit main no longer holds is not main's either"], proc.stderr


def test_a_compare_refused_stops_the_poll_and_names_contents_read(stub, tmp_path):
    """s36: whether a run titled as a wanted sweep is of main's history is asked of the compare API, which a
    token without 'contents: read' is refused (403): the poll stops (no sweep dispatched on a check not made),
    and the hint names the permission it lacked."""
    pr = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], number=7)
    base = f"/repos/{REPO}"
    stub.route("GET", f"{base}/pulls", [pr])
    run = wf_run(stub, 6001, dispatch.run_title("7", HEAD, "trimmed"), "completed", "2026-02-09T00:00:00Z")
    wf = serve_runs(stub, [run])
    run["head_sha"] = stub.history.commit(parent=stub.history.main)
    stub.route("POST", f"{wf}/dispatches", None, status=204)
    stub.route("GET", f"{base}/compare/{stub.history.main}...{run['head_sha']}",
               {"message": "Resource not accessible by integration"}, status=403)
    proc = run_cli(stub, "dispatch")
    assert proc.returncode == 1 and "403" in proc.stderr and "'contents: read'" in proc.stderr, proc.stderr
    assert [path for method, path, _ in stub.requests if method == "POST"] == []


def test_a_dispatch_answered_5xx_is_not_sent_again(stub, tmp_path):
    """Review: the comment's POST was re-sent after a 502 that had made it; the dispatch's POST was
    too, and a second dispatch is a second GPU sweep. The poll that follows sees the run it made."""
    pr = serve_pull(stub, head_repo=FORK, comments=[("maint", f"/sweep {HEAD}")])
    base = f"/repos/{REPO}"
    stub.route("GET", f"{base}/pulls", [pr])
    wf = f"{base}/actions/workflows/{dispatch.GPU_WORKFLOW}"
    stub.route("GET", f"{wf}/runs", {"total_count": 0, "workflow_runs": []})
    stub.route("POST", f"{wf}/dispatches", {"message": "Server Error"}, status=502)
    proc = run_cli(stub, "dispatch")
    assert proc.returncode == 1 and "GitHub API error 502" in proc.stderr, proc.stderr
    assert [path for method, path, _ in stub.requests if method == "POST"] == [f"{wf}/dispatches"]


def poll_two_prs(stub, p7_labels, pr7_running_sha, broken_route=None):
    """PRs 7 and 8 (8 labelled sweep-enabled by a maintainer), PR 7's sweep at ``pr7_running_sha``
    running as run 5; ``broken_route`` (a GET path) answers 500. Runs the poll: (proc, problem lines
    (not the progress and retry lines), the POSTs made, the workflow's path)."""
    p7 = serve_pull(stub, labels=p7_labels, events=[(label, "dev") for label in p7_labels], number=7)
    p8 = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], number=8)
    base = f"/repos/{REPO}"
    if broken_route:
        stub.route("GET", f"{base}{broken_route}", {"message": "Server Error"}, status=500)
    stub.route("GET", f"{base}/pulls", [p7, p8])
    wf = serve_run_5(stub, "7", pr7_running_sha, "in_progress")
    proc = run_cli(stub, "dispatch")
    assert "Traceback" not in proc.stderr, proc.stderr
    problems = [line for line in proc.stderr.splitlines() if not line.startswith("sweepgate")]
    posts = [(path, payload) for method, path, payload in stub.requests if method == "POST"]
    return proc, problems, posts, wf


def test_one_pr_with_both_sweep_labels_stops_no_other_pr(stub, tmp_path):
    """Review: a PR labelled both sweep-enabled and full-sweep-enabled made the whole poll exit 1 before
    it dispatched or cancelled anything, so every other PR's sweep waited (and a draft's kept running)
    until someone took a label off. That PR is now one line and a skip; the rest of the poll goes on."""
    proc, problems, posts, wf = poll_two_prs(stub, [SWEEP, FULL], HEAD)
    assert proc.returncode == 1 and len(problems) == 1, proc.stderr
    assert problems[0].startswith(f"{REPO}#7: PR #7 has labels"), proc.stderr
    assert posts == [(f"{wf}/dispatches", {"ref": decision.MAIN_REF, "inputs": {"pr-number": "8", "sha": HEAD, "mode": "trimmed"}}),
                     (f"/repos/{REPO}/actions/runs/5/cancel", {})]


def test_one_pr_the_api_will_not_read_is_left_alone_and_stops_no_other_pr(stub, tmp_path):
    """Review: one PR whose events the API would not give (a 5xx that outlasts the retries) made the
    whole poll exit 1 before it dispatched or cancelled anything. That PR is now one line and left
    alone (its running sweep of an older head is not cancelled as if it were closed); every other PR
    is polled."""
    proc, problems, posts, wf = poll_two_prs(stub, [SWEEP], OLD, broken_route="/issues/7/events")
    assert proc.returncode == 1 and len(problems) == 1, proc.stderr
    assert "500" in problems[0] and f"{REPO}#7; it is left alone" in problems[0], proc.stderr
    assert problems[0].endswith("; GitHub's side failed; it may answer later (githubstatus.com says when it is down)")
    assert posts == [(f"{wf}/dispatches", {"ref": decision.MAIN_REF, "inputs": {"pr-number": "8", "sha": HEAD, "mode": "trimmed"}})]


def test_a_pr_s_run_older_than_the_newest_300_is_still_seen(stub, tmp_path):
    """Review: the poller read only the newest 300 dispatch runs, so once a PR's sweep was older than
    that (a busy month), the still-open, unchanged PR was swept again: the same GPU-hours twice.
    Every run made since the oldest open PR was opened is read now."""
    pr = {**serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")]), "created_at": "2026-01-01T00:00:00Z"}
    base = f"/repos/{REPO}"
    stub.route("GET", f"{base}/pulls", [pr])
    runs = [wf_run(stub, 1000 + i, f"sweep PR #{900 + i} at {OLD} (trimmed)", "completed", "2026-03-01T00:00:00Z")
            for i in range(320)]
    runs.append(wf_run(stub, 5, dispatch.run_title("7", HEAD, "trimmed"), "completed", "2026-01-02T00:00:00Z"))
    runs.append(wf_run(stub, 4, "sweep of main", "completed", "2025-12-01T00:00:00Z"))
    wf = serve_runs(stub, runs)
    stub.route("POST", f"{wf}/dispatches", None, status=204)
    proc = run_cli(stub, "dispatch")
    assert proc.returncode == 0, proc.stderr
    assert [path for method, path, _ in stub.requests if method == "POST"] == []


def test_labels_count_in_any_case():
    """GitHub compares labels case-insensitively; a 'Sweep-Enabled' by a maintainer runs, with modifiers."""
    d = auth.authorize(pull(labels=["Sweep-Enabled", "Fail-Fast"],
                            labelers={"Sweep-Enabled": "dev", "Fail-Fast": "dev"}), perm)
    assert d.mode == "trimmed" and d.fail_fast, d.reason
    d = auth.authorize(pull(labels=["FULL-SWEEP-ENABLED"], labelers={"FULL-SWEEP-ENABLED": "reader"}), perm)
    assert not d.run and "without write permission" in d.reason


def test_decide_takes_the_api_url_option_like_every_api_command(stub, tmp_path):
    """Audit: `ci decide --api-url` was an unknown argument (exit 2) though its dispatch path calls
    the API; only GITHUB_API_URL reached it."""
    serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")])
    out = tmp_path / "out"
    env_url = stub.url
    stub.url = "http://127.0.0.1:9"  # run_cli's GITHUB_API_URL: nothing listens there
    proc = run_cli(stub, "decide", "--output", str(out), "--api-url", env_url, event=dispatch_event(),
                   tmp_path=tmp_path)
    assert proc.returncode == 0 and kv.parse_kv(out.read_text())["run"] == "true", proc.stderr


@pytest.mark.parametrize("url", ["notaurl", "http://:x", "ftp://host/"])
def test_a_malformed_api_url_is_refused_in_one_line(stub, tmp_path, url):
    """Audit: `--api-url notaurl` ended in "internal error" (PyGithub's AttributeError)."""
    proc = run_cli(stub, "decide", "--api-url", url, event=dispatch_event(), tmp_path=tmp_path)
    assert proc.returncode == 2 and "--api-url" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    stub.url = url  # the same value from GITHUB_API_URL: exit 1, one line naming it
    proc = run_cli(stub, "decide", event=dispatch_event(), tmp_path=tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith("GITHUB_API_URL: "), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_one_refused_dispatch_stops_no_other_pr(stub, tmp_path):
    """Review: a 422 on PR 7's dispatch ended the poll; PR 8 was never dispatched (nor anything after it
    cancelled) until the next poll met the same 422. Each action is carried out on its own now: one
    line per refused action, the others still sent, exit 1."""
    p7 = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], number=7)
    p8 = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], number=8)
    base = f"/repos/{REPO}"
    stub.route("GET", f"{base}/pulls", [p7, p8])
    wf = f"{base}/actions/workflows/{dispatch.GPU_WORKFLOW}"
    stub.route("GET", f"{wf}/runs", {"total_count": 0, "workflow_runs": []})
    stub.route("POST", f"{wf}/dispatches", {"message": "Unexpected inputs provided"}, status=422)
    proc = run_cli(stub, "dispatch")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    posts = [payload["inputs"]["pr-number"] for method, path, payload in stub.requests if method == "POST"]
    assert sorted(posts) == ["7", "8"], stub.requests
    problems = [line for line in proc.stderr.splitlines() if not line.startswith("sweepgate ci dispatch:")]
    assert len(problems) == 2 and all("GitHub API error 422" in p and "(dispatch)" in p for p in problems), proc.stderr


def test_a_long_open_pr_that_may_not_run_reads_no_older_runs(stub, tmp_path):
    """Diff review of a165fc3: every run since the oldest open PR was read, a draft or unlabelled one
    included, so one PR left open for months had each 5-minute poll page through every sweep since
    (30 a page), past GITHUB_TOKEN's 1,000 requests an hour. Only a PR that may run is dispatched
    again when its run is missed, so only those set how far back the poll reads."""
    old = {**serve_pull(stub, labels=[], events=[], number=7), "created_at": "2025-01-01T00:00:00Z"}
    new = {**serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], number=8), "created_at": "2026-03-01T00:00:00Z"}
    base = f"/repos/{REPO}"
    stub.route("GET", f"{base}/pulls", [old, new])
    runs = [wf_run(stub, 5000 - i, f"sweep PR #{900 + i} at {OLD} (trimmed)", "completed",
                   "2026-04-01T00:00:00Z" if i < 300 else "2025-06-01T00:00:00Z") for i in range(900)]
    runs[0]["display_title"] = dispatch.run_title("8", HEAD, "trimmed")
    wf = serve_runs(stub, runs)
    proc = run_cli(stub, "dispatch")
    assert proc.returncode == 0, proc.stderr
    assert [path for method, path, _ in stub.requests if method == "POST"] == []
    pages = [path for method, path, _ in stub.requests if method == "GET" and path.startswith(f"{wf}/runs")]
    assert len(pages) <= 11, len(pages)  # the newest 300 (30 a page) and the page that ends them


def test_no_answer_for_one_pr_stops_the_poll_an_error_answer_leaves_it_alone(monkeypatch):
    """Diff review: with the API unreachable (no connection, no answer in time), each PR became
    'unknown' after its own retries, one line each, and a poll of many PRs outran the job's time
    limit. No answer at all stops the poll, as a rate limit does; an error answer for one PR (a 5xx,
    a 404) leaves that PR alone and reads the rest."""
    import requests
    from github import GithubException
    from sweepgate.commands import ci_github
    from sweepgate.workflow import pullstate

    class Pull:
        def __init__(self, number):
            self.number, self.created_at = number, None

    class Repo:
        def get_pulls(self, state):
            return [Pull(7), Pull(8)]

    def answer(failure):
        def pull_state(repo, number):
            if number == 7:
                raise failure
            raise GithubException(404, {"message": "Not Found"}, None)
        return pull_state

    monkeypatch.setattr(pullstate, "permission_lookup", lambda repo: None)
    monkeypatch.setattr(pullstate, "pull_state", answer(requests.exceptions.ConnectionError("refused")))
    with pytest.raises(requests.exceptions.ConnectionError):
        ci_github._decisions(Repo(), REPO, None)
    monkeypatch.setattr(pullstate, "pull_state", answer(GithubException(502, {"message": "Bad Gateway"}, None)))
    decisions, problems, oldest, unknown, _ = ci_github._decisions(Repo(), REPO, None)
    assert unknown == {"7", "8"} and decisions == {} and len(problems) == 2


@pytest.mark.parametrize("head", ["main", "refs/heads/main", HEAD[:39], HEAD.upper(), HEAD + "0"])
def test_a_head_sha_that_is_not_40_hex_digits_is_an_answer_not_trusted(stub, tmp_path, head):
    """Security review: the head SHA the API answered became head_ref (the commit the GPU side checks
    out and runs) and the dispatched sha unchecked; a branch name there would run whatever it holds then."""
    pr = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], head=head)
    out = tmp_path / "out"
    proc = run_cli(stub, "decide", "--output", str(out), event=dispatch_event(sha=head), tmp_path=tmp_path)
    (line,) = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and f"the API answered with a head.sha {head!r} that is not 40 hex digits" in line
    assert not out.exists()
    stub.route("GET", f"/repos/{REPO}/pulls", [pr])
    serve_run_5(stub, "7", OLD, "completed")
    proc = run_cli(stub, "dispatch")
    (line,) = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and f"the API answered with a head.sha {head!r} that is not 40 hex digits" in line
    assert not [path for method, path, _ in stub.requests if method == "POST"]


@pytest.mark.parametrize("base", ["main", "refs/heads/main", BASE[:39], BASE.upper(), "--output=/tmp/x"])
def test_a_base_sha_that_is_not_40_hex_digits_is_an_answer_not_trusted(stub, tmp_path, base):
    """Security audit (s39h): pull_state refuses a base SHA that is not 40 hex digits as it refuses such a
    head SHA, but no test held it: dropping the base from that check passed every test. The base becomes
    base_ref, which run-sweep.yml's gate hands to `git merge-base` and `sweepgate validate --base-ref`: a
    branch name there would gate the head against whatever that branch then holds."""
    serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], base_sha=base)
    out = tmp_path / "out"
    proc = run_cli(stub, "decide", "--output", str(out), event=dispatch_event(), tmp_path=tmp_path)
    (line,) = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and f"the API answered with a base.sha {base!r} that is not 40 hex digits" in line
    assert not out.exists()

def test_a_dispatch_run_of_a_tag_named_main_titled_as_a_closed_pr_s_sweep_is_not_cancelled(stub, tmp_path):
    """Review (s36m): only runs titled as a sweep the poll would dispatch were checked to be of main's history,
    so an active run of a tag named main titled as a closed PR's sweep was cancelled, though the docs say such
    a run is never cancelled. A run the poll would cancel is checked too (one compare per commit, only for the
    active sweeps: the completed runs listed ask nothing); the tag's run is passed over and said, main's own
    run of the closed PR is cancelled."""
    base = f"/repos/{REPO}"
    stub.route("GET", f"{base}/pulls", [])
    others = [dict(wf_run(stub, 1000 + i, f"sweep PR #{900 + i} at {OLD} (trimmed)", "completed",
                          "2026-03-01T00:00:00Z"), head_sha=f"{i + 1:040x}") for i in range(10)]  # never asked
    tag_run = wf_run(stub, 6001, dispatch.run_title("9", HEAD, "trimmed"), "in_progress", "2026-02-09T00:00:00Z")
    own = wf_run(stub, 5, dispatch.run_title("10", HEAD, "trimmed"), "queued", "2026-02-01T00:00:00Z")
    serve_runs(stub, [*others, tag_run, own])
    older = stub.history.main
    stub.history.commit()  # main moved on since PR 10's sweep was dispatched
    tagged = stub.history.commit(parent=stub.history.main)
    stub.history.tag("main", tagged)
    tag_run["head_sha"], own["head_sha"] = tagged, older
    stub.route("POST", f"{base}/actions/runs/5/cancel", {}, status=202)
    stub.route("POST", f"{base}/actions/runs/6001/cancel", {}, status=202)
    proc = run_cli(stub, "dispatch")
    assert proc.returncode == 0, proc.stderr
    posts = [path for method, path, _ in stub.requests if method == "POST"]
    assert posts == [f"{base}/actions/runs/5/cancel"], (posts, proc.stderr)
    compares = sorted(t.split("/compare/")[1].split("?")[0] for t in stub.targets if "/compare/" in t)
    assert compares == sorted(f"{stub.history.main}...{sha}" for sha in (older, tagged)), stub.targets
    assert f"run 6001 (head_sha {tagged[:12]} not in main's history" in proc.stderr, proc.stderr
    assert "neither taken for a PR's sweep nor cancelled" in proc.stderr, proc.stderr


# --- s46a: a cancelled sweep comes back only when a maintainer asks again ---------------------

def _at(text):
    import datetime as dt

    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


CANCELLED_AT = _at("2026-01-03T00:00:00Z")


@pytest.mark.parametrize("conclusion,asked,dispatched", [
    ("cancelled", None, False),  # nobody asked again: a maintainer's cancel (or the poller's own) stands
    ("cancelled", "2026-01-02T00:00:00Z", False),  # the request is older than the run: it was that run's
    ("cancelled", "2026-01-04T00:00:00Z", True),  # the label applied again after the run ended
    ("timed_out", "2026-01-04T00:00:00Z", True),
    ("failure", "2026-01-04T00:00:00Z", False),  # a run that ended is re-run from its page, not dispatched again
    ("success", "2026-01-04T00:00:00Z", False),
])
def test_a_cancelled_sweep_is_dispatched_again_only_when_asked_after_it(conclusion, asked, dispatched):
    """s46a: the poll never dispatched a (SHA, mode) again once any run had that title, so a sweep a maintainer
    cancelled, or one that timed out, could not be asked for again: re-applying the label did nothing."""
    d = decision.Decision("trimmed", "label 'sweep-enabled': trimmed sweep", pr_number="7", head_ref=HEAD)
    run = dispatch.Run(5, dispatch.run_title("7", HEAD, "trimmed"), "completed", conclusion, CANCELLED_AT)
    requested = {"7": _at(asked)} if asked else {}
    actions = dispatch.plan({"7": d}, [run], requested=requested)
    assert [(a.kind, a.pr, a.sha) for a in actions] == ([("dispatch", "7", HEAD)] if dispatched else []), actions
    if dispatched:
        assert f"asked again after run 5 ended {conclusion}" in actions[0].reason, actions[0].reason


def test_a_running_sweep_is_not_dispatched_again_when_asked_again():
    d = decision.Decision("trimmed", "ok", pr_number="7", head_ref=HEAD)
    runs = [dispatch.Run(6, dispatch.run_title("7", HEAD, "trimmed"), "in_progress"),
            dispatch.Run(5, dispatch.run_title("7", HEAD, "trimmed"), "completed", "cancelled", CANCELLED_AT)]
    assert dispatch.plan({"7": d}, runs, requested={"7": _at("2026-01-04T00:00:00Z")}) == []


def test_requested_at_is_the_newest_counted_label_or_approval():
    state = auth.PullState(number=7, state="open", draft=False, head_sha=HEAD, base_sha=BASE, head_repo=REPO,
                           base_repo=REPO, labels=frozenset([SWEEP, decision.NO_CANARY_LABEL, "x"]),
                           labelers={SWEEP: "dev", decision.NO_CANARY_LABEL: "dev", "x": "maint"},
                           labeled_at={SWEEP: _at("2026-01-04T00:00:00Z"),
                                       decision.NO_CANARY_LABEL: _at("2026-01-09T00:00:00Z"),
                                       "x": _at("2026-01-10T00:00:00Z")},
                           comments=(("maint", f"/sweep {HEAD}"), ("maint", f"/sweep {OLD}"), ("reader", f"/sweep {HEAD}")),
                           comment_times=(_at("2026-01-05T00:00:00Z"), _at("2026-01-07T00:00:00Z"),
                                          _at("2026-01-08T00:00:00Z")))
    # a modifier label (no-canary) or another label asks for no sweep; the reader's approval counts for nothing,
    # nor an approval of another commit
    assert auth.requested_at(state, perm) == _at("2026-01-05T00:00:00Z")
    assert auth.requested_at(pull(), perm) is None


@pytest.mark.parametrize("labeled_at,dispatched", [("2026-01-01T00:00:00Z", False), ("2026-01-04T00:00:00Z", True)])
def test_the_poller_dispatches_a_cancelled_sweep_again_when_the_label_is_applied_again(stub, tmp_path, labeled_at,
                                                                                         dispatched):
    """s46a, through the API: run 5 of PR 7's head ended cancelled on 2026-01-03; the label the PR runs by was
    applied before it (the run's own request: nothing happens) or after it (a maintainer asks again: dispatched)."""
    pr = serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "dev")], event_times=[labeled_at])
    stub.route("GET", f"/repos/{REPO}/pulls", [pr])
    wf = serve_runs(stub, [wf_run(stub, 5, dispatch.run_title("7", HEAD, "trimmed"), "completed",
                                  conclusion="cancelled", updated_at="2026-01-03T00:00:00Z")])
    stub.route("POST", f"{wf}/dispatches", None, status=204)
    proc = run_cli(stub, "dispatch")
    assert proc.returncode == 0, proc.stderr
    posts = [(path, payload) for method, path, payload in stub.requests if method == "POST"]
    assert posts == ([(f"{wf}/dispatches", {"ref": decision.MAIN_REF,
                                            "inputs": {"pr-number": "7", "sha": HEAD, "mode": "trimmed"}})]
                     if dispatched else []), proc.stderr
    if dispatched:
        assert "asked again after run 5 ended cancelled" in proc.stderr
