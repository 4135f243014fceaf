#!/usr/bin/env python3
"""Speed of the matrix step on real history, and of a full sweep of the example fleet.

    python tests/bench/corpus_speed.py [--corpus ../shared/corpus] [--limit N] [--cold]

For every case of the corpus's cases.tsv (base/head pairs of the reference repository's
data files) it checks out HEAD in a scratch clone and times one run of
`utils/process_changelog.py` as a separate process, the way CI and check.py run it.
It prints the median and 90th percentile in milliseconds, then the time of
`generate_sweep_configs.py full-sweep` over this repository's example fleet.
`--cold` disables sweepgate's content cache, to show the uncached cost.
Not part of the test suite: speed goals live here, not in timed tests.
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


def clone(corpus: Path, into: Path) -> Path:
    source = corpus / "corpus.git"
    if not (source / "refs").is_dir():  # a read-only copy without refs/: git needs the directory
        copy = into / "corpus.git"
        shutil.copytree(source, copy)
        (copy / "refs").mkdir(exist_ok=True)
        source = copy
    subprocess.run(["git", "clone", "-q", str(source), str(into / "repo")], check=True)
    return into / "repo"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--cold", action="store_true", help="run with SWEEPGATE_NO_CACHE=1")
    args = parser.parse_args()
    corpus = Path(args.corpus)
    rows = [line.rstrip("\n").split("\t") for line in (corpus / "cases.tsv").open()][1:]
    if args.limit:
        rows = rows[: args.limit]
    env = {**os.environ, **({"SWEEPGATE_NO_CACHE": "1"} if args.cold else {})}
    tool = ROOT / "utils" / "process_changelog.py"
    times = []
    with tempfile.TemporaryDirectory(prefix="sweepgate-bench-") as tmp:
        repo = clone(corpus, Path(tmp))
        for case, base, head, *_ in rows:
            subprocess.run(["git", "-C", str(repo), "checkout", "-q", "--force", head], check=True)
            start = time.monotonic()
            subprocess.run([sys.executable, str(tool), "--base-ref", base, "--head-ref", head,
                            "--changelog-file", "perf-changelog.yaml"], cwd=repo, capture_output=True, env=env)
            times.append((time.monotonic() - start) * 1000)
    times.sort()
    p90 = times[int(len(times) * 0.9)] if times else 0
    print(f"process_changelog over {len(times)} corpus cases: median {statistics.median(times):.0f} ms, "
          f"p90 {p90:.0f} ms, max {times[-1]:.0f} ms")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, str(ROOT / "utils" / "generate_sweep_configs.py"), "full-sweep"],
                          cwd=ROOT, capture_output=True, text=True, env=env)
    elapsed = (time.monotonic() - start) * 1000
    count = proc.stdout.count('"exp-name"')
    print(f"full-sweep over the example fleet: {count} rows in {elapsed:.0f} ms (exit {proc.returncode})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
