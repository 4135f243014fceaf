#!/usr/bin/env python3
"""Gate a pull request's or push's perf-changelog.yaml change: strict, byte-exact, with line numbers.

Drop-in for InferenceX's utils/validate_perf_changelog.py; see `sweepgate validate --help`.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sweepgate.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(["validate", *sys.argv[1:]]))
