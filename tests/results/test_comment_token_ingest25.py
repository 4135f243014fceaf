"""Without a GitHub token, `results comment` (posting is all it does) exits 1 with one line naming the
variable to set, and so does `results compare --comment` on a PR's run, after its report (cmp28: it
noted "not commenting" and exited 0, which lost the comment unseen in CI; test_comment_token_cmp28.py).
Neither sends a request. The line says what to set (GH_TOKEN too)."""

from __future__ import annotations

import sys
from pathlib import Path

import synth
from helpers import run_cli

from sweepgate.results import render, store

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from github_stub import GitHubStub  # noqa: E402

LINE = ("sweepgate results compare: --comment needs GITHUB_TOKEN: GITHUB_TOKEN is not set; set GITHUB_TOKEN "
        "(or GH_TOKEN), or write the body with --comment-file for `sweepgate results comment` to post")


def no_token(monkeypatch) -> GitHubStub:
    for k in ("GITHUB_TOKEN", "GH_TOKEN", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS"):
        monkeypatch.delenv(k, raising=False)
    return GitHubStub()


def test_compare_comment_without_a_token_reports_then_names_what_to_set_and_exits_1(tmp_path, capsys, monkeypatch):
    stub = no_token(monkeypatch)
    try:
        db = f"sqlite:///{tmp_path / 'r.db'}"
        with store.open_store(db) as st:
            st.add(synth.history() + synth.pr_run())
        rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--comment",
                               "--repository", "acme/bench", "--github-api-url", stub.url)
        assert rc == 1 and "pr-7" in out, err
        assert err.splitlines() == [LINE], err
        assert stub.requests == []
    finally:
        stub.close()


def test_results_comment_without_a_token_exits_1_naming_the_variable(tmp_path, capsys, monkeypatch):
    stub = no_token(monkeypatch)
    try:
        body = tmp_path / "comment.md"
        body.write_text(f"{render.MARKER}\nreport\n", encoding="utf-8")
        rc, out, err = run_cli(capsys, "results", "comment", "--body", str(body), "--pr-number", "7",
                               "--repository", "acme/bench", "--github-api-url", stub.url)
        assert (rc, out) == (1, "") and err.splitlines() == [
            "sweepgate results comment: needs GITHUB_TOKEN: GITHUB_TOKEN is not set; set GITHUB_TOKEN (or GH_TOKEN)"], err
        assert stub.requests == []
    finally:
        stub.close()
