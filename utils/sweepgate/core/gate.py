"""The perf-changelog gate: every problem with a changelog change, as diagnostics.

The changelog at BASE and at HEAD (or in the working tree) are compared byte for
byte (``core.history``; a pure append splits only the appended lines and the end of
the history, with the same diagnostics; the copied-entry check searches the history once for each
appended entry's text) and every problem is reported as
``perf-changelog.yaml:LINE: what; how to fix``:

1. file rules on the text the change touches: UTF-8 without BOM, no CR, tab,
   NUL or other control characters, no merge-conflict markers, exactly one
   final newline;
2. history rules: BASE's bytes are a prefix of HEAD's (pr-link corrections to
   the canonical URL are the one allowed edit, and only on their own), new
   entries only at the end, each preceded by exactly one empty line;
3. entry rules on the appended text: the loader's YAML hygiene (no anchors,
   aliases, tags, merge keys or duplicate keys; events are scanned, nothing is
   constructed, so an alias bomb costs nothing), the JSON schema, and the
   pr-link of the right repository and pull request (``core.prlinks``);
4. the matrix step (`select.build_matrix`), so anything `process_changelog.py`
   would refuse is refused here too.

Lines are HEAD's for text a change adds and BASE's for text it deletes or edits.
"""

from __future__ import annotations

import functools
import re
import shlex

from sweepgate.core import fields as F
from sweepgate.core.collector import Collector
from sweepgate.core.errors import Diagnostic, SweepgateError
from sweepgate.core.history import (
    base_moved,
    BOM,
    CONFLICT_FIX,
    CONFLICT_MARKERS,
    ENTRY_START,
    HeadLines,
    History,
    appended_only,
    conflict_problems,
    conflicts,
    compare_history,
    missing_changelog,
    mixed_corrections,
    split_lines,
    text_span,
    trailing_newlines,
)
from sweepgate.core.load import at_value
from sweepgate.core.prlinks import PLACEHOLDER, PR_LINK, canonical_link, pr_link_problem, resolve_repository
from sweepgate.core.textmode import not_valid_utf8, save_as_utf8, wide_encoding, wide_refusal


WORKTREE = "WORKTREE"
NOT_AN_ENTRY_RULE = "not-an-entry"  # the title of a changelog, or an item of it, that is no entry
SEPARATOR_RULE = "separator"  # the title of empty lines missing, extra or misplaced between entries
BOM_RULE = "bom"  # the title of a byte-order mark
CONTROL_RULE = "control-character"  # the title of a control character
CRLF_RULE = "crlf"  # the title of a CRLF line ending
NUL_RULE = "nul"  # the title of a NUL byte
FINAL_NEWLINE_RULE = "final-newline"  # the title of a last line without its newline, or blank lines after it
REPEATED_KEY_RULE = "repeated-config-key"  # the title of a config key named twice in one entry
WHITESPACE_LINE_RULE = "whitespace-line"  # the title of a line of whitespace only
NEWLINE = b"\n"
COPIED_ENTRY_RULE = "copied-entry"  # the title of an appended entry byte for byte one the file holds already
# C0 controls except tab/LF/CR (reported on their own), DEL, C1 NEL and the Unicode
# line/paragraph separators: YAML and `str.splitlines` disagree about them.
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x85\u2028\u2029\ufeff]")
# Invisible bidirectional controls (embeddings, overrides, isolates, marks): a reviewer reads the
# text reordered ("Trojan Source"), not as it is stored.
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# GateOptions, Outcome (and history's History, HeadLines) are plain classes, not dataclasses: the
# dataclasses module imports inspect (with ast, dis and tokenize): about 45M instructions, an eighth of a
# warm gate run.
class GateOptions:
    def __init__(self, changelog: str = F.CHANGELOG_FILE, pr_number: int | None = None,
                 repository: str | None = None, all_evals: bool = False, evals_only: bool = False,
                 worktree: bool = False, run_matrix: bool = True) -> None:
        self.changelog, self.pr_number, self.repository = changelog, pr_number, repository
        self.all_evals, self.evals_only, self.run_matrix = all_evals, evals_only, run_matrix
        self.worktree = worktree  # HEAD is the working-tree file (pre-commit)


