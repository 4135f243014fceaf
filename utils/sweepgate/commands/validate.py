"""`sweepgate validate` / utils/validate_perf_changelog.py: the perf-changelog gate.

The gate compares the changelog at BASE with the changelog at HEAD (or in the
working tree, with ``--staged``) byte for byte and reports every problem as
``perf-changelog.yaml:LINE: what; how to fix``:

1. file rules on the text the change touches: UTF-8 without BOM, no CR, tab,
   NUL or other control characters, no merge-conflict markers, exactly one
   final newline;
2. history rules: BASE's bytes are a prefix of HEAD's (pr-link corrections to
   the canonical URL are the one allowed edit, and only on their own), new
   entries only at the end, each preceded by exactly one empty line;
3. entry rules on the appended text: no anchors, aliases, tags, merge keys or
   duplicate keys (events are scanned, nothing is constructed, so an alias bomb
   costs nothing), the JSON schema, and the pr-link of the right repository
   and pull request;
4. the matrix step (`select.build_matrix`), so anything `process_changelog.py`
   would refuse is refused here too.

Lines are HEAD's for text a change adds and BASE's for text it deletes or edits.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError, emit

WORKTREE = "WORKTREE"
MAX_PER_RULE = 20
BOM = b"\xef\xbb\xbf"
CONFLICT_MARKERS = (b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||")
PR_URL = re.compile(r"^https://github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/pull/([^/\s]+)$")
PR_LINK_LINE = re.compile(rb"^(\s*(?:-\s+)?pr-link:[ ]*)(.*?)[ ]*$")
REPO_IN_TEXT = re.compile(rb"https://github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pull/")
REPO_ARG = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
ENTRY_START = re.compile(rb"^-( |$)")
# C0 controls except tab/LF/CR (reported on their own), DEL, C1 NEL and the Unicode
# line/paragraph separators: YAML and `str.splitlines` disagree about them.
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x85\u2028\u2029\ufeff]")
PLACEHOLDER = "XXX"


# --------------------------------------------------------------------------- options and outcome

@dataclass
class GateOptions:
    changelog: str = F.CHANGELOG_FILE
    pr_number: int | None = None
    repository: str | None = None
    all_evals: bool = False
    evals_only: bool = False
    worktree: bool = False  # HEAD is the working-tree file (pre-commit)
    run_matrix: bool = True


@dataclass
class Outcome:
    """What the gate found. ``matrix`` holds the matrix step's diagnostics, kept apart for reports."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    matrix: list[Diagnostic] = field(default_factory=list)
    repository: str | None = None
    appended_entries: int = 0
    corrections: int = 0
    matrix_ran: bool = False

    changelog: str = F.CHANGELOG_FILE

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.all())

    def all(self) -> list[Diagnostic]:
        """Gate and matrix-step diagnostics, changelog first, in line order, without duplicates."""
        seen = {(d.file, d.line, d.message) for d in self.diagnostics}
        extra = [d for d in self.matrix if (d.file, d.line, d.message) not in seen]
        mine = [d for d in extra if d.file == self.changelog]
        others = sorted((d for d in extra if d.file != self.changelog), key=lambda d: (d.file, d.line, d.col))
        return self.diagnostics + sorted(mine, key=lambda d: (d.line, d.col)) + others


class Collector:
    """Diagnostics for one file, at most MAX_PER_RULE per rule plus a summary line."""

    def __init__(self, path: str):
        self.path = path
        self.items: list[Diagnostic] = []
        self.counts: collections.Counter = collections.Counter()
        self.first_over: dict[str, int] = {}

    def add(self, line: int, rule: str, message: str, hint: str = "", col: int = 0) -> None:
        self.counts[rule] += 1
        if self.counts[rule] <= MAX_PER_RULE:
            self.items.append(Diagnostic(self.path, line, col, rule, message, hint))
        else:
            self.first_over.setdefault(rule, line)

    def extend(self, diags) -> None:
        for d in diags:
            self.add(d.line, d.rule, d.message, d.hint, d.col)

    def done(self) -> list[Diagnostic]:
        out = sorted(self.items, key=lambda d: (d.line, d.col))
        for rule, line in self.first_over.items():
            more = self.counts[rule] - MAX_PER_RULE
            out.append(Diagnostic(self.path, line, 0, rule, f"{more} more '{rule}' problem(s) from here on",
                                  "fix the ones above, then rerun the gate"))
        return out

    def has(self, *rules: str) -> bool:
        return any(self.counts[r] for r in rules)


