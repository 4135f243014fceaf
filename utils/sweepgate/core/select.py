"""Select: the changelog entries a change appends -> the benchmark matrix.

This is the reference's process_changelog behaviour, in one process: the
appended text comes from ``git diff BASE HEAD``, configs and runners are read
from HEAD's git objects (and BASE's for append-only entries), parsed once.
"""

from __future__ import annotations

import copy
import re
from collections import defaultdict

from sweepgate.core import fields as F
from sweepgate.core import laxentry
from sweepgate.core.check import check_entries, check_revision
from sweepgate.core.errors import Diagnostic, SweepgateError
from sweepgate.core.expand import (
    Filters,
    bucket_of,
    curve_key,
    empty_buckets,
    eval_bucket_of,
    eval_rows,
    expand_keys,
    finalize,
    fingerprint,
    trim_conc,
)
from sweepgate.core.keypatterns import UNKNOWN_CONFIG_KEY, matching, near_wildcard, wildcard
from sweepgate.core.load import Git, Revision, YamlDoc, load_revision, parse_strict, reference_reads
from sweepgate.core.textmode import changelog_encoding_problem

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_ENTRIES_RULE = "no-entries"  # the title of a change that appends no changelog entry


# --------------------------------------------------------------------------- the appended text

class Appended:
    """Lines a change adds to the changelog, with their head line numbers, and the lines it deletes."""

    def __init__(self, path: str):
        self.path = path
        self.lines: list[str] = []
        self.head_lines: list[int] = []
        self.deleted: list[tuple[int, str]] = []  # (base line, text)
        self.last_line = 1  # HEAD's last line: where an entry would be appended

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _last_line(newlines: int, data: bytes) -> int:
    """The number of ``data``'s last line, given how many newlines it holds."""
    return max(1, newlines + (0 if data.endswith(b"\n") else 1))


def appended_lines(git: Git, base: str, head: str, path: str) -> Appended:
    """What head adds to ``path``: a byte-prefix check when history is intact, else git diff."""
    out = Appended(path)
    new_bytes = git.read_blobs(head, [path])[path]
    if new_bytes is None:  # as the gate says it: deleted (restore it) or never there (a wrong path)
        from sweepgate.core.history import missing_changelog  # not on the hot path (difflib)

        message, hint = missing_changelog(git, base, path, f"at {F.short_sha(head)}")
        raise SweepgateError(Diagnostic(path or "--changelog-file", 0, 0, F.MISSING_FILE_RULE, message, hint))
    if problem := changelog_encoding_problem(new_bytes):  # as the reference reads the file: no UTF-8 stops it
        line, what, fix = problem
        raise SweepgateError(Diagnostic(path, line, 0, F.ENCODING_RULE, what, fix))
    old_bytes = git.read_prefix(base, path, new_bytes) or b""
    if (not old_bytes or old_bytes.endswith(b"\n")) and new_bytes.startswith(old_bytes):
        first = old_bytes.count(b"\n") + 1
        tail = new_bytes[len(old_bytes):]
        out.last_line = _last_line(first - 1 + tail.count(b"\n"), new_bytes)  # the file is counted once
        added = tail.decode("utf-8", "replace").split("\n")
        if added and added[-1] == "":
            added.pop()
        out.lines = added
        out.head_lines = list(range(first, first + len(out.lines)))
        return out
    out.last_line = _last_line(new_bytes.count(b"\n"), new_bytes)
    old = new = 0
    for line in git.diff(base, head, path).split("\n"):
        m = HUNK.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            continue
        if line.startswith(("---", "+++", "diff ", "index ", "\\")) and not (old or new):
            continue
        if line.startswith("\\"):
            continue
        if line.startswith("-"):
            out.deleted.append((old, line[1:]))
            old += 1
        elif line.startswith("+"):
            out.lines.append(line[1:])
            out.head_lines.append(new)
            new += 1
        elif line.startswith(" "):
            old += 1
            new += 1
    return out