class Outcome:
    """What the gate found. ``matrix`` holds the matrix step's diagnostics, kept apart for reports."""

    def __init__(self, repository: str | None = None, changelog: str = F.CHANGELOG_FILE) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.matrix: list[Diagnostic] = []
        self.repository = repository
        self.appended_entries = 0
        self.corrections: list[tuple[int, int]] = []  # pr-link corrections: (base line, head line)
        self.matrix_ran = False
        self.inputs: list[str] = []  # master configs / runners file the change edits
        self.configs: list[Diagnostic] = []  # their problems (``core.configgate``)
        self.notes: list[Diagnostic] = []  # warnings that pass (never in ``all``)
        # those of ``all`` that BASE has too (``configgate.also_on_base``); None: BASE was not asked
        self.on_base: list[Diagnostic] | None = None
        self.changelog = changelog

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.all())

    def all(self) -> list[Diagnostic]:
        """Gate and matrix-step diagnostics, changelog first, in line order, without duplicates."""
        seen = {(d.file, d.line, d.message) for d in self.diagnostics}
        extra = []
        for d in self.matrix + self.configs:
            if (d.file, d.line, d.message) not in seen:
                seen.add((d.file, d.line, d.message))
                extra.append(d)
        mine = [d for d in extra if d.file == self.changelog]
        others = sorted((d for d in extra if d.file != self.changelog), key=lambda d: (d.file, d.line, d.col))
        return self.diagnostics + sorted(mine, key=lambda d: (d.line, d.col)) + others


def crlf_summary(path: str) -> tuple[str, str, str]:
    """How the summary of CRLF lines past the cap says them (``Collector.add``'s ``more``): in words, with the fix
    of every line at once (walker s43: "4746 more 'crlf' problem(s)"; fix the ones above, then rerun the gate).
    ``path``: the changelog from the current folder, as a fix's command is run (``file_rules``' ``here``)."""
    quoted = shlex.quote(path)
    return ("line ends in CRLF", "lines end in CRLF",
            f"convert every line at once: dos2unix {quoted}, or sed -i 's/\\r$//' {quoted}")


def _crlf(out: Collector, n: int, line: bytes, path: str) -> None:
    """Line ``n``'s carriage return, its fix naming the changelog as ``path`` (from the current folder)."""
    out.add(n, CRLF_RULE, "carriage return (CRLF line ending)", f"use LF line endings (dos2unix {shlex.quote(path)})",
            col=line.index(b"\r") + 1, more=crlf_summary(path))


def file_rules(out: Collector, base: bytes, head: bytes, head_lines: HeadLines, hist: History,
               conflict_fix=None, here=None) -> None:
    """Encoding and character rules on every line the change touches, plus the final newline.
    ``conflict_fix``: called (once) for the fix of conflict markers, when there are any; else CONFLICT_FIX.
    ``here``: called for the changelog from the current folder, which a fix's command names (s45c: in
    benchmarks/ the fix said `dos2unix perf-changelog.yaml`, no file there); else ``out.path``."""
    lines, offset = head_lines.lines, head_lines.offset
    changed = sorted(set(hist.changed))
    fix = None
    for n, message in conflict_problems(((i + 1, lines[i - offset]) for i in changed), "the changelog"):
        fix = fix or (conflict_fix() if conflict_fix else CONFLICT_FIX)
        out.add(n, F.CONFLICT_MARKER_RULE, message, fix)
    for i in changed:
        line, n = lines[i - offset], i + 1
        if i == 0 and line.startswith(BOM):
            out.add(1, BOM_RULE, "file starts with a UTF-8 byte-order mark", "save the file as UTF-8 without BOM")
            line = line[len(BOM):]
        if b"\r" in line:
            _crlf(out, n, line, here() if here else out.path)
        if b"\t" in line:
            col = line.index(b"\t") + 1
            indent = not line[:col - 1].strip(b" ")  # a tab among the leading blanks, else inside the text
            out.add(n, F.TAB_RULE, "tab character" + ("" if indent else " inside the text"),
                    "indent with spaces" if indent else "replace it with a space", col=col)
        if b"\0" in line:
            out.add(n, NUL_RULE, "NUL byte", "remove it; the changelog is text", col=line.index(b"\0") + 1)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.add(n, F.ENCODING_RULE, not_valid_utf8(line[exc.start]), save_as_utf8(),
                    col=exc.start + 1)
            continue
        m = CONTROL.search(text.replace("\0", ""))
        if m:
            out.add(n, CONTROL_RULE, f"control character U+{ord(m.group()):04X}", "remove it",
                    col=len(text[:m.start()].encode()) + 1)
        if m := BIDI.search(text):
            out.add(n, "bidi-control", f"invisible bidirectional control character U+{ord(m.group()):04X} (the "
                    "line displays reordered, not as it is stored)", "remove it", col=len(text[:m.start()].encode()) + 1)

    trailing, base_trailing = trailing_newlines(head), trailing_newlines(base)
    appended = hist.append_start < head_lines.total
    if head and (appended or trailing != base_trailing) and trailing != 1:
        if trailing == 0:
            out.add(head_lines.total, FINAL_NEWLINE_RULE, "file does not end with a newline",
                    "add one newline at the end of the file")
        else:
            first_empty = head_lines.total - (trailing - 1) + 1
            out.add(first_empty, FINAL_NEWLINE_RULE, f"file ends with {trailing} newlines (empty last line)",
                    "end the file with exactly one newline")