# --------------------------------------------------------------------------- repository and pr-links

def resolve_repository(explicit: str | None, history: bytes) -> str | None:
    """--repository, then GITHUB_REPOSITORY, then the repository most pr-links point to."""
    for candidate in (explicit, os.environ.get("GITHUB_REPOSITORY")):
        if candidate:
            candidate = candidate.strip()
            if not REPO_ARG.fullmatch(candidate):
                raise SweepgateError(Diagnostic("--repository", 0, 0, "usage",
                                                f"repository '{candidate}' is not OWNER/NAME",
                                                "pass e.g. --repository SemiAnalysisAI/InferenceX"))
            return candidate
    counts = collections.Counter(m.group(1).decode() for m in REPO_IN_TEXT.finditer(history))
    return counts.most_common(1)[0][0] if counts else None


def canonical_link(repo: str, number: int | str) -> str:
    return f"https://github.com/{repo}/pull/{number}"


def pr_link_problem(link, repo: str | None, pr_number: int | None,
                    allow_placeholder: bool) -> tuple[str, str] | None:
    """(message, hint) when an appended entry's pr-link is not acceptable."""
    example = canonical_link(repo or "OWNER/NAME", pr_number or "N")
    if not isinstance(link, str):
        return None  # the schema reports the type
    m = PR_URL.match(link)
    if not m:
        return (f"pr-link '{link}' is not a canonical GitHub pull-request URL", f"use {example}")
    owner_name, number = f"{m.group(1)}/{m.group(2)}", m.group(3)
    if repo and owner_name != repo:
        return (f"pr-link points to {owner_name}, not to this repository ({repo})", f"use {example}")
    if number == PLACEHOLDER:
        if allow_placeholder:
            return None
        return ("pr-link still has the XXX placeholder",
                "replace XXX with the merged PR's number (sweepgate changelog canonicalize --pr-number N)")
    if not re.fullmatch(r"[1-9][0-9]*", number):
        return (f"pr-link number '{number}' is not a pull-request number", f"use {example}")
    if pr_number is not None and int(number) != pr_number:
        return (f"pr-link points to PR #{number}, but this is PR #{pr_number}",
                f"use {canonical_link(repo or owner_name, pr_number)} (or .../pull/XXX)")
    return None


def correction_of(old: bytes, new: bytes, repo: str | None) -> bool:
    """True when ``new`` only rewrites ``old``'s pr-link value to a canonical URL of ``repo``."""
    mo, mn = PR_LINK_LINE.match(old), PR_LINK_LINE.match(new)
    if not (mo and mn) or mo.group(1) != mn.group(1):
        return False
    try:
        value = mn.group(2).decode("ascii")
    except UnicodeDecodeError:
        return False
    m = PR_URL.match(value)
    if not m or not re.fullmatch(r"[1-9][0-9]*", m.group(3)) or value.encode() == mo.group(2):
        return False
    return repo is None or f"{m.group(1)}/{m.group(2)}" == repo


# --------------------------------------------------------------------------- bytes -> lines

def split_lines(data: bytes) -> list[bytes]:
    """Lines without their '\\n'; a final '\\n' does not start another line."""
    if not data:
        return []
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def _normalized(lines: list[bytes]) -> list[bytes]:
    out = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    if out and out[0].startswith(BOM):
        out[0] = out[0][len(BOM):]
    return out


def _show(line: bytes, limit: int = 70) -> str:
    text = line.decode("utf-8", "replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")