class AppendedDoc(YamlDoc):
    """The appended text as YAML, locating paths at their head line numbers."""

    def __init__(self, appended: Appended, data):
        super().__init__(appended.path, appended.text, data)
        self._map = appended.head_lines

    def locate(self, path):
        line, col = super().locate(path)
        if 1 <= line <= len(self._map):
            return self._map[line - 1], col
        return (self._map[-1] if self._map else 0), col


def parse_appended(appended: Appended, *, as_reference: bool = False,
                   fills: dict[str, str] | None = None) -> tuple[AppendedDoc, list]:
    """Parse and schema-check the appended entries, or raise every problem found. The matrix
    step (``as_reference``) reads the YAML as the reference's loader does: a key repeated in an
    entry keeps its last value (a real PR's entry held a second pr-link under a continued plain
    scalar, and the reference expanded it), and anchors, aliases and merge keys are taken; and
    the entries as its model does (``core.laxentry``: ``evals-only: 'yes'`` is true). The gate
    refuses them. ``fills``: a missing field's fix (``check.schema_problems``)."""
    def line_of(n: int) -> int:
        lines = appended.head_lines
        if lines and n > len(lines):  # past the appended text's last line (its end): after the file's
            return lines[-1] + n - len(lines)
        return lines[n - 1] if 1 <= n <= len(lines) else n

    tabs = [Diagnostic(appended.path, line_of(i + 1), line.index("\t") + 1, F.TAB_RULE,
                       "tab character in the changelog", "use spaces")
            for i, line in enumerate(appended.lines) if "\t" in line]
    if tabs and as_reference and reference_reads(appended.text):
        tabs = []  # the matrix takes what the reference's reader takes (a tab inside quotes); the gate does not
    data = parse_strict(appended.path, appended.text, line_of, found=tabs, as_reference=as_reference)
    doc = AppendedDoc(appended, data)
    if not data:
        raise SweepgateError(doc.diag((), NO_ENTRIES_RULE, "the appended text holds no changelog entry",
                                      "append an entry starting with '- config-keys:'"))
    if as_reference:
        data = laxentry.reference_entries(data)
    diags = check_entries(doc, laxentry.schema_view(data) if as_reference else data, fills=fills)
    if diags:
        raise SweepgateError(sorted(diags))
    return doc, data


def normalized_entry(entry: dict) -> dict:
    """An entry as the matrix's changelog_metadata carries it: every flag explicit."""
    out = {
        F.CONFIG_KEYS: list(entry[F.CONFIG_KEYS]),
        F.DESCRIPTION: list(entry[F.DESCRIPTION]),
        F.PR_LINK: entry[F.PR_LINK],
        F.EVALS_ONLY: entry.get(F.EVALS_ONLY, False),
        F.ALL_EVALS: entry.get(F.ALL_EVALS, False),
        F.APPEND_ONLY: entry.get(F.APPEND_ONLY, False),
    }
    if entry.get(F.EVAL_MIN_PREFILL_EP) is not None:
        out[F.EVAL_MIN_PREFILL_EP] = entry[F.EVAL_MIN_PREFILL_EP]
    if entry.get(F.ENTRY_SCENARIO_TYPE) is not None:
        out[F.ENTRY_SCENARIO_TYPE] = list(entry[F.ENTRY_SCENARIO_TYPE])
    return out


# --------------------------------------------------------------------------- key resolution

def covering_wildcard(key, keys: list) -> int | None:
    """The place in ``keys`` of the first wildcard that names ``key`` (a plain key an entry lists
    twice, once in a wildcard's words), None for none; a wildcard is covered by none."""
    if not isinstance(key, str) or "*" in key:
        return None
    return next((w for w, pattern in enumerate(keys)
                 if isinstance(pattern, str) and "*" in pattern and wildcard(pattern).fullmatch(key)), None)