def _trailing_whitespace(out: Collector, nhead: HeadLines, first: int) -> None:
    """Whitespace-only lines after the last entry (from index ``first`` on)."""
    for i in range(first, len(nhead)):
        if nhead[i]:
            out.add(i + 1, WHITESPACE_LINE_RULE, "line holds only whitespace",
                    "delete it; the file ends after the last entry")


def _entry_separator(out: Collector, i: int, last_text: int, blanks: list[int], start: int,
                     after_header: bool = False, above: bytes = b"") -> None:
    """The empty lines before the entry starting at index ``i``: exactly one, none at the file's start;
    none or one right under the file's header (``after_header``: comment lines, nothing else, above it).
    ``above``: the line at ``last_text``; a comment at column 1 there ends a header committed before any
    entry, which is history: the first entry appended under it follows one empty line as any other."""
    if last_text < 0:
        if blanks:
            out.add(blanks[0] + 1, SEPARATOR_RULE, "file starts with empty lines", "delete them")
    elif after_header:
        if len(blanks) > 1:
            out.add(blanks[1] + 1, SEPARATOR_RULE, f"{len(blanks)} empty lines between the header and the first "
                    "entry", "keep at most one")
    elif not blanks:
        if above.startswith(b"#"):
            what = f"the header's last line ({last_text + 1})"
            why = "once committed, the header is history, and an appended entry follows exactly one empty line"
        else:
            what, why = f"line {last_text + 1}", "exactly one empty line goes before each entry"
        out.add(i + 1, SEPARATOR_RULE, f"no empty line between this entry and {what}",
                f"insert one empty line above line {i + 1}: {why}")
    elif len(blanks) > 1:
        # Empty lines main's history already ends with are history: only the added ones count.
        extra = [b for b in blanks[1:] if b >= start]
        if extra:
            history = sum(b < start for b in blanks)
            hint = (f"delete the empty lines this change added (main's history already ends with {history})"
                    if history else "keep exactly one empty line between entries")
            out.add(extra[0] + 1, SEPARATOR_RULE, f"{len(blanks)} empty lines between entries", hint)


def _misplaced_entry_start(line: bytes, after_blank: bool) -> bool:
    """Whether a line past the first appended one, not starting with '- ' at column 1, still reads
    as an attempt at a new entry: an entry's own lines are indented by at least two spaces, and
    'config-keys:' after an empty line opens one. Inside an entry (no empty line before it) it is
    the entry's own key, in any order; named twice, the YAML check says so. Comments are YAML's own.
    A tab among the leading blanks indents too: the tab rule (``file_rules``) is that line's one problem."""
    text = line.lstrip(b" \t")
    if text.startswith(b"#"):  # a YAML comment
        return False
    indent = line[:len(line) - len(text)]
    indented = len(indent) >= 2 or b"\t" in indent
    return not indented or (after_blank and line.lstrip(b" \t-").startswith(F.CONFIG_KEYS.encode() + b":"))


def _not_an_entry(out: Collector, i: int, last_text: int, first: bool) -> None:
    """Appended text at index ``i`` that does not start a new entry with '- ' at column 1."""
    if last_text < 0:
        out.add(i + 1, NOT_AN_ENTRY_RULE, "the changelog must be a list of entries",
                "start each entry with '- config-keys:' at column 1")
    elif first:
        out.add(i + 1, NOT_AN_ENTRY_RULE,
                f"appended text does not start a new entry; it continues the entry ending at line {last_text + 1}",
                "start a new entry with '- config-keys:' after one empty line; never extend history")
    else:
        out.add(i + 1, NOT_AN_ENTRY_RULE,
                f"appended text does not start a new entry; it continues the entry ending at line {last_text + 1}",
                "start a new entry with '- config-keys:' at column 1, after one empty line")


