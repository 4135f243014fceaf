"""The config key each matrix row came from.

A matrix row (the reference's format) does not name its master-config key, but
the expansion that made it knows it. ``matrix_row_keys`` expands, once each, the
configs the matrix's changelog entries name, at the revision the matrix was built
from, and gives every row the key whose expansion holds the same recipe: the row
without its point fields and eval flags (conc, exp-name, fingerprint, run-eval,
eval-only, ...), which trimming, eval selection and append-only deltas change.
"""

from __future__ import annotations

from sweepgate.core import fields as F
from sweepgate.core.keypatterns import matching


def recipe_of(row: dict) -> tuple:
    """What a row shares with the expanded row it came from."""
    from sweepgate.core.expand import EVAL_FIELDS, POINT_FIELDS, curve_key

    return curve_key(row, POINT_FIELDS | EVAL_FIELDS)


def entry_patterns(matrix: dict) -> list[str]:
    """The config keys and wildcards the matrix's changelog entries name, in order."""
    meta = matrix.get(F.CHANGELOG_METADATA) or {}
    entries = meta.get(F.ENTRIES) if isinstance(meta, dict) else None
    patterns = [p for e in entries or [] if isinstance(e, dict) for p in e.get(F.CONFIG_KEYS) or []]
    return list(dict.fromkeys(str(p) for p in patterns))


def keys_by_recipe(configs: dict, runners: dict, patterns: list[str]) -> dict[tuple, str]:
    """recipe -> config key, for every row the configs ``patterns`` name expand to (first key wins), each
    pattern read as a changelog entry's (``keypatterns.matching``: only ``*`` is a wildcard; a ``?`` or
    ``[`` is itself, as the changelog's resolution and the reference's process_changelog.py read it)."""
    from sweepgate.core.expand import expand_config, finalize

    named = {key for pattern in patterns for key in matching(pattern, configs)}
    keys = [k for k in configs if k in named]
    index: dict[tuple, str] = {}
    for key in keys:
        for row in expand_config(key, configs[key], runners):
            index.setdefault(recipe_of(finalize(row)), key)
    return index


def row_keys(rows: list[dict], configs: dict, runners: dict, patterns: list[str]) -> list[str | None]:
    """Each row's config key (None for a row no named config expands to)."""
    index = keys_by_recipe(configs, runners, patterns)
    return [index.get(recipe_of(row)) if isinstance(row, dict) else None for row in rows]


def matrix_row_keys(root: str, matrix: dict, rows: list[dict]) -> list[str | None]:
    """``row_keys`` of ``rows`` (rows of ``matrix``) with the configs at the matrix's head revision,
    read from the git repository at ``root``."""
    from sweepgate.core.load import Git
    from sweepgate.core.select import Options, checked_revision

    meta = matrix.get(F.CHANGELOG_METADATA) or {}
    head = str(meta.get(F.HEAD_REF) or "HEAD")
    git = Git(root)
    try:
        rev = checked_revision(git, head, Options())
        return row_keys(rows, rev.configs, rev.runners.data, entry_patterns(matrix))
    finally:
        git.close()


def worktree_row_key(root, row: dict) -> str | None:
    """The config key of the work tree's configs whose expansion holds ``row``'s recipe (``recipe_of``), when
    exactly one does; None when none or several do, or the configs cannot be read. A row read from a file (`sweepgate
    test-config`'s, `rehearse --row-json`) names no config, and its rehearsal's sidecar names the key a job's
    would (walker s43: `results show --key KEY` found nothing of such a rehearsal). A config that cannot be expanded
    holds no row: it is passed over, never the rehearsal's to refuse."""
    import copy

    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.expand import expand_config, finalize
    from sweepgate.core.sweep import worktree_revision

    try:
        rev = worktree_revision(root)
    except SweepgateError:
        return None
    wanted, found = recipe_of(finalize(copy.deepcopy(dict(row)))), set()
    for key, config in rev.configs.items():
        try:
            if any(recipe_of(finalize(expanded)) == wanted
                   for expanded in expand_config(key, config, rev.runners.data)):
                found.add(key)
        except SweepgateError:
            continue
    return found.pop() if len(found) == 1 else None
