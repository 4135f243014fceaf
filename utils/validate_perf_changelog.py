#!/usr/bin/env python3
"""Gate a pull request's or push's perf-changelog.yaml change: strict, byte-exact, with line numbers.

Drop-in for InferenceX's utils/validate_perf_changelog.py; see `sweepgate validate --help`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Keep compiled bytecode of sweepgate itself even under PYTHONDONTWRITEBYTECODE:
# every CI step runs this entry point, and recompiling costs more than the work.
sys.dont_write_bytecode = False

from sweepgate.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(["validate", *sys.argv[1:]], only=("validate",), prog="validate_perf_changelog.py"))
