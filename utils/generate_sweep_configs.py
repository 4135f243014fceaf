#!/usr/bin/env python3
"""Expand master configs into benchmark rows: `full-sweep` or `test-config`.

Drop-in for InferenceX's generate_sweep_configs.py; see `sweepgate full-sweep --help`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Keep compiled bytecode of sweepgate itself even under PYTHONDONTWRITEBYTECODE:
# every CI step runs this entry point, and recompiling costs more than the work.
sys.dont_write_bytecode = False

from sweepgate.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:], only=("full-sweep", "test-config"), prog="generate_sweep_configs.py"))