def conflict_lines(head_lines: HeadLines, hist: History) -> set[int]:
    """HEAD's lines (1-based) from each merge conflict's first marker to its last: text the author is
    still to choose from, so the conflict (``file_rules``) is their one problem, not also 'inserted
    inside the history' (a ``<<<<<<<`` among history's lines) or 'does not start a new entry' (the
    branch's side of an entry whose first line both sides share, above the ``<<<<<<<``)."""
    numbered = ((i + 1, head_lines[i]) for i in sorted(set(hist.changed)))
    return {n for group in conflicts(numbered) if len(group) > 1 for n in range(group[0], group[-1] + 1)}


def separator_rules(out: Collector, head_lines: HeadLines, start: int, skipped: set[int] = frozenset()) -> list[int]:
    """Entries start at column 0 with '- ', after exactly one empty line. Returns entry-start indexes.

    ``head_lines`` holds HEAD's last line with text before ``start`` (or starts the file): the
    look-back never reads further. Lines in ``skipped`` (1-based: ``conflict_lines``) are passed over.
    """
    nhead = head_lines.normalized()
    starts: list[int] = []
    last_text = start - 1
    while last_text >= 0 and not nhead[last_text].strip():
        last_text -= 1
    end = len(nhead)
    while end > start and not nhead[end - 1].strip():
        end -= 1
    _trailing_whitespace(out, nhead, max(start, end))
    blanks: list[int] = list(range(last_text + 1, start))
    first = True
    # Nothing above the appended text (a new changelog): comment lines at its top are its header, which YAML
    # (and the reference's loader) ignores; once committed they are history, byte for byte, as any line.
    header = last_text < 0
    for i in range(start, end):
        line = nhead[i]
        if i + 1 in skipped:
            continue
        if not line.strip():
            if line:
                out.add(i + 1, WHITESPACE_LINE_RULE, "line holds only whitespace", "make it empty")
            blanks.append(i)
            continue
        if line.startswith(CONFLICT_MARKERS):  # file_rules names it (once): not text of an entry
            continue
        if header and line.lstrip(b" ").startswith(b"#"):
            if last_text < 0 and blanks:
                out.add(blanks[0] + 1, SEPARATOR_RULE, "file starts with empty lines", "delete them")
            blanks, last_text = [], i
            continue
        if ENTRY_START.match(line):
            starts.append(i)
            _entry_separator(out, i, last_text, blanks, start, header and last_text >= 0,
                             nhead[last_text] if last_text >= 0 else b"")
        elif first or _misplaced_entry_start(line, bool(blanks)):
            _not_an_entry(out, i, -1 if header else last_text, first)
        elif blanks:
            out.add(blanks[0] + 1, SEPARATOR_RULE, "empty line inside an entry",
                    "remove it; empty lines only separate entries")
        first = header = False
        blanks = []
        last_text = i
    return starts


def read_changelog(git, base_sha: str, head: str, opts: GateOptions) -> tuple[bytes, bytes]:
    path = opts.changelog
    wanted = [path]
    if opts.worktree:
        from sweepgate.core.load import as_committed, read_worktree_file

        head_bytes = read_worktree_file(git.root, path)
        head_bytes = as_committed(git.root, path, head_bytes) if head_bytes is not None else None
    else:
        from sweepgate.core.load import linked_at

        linked_at(git, head, wanted)
        head_bytes = git.read_blobs(head, wanted)[path]
    if head_bytes is None:
        message, hint = missing_changelog(git, base_sha, path, "in the working tree" if opts.worktree
                                          else f"at {F.short_sha(head)}")
        raise SweepgateError(Diagnostic(path or "--changelog-file", 0, 0, F.MISSING_FILE_RULE, message, hint))
    return git.read_prefix(base_sha, path, head_bytes) or b"", head_bytes


