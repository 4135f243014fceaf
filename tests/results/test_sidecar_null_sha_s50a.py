"""s50a: `results sidecar` wrote a GITHUB_SHA of zeros (git's null object id, which GitHub never sets) into the job's
sidecar, exit 0; the collect job's ingest then refused that sidecar at its commit (s48h), and the job's results were
lost after its GPU-hours were spent. It is refused in the step, one line naming where the commit came from (the
variable, or the job context file), exit 1, and no sidecar is written, as every other value GitHub never sets."""

from __future__ import annotations

import json

import pytest

from helpers import run_cli
from test_sidecar_links import job_env

from sweepgate.core import jobfile


@pytest.mark.parametrize("null", ["0" * 40, "0" * 64])
def test_a_github_sha_of_zeros_is_refused_and_no_sidecar_is_written(tmp_path, capsys, monkeypatch, null):
    results = tmp_path / "results"
    job_env(monkeypatch, results)
    monkeypatch.setenv("GITHUB_SHA", null)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and err.splitlines() == [
        f"GITHUB_SHA: '{null}' is git's null object id, no commit; leave GITHUB_SHA as the runner sets it (the commit "
        "the job checked out; by hand, git rev-parse HEAD), or unset it"], err
    assert not (results / f"res{jobfile.SUFFIX}").exists()


def test_a_job_context_s_commit_of_zeros_is_said_at_the_context(tmp_path, capsys, monkeypatch):
    results, context = tmp_path / "results", tmp_path / "job-context.json"
    job_env(monkeypatch, results)
    context.write_text(json.dumps(jobfile.context("refs/pull/7/head", "0" * 40, {})), encoding="utf-8")
    monkeypatch.setenv("JOB_CONTEXT_FILE", str(context))
    monkeypatch.setenv("GITHUB_SHA", "f" * 40)  # main's, of the dispatch: the context's commit is the job's
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and err.splitlines() == [
        f"{context}: '{'0' * 40}' is git's null object id, no commit; write the job context with `sweepgate ci split "
        "--job-context FILE --commit SHA`, the commit the jobs check out"], err
    assert not (results / f"res{jobfile.SUFFIX}").exists()


def test_a_sha_with_leading_zeros_is_a_commit(tmp_path, capsys, monkeypatch):
    """Guard: a commit that starts with zeros is written."""
    results = tmp_path / "results"
    job_env(monkeypatch, results)
    monkeypatch.setenv("GITHUB_SHA", "0" * 39 + "1")
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 0, err
    doc = json.loads((results / f"res{jobfile.SUFFIX}").read_text(encoding="utf-8"))
    assert doc[jobfile.JOB][jobfile.COMMIT] == "0" * 39 + "1"
