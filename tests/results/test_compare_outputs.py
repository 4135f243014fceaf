"""`results compare` checks every output path before it prints or opens anything: a bad one is
one line `path: what; fix` and exit 1, with nothing on stdout, no chart and no database."""

from __future__ import annotations

import pytest

import synth
from sweepgate import cli
from sweepgate.results import store

BAD = {
    "comment file in a missing folder": ("--comment-file", "missing/x.md", "its folder missing does not exist"),
    "comment file that is a folder": ("--comment-file", "plots-ok", "is a folder, not a file"),
    "step summary in a missing folder": ("--step-summary", "missing/s.md", "its folder missing does not exist"),
    "plots under a file": ("--plots", "afile/plots", "cannot be created: afile is a file"),
    "plots that is a file": ("--plots", "afile", "is a file"),
}


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "SWEEPGATE_DB", "GITHUB_TOKEN", "GH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "afile").write_text("x\n", encoding="utf-8")
    (tmp_path / "plots-ok").mkdir()
    with store.open_store(f"sqlite:///{tmp_path / 'r.db'}") as st:
        st.add(synth.history(runs=3) + synth.pr_run())
    return tmp_path


@pytest.mark.parametrize("flag,path,what", BAD.values(), ids=list(BAD))
def test_a_bad_output_path_is_one_line_before_any_output(env, capsys, flag, path, what):
    good = {"--plots": "plots", "--comment-file": "c.md"}
    good.pop(flag, None)
    extra = [arg for pair in good.items() for arg in pair]
    rc = cli.main(["results", "compare", "--db", "sqlite:///r.db", "--run", "pr-7", flag, path, *extra])
    out, err = capsys.readouterr()
    assert (rc, out) == (1, "")
    assert err.splitlines() == [err.strip()] and err.startswith(f"{path}: {flag}: {what}; "), err
    assert not (env / "plots").exists() and not (env / "c.md").exists()


def test_no_database_is_opened_when_an_output_path_is_bad(env, capsys):
    rc = cli.main(["results", "compare", "--db", "sqlite:///fresh.db", "--run", "pr-7",
                   "--comment-file", "/nonexistent-dir/x.md"])
    assert rc == 1 and capsys.readouterr().err.startswith("/nonexistent-dir/x.md: --comment-file: ")
    assert not (env / "fresh.db").exists()


def test_good_output_paths_are_written(env, capsys):
    rc = cli.main(["results", "compare", "--db", "sqlite:///r.db", "--run", "pr-7", "--plots", "new/plots",
                   "--comment-file", "plots-ok/c.md", "--step-summary", "s.md"])
    assert rc == 0, capsys.readouterr().err
    assert (env / "plots-ok" / "c.md").is_file() and (env / "s.md").is_file()
    assert any((env / "new" / "plots").glob("*.svg"))


def test_a_link_into_a_missing_folder_is_refused_before_any_output(env, capsys):
    """Review of 1791b64: atomic_write now writes the file a link points at, so a --comment-file link into
    a missing folder passed the check, printed the whole report, then failed (exit 1 after the output)."""
    (env / "c.md").symlink_to(env / "gone" / "c.md")
    rc = cli.main(["results", "compare", "--db", "sqlite:///r.db", "--run", "pr-7", "--comment-file", "c.md"])
    out, err = capsys.readouterr()
    assert (rc, out) == (1, "")
    assert err == f"c.md: --comment-file: its folder {env / 'gone'} does not exist; create the folder first or " \
                  "pass --comment-file in an existing one\n", err


def test_a_step_summary_variable_in_a_missing_folder_is_named_as_the_variable(env, capsys, monkeypatch):
    """New-user review: $GITHUB_STEP_SUMMARY naming a missing folder was refused as '--step-summary: ...',
    a flag the user never passed; the line names the variable, and the fix the flag that overrides it."""
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "missing/s.md")
    rc = cli.main(["results", "compare", "--db", "sqlite:///r.db", "--run", "pr-7"])
    out, err = capsys.readouterr()
    assert (rc, out) == (1, "")
    assert err.startswith("missing/s.md: $GITHUB_STEP_SUMMARY (the default of --step-summary): its folder missing "
                          "does not exist; create the folder first or pass --step-summary in an existing one"), err
    rc = cli.main(["results", "compare", "--db", "sqlite:///r.db", "--run", "pr-7", "--step-summary", "missing/s.md"])
    assert rc == 1 and capsys.readouterr().err.startswith("missing/s.md: --step-summary: its folder"), "the flag passed"


def test_a_dash_step_summary_variable_is_named_as_the_variable(env, capsys, monkeypatch):
    """GITHUB_STEP_SUMMARY=- was refused as 'argument --step-summary: ...' (argparse checks a default with the
    flag's type and blames the flag): the line names the variable, as one in a missing folder is, exit 1."""
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "-")
    rc = cli.main(["results", "compare", "--db", "sqlite:///r.db", "--run", "pr-7"])
    out, err = capsys.readouterr()
    assert (rc, out) == (1, "")
    assert err == ("-: $GITHUB_STEP_SUMMARY (the default of --step-summary): '-' is no standard output here: it "
                   "would name a file called '-'; set $GITHUB_STEP_SUMMARY to a file, or pass --step-summary FILE\n"), err
    assert not (env / "-").exists()
