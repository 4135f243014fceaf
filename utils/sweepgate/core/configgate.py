"""The gate's checks of the generation inputs a change edits: master configs and runners.

The matrix step checks configs only when the changelog gains entries, so a change that
edits ``configs/*-master.yaml`` or ``configs/runners.yaml`` without one would merge a
config that the next, unrelated PR's matrix step refuses. When any of those files
differs between BASE and HEAD (compared by blob id: an untouched set costs two tree
reads and nothing else), the gate therefore:

1. checks HEAD's inputs as the matrix step does (``check.check_revision``: schema,
   rules, placement; blocks whose text was checked before come from the verdict cache);
2. refuses, beyond the matrix step, a mapping key given twice at any depth and a config
   key given twice in one file. PyYAML (and so ``process_changelog.py``, like the
   reference) silently keeps the last one. Only blocks that differ from BASE are
   scanned, so a duplicate already on main never blocks an unrelated change.

When the change is refused for problems in those files, ``also_on_base`` says which of them
BASE has too (checked the same way, its blocks mostly from the verdict cache), so the author
tells the problems they caused from those main already had; none is dropped.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError
from sweepgate.core.load import (
    block_spans, block_spans_around, block_text, master_paths_at, master_paths_in, top_key, worktree_blobs,
)


def _tree_inputs(git, ref: str) -> dict[str, str]:
    """{path: blob id} of the master configs and runners file at ``ref``."""
    folder = F.RUNNERS_FILE.rpartition("/")[0]
    found = {p: git.tree_blobs(ref, F.CONFIG_DIR)[p] for p in master_paths_at(git, ref)}
    runners = git.tree_blobs(ref, folder).get(F.RUNNERS_FILE)
    if runners:
        found[F.RUNNERS_FILE] = runners
    return found


def changed_inputs(git, base_sha: str, head_sha: str,
                   worktree: bool = False) -> dict[str, tuple[bytes | None, bytes | None]]:
    """{path: (BASE bytes, HEAD bytes)} of each master config or runners file the change touches
    (``worktree``: HEAD is the working tree)."""
    base = _tree_inputs(git, base_sha)
    if worktree:
        like = next(iter(base.values()), "")
        tree = {p: blob for p, blob in worktree_blobs(git.root, [*master_paths_in(git.root), F.RUNNERS_FILE],
                                                      like).items() if blob[1] is not None}
        head = {p: oid for p, (oid, _) in tree.items()}
    else:
        head = _tree_inputs(git, head_sha)
    changed = sorted(p for p in base.keys() | head.keys() if base.get(p) != head.get(p))
    if not changed:
        return {}
    old = git.read_blobs(base_sha, [p for p in changed if p in base])
    new = ({p: tree[p][1] for p in changed if p in tree} if worktree
           else git.read_blobs(head_sha, [p for p in changed if p in head]))
    return {p: (old.get(p), new.get(p)) for p in changed}


def config_problems(git, head_sha: str, worktree: bool = False, located: bool = True) -> list[Diagnostic]:
    """Every problem the matrix step would find in HEAD's configs and runners (``located``: False, each at line 0,
    its place not looked for)."""
    from sweepgate.core.check import check_revision
    from sweepgate.core.load import load_revision

    try:
        rev = load_revision(git, head_sha, worktree=worktree)
        for doc in () if located else [*rev.masters, rev.runners]:
            doc.located = False
        check_revision(rev)
    except SweepgateError as exc:
        return list(exc.diagnostics)
    return []


# A line number a message quotes ("first at line 12", "also defined in configs/x-master.yaml:40"): set aside when
# BASE's problems are matched with HEAD's, since lines move.
_QUOTED_LINE = re.compile(r"(?<=\bline )\d+|(?<=\.yaml:)\d+|(?<=\.yml:)\d+")
DUPLICATE_CONFIG_KEY = "duplicate-config-key"  # the title of a config key given twice in one file


def also_on_base(git, base_sha: str, problems: list[Diagnostic], changelog: str, head_sha: str | None = None,
                 worktree: bool = False, head=None) -> list[Diagnostic] | None:
    """The errors of ``problems`` outside ``changelog`` that BASE's configs and runners file have too: the same
    file, rule and message (which names the config key and the path in it), a line number it quotes set aside, at
    any line, since lines shift: so BASE's are never located, which would compose each failing block again (most
    of their cost). The duplicate keys the gate refuses beyond the matrix step are looked for in the whole of
    BASE's files (``duplicate_problems``, which HEAD ran on the blocks it changed), and a key repeated in one
    mapping, whose message names no config, is matched within the config holding it (read from ``head(paths)``,
    {path: HEAD's bytes}). Each of BASE's problems vouches for one of HEAD's, so a duplicate the change adds
    (the same key a third time) stays new, and none vouches for one on a line the change wrote
    (``_written_lines``, with ``head_sha``): a list entry copied with its slip to the list's head takes its
    original's index, so its message, and was marked BASE's while the original, one index on, was called new
    (s48f). None, and nothing read, when no such error is refused or BASE holds
    no master config (the empty history before a first commit): there is nothing to compare.

    The changelog's problems are never BASE's: the gate checks only the lines a change appends or alters
    (``gate.file_rules``: the history is compared byte for byte, not checked again), so each is the change's;
    an appended entry that repeats an old entry's problem, or copies the entry, made it again."""
    from sweepgate.core.yamlsafe import TWICE_IN_A_MAPPING

    mine = [d for d in problems if d.file != changelog and d.severity == "error"]
    if not mine or not master_paths_at(git, base_sha):
        return None
    written = _written_lines(changed_inputs(git, base_sha, head_sha, worktree)) if head_sha else {}
    mine = [d for d in mine if d.line not in written.get(d.file, ())]
    theirs = config_problems(git, base_sha, located=False)
    scoped = sorted({d.file for d in mine if d.rule == F.DUPLICATE_KEY_RULE and TWICE_IN_A_MAPPING in d.message})
    doubled = sorted({d.file for d in mine if d.rule in (F.DUPLICATE_KEY_RULE, DUPLICATE_CONFIG_KEY)})
    old = git.read_blobs(base_sha, doubled) if doubled else {}
    for path in doubled:
        if old.get(path) is not None:
            theirs += duplicate_problems(path, None, old[path])
    new = head(scoped) if scoped and head else {}

    def key(d: Diagnostic, text: bytes | None) -> tuple:
        scope = _config_at(text, d.line) if d.file in scoped and TWICE_IN_A_MAPPING in d.message else None
        return d.file, d.rule, _QUOTED_LINE.sub("N", d.message), scope

    # a duplicate both passes find on BASE (the matrix step's, located, and the gate's own) counts once
    theirs = list({(d.file, d.line, d.message) if d.line else id(d): d for d in theirs}.values())
    left = Counter(key(d, old.get(d.file)) for d in theirs)
    found = []
    for d in mine:
        k = key(d, new.get(d.file))
        if left[k] > 0:
            left[k] -= 1
            found.append(d)
    return found


def _written_lines(changed: dict[str, tuple[bytes | None, bytes | None]]) -> dict[str, set[int]]:
    """{path: the numbers (from 1) of HEAD's lines the change added or rewrote} of each changed file
    (``changed_inputs``), as a diff of the two versions' lines shows them; every line of a file BASE lacks."""
    from difflib import SequenceMatcher

    written = {}
    for path, (old, new) in changed.items():
        if new is None:
            continue
        a, b = (old or b"").splitlines(), new.splitlines()
        # the common head and tail first (a diff of the middle alone); autojunk would take a master config's
        # many like lines for noise and match the rest badly
        lead = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        tail = next((i for i, (x, y) in enumerate(zip(reversed(a[lead:]), reversed(b[lead:]))) if x != y),
                    min(len(a), len(b)) - lead)
        middle = SequenceMatcher(None, a[lead:len(a) - tail], b[lead:len(b) - tail], autojunk=False)
        written[path] = {lead + n + 1 for tag, _, _, j1, j2 in middle.get_opcodes() if tag != "equal"
                         for n in range(j1, j2)}
    return written


def _config_at(text: bytes | None, line: int) -> str | None:
    """The config key whose block holds 1-based ``line`` of a master config's bytes; None when it is not plainly
    split into blocks (the whole file is then one scope) or the line is before the first."""
    spans = block_spans(text) if text is not None and line else None
    held = [start for first, start, _ in spans or () if first < line]
    return top_key(text, held[-1]) if held else None


WINDOW = 1 << 16  # bytes compared at once while looking for where two versions part


def _shared_run(a: bytes, b: bytes, from_end: bool = False) -> int:
    """How many leading (``from_end``: trailing) bytes ``a`` and ``b`` share: whole windows compared
    in C, then halving; nothing is copied but the windows themselves."""
    n, lo = min(len(a), len(b)), 0

    def same(i: int, j: int) -> bool:  # bytes [i, j) counted from the chosen end
        if from_end:
            return a[len(a) - j:len(a) - i] == b[len(b) - j:len(b) - i]
        return a[i:j] == b[i:j]

    while lo < n and same(lo, min(lo + WINDOW, n)):
        lo += WINDOW
    lo, hi = min(lo, n), min(lo + WINDOW, n)
    while lo < hi:  # the first lo bytes agree; the first difference is before hi
        mid = (lo + hi + 1) // 2
        if same(lo, mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def changed_blocks(old: bytes, new: bytes, new_spans: list) -> list[bool]:
    """For each block of ``new`` (``block_spans``), whether its text is not in ``old``: only blocks
    where the two versions part (after their shared first and last bytes) are compared, and only
    there is ``old`` split, so the cost follows the change, not the file."""
    first = _shared_run(old, new)
    last = min(_shared_run(old, new, from_end=True), min(len(old), len(new)) - first)
    originals = {block_text(old, start, end) for _, start, end in block_spans_around(old, first, len(old) - last)}
    flags = [False] * len(new_spans)
    for i in _overlapping(new_spans, first, len(new) - last):
        flags[i] = block_text(new, new_spans[i][1], new_spans[i][2]) not in originals
    return flags


def _overlapping(spans: list, lo: int, hi: int) -> range:
    """The indexes of the spans (sorted, adjacent) that share a byte with [lo, hi)."""
    starts = [start for _, start, _ in spans]
    first = max(bisect_right(starts, lo) - 1, 0)
    if first < len(spans) and spans[first][2] <= lo:
        first += 1
    return range(first, bisect_left(starts, hi) if hi > lo else first)


def duplicate_problems(path: str, base: bytes | None, head: bytes) -> list[Diagnostic]:
    """Duplicate keys in the blocks of ``head`` that are not in ``base``, at the second occurrence."""
    from sweepgate.core.yamlsafe import duplicate_keys

    spans = block_spans(head)
    if spans is None:  # not plainly shaped: the whole file is one block, and new
        text = head.decode("utf-8", "replace")
        return duplicate_keys(path, text, lambda n: n)
    changed = changed_blocks(base or b"", head, spans)
    diags = []
    for (line, start, end), new in zip(spans, changed):
        if new:
            diags += duplicate_keys(path, block_text(head, start, end).decode("utf-8", "replace"),
                                    lambda n, line=line: n + line)
    keys = [top_key(head, start) for _, start, _ in spans]
    repeated = {key for key, n in Counter(keys).items() if n > 1}
    if not repeated:
        return diags
    by_key: dict[str, list[tuple[int, bool]]] = {}
    for key, (line, _, _), new in zip(keys, spans, changed):
        if key in repeated:
            by_key.setdefault(key, []).append((line + 1, new))
    old_spans = (block_spans(base) or []) if base else []  # split whole only when a key repeats
    base_counts = Counter(key for key in (top_key(base, start) for _, start, _ in old_spans) if key in repeated)
    for key, seen in by_key.items():
        if len(seen) > base_counts[key] or any(new for _, new in seen):
            diags += [Diagnostic(
                path, line, 1, DUPLICATE_CONFIG_KEY,
                f"config key '{key}' is defined again here (first at line {seen[0][0]}); the matrix "
                "would silently use this last one", "delete one of the two blocks, or rename this one")
                for line, _ in seen[1:]]
    return diags


def check_inputs(git, base_sha: str, head_sha: str, worktree: bool,
                 full: bool) -> tuple[list[str], list[Diagnostic]]:
    """(changed input files, their problems). ``full``: also run the matrix step's config checks."""
    changed = changed_inputs(git, base_sha, head_sha, worktree)
    if not changed:
        return [], []
    diags = config_problems(git, head_sha, worktree) if full else []
    for path, (old, new) in changed.items():
        if new is not None:
            diags += duplicate_problems(path, old, new)
    return list(changed), diags