def resolve_keys(doc: YamlDoc, index: int, patterns: list[str], configs: dict,
                 elsewhere=None) -> tuple[list[str], list[Diagnostic]]:
    """Config keys an entry names, wildcards resolved in config order, deduplicated. ``elsewhere(key)``
    (``elsewhere_hint``: where the key is defined, out of the run's reach, or None) explains an unknown key."""
    resolved: dict[str, None] = {}
    diags = []
    for k, pattern in enumerate(patterns):
        if "*" in pattern:
            matched = matching(pattern, configs)
            if not matched:
                diags.append(doc.diag((index, F.CONFIG_KEYS, k), UNKNOWN_CONFIG_KEY,
                                      f"wildcard '{pattern}' matches no config key", near_wildcard(pattern, configs)))
            for key in matched:
                resolved.setdefault(key, None)
        elif pattern in configs:
            resolved.setdefault(pattern, None)
        else:
            import difflib
            close = difflib.get_close_matches(pattern, list(configs), n=3)
            hint = f"did you mean {', '.join(close)}?" if close else "add the config or fix the key"
            hint = (elsewhere(pattern) if elsewhere else None) or hint
            diags.append(doc.diag((index, F.CONFIG_KEYS, k), UNKNOWN_CONFIG_KEY,
                                  f"config key '{pattern}' is not in any master config", hint))
    return list(resolved), diags


# --------------------------------------------------------------------------- append-only

def _visual_series(row: dict) -> tuple:
    agentic = row.get(F.SCENARIO_TYPE) == F.AGENTIC_CODING
    prefill, decode = row.get(F.PREFILL) or {}, row.get(F.DECODE) or {}
    return (row.get(F.MODEL), row.get(F.MODEL_PREFIX), row.get(F.PRECISION), row.get(F.FRAMEWORK),
            row.get(F.RUNNER), bool(row.get(F.DISAGG, False)),
            "agentic" if agentic else "fixed", None if agentic else row.get(F.ISL),
            None if agentic else row.get(F.OSL),
            "off" if row.get(F.KV_OFFLOADING, "none") in (None, "", "none") else "on",
            "" if agentic else row.get(F.SPEC_DECODING, "none"),
            prefill.get(F.HARDWARE), decode.get(F.HARDWARE))


def _concs(row: dict) -> list[int]:
    return row[F.CONC] if isinstance(row[F.CONC], list) else [row[F.CONC]]


def append_only_delta(base_rows: list[dict], head_rows: list[dict], at) -> list[dict]:
    """Only the points head adds; any removed or changed existing point is refused.

    ``at()`` gives the (file, line, col) the refusal is reported at.
    """
    def refuse(message: str, hint: str) -> SweepgateError:
        return SweepgateError(Diagnostic(*at(), "append-only", message, hint))

    base_groups: dict[tuple, set[int]] = defaultdict(set)
    head_groups: dict[tuple, set[int]] = defaultdict(set)
    for row in base_rows:
        base_groups[curve_key(row)].update(_concs(row))
    for row in head_rows:
        head_groups[curve_key(row)].update(_concs(row))
    if not base_groups:
        raise refuse("append-only needs an existing curve in the base revision",
                     "drop 'append-only: true' for a new recipe")
    lost = _lost_points(base_rows, base_groups, head_groups)
    if lost:
        raise SweepgateError(Diagnostic(*at(), "append-only", message, hint) for message, hint in lost)
    delta: list[dict] = []
    emitted: dict[tuple, set[int]] = defaultdict(set)
    for row in head_rows:
        key = curve_key(row)
        added = head_groups[key] - base_groups.get(key, set())
        if isinstance(row[F.CONC], int):
            if row[F.CONC] in added and row[F.CONC] not in emitted[key]:
                delta.append(row)
                emitted[key].add(row[F.CONC])
            continue
        new = [c for c in row[F.CONC] if c in added and c not in emitted[key]]
        emitted[key].update(new)
        if new:
            delta.append({**copy.deepcopy(row), F.CONC: new})
    if not delta:
        raise refuse("append-only adds no new benchmark point", "add concurrency points or a new recipe variant")
    images: dict[tuple, set] = defaultdict(set)
    for row in base_rows:
        images[_visual_series(row)].add(row.get(F.IMAGE))
    for row in delta:
        if images.get(_visual_series(row), set()) != {row.get(F.IMAGE)}:
            raise refuse("append-only points must extend an existing curve with the same image",
                         "use a regular (non append-only) entry when the image or curve changes")
    return delta


