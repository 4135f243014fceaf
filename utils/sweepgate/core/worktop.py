"""The top of the work tree that holds a folder, found without running git (a results command
or an annotation may need it where git is not installed)."""

from __future__ import annotations

import os


def enclosing_top(start: str | None = None) -> str | None:
    """The nearest folder at or above ``start`` (the working directory) holding a ``.git`` entry;
    None when there is none."""
    here = os.path.abspath(start or os.getcwd())
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