def _entry_rules(out: Collector, lines: list[bytes], indexes: list[int], repo: str | None, opts: GateOptions):
    """The appended entries under the loader's YAML hygiene, the schema and the pr-link rules.

    Returns (doc, entries); entries is None when the text is not a list of entries.
    """
    from sweepgate.core.select import Appended, AppendedDoc, parse_appended

    appended = Appended(opts.changelog)
    appended.lines = [line.decode("utf-8") for line in lines]
    appended.head_lines = [i + 1 for i in indexes]
    doc = entries = None
    try:
        doc, entries = parse_appended(appended, fills={PR_LINK: missing_link_fix(repo, opts.pr_number)})
    except SweepgateError as exc:
        out.extend(exc.diagnostics)
        structural = [d for d in exc.diagnostics if not d.rule.startswith("schema-")]
        if not structural:
            from sweepgate.core.load import parse_yaml
            data = parse_yaml(appended.text, opts.changelog)
            doc, entries = AppendedDoc(appended, data), data if isinstance(data, list) else None
    allow_placeholder = opts.pr_number is not None or opts.worktree
    for i, entry in enumerate(entries or []):
        if isinstance(entry, dict) and F.PR_LINK in entry:
            problem = pr_link_problem(entry[F.PR_LINK], repo, opts.pr_number, allow_placeholder)
            if problem:
                line, col = doc.locate(at_value((i, F.PR_LINK)))
                out.add(line, PR_LINK, *problem, col=col)
        _repeated_keys(out, doc, i, entry)
    return doc, entries


def missing_link_fix(repo: str | None, pr_number: int | None) -> str:
    """The fix of an appended entry without a pr-link: the line to add, of this repository and pull request where
    they are known (walker s43: "add the missing field" showed no line)."""
    unknown = [what for what, known in (("OWNER/NAME: the repository", repo), ("N: its pull request's number", pr_number))
               if not known]
    return (f"add the line '{PR_LINK}: {canonical_link(repo or 'OWNER/NAME', pr_number or 'N')}'"
            + (f" ({'; '.join(unknown)})" if unknown else ""))


def _repeated_keys(out: Collector, doc, i: int, entry) -> None:
    """A config key an appended entry lists twice (the matrix step reads it once, as the reference
    does, so history that repeats one still expands; a new entry says each key once)."""
    keys = entry.get(F.CONFIG_KEYS) if isinstance(entry, dict) else None
    if not isinstance(keys, list):
        return
    first: dict[str, int] = {}
    for k, key in enumerate(keys):
        if not isinstance(key, str) or key not in first:
            if isinstance(key, str):
                first[key] = k
            continue
        (line, col), (was, was_col) = doc.locate((i, F.CONFIG_KEYS, k)), doc.locate((i, F.CONFIG_KEYS, first[key]))
        hint = (f"remove the second '{key}' from the list" if line == was
                else "delete this line; list each config key once")
        where = f"column {was_col}" if line == was else f"line {was}"
        out.add(line, REPEATED_KEY_RULE, f"config key '{key}' is listed twice in this entry (first at "
                f"{where})", hint, col=col)
    _keys_a_wildcard_covers(out, doc, i, keys)


def _keys_a_wildcard_covers(out: Collector, doc, i: int, keys: list) -> None:
    """A config key the same entry's wildcard already names: listed twice, as above, in other words
    (said once per key: a second listing of it is said above)."""
    from sweepgate.core.select import covering_wildcard

    if not any(isinstance(key, str) and "*" in key for key in keys):
        return
    seen: set[str] = set()
    for k, key in enumerate(keys):
        if not isinstance(key, str) or key in seen:
            continue
        seen.add(key)
        w = covering_wildcard(key, keys)
        if w is None:
            continue
        (line, col), (was, was_col) = doc.locate((i, F.CONFIG_KEYS, k)), doc.locate((i, F.CONFIG_KEYS, w))
        # a flow list ([a-*, a-b]) holds both on one line: deleting "this line" would delete them all
        where, fix = (f"column {was_col}", f"remove '{key}' from the list") if line == was else \
            (f"line {was}", "delete this line")
        out.add(line, REPEATED_KEY_RULE, f"config key '{key}' is also named by the wildcard '{keys[w]}' of "
                f"this entry ({where})", f"{fix}, or the wildcard if it names more than you meant", col=col)


def _placeholder_notes(doc, entries, opts: GateOptions) -> list[Diagnostic]:
    """A PR's entries that still link to ``pull/XXX``: allowed there (CONTRACTS section 2), but the
    push to main refuses them, so the PR's check says so before anyone merges (a warning that passes)."""
    if opts.pr_number is None or opts.worktree:
        return []
    notes = []
    for i, entry in enumerate(entries or []):
        link = entry.get(F.PR_LINK) if isinstance(entry, dict) else None
        if isinstance(link, str) and link.rstrip("/").endswith("/pull/" + PLACEHOLDER):
            line, col = doc.locate(at_value((i, F.PR_LINK)))
            notes.append(Diagnostic(
                opts.changelog, line, col, "pr-link-placeholder",
                f"pr-link still has the XXX placeholder; the push to main will refuse it once PR #{opts.pr_number} "
                "merges", f"before merging, run sweepgate changelog canonicalize --pr-number {opts.pr_number} (in a "
                "fork whose main is behind, add --base upstream/main) and push", severity="warning"))
    return notes


