"""`sweepgate changelog add|rebase|canonicalize`: write and merge perf-changelog entries.

Every tool leaves the history's bytes untouched: it only appends (add), rebuilds
the file as the target branch's exact bytes plus this branch's appended entries
(rebase), or rewrites the ``pull/XXX`` placeholder in this branch's appended
entries (canonicalize). New text is produced with ruamel.yaml in the
changelog's house style; files are written atomically (temp file + rename).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError

DEFAULT_UPSTREAMS = ("origin/main", "main")


# --------------------------------------------------------------------------- helpers

def _fail(path: str, line: int, rule: str, message: str, hint: str = "") -> SweepgateError:
    return SweepgateError(Diagnostic(path, line, 0, rule, message, hint))


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temp file in the same directory and os.replace."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        except FileNotFoundError:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def separator_for(existing: bytes) -> bytes:
    """What to put between existing text and a new entry so exactly one empty line separates them."""
    if not existing.strip():
        return b""
    trailing = len(existing) - len(existing.rstrip(b"\n"))
    return {0: b"\n\n", 1: b"\n"}.get(trailing, b"")


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


def _git(start: str = "."):
    from sweepgate.core.load import open_repo
    return open_repo(start)


def _ref_exists(git, ref: str) -> bool:
    return bool(git.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip())


def _merge_base(git, a: str, b: str) -> str:
    out = git.run("merge-base", a, b, check=False).decode().strip()
    if not out:
        raise _fail("git", 0, "git-ref", f"{a} and {b} have no common ancestor",
                    "fetch the full history (git fetch --unshallow) or pass the right refs")
    return out


def _blob(git, ref: str, path: str) -> bytes:
    return git.read_blobs(ref, [path])[path] or b""


def _worktree_bytes(git, path: str) -> bytes:
    try:
        return (Path(git.root) / path).read_bytes()
    except FileNotFoundError:
        return b""


def _default_upstream(git) -> str:
    for ref in DEFAULT_UPSTREAMS:
        if _ref_exists(git, ref):
            return ref
    raise _fail("git", 0, "git-ref", "neither origin/main nor main exists",
                "pass the target branch explicitly (--onto/--base)")


def branch_appended(git, base_bytes: bytes, source: bytes, path: str, what: str) -> tuple[bytes, int]:
    """This branch's appended text (bytes, without surrounding empty lines) and its first head line.

    Refuses, listing every problem at its base line, when the branch edited history.
    """
    from sweepgate.core.history import CONFLICT_MARKERS, compare_history, split_lines

    lines = split_lines(source)
    markers = [i + 1 for i, line in enumerate(lines) if line.startswith(CONFLICT_MARKERS)]
    if markers:
        raise SweepgateError([Diagnostic(path, n, 0, "conflict-marker", f"merge-conflict marker in {what}",
                                         "pass --branch REF (e.g. ORIG_HEAD or REBASE_HEAD) to rebuild from "
                                         "the branch's committed changelog") for n in markers])
    hist = compare_history(base_bytes, source, None)
    problems = [Diagnostic(path, line, 0, rule, message, "move history edits to their own PR, then rerun")
                for line, rule, message, _ in hist.problems]
    problems += [Diagnostic(path, b, 0, "history-edited", f"{what} corrects the pr-link of history line {b}",
                            "land pr-link corrections in their own PR") for b, _ in hist.corrections]
    if not problems and not source.startswith(base_bytes):
        problems.append(Diagnostic(path, 1, 0, "history-edited",
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
    return (b"\n".join(rest) + b"\n" if rest else b""), start + 1


# --------------------------------------------------------------------------- add

def _known_keys(git, path: str) -> dict:
    from sweepgate.core.check import check_revision
    from sweepgate.core.load import load_revision

    rev = load_revision(git, "worktree", worktree=True)
    try:
        check_revision(rev)
    except SweepgateError as exc:
        print(f"{path}: warning: the configs have {len(exc.diagnostics)} problem(s); "
              "sweepgate validate will report them", file=sys.stderr)
    return rev.configs


def check_keys(keys: list[str], configs: dict, where: str = "--key") -> list[Diagnostic]:
    """The matrix step's key resolution (unknown keys with close matches, empty wildcards)."""
    from sweepgate.core.load import YamlDoc
    from sweepgate.core.select import resolve_keys

    _, diags = resolve_keys(YamlDoc(where, "", None), 0, keys, configs)
    return [Diagnostic(where, 0, 0, d.rule, d.message, d.hint) for d in diags]


