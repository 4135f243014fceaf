#!/usr/bin/env python3
"""Expand master configs into benchmark rows: `full-sweep` or `test-config`.

Drop-in for InferenceX's generate_sweep_configs.py; see `sweepgate full-sweep --help`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sweepgate.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
