"""`sweepgate ci decide`: which workflow event runs which sweep."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.workflow import decide as decision, kv  # noqa: E402
from sweepgate.core.errors import SweepgateError  # noqa: E402

REPO = "acme/bench"
BASE_SHA = "a" * 40
HEAD_SHA = "b" * 40


def pr_event(action="synchronize", labels=(), *, label=None, draft=False, head_repo=REPO, number=42):
    event = {
        "action": action,
        "number": number,
        "pull_request": {
            "number": number,
            "draft": draft,
            "labels": [{"name": name} for name in labels],
            "base": {"sha": BASE_SHA, "ref": "main", "repo": {"full_name": REPO}},
            "head": {"sha": HEAD_SHA, "ref": "feature",
                     "repo": {"full_name": head_repo} if head_repo else None},
        },
        "repository": {"full_name": REPO},
    }
    if label is not None:
        event["label"] = {"name": label}
    return event


def push_event(ref="refs/heads/main", before=BASE_SHA, after=HEAD_SHA, message="bump"):
    return {"ref": ref, "before": before, "after": after, "head_commit": {"message": message}}


SWEEP, FULL = decision.SWEEP_LABEL, decision.FULL_SWEEP_LABEL

# (id, event name, payload, head commit message, expected mode, reason fragment)
CASES = [
    ("sync-trimmed", "pull_request", pr_event(labels=[SWEEP]), "", "trimmed", SWEEP),
    ("sync-full", "pull_request", pr_event(labels=[FULL]), "", "full", FULL),
    ("sync-no-label", "pull_request", pr_event(labels=["bug"]), "", "skip", "no sweep label"),
    ("label-added", "pull_request", pr_event("labeled", [SWEEP], label=SWEEP), "", "trimmed", SWEEP),
    ("full-label-added", "pull_request", pr_event("labeled", [FULL, "bug"], label=FULL), "", "full", FULL),
    ("unrelated-label-added", "pull_request", pr_event("labeled", [SWEEP, "bug"], label="bug"), "",
     "skip", "label 'bug' was labeled"),
    ("unrelated-label-removed", "pull_request", pr_event("unlabeled", [FULL], label="docs"), "",
     "skip", "does not affect"),
    ("sweep-label-removed", "pull_request", pr_event("unlabeled", [], label=SWEEP), "",
     "skip", "no sweep label"),
    ("switch-to-full", "pull_request", pr_event("unlabeled", [FULL], label=SWEEP), "", "full", FULL),
    ("ready-for-review", "pull_request", pr_event("ready_for_review", [SWEEP]), "", "trimmed", SWEEP),
    ("draft", "pull_request", pr_event(labels=[FULL], draft=True), "", "skip", "draft"),
    ("draft-labeled", "pull_request", pr_event("labeled", [SWEEP], label=SWEEP, draft=True), "",
     "skip", "draft"),
    ("fork", "pull_request", pr_event(labels=[FULL], head_repo="mallory/bench"), "", "skip", "fork"),
    ("fork-labeled", "pull_request", pr_event("labeled", [SWEEP], label=SWEEP, head_repo="mallory/bench"),
     "", "skip", "fork"),
    ("fork-deleted", "pull_request", pr_event(labels=[SWEEP], head_repo=None), "", "skip", "fork"),
    ("fork-both-labels", "pull_request", pr_event(labels=[SWEEP, FULL], head_repo="mallory/bench"), "",
     "skip", "fork"),
    ("skip-marker", "pull_request", pr_event(labels=[FULL]), "tune\n\n[skip-sweep]\n", "skip", "[skip-sweep]"),
    ("skip-marker-both-labels", "pull_request", pr_event(labels=[SWEEP, FULL]), "wip [skip-sweep]", "skip",
     "[skip-sweep]"),
    ("opened-not-handled", "pull_request", pr_event("opened", [SWEEP]), "", "skip", "action 'opened'"),
    ("push-main", "push", push_event(), "", "full", "push to main"),
    ("push-main-skip-marker-ignored", "push", push_event(message="[skip-sweep]"), "[skip-sweep]", "full",
     "push to main"),
    ("push-branch", "push", push_event(ref="refs/heads/feature"), "", "skip", "only pushes to"),
    ("push-deleted", "push", {**push_event(), "deleted": True}, "", "skip", "deleted"),
    ("push-null-after", "push", push_event(after="0" * 40), "", "skip", "deleted"),
    ("push-null-after-sha256", "push", push_event(after="0" * 64), "", "skip", "deleted"),
    ("other-event", "workflow_dispatch", {}, "", "skip", "workflow_dispatch"),
    ("all-evals", "pull_request", pr_event(labels=[SWEEP, decision.ALL_EVALS_LABEL]), "", "trimmed", "+"),
    ("modifier-label-added", "pull_request",
     pr_event("labeled", [FULL, decision.EVALS_ONLY_LABEL], label=decision.EVALS_ONLY_LABEL), "", "full", "+"),
    ("modifier-without-primary", "pull_request", pr_event(labels=[decision.ALL_EVALS_LABEL]), "", "skip",
     "no sweep label"),
]


@pytest.mark.parametrize("event_name,event,message,mode,reason",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_decide_table(event_name, event, message, mode, reason):
    d = decision.decide(event_name, event, message)
    assert d.mode == mode, d.reason
    assert d.run is (mode != "skip")
    assert d.trim_conc is (mode == "trimmed")
    assert reason in d.reason


@pytest.mark.parametrize("event", [
    pr_event(labels=[SWEEP, FULL]),
    pr_event("labeled", [SWEEP, FULL], label=FULL),
    pr_event("ready_for_review", [FULL, SWEEP, "bug"]),
])
def test_both_primary_labels_is_an_error(event):
    with pytest.raises(SweepgateError) as exc:
        decision.decide("pull_request", event, "", source="event.json")
    text = str(exc.value)
    assert "\n" not in text
    assert text.startswith("event.json: PR #42 has labels")
    assert SWEEP in text and FULL in text and "keep exactly one" in text


def test_pr_refs_and_modifiers():
    d = decision.decide("pull_request", pr_event(labels=[FULL, decision.ALL_EVALS_LABEL, decision.EVALS_ONLY_LABEL]))
    assert (d.pr_number, d.base_ref, d.head_ref) == ("42", BASE_SHA, HEAD_SHA)
    assert d.all_evals and d.evals_only
    out = d.outputs()
    assert out["eval_flags"] == "--all-evals --evals-only"
    assert out["run"] == "true" and out["trim_conc"] == "false" and out["mode"] == "full"


def test_push_refs():
    d = decision.decide("push", push_event())
    assert (d.base_ref, d.head_ref, d.pr_number) == (BASE_SHA, HEAD_SHA, "")
    for null in ("0" * 40, "0" * 64):  # git's null object id, SHA-1 or SHA-256 (fields.null_sha)
        first = decision.decide("push", push_event(before=null))
        assert first.base_ref == f"{HEAD_SHA}^", null


def test_outputs_are_complete_strings():
    out = decision.decide("pull_request", pr_event(labels=["bug"])).outputs()
    assert set(out) == {"run", "mode", "trim_conc", "all_evals", "evals_only", "eval_flags", "canary",
                        "fail_fast", "pr_number", "base_ref", "head_ref", "reason"}
    assert all(isinstance(v, str) for v in out.values())
    assert out["run"] == "false" and out["mode"] == "skip"


def test_every_label_is_relevant():
    assert decision.LABELS and all(decision.label_is_relevant(name) for name in decision.LABELS)
    assert all(decision.label_is_relevant(name.upper()) for name in decision.LABELS)
    assert len(set(decision.LABELS)) == len(decision.LABELS)


# GitHub's contains() and label matching ignore case; decide must too. Before the fix, adding
# 'Sweep-Review' to a PR with sweep-enabled was "irrelevant" here while a contains(..., 'sweep')
# concurrency group took it as relevant: the running sweep was cancelled and nothing started.
@pytest.mark.parametrize("labels,label,mode", [
    ([SWEEP, "Sweep-Review"], "Sweep-Review", "trimmed"),
    (["Sweep-Enabled"], "Sweep-Enabled", "trimmed"),
    (["FULL-SWEEP-ENABLED"], None, "full"),
    (["sweep-enabled", "Full-Sweep-Enabled"], None, "error"),
])
def test_labels_are_case_insensitive(labels, label, mode):
    event = pr_event("labeled" if label else "synchronize", labels, label=label)
    if mode == "error":
        with pytest.raises(SweepgateError):
            decision.decide("pull_request", event)
        return
    d = decision.decide("pull_request", event)
    assert d.mode == mode, d.reason


@pytest.mark.parametrize("labels,canary,fail_fast", [
    ([SWEEP], "true", "false"),
    ([SWEEP, decision.NO_CANARY_LABEL], "false", "false"),
    ([FULL, "Fail-Fast"], "true", "true"),
    ([FULL, "No-Canary", decision.FAIL_FAST_LABEL], "false", "true"),
    (["bug"], "false", "false"),
])
def test_canary_and_fail_fast_labels(labels, canary, fail_fast):
    out = decision.decide("pull_request", pr_event(labels=labels)).outputs()
    assert (out["canary"], out["fail_fast"]) == (canary, fail_fast)
    if labels != ["bug"]:
        assert out["run"] == "true"


def test_push_runs_canaries_without_fail_fast():
    out = decision.decide("push", push_event()).outputs()
    assert (out["canary"], out["fail_fast"]) == ("true", "false")


label_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-_[] ", min_size=1, max_size=30)


@given(label=label_names, present=st.lists(st.sampled_from([*decision.LABELS, "bug", "docs"]), unique=True),
       action=st.sampled_from(["labeled", "unlabeled"]))
def test_unrelated_label_events_never_run(label, present, action):
    # Consistency with the concurrency group: an event that does not share the
    # PR's group (label without the marker) must never start a sweep.
    if decision.label_is_relevant(label):
        return
    d = decision.decide("pull_request", pr_event(action, present, label=label))
    assert not d.run


@given(labels=st.lists(st.sampled_from([*decision.LABELS, "bug"]), unique=True),
       action=st.sampled_from(decision.PR_ACTIONS), draft=st.booleans(),
       head=st.sampled_from(["mallory/bench", None, "acme/bench-fork"]))
def test_forks_never_run(labels, action, draft, head):
    d = decision.decide("pull_request", pr_event(action, labels, label=(labels or ["x"])[0], draft=draft,
                                           head_repo=head))
    assert not d.run and "fork" in d.reason


# --- through the CLI ------------------------------------------------------------------

def run_cli(*args, env=None, cwd=None):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full_env["PYTHONPATH"] = str(ROOT / "utils")
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "sweepgate", "ci", *args], env=full_env,
                          capture_output=True, text=True, cwd=cwd or ROOT)


def write_event(tmp_path, event):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    return path


def test_cli_writes_github_output(tmp_path):
    event = write_event(tmp_path, pr_event("labeled", [SWEEP, decision.ALL_EVALS_LABEL], label=SWEEP))
    out = tmp_path / "output"
    out.write_text("earlier=1\n")
    summary = tmp_path / "summary"
    proc = run_cli("decide", "--head-message", "tune kimi", env={
        "GITHUB_EVENT_PATH": str(event), "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_OUTPUT": str(out), "GITHUB_STEP_SUMMARY": str(summary)})
    assert proc.returncode == 0, proc.stderr
    values = kv.parse_kv(out.read_text())
    assert values["earlier"] == "1"
    assert values["run"] == "true" and values["mode"] == "trimmed" and values["trim_conc"] == "true"
    assert values["eval_flags"] == "--all-evals"
    assert values["pr_number"] == "42" and values["head_ref"] == HEAD_SHA
    assert "trimmed" in summary.read_text()


def test_cli_push_event(tmp_path):
    event = write_event(tmp_path, push_event())
    out = tmp_path / "output"
    proc = run_cli("decide", "--event-path", str(event), "--event-name", "push", "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    assert kv.parse_kv(out.read_text())["mode"] == "full"


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    work = tmp_path / "repo"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    (work / "perf-changelog.yaml").write_text("[]\n")
    git(work, "add", ".")
    git(work, "commit", "-qm", "base")
    base = git(work, "rev-parse", "HEAD")
    git(work, "commit", "-q", "--allow-empty", "-m", "main moves on")
    main_tip = git(work, "rev-parse", "HEAD")
    git(work, "checkout", "-qb", "feature", base)
    return work, base, main_tip


def test_cli_reads_head_message_from_git(repo, tmp_path):
    work, base, main_tip = repo
    git(work, "commit", "-q", "--allow-empty", "-m", "try a thing\n\n[skip-sweep]")
    event = pr_event(labels=[FULL])
    event["pull_request"]["head"]["sha"] = git(work, "rev-parse", "HEAD")
    path = write_event(tmp_path, event)
    out = tmp_path / "output"
    proc = run_cli("decide", "--event-path", str(path), "--event-name", "pull_request",
                   "--output", str(out), cwd=work)
    assert proc.returncode == 0, proc.stderr
    values = kv.parse_kv(out.read_text())
    assert values["run"] == "false" and "[skip-sweep]" in values["reason"]


def test_cli_merge_base(repo, tmp_path):
    work, base, main_tip = repo
    git(work, "commit", "-q", "--allow-empty", "-m", "add entry")
    event = pr_event(labels=[SWEEP])
    event["pull_request"]["head"]["sha"] = git(work, "rev-parse", "HEAD")
    event["pull_request"]["base"]["sha"] = main_tip
    path = write_event(tmp_path, event)
    out = tmp_path / "output"
    proc = run_cli("decide", "--event-path", str(path), "--event-name", "pull_request",
                   "--merge-base", "--output", str(out), cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert kv.parse_kv(out.read_text())["base_ref"] == base


def test_cli_unreadable_head_commit_is_one_line_error(repo, tmp_path):
    work, _, _ = repo
    path = write_event(tmp_path, pr_event(labels=[SWEEP]))  # HEAD_SHA does not exist
    proc = run_cli("decide", "--event-path", str(path), "--event-name", "pull_request", cwd=work)
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "fetch-depth: 0" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_both_labels_fails(tmp_path):
    path = write_event(tmp_path, pr_event("labeled", [SWEEP, FULL], label=FULL))
    out = tmp_path / "output"
    proc = run_cli("decide", "--event-path", str(path), "--event-name", "pull_request",
                   "--head-message", "", "--output", str(out))
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"{path}: PR #42 has labels '{SWEEP}' and '{FULL}'; keep exactly one: "
                                   f"{SWEEP} (trimmed) or {FULL} (everything)")
    assert not out.exists()


@pytest.mark.parametrize("setup,fragment", [
    (lambda p: {"GITHUB_EVENT_PATH": str(p / "missing.json"), "GITHUB_EVENT_NAME": "push"}, "not found"),
    (lambda p: (p / "bad.json").write_text('{"action":\n oops}') and
     {"GITHUB_EVENT_PATH": str(p / "bad.json"), "GITHUB_EVENT_NAME": "push"}, "bad.json:2:2: event payload"),
    (lambda p: (p / "list.json").write_text("[]") and
     {"GITHUB_EVENT_PATH": str(p / "list.json"), "GITHUB_EVENT_NAME": "push"}, "not a JSON object"),
])
def test_cli_bad_input(tmp_path, setup, fragment):
    proc = run_cli("decide", env=setup(tmp_path))
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_output_format_resists_injection(tmp_path):
    # A label name is PR-controlled; a newline in a value must not create outputs.
    text = kv.format_kv({"reason": "x\nrun=true", "mode": "skip"})
    assert kv.parse_kv(text) == {"reason": "x\nrun=true", "mode": "skip"}
    with pytest.raises(ValueError):
        kv.format_kv({"bad name": "x"})
    # security review: `^...$` took a name ending in a newline, which splits its line in two
    for name in ("run\n", "run\n=true\nx", "\nrun"):
        with pytest.raises(ValueError):
            kv.format_kv({name: "x"})


def test_a_value_holding_the_delimiter_drawn_gets_another(monkeypatch):
    """A value holding its heredoc's delimiter would end the heredoc early and set what its next lines say,
    so the delimiter is drawn again while the value holds it. Security audit: that loop was never run by a
    test, and a format_kv without it passed every one."""
    import uuid

    draws = iter([uuid.UUID(int=1), uuid.UUID(int=2)])
    monkeypatch.setattr(kv.uuid, "uuid4", lambda: next(draws))
    value = f"x\nghadelimiter_{uuid.UUID(int=1).hex}\nrun=true"
    text = kv.format_kv({"reason": value})
    assert kv.parse_kv(text) == {"reason": value}, text
    assert text.startswith(f"reason<<ghadelimiter_{uuid.UUID(int=2).hex}\n"), text


def test_parse_kv_reads_runner_format():
    text = "a=1\nB<<EOF_1\nline one\nline=two\nEOF_1\nc=\n"
    assert kv.parse_kv(text) == {"a": "1", "B": "line one\nline=two", "c": ""}


@pytest.mark.parametrize("event_name, patch, said", [
    ("pull_request", {"pull_request": {"number": 7, "head": 5}}, "pull_request.head: 5 is not of type 'object', 'null'"),
    ("pull_request", {"pull_request": {"number": 7, "head": {"sha": 5}}}, "pull_request.head.sha: 5 is not of type"),
    ("pull_request", {"pull_request": {"number": 7, "labels": "sweep-enabled"}}, "pull_request.labels: 'sweep-enabled'"),
    ("push", {"ref": "refs/heads/main", "after": "HEAD"}, "after: 'HEAD' does not match"),
    ("workflow_dispatch", {"ref": "refs/heads/main", "inputs": "x"}, "inputs: 'x' is not of type 'object', 'null'"),
])
def test_a_payload_of_the_wrong_shape_is_refused_on_its_field(tmp_path, event_name, patch, said):
    """Bad-input review: `"head": 5` in a pull_request payload was "internal error: AttributeError"."""
    event = write_event(tmp_path, {"action": "synchronize", **patch})
    out = tmp_path / "output"
    proc = run_cli("decide", "--event-path", str(event), "--event-name", event_name, "--output", str(out),
                   "--repository", "acme/bench", "--github-api-url", "http://127.0.0.1:1")
    assert proc.returncode == 1 and "internal error" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"{event}: event payload: {said}") and line.endswith(
        "; pass the webhook payload GitHub wrote ($GITHUB_EVENT_PATH)"), line
    assert not out.exists()


@pytest.mark.parametrize("after", [None, "missing"])
def test_a_push_to_main_without_its_after_commit_is_refused(tmp_path, after):
    """Review: a push payload to main without `after` (or with null) decided run=true with head_ref=''
    and base_ref='^', which the setup job then checked out (main's tip) and handed to git as refs."""
    event = {"ref": "refs/heads/main", "before": BASE_SHA}
    if after != "missing":
        event["after"] = after
    path = write_event(tmp_path, event)
    out = tmp_path / "output"
    proc = run_cli("decide", "--event-path", str(path), "--event-name", "push", "--output", str(out),
                   "--head-message", "x")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"{path}: push payload without its 'after' commit"), line
    assert not out.exists()