def cmd_add(args) -> int:
    from sweepgate.core.check import check_entries
    from sweepgate.core.history import split_lines
    from sweepgate.core.prlinks import canonical_link, resolve_repository
    from sweepgate.core.load import YamlDoc, parse_yaml

    git = _git()
    path = args.changelog_file
    target = Path(git.root) / path
    existing = _worktree_bytes(git, path)
    repo = resolve_repository(args.repository, existing)
    if not repo:
        raise _fail("--repository", 0, "usage", "cannot tell which repository pr-links point to",
                    "pass --repository OWNER/NAME")
    blank = [n for n, text in enumerate(args.description, 1) if not text.strip()]
    if blank:
        raise _fail("--description", 0, "usage", f"description {blank[0]} of {len(args.description)} has no text",
                    'say what changed, e.g. --description "Rerun after the driver update"')
    diags = check_keys(args.key, _known_keys(git, path))
    if diags:
        raise SweepgateError(diags)
    entry: dict = {F.CONFIG_KEYS: list(args.key)}
    if args.scenario_type:
        entry[F.ENTRY_SCENARIO_TYPE] = [s for s in F.SCENARIO_TYPES if s in args.scenario_type]
    entry[F.DESCRIPTION] = list(args.description)
    if args.evals_only:
        entry[F.EVALS_ONLY] = True
    if args.all_evals:
        entry[F.ALL_EVALS] = True
    entry[F.PR_LINK] = canonical_link(repo, args.pr_number or "XXX")

    text = render_entries([entry])
    data = parse_yaml(text, path)
    problems = check_entries(YamlDoc(path, text, data), data)
    if problems:
        raise SweepgateError(problems)
    if data != [entry]:
        raise _fail(path, 0, "internal", "the rendered entry does not read back as written",
                    "report this with the --key/--description values used")
    new = existing + separator_for(existing) + text.encode("utf-8")
    atomic_write(target, new)
    line = len(split_lines(existing + separator_for(existing))) + 1
    print(f"{path}:{line}: appended entry for {', '.join(args.key)} ({entry[F.PR_LINK]})")
    if not args.pr_number:
        print(f"{path}:{line}: note: pr-link ends in XXX; after the PR is opened, run "
              "`sweepgate changelog canonicalize --pr-number N`")
    return 0


# --------------------------------------------------------------------------- rebase

def cmd_rebase(args) -> int:
    git = _git()
    path = args.changelog_file
    onto = git.resolve(args.onto)
    if args.branch:
        src = git.resolve(args.branch)
        source, what = _blob(git, src, path), f"{args.branch}'s changelog"
    else:
        src = git.resolve("HEAD")
        source, what = _worktree_bytes(git, path), "the working-tree changelog"
    mb = _merge_base(git, src, onto)
    ours, _ = branch_appended(git, _blob(git, mb, path), source, path, what)
    main = _blob(git, onto, path)
    if not ours:
        new, note = main, f"no entries appended since the merge-base; {path} is now {args.onto}'s"
    elif ours in main:
        new, note = main, f"{args.onto} already holds this branch's entries; {path} is now {args.onto}'s"
    else:
        new = main + separator_for(main) + ours
        note = f"{args.onto}'s {path} plus this branch's entries"
    atomic_write(Path(git.root) / path, new)
    print(f"{path}: rebuilt as {note}")
    return 0


# --------------------------------------------------------------------------- canonicalize

