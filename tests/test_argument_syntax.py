"""Refusals that are argument syntax (exit 2, argparse's usage line and `PROG: error: argument FLAG:
...; what to pass`), not bad input (exit 1): a missing argument whose variable is unset, a blank value,
an empty path. Each drives `sweepgate.cli.main` as the console script does."""

from __future__ import annotations

import pytest

from sweepgate import cli


def _usage_error(capsys, argv: list[str]) -> str:
    """The error line of a refusal that must be argparse's (exit 2, after the command's usage line)."""
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2, err
    command = " ".join(word for word in argv[:2] if not word.startswith("-"))
    assert err.startswith(f"usage: sweepgate {command} "), err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


def _usage_errors(capsys, argv: list[str]) -> list[str]:
    """Every error line of such a refusal: each of its problems has one, said at once (s51c), the required
    flags left out among them."""
    _usage_error(capsys, argv)
    with pytest.raises(SystemExit):
        cli.main(argv)
    return [line for line in capsys.readouterr().err.splitlines() if ": error: " in line]


@pytest.mark.parametrize("unset", ["absent", "empty"])
def test_ci_reuse_without_a_run_is_a_missing_argument(tmp_path, capsys, monkeypatch, unset):
    """`ci reuse` outside GitHub Actions without --run-id exited 1 (and only once the store held
    something to reuse): a missing argument, refused before any file is read, naming the variable."""
    monkeypatch.chdir(tmp_path)
    if unset == "absent":
        monkeypatch.delenv("GITHUB_RUN_ID", raising=False)
    else:
        monkeypatch.setenv("GITHUB_RUN_ID", "")
    line = _usage_error(capsys, ["ci", "reuse", "--matrix", "nosuch.json", "--out", "o.json"])
    assert line == ("sweepgate ci reuse: error: argument --run-id: required outside GitHub Actions "
                    "($GITHUB_RUN_ID is not set); pass --run-id ID, the run the reused results are recorded against")
    assert not (tmp_path / "o.json").exists()


def test_ci_reuse_takes_the_run_from_github_run_id(tmp_path, capsys, monkeypatch):
    """With $GITHUB_RUN_ID set, no --run-id is needed: the command goes on to its input."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_RUN_ID", "12345")
    assert cli.main(["ci", "reuse", "--matrix", "nosuch.json", "--out", "o.json"]) == 1
    assert capsys.readouterr().err.startswith("nosuch.json: matrix not found")


def test_ci_reuse_refuses_an_empty_run_id(tmp_path, capsys, monkeypatch):
    """`--run-id "$RUN"` with the variable unset read as no flag and took $GITHUB_RUN_ID instead."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_RUN_ID", "12345")
    line = _usage_error(capsys, ["ci", "reuse", "--matrix", "m.json", "--out", "o.json", "--run-id", ""])
    assert line.endswith("argument --run-id: empty value (is a variable in the command unset?)"), line


# Each flag whose empty value read as the flag not given (its default, or an environment variable:
# `--tools ""` took no run identity at all, `--model-prefix ""` matched every config) or was blamed on
# the input (exit 1: `--config-files ""` "is a folder", `--key ""` "not in any master config"; `results
# ingest --jsonl ""` wrote no JSONL file, `results compare --plots ""` drew no chart and `--plots "  "` drew
# them into a folder named two blanks, `results comment --body ""` could not read "the report"; `example
# --plots ""` drew its charts into a temporary folder, `--plots "  "` into a folder named two blanks).
EMPTY_REFUSED = [
    ["matrix", "--base-ref"], ["matrix", "--head-ref"], ["matrix", "--changelog-file"], ["matrix", "--config-files"],
    ["matrix", "--runner-config"], ["plan", "--step-summary"], ["plan", "--config-files"],
    ["validate", "--changelog-file"],
    ["full-sweep", "--config-files"], ["full-sweep", "--runner-config"], ["full-sweep", "--model-prefix"],
    ["full-sweep", "--precision"], ["full-sweep", "--framework"], ["full-sweep", "--runner-type"],
    ["test-config", "--config-keys"],
    ["changelog", "add", "--key"], ["changelog", "add", "--changelog-file"], ["changelog", "rebase", "--onto"],
    ["changelog", "rebase", "--branch"], ["changelog", "canonicalize", "--base"],
    ["ci", "decide", "--event-path"], ["ci", "decide", "--event-name"], ["ci", "decide", "--output"],
    ["ci", "split", "--matrix"], ["ci", "split", "--runners"], ["ci", "split", "--output"],
    ["ci", "split", "--job-context"], ["ci", "split", "--keys-from"],
    ["ci", "row-env", "--row"], ["ci", "row-env", "--row-id"], ["ci", "row-env", "--matrix"],
    ["ci", "row-env", "--runner-name"], ["ci", "row-env", "--result-dir"], ["ci", "row-env", "--output"],
    ["ci", "row-env", "--tools"], ["ci", "dispatch", "--ref"], ["ci", "collect", "--results"],
    ["ci", "reuse", "--matrix"], ["ci", "reuse", "--out"], ["ci", "reuse", "--head-ref"],
    ["results", "sidecar", "--tools"],
    ["results", "ingest", "--row"], ["results", "ingest", "--jsonl"], ["results", "ingest", "--run-id"],
    ["results", "ingest", "--ref"], ["results", "ingest", "--config-key"],
    ["results", "compare", "--run"], ["results", "compare", "--baseline-ref"], ["results", "compare", "--plots"],
    ["results", "compare", "--baseline-jsonl"], ["results", "compare", "--step-summary"],
    ["results", "compare", "--comment-file"],
    ["results", "show", "--run"], ["results", "show", "--key"], ["results", "show", "--ref"],
    ["results", "comment", "--body"],
    ["rehearse", "--exp-name"], ["rehearse", "--config-keys"], ["rehearse", "--row-json"],
    ["rehearse", "--runner-name"], ["rehearse", "--work-dir"],
    ["preflight", "--base-ref"], ["preflight", "--head-ref"], ["preflight", "--changelog-file"],
    ["preflight", "--config-keys"],
    ["example", "--plots"],
]