@dataclass
class History:
    """How HEAD's lines relate to BASE's."""

    append_start: int  # 0-based index of HEAD's first line after the history
    changed: list[int] = field(default_factory=list)  # HEAD line indexes whose bytes are new
    corrections: list[tuple[int, int]] = field(default_factory=list)  # (base line, head line), 1-based
    problems: list[tuple[int, str, str, str]] = field(default_factory=list)  # (line, rule, message, hint)


HISTORY_HINT = "restore it byte for byte; the changelog is append-only (add a new entry at the end instead)"


def compare_history(base: bytes, head: bytes, repo: str | None) -> History:
    base_lines, head_lines = split_lines(base), split_lines(head)
    nb = len(base_lines)
    if head.startswith(base):
        if base and not base.endswith(b"\n") and len(head) > len(base) and head[len(base)] != 0x0A:
            hist = History(nb, changed=[nb - 1, *range(nb, len(head_lines))])
            hist.problems.append((nb, "history-edited", f"history line {nb} edited: {_show(base_lines[-1])} "
                                  f"became {_show(head_lines[nb - 1])}", HISTORY_HINT))
            return hist
        return History(nb, changed=list(range(nb, len(head_lines))))

    nbase, nhead = _normalized(base_lines), _normalized(head_lines)
    if nhead[:nb] == nbase:
        changed = [i for i in range(nb) if base_lines[i] != head_lines[i]]
        return History(nb, changed=changed + list(range(nb, len(head_lines))))

    # Something other than appending: align the lines to say exactly what.
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
    ops = _slide_to_entries(ops, nbase, nhead)

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
                hist.problems.append((i1 + k + 1, "history-edited",
                                      f"history line {i1 + k + 1} edited: {_show(old)} became {_show(new)} "
                                      f"(head line {j1 + k + 1})", HISTORY_HINT))
        if i1 + paired < i2:
            a, b = i1 + paired + 1, i2
            what = f"history line {a} deleted: {_show(nbase[a - 1])}" if a == b else \
                f"history lines {a}-{b} deleted, starting with {_show(nbase[a - 1])}"
            hist.problems.append((a, "history-deleted", what, HISTORY_HINT))
        if j1 + paired < j2:
            a, b = j1 + paired, j2
            if i2 == nb and b == len(nhead):
                hist.append_start = a  # text after the whole history: appended
                hist.changed += list(range(a, b))
            else:
                hist.changed += list(range(a, b))
                span = f"line {a + 1}" if a + 1 == b else f"lines {a + 1}-{b}"
                hist.problems.append((a + 1, "inserted-in-history",
                                      f"{span} inserted inside the history (after base line {i1 + paired})",
                                      "new entries go at the end of the file, after one empty line"))
    return hist


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


# --------------------------------------------------------------------------- rule groups

def file_rules(out: Collector, base: bytes, head: bytes, head_lines: list[bytes], hist: History) -> None:
    """Encoding and character rules on every line the change touches, plus the final newline."""
    for i in sorted(set(hist.changed)):
        line, n = head_lines[i], i + 1
        if i == 0 and line.startswith(BOM):
            out.add(1, "bom", "file starts with a UTF-8 byte-order mark", "save the file as UTF-8 without BOM")
            line = line[len(BOM):]
        if line.startswith(CONFLICT_MARKERS):
            out.add(n, "conflict-marker", f"merge-conflict marker {_show(line[:7])}",
                    "resolve the conflict (sweepgate changelog rebase --onto origin/main rebuilds the file)")
        if b"\r" in line:
            out.add(n, "crlf", "carriage return (CRLF line ending)",
                    "use LF line endings (dos2unix perf-changelog.yaml)", col=line.index(b"\r") + 1)
        if b"\t" in line:
            out.add(n, "tab", "tab character", "indent with spaces", col=line.index(b"\t") + 1)
        if b"\0" in line:
            out.add(n, "nul", "NUL byte", "remove it; the changelog is text", col=line.index(b"\0") + 1)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.add(n, "encoding", f"not valid UTF-8 (byte 0x{line[exc.start]:02x})", "save the file as UTF-8",
                    col=exc.start + 1)
            continue
        m = CONTROL.search(text.replace("\0", ""))
        if m:
            out.add(n, "control-character", f"control character U+{ord(m.group()):04X}", "remove it",
                    col=len(text[:m.start()].encode()) + 1)

    trailing = len(head) - len(head.rstrip(b"\n"))
    base_trailing = len(base) - len(base.rstrip(b"\n"))
    appended = hist.append_start < len(head_lines)
    if head and (appended or trailing != base_trailing) and trailing != 1:
        if trailing == 0:
            out.add(len(head_lines), "final-newline", "file does not end with a newline",
                    "add one newline at the end of the file")
        else:
            first_empty = len(head_lines) - (trailing - 1) + 1
            out.add(first_empty, "final-newline", f"file ends with {trailing} newlines (empty last line)",
                    "end the file with exactly one newline")


