"""History: how the changelog at HEAD relates, byte for byte, to the changelog at BASE.

BASE's bytes must be a prefix of HEAD's; anything else is aligned line by line so
each edit, deletion or insertion is named at its line, and pr-link corrections to
the canonical URL are told apart from edits. When HEAD only appends (the common
case) ``appended_only`` hands over the appended lines and the end of the history,
without splitting the history, so a one-entry append costs what the append costs.
"""

from __future__ import annotations

import re

from sweepgate.core import fields as F
from sweepgate.core.prlinks import correction_of


BOM = b"\xef\xbb\xbf"
# The fix of a pr-link correction made with anything else (appended entries, a branch being rebased), as every
# command that meets one says it (validate, matrix, changelog rebase and canonicalize): ``corrects``' lines.
CORRECTION_FIX = "land pr-link corrections in their own PR, without new entries"


def corrects(lines) -> str:
    """What a change does to the history lines (BASE's numbers) whose pr-link it corrects, in the words of every
    command that tells of it: validate's ok, matrix's refusal, the refusals of a correction made with entries."""
    shown = [str(n) for n in lines]
    return f"corrects the pr-link of history line{'s' if len(shown) != 1 else ''} {', '.join(shown)}"


def mixed_corrections(hist: "History") -> list[tuple[int, str, str, str]]:
    """Each pr-link correction of a change that appends entries too, refused at its HEAD line as (line, rule,
    message, hint): the gate's and the matrix step's words."""
    return [(head, F.CORRECTION_MIXED_RULE, f"this change {corrects([base])} and appends entries", CORRECTION_FIX)
            for base, head in hist.corrections]