def _lost_points(base_rows: list[dict], base_groups: dict, head_groups: dict) -> list[tuple[str, str]]:
    """(message, fix) for existing recipes head removes or changes, and for each curve that loses
    concurrency points, named by its row: every one at once, not the first alone."""
    lost = []
    if base_groups.keys() - head_groups.keys():
        lost.append(("append-only may not remove or change an existing recipe",
                     "restore the recipe as in base and add new points alongside it"))
    named = {}
    for row in base_rows:
        named.setdefault(curve_key(row), row)
    for key, concs in base_groups.items():
        gone = concs - head_groups[key] if key in head_groups else set()
        if gone:
            row = named[key]
            tp = f", tp {row[F.TP]}" if F.TP in row else ""
            lost.append((f"append-only may not remove existing concurrency points {sorted(gone)} of "
                         f"{row.get(F.EXP_NAME)} on {row.get(F.RUNNER)}{tp}", "keep every existing concurrency"))
    return lost


def check_append_only_scope(base: dict, head: dict, scope: dict[str, set[str]], at) -> None:
    """Refuses, all at once, every edit an append-only change makes outside its entries' configs and
    scenario types: a line a config (or a scenario of one), not the first alone."""
    def refusal(message: str, hint: str) -> Diagnostic:
        return Diagnostic(*at(), "append-only-scope", message, hint)

    unrelated = sorted(k for k in base.keys() | head.keys() if k not in scope and base.get(k) != head.get(k))
    if unrelated:
        raise SweepgateError(refusal(f"append-only change also edits configs its entry does not name: "
                                     f"{', '.join(unrelated)}",
                                     "move those edits to another PR or name them in the entry"))
    refused = []
    for key, allowed in scope.items():
        b_scen, h_scen = base[key].get(F.SCENARIOS, {}), head[key].get(F.SCENARIOS, {})
        if b_scen.keys() != h_scen.keys():
            refused.append(refusal(f"append-only adds or removes a scenario of '{key}'",
                                   "keep the scenario set as in base"))
            continue
        outside = b_scen.keys() - allowed
        top_b = {k: v for k, v in base[key].items() if k != F.SCENARIOS}
        top_h = {k: v for k, v in head[key].items() if k != F.SCENARIOS}
        if outside and top_b != top_h:
            refused.append(refusal(f"append-only changes top-level fields of '{key}' that also affect "
                                   f"{', '.join(sorted(outside))}", "restrict the edit to the entry's scenario-type"))
            continue
        refused += [refusal(f"append-only edits '{key}' / {scenario}, outside its scenario-type",
                            "restore that scenario or widen the entry's scenario-type")
                    for scenario in sorted(outside) if b_scen[scenario] != h_scen[scenario]]
    if refused:
        raise SweepgateError(refused)


# --------------------------------------------------------------------------- the plan

class Options:
    """How build_matrix runs: the process_changelog flags."""

    def __init__(self, trim_conc: bool = False, all_evals: bool = False, evals_only: bool = False,
                 config_files: list[str] | None = None, runner_config: str | None = None,
                 changelog: str = F.CHANGELOG_FILE):
        self.trim_conc, self.all_evals, self.evals_only = trim_conc, all_evals, evals_only
        self.config_files, self.runner_config, self.changelog = config_files, runner_config, changelog


def _group_unseen(keys: list[str], scenarios: tuple[str, ...], seen: dict[str, set[str]]) -> dict[tuple, list[str]]:
    groups: dict[tuple, list[str]] = defaultdict(list)
    for key in keys:
        unseen = tuple(s for s in F.SCENARIO_TYPES if s in scenarios and s not in seen[key])
        if unseen:
            seen[key].update(unseen)
            groups[unseen].append(key)
    return groups


def _filter_prefill_ep(rows: list[dict], minimum: int | None) -> list[dict]:
    if minimum is None:
        return rows
    return [r for r in rows if not isinstance(r.get(F.PREFILL), dict) or r[F.PREFILL].get(F.EP, 1) >= minimum]