def test_a_dispatch_with_a_pr_number_that_is_none_says_so(tmp_path):
    event = write_event(tmp_path, {"ref": "refs/heads/main", "inputs": {"pr-number": "abc", "sha": "a" * 40}})
    out = tmp_path / "output"
    proc = run_cli("decide", "--event-path", str(event), "--event-name", "workflow_dispatch", "--output", str(out),
                   "--repository", "acme/bench", "--github-api-url", "http://127.0.0.1:1")
    assert proc.returncode == 0 and kv.parse_kv(out.read_text())["run"] == "false", proc.stderr
    assert "pr-number 'abc', not a PR number" in proc.stderr, proc.stderr


@pytest.mark.parametrize("action", ["labeled", "unlabeled"])
def test_a_label_event_without_its_label_is_refused(action):
    """Hunt badin18 (left open, then fixed): a labeled payload without `label` was skipped as
    "label '' was labeled: it does not affect the sweep"; GitHub always names the label."""
    with pytest.raises(SweepgateError) as exc:
        decision.decide("pull_request", pr_event(action, [SWEEP]), "", source="event.json")
    assert str(exc.value).startswith(f"event.json: pull_request '{action}' payload without its label's name; "), exc.value



def test_a_dash_step_summary_is_refused_before_any_output_is_written(tmp_path):
    """Carried from review: `ci decide` and `ci watch` have no --step-summary flag and appended their line
    to a file called '-' when GITHUB_STEP_SUMMARY=- (compare and plan refuse it, naming the variable).
    Refused before $GITHUB_OUTPUT gets a line: no half-told decision."""
    event = write_event(tmp_path, push_event())
    out = tmp_path / "output"
    proc = run_cli("decide", "--event-path", str(event), "--event-name", "push", "--output", str(out),
                   env={"GITHUB_STEP_SUMMARY": "-"}, cwd=tmp_path)
    (line,) = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and line.startswith("-: $GITHUB_STEP_SUMMARY: '-' is no standard output here"), proc.stderr
    assert not out.exists() and not (tmp_path / "-").exists()
    watch = run_cli("watch", "--until", "collect", "--run-id", "5", env={
        "GITHUB_STEP_SUMMARY": "-", "GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/r",
        "GITHUB_API_URL": "http://127.0.0.1:9"}, cwd=tmp_path)
    (line,) = watch.stderr.strip().splitlines()
    assert watch.returncode == 1 and "$GITHUB_STEP_SUMMARY: '-' is no standard output here" in line, watch.stderr