CONFLICT_MARKERS = (b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||")


def conflict_fix_text(onto: str | None) -> str:
    """What to do after a merge or during a rebase, where neither can be told (markers committed, as in a CI
    checkout): rebuild onto ``onto``, the branch this one merges into that exists here (None: say how to find it)."""
    target = onto or "BRANCH"
    found = "" if onto else " (BRANCH: the branch yours merges into; `git branch -a` lists those there are)"
    return (f"resolve the conflict: after a merge, `sweepgate changelog rebase --onto {target} --branch ORIG_HEAD` "
            f"rebuilds the file from {target}'s and your branch's entries{found}; during a rebase, pass --branch "
            "REBASE_HEAD instead (the commit being applied: ORIG_HEAD would fold every commit's entries into this one)")


CONFLICT_FIX = conflict_fix_text(None)  # where no repository is at hand to name a branch that exists
ENTRY_START = re.compile(rb"^-( |$)")


def conflicts(numbered) -> list[list[int]]:
    """The line numbers of the merge-conflict markers among ``numbered`` ((number, line) pairs, in
    order), one list per conflict: from a ``<<<<<<<`` to the ``>>>>>>>`` that closes it; a marker
    outside such a pair is one of its own."""
    opening, closing = CONFLICT_MARKERS[0], CONFLICT_MARKERS[2]
    found: list[list[int]] = []
    inside = False
    for n, line in numbered:
        if not line.startswith(CONFLICT_MARKERS):
            continue
        if inside:
            found[-1].append(n)
        else:
            found.append([n])
        inside = line.startswith(opening) or (inside and not line.startswith(closing))
    return found


def conflict_problems(numbered, what: str) -> list[tuple[int, str]]:
    """One problem per merge conflict among ``numbered`` ((number, line) pairs) in ``what`` (the file,
    as the reader knows it): its first marker's line, and what it is, naming how far it runs. The gate
    and `sweepgate changelog` say a conflict alike."""
    return [(group[0], f"merge conflict in {what} ({len(group)} markers, lines {group[0]}-{group[-1]})"
             if len(group) > 1 else f"merge-conflict marker in {what}") for group in conflicts(numbered)]


def split_lines(data: bytes) -> list[bytes]:
    """Lines without their '\\n'; a final '\\n' does not start another line."""
    if not data:
        return []
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def normalized(lines: list[bytes], first_line: bool = True) -> list[bytes]:
    """Lines without a final CR; the BOM is dropped from the first line when ``lines`` starts the file."""
    out = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    if first_line and out and out[0].startswith(BOM):
        out[0] = out[0][len(BOM):]
    return out


def trailing_newlines(data: bytes) -> int:
    """How many '\n' end ``data``, reading only as far back as they go."""
    size = 64
    while True:
        tail = data[-size:]
        count = len(tail) - len(tail.rstrip(b"\n"))
        if count < len(tail) or size >= len(data):
            return count
        size *= 4


def text_span(lines, a: int, b: int) -> tuple[int, int]:
    """Lines a..b (0-based, end excluded) without the empty lines around them, as their first and last
    line, 1-based: what the gate and `changelog rebase` name of a block inserted inside the history
    (its entries, not the empty line that parts them from the next). The whole block when every line
    of it is empty."""
    text = [i for i in range(a, b) if lines[i].strip()]
    return (text[0] + 1, text[-1] + 1) if text else (a + 1, b)


def lines_named(first: int, last: int) -> str:
    """'line N', or 'lines N-M' (1-based)."""
    return f"line {first}" if first == last else f"lines {first}-{last}"


def show(line: bytes, limit: int = 70) -> str:
    text = line.decode("utf-8", "replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")


def show_edit(old: bytes, new: bytes, limit: int = 70, before: int = 20) -> str:
    """``'old' became 'new'``, each cut to the same stretch around where they first differ (a
    long line edited near its end read as two identical excerpts)."""
    a, b = old.decode("utf-8", "replace"), new.decode("utf-8", "replace")
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = 0 if at < limit - before else at - before

    def cut(text: str) -> str:
        part = text[start:start + limit]
        return repr(("..." if start else "") + part + ("..." if start + limit < len(text) else ""))

    return f"{cut(a)} became {cut(b)}"


class History:
    """How HEAD's lines relate to BASE's (a plain class, as ``gate.Outcome`` is: no dataclasses import)."""

    def __init__(self, append_start: int, changed: list[int] | None = None) -> None:
        self.append_start = append_start  # 0-based index of HEAD's first line after the history
        self.changed: list[int] = [] if changed is None else changed  # HEAD line indexes whose bytes are new
        self.corrections: list[tuple[int, int]] = []  # (base line, head line), 1-based
        self.problems: list[tuple[int, str, str, str]] = []  # (line, rule, message, hint)
        self.inserted: list[tuple[int, int]] = []  # HEAD line index spans inserted mid-history
        # What `sweepgate changelog rebase` moves to the end, when the inserted blocks are whole entries and
        # nothing else differs from BASE (``whole_entries_inserted``); None when it would refuse them.
        self.movable: list[tuple[int, int, bytes]] | None = None


HISTORY_HINT = "restore it byte for byte; the changelog is append-only (add a new entry at the end instead)"
# Said of several lines deleted at once (s47h: "history lines 1-6371 deleted ...; restore it byte for byte").
HISTORY_HINT_LINES = HISTORY_HINT.replace("restore it ", "restore them ", 1)
INSERTED_HINT = "new entries go at the end of the file, after one empty line"
# Said instead where `sweepgate changelog rebase` takes the inserted blocks as the branch's (``History.movable``).
MOVABLE_HINT = f"{INSERTED_HINT}: `sweepgate changelog rebase` moves these lines there"


class HeadLines:
    """HEAD's lines from index ``offset`` on (every line when ``offset`` is 0); HEAD has ``total`` lines."""

    def __init__(self, lines: list[bytes], offset: int = 0) -> None:
        self.lines, self.offset = lines, offset

    @property
    def total(self) -> int:
        return self.offset + len(self.lines)

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, index: int) -> bytes:
        """HEAD's line at ``index`` (0-based); an index before the window is an error, not a wrap."""
        if not self.offset <= index < self.total:
            raise IndexError(f"line index {index} outside {self.offset}..{self.total - 1}")
        return self.lines[index - self.offset]

    def normalized(self) -> HeadLines:
        return HeadLines(normalized(self.lines, first_line=self.offset == 0), self.offset)


