"""The store's rough edges (store19): a folder that cannot be written, a full disk, a new store's
file left by a killed ingest, an unclosed IPv6 bracket, a PostgreSQL server that never answers, and
a store whose version record was lost. Each one line naming what is wrong and what to do."""

from __future__ import annotations

import os
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import ROOT, job, run_cli, vllm_output, write_job
from sweepgate.results import store


def _jobs(folder: Path, n: int, run: str = "1") -> str:
    for i in range(n):
        conc = (4, 8, 16, 32)[i % 4]
        write_job(folder, f"job{i:03d}", vllm_output(conc, output_throughput=400.0 + i),
                  job(run_id=run, row=dict(job()["row"], conc=conc, **{"exp-name": f"e{i}"})))
    return str(folder)


def _cli(argv: list[str], cwd: Path, timeout: float = 120, preexec=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "utils")}, timeout=timeout,
                          preexec_fn=preexec)


def test_an_unclosed_ipv6_bracket_is_named_not_the_port(tmp_path, capsys):
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", "postgresql://u:p@[::1:5432/db", _jobs(tmp_path, 1))
    (line,) = err.strip().splitlines()
    assert rc == 1 and "the host's '[' is not closed" in line and "port" not in line.split(";")[0], err
    assert "[ADDRESS]:PORT" in line and ":p@" not in line