def _history_edits(git: Git, base: str, head: str, path: str, deleted: list,
                   labels: tuple[str, str]) -> list[Diagnostic]:
    """Nothing when the change is what the gate accepts as a pr-link-only correction (every changed
    history line only canonicalizes its pr-link, nothing is appended); else the refusal, grouped
    and capped as the gate reports it (``core.history``, ``core.collector``). ``labels``: (base, head)
    as the command was given them."""
    from sweepgate.core.collector import Collector
    from sweepgate.core.history import base_moved, compare_history, mixed_corrections
    from sweepgate.core.prlinks import resolve_repository

    (_, _, old), (_, _, new) = git.objects([f"{base}:{path}", f"{head}:{path}"])
    old, new = old or b"", new or b""
    hist = compare_history(old, new, resolve_repository(None, old or new))
    appended = b"\n".join(new.split(b"\n")[hist.append_start:]).strip()
    if (not hist.problems and not appended and len(hist.corrections) == len(deleted)
            and {line for line, _ in hist.corrections} == {n for n, _ in deleted}):
        return []
    out = Collector(path)
    for line, rule, message, hint in hist.problems:
        out.add(line, rule, message, hint)
    moved = base_moved(git, labels[0], base, head, labels[1]) if hist.problems else None
    if moved:  # "restore it byte for byte" misleads when main moved: the branch is behind it
        out.add(hist.problems[0][0], F.BASE_MOVED_RULE, *moved)
    if not hist.problems:  # e.g. pr-link corrections mixed with appended entries: refused as the gate words it
        mixed = mixed_corrections(hist) if appended else []
        for problem in mixed:
            out.add(*problem)
        told = {base_line for base_line, _ in hist.corrections} if mixed else set()
        for n, text in deleted:
            if n not in told:
                out.add(n, F.HISTORY_EDITED_RULE, f"history line deleted or edited: {text.strip()[:80]!r}",
                        "restore the line byte for byte; the changelog only takes appended entries")
    return out.done()


def build_matrix(git: Git, base: str, head: str, opts: Options | None = None) -> dict:
    """The matrix JSON object for the entries appended between base and head."""
    opts = opts or Options()
    base_sha, head_sha = git.resolve_all(base, head)
    appended = appended_lines(git, base_sha, head_sha, opts.changelog)
    deleted = [(n, text) for n, text in appended.deleted if text.strip()]
    if deleted:
        problems = _history_edits(git, base_sha, head_sha, opts.changelog, deleted, (base, head))
        if not problems:
            from sweepgate.core.history import corrects

            # The gate's one accepted history edit: nothing to run, refused here as the reference
            # refuses every deleted line (the workflows ask the gate and skip this step for it).
            raise SweepgateError(Diagnostic(
                opts.changelog, deleted[0][0], 0, NO_ENTRIES_RULE,
                f"{base}..{head} appends no entry; it {corrects(n for n, _ in deleted)}",
                "nothing to sweep: the gate accepts the correction"))
        raise SweepgateError(problems)
    if not appended.text.strip():
        raise SweepgateError(Diagnostic(opts.changelog, appended.last_line, 0, NO_ENTRIES_RULE,
                                        f"{base}..{head} appends no entry to {opts.changelog}",
                                        "append an entry naming the config keys this change affects"))
    doc, entries = parse_appended(appended, as_reference=True)
    return plan_entries(git, base_sha, head_sha, doc, entries, opts, base_label=base, head_label=head)