def appended_only(base: bytes, head: bytes) -> tuple[History, HeadLines] | None:
    """When HEAD only adds whole lines after BASE's bytes: the history, and HEAD's appended lines
    preceded by the end of the history back to its last line with text (all that look-back rules
    read). The history is neither split nor scanned, so the cost is the append's. None otherwise."""
    if (base and not base.endswith(b"\n")) or not head.startswith(base):
        return None
    nb = base.count(b"\n")
    appended = split_lines(head[len(base):])
    context = _history_end(base)
    hist = History(nb, changed=list(range(nb, nb + len(appended))))
    return hist, HeadLines(context + appended, nb - len(context))


def _history_end(base: bytes) -> list[bytes]:
    """BASE's last lines, from its last line holding more than whitespace (all of BASE if none does)."""
    size = 4096
    while True:
        start = max(0, len(base) - size)
        if start:
            start = base.find(b"\n", start - 1) + 1  # base ends with '\n': a line starts here
        lines = split_lines(base[start:])
        if start == 0:
            return lines
        text = [i for i, line in enumerate(lines) if line.strip()]
        if text:
            return lines[text[-1]:]
        size *= 4


def _aligned(nbase: list[bytes], nhead: list[bytes]) -> list[tuple]:
    """difflib opcodes of base -> head lines; the common prefix and suffix are matched first (fast)."""
    import difflib  # only here: a change that only appends never aligns (``appended_only``)

    nb = len(nbase)
    prefix = 0
    limit = min(nb, len(nhead))
    while prefix < limit and nbase[prefix] == nhead[prefix]:
        prefix += 1
    suffix = 0
    while (suffix < nb - prefix and suffix < len(nhead) - prefix
           and nbase[nb - 1 - suffix] == nhead[len(nhead) - 1 - suffix]):
        suffix += 1
    matcher = difflib.SequenceMatcher(None, nbase[prefix:nb - suffix], nhead[prefix:len(nhead) - suffix])
    ops = [("equal", 0, prefix, 0, prefix)] if prefix else []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        ops.append((tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix))
    if suffix:
        ops.append(("equal", nb - suffix, nb, len(nhead) - suffix, len(nhead)))
    return ops


def compare_history(base: bytes, head: bytes, repo: str | None) -> History:
    base_lines, head_lines = split_lines(base), split_lines(head)
    nb = len(base_lines)
    if head.startswith(base):
        if base and not base.endswith(b"\n") and len(head) > len(base) and head[len(base)] != 0x0A:
            hist = History(nb, changed=[nb - 1, *range(nb, len(head_lines))])
            hist.problems.append((nb, F.HISTORY_EDITED_RULE, f"history line {nb} edited: "
                                  f"{show_edit(base_lines[-1], head_lines[nb - 1])}", HISTORY_HINT))
            return hist
        return History(nb, changed=list(range(nb, len(head_lines))))

    nbase, nhead = normalized(base_lines), normalized(head_lines)
    if nhead[:nb] == nbase:
        changed = [i for i in range(nb) if base_lines[i] != head_lines[i]]
        return History(nb, changed=changed + list(range(nb, len(head_lines))))

    # Something other than appending: align the lines to say exactly what.
    ops = _slide_to_entries(_aligned(nbase, nhead), nbase, nhead)
    hist = History(len(nhead))
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            hist.changed += [j1 + k for k in range(i2 - i1) if base_lines[i1 + k] != head_lines[j1 + k]]
            continue
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(paired):
            old, new = nbase[i1 + k], nhead[j1 + k]
            hist.changed.append(j1 + k)
            if correction_of(old, new, repo):
                hist.corrections.append((i1 + k + 1, j1 + k + 1))
            else:
                hist.problems.append((j1 + k + 1, F.HISTORY_EDITED_RULE,
                                      f"history line {i1 + k + 1} edited: {show_edit(old, new)}"
                                      + _elsewhere(i1 + k + 1, j1 + k + 1), HISTORY_HINT))
        if i1 + paired < i2:
            hist.problems.append(_deleted(nbase, i1 + paired + 1, i2, j1 + paired, len(nhead)))
        if j1 + paired < j2:
            a, b = j1 + paired, j2
            if i2 == nb and b == len(nhead):
                hist.append_start = a  # text after the whole history: appended
                hist.changed += list(range(a, b))
            else:
                hist.changed += list(range(a, b))
                hist.inserted.append((a, b))
                first, last = text_span(nhead, a, b)
                hist.problems.append((first, F.INSERTED_IN_HISTORY_RULE, f"{lines_named(first, last)} inserted "
                                      f"inside the history (after base line {i1 + paired})", INSERTED_HINT))
    _find_movable(hist, head_lines, base)
    return hist


