#!/usr/bin/env python3
"""Measure `sweepgate validate` on real main-branch history.

    tests/bench/gate_corpus.py [--corpus ../shared/corpus] [--repository SemiAnalysisAI/InferenceX] [-v]

Clones the corpus's bare repository into a temporary directory, then runs the gate
(in process, no --pr-number, as a push to main) on every `main-*` case of cases.tsv:
base -> head. It prints, per case that is refused, which rules refused it, split into
the gate's own rules and the matrix step's (process_changelog) rules, then totals and
timings. Not part of the test suite: the corpus is not in this repository.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "utils"))
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"

from sweepgate.core.errors import SweepgateError  # noqa: E402
from sweepgate.core.gate import GateOptions, validate  # noqa: E402
from sweepgate.core.load import Git  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS),
                        help="the history corpus (default: ../shared/corpus beside the repository)")
    parser.add_argument("--repository", default="SemiAnalysisAI/InferenceX")
    parser.add_argument("--prefix", default="main-", help="which cases (by name prefix)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every diagnostic")
    args = parser.parse_args()

    cases = []
    for line in (Path(args.corpus) / "cases.tsv").read_text().splitlines()[1:]:
        name, base, head, *_ = line.split("\t")
        if name.startswith(args.prefix):
            cases.append((name, base, head))

    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "corpus"
        subprocess.run(["git", "clone", "-q", str(Path(args.corpus) / "corpus.git"), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*"],
                       check=True)
        os.chdir(clone)
        git = Git(clone)
        gate_rules: collections.Counter = collections.Counter()
        matrix_rules: collections.Counter = collections.Counter()
        refused_gate, refused_matrix_only, crashed = [], [], []
        gate_times, total_times = [], []
        for name, base, head in cases:
            opts = GateOptions(repository=args.repository, run_matrix=False)
            t0 = time.perf_counter()
            try:
                validate(git, base, head, opts)
            except SweepgateError:
                pass
            gate_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            try:
                outcome = validate(git, base, head, GateOptions(repository=args.repository))
            except SweepgateError as exc:
                crashed.append((name, exc))
                continue
            total_times.append(time.perf_counter() - t0)
            gate = outcome.diagnostics
            matrix = [d for d in outcome.all() if d not in gate]
            if gate:
                refused_gate.append(name)
                gate_rules.update(sorted({d.rule for d in gate}))
            elif matrix:
                refused_matrix_only.append(name)
            if matrix:
                matrix_rules.update(sorted({d.rule for d in matrix}))
            if (gate or matrix):
                rules = sorted({d.rule for d in gate})
                mrules = sorted({d.rule for d in matrix})
                print(f"{name}: gate={','.join(rules) or '-'} matrix={','.join(mrules) or '-'}")
                if args.verbose:
                    for d in gate + matrix:
                        print("    " + d.render()[:220])

    n = len(cases)
    print()
    print(f"cases: {n}")
    print(f"refused by the gate's own rules: {len(refused_gate)}  {dict(gate_rules)}")
    print(f"refused by the matrix step only: {len(refused_matrix_only)}")
    print(f"matrix-step rules (any case): {dict(matrix_rules)}")
    print(f"errors outside validate's diagnostics: {len(crashed)} {[c[0] for c in crashed]}")
    print(f"accepted: {n - len(refused_gate) - len(refused_matrix_only) - len(crashed)}")
    gate_times.sort()
    print(f"gate time without matrix step: median {gate_times[n // 2] * 1000:.0f} ms, "
          f"max {gate_times[-1] * 1000:.0f} ms")
    if total_times:
        total_times.sort()
        print(f"with matrix step: median {total_times[len(total_times) // 2] * 1000:.0f} ms, "
              f"max {total_times[-1] * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