def separator_rules(out: Collector, head_lines: list[bytes], start: int) -> list[int]:
    """Entries start at column 0 with '- ', after exactly one empty line. Returns entry-start indexes."""
    nhead = _normalized(head_lines)
    starts: list[int] = []
    last_text = start - 1
    while last_text >= 0 and not nhead[last_text].strip():
        last_text -= 1
    end = len(nhead)
    while end > start and not nhead[end - 1].strip():
        end -= 1
    for i in range(max(start, end), len(nhead)):
        if nhead[i]:
            out.add(i + 1, "whitespace-line", "line holds only whitespace",
                    "delete it; the file ends after the last entry")
    blanks: list[int] = list(range(last_text + 1, start))
    first = True
    for i in range(start, end):
        line = nhead[i]
        if not line.strip():
            if line:
                out.add(i + 1, "whitespace-line", "line holds only whitespace", "make it empty")
            blanks.append(i)
            continue
        if ENTRY_START.match(line):
            starts.append(i)
            if last_text < 0:
                if blanks:
                    out.add(blanks[0] + 1, "separator", "file starts with empty lines", "delete them")
            elif not blanks:
                out.add(i + 1, "separator", f"no empty line between this entry and line {last_text + 1}",
                        "put exactly one empty line before each entry")
            elif len(blanks) > 1:
                extra = [b for b in blanks[1:] if b >= start] or [i]
                out.add(extra[0] + 1, "separator", f"{len(blanks)} empty lines between entries",
                        "keep exactly one empty line between entries")
        elif first:
            if last_text >= 0:
                out.add(i + 1, "not-an-entry",
                        f"appended text does not start a new entry; it continues the entry ending at "
                        f"line {last_text + 1}",
                        "start a new entry with '- config-keys:' after one empty line; never extend history")
            else:
                out.add(i + 1, "not-an-entry", "the changelog must be a list of entries",
                        "start each entry with '- config-keys:' at column 1")
        elif blanks:
            out.add(blanks[0] + 1, "separator", "empty line inside an entry",
                    "remove it; empty lines only separate entries")
        first = False
        blanks = []
        last_text = i
    return starts


# --------------------------------------------------------------------------- the gate

def read_changelog(git, base_sha: str, head: str, opts: GateOptions) -> tuple[bytes, bytes]:
    path = opts.changelog
    wanted = [path]
    base = git.read_blobs(base_sha, wanted)[path] or b""
    if opts.worktree:
        try:
            head_bytes = (Path(git.root) / path).read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            head_bytes = None
    else:
        head_bytes = git.read_blobs(head, wanted)[path]
    if head_bytes is None:
        where = "in the working tree" if opts.worktree else f"at {head}"
        raise SweepgateError(Diagnostic(path, 0, 0, "missing-file", f"{path} does not exist {where}",
                                        "restore the changelog; it is append-only"))
    return base, head_bytes


