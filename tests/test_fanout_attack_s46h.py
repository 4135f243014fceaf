"""Security review s46h: an outside contributor (fork PR) and a triage account trying to get code or text
onto the GPU side. Each test here was seen failing before its fix (or, where the path was already closed,
under a broken copy of what closes it)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_ci_authorize import HEAD, SWEEP, dispatch_event, run_cli, serve_pull, stub  # noqa: E402,F401
from test_workflows import SETUP_CACHES, WORKFLOWS  # noqa: E402
from sweepgate.workflow import kv  # noqa: E402


def test_the_last_applier_of_a_label_counts_whatever_case_each_event_spelt_it(stub, tmp_path):
    """Issue events keep a label's name as it was spelt when applied (a writer may rename a label, case and
    all). pull_state kept one applier per spelling, and counted_labels then took, among the spellings, the one
    first seen: a triage account (read) that applied `sweep-enabled` before a maintainer applied it as
    `Sweep-Enabled`, and applied it again last after the maintainer's was removed, had the maintainer's label
    counted for its own, and the PR swept. The last `labeled` event of the label, in any case, decides."""
    serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "triager"), ("Sweep-Enabled", "dev"), (SWEEP, "triager")])
    out = tmp_path / "out"
    proc = run_cli(stub, "decide", "--output", str(out), event=dispatch_event(), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    values = kv.parse_kv(out.read_text())
    assert values["run"] == "false" and "without write permission" in values["reason"], values
    # and the other way round: the maintainer's application, last, counts
    serve_pull(stub, labels=[SWEEP], events=[("Sweep-Enabled", "triager"), (SWEEP, "triager"), ("SWEEP-ENABLED", "dev")])
    again = tmp_path / "again"
    proc = run_cli(stub, "decide", "--output", str(again), event=dispatch_event(), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert kv.parse_kv(again.read_text())["run"] == "true"


# --- caches: main's scope is writable by what an approved multi-node script can reach ---------------------

# Actions known to restore no cache (actions/cache/save only saves). Any other action counts as one that may.
NO_RESTORE_ACTIONS = re.compile(r"actions/(?:checkout|cache/save|upload-artifact|download-artifact)@")
RESTORERS = re.compile(r"actions/cache(?:/restore)?@")


def restores_cache(step: dict) -> bool:
    uses = str(step.get("uses", ""))
    if not uses:
        return False
    setup = SETUP_CACHES.match(uses)
    if setup:
        cache = (step.get("with") or {}).get("cache")
        return cache not in (None, False, "false", "") if setup.group(1) != "go" else cache not in (False, "false")
    return bool(RESTORERS.match(uses)) or not NO_RESTORE_ACTIONS.match(uses)


def trusted_cache_readers(workflow_dir: Path) -> list[str]:
    """Steps that can restore a cache in a workflow no pull request reaches (run-sweep.yml, the templates, the
    poller, cache-warm.yml): those run main's code with the run's write scopes, secrets or GPU hosts."""
    import workflow_reach

    found = {p.name: workflow_reach.load(p) for p in sorted(workflow_dir.glob("*.y*ml"))}
    triggers = workflow_reach.reaching_triggers(found)
    return [f"{name}:{job}:{step.get('name') or step['uses']}"
            for name, doc in found.items() if not triggers[name] & workflow_reach.PR_TRIGGERS
            for job, body in (doc.get("jobs") or {}).items() for step in body.get("steps") or []
            if restores_cache(step)]


def test_no_workflow_a_pr_cannot_start_restores_a_cache():
    """docs/security.md says the GPU side restores no cache, and nothing held it to that. A PR's sweep is a
    dispatch on main, so its jobs save caches in main's scope: an approved multi-node script can reach the run's
    Actions runtime token (docs/security.md, *What this does not protect*) and save a `pip` or sweepgate cache
    there. A restore in run-sweep.yml's collect job (SWEEPGATE_DB), comment job (pull-requests: write), the
    poller (actions: write) or a template would hand that to main's code with those secrets and scopes. Only
    pr-sweep.yml, which holds none, restores one."""
    assert trusted_cache_readers(WORKFLOWS) == []


@pytest.mark.parametrize("on, uses, bad", [
    ("workflow_dispatch", "actions/setup-python@" + "0" * 40 + "\n        with: {cache: pip}", True),
    ("push", "actions/cache/restore@" + "0" * 40, True),
    ("schedule", "actions/cache@" + "0" * 40, True),
    ("workflow_call", "actions/setup-go@" + "0" * 40, True),
    ("push", "astral-sh/setup-uv@" + "0" * 40, True),  # restores (and saves) its cache by default
    ("push", "actions/cache/save@" + "0" * 40, False),
    ("push", "actions/setup-python@" + "0" * 40 + "\n        with: {python-version: '3.11'}", False),
    ("[push, pull_request]", "actions/cache/restore@" + "0" * 40, False),  # the PR side: no secret there
])
def test_the_trusted_cache_reader_check_catches_each_restore(tmp_path, on, uses, bad):
    (tmp_path / "w.yml").write_text(f"on: {on}\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
                                    f"      - uses: {uses}\n")
    assert bool(trusted_cache_readers(tmp_path)) is bad


def test_a_cache_restored_in_run_sweep_is_caught(tmp_path):
    """The check over a copy of the real workflows with `cache: pip` on collect's setup-python (the break)."""
    copy = tmp_path / "workflows"
    shutil.copytree(WORKFLOWS, copy)
    text = (copy / "run-sweep.yml").read_text()
    marker = "      - uses: actions/setup-python@e797f83bcb11b83ae66e0230d6156d7c80228e7c # v6.0.0\n" \
             "        if: ${{ !failure() }}\n" \
             "        with:\n          python-version: \"3.11\"\n      - name: Install sweepgate\n"
    assert text.count(marker) == 1
    (copy / "run-sweep.yml").write_text(text.replace(marker, marker.replace(
        'python-version: "3.11"\n', 'python-version: "3.11"\n          cache: pip\n')))
    assert trusted_cache_readers(copy) == ["run-sweep.yml:collect:actions/setup-python@"
                                           "e797f83bcb11b83ae66e0230d6156d7c80228e7c"]


