#!/usr/bin/env python3
"""Print the benchmark matrix selected by the changelog entries a change appends.

Drop-in for InferenceX's utils/process_changelog.py; see `sweepgate matrix --help`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Keep compiled bytecode of sweepgate itself even under PYTHONDONTWRITEBYTECODE:
# every CI step runs this entry point, and recompiling costs more than the work.
sys.dont_write_bytecode = False

from sweepgate.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(["matrix", *sys.argv[1:]], only=("matrix",), prog="process_changelog.py"))
