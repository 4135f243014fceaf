"""Sweep: every row of a revision's configs, or of the config keys (and glob patterns) asked for.

What ``full-sweep``/``test-config`` and the rehearsal share; the flags live in
``commands/sweep``.
"""

from __future__ import annotations

import os

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError


def flag_value_error(message: str, hint: str, where: str, rule: str) -> SweepgateError:
    """A flag's value that names nothing there is (bad input, exit 1), at the flag ``where``, titled by
    ``rule``: never ``usage``, the title of argparse's argument syntax (exit 2)."""
    return SweepgateError(Diagnostic(where, 0, 0, rule, message, hint))


CHECK_KEY_NAMES = "check the key names in configs/"


def resolve_patterns(patterns: list[str], configs: dict) -> list[str]:
    """Config keys for exact names and glob patterns, in order, deduplicated."""
    from sweepgate.core.keypatterns import UNKNOWN_CONFIG_KEY, matching, near_wildcard

    out: dict[str, None] = {}
    for pattern in patterns:
        if "*" in pattern or "?" in pattern:
            matched = matching(pattern, configs, glob=True)
            if not matched:
                raise flag_value_error(f"pattern '{pattern}' matches no config key",
                                       near_wildcard(pattern, configs, glob=True, check=CHECK_KEY_NAMES),
                                       "--config-keys", UNKNOWN_CONFIG_KEY)
            out.update(dict.fromkeys(matched))
        elif pattern in configs:
            out[pattern] = None
        else:
            import difflib

            close = difflib.get_close_matches(pattern, list(configs), n=3)
            raise flag_value_error(f"config key '{pattern}' not found",
                                   f"did you mean {', '.join(close)}?" if close else CHECK_KEY_NAMES,
                                   "--config-keys", UNKNOWN_CONFIG_KEY)
    return list(out)


def worktree_rows(root, config_keys: list[str] | None = None) -> list[dict]:
    """Every benchmark row of the working tree's configs (or of ``config_keys``), with fingerprints.

    Raises SweepgateError when the configs do not pass their checks.
    """
    return [row for _, row in worktree_keyed_rows(root, config_keys)]


def worktree_keyed_rows(root, config_keys: list[str] | None = None, *,
                        unnamed_fix: str = "", rev=None) -> list[tuple[str, dict]]:
    """``worktree_rows`` as (config key, row) pairs: a row does not name the config it came from.

    ``unnamed_fix``, where no config key is named, ends the fix of a config that cannot be expanded: the
    caller's way past a config it only expands to look for a row (rehearse's ``--config-keys``). ``rev``:
    the work tree's ``worktree_revision``, when the caller has read it (for where each config is)."""
    from sweepgate.core.expand import expand_config, fingerprint

    rev = rev or worktree_revision(root)
    keys = resolve_patterns(config_keys, rev.configs) if config_keys else list(rev.configs)
    rows = []
    for key in keys:
        try:
            expanded = list(expand_config(key, rev.configs[key], rev.runners.data, None, rev.where(key)))
        except SweepgateError as exc:
            if config_keys or not unnamed_fix:
                raise
            raise SweepgateError([Diagnostic(d.file, d.line, d.col, d.rule, d.message,
                                             f"{d.hint}; {unnamed_fix}" if d.hint else unnamed_fix, d.severity,
                                             in_file=d.in_file) for d in exc.diagnostics]) from None
        for row in expanded:
            row[F.RECIPE_FINGERPRINT] = fingerprint(row)
            rows.append((key, row))
    return rows


def sweep_eval_rows(rows: list[dict]) -> list[dict]:
    """The eval jobs a sweep of ``rows`` runs, chosen as the matrix chooses them by default
    (``expand.eval_rows``): copies marked run-eval and eval-only, with no recipe-fingerprint (the
    matrix gives eval rows none); ``rows`` are left as they are."""
    import copy

    from sweepgate.core.expand import eval_rows, finalize

    bare = [{k: v for k, v in copy.deepcopy(row).items() if k != F.RECIPE_FINGERPRINT} for row in rows]
    return [finalize(row) for row in eval_rows(bare, all_evals=False)]


def worktree_revision(root):
    """The working tree's configs and runners, read and checked (SweepgateError when they do not pass)."""
    from sweepgate.core.check import check_revision
    from sweepgate.core.load import Git, load_revision

    rev = load_revision(Git(os.fspath(root)), "WORKTREE", worktree=True)
    check_revision(rev)
    return rev


def matrix_rows(matrix) -> list[dict]:
    """Every row (a dict with an exp-name) anywhere in a matrix's buckets (or a row, or a list)."""
    if isinstance(matrix, dict):
        if F.EXP_NAME in matrix:
            return [matrix]
        return [r for v in matrix.values() for r in matrix_rows(v)]
    if isinstance(matrix, list):
        return [r for v in matrix for r in matrix_rows(v)]
    return []