@pytest.mark.parametrize("value", ["", "  "])
@pytest.mark.parametrize("argv", EMPTY_REFUSED, ids=" ".join)
def test_an_empty_value_is_argument_syntax(argv, value, tmp_path, capsys, monkeypatch):
    """`--tools "$DIR"` with the variable unset: exit 2 and the usage line, not the default taken
    silently or an exit 1 that blames the input."""
    monkeypatch.chdir(tmp_path)
    lines = _usage_errors(capsys, [*argv, value])
    # the value's line first, then the required flags not among the words (s51c: said once it was put right)
    assert lines[0].endswith(f"argument {argv[-1]}: empty value (is a variable in the command unset?)"), lines
    assert all(line.split(": error: ", 1)[1].startswith("the following arguments are required: ")
               for line in lines[1:]), lines


@pytest.mark.parametrize("value", ["", "  "])
def test_a_blank_step_summary_variable_is_unset(value, tmp_path, capsys, monkeypatch):
    """`results compare --step-summary` defaults to $GITHUB_STEP_SUMMARY: a blank variable is no file
    (as an empty one), not an empty --step-summary value refused as argument syntax."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", value)
    assert cli.main(["results", "compare", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--run", "1"]) == 1
    err = capsys.readouterr().err
    assert "no results store here" in err and "--step-summary" not in err, err


@pytest.mark.parametrize("value", ["", "  "])
@pytest.mark.parametrize("before", [[], ["res"]], ids=["alone", "after-a-folder"])
def test_an_empty_ingest_path_is_argument_syntax(before, value, tmp_path, capsys, monkeypatch):
    """`results ingest "$DIR"` with the variable unset walked the current folder ("" is ".") and
    blamed it, `: no result files ... in this folder` (exit 1); "  " was read as a file name."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "res").mkdir()
    line = _usage_error(capsys, ["results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", *before, value])
    assert line.endswith("argument PATH: empty value (is a variable in the command unset?)"), line
    assert not (tmp_path / "r.db").exists()


@pytest.mark.parametrize("argv, given, flag, variable", [
    (["ci", "decide"], {}, "--event-path", "GITHUB_EVENT_PATH"),
    (["ci", "decide", "--event-path", "e.json"], {}, "--event-name", "GITHUB_EVENT_NAME"),
    (["ci", "decide", "--event-name", "push"], {"GITHUB_EVENT_NAME": "push"}, "--event-path", "GITHUB_EVENT_PATH"),
    (["ci", "watch", "--until", "collect"], {}, "--run-id", "GITHUB_RUN_ID"),
])
def test_a_flag_whose_variable_is_unset_is_a_missing_argument(argv, given, flag, variable, tmp_path, capsys,
                                                              monkeypatch):
    """`ci decide` without its event and `ci watch` without its run, outside GitHub Actions, exited 1
    as if an input were bad: a missing argument, naming the flag and the variable that would give it."""
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME", "GITHUB_RUN_ID", "GITHUB_TOKEN", "GH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    for name, value in given.items():
        monkeypatch.setenv(name, value)
    (line,) = [line for line in _usage_errors(capsys, argv) if f"argument {flag}: " in line]  # each missing one
    assert f"argument {flag}: required outside GitHub Actions (${variable} is not set); pass " in line, line
    assert f"{flag} " in line.split("; pass ", 1)[1], line


def test_ci_decide_takes_its_event_from_the_variables(tmp_path, capsys, monkeypatch):
    """With the variables set, neither flag is needed: the command goes on to read the payload."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(tmp_path / "event.json"))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    assert cli.main(["ci", "decide"]) == 1
    assert "event.json: event payload not found" in capsys.readouterr().err
