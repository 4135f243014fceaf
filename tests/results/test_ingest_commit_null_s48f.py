"""s48f review: `--commit` took git's null object id (forty zeros: GitHub's `before` of a branch's first push, what
`git rev-parse` prints for no commit in some scripts) as a commit, and the by-hand report then said "Measured on
commit `000000000000`". It names no commit: argument syntax, exit 2, as an abbreviation is."""

from __future__ import annotations

import pytest

from helpers import run_cli
from test_ingest_commit_s47g import ingest


@pytest.mark.parametrize("null", ["0" * 40, "0" * 64])
def test_the_null_object_id_is_no_commit(tmp_path, db, capsys, null):
    with pytest.raises(SystemExit) as exc:
        ingest(tmp_path, db, capsys, "101", "refs/heads/main", 1, "--commit", null)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and f"'{null}' is git's null object id, no commit" in err, err


def test_ci_reuse_refuses_it_too(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "ci", "reuse", "--matrix", str(tmp_path / "m.json"), "--out", str(tmp_path / "r.json"),
                "--run-id", "1", "--commit", "0" * 40)
    assert exc.value.code == 2 and "null object id" in capsys.readouterr().err