def validate(git, base_ref: str, head_ref: str | None, opts: GateOptions) -> Outcome:
    """Every problem with the changelog change base_ref -> head_ref (or the working tree)."""
    from sweepgate.core.select import Appended, AppendedDoc, parse_appended

    base_sha = git.resolve(base_ref)
    head_sha = WORKTREE if opts.worktree else git.resolve(head_ref)
    base, head = read_changelog(git, base_sha, head_sha, opts)
    repo = resolve_repository(opts.repository, base or head)
    outcome = Outcome(repository=repo, changelog=opts.changelog)
    out = Collector(opts.changelog)

    head_lines = split_lines(head)
    hist = compare_history(base, head, repo)
    for line, rule, message, hint in hist.problems:
        out.add(line, rule, message, hint)
    file_rules(out, base, head, head_lines, hist)
    separator_rules(out, head_lines, hist.append_start)
    appended_idx = list(range(hist.append_start, len(head_lines)))
    has_append = any(head_lines[i].strip() for i in appended_idx)
    outcome.corrections = len(hist.corrections)
    if hist.corrections and has_append:
        for base_line, _ in hist.corrections:
            out.add(base_line, "correction-mixed",
                    f"pr-link correction of history line {base_line} is mixed with appended entries",
                    "submit pr-link corrections in their own PR, without new entries")

    file_level = out.has("bom", "conflict-marker", "crlf", "tab", "nul", "encoding", "control-character")
    history_ok = not out.has("history-edited", "history-deleted", "inserted-in-history")
    if not has_append or file_level:
        outcome.diagnostics = out.done()
        return outcome

    # Entries: strict YAML (events only, nothing constructed before the checks pass) and the schema.
    appended = Appended(opts.changelog)
    appended.lines = [head_lines[i].decode("utf-8") for i in appended_idx]
    appended.head_lines = [i + 1 for i in appended_idx]
    doc = entries = None
    try:
        doc, entries = parse_appended(appended)
    except SweepgateError as exc:
        out.extend(exc.diagnostics)
        structural = [d for d in exc.diagnostics if not d.rule.startswith("schema-")]
        if not structural:
            from sweepgate.core.load import parse_yaml
            data = parse_yaml(appended.text, opts.changelog)
            doc, entries = AppendedDoc(appended, data), data if isinstance(data, list) else None
    if entries:
        outcome.appended_entries = len(entries)
        allow_placeholder = opts.pr_number is not None or opts.worktree
        for i, entry in enumerate(entries):
            if isinstance(entry, dict) and F.PR_LINK in entry:
                problem = pr_link_problem(entry[F.PR_LINK], repo, opts.pr_number, allow_placeholder)
                if problem:
                    line, col = doc.locate((i, F.PR_LINK))
                    out.add(line, "pr-link", *problem, col=col)
    outcome.diagnostics = out.done()

    if entries is None or not opts.run_matrix:
        return outcome
    outcome.matrix_ran = True
    try:
        if out.has("schema-changelog", "append-only-mixed") or not history_ok or hist.corrections:
            # build_matrix would stop at (or repeat) these; still name every unknown key.
            outcome.matrix = _check_keys(git, head_sha, doc, entries, opts)
        else:
            _matrix_step(git, base_ref, base_sha, head_ref, doc, entries, opts)
    except SweepgateError as exc:
        outcome.matrix = exc.diagnostics
    return outcome


def _head_revision(git, head_sha: str, opts: GateOptions):
    from sweepgate.core.load import load_revision
    return load_revision(git, head_sha, worktree=opts.worktree)


def _matrix_step(git, base_ref, base_sha, head_ref, doc, entries, opts: GateOptions) -> dict:
    from sweepgate.core.select import Options, build_matrix, plan_entries

    options = Options(all_evals=opts.all_evals, evals_only=opts.evals_only, changelog=opts.changelog)
    if not opts.worktree:
        return build_matrix(git, base_ref, head_ref, options)
    rev = _head_revision(git, WORKTREE, opts)
    return plan_entries(git, base_sha, WORKTREE, doc, entries, options, base_label=base_ref,
                        head_label="working tree", head_rev=rev)