def plan_entries(git: Git, base: str, head: str, doc: YamlDoc, entries: list[dict], opts: Options,
                 base_label: str | None = None, head_label: str | None = None,
                 head_rev: Revision | None = None) -> dict:
    """The matrix of parsed entries: head's configs expanded (base's too for append-only entries)."""
    any_append = _check_append_only_mix(doc, entries, opts)
    rev = checked_revision(git, head, opts, head_rev)
    resolved = _resolve_entries(doc, entries, rev.configs, lambda key: _defined_at(git, head, key))
    base_rev = _append_only_base(git, base, doc, resolved, rev, opts) if any_append else None
    bench, evals = _expand_entries(resolved, opts, rev, base_rev, _first_append_only(doc))
    matrix = _bucketed(trim_conc(bench) if opts.trim_conc else bench, evals)
    matrix[F.CHANGELOG_METADATA] = {
        F.BASE_REF: base_label or base,
        F.HEAD_REF: head_label or head,
        F.ENTRIES: [normalized_entry(e) for e in entries],
    }
    return matrix


def checked_revision(git: Git, ref: str, opts: Options, rev: Revision | None = None) -> Revision:
    """``ref``'s configs and runners read through ``git`` and checked, each once (``rev``: already read)."""
    rev = rev or load_revision(git, ref, opts.config_files, opts.runner_config)
    if not rev.configs:
        check_revision(rev)
    return rev


def _first_append_only(doc: YamlDoc):
    """Where append-only refusals are reported: the first entry's append-only flag."""
    return lambda: (doc.path, *doc.locate((0, F.APPEND_ONLY)))


def _check_append_only_mix(doc: YamlDoc, entries: list[dict], opts: Options) -> bool:
    """Whether the change is append-only; refuses mixing it with regular entries or eval flags."""
    any_append = any(e.get(F.APPEND_ONLY) for e in entries)
    if any_append and not all(e.get(F.APPEND_ONLY) for e in entries):
        raise SweepgateError(doc.diag((0,), F.APPEND_ONLY_MIXED_RULE,
                                      "append-only entries cannot share a change with regular entries",
                                      "split them into separate PRs"))
    if any_append and (opts.all_evals or opts.evals_only):
        raise SweepgateError(doc.diag((0,), F.APPEND_ONLY_MIXED_RULE,
                                      "append-only sweeps cannot use --all-evals or --evals-only",
                                      "run the evals from a regular entry"))
    return any_append


def _defined_at(git: Git, head: str, key: str) -> str | None:
    """``elsewhere_hint`` at ``head``: a ref or commit, else (the gate's --staged/--worktree head) the working tree."""
    try:
        commit = git.resolve(head)
    except SweepgateError:
        commit = None
    return elsewhere_hint(git, commit, key)


def elsewhere_hint(git: Git, commit: str | None, key: str) -> str | None:
    """Where an unknown config key is defined, and the fix: in a file under configs/ at ``commit`` (None: the
    working tree) that the run does not read as a master config, or, at a commit, in the working tree alone (a
    new file `git commit -a` left out, an edit not committed); None when it is nowhere."""
    if found := git.defined_at(commit, key):
        return (f"it is defined at {found}, which this run does not read as a master config (it reads "
                f"{F.CONFIG_DIR}/*-master.yaml, or only the --config-files given): move the config into a file it "
                "reads, or pass that file")
    if commit and (found := git.defined_at(None, key)):
        return (f"it is defined at {found} in the work tree, not in the commit read: commit it (git add "
                f"{found.rsplit(':', 1)[0]}, then git commit) and rerun")
    return None


def _resolve_entries(doc: YamlDoc, entries: list[dict], configs: dict, elsewhere=None) -> list[tuple[dict, list[str]]]:
    """(entry, its config keys) for every entry, or every unknown key refused at once."""
    resolved = []
    diags = []
    for i, entry in enumerate(entries):
        keys, problems = resolve_keys(doc, i, entry[F.CONFIG_KEYS], configs, elsewhere)
        diags += problems
        resolved.append((entry, keys))
    if diags:
        raise SweepgateError(diags)
    return resolved


