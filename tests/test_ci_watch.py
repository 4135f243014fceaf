"""`sweepgate ci watch` (the fail-fast watchdog) against a local REST stand-in of GitHub's jobs API."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from github_stub import TOKEN, GitHubStub  # noqa: E402
from sweepgate.workflow.watch import CANCEL, DONE, WAIT, judge  # noqa: E402

REPO = "acme/bench"
RUN = "9001"
JOBS = f"/repos/{REPO}/actions/runs/{RUN}/attempts/2/jobs"
CANCEL_PATH = f"/repos/{REPO}/actions/runs/{RUN}/cancel"
COLLECT = "collect results"


def job(name, status="in_progress", conclusion=None, i=0):
    return {"id": 100 + i, "run_id": int(RUN), "run_attempt": 2, "name": name, "status": status,
            "conclusion": conclusion, "html_url": f"https://github.com/{REPO}/actions/runs/{RUN}/job/{100 + i}"}


def polls(*states):
    """A jobs route answering each poll with the next state (the last one repeats), paged as GitHub pages."""
    seen = {"n": 0}

    def answer(_payload, query):
        jobs = states[min(seen["n"], len(states) - 1)]
        page, per = int(query.get("page", ["1"])[0]), int(query.get("per_page", ["30"])[0])
        if page * per >= len(jobs):
            seen["n"] += 1  # the last page of a poll
        return 200, {"total_count": len(jobs), "jobs": jobs[(page - 1) * per:page * per]}

    return answer


@pytest.fixture
def stub():
    server = GitHubStub()
    server.route("POST", CANCEL_PATH, None, status=202)
    yield server
    server.close()


def watch(stub, *extra, timeout=30):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(PYTHONPATH=str(ROOT / "utils"), GITHUB_TOKEN=TOKEN, GITHUB_REPOSITORY=REPO,
               GITHUB_RUN_ID=RUN, GITHUB_RUN_ATTEMPT="2")
    return subprocess.run([sys.executable, "-m", "sweepgate", "ci", "watch", "--api-url", stub.url,
                           "--until", COLLECT, "--interval", "0.05", *extra],
                          env=env, capture_output=True, text=True, cwd=ROOT, timeout=timeout)


def cancels(stub):
    return [r for r in stub.requests if r[:2] == ("POST", CANCEL_PATH)]


def test_a_failed_job_in_another_chunk_cancels_the_whole_run(stub):
    running = [job("decide", "completed", "success"), job("matrix", "completed", "success", 1),
               job("fixed-seq-len a (b300) / benchmark", i=2), job("agentic b (mi355x) / benchmark", i=3)]
    failed = [*running[:3], job("agentic b (mi355x) / benchmark", "completed", "failure", 3)]
    stub.route("GET", JOBS, polls(running, running, failed))
    proc = watch(stub)
    assert proc.returncode == 0, proc.stderr
    assert len(cancels(stub)) == 1
    assert "cancel: job 'agentic b (mi355x) / benchmark' ended with failure" in proc.stderr
    assert [r[1] for r in stub.requests].count(JOBS) == 3  # it polled until the failure, then stopped


def test_a_failure_on_the_second_page_is_seen(stub):
    jobs = [job(f"fixed-seq-len r{i} (b300) / benchmark", i=i) for i in range(150)]
    jobs[140] = job("fixed-seq-len r140 (b300) / benchmark", "completed", "timed_out", 140)
    stub.route("GET", JOBS, polls(jobs))
    proc = watch(stub)
    assert proc.returncode == 0 and len(cancels(stub)) == 1, proc.stderr


def test_a_clean_sweep_is_never_cancelled_and_the_watch_ends_when_collect_starts(stub):
    running = [job("fixed-seq-len a (b300) / benchmark"), job("canary a (b300) / benchmark", "completed", "success", 1)]
    done = [job("fixed-seq-len a (b300) / benchmark", "completed", "success"), running[1],
            job("fixed-seq-len c (b300) / benchmark", "completed", "cancelled", 3), job(COLLECT, "queued", i=2)]
    stub.route("GET", JOBS, polls(running, running, done))
    proc = watch(stub)
    assert proc.returncode == 0, proc.stderr
    assert cancels(stub) == []
    assert f"done: '{COLLECT}' started" in proc.stderr


def test_the_watch_gives_up_after_max_minutes_without_cancelling(stub):
    stub.route("GET", JOBS, polls([job("fixed-seq-len a (b300) / benchmark")]))
    proc = watch(stub, "--max-minutes", "0.003")
    assert proc.returncode == 0 and cancels(stub) == []
    assert "stopped watching after" in proc.stderr


def test_a_token_without_actions_write_is_one_line(stub):
    stub.route("GET", JOBS, polls([job("a", "completed", "failure")]))
    stub.route("POST", CANCEL_PATH, {"message": "Resource not accessible by integration"}, status=403)
    proc = watch(stub)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert "GitHub API error 403 watching run 9001 of acme/bench" in last
    assert "actions: write" in proc.stderr and "Traceback" not in proc.stderr


def test_judge():
    assert judge([], COLLECT).action == WAIT
    assert judge([job("x", "completed", "cancelled"), job("y", "completed", "skipped")], COLLECT).action == WAIT
    assert judge([job("x", "completed", "failure")], COLLECT).action == CANCEL
    # once collect exists every benchmark ended: cancelling would only stop the results' ingest
    assert judge([job("x", "completed", "failure"), job(COLLECT, "queued")], COLLECT).action == DONE


def test_a_passing_api_failure_does_not_end_the_watch(stub):
    """Review: a rate limit (or a 5xx) on one poll, lasting past the client's tries, ended the watch with
    exit 1, so a job failing later ran on. It is one line and the next poll asks again."""
    running = [job("fixed-seq-len a (b300) / benchmark")]
    failed = [job("fixed-seq-len a (b300) / benchmark", "completed", "failure")]
    answers = polls(running, failed)
    seen = {"n": 0}

    def flaky(payload, query):
        seen["n"] += 1
        if seen["n"] == 2:  # the second poll is rate limited
            return 403, {"message": "API rate limit exceeded"}, {"X-RateLimit-Remaining": "0",
                                                                  "X-RateLimit-Reset": "4102444800"}
        return answers(payload, query)

    stub.route("GET", JOBS, flaky)
    proc = watch(stub)
    assert proc.returncode == 0, proc.stderr
    assert len(cancels(stub)) == 1 and "Traceback" not in proc.stderr
    assert any("rate limited" in line and line.endswith("asking again at the next poll")
               for line in proc.stderr.splitlines()), proc.stderr
