"""Wording leftovers (s31g): `results show` / `results compare` with a `--db` that is itself a symbolic link to
nothing said "no results store here" at the link's path without a word of the link (`ci reuse` and the plan's
reuse preview said "no results store at r.db"): they now name it and where it points, and how to mend it; the
exit code is kept.

Real files, real links, `sweepgate` as a real process."""

from __future__ import annotations

import subprocess

import pytest

from helpers import sweepgate_at

NO_STORE = "check --db (or $SWEEPGATE_DB); `sweepgate results ingest --db URL PATH...` creates one"


@pytest.mark.parametrize("command", [["results", "show"], ["results", "compare", "--run", "1"]],
                         ids=["show", "compare"])
def test_a_reader_s_db_that_is_a_link_to_nothing_names_the_link_and_its_target(tmp_path, command):
    (tmp_path / "r.db").symlink_to(tmp_path / "gone.db")
    for url, shown in ((f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "r.db")), ("sqlite:///r.db", "r.db")):
        proc = sweepgate_at(tmp_path, *command, "--db", url)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.splitlines() == [
            f"{shown}: no results store here: it is a symbolic link to {tmp_path / 'gone.db'}, which does not exist; "
            f"point the link at the store file (ln -sfn FILE LINK), or {NO_STORE}"], proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.db"]  # nothing made where it points


def test_a_plain_missing_db_keeps_its_line(tmp_path):
    proc = sweepgate_at(tmp_path, "results", "show", "--db", "sqlite:///r.db")
    assert (proc.returncode, proc.stderr.splitlines()) == (1, [f"r.db: no results store here; {NO_STORE}"])


def test_ci_reuse_names_a_db_that_is_a_link_to_nothing(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    (tmp_path / "m.json").write_text('{"single_node": {}}')
    (tmp_path / "r.db").symlink_to("gone.db")
    proc = sweepgate_at(tmp_path, "ci", "reuse", "--db", "sqlite:///r.db", "--matrix", "m.json", "--out", "o.json",
                        "--run-id", "1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "sweepgate ci reuse: no results store at r.db (a symbolic link to gone.db, which does not exist): nothing "
        "reused"], proc.stderr
