#!/usr/bin/env python3
"""Answers for every corpus case from a given copy of the reference, for the corpus check.

    python tests/bench/corpus_oracle.py --reference DIR --reference-python PY --out OUT
                                        [--corpus ../shared/corpus] [--case ID ...]
    python3 ../shared/corpus/check.py --project "$PWD" --python "$PWD/.venv/bin/python" --expected OUT

The corpus publishes the reference's answers for some of its cases only. Given a copy of the
reference's ``utils/`` (DIR, with its own interpreter PY that has its dependencies), this runs its
``process_changelog.py`` on each case's head, as the corpus check runs ours, and writes
``OUT/<case>.json`` in the shape of the corpus's ``expected/``: ``{"ok": true, "matrix": ...}`` for
the JSON it printed, ``{"ok": false, "error": ...}`` (its last lines) when it refused. Cases whose
answer is published are a check of the copy itself: run ``check.py --project`` on a folder holding
the copy as ``utils/`` against the published answers first (a refusal there is a traceback, so only
the matrices count), or compare OUT with them by hand.

Nothing of the reference is kept here: DIR is read where it is and copied into a scratch clone only.
Not part of the test suite.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 300  # seconds a case may take
ERROR_LINES = 4  # lines of a refusal kept, as the corpus's answers keep its last lines


def cases(corpus: Path, only: set[str]) -> list[tuple[str, str, str]]:
    lines = (corpus / "cases.tsv").read_text().splitlines()[1:]
    rows = [tuple(line.split("\t")[:3]) for line in lines if line.strip()]
    return [row for row in rows if not only or row[0] in only]


def answer(repo: Path, python: str, base: str, head: str) -> dict:
    try:
        run = subprocess.run([python, "utils/process_changelog.py", "--base-ref", base, "--head-ref", head,
                              "--changelog-file", "perf-changelog.yaml"],
                             cwd=repo, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {TIMEOUT} s"}
    if run.returncode == 0:
        try:
            return {"ok": True, "matrix": json.loads(run.stdout)}
        except json.JSONDecodeError:
            return {"ok": False, "error": "printed no JSON: " + run.stdout[-500:]}
    return {"ok": False, "error": "\n".join(run.stderr.strip().splitlines()[-ERROR_LINES:])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", type=Path, required=True, help="a copy of the reference's utils/")
    ap.add_argument("--reference-python", required=True, help="an interpreter with the reference's dependencies")
    ap.add_argument("--out", type=Path, required=True, help="folder for <case>.json answers")
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--case", nargs="+", default=[], help="only these cases")
    a = ap.parse_args()
    if not (a.reference / "process_changelog.py").is_file():
        ap.error(f"{a.reference}: no process_changelog.py in it; pass the reference's utils/ folder")
    rows = cases(a.corpus, set(a.case))
    a.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="corpus-oracle-") as tmp:
        repo = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", str(a.corpus / "corpus.git"), str(repo)], check=True)
        subprocess.run(["git", "-C", str(repo), "fetch", "-q", "origin", "+refs/heads/*:refs/heads/*"],
                       capture_output=True)
        tally = {True: 0, False: 0}
        for i, (case, base, head) in enumerate(rows, 1):
            subprocess.run(["git", "-C", str(repo), "checkout", "-q", "--force", head], check=True)
            shutil.rmtree(repo / "utils", ignore_errors=True)
            shutil.copytree(a.reference, repo / "utils")
            got = answer(repo, a.reference_python, base, head)
            (a.out / f"{case}.json").write_text(json.dumps(got, sort_keys=True))
            tally[got["ok"]] += 1
            print(f"\r{i}/{len(rows)} cases", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{len(rows)} answers in {a.out}: {tally[True]} matrices, {tally[False]} refusals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