XXX_LINK = re.compile(rb"^(\s*(?:-\s+)?pr-link:[ ]*)(['\"]?)https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+"
                      rb"/pull/XXX\2[ ]*$")


def cmd_canonicalize(args) -> int:
    from sweepgate.core.history import split_lines
    from sweepgate.core.prlinks import canonical_link, resolve_repository

    git = _git()
    path = args.changelog_file
    upstream = args.base or _default_upstream(git)
    mb = _merge_base(git, "HEAD", git.resolve(upstream))
    base_bytes = _blob(git, mb, path)
    source = _worktree_bytes(git, path)
    branch_appended(git, base_bytes, source, path, "the working-tree changelog")
    repo = resolve_repository(args.repository, base_bytes or source)
    if not repo:
        raise _fail("--repository", 0, "usage", "cannot tell which repository pr-links point to",
                    "pass --repository OWNER/NAME")
    link = canonical_link(repo, args.pr_number).encode()
    lines = source[len(base_bytes):].split(b"\n")
    first = len(split_lines(base_bytes)) + (0 if not base_bytes or base_bytes.endswith(b"\n") else -1)
    changed = []
    for i, line in enumerate(lines):
        m = XXX_LINK.match(line)
        if m:
            lines[i] = m.group(1) + link
            changed.append(first + i + 1)
    if not changed:
        print(f"{path}: no pull/XXX placeholder in this branch's entries; nothing to do")
        return 0
    atomic_write(Path(git.root) / path, base_bytes + b"\n".join(lines))
    for n in changed:
        print(f"{path}:{n}: pr-link set to {link.decode()}")
    return 0


# --------------------------------------------------------------------------- command line

def _positive_int(text: str) -> int:
    text = text.strip().lstrip("#")
    if not re.fullmatch(r"[1-9][0-9]*", text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a pull-request number")
    return int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True

    add = sub.add_parser("add", help="append a well-formed entry (pr-link .../pull/XXX)")
    add.add_argument("--key", action="append", required=True, help="config key or '*' wildcard (repeatable)")
    add.add_argument("--description", action="append", required=True, help="one description line (repeatable)")
    add.add_argument("--scenario-type", action="append", choices=list(F.SCENARIO_TYPES),
                     help="restrict the entry to these scenarios (repeatable)")
    add.add_argument("--evals-only", action="store_true",
                     help="the entry runs only the eval rows of its configs, no throughput rows")
    add.add_argument("--all-evals", action="store_true",
                     help="the entry runs evals on every selected row, not only the default eval points")
    add.add_argument("--pr-number", type=_positive_int, default=None, help="use this PR's link instead of XXX")
    add.add_argument("--repository", default=None, help="OWNER/NAME (default: $GITHUB_REPOSITORY or the "
                                                        "repository most pr-links point to)")
    add.add_argument("--changelog-file", default=F.CHANGELOG_FILE,
                     help="changelog to append to, from the repository root (default: %(default)s)")
    add.set_defaults(_action=cmd_add)

    rebase = sub.add_parser("rebase", help="rebuild the changelog as ONTO's bytes plus this branch's entries")
    rebase.add_argument("--onto", default="origin/main", help="target branch (default: origin/main)")
    rebase.add_argument("--branch", default=None,
                        help="take the branch's entries from this commit's changelog instead of the working "
                             "tree (e.g. ORIG_HEAD or REBASE_HEAD during a conflicted merge/rebase)")
    rebase.add_argument("--changelog-file", default=F.CHANGELOG_FILE)
    rebase.set_defaults(_action=cmd_rebase)

    canon = sub.add_parser("canonicalize", help="replace pull/XXX in this branch's entries with the PR's link")
    canon.add_argument("--pr-number", type=_positive_int, required=True)
    canon.add_argument("--base", default=None, help="branch this one will merge into (default: origin/main, "
                                                    "else main)")
    canon.add_argument("--repository", default=None)
    canon.add_argument("--changelog-file", default=F.CHANGELOG_FILE)
    canon.set_defaults(_action=cmd_canonicalize)


def run(args) -> int:
    return args._action(args)
