"""s51c: a command's flag problems are said all at once, never one and then the next once it is put right.

`ci watch` with neither --until nor $GITHUB_RUN_ID said --until was required; given it, that --run-id was.
`ci decide` asked for --event-path, then for --event-name; `results compare --pr-number 3` without --run said only
--run; `preflight --base-ref main --config-keys K` only that --base-ref needs --head-ref; `matrix --base-ref ""`
only the empty value. argparse refuses a required flag left out on its own, before any check of the command's,
and each check exited at the first problem. Now the required flags left out are kept until the command's own
checks (cli.argument_problems) have run, and every problem is said after one usage line, one `error:` line (and,
under GitHub Actions, one annotation) each, exit 2. Real processes, outside any repository.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

UNSET = ("GITHUB_ACTIONS", "GITHUB_RUN_ID", "GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME", "GITHUB_REF", "SWEEPGATE_DB")


def _run(tmp_path, *argv, **env):
    clean = {k: v for k, v in os.environ.items() if k not in UNSET}
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=tmp_path, capture_output=True, text=True,
                          env={**clean, "COLUMNS": "300", **env}, timeout=120)


def _errors(proc, prog: str) -> list[str]:
    """The `error:` lines after the one usage line, each without the command's name."""
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and lines[0].startswith(f"usage: {prog} "), proc.stderr
    assert sum(line.startswith("usage:") for line in lines) == 1, proc.stderr
    said = [line for line in lines if line.startswith((f"{prog}: error: ", "::"))]
    assert lines[-len(said):] == said, proc.stderr  # the usage line (wrapped) first, then nothing but these
    return [line.removeprefix(f"{prog}: error: ") for line in said]


RUN_ID = "argument --run-id: required outside GitHub Actions ($GITHUB_RUN_ID is not set); pass --run-id ID"


@pytest.mark.parametrize("argv, prog, said", [
    (["ci", "watch"], "sweepgate ci watch",
     ["the following arguments are required: --until", f"{RUN_ID}, the run to watch"]),
    (["ci", "decide"], "sweepgate ci decide",
     [f"argument --{f}: required outside GitHub Actions ($GITHUB_EVENT_{f[6:].upper()} is not set); pass "
      "--event-path FILE and --event-name NAME (the webhook's payload and name)" for f in ("event-path", "event-name")]),
    (["ci", "reuse", "--pr-number", "3", "--ref", "refs/pull/4/head"], "sweepgate ci reuse",
     ["the following arguments are required: --matrix, --out",
      f"{RUN_ID}, the run the reused results are recorded against",
      "argument --ref: refs/pull/4/head is not a ref of PR 3; leave it out: with --pr-number 3 reused results are "
      "recorded under refs/pull/3/head"]),
    (["results", "compare", "--pr-number", "3", "--window", "3", "--min-samples", "9"], "sweepgate results compare",
     ["the following arguments are required: --run",
      "argument --min-samples: 9 is above --window 3: a point's baseline holds at most 3 values; pass --min-samples "
      "K from 2 to 3, or a larger --window",
      "argument --pr-number: needs --comment or --comment-file (it names the pull request the comment goes to); add "
      "one of them, or leave --pr-number out"]),
    (["results", "ingest", "--run-finished", "--ref", "refs/heads/main"], "sweepgate results ingest",
     ["the following arguments are required: PATH",
      'argument --run-finished: needs --run-id (and --attempt); pass --run-id "$GITHUB_RUN_ID" --attempt '
      '"$GITHUB_RUN_ATTEMPT", the attempt that finished',
      "argument --ref: needs --row (--run-id/--ref/--attempt/--config-key/--commit describe a --row); pass --row "
      "FILE with them, or drop them and use the outputs' .job.json"]),
    (["preflight", "--base-ref", "main", "--config-keys", "k"], "sweepgate preflight",
     ["argument --base-ref: needs --head-ref (a change is the two together); pass --head-ref too, or leave "
      "--base-ref out to check the working tree",
      "argument --config-keys: not allowed with argument --base-ref (it selects from the working tree); leave "
      "--config-keys out with --base-ref"]),
    (["full-sweep", "--min-conc", "8", "--max-conc", "4", "--no-evals", "--all-evals"], "sweepgate full-sweep",
     ["argument --min-conc: 8 is above --max-conc 4; swap the bounds",
      "argument --all-evals: not allowed with argument --no-evals; drop one of them"]),
    (["matrix", "--base-ref", ""], "sweepgate matrix",
     ["argument --base-ref: empty value (is a variable in the command unset?)",
      "the following arguments are required: --head-ref"]),
])
def test_every_problem_of_the_flags_is_said_at_once(tmp_path, argv, prog, said):
    assert _errors(_run(tmp_path, *argv), prog) == said


def test_under_github_actions_each_problem_is_an_annotation(tmp_path):
    proc = _run(tmp_path, "ci", "watch", GITHUB_ACTIONS="true")
    errors = _errors(proc, "sweepgate ci watch")
    assert [e for e in errors if not e.startswith("::")] == [
        "the following arguments are required: --until", f"{RUN_ID}, the run to watch"], proc.stderr
    assert [e for e in errors if e.startswith("::")] == [
        "::error title=usage::sweepgate ci watch: the following arguments are required: --until",
        f"::error title=usage::sweepgate ci watch: {RUN_ID}, the run to watch"], proc.stderr


def test_help_still_shows_the_required_flags_required(tmp_path):
    proc = _run(tmp_path, "matrix", "--help")
    assert proc.returncode == 0 and "usage: sweepgate matrix [-h] --base-ref BASE_REF --head-ref HEAD_REF" in \
        proc.stdout, proc.stdout
    proc = _run(tmp_path, "results", "compare", "--help")
    assert proc.returncode == 0 and " --run RUN-ID " in proc.stdout.split("\n\n")[0], proc.stdout


def test_a_mistyped_flag_is_said_with_the_flag_it_left_out_and_nothing_else(tmp_path):
    assert _errors(_run(tmp_path, "matrix", "--base-ref", "a", "--head-rf", "b"), "sweepgate matrix") == [
        "unrecognized arguments: --head-rf (did you mean --head-ref?); the following arguments are required: "
        "--head-ref"]
