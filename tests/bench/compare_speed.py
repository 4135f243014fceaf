#!/usr/bin/env python3
"""Speed of `sweepgate results compare`: 2,000 points against a 5-run baseline.

    python tests/bench/compare_speed.py [--points 2000] [--runs 5]

Builds an SQLite store in a temporary folder holding `--runs` baseline runs on main
and one PR run over the same points, then times, as separate figures:
- `compare_records` on the records in memory (the statistics and verdicts);
- the whole command, `sweepgate results compare --db ... --run ... --json`, as a
  separate process (interpreter start, store queries, statistics, JSON).
Goal: under 5 s for the command at 2,000 points. Not part of the test suite.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "utils"), str(ROOT / "tests" / "results")]

import synth  # noqa: E402
from sweepgate.results import compare, store  # noqa: E402


def build(points: int, runs: int) -> tuple[list[dict], list[dict]]:
    keys = [f"bench-{i:03d}-fp8-b300-vllm" for i in range(max(1, points // 50))]
    concs = tuple(range(1, points // len(keys) + 1))
    base = synth.history(runs=runs, keys=keys, concs=concs)
    pr = synth.pr_run({(keys[0], 1): {"output_tput_per_gpu": 0.8}}, keys=keys, concs=concs)
    return pr, base


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    pr, base = build(args.points, args.runs)
    t0 = time.perf_counter()
    result = compare.compare_records(pr, base)
    in_memory = time.perf_counter() - t0
    print(f"compare_records: {len(pr)} points x {len(result.verdicts) // len(pr)} metrics against "
          f"{args.runs} runs: {in_memory:.2f} s ({result.counts()})")
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/results.db"
        with store.open_store(url) as st:
            st.add(base + pr)
        env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
        cmd = [sys.executable, "-m", "sweepgate", "results", "compare", "--db", url, "--run", "pr-7", "--json"]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
        whole = time.perf_counter() - t0
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
    print(f"sweepgate results compare (process, SQLite): {whole:.2f} s; goal < 5 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
