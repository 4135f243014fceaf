#!/usr/bin/env python3
"""Proof that core.fastyaml builds exactly PyYAML's values on every config block of the corpus.

    python tests/bench/yaml_parity.py [--corpus ../shared/corpus]

Every top-level block of every master config in every commit of corpus.git (each
distinct block once) is built both ways: PyYAML's safe loader (YAML 1.1, the
authority) and `fastyaml.load_blocks` (rapidyaml, or None where it defers to PyYAML).
Values must be identical in type, value and key order, all the way down. Prints the
counts and exits 1 on the first difference. Also times both over the distinct blocks.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))

import yaml  # noqa: E402

from cold_speed import corpus_tip  # noqa: E402
from sweepgate.core import fastyaml  # noqa: E402
from sweepgate.core.load import split_blocks  # noqa: E402
from sweepgate.core.pyyaml import FastReader  # noqa: E402
from test_fastyaml import same  # noqa: E402 - the equality the tests hold fastyaml to


def distinct_blocks(repo: Path) -> dict[str, None]:
    git = ["git", "-C", str(repo)]
    revs = subprocess.run([*git, "rev-list", "--all"], capture_output=True, text=True, check=True).stdout.split()
    specs = [f"{rev}:{path}" for rev in revs for path in ("configs/nvidia-master.yaml", "configs/amd-master.yaml")]
    proc = subprocess.run([*git, "cat-file", "--batch"], input="\n".join(specs).encode() + b"\n",
                          capture_output=True, check=True)
    out, pos, blocks = proc.stdout, 0, {}
    for _ in specs:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        for _, block in split_blocks(out[pos:pos + size].decode("utf-8")) or []:
            blocks[block] = None
        pos += size + 1
    print(f"{len(revs)} commits, {len(specs)} file versions: {len(blocks)} distinct blocks")
    return blocks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sweepgate-parity-") as tmp:
        blocks = list(distinct_blocks(corpus_tip(Path(args.corpus), Path(tmp))))
    start = time.perf_counter()
    fast = fastyaml.load_blocks(blocks)
    fast_s = time.perf_counter() - start
    start = time.perf_counter()
    slow = [yaml.load(b, Loader=FastReader) for b in blocks]
    slow_s = time.perf_counter() - start
    built = 0
    for block, got, want in zip(blocks, fast, slow):
        if got is None:
            continue
        built += 1
        if not same(got[0], want):
            print(f"DIFFERENT:\n{block[:400]}")
            return 1
    print(f"identical on all {built} blocks rapidyaml built; {len(blocks) - built} deferred to PyYAML")
    print(f"fastyaml (with fallbacks left out) {fast_s:.2f} s, PyYAML {slow_s:.2f} s over the distinct blocks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