def validate(git, base_ref: str, head_ref: str | None, opts: GateOptions) -> Outcome:
    """Every problem with the change base_ref -> head_ref (or the working tree): its changelog
    and, when it edits them, its master configs and runners file (even without an entry)."""
    outcome = _validate_changelog(git, base_ref, head_ref, opts)
    if opts.run_matrix:
        from sweepgate.core.configgate import also_on_base, check_inputs

        head_sha, base_sha = WORKTREE if opts.worktree else git.resolve(head_ref), git.resolve(base_ref)
        # A matrix step that ran without a refusal has checked HEAD's configs already.
        full = not outcome.matrix_ran or bool(outcome.matrix)
        outcome.inputs, outcome.configs = check_inputs(git, base_sha, head_sha, opts.worktree, full)
        if outcome.matrix or outcome.configs:  # only a refusal for the configs' problems reads BASE's
            outcome.on_base = also_on_base(git, base_sha, outcome.all(), opts.changelog, head_sha, opts.worktree,
                                           lambda paths: _head_files(git, head_sha, paths, opts.worktree))
    return outcome


def _head_files(git, head_sha: str, paths: list[str], worktree: bool) -> dict[str, bytes | None]:
    """{path: bytes} of HEAD's ``paths`` (``worktree``: the work tree's files, as committed)."""
    from sweepgate.core.load import worktree_blobs

    if worktree:
        return {p: raw for p, (_, raw) in worktree_blobs(git.root, paths).items()}
    return git.read_blobs(head_sha, paths)


def _validate_changelog(git, base_ref: str, head_ref: str | None, opts: GateOptions) -> Outcome:
    base_sha = git.resolve(base_ref)
    head_sha = WORKTREE if opts.worktree else git.resolve(head_ref)
    base, head = read_changelog(git, base_sha, head_sha, opts)
    repo = resolve_repository(opts.repository, base or head)
    outcome = Outcome(repository=repo, changelog=opts.changelog)
    out = Collector(opts.changelog)
    hist, parsed = check_text(out, base, head, repo, opts, conflict_fix=lambda: _conflict_fix(git, opts.changelog, base_ref),
                              here=functools.cache(lambda: _from_here(git, opts.changelog)))
    outcome.corrections = hist.corrections
    _base_moved(git, out, (base_ref, head_ref or "HEAD"), base_sha, head_sha, hist)
    outcome.diagnostics = out.done()
    if parsed is None:
        return outcome
    doc, entries = parsed
    outcome.appended_entries = len(entries) if entries else 0
    outcome.notes = _placeholder_notes(doc, entries, opts)
    history_ok = not out.has(F.HISTORY_EDITED_RULE, F.HISTORY_DELETED_RULE, F.INSERTED_IN_HISTORY_RULE)
    if entries is None or not opts.run_matrix:
        return outcome
    outcome.matrix_ran = True
    try:
        if out.has(F.SCHEMA_CHANGELOG_RULE, F.APPEND_ONLY_MIXED_RULE) or not history_ok or hist.corrections:
            # build_matrix would stop at (or repeat) these; still name every unknown key.
            outcome.matrix = _check_keys(git, head_sha, doc, entries, opts)
        else:
            _matrix_step(git, base_ref, base_sha, head_ref, doc, entries, opts)
    except SweepgateError as exc:
        outcome.matrix = exc.diagnostics + _keys_beside(git, head_sha, doc, entries, opts)
    return outcome


def _from_here(git, path: str) -> str:
    """``path``, from the repository's top, as a fix's command names it from the current folder (imported only
    when a fix names it: the gate's hot path imports no pathlib)."""
    from sweepgate.core.repopaths import from_here

    return from_here(git.root, path)


def _conflict_fix(git, path: str, base_ref: str) -> str:
    """The fix of conflict markers: the command of the git merge or rebase in progress here, as `changelog
    rebase` says it (``core.inprogress``); read only when the changelog holds markers."""
    from sweepgate.core.inprogress import conflict_fix

    return conflict_fix(git, path, None if F.COMMIT_SHA.fullmatch(base_ref) else base_ref)


def _keys_beside(git, head_sha, doc, entries, opts: GateOptions) -> list[Diagnostic]:
    """The matrix step stops at HEAD's config problems before it reads the entries' keys; the gate
    names every problem at once (an unknown key too), so it resolves them here. ``Outcome.all``
    drops what the matrix step said already."""
    try:
        return _check_keys(git, head_sha, doc, entries, opts)
    except SweepgateError:  # what stopped the matrix step stops this too: said already
        return []


