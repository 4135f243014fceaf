"""A request-rate sweep's points are listed by rate as a number, not as text (new user s37d: a real
SGLang sweep at 1, 2, 4, 8 and 16 requests/s was listed 1, 16, 2, 4, 8 in the table, the Markdown
report and the JSON, while `results show` lists them 1, 2, 4, 8, 16)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import ROOT

# A real rate sweep of one server (SOURCES.tsv): seven lines at 1, 2, 4 and 8/s (and 16/s, and two
# lines without their lengths), ingested without a row, so its points are told apart by the rate.
SWEEP = "sglang/sglang_2024-12_llama3.3-70b_h200x4_online.jsonl"


def _sweepgate(*argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "SWEEPGATE_DB", "COLUMNS")}
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(ROOT / "utils")}, timeout=120)


def _rates(lines: list[str]) -> list[float]:
    return [float(line.split(" rate ", 1)[1].split("/s", 1)[0]) for line in lines if " rate " in line]


def test_a_rate_sweep_is_listed_by_rate_in_every_report(env, samples):
    url = f"sqlite:///{env / 'r.db'}"
    done = _sweepgate("results", "ingest", "--db", url, str(samples / SWEEP))
    assert done.returncode == 0, done.stderr
    run = {r["run-id"] for r in json.loads(_sweepgate("results", "show", "--db", url, "--json").stdout)}
    assert len(run) == 1
    argv = ("results", "compare", "--db", url, "--run", run.pop())
    points = json.loads(_sweepgate(*argv, "--json").stdout)["points"]
    with_lengths = [float(p["request-rate"]) for p in points if p["isl"] is not None]
    assert with_lengths == sorted(with_lengths) and 16.0 in with_lengths, with_lengths
    table = _sweepgate(*argv).stdout.splitlines()
    markdown = _sweepgate(*argv, "--markdown").stdout.splitlines()
    for lines in (table, markdown):
        rates = _rates([line for line in lines if "1024/1024" in line])
        assert rates == sorted(rates) and 16.0 in rates, rates
