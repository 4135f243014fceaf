"""New-user review (nu32): a mistyped required flag, `sweepgate matrix --base-ref B --head-rf H`, was
said as `the following arguments are required: --head-ref`, the flag the user believed given, and the
typo itself never named (argparse stops at the missing flag before it reports the words it did not
know). Now the unknown flag comes first, with the flag of that command it most likely meant, as
every other unrecognized flag also gets; exit 2 as before. Real processes in a real git repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sweepgate(cwd: Path, *argv: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    full.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", **env})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=120)


def error_line(proc: subprocess.CompletedProcess) -> str:
    return next(line for line in proc.stderr.splitlines() if ": error: " in line)


@pytest.mark.parametrize("argv, said", [
    (("matrix", "--base-ref", "HEAD", "--head-rf", "HEAD"),
     "sweepgate matrix: error: unrecognized arguments: --head-rf (did you mean --head-ref?); "
     "the following arguments are required: --head-ref"),
    (("results", "compare", "--rn", "7"),
     "sweepgate results compare: error: unrecognized arguments: --rn (did you mean --run?); "
     "the following arguments are required: --run"),
    (("ci", "split", "--matirx=m.json"),
     "sweepgate ci split: error: unrecognized arguments: --matirx (did you mean --matrix?); "
     "the following arguments are required: --matrix"),
], ids=["matrix", "results-compare", "ci-split-equals"])
def test_a_mistyped_required_flag_is_named_with_the_flag_meant(make_repo, argv, said):
    repo = make_repo()
    r = sweepgate(repo.path, *argv)
    assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stdout)
    assert error_line(r) == said, r.stderr
    annotated = sweepgate(repo.path, *argv, GITHUB_ACTIONS="true")
    assert annotated.stderr.splitlines()[-1] == "::error title=usage::" + said.replace(": error: ", ": ", 1)


def test_a_mistyped_optional_flag_is_named_with_the_flag_meant(make_repo):
    repo = make_repo()
    r = sweepgate(repo.path, "matrix", "--base-ref", "HEAD", "--head-ref", "HEAD", "--prety")
    assert r.returncode == 2 and r.stdout == ""
    assert error_line(r) == "sweepgate matrix: error: unrecognized arguments: --prety (did you mean --pretty?)"


def test_unknown_flags_with_no_near_one_and_abbreviations_are_as_before(make_repo):
    repo = make_repo()
    far = sweepgate(repo.path, "matrix", "--head-ref", "HEAD", "--xyz", "1", "--qqq")
    assert far.returncode == 2 and error_line(far) == (
        "sweepgate matrix: error: unrecognized arguments: --xyz --qqq; "
        "the following arguments are required: --base-ref"), far.stderr
    missing = sweepgate(repo.path, "matrix", "--head-ref", "HEAD")  # nothing mistyped: argparse's own words
    assert error_line(missing) == "sweepgate matrix: error: the following arguments are required: --base-ref"
    short = sweepgate(repo.path, "matrix", "--base", "HEAD", "--head", "HEAD")  # argparse's abbreviations stand
    assert "unrecognized" not in short.stderr and "required" not in short.stderr, short.stderr


@pytest.mark.parametrize("argv, meant", [
    (("matrx",), "'matrix'"), (("results", "shw"), "'show'"), (("ci", "splt"), "'split'"),
    (("changelog", "ad"), "'add'")])
def test_a_mistyped_command_is_named_with_the_command_meant(make_repo, argv, meant):
    """A mistyped command or action got argparse's list of choices only, though a mistyped flag gets the
    one meant (s32e's review: `sweepgate results shw`)."""
    r = sweepgate(make_repo().path, *argv)
    line = error_line(r)
    assert r.returncode == 2 and f"invalid choice: '{argv[-1]}'" in line and line.endswith(
        f" (did you mean {meant}?)"), r.stderr
    far = sweepgate(make_repo().path, "results", "zzz")
    assert "invalid choice: 'zzz'" in error_line(far) and "did you mean" not in error_line(far), far.stderr


# Python 3.12.8+ and 3.13.1+ list the choices with str(), not repr(): `(choose from example, matrix, ...)`.
# This stands in their argparse's check (the same words) in a real process on any Python.
NEWER_ARGPARSE = """
import argparse, sys
def _check_value(self, action, value):
    if action.choices is not None and value not in action.choices:
        raise argparse.ArgumentError(action, 'invalid choice: %r (choose from %s)'
                                     % (str(value), ', '.join(map(str, action.choices))))
argparse.ArgumentParser._check_value = _check_value
from sweepgate.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("argv, meant", [(("matrx",), "'matrix'"), (("results", "shw"), "'show'")])
def test_a_mistyped_command_is_named_under_a_newer_pythons_wording(make_repo, argv, meant):
    """s32i: the nearest choice was read from the quoted names of Python 3.11's wording only, so under a
    newer Python, whose argparse lists the choices unquoted, a mistyped command got no `did you mean`."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    full.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"})
    r = subprocess.run([sys.executable, "-c", NEWER_ARGPARSE, *argv], cwd=make_repo().path, env=full,
                       capture_output=True, text=True, timeout=120)
    line = error_line(r)
    assert r.returncode == 2 and "(choose from " in line and "'comment'" not in line, r.stderr
    assert line.endswith(f" (did you mean {meant}?)"), r.stderr


