"""A read-only results command on a SQLite store that is not there (a mistyped --db) says so in one
line and exits 1; it used to create the file empty and report "0 points" with exit 0."""

from __future__ import annotations

import pytest

from helpers import run_cli


@pytest.mark.parametrize("argv", [("results", "show"), ("results", "show", "--json"),
                                  ("results", "compare", "--run", "1001"),
                                  ("results", "compare", "--run", "1001", "--json")])
def test_a_missing_store_is_refused_and_not_created(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    missing = tmp_path / "resutls.db"
    rc, out, err = run_cli(capsys, *argv, "--db", f"sqlite:///{missing}")
    assert rc == 1 and out == "", (out, err)
    assert err.strip() == (f"{missing}: no results store here; check --db (or $SWEEPGATE_DB); "
                           "`sweepgate results ingest --db URL PATH...` creates one")
    assert not missing.exists()


def test_ingest_still_creates_the_store(tmp_path, capsys):
    from helpers import job, vllm_output, write_job

    url = f"sqlite:///{tmp_path / 'new.db'}"
    write_job(tmp_path / "run", "res", vllm_output(), job())
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", url, str(tmp_path / "run"))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "show", "--db", url, "--json")
    assert rc == 0 and '"run-id": "1001"' in out, err
