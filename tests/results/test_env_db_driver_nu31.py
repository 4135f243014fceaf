"""$SWEEPGATE_DB=postgresql://… (the usual spelling, no driver named) is read as --db reads it: with
psycopg 3, the driver sweepgate installs. It was checked before the driver was filled in and refused
as "the driver 'postgresql' names is not installed (No module named 'psycopg2')", while the very same
URL passed as --db reached the server (new-user walk-through, nu31)."""

from __future__ import annotations

import pytest

from tests.results.helpers import run_cli
from sweepgate.results import store


@pytest.mark.parametrize("scheme", ["postgresql", "postgres", "POSTGRESQL"])
def test_the_environment_s_postgresql_url_gets_the_installed_driver(monkeypatch, scheme):
    monkeypatch.setenv("SWEEPGATE_DB", f"{scheme}://ann@db.example:5432/results")
    assert store.resolve_url(None) == "postgresql+psycopg://ann@db.example:5432/results"


def test_env_and_flag_say_the_same_of_an_unreachable_server(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    url = "postgresql://nobody@127.0.0.1:1/x"
    rc, _, flag_err = run_cli(capsys, "results", "show", "--db", url)
    monkeypatch.setenv("SWEEPGATE_DB", url)
    rc_env, _, env_err = run_cli(capsys, "results", "show")
    assert rc == rc_env == 1, (flag_err, env_err)
    assert "psycopg2" not in env_err and "not installed" not in env_err, env_err
    assert env_err == flag_err, (flag_err, env_err)
    assert list(tmp_path.iterdir()) == []