@pytest.mark.parametrize("argv, choices", [
    (("results",), "ingest, show, sidecar, compare, comment"),
    (("ci",), "decide, split, row-env, dispatch, watch, audit, reuse, collect"),
    (("changelog",), "add, rebase, canonicalize"),
    (("engines",), "capture"),
])
def test_a_command_given_without_its_subcommand_lists_them(make_repo, argv, choices):
    """s34e: `sweepgate results` alone said only `the following arguments are required: SUBCOMMAND`, its
    usage line `SUBCOMMAND ...`: a new user had to ask --help for the words there are. Exit 2 as before."""
    repo = make_repo().path
    (repo / "configs").mkdir(exist_ok=True)
    r = sweepgate(repo / "configs", *argv)
    word = "SUBCOMMAND" if argv == ("results",) else "ACTION"
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert error_line(r) == (f"sweepgate {argv[0]}: error: the following arguments are required: {word} (choose "
                             f"from {choices}; `sweepgate {argv[0]} --help` says what each does)"), r.stderr


@pytest.mark.parametrize("argv, said", [
    (("full-sweep", "--config-keys", "kimik3-*"),
     "sweepgate full-sweep: error: unrecognized arguments: --config-keys kimik3-* (did you mean "
     "`sweepgate test-config --config-keys`? --config-keys is test-config's flag, not full-sweep's)"),
    (("test-config", "--config-keys", "x", "--model-prefix=dsr1"),
     "sweepgate test-config: error: unrecognized arguments: --model-prefix=dsr1 (did you mean "
     "`sweepgate full-sweep --model-prefix`? --model-prefix is full-sweep's flag, not test-config's)"),
], ids=["full-sweep-config-keys", "test-config-model-prefix"])
def test_a_flag_of_the_sibling_sweep_command_names_that_command(make_repo, argv, said):
    """s37i: `full-sweep --config-keys 'kimik3-*'` was told `did you mean --config-files?`, the nearest
    spelling, when the user wanted test-config, which takes --config-keys; a typo is still told its flag."""
    r = sweepgate(make_repo().path, *argv)
    assert r.returncode == 2 and r.stdout == "" and error_line(r) == said, r.stderr
    typo = sweepgate(make_repo().path, "full-sweep", "--config-fils", "x")
    assert error_line(typo).endswith("unrecognized arguments: --config-fils x (did you mean --config-files?)")
