#!/usr/bin/env python3
"""Speed of `sweepgate example`, the README's first command (gate, matrix, rehearsal of the seed
change's rows, ingest, comparison, charts), run as a new user runs it: outside any checkout.

    python tests/bench/example_speed.py [--runs 3]

Each run is a separate process in an empty temporary folder; its charts folder is removed after.
Prints each run's time and the median. Goal: under 60 s on the 2-core machine. Not part of the test
suite (tests/test_example.py checks what the example does, not how fast).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def one_run() -> float:
    with tempfile.TemporaryDirectory() as cwd:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"}
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "sweepgate"], cwd=cwd, env=env, capture_output=True, text=True)
        elapsed = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"sweepgate example failed (exit {proc.returncode}):\n{proc.stderr}")
    for line in proc.stdout.splitlines():  # the charts folder it keeps for the user
        path = Path(line.strip()).parent
        if line.startswith("  /") and path.name.startswith("sweepgate-example-charts-"):
            shutil.rmtree(path, ignore_errors=True)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    times = []
    for n in range(1, args.runs + 1):
        times.append(one_run())
        print(f"run {n}: {times[-1]:.1f} s", flush=True)
    print(f"sweepgate example: median {statistics.median(times):.1f} s over {len(times)} runs "
          f"(load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