def _check_keys(git, head_sha, doc, entries, opts: GateOptions) -> list[Diagnostic]:
    """Config keys of entries the schema refused, so the author sees every problem at once."""
    from sweepgate.core.check import check_revision
    from sweepgate.core.select import resolve_keys

    rev = _head_revision(git, head_sha, opts)
    check_revision(rev)
    diags = []
    for i, entry in enumerate(entries):
        keys = entry.get(F.CONFIG_KEYS) if isinstance(entry, dict) else None
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            diags += resolve_keys(doc, i, keys, rev.configs)[1]
    return diags


# --------------------------------------------------------------------------- command line

def _pr_number(text: str) -> int | None:
    text = text.strip().lstrip("#")
    if not text:
        return None  # e.g. `${{ github.event.pull_request.number }}` on a push
    if not re.fullmatch(r"[1-9][0-9]*", text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a pull-request number")
    return int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-ref", help="revision the change starts from (with --staged: default is the "
                                           "merge-base of HEAD with origin/main or main, else HEAD)")
    parser.add_argument("--head-ref", help="revision with the appended entries (required unless --staged)")
    parser.add_argument("--changelog-file", default=F.CHANGELOG_FILE)
    parser.add_argument("--pr-number", type=_pr_number, default=None,
                        help="the pull request: its pr-link (or .../pull/XXX) is required; "
                             "without it (push to main) links must be canonical")
    parser.add_argument("--repository", default=None,
                        help="OWNER/NAME for pr-links (default: $GITHUB_REPOSITORY, else the repository "
                             "most existing pr-links point to)")
    parser.add_argument("--all-evals", action="store_true", help="as process_changelog.py --all-evals")
    parser.add_argument("--evals-only", action="store_true", help="as process_changelog.py --evals-only")
    parser.add_argument("--staged", "--worktree", dest="staged", action="store_true",
                        help="validate the working-tree changelog (what pre-commit is about to commit); "
                             "pr-links may keep the XXX placeholder")


def default_staged_base(git) -> str:
    for upstream in ("origin/main", "main", "origin/master", "master"):
        if git.run("rev-parse", "--verify", "--quiet", f"{upstream}^{{commit}}", check=False).strip():
            mb = git.run("merge-base", "HEAD", upstream, check=False).decode().strip()
            if mb:
                return mb
    return "HEAD"


def run(args) -> int:
    from sweepgate.core.load import Git

    git = Git(".")
    if args.staged:
        if args.head_ref:
            raise SweepgateError(Diagnostic("--head-ref", 0, 0, "usage", "--staged validates the working tree",
                                            "drop --head-ref, or drop --staged"))
        base = args.base_ref or default_staged_base(git)
    else:
        if not args.base_ref or not args.head_ref:
            raise SweepgateError(Diagnostic("sweepgate validate", 0, 0, "usage",
                                            "--base-ref and --head-ref are required",
                                            "pass both, or --staged to check the working tree"))
        base = args.base_ref
    opts = GateOptions(changelog=args.changelog_file, pr_number=args.pr_number, repository=args.repository,
                       all_evals=args.all_evals, evals_only=args.evals_only, worktree=args.staged)
    outcome = validate(git, base, args.head_ref, opts)
    problems = outcome.all()
    if problems:
        emit(problems)
        n = len(problems)
        print(f"{opts.changelog}: {n} problem{'s' if n != 1 else ''}; fix them and rerun", file=sys.stderr)
        return 1
    if outcome.appended_entries:
        what = f"{outcome.appended_entries} appended entr{'ies' if outcome.appended_entries != 1 else 'y'}"
    elif outcome.corrections:
        what = f"{outcome.corrections} pr-link correction(s), nothing to run"
    else:
        what = "unchanged, nothing to validate"
    print(f"{opts.changelog}: ok ({what})")
    return 0
