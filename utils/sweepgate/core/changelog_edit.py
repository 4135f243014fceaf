"""Changelog edits behind `sweepgate changelog add|rebase|canonicalize`.

Every edit leaves the history's bytes untouched: it only appends (``add_entry``),
rebuilds the file as the target branch's exact bytes plus this branch's entries at
its end, the appended ones and whole entries it inserted inside the history
(``rebase``), or rewrites the ``pull/XXX`` placeholder in this branch's
appended entries (``canonicalize``). New text is produced with ruamel.yaml in the
changelog's house style; files are written atomically (``core.atomic``). Each edit
returns what it did as report lines; the command prints them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sweepgate.core import fields as F
from sweepgate.core.atomic import atomic_write
from sweepgate.core.errors import Diagnostic, SweepgateError, is_a_folder
from sweepgate.core.github import OWNER_NAME_TEXT
from sweepgate.core.inprogress import (IN_PROGRESS_BRANCH, OPERATION_REFS, conflict_fix, in_progress, onto_of,
                                      operation_fix, rebase_command, ref_named)
from sweepgate.core.textmode import changelog_encoding_problem
from sweepgate.core.upstream import UPSTREAMS, existing_upstream

XXX_LINK = re.compile(rb"^(\s*(?:-\s+)?pr-link:[ ]*)(['\"]?)https://github\.com/%s"
                      rb"/pull/(?:XXX|xxx)/?\2[ ]*$" % OWNER_NAME_TEXT.encode())  # the gate refuses 'xxx' and a trailing '/' too: fix them


@dataclass
class Edit:
    """What an edit did, as lines for standard output."""

    report: list[str] = field(default_factory=list)


def _fail(path: str, line: int, rule: str, message: str, hint: str = "") -> SweepgateError:
    return SweepgateError(Diagnostic(path, line, 0, rule, message, hint))


def _repository(git, explicit: str | None, text: bytes) -> str:
    """The repository pr-links point to: ``prlinks.resolve_repository`` (--repository, $GITHUB_REPOSITORY, the
    repository most of ``text``'s pr-links name), else the GitHub repository of the remote the branch merges into
    (a first entry: where the PR is opened): origin's, else upstream's, else the only remote's, as
    ``upstream.merged_into`` picks the remote. Else refused in one line saying why and what to pass: the GitHub
    repositories the remotes name, when several name one and none is origin or upstream (the URLs are not shown:
    one may carry a token)."""
    from sweepgate.core.github import PASS_REPOSITORY, REPOSITORY_VARIABLE, remote_repository
    from sweepgate.core.prlinks import PR_LINK, resolve_repository
    from sweepgate.core.upstream import PREFERRED_REMOTES, remote_names

    repo = resolve_repository(explicit, text)
    if repo:
        return repo
    names = remote_names(git)
    chosen = [r for r in PREFERRED_REMOTES if r in names] or (names if len(names) == 1 else [])
    named = {r: remote_repository(git.run("remote", "get-url", r, check=False).decode("utf-8", "replace").strip())
             for r in (chosen or names)}
    if chosen and (repo := next((named[r] for r in chosen if named[r]), None)):
        return repo
    if not names:
        why = "there is no remote"
    elif chosen:
        whose = " and ".join(f"{remote}'s" for remote in chosen)
        why = f"{whose} URL{'s name' if len(chosen) > 1 else ' names'} no github.com repository"
    else:
        why = f"{len(names)} remotes ({', '.join(names)}), none of them origin or upstream"
    offered = sorted({repo for repo in named.values() if repo}) if not chosen else []
    fix = (f"pass --repository {' or '.join(offered)}" if offered else PASS_REPOSITORY) + \
        f" (or set ${REPOSITORY_VARIABLE})"
    raise _fail("--repository", 0, PR_LINK,
                f"cannot tell which repository pr-links point to: no pr-link names one, and {why}", fix)


# --------------------------------------------------------------------------- reading

def separator_for(existing: bytes) -> bytes:
    """What to put between existing text and a new entry so exactly one empty line separates them.

    Lines holding only whitespace count as empty (as the gate counts them); an unfinished last
    line is finished first.
    """
    if not existing.strip():
        return b""
    tail = existing[len(existing.rstrip()):]  # from the end of the last text on
    if b"\n" not in tail:
        return b"\n\n"
    finish = b"" if existing.endswith(b"\n") else b"\n"
    empty_lines = tail.count(b"\n") - 1 + (1 if finish else 0)
    return finish + (b"\n" if empty_lines == 0 else b"")


def without_trailing_space(existing: bytes, history: bytes) -> bytes:
    """``existing`` without the whitespace that ends it, keeping every byte it shares with
    ``history`` (the changelog at the merge-base, which the gate holds byte for byte)."""
    shared = len(history) if existing.startswith(history) else len(os.path.commonprefix([existing, history]))
    return existing[:max(shared, len(existing.rstrip()))]


def render_entries(entries: list[dict]) -> str:
    """Entries as YAML in the changelog's style: 2-space mappings, 4-space indented lists."""
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 1 << 20  # never fold long descriptions
    yaml.allow_unicode = True
    out = []
    for entry in entries:
        styled = dict(entry)
        styled[F.DESCRIPTION] = [DoubleQuotedScalarString(d) for d in entry[F.DESCRIPTION]]
        buf = io.StringIO()
        yaml.dump(styled, buf)  # the mapping alone; the top-level '- ' goes at column 1 below
        lines = buf.getvalue().splitlines()
        out.append("".join(("- " if i == 0 else "  ") + line + "\n" for i, line in enumerate(lines)))
    return "\n".join(out)


def _merge_base(git, a: str, b: str) -> str:
    out = git.run("merge-base", a, b, check=False).decode().strip()
    if not out:
        raise _fail("git", 0, F.GIT_REF_RULE, f"{a} and {b} have no common ancestor",
                    "fetch the full history (git fetch --unshallow) or pass the right refs")
    return out


def _blob(git, ref: str, path: str) -> bytes:
    return git.read_blobs(ref, [path])[path] or b""


def _worktree_bytes(git, path: str) -> bytes:
    """The working tree's changelog (empty when there is none), refused unless it is UTF-8 text: an
    entry added to (or a link set in) a file the gate refuses would be said as written, and fail later; so is
    one that is a symbolic link (``load.refuse_linked_input``: to nothing, it read as no changelog, and a new
    one was written where it points)."""
    from sweepgate.core.load import refuse_linked_input

    refuse_linked_input(git.root, path)
    try:
        data = (Path(git.root) / path).read_bytes()
    except FileNotFoundError:
        return b""
    except IsADirectoryError:
        raise _fail(path, 0, F.MISSING_FILE_RULE, is_a_folder("the changelog"),
                    "pass the changelog file's path with --changelog-file") from None
    except OSError as exc:
        raise _fail(path, 0, F.MISSING_FILE_RULE, f"cannot read the changelog: {exc.strerror}",
                    "pass a readable file with --changelog-file") from None
    if problem := changelog_encoding_problem(data):
        line, what, fix = problem
        raise _fail(path, line, F.ENCODING_RULE, what, fix)
    return data


def refuse_nowhere(git, path: str, refs: dict[str, str], source: str) -> None:
    """Refuse a changelog that is a file at none of ``refs`` (what each is called -> its commit) nor
    ``source`` ('in the working tree', or 'at REF' with REF among ``refs``): a mistyped --changelog-file
    would be rebuilt as an empty file, or read as one with nothing to do."""
    if source == "in the working tree" and (Path(git.root) / path).is_file():
        return
    if any(git.read_blobs(commit, [path])[path] is not None for commit in refs.values()):
        return
    from sweepgate.core.history import CHANGELOG_PATH_FIX

    places = [f"at {name}" for name in refs if f"at {name}" != source] + [source]
    raise _fail(path, 0, F.MISSING_FILE_RULE, f"not a file {', '.join(places[:-1])} or {places[-1]}", CHANGELOG_PATH_FIX)


def _history(git, path: str) -> bytes:
    """The changelog the gate's pre-commit mode compares against (empty before the first commit): at
    ``upstream.staged_base``, which refuses where validate --staged does (a clone with a remote and no
    branch to take the base from), never HEAD's, whose own entries would read as history."""
    from sweepgate.core.upstream import staged_base

    if not git.commit_of("HEAD"):
        return b""
    return _blob(git, staged_base(git), path)


def _default_upstream(git) -> str:
    """The branch this one will merge into, else a refusal saying why there is none here (a shallow or
    single-branch clone: ``upstream.no_upstream``) and how to fetch it."""
    from sweepgate.core.upstream import no_upstream

    ref = existing_upstream(git)
    if ref:
        return ref
    why, fetch = no_upstream(git) or (None, None)
    raise _fail("git", 0, F.GIT_REF_RULE, f"none of {', '.join(UPSTREAMS)} exists" + (f" ({why})" if why else ""),
                (f"{fetch} or " if fetch else "") + "pass the branch this one will merge into (--base BRANCH)")


def refuse_conflict_markers(lines: list[bytes], path: str, what: str, hint) -> None:
    """Refuse ``lines`` holding merge-conflict markers: one problem per conflict, at its first marker.
    ``hint``: the fix, or a function that says it (called only when there are markers)."""
    from sweepgate.core.history import conflict_problems

    found = conflict_problems(enumerate(lines, 1), what)
    if found:
        fix = hint() if callable(hint) else hint
        raise SweepgateError([Diagnostic(path, line, 0, F.CONFLICT_MARKER_RULE, message, fix)
                              for line, message in found])


REBASE_CONFLICT_FIX = ("pass --branch REF (REBASE_HEAD during a rebase, ORIG_HEAD during a merge) to rebuild from the "
                       "branch's committed changelog")
# Why --onto must be the operation's own commit: the file is --onto's changelog plus the branch's entries.
_ONTO_WHY = {"rebase": "the file must be the changelog of the commit the rebase replays this branch onto, plus "
                       "this branch's entries",
             "merge": "the merged file must hold the changelog of the commit merged in, plus this branch's entries",
             "on HEAD": "the file must be HEAD's changelog plus the entries the operation brings"}


def _refuse_another_onto(git, path: str, onto: str, onto_ref: str, branch: str | None, state) -> None:
    """In a rebase, a file built on another changelog than that of the commit the rebase replays the branch
    onto would delete its newer entries or add ones it lacks; in a merge, drop entries of the commit merged
    in. Refused, naming the operation's commit as --onto."""
    if not state or not state[1] or state[1] == onto or _blob(git, state[1], path) == _blob(git, onto, path):
        return
    operation, target = state
    name = onto_of(git, state)
    shown = name if name == F.short_sha(target) else f"{name} ({F.short_sha(target)})"
    what = (f"a rebase onto {shown} is in progress, not onto {onto_ref} ({F.short_sha(onto)})"
            if operation == "rebase" else
            f"a merge of {shown} is in progress, and {onto_ref}'s {path} ({F.short_sha(onto)}) is not that commit's"
            if operation == "merge" else
            f"a {operation} is in progress on {shown}, and {onto_ref}'s {path} ({F.short_sha(onto)}) is not HEAD's")
    ref = branch or IN_PROGRESS_BRANCH[operation][0]
    fix = f"run {rebase_command(name, ref)}: " if ref else f"{operation_fix(git, state, path=path)}; "
    raise _fail("--onto", 0, F.GIT_REF_RULE, what, fix + _ONTO_WHY.get(operation, _ONTO_WHY["on HEAD"]))


def _refuse_another_operation_s_ref(path: str, branch: str | None, state, fix: str) -> None:
    """--branch naming a ref git writes for another operation than the one in progress (ORIG_HEAD during a
    rebase, which the fix of each conflict warns of; a REBASE_HEAD an earlier rebase left behind during a
    merge) reads another commit's changelog: refused, naming the operation's own command."""
    if not state or branch not in OPERATION_REFS or branch == IN_PROGRESS_BRANCH[state[0]][0]:
        return
    raise _fail("--branch", 0, F.GIT_REF_RULE, f"a {state[0]} is in progress, so {branch} is not the commit whose "
                f"entries {path} needs", fix)


@dataclass
class BranchText:
    """This branch's own text in its changelog: ``appended`` after the history (bytes, without
    surrounding empty lines; its first head line ``first_line``), and ``inserted``, whole entries it
    added inside the history, each as (first head line, last head line, text without empty lines
    around it), in file order. Only ``branch_appended(..., take_inserted=True)`` fills ``inserted``."""

    appended: bytes
    first_line: int
    inserted: list[tuple[int, int, bytes]] = field(default_factory=list)


def branch_appended(git, base_bytes: bytes, source: bytes, path: str, what: str,
                    conflict_fix=REBASE_CONFLICT_FIX, take_inserted: bool = False) -> BranchText:
    """This branch's own text in ``source`` against the history ``base_bytes``.

    Refuses, listing every problem at its base line, when the branch edited history; ``conflict_fix``:
    how to fix a conflict marker with the command that reads it (only `rebase` has --branch), or a function
    that says it.
    ``take_inserted``: whole entries inserted inside the history (and nothing else changed there,
    ``core.history.whole_entries_inserted``, whose rule the gate's hint names `rebase` by) are the
    branch's too, handed back in ``inserted`` instead of refused (`rebase` moves them).
    """
    from sweepgate.core.history import CORRECTION_FIX, compare_history, corrects, split_lines

    lines = split_lines(source)
    refuse_conflict_markers(lines, path, what, conflict_fix)
    hist = compare_history(base_bytes, source, None)
    inserted = hist.movable if take_inserted else None
    if inserted:
        hist.problems = []
    problems = [Diagnostic(path, line, 0, rule, message, f"{hint}, then rerun")  # the gate's own fix
                for line, rule, message, hint in hist.problems]
    problems += [Diagnostic(path, h, 0, F.HISTORY_EDITED_RULE, f"{what} {corrects([b])}", CORRECTION_FIX)
                 for b, h in hist.corrections]
    if not problems and not inserted and not source.startswith(base_bytes):
        problems.append(Diagnostic(path, 1, 0, F.HISTORY_EDITED_RULE,
                                   f"{what} changes history bytes (line endings or byte-order mark)",
                                   "restore LF line endings and drop the BOM"))
    if problems:
        raise SweepgateError(problems)
    rest = lines[hist.append_start:]
    start = hist.append_start
    while rest and not rest[0].strip():
        rest.pop(0)
        start += 1
    while rest and not rest[-1].strip():
        rest.pop()
    return BranchText(b"\n".join(rest) + b"\n" if rest else b"", start + 1, inserted or [])


# --------------------------------------------------------------------------- add

def _known_keys(git, path: str, warn: Callable[[str], None]) -> dict:
    from sweepgate.core.check import check_revision
    from sweepgate.core.load import load_revision

    rev = load_revision(git, "worktree", worktree=True)
    try:
        check_revision(rev)
    except SweepgateError as exc:
        first = exc.diagnostics[0]
        more = " (and more)" if len(exc.diagnostics) > 1 else ""
        warn(f"{first.location()}: warning: {first.message}{more}; the entry is written all the "
             "same: `sweepgate validate` lists every problem of the configs")
    return rev.configs


def check_keys(keys: list[str], configs: dict, where: str = "--key") -> list[Diagnostic]:
    """The matrix step's key resolution (unknown keys with close matches, empty wildcards)."""
    from sweepgate.core.load import YamlDoc
    from sweepgate.core.select import resolve_keys

    _, diags = resolve_keys(YamlDoc(where, "", None), 0, keys, configs)
    return [Diagnostic(where, 0, 0, d.rule, d.message, d.hint) for d in diags]


def new_entry(keys: list[str], descriptions: list[str], link: str, scenario_types: list[str] | None = None,
              evals_only: bool = False, all_evals: bool = False) -> dict:
    """A changelog entry with its fields in the changelog's order; flags only when set."""
    entry: dict = {F.CONFIG_KEYS: list(keys)}
    if scenario_types:
        entry[F.ENTRY_SCENARIO_TYPE] = [s for s in F.SCENARIO_TYPES if s in scenario_types]
    entry[F.DESCRIPTION] = list(descriptions)
    if evals_only:
        entry[F.EVALS_ONLY] = True
    if all_evals:
        entry[F.ALL_EVALS] = True
    entry[F.PR_LINK] = link
    return entry


def _rendered_checked(entry: dict, path: str) -> str:
    """The entry as changelog text, refused unless it passes the entry schema and reads back as written."""
    from sweepgate.core.check import check_entries
    from sweepgate.core.load import YamlDoc, parse_yaml

    text = render_entries([entry])
    data = parse_yaml(text, path)
    problems = check_entries(YamlDoc(path, text, data), data)
    if problems:
        raise SweepgateError(problems)
    if data != [entry]:
        raise _fail(path, 0, "internal", "the rendered entry does not read back as written",
                    "report this with the --key/--description values used")
    return text


def _refuse_unparsable(existing: bytes, history: bytes, path: str, warn: Callable[[str], None]) -> None:
    """An entry appended to a changelog that is no YAML would be written and refused later, by the gate.
    Refused at the syntax error, then; only a history that does not parse either (this branch cannot
    change it) is warned of and appended to."""
    from sweepgate.core.load import parse_yaml

    try:
        parse_yaml(existing.decode("utf-8"), path)
        return
    except SweepgateError as exc:
        problem = exc.diagnostics[0]
    try:
        parse_yaml(history.decode("utf-8", errors="replace"), path)
    except SweepgateError:
        warn(f"{problem.location()}: warning: the history already does not parse ({problem.message}); appending anyway")
        return
    problem.hint = f"{problem.hint}, then add the entry again (nothing was written)"
    raise SweepgateError(problem)


def _once_each(keys: list[str], warn: Callable[[str], None]) -> list[str]:
    """The keys in their order, each once, and none a wildcard among them names (the gate refuses an
    entry listing a key twice, in the same words or in a wildcard's)."""
    from sweepgate.core.select import covering_wildcard

    unique = list(dict.fromkeys(keys))
    for key in unique:
        n = keys.count(key)
        if n > 1:
            warn(f"--key: warning: '{key}' is given {'twice' if n == 2 else f'{n} times'}; the entry lists it once")
    kept = []
    for key in unique:
        by = covering_wildcard(key, unique)
        if by is not None:
            warn(f"--key: warning: '{key}' is also named by the wildcard '{unique[by]}'; the entry lists the wildcard only")
        else:
            kept.append(key)
    return kept


DESCRIPTION_FIX = 'say what changed, e.g. --description "Rerun after the driver update"'


def add_entry(git, path: str, keys: list[str], descriptions: list[str], *, scenario_types=None,
              evals_only: bool = False, all_evals: bool = False, pr_number: int | None = None,
              repository: str | None = None, warn: Callable[[str], None] = lambda message: None,
              committing: Callable[[], None] | None = None) -> Edit:
    """Append one entry for ``keys`` to the working tree's changelog; ``warn`` hears of broken configs,
    ``committing`` is called right before the file is renamed into place (``atomic_write``)."""
    from sweepgate.core.history import split_lines
    from sweepgate.core.prlinks import canonical_link

    edit = Edit()
    existing = _worktree_bytes(git, path)
    refuse_conflict_markers(split_lines(existing), path, "the working-tree changelog", lambda: conflict_fix(git, path))
    history = _history(git, path)
    kept = without_trailing_space(existing, history)  # the whitespace that ends the branch's part goes
    _refuse_unparsable(kept, history, path, warn)
    repo = _repository(git, repository, existing)
    blank = [n for n, text in enumerate(descriptions, 1) if not text.strip()]
    if blank:
        raise _fail("--description", 0, F.SCHEMA_CHANGELOG_RULE,  # what the schema says of such an entry
                    f"description {blank[0]} of {len(descriptions)} has no text", DESCRIPTION_FIX)
    keys = _once_each(keys, warn)
    diags = check_keys(keys, _known_keys(git, path, warn))
    if diags:
        raise SweepgateError(diags)
    entry = new_entry(keys, descriptions, canonical_link(repo, pr_number or "XXX"), scenario_types,
                      evals_only, all_evals)
    text = _rendered_checked(entry, path)
    atomic_write(Path(git.root) / path, kept + separator_for(kept) + text.encode("utf-8"), committing)
    line = len(split_lines(kept + separator_for(kept))) + 1
    edit.report.append(f"{path}:{line}: appended entry for {', '.join(keys)} ({entry[F.PR_LINK]})")
    if not pr_number:  # at the pr-link's value, where the gate warns of the placeholder
        at, key = next((n, ln) for n, ln in enumerate(text.splitlines()) if ln.lstrip().startswith(f"{F.PR_LINK}:"))
        col = len(key) - len(key.split(":", 1)[1].lstrip()) + 1
        edit.report.append(f"{path}:{line + at}:{col}: note: pr-link ends in XXX; after the PR is opened, run "
                           "`sweepgate changelog canonicalize --pr-number N`")
    return edit


# --------------------------------------------------------------------------- rebase

def _entries_at(text: bytes, a: int, b: int) -> str:
    """'entry at lines A-B' (or 'N entries at ...'): where the moved text stood before the rebuild."""
    from sweepgate.core.history import ENTRY_START, lines_named, split_lines

    n = sum(1 for line in split_lines(text) if ENTRY_START.match(line))
    return f"{'entry' if n == 1 else f'{n} entries'} at {lines_named(a, b)}"


def _refuse_behind(git, path: str, onto: str, onto_ref: str, state, history: bytes, main: bytes) -> None:
    """Outside a git merge or rebase, a branch not based on ``onto`` whose changelog ``onto`` moved on from
    (``history``: the merge-base's) would commit ``onto``'s newer entries as its own: its pull request,
    judged against the merge-base, would sweep them. The branch is brought up to date first."""
    from sweepgate.core.history import ENTRY_START, split_lines

    if state or main == history or git.is_ancestor(onto, git.resolve("HEAD")):
        return
    gained = sum(1 for line in split_lines(main[len(history):]) if ENTRY_START.match(line)) \
        if main.startswith(history) else 0
    what = (f"the {gained} entries {onto_ref} gained" if gained > 1 else f"the entry {onto_ref} gained" if gained
            else f"{onto_ref}'s changes to it")
    raise _fail(path, 0, F.BASE_MOVED_RULE,
                f"this branch is not based on {onto_ref} ({F.short_sha(onto)}): rebuilt here, the file would hold "
                f"{what} since the merge-base as this branch's own, and its pull request would sweep "
                f"{'it' if gained == 1 else 'them'}",
                f"bring the branch up to date first (git rebase {onto_ref}, or git merge {onto_ref}); where the "
                f"changelog conflicts, {rebase_command(onto_ref, 'REBASE_HEAD')} (--branch ORIG_HEAD in a merge)")


def _history_commit(git, src: str, onto: str, branch: str | None, state) -> str:
    """The commit whose changelog is the history of ``src``'s: their merge-base, but for the working tree of a
    merge in progress, which descends from the commit merged in (the entries it brings are not the branch's;
    counted so, they were appended a second time), and for the commit a cherry-pick picks, its parent (its
    branch's earlier entries are not picked)."""
    operation, target = state or (None, None)
    if operation == "merge" and not branch and target:
        return target
    if operation == "cherry-pick" and src == git.resolve("CHERRY_PICK_HEAD"):
        parent = git.run("rev-parse", "--verify", "--quiet", f"{src}^1", check=False).decode().strip()
        if parent:
            return parent
    return _merge_base(git, src, onto)


def rebase(git, path: str, onto_ref: str | None, branch: str | None = None, committing=None) -> Edit:
    """Rebuild the changelog as ``onto_ref``'s bytes plus this branch's entries at its end.

    The branch's entries come from ``branch``'s committed changelog, else the working tree's: the
    ones it appended, and whole entries it inserted inside the history (moved to the end, before the
    appended ones, each after one empty line). ``onto_ref`` None (no --onto): UPSTREAMS[0]; where that is
    no commit here (a clone without origin) during a conflicted operation, the operation's own commit
    (``onto_of``), as its fix would name it.
    """
    state = in_progress(git)
    if onto_ref is None:
        onto_ref = UPSTREAMS[0]
        if state and state[1] and not git.commit_of(onto_ref):
            onto_ref = onto_of(git, state)
    onto = git.resolve(onto_ref, "--onto", lambda: existing_upstream(git))
    _refuse_another_onto(git, path, onto, onto_ref, branch, state)
    said = operation_fix(git, state, onto_ref, path) if state else None  # the operation's own fix, built once
    if said:
        _refuse_another_operation_s_ref(path, branch, state, said)
    if branch:
        src = git.resolve(branch, "--branch")
        source, what = _blob(git, src, path), f"{branch}'s changelog"
    else:
        src = git.resolve("HEAD")
        source, what = _worktree_bytes(git, path), "the working-tree changelog"
    fix = said if said and not branch else REBASE_CONFLICT_FIX  # markers in the working tree: the operation's fix
    mb = _history_commit(git, src, onto, branch, state)
    refuse_nowhere(git, path, {onto_ref: onto, "the merge-base": mb, **({branch: src} if branch else {})},
                   f"at {branch}" if branch else "in the working tree")
    history = _blob(git, mb, path)
    mine = branch_appended(git, history, source, path, what, fix, take_inserted=True)
    ours = b"\n".join([text for _, _, text in mine.inserted] + ([mine.appended] if mine.appended else []))
    main = _blob(git, onto, path)
    if ours and ours not in main:
        _refuse_behind(git, path, onto, onto_ref, state, history, main)
    if not ours:
        new, note = main, f"no entries appended since the merge-base; it is now {onto_ref}'s"
    elif ours in main:
        new, note = main, f"{onto_ref} already holds this branch's entries; it is now {onto_ref}'s"
    else:
        new = main + separator_for(main) + ours
        note = f"rebuilt as {onto_ref}'s {path} plus this branch's entries"
    atomic_write(Path(git.root) / path, new, committing)
    moved = [f"{path}: moved this branch's {_entries_at(text, a, b)} inside the history to the end"
             for a, b, text in mine.inserted]
    return Edit([*moved, f"{path}: {note}"])


# --------------------------------------------------------------------------- canonicalize

def canonicalize(git, path: str, pr_number: int, base: str | None = None, repository: str | None = None,
                 committing=None) -> Edit:
    """Replace pull/XXX in this branch's appended entries with the link of PR ``pr_number``."""
    from sweepgate.core.history import split_lines
    from sweepgate.core.prlinks import canonical_link

    upstream = base or _default_upstream(git)
    mb = _merge_base(git, "HEAD", git.resolve(upstream, "--base", lambda: existing_upstream(git)))
    refuse_nowhere(git, path, {"the merge-base": mb}, "in the working tree")
    base_bytes = _blob(git, mb, path)
    source = _worktree_bytes(git, path)
    branch_appended(git, base_bytes, source, path, "the working-tree changelog", lambda: conflict_fix(git, path))
    repo = _repository(git, repository, base_bytes or source)
    link = canonical_link(repo, pr_number).encode()
    lines = source[len(base_bytes):].split(b"\n")
    first = len(split_lines(base_bytes)) + (0 if not base_bytes or base_bytes.endswith(b"\n") else -1)
    changed = []
    for i, line in enumerate(lines):
        m = XXX_LINK.match(line)
        if m:
            lines[i] = m.group(1) + link
            changed.append(first + i + 1)
    if not changed:
        return Edit([f"{path}: no pull/XXX placeholder in this branch's entries; nothing to do"])
    atomic_write(Path(git.root) / path, base_bytes + b"\n".join(lines), committing)
    return Edit([f"{path}:{n}: pr-link set to {link.decode()}" for n in changed])