def _append_only_base(git: Git, base: str, doc: YamlDoc, resolved: list, rev: Revision,
                      opts: Options) -> Revision:
    """Base's checked revision, once the append-only entries are known to stay within their scope."""
    first = _first_append_only(doc)
    if git.read_blobs(base, [F.MATRIX_ENTRY_POINT])[F.MATRIX_ENTRY_POINT] is None:
        raise SweepgateError(Diagnostic(
            *first(), "append-only-base",
            f"append-only needs the base revision's generation inputs, but {F.MATRIX_ENTRY_POINT} "
            "is missing there, so base never produced a matrix to append to",
            "use a regular entry (drop 'append-only: true'), or base the change on a revision with the generator"))
    base_rev = checked_revision(git, base, opts)
    scope: dict[str, set[str]] = defaultdict(set)
    for entry, keys in resolved:
        for key in keys:
            scope[key].update(entry.get(F.ENTRY_SCENARIO_TYPE) or F.SCENARIO_TYPES)
    missing = sorted(scope.keys() - base_rev.configs.keys())
    if missing:
        raise SweepgateError(Diagnostic(*first(), "append-only",
                                        f"append-only needs every selected config in base; new: {', '.join(missing)}",
                                        "use a regular entry for new configs"))
    check_append_only_scope(base_rev.configs, rev.configs, scope, first)
    return base_rev


def _expand_entries(resolved: list, opts: Options, rev: Revision, base_rev: Revision | None,
                    first) -> tuple[list[dict], list[dict]]:
    """Benchmark and eval rows of every entry, each (config, scenario) expanded once."""
    bench: list[dict] = []
    evals: list[dict] = []
    bench_seen: dict[str, set[str]] = defaultdict(set)
    eval_seen: dict[str, set[str]] = defaultdict(set)
    # all-evals entries first, so their wider eval selection wins on shared configs
    resolved.sort(key=lambda item: not item[0].get(F.ALL_EVALS, False))
    refused: list[Diagnostic] = []  # every append-only entry's refusals, not the first entry's alone
    for entry, keys in resolved:
        scenarios = tuple(entry.get(F.ENTRY_SCENARIO_TYPE) or F.SCENARIO_TYPES)
        if not (opts.evals_only or entry.get(F.EVALS_ONLY, False) or entry.get(F.ALL_EVALS, False)):
            for group, group_keys in _group_unseen(keys, scenarios, bench_seen).items():
                flt = Filters(scenario_types=None if group == F.SCENARIO_TYPES else group)
                rows = _expand_at(rev, group_keys, flt)
                if entry.get(F.APPEND_ONLY):
                    try:
                        rows = append_only_delta(_expand_at(base_rev, group_keys, flt), rows, first)
                    except SweepgateError as exc:
                        refused += exc.diagnostics
                bench.extend(rows)
        if entry.get(F.APPEND_ONLY):
            continue
        all_evals = opts.all_evals or entry.get(F.ALL_EVALS, False)
        for group, group_keys in _group_unseen(keys, scenarios, eval_seen).items():
            rows = _expand_at(rev, group_keys, Filters(scenario_types=group))
            evals.extend(_filter_prefill_ep(eval_rows(rows, all_evals), entry.get(F.EVAL_MIN_PREFILL_EP)))
    if refused:
        raise SweepgateError(refused)
    return bench, evals


def _expand_at(rev: Revision, keys: list[str], flt: Filters) -> list[dict]:
    return expand_keys(keys, rev.configs, rev.runners.data, flt, rev.where)


def _bucketed(bench: list[dict], evals: list[dict]) -> dict:
    """The matrix's buckets: benchmark rows fingerprinted and filed by node type, evals by kind."""
    matrix = empty_buckets()
    for row in bench:
        row[F.RECIPE_FINGERPRINT] = fingerprint(row)
        node, bucket = bucket_of(row)
        matrix[node].setdefault(bucket, []).append(finalize(row))
    for row in evals:
        matrix[eval_bucket_of(row)].append(finalize(row))
    return matrix


def iter_rows(matrix: dict):
    """(bucket, row) for every row of a matrix."""
    for name in F.BUCKET_KEYS:
        value = matrix.get(name) or {}
        if isinstance(value, dict):
            for bucket, rows in value.items():
                for row in rows:
                    yield f"{name}/{bucket}", row
        else:
            for row in value:
                yield name, row


__all__ = ["Options", "build_matrix", "plan_entries", "iter_rows", "appended_lines",
           "parse_appended"]
