"""Small in-process API for other sweepgate modules and for users' scripts."""

from __future__ import annotations

import os


def sweep_rows(root, config_keys: list[str] | None = None) -> list[dict]:
    """Every benchmark row of the working tree's configs (or of ``config_keys``), with fingerprints.

    Raises SweepgateError when the configs do not pass their checks.
    """
    from sweepgate.core.check import check_revision
    from sweepgate.commands.sweep import resolve_patterns
    from sweepgate.core.expand import expand_config, fingerprint
    from sweepgate.core.load import Git, load_revision

    git = Git(os.fspath(root))
    rev = load_revision(git, "WORKTREE", worktree=True)
    check_revision(rev)
    keys = resolve_patterns(config_keys, rev.configs) if config_keys else list(rev.configs)
    rows = []
    for key in keys:
        for row in expand_config(key, rev.configs[key], rev.runners.data, None, rev.where(key)):
            row["recipe-fingerprint"] = fingerprint(row)
            rows.append(row)
    return rows
