"""s47g, a new maintainer comparing a PR by hand: a job's sidecar records the commit its output measured, and the
report names it ("Measured on commit `1a2b3c4d5e6f`"), so a PR comment that stays up after a later push does not read
as the newer head's results. `results ingest --row` had no way to say it: the by-hand report named no commit.
`--commit SHA` (with --row) records it as a sidecar's `commit` does."""

from __future__ import annotations

import json

import pytest

from helpers import ROW, run_cli, vllm_output

MAIN_SHA, PR_SHA = "1" * 40, "2a" * 20


def ingest(tmp_path, db, capsys, run: str, ref: str, day: int, *extra: str) -> tuple[int, str, str]:
    folder = tmp_path / run
    folder.mkdir()
    (folder / "c4.json").write_text(json.dumps(vllm_output(date=f"2026010{day}-120000")), encoding="utf-8")
    row = tmp_path / "row.json"
    row.write_text(json.dumps([ROW]), encoding="utf-8")
    return run_cli(capsys, "results", "ingest", "--db", db, "--row", str(row), "--run-id", run, "--ref", ref,
                   "--config-key", "dsr1-fp4-b300-vllm", *extra, str(folder / "c4.json"))


def test_the_commit_given_with_a_row_is_stored_and_named_by_the_report(tmp_path, db, capsys):
    for n, run in enumerate(("101", "102", "103"), start=1):
        rc, _out, err = ingest(tmp_path, db, capsys, run, "refs/heads/main", n, "--commit", MAIN_SHA)
        assert rc == 0, err
    rc, _out, err = ingest(tmp_path, db, capsys, "200", "refs/pull/7/head", 4, "--commit", PR_SHA.upper())
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--run", "200", "--json")
    assert rc == 0 and [rec["commit"] for rec in json.loads(out)] == [PR_SHA], out + err
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--markdown")
    assert rc == 0, err
    assert "Measured on commit `2a2a2a2a2a2a` (run 200)." in md, md


def test_commit_is_a_row_s_flag_and_a_full_sha(tmp_path, db, capsys):
    with pytest.raises(SystemExit) as exc:  # argparse's exit: argument syntax
        run_cli(capsys, "results", "ingest", "--db", db, "--commit", MAIN_SHA, str(tmp_path))
    assert exc.value.code == 2 and "--commit: needs --row" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        ingest(tmp_path, db, capsys, "101", "refs/heads/main", 1, "--commit", "1a2b3c4")
    assert exc.value.code == 2 and "'1a2b3c4' is not a full commit SHA" in capsys.readouterr().err


def test_the_terminal_report_names_the_commit_too(tmp_path, db, capsys):
    """New user from a wheel (s48d): the README says `--commit SHA` records the commit, "which the report then
    names"; the Markdown did, the report `results compare` prints on a terminal (or through a pipe) did not, so
    a maintainer comparing by hand could not see that the commit was taken."""
    for n, run in enumerate(("101", "102", "103"), start=1):
        assert ingest(tmp_path, db, capsys, run, "refs/heads/main", n, "--commit", MAIN_SHA)[0] == 0
    assert ingest(tmp_path, db, capsys, "200", "refs/pull/7/head", 4, "--commit", PR_SHA)[0] == 0
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200")
    assert rc == 0, err
    lines = out.splitlines()
    assert "Measured on commit 2a2a2a2a2a2a (run 200)." in lines, out
    assert "`" not in out, out  # no Markdown on a terminal
    # above the headline, which stays the report's last line (`| tail -1`, docs/results.md)
    assert lines[-1].startswith("run 200 against main ("), out
    assert lines.index("Measured on commit 2a2a2a2a2a2a (run 200).") < len(lines) - 1, out


def test_a_run_without_a_commit_names_none_on_the_terminal(tmp_path, db, capsys):
    for n, run in enumerate(("101", "102", "103"), start=1):
        assert ingest(tmp_path, db, capsys, run, "refs/heads/main", n)[0] == 0
    assert ingest(tmp_path, db, capsys, "200", "refs/pull/7/head", 4)[0] == 0
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200")
    assert rc == 0 and "Measured on" not in out, out + err