def _find_movable(hist: History, lines: list[bytes], base: bytes) -> None:
    """Fill ``hist.movable``; where it is filled every problem is an insertion, and each is told the
    command that moves it."""
    if hist.inserted:
        hist.movable = whole_entries_inserted(hist, lines, base)
    if hist.movable:
        hist.problems = [(line, rule, message, MOVABLE_HINT) for line, rule, message, _ in hist.problems]


def whole_entries_inserted(hist: History, lines: list[bytes], base: bytes) -> list[tuple[int, int, bytes]] | None:
    """The blocks HEAD (``lines``) inserted inside the history, when that is all it did there and
    `sweepgate changelog rebase` can take them as the branch's own entries: each block starts (past
    empty lines) with a new entry and is followed by an entry, an empty line or the end, taking the
    blocks out leaves BASE byte for byte, and no line is a conflict marker (rebase refuses the file
    then). Each as (first head line, last head line, its text without empty lines around it), 1-based,
    in file order; None otherwise."""
    if not hist.inserted or hist.corrections or any(rule != F.INSERTED_IN_HISTORY_RULE
                                                    for _, rule, _, _ in hist.problems):
        return None
    if any(line.startswith(CONFLICT_MARKERS) for line in lines):
        return None
    inside = {i for a, b in hist.inserted for i in range(a, b)}
    kept = b"".join(line + b"\n" for i, line in enumerate(lines[:hist.append_start]) if i not in inside)
    if kept != base:
        return None
    blocks = []
    for a, b in hist.inserted:
        first, last = text_span(lines, a, b)
        if not lines[first - 1].strip() or not ENTRY_START.match(lines[first - 1]):
            return None  # empty lines alone, or lines that start no entry
        if b < len(lines) and lines[b].strip() and not ENTRY_START.match(lines[b]):
            return None  # the history line after it would read as part of the new entry
        blocks.append((first, last, b"\n".join(lines[first - 1:last]) + b"\n"))
    return blocks


def _deleted(nbase: list[bytes], a: int, b: int, after: int, head_total: int) -> tuple:
    """The problem of base lines a..b (1-based) deleted after head line ``after`` (0: the top),
    reported at the head line now where they were."""
    here = max(1, min(after + 1, head_total))
    what = f"history line {a} deleted: {_shown(nbase[a - 1])}" if a == b else \
        f"history lines {a}-{b} deleted, starting with {_first_shown(nbase[a - 1:b])}"
    if a != here:
        what += f" (they followed line {after} here)" if after else " (they were at the top)"
    return here, F.HISTORY_DELETED_RULE, what, HISTORY_HINT if a == b else HISTORY_HINT_LINES


def _shown(line: bytes) -> str:
    """A deleted line as a message quotes it; a blank one said so (``''`` reads as a quoting slip)."""
    return show(line) if line.strip() else "a blank line"


def _first_shown(lines: list[bytes]) -> str:
    """How a deleted block starts: its first line, and when that is blank, the first that is not
    (a deleted entry's block often starts at the blank line before it)."""
    text = next((line for line in lines if line.strip()), None)
    if lines[0].strip() or text is None:
        return _shown(lines[0]) if text is not None else "blank lines only"
    return f"a blank line, then {show(text)}"


def _elsewhere(base_line: int, head_line: int) -> str:
    """Problems are reported at the head's lines (the file the author edits, where an annotation
    lands); a history line keeps its base number, so say where it is when the two differ."""
    return "" if base_line == head_line else f" (now at line {head_line})"