def _base_moved(git, out: Collector, refs: tuple[str, str], base_sha: str, head_sha: str, hist: History) -> None:
    """When history reads as edited and BASE holds commits HEAD lacks (the branch is behind it),
    say so: the entries BASE gained after the branch left it read as this change's edits. ``refs``:
    (base, head) as given."""
    if not hist.problems:
        return
    head_commit = git.resolve("HEAD") if head_sha == WORKTREE else head_sha
    moved = base_moved(git, refs[0], base_sha, head_commit, refs[1])
    if moved:
        out.add(hist.problems[0][0], F.BASE_MOVED_RULE, *moved)


def check_text(out: Collector, base: bytes, head: bytes, repo: str | None, opts: GateOptions,
               fast: bool = True, conflict_fix=None, here=None) -> tuple[History, tuple | None]:
    """File, history, separator and entry rules into ``out``: (history, (doc, entries) or None
    when the entry rules did not run). ``fast``: when HEAD only appends, read the appended lines
    and the end of the history, never the whole file (same diagnostics as the full comparison).
    ``conflict_fix``, ``here``: as ``file_rules``'.
    A HEAD saved as UTF-16 or UTF-32 (BASE not) is that one problem: read as UTF-8, each of its lines
    would be history edited, NUL bytes and control characters, none naming the encoding (s47h)."""
    if (wide := wide_refusal(head)) and not wide_encoding(base):
        out.add(1, F.ENCODING_RULE, *wide)
        return History(0), None
    quick = appended_only(base, head) if fast else None
    if quick:
        hist, head_lines = quick
    else:
        head_lines, hist = HeadLines(split_lines(head)), compare_history(base, head, repo)
    in_conflict = conflict_lines(head_lines, hist)
    hist.problems = [problem for problem in hist.problems if problem[0] not in in_conflict]
    for line, rule, message, hint in hist.problems:
        out.add(line, rule, message, hint)
    file_rules(out, base, head, head_lines, hist, conflict_fix, here)
    separator_rules(out, head_lines, hist.append_start, in_conflict)
    appended_idx = list(range(hist.append_start, head_lines.total))
    appended = [head_lines[i] for i in appended_idx]
    has_append = any(line.strip() for line in appended)
    if has_append:
        for problem in mixed_corrections(hist):
            out.add(*problem)
    file_level = out.has(BOM_RULE, F.CONFLICT_MARKER_RULE, CRLF_RULE, F.TAB_RULE, NUL_RULE, F.ENCODING_RULE,
                         CONTROL_RULE)
    # Whole entries inserted mid-history are read as entries too, so their own problems (an unknown
    # key, the schema) come with the insertion's, not only after it is moved to the end; an entry
    # of BASE's that was moved (two entries swapped) is history, not read as an entry.
    inserted = [i for a, b in hist.inserted if _starts_an_entry(head_lines, a, b)
                for i in _new_entries(base, head_lines, a, b)]
    if file_level or not (has_append or inserted):
        return hist, None
    if has_append:
        # On the fast path BASE is whole lines: its newlines are the lines before the append.
        _copied_entries(out, base, head_lines, hist.append_start, hist.append_start if quick else None)
    idx = inserted + (appended_idx if has_append else [])
    return hist, _entry_rules(out, [head_lines[i] for i in idx], idx, repo, opts)


def _starts_an_entry(head_lines, a: int, b: int) -> bool:
    """Whether HEAD lines a..b (0-based, end excluded) begin, past blank lines, with a new entry."""
    first, _ = text_span(head_lines, a, b)
    return head_lines[first - 1].startswith(b"- ")


def _entry_blocks(head_lines, a: int, b: int) -> list[tuple[list[int], bytes]]:
    """HEAD lines a..b (0-based, end excluded) cut before each line that starts an entry: each piece's
    line indexes and its text without the lines of whitespace that end it, each line with its newline
    (b"\\n" for a piece of such lines alone). The first piece starts no entry when line ``a`` does not."""
    chunks: list[list[int]] = []
    for i in range(a, b):
        if ENTRY_START.match(head_lines[i]) or not chunks:
            chunks.append([])
        chunks[-1].append(i)
    blocks = []
    for chunk in chunks:
        text = [head_lines[i] for i in chunk]
        while text and not text[-1].strip():
            text.pop()
        blocks.append((chunk, b"\n".join(text) + b"\n"))
    return blocks


