"""A --db or $SWEEPGATE_DB that is not a store URL: one line with a hint that is a valid URL,
naming the variable when the URL came from it (new-user walk-through, polish 21)."""

from __future__ import annotations

import pytest

from tests.results.helpers import run_cli
from sweepgate.results import store
from sweepgate.results import store_url


@pytest.mark.parametrize("given, hint", [
    ("sqlite:/x.db", "use sqlite:////x.db (the file /x.db), or sqlite:///x.db for x.db in the current folder"),
    ("sqlite:x.db", "use sqlite:///x.db (x.db in the current folder), or sqlite:////x.db for /x.db"),
    ("sqlite//x.db", "use sqlite:///x.db (x.db in the current folder), or sqlite:////x.db for /x.db"),
    ("sqlite:/abs/dir/x.db", "use sqlite:////abs/dir/x.db (the file /abs/dir/x.db), or "
                             "sqlite:///abs/dir/x.db for abs/dir/x.db in the current folder"),
    ("postgresql:/host/db", "use postgresql://host/db"),
    # review21: a SQLite path has no password (the hint named another file), and its driver is kept
    ("sqlite:/u:pw@x.db", "use sqlite:////u:pw@x.db (the file /u:pw@x.db), or sqlite:///u:pw@x.db for u:pw@x.db "
                          "in the current folder"),
    ("sqlite+pysqlite:/x.db", "use sqlite+pysqlite:////x.db (the file /x.db), or sqlite+pysqlite:///x.db for x.db "
                              "in the current folder"),
    ("postgres:host/db", "use postgres://host/db"),
    # backslashes typed for the slashes: the hint was sqlite:///\\\x.db, a file named \\\x.db
    ("sqlite:\\\\\\x.db", "use sqlite:///x.db (x.db in the current folder), or sqlite:////x.db for /x.db"),
    ("postgresql:\\\\host\\db", "use postgresql://host/db"),
])
def test_a_scheme_with_the_wrong_slashes_gets_the_url_it_means(capsys, tmp_path, monkeypatch, given, hint):
    monkeypatch.chdir(tmp_path)
    rc, out, err = run_cli(capsys, "results", "show", "--db", given)
    assert rc == 1 and out == "", err
    assert err.count("\n") == 1 and err.startswith(f"{given}: not a database URL"), err
    assert err.strip().endswith(f"; {hint}"), err
    for url in (w for w in hint.split() if "://" in w):  # every URL the hint offers is one the store reads
        store_url._check_url(store.resolve_url(url))
    assert list(tmp_path.iterdir()) == []


def test_a_password_in_a_slipped_url_is_never_shown(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, _, err = run_cli(capsys, "results", "show", "--db", "postgresql:/ann:s3cret@db.example/results")
    assert rc == 1 and "s3cret" not in err, err
    assert err.strip().endswith("; use postgresql://ann:PASSWORD@db.example/results"), err


@pytest.mark.parametrize("command", [("results", "show"), ("results", "show", "--run", "7"),
                                     ("results", "compare", "--run", "7"), ("results", "ingest", "out.json")])
def test_a_blank_sweepgate_db_is_named_and_called_empty(capsys, tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out.json").write_text("{}", encoding="utf-8")
    monkeypatch.setenv("SWEEPGATE_DB", " ")
    rc, out, err = run_cli(capsys, *command)
    assert rc == 1 and out == "", err
    assert err == ("$SWEEPGATE_DB: empty (it holds only 1 blank character); unset it or set it to "
                   "sqlite:///PATH\n"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_bad_sweepgate_db_is_named_as_where_the_url_came_from(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SWEEPGATE_DB", "sqlite:/x.db")
    rc, _, err = run_cli(capsys, "results", "compare", "--run", "7")
    assert rc == 1 and err.count("\n") == 1, err
    assert err.startswith("$SWEEPGATE_DB: sqlite:/x.db: not a database URL"), err
    assert "; unset it, or use sqlite:////x.db" in err, err
    monkeypatch.setenv("SWEEPGATE_DB", "")  # an unset secret in a workflow: the default store, as before
    rc, _, err = run_cli(capsys, "results", "show")
    assert rc == 1 and "SWEEPGATE_DB:" not in err and "no results store here" in err, err


def test_a_bad_sweepgate_db_is_named_by_ci_reuse_too(tmp_path):
    import os
    import subprocess
    import sys

    from tests.results.helpers import ROOT

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty",
                    "-m", "start"], cwd=tmp_path, check=True)
    (tmp_path / "m.json").write_text("{}", encoding="utf-8")
    env = {**os.environ, "SWEEPGATE_DB": "  ", "PYTHONPATH": str(ROOT / "utils")}
    done = subprocess.run([sys.executable, "-m", "sweepgate", "ci", "reuse", "--matrix", "m.json", "--out", "o.json",
                           "--run-id", "1"],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr.startswith("$SWEEPGATE_DB: empty"), done.stderr
    assert not (tmp_path / "o.json").exists()
