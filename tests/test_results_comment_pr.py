"""`results comment` posts a report on the PR it is about, and only there (cli23).

A report `results compare --comment-file` writes names its PR and run on its second line; a
`--pr-number` naming another PR (a typo, another run's artifact) is refused before any request.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "utils"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "results"))

import pytest  # noqa: E402
import synth  # noqa: E402
from test_github_comment import NAME, NUMBER, OWNER, TOKEN, FakeGitHub  # noqa: E402

from sweepgate import cli  # noqa: E402
from sweepgate.results import render, store  # noqa: E402


@pytest.fixture
def gh():
    server = FakeGitHub()
    yield server
    server.close()


def report_of(tmp_path, monkeypatch, ref: str, *flags: str) -> Path:
    """The comment file compare writes for run pr-7, its results stored under ``ref``."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(db) as st:
        st.add(synth.history() + [dict(r, ref=ref) for r in synth.pr_run()])
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    body = tmp_path / "comment.md"
    assert cli.main(["results", "compare", "--db", db, "--run", "pr-7", "--comment-file", str(body), *flags]) == 0
    return body


def post(body: Path, gh, number: int) -> int:
    return cli.main(["results", "comment", "--body", str(body), "--pr-number", str(number),
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url])


def test_a_report_about_another_pr_is_refused_before_any_request(gh, tmp_path, monkeypatch, capsys):
    body = report_of(tmp_path, monkeypatch, "refs/pull/41/merge")
    assert render.about_of(body.read_text()) == (41, "pr-7")
    capsys.readouterr()
    assert post(body, gh, NUMBER) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (f"{body}:2: the report is about PR 41 (run pr-7), not PR {NUMBER} (--pr-number {NUMBER}); "
                    "post it with --pr-number 41, or pass the report `results compare --run RUN-ID "
                    f"--comment-file PATH` wrote for PR {NUMBER}")
    assert gh.requests == [] and gh.comments == {}


def test_a_report_about_the_same_pr_is_posted(gh, tmp_path, monkeypatch, capsys):
    body = report_of(tmp_path, monkeypatch, f"refs/pull/{NUMBER}/head")
    assert post(body, gh, NUMBER) == 0
    (comment,) = gh.comments.values()
    assert comment["body"] == body.read_text()
    assert "note:" not in capsys.readouterr().err


def test_compare_s_pr_number_names_the_pr_when_the_run_s_refs_name_none(gh, tmp_path, monkeypatch, capsys):
    """A run stored under a branch (a dispatched sweep) names no PR: --pr-number says which it is for."""
    body = report_of(tmp_path, monkeypatch, "refs/heads/tune", "--pr-number", "41")
    assert render.about_of(body.read_text()) == (41, "pr-7")
    assert post(body, gh, NUMBER) == 1 and gh.comments == {}


def test_a_hand_written_report_naming_no_pr_is_posted_with_a_note(gh, tmp_path, monkeypatch, capsys):
    body = tmp_path / "hand.md"
    body.write_text(f"{render.MARKER}\n### results, by hand\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    assert post(body, gh, NUMBER) == 0
    assert len(gh.comments) == 1
    assert f"{body}: note: the report names no pull request (no run); posted on PR {NUMBER} unchecked" \
        in capsys.readouterr().err



def test_the_earlier_comment_on_a_late_page_is_updated_not_doubled(gh, tmp_path, monkeypatch):
    """Our comment listed 251st of 271 (page 9 of 30 a page, the API's Link headers followed): edited."""
    body = report_of(tmp_path, monkeypatch, f"refs/pull/{NUMBER}/head")
    for i in range(250):
        gh.add(f"comment {i}")
    ours = gh.add(f"{render.MARKER}\nan earlier run's report", user="github-actions[bot]")
    for i in range(20):
        gh.add(f"later comment {i}")
    assert post(body, gh, NUMBER) == 0
    assert gh.comments[ours]["body"] == body.read_text() and len(gh.comments) == 271
    assert [m for m, _ in gh.requests].count("POST") == 0
    assert any("page=9" in p for m, p in gh.requests if m == "GET")


def compare_comment(tmp_path, monkeypatch, gh, ref: str, number: int) -> int:
    db = f"sqlite:///{tmp_path / (ref.replace('/', '-') + '.db')}"
    with store.open_store(db) as st:
        st.add(synth.history() + synth.pr_run(ref=ref))
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return cli.main(["results", "compare", "--db", db, "--run", "pr-7", "--comment", "--pr-number", str(number),
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url])


def test_compare_comment_on_another_pr_than_the_run_measured_is_refused(gh, tmp_path, monkeypatch, capsys):
    """`compare --comment --pr-number 42` on a run stored under refs/pull/7/…: its verdict on PR 42
    would read as PR 42's; refused before any request, one line."""
    assert compare_comment(tmp_path, monkeypatch, gh, "refs/pull/7/merge", NUMBER) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"--pr-number: {NUMBER} is not the pull request run pr-7 measured (its results are stored "
                                "under refs/pull/7/...); pass --pr-number 7, or leave it out: the comment goes to "
                                "the run's own pull request"], err
    assert out == "" and gh.requests == [] and gh.comments == {}