def _new_entries(base: bytes, head_lines, a: int, b: int) -> list[int]:
    """HEAD line indexes a..b (end excluded) of the entries in them whose text is not BASE's: an
    entry found line for line in the history was moved or copied there, and stays history."""
    return [i for chunk, block in _entry_blocks(head_lines, a, b) if not _a_whole_base_entry(base, block)
            for i in chunk]


def _a_whole_base_entry(base: bytes, block: bytes) -> bool:
    """Whether ``block`` stands in BASE as a whole entry: from a line's start to an empty line, the
    next entry or the end (the first lines of a longer entry are not one: a new entry cut from one)."""
    return _whole_entry_at(base, block) >= 0


def _whole_entry_at(base: bytes, block: bytes) -> int:
    """Where ``block`` stands in BASE as a whole entry (``_a_whole_base_entry``), else -1."""
    at = base.find(block)
    while at >= 0:
        after = base[at + len(block):at + len(block) + 2]
        if (at == 0 or base[at - 1:at] == b"\n") and (not after or after[:1] == b"\n" or after == b"- "):
            return at
        at = base.find(block, at + 1)
    return -1


def _copied_entries(out: Collector, base: bytes, head_lines, start: int, newlines: int | None = None) -> None:
    """An appended entry byte for byte one of the history's, or one appended before it: a copy (a merge's
    entries taken in twice, say), which the matrix step would sweep again as this change's own. Each appended
    text is looked for in the history once, however often it is appended (a copy may be of any entry, so that
    search reads the history), and the lines of the copies found are counted together (``_lines_at``;
    ``newlines``: how many BASE holds, when known)."""
    seen: dict[bytes, tuple[int, int]] = {}  # text -> (HEAD line first appending it, where BASE holds it or -1)
    copies: list[tuple[int, bytes]] = []
    for entry, block in _entry_blocks(head_lines, start, head_lines.total):
        if not ENTRY_START.match(head_lines[entry[0]]):
            continue  # text before the first entry (the entry rules say what it is)
        if block not in seen:
            seen[block] = (entry[0] + 1, _whole_entry_at(base, block))
            if seen[block][1] < 0:
                continue  # new to the history and to the append
        copies.append((entry[0] + 1, block))
    lines = _lines_at(base, [seen[block][1] for _, block in copies if seen[block][1] >= 0], newlines)
    for line, block in copies:
        first, at = seen[block]
        where = f"the history's entry at line {lines[at]}" if at >= 0 else f"the entry appended at line {first}"
        out.add(line, COPIED_ENTRY_RULE, f"appended entry is a byte-for-byte copy of {where}: "
                "the sweep would run it again as this change's own",
                "delete the copy (after a merge, `sweepgate changelog rebase` rebuilds the file with each "
                "entry once)")


def _lines_at(data: bytes, offsets: list[int], newlines: int | None = None) -> dict[int, int]:
    """The 1-based line of each of ``offsets`` in ``data``, counting each newline at most once: from the start
    up to the last offset, or, when ``newlines`` (how many ``data`` holds) is given and that reads less, back
    from the end to the first (a merge's copies are of the history's last entries)."""
    at = sorted(set(offsets))
    lines: dict[int, int] = {}
    if at and newlines is not None and len(data) - at[0] < at[-1]:
        end = len(data)
        for offset in reversed(at):
            newlines -= data.count(NEWLINE, offset, end)
            lines[offset], end = newlines + 1, offset
        return lines
    before = begin = 0
    for offset in at:
        before += data.count(NEWLINE, begin, offset)
        lines[offset], begin = before + 1, offset
    return lines


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
    """HEAD's config problems and the entries' unknown config keys, so the author sees every problem
    at once (used where the matrix step would stop early)."""
    from sweepgate.core.check import check_revision
    from sweepgate.core.select import elsewhere_hint, resolve_keys

    rev = _head_revision(git, head_sha, opts)
    try:
        check_revision(rev)
        diags = []
    except SweepgateError as exc:  # the configs' problems, and still every key the entries name
        diags = list(exc.diagnostics)
    for i, entry in enumerate(entries):
        keys = entry.get(F.CONFIG_KEYS) if isinstance(entry, dict) else None
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            diags += resolve_keys(doc, i, keys, rev.configs,
                                  lambda key: elsewhere_hint(git, None if head_sha == WORKTREE else head_sha, key))[1]
    return diags
