#!/usr/bin/env python3
"""Print the benchmark matrix selected by the changelog entries a change appends.

Drop-in for InferenceX's utils/process_changelog.py; see `sweepgate matrix --help`.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sweepgate.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(["matrix", *sys.argv[1:]]))
