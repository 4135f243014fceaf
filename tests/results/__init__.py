"""Results tests. A package, so its conftest is `results.conftest` and never
shadows tests/conftest.py (which other test modules import from by name); its
helper modules stay importable by their plain names."""

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
if _here not in sys.path:
    sys.path.insert(0, _here)