def test_a_folder_step_summary_is_refused_by_its_name_before_any_output_is_written(tmp_path):
    """s32i: GITHUB_STEP_SUMMARY naming a folder was found only after $GITHUB_OUTPUT had the decision
    (a half-told step), and said as `point $GITHUB_OUTPUT / $GITHUB_STEP_SUMMARY (or --output) at a writable
    file`, though 64569d3 names the file an output goes to; it is now refused first, by its variable."""
    event = write_event(tmp_path, push_event())
    out, folder = tmp_path / "output", tmp_path / "summaries"
    folder.mkdir()
    proc = run_cli("decide", "--event-path", str(event), "--event-name", "push", "--output", str(out),
                   env={"GITHUB_STEP_SUMMARY": str(folder)}, cwd=tmp_path)
    (line,) = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and line == (f"{folder}: $GITHUB_STEP_SUMMARY: is a folder, not a file; "
                                             "set $GITHUB_STEP_SUMMARY to a file, or unset it"), proc.stderr
    assert not out.exists()


@pytest.mark.parametrize("event_name, said", [
    ("pull_request", "pull_request payload without its 'action'"),
    ("push", "push payload without its 'ref'"),
])
def test_a_file_of_another_kind_is_no_payload_to_skip_on(tmp_path, event_name, said):
    """New-user review (s32g): `--event-path matrix.json` (a JSON file of another kind) decided run=false,
    "pull_request action '' does not run sweeps" (a push: "push to an unknown ref"), exit 0: a mistyped
    path read as a quiet skip. GitHub always sends a pull_request's `action` and a push's `ref`."""
    path = write_event(tmp_path, {"single_node": {}, "multi_node": {}, "changelog_metadata": {}})
    out = tmp_path / "output"
    proc = run_cli("decide", "--event-path", str(path), "--event-name", event_name, "--output", str(out),
                   "--head-message", "x")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line == f"{path}: {said}; pass the webhook payload GitHub wrote ($GITHUB_EVENT_PATH)", line
    assert not out.exists()