# --- a fork PR retargeted after its approval -------------------------------------------------------------

FORK = "mallory/bench"


def _serve_pull_into(stub, base_branch: str, **kw):
    """serve_pull's answer with the PR's base branch changed (what the PR's author may do at any time)."""
    pr = serve_pull(stub, **kw)
    pr["base"]["ref"] = base_branch
    pr["base"]["label"] = f"acme:{base_branch}"
    base = "/repos/acme/bench"
    stub.route("GET", f"{base}/pulls/7", pr)
    stub.route("GET", f"{base}/issues/7", {**pr, "url": f"{stub.url}{base}/issues/7"})
    return pr


@pytest.mark.parametrize("base_branch,runs", [("main", True), ("release-0.1", False), ("mainline", False)])
def test_a_fork_pr_s_approval_sweeps_it_only_into_main(stub, tmp_path, base_branch, runs):
    """A maintainer's `/sweep <sha>` names a commit, not the branch the PR is into, and a PR's author may
    retarget it to any branch of the repository after the approval. The head is the same commit, so the
    approval still held, and the GPU side's gate diffed it against the new base's merge-base: every changelog
    entry main gained since that branch left it counted as appended by the PR, and the approved scripts ran on
    each of those keys (a thousand GPU-hours the maintainer never saw in the diff they approved). A fork PR is
    now swept only into main; one into another branch is skipped, saying so, until it is retargeted."""
    _serve_pull_into(stub, base_branch, head_repo=FORK, comments=[("maint", f"/sweep {HEAD}")])
    out = tmp_path / "out"
    proc = run_cli(stub, "decide", "--output", str(out), event=dispatch_event(), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    values = kv.parse_kv(out.read_text())
    assert values["run"] == ("true" if runs else "false"), values["reason"]
    if not runs:
        assert f"into {base_branch!r}" in values["reason"] and "main" in values["reason"], values["reason"]


# --- a bot acting for whoever triggered it ------------------------------------------------------------------

BOT = "labeler-app[bot]"


@pytest.mark.parametrize("answer", [
    (404, {"message": f"{BOT} is not a user"}),  # what GitHub answers for an App's bot account
    (200, {"permission": "none", "role_name": "none", "user": {"login": BOT, "id": 9, "type": "Bot"}}),
])
def test_a_label_or_approval_by_an_app_s_bot_account_starts_nothing(stub, tmp_path, answer):
    """An App installed with write access (a path labeler, a slash-command bot) applies labels and posts comments
    as its bot account, for whoever triggered it: a fork's author could have it label `full-sweep-enabled` or
    echo `/sweep <sha>`. The bot is no collaborator, so GitHub answers its permission 404 or `none`, and neither
    counts: nothing is taken from the event or from the App's installation permissions."""
    status, body = answer
    serve_pull(stub, head_repo=FORK, labels=[SWEEP], events=[(SWEEP, BOT)], comments=[(BOT, f"/sweep {HEAD}")])
    stub.route("GET", f"/repos/acme/bench/collaborators/{BOT}/permission", body, status=status)
    out = tmp_path / "out"
    proc = run_cli(stub, "decide", "--output", str(out), event=dispatch_event(), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    values = kv.parse_kv(out.read_text())
    assert values["run"] == "false" and "write permission or more" in values["reason"], values
    serve_pull(stub, labels=[SWEEP], events=[(SWEEP, BOT)])  # a same-repository PR: the label alone
    stub.route("GET", f"/repos/acme/bench/collaborators/{BOT}/permission", body, status=status)
    again = tmp_path / "again"
    proc = run_cli(stub, "decide", "--output", str(again), event=dispatch_event(), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert kv.parse_kv(again.read_text())["run"] == "false"
