"""Fixtures for the results tests: sample files and a real PostgreSQL server.

``pg_server`` uses $SWEEPGATE_TEST_PG_URL when set; otherwise it starts its own
server (Debian's postgresql binaries: initdb + pg_ctl, as the `postgres` user
when we are root, data under /tmp, loopback port) and stops it at the end, or its
watchdog does once pytest is gone without a teardown (SIGKILL; pgserver.py). It
skips only when no PostgreSQL binaries exist; .ci/run makes sure they do (and sets
SWEEPGATE_REQUIRE_PG, which turns that skip into a failure).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import pgserver

from helpers import SAMPLES  # noqa: E402
PG_ENV = "SWEEPGATE_TEST_PG_URL"


@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL server URL (to its `postgres` database)."""
    if os.environ.get(PG_ENV):
        yield os.environ[PG_ENV]
        return
    binaries = pgserver.bindir()
    if binaries is None:
        why = "no PostgreSQL binaries (install Debian's postgresql, or set SWEEPGATE_TEST_PG_URL)"
        if os.environ.get("SWEEPGATE_REQUIRE_PG"):  # .ci/run: the PostgreSQL tests must run
            pytest.fail(why)
        pytest.skip(why)
    with pgserver.server(binaries) as url:
        yield url


@pytest.fixture
def pg_url(pg_server):
    """A fresh, empty database on the server, dropped afterwards."""
    with pgserver.database(pg_server) as url:
        yield url


@pytest.fixture
def db(tmp_path, monkeypatch) -> str:
    """An empty SQLite store's URL in a fresh working directory, with no GitHub, terminal or
    store settings of the machine running the tests leaking in."""
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID",
                 "SWEEPGATE_DB", "COLUMNS", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return f"sqlite:///{tmp_path / 'results.db'}"


@pytest.fixture
def env(monkeypatch, tmp_path) -> Path:
    """A fresh working directory with no GitHub, token or store settings of the machine leaking in."""
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "SWEEPGATE_DB", "GITHUB_TOKEN", "GH_TOKEN",
                 "GITHUB_REPOSITORY", "GITHUB_SERVER_URL", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.fixture
def samples() -> Path:
    if not SAMPLES.is_dir():
        pytest.skip(f"no result samples at {SAMPLES} (set SWEEPGATE_RESULT_SAMPLES)")
    return SAMPLES
