"""Small in-process API for other sweepgate modules and for users' scripts."""

from __future__ import annotations

from sweepgate.core.sweep import worktree_rows as sweep_rows

__all__ = ["sweep_rows"]