def _slide_to_entries(ops: list[tuple], nbase: list[bytes], nhead: list[bytes]) -> list[tuple]:
    """Move each deleted or inserted block, where its lines allow, to start at an entry.

    Entries look alike ('- config-keys:' ... ''), so a deleted entry can equally be
    lines 1-6 or 2-7; readers expect the block that starts with '- '.
    """
    ops = [list(op) for op in ops]
    for k, op in enumerate(ops):
        tag = op[0]
        if tag not in ("delete", "insert") or (tag == "insert" and op[1] == len(nbase)):
            continue  # an insert after the whole history is an append: leave it where it is
        seq, lo, hi = (nbase, op[1], op[2]) if tag == "delete" else (nhead, op[3], op[4])
        side = 1 if tag == "delete" else 3
        prev = ops[k - 1] if k > 0 and ops[k - 1][0] == "equal" else None
        nxt = ops[k + 1] if k + 1 < len(ops) and ops[k + 1][0] == "equal" else None
        up = 0
        while prev and lo - up - 1 >= prev[side] and seq[lo - up - 1] == seq[hi - up - 1]:
            up += 1
        down = 0
        while nxt and hi + down < nxt[side + 1] and seq[lo + down] == seq[hi + down]:
            down += 1
        shifts = sorted(range(-up, down + 1), key=abs)
        best = next((d for d in shifts if ENTRY_START.match(seq[lo + d])), 0)
        if best:
            for i in range(1, 5):
                op[i] += best
            if prev:
                prev[2] += best
                prev[4] += best
            if nxt:
                nxt[1] += best
                nxt[3] += best
    return [tuple(op) for op in ops]


def base_moved(git, base_ref: str, base_sha: str, head_commit: str, head_ref: str = "HEAD") -> tuple[str, str] | None:
    """(message, hint) when BASE holds commits HEAD is not based on (the branch is behind it), so
    that the entries BASE gained after the branch left it read as edits of history; None when HEAD
    descends from BASE. Said by the gate and by the matrix step, which refuse such a change alike.
    ``head_ref``: the head as the command was given it, for the merge-base the hint names."""
    if git.is_ancestor(base_sha, head_commit):
        return None
    if git.shallow:  # a cut history hides the ancestry: say the edits may be the base's, and how to tell
        return (f"this clone is shallow, so whether {base_ref} gained entries after this change left it cannot "
                "be told: if it did, they read as edits here",
                "fetch the whole history (actions/checkout with fetch-depth: 0, or git fetch --unshallow) and "
                "rerun; then rebase onto it (sweepgate changelog rebase) if it moved")
    return (f"{base_ref} has commits this change is not based on: changelog entries it gained after the "
            "branch left it read as edits here",
            f"bring the branch up to date (git rebase {base_ref}; where the changelog conflicts, sweepgate "
            f"changelog rebase --onto {base_ref} --branch REBASE_HEAD), or pass "
            f"--base-ref $(git merge-base {base_ref} {head_ref})")


CHANGELOG_PATH_FIX = ("check --changelog-file: a path from the current folder or the repository's top, such as "
                      f"{F.CHANGELOG_FILE}")


def missing_changelog(git, base_sha: str, path: str, where: str) -> tuple[str, str]:
    """(message, hint) for a changelog that is no file ``where`` (the head: 'at SHA', 'in the working
    tree'): deleted when BASE has it (restore it), else a wrong path (never there, nothing deleted).
    Said by the gate and by the matrix step alike."""
    if path and git.read_blobs(base_sha, [path])[path] is not None:
        return f"does not exist {where}", "restore the changelog; it is append-only"
    if not path:
        return "--changelog-file is empty", CHANGELOG_PATH_FIX
    if path == F.CHANGELOG_FILE:  # the default, never there: a repository that keeps no changelog (yet)
        return no_changelog(git.root, where)
    return f"not a file at the base or {where}", CHANGELOG_PATH_FIX


def no_changelog(root: str, where: str) -> tuple[str, str]:
    """(message, hint) for a repository with no perf-changelog.yaml at the base nor ``where``: the file named
    from the current folder, and the command that makes it (or the flag that names one kept elsewhere)."""
    from sweepgate.core.repopaths import from_here

    here = from_here(root, F.CHANGELOG_FILE)
    said = "" if here == F.CHANGELOG_FILE else f" ({here} from here)"
    return (f"no such file{said} at the base or {where}: the repository has no perf changelog",
            f"create it with `sweepgate changelog add --key KEY --description TEXT`, which writes {here} with "
            "this change's entry, and commit it; or pass --changelog-file with the path of your changelog")
