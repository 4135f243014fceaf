"""A reader of stdout who leaves (`sweepgate example | head`, `--help | head -1`) is no failure: a command
that only prints ends 0 with nothing said, and one with work after its output (charts, a step summary, a
check's verdict) does that work and keeps its own exit code. `results show | head -1` and `sweepgate example
| head` exited 1; only `plan`, `preflight` and `results compare` had been taught to finish
(test_plan_reader_leaves_nu31, test_preflight_reader_leaves_nu31, test_compare_points). Real processes:
`| head -1` in bash where the output is longer than a pipe holds (the reader leaves mid-output), else a pipe
whose reader is gone before the first byte (an output a pipe holds whole never meets a reader who left)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

QUIET = ("Traceback", "Exception ignored", "BrokenPipeError", "Broken pipe")


def environment(tmp_path: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "COLUMNS"}
    return {**env, "PYTHONPATH": str(ROOT / "utils"), "TMPDIR": str(tmp_path), **extra}


def to_a_reader_gone(argv: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    """``sweepgate ARGV`` writing to a pipe whose reader has left before the first byte."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "sweepgate", *argv], stdout=write, stderr=subprocess.PIPE,
                              text=True, cwd=cwd, env=env, timeout=300)
    finally:
        os.close(write)


def piped_to_head(argv: list[str], cwd: Path, env: dict, err: Path) -> tuple[int, str]:
    """``sweepgate ARGV 2>ERR | head -1`` in bash: sweepgate's exit status (PIPESTATUS) and the line head kept."""
    command = " ".join(map(_quoted, [sys.executable, "-m", "sweepgate", *argv]))
    proc = subprocess.run(["bash", "-c", f'{command} 2>{_quoted(str(err))} | head -1; echo "status=${{PIPESTATUS[0]}}"'],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=300)
    *kept, status = proc.stdout.splitlines()
    return int(status.removeprefix("status=")), "\n".join(kept)


def _quoted(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> tuple[Path, str, str]:
    """The example's seed change as a git repository: (folder, base, head)."""
    from sweepgate.commands.example import build_repo

    folder = tmp_path_factory.mktemp("fleet")
    base, head = build_repo(str(folder))
    return folder, base, head


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["results", "--help"], ["matrix", "--help"]])
def test_help_and_version_to_a_reader_gone_end_0(tmp_path, argv):
    proc = to_a_reader_gone(argv, tmp_path, environment(tmp_path))
    assert (proc.returncode, proc.stderr) == (0, ""), proc


@pytest.mark.parametrize("argv", [["matrix"], ["validate"], ["full-sweep"]], ids=lambda a: a[0])
def test_a_command_that_only_prints_ends_0_when_its_reader_is_gone(tmp_path, repo, argv):
    folder, base, head = repo
    refs = [] if argv == ["full-sweep"] else ["--base-ref", base, "--head-ref", head]
    proc = to_a_reader_gone([*argv, *refs], folder, environment(tmp_path))
    assert (proc.returncode, proc.stderr) == (0, ""), proc


def test_ci_decide_writes_its_step_summary_and_ends_0(tmp_path):
    """Its outputs on stdout (no $GITHUB_OUTPUT), then the step summary: written, exit 0."""
    from test_ci_decide import pr_event, write_event

    summary = tmp_path / "summary.md"
    env = environment(tmp_path, GITHUB_EVENT_PATH=str(write_event(tmp_path, pr_event())),
                      GITHUB_EVENT_NAME="pull_request", GITHUB_STEP_SUMMARY=str(summary))
    proc = to_a_reader_gone(["ci", "decide", "--head-message", "tune kimi"], tmp_path, env)
    assert proc.returncode == 0 and proc.stderr.startswith("sweepgate ci decide: run="), proc
    assert summary.read_text().startswith("**sweep: "), summary.read_text()


def test_example_piped_to_head_finishes_its_charts_and_ends_0(tmp_path):
    """`sweepgate example | head -1`: the rehearsal's lines meet a reader who has left. The example still
    rehearses, compares and draws into its --plots folder (a new one, made with its missing parents), and
    ends 0; its throwaway repository is removed as on any other end."""
    plots = tmp_path / "out" / "charts"
    err = tmp_path / "err.txt"
    status, kept = piped_to_head(["example", "--plots", str(plots)], tmp_path, environment(tmp_path), err)
    assert status == 0, err.read_text()
    assert kept.startswith("sweepgate example: seed change adds "), kept
    assert not any(word in err.read_text() for word in QUIET), err.read_text()
    charts = sorted(p.name for p in plots.iterdir())
    assert len(charts) == 6 and "Kimi-K3_fp4_b300_agentic-coding.svg" in charts, charts
    assert not list(tmp_path.glob("sweepgate-example-*")), list(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["matrix", "validate"])
def test_a_refused_change_is_still_refused_when_the_reader_is_gone(tmp_path, repo, command):
    """The reader leaving changes no verdict: a change that deletes the appended entry (head and base
    swapped) is still exit 1, its problems said on stderr."""
    folder, base, head = repo
    proc = to_a_reader_gone([command, "--base-ref", head, "--head-ref", base], folder, environment(tmp_path))
    assert proc.returncode == 1 and "perf-changelog.yaml:" in proc.stderr, proc
    assert not any(word in proc.stderr for word in QUIET), proc.stderr


@pytest.mark.parametrize("json_output", [False, True], ids=["text piped to head", "--json to a reader gone"])
def test_example_without_plots_keeps_no_charts_folder_for_a_reader_who_left(tmp_path, json_output):
    """msgs28: `sweepgate example | head -3` without --plots drew its charts into a new temporary folder and
    kept it, though its path went only to the reader who had left: a folder nobody is told of, left in
    $TMPDIR on every such run. A temporary charts folder is kept once its path has reached a reader, and
    removed otherwise; the command still ends 0 and says nothing (a --plots folder, named by the user, is
    kept whatever: test_example_piped_to_head_finishes_its_charts_and_ends_0)."""
    env = environment(tmp_path)
    if json_output:
        proc = to_a_reader_gone(["example", "--json"], tmp_path, env)
        status, err = proc.returncode, proc.stderr
    else:
        status, kept = piped_to_head(["example"], tmp_path, env, tmp_path / "err.txt")
        err = (tmp_path / "err.txt").read_text()
        assert kept.startswith("sweepgate example: seed change adds "), kept
    assert status == 0, err
    assert not any(word in err for word in QUIET), err
    assert not list(tmp_path.glob("sweepgate-example-*")), list(tmp_path.iterdir())
