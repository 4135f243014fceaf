"""s45e: a comment written locally (`results compare --comment-file`, no workflow run) names where its charts are:
every chart it names is found as a PNG and an SVG from the place it names, opened where it was written, and the
body holds no link a PR's reader could not follow (no relative link: posted by `results comment` it would resolve
against github.com's pull request page). In a workflow run the charts paragraph links the run's page instead,
an absolute address that reads alike in the file and in the PR. Checked on the files written, not on the words."""

from __future__ import annotations

import re
import subprocess

import pytest
import synth

from sweepgate import cli
from sweepgate.results import render, store

LINK = re.compile(r"\]\(([^)]*)\)")


@pytest.fixture
def db(tmp_path, monkeypatch):
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "SWEEPGATE_DB", "GITHUB_WORKSPACE",
                 "GITHUB_REPOSITORY", "GITHUB_SERVER_URL"):
        monkeypatch.delenv(name, raising=False)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(keys=synth.KEYS[:2], concs=(4, 16)) + synth.pr_run(keys=synth.KEYS[:2], concs=(4, 16)))
    return url


def _named(body: str) -> tuple[str, bool, list[str]]:
    """(the folder the charts paragraph names, whether from the repository's top, the chart stems it names: after
    its ``with a change:``, and in the folded lists of charts below it)."""
    lines = body.splitlines()
    (k,) = [n for n, x in enumerate(lines) if re.search(r"PNG and SVG\) (was|were) written to", x)]
    folder = re.search(r"written to `([^`]*)`", lines[k]).group(1)
    stems = re.findall(r"`([^`]*)`", lines[k].split(";", 1)[1]) if ";" in lines[k] else []
    for n, line in enumerate(lines[k + 1:], k + 1):
        if re.fullmatch(r"<details><summary>\d+ charts? with(out)? .*</summary>", line):
            stems += re.findall(r"`([^`]*)`", next(x for x in lines[n + 1:] if x.strip()))
    return folder, f"({render.FROM_TOP})" in lines[k], stems


@pytest.mark.parametrize(("plots", "report", "from_top"), [
    ("sweepgate-results/charts", "sweepgate-results/comment.md", False),  # the charts beside the report
    ("../charts", "comment.md", True),  # typed from a subfolder; the report elsewhere in the repository
    ("charts", "{outside}/comment.md", True),  # the report outside the repository
])
def test_a_local_comment_names_charts_found_from_where_it_was_written(db, tmp_path, monkeypatch, capsys, plots,
                                                                      report, from_top):
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / "sub" / "sweepgate-results").mkdir(parents=True)
    outside.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo / "sub")
    path = report.format(outside=outside)
    assert cli.main(["results", "compare", "--db", db, "--run", "pr-7", "--plots", plots, "--comment-file", path]) == 0
    capsys.readouterr()
    written = (repo / "sub" / path) if not path.startswith("/") else type(repo)(path)
    body = written.read_text(encoding="utf-8")
    folder, top, stems = _named(body)
    assert top is from_top
    base = repo if top else written.parent
    assert stems, body
    for stem in stems:
        for suffix in ("png", "svg"):
            assert (base / folder / f"{stem}.{suffix}").is_file(), (folder, stem)
    assert all(target.startswith("https://") for target in LINK.findall(body)), LINK.findall(body)


def test_a_comment_written_in_a_workflow_run_links_only_absolute_addresses(db, tmp_path, monkeypatch, capsys):
    """In a workflow run the charts are in the run's artifact, linked by the run's page: the same address in the file
    and in the PR; the commit measured is linked alike."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_RUN_ID", "987654")
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/bench")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["results", "compare", "--db", db, "--run", "pr-7", "--plots", "sweepgate-results/charts",
                     "--comment-file", "comment.md", "--step-summary", str(tmp_path / "summary.md")]) == 0
    capsys.readouterr()
    body = (tmp_path / "comment.md").read_text(encoding="utf-8")
    targets = LINK.findall(body)
    assert "https://github.com/acme/bench/actions/runs/987654#artifacts" in targets, targets
    assert all(target.startswith("https://github.com/acme/bench/") for target in targets), targets