def test_compare_comment_on_the_runs_own_pr_or_a_run_of_no_pr_is_posted(gh, tmp_path, monkeypatch):
    assert compare_comment(tmp_path, monkeypatch, gh, f"refs/pull/{NUMBER}/merge", NUMBER) == 0
    assert len(gh.comments) == 1, gh.comments
    assert compare_comment(tmp_path, monkeypatch, gh, "refs/heads/topic", NUMBER) == 0  # updates the one comment
    assert len(gh.comments) == 1, gh.comments


def test_compare_comment_file_for_another_pr_than_the_run_measured_is_refused(tmp_path, monkeypatch, capsys):
    """`compare --comment-file F --pr-number 42` on PR 7's run wrote a body stamped pr=7 without a word, and the
    job that posts it with `results comment --pr-number 42` failed only then. Refused at once, no file."""
    db = f"sqlite:///{tmp_path / 'pr7.db'}"
    with store.open_store(db) as st:
        st.add(synth.history() + synth.pr_run(ref="refs/pull/7/merge"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    body = tmp_path / "comment.md"
    argv = ["results", "compare", "--db", db, "--run", "pr-7", "--comment-file", str(body)]
    assert cli.main([*argv, "--pr-number", str(NUMBER)]) == 1
    out, err = capsys.readouterr()
    assert err.startswith(f"--pr-number: {NUMBER} is not the pull request run pr-7 measured") and out == "", err
    assert not body.exists()
    assert cli.main([*argv, "--pr-number", "7"]) == 0 and body.is_file()


@pytest.mark.parametrize("second", ["<!-- sweepgate-results-about pr=4x run=pr-7 -->",
                                    "<!-- sweepgate-results-about pr=41 run=pr-7",
                                    "<!-- sweepgate-results-about"])
def test_an_altered_about_line_is_refused_not_posted_unchecked(gh, tmp_path, monkeypatch, capsys, second):
    """Review: a report whose second line starts as compare writes it but was edited or cut read as one
    naming no PR, and was posted on any PR with a 'not checked' note. It is refused at FILE:2."""
    body = tmp_path / "edited.md"
    body.write_text(f"{render.MARKER}\n{second}\n### results\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    assert post(body, gh, NUMBER) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{body}:2: the line naming the report's pull request and run is not as") and \
        line.endswith("or delete line 2 to post it unchecked"), line
    assert gh.requests == [] and gh.comments == {}


def test_a_report_about_another_pr_is_refused_without_a_token_too(tmp_path, monkeypatch, capsys):
    """newuser25: the check of the report is local, so it comes before the credentials. Without
    GITHUB_TOKEN a --pr-number typo read "set GITHUB_TOKEN" first, and only after setting one
    the mismatch; a report that cannot be read was likewise hidden behind the token's line."""
    body = report_of(tmp_path, monkeypatch, "refs/pull/41/merge")
    for name in ("GITHUB_TOKEN", "GH_TOKEN", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    capsys.readouterr()
    assert cli.main(["results", "comment", "--body", str(body), "--pr-number", str(NUMBER)]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{body}:2: the report is about PR 41 (run pr-7), not PR {NUMBER}")
    missing = tmp_path / "none.md"
    assert cli.main(["results", "comment", "--body", str(missing), "--pr-number", "41"]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{missing}: cannot read the report")
