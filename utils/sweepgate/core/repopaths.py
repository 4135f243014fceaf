"""Repository-data flags (--changelog-file, --config-files, --runner-config) name files inside the
repository. A path typed is read from the current folder when that names a file of the repository (as any
Unix tool reads it: `--config-files ../configs/x.yaml` in benchmarks/), else from the repository's top, as
the reference's flags read it (`--config-files configs/x.yaml` in benchmarks/, where no ./configs is); the
command then reads it by its path from the top, and its problems are said at the path as typed. A path
that leaves the repository both ways is refused up front, in one line, before any git read could fail on
it in a misleading way; an absolute path inside the repository becomes the path from the top."""

from __future__ import annotations

import os
import posixpath

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError, read_from_the_top, typed_as

# argparse dest -> flag
REPO_DATA_FLAGS = {"changelog_file": "--changelog-file", "config_files": "--config-files",
                   "runner_config": "--runner-config"}
FILE_EXAMPLES = {"changelog_file": F.CHANGELOG_FILE, "config_files": " ".join(F.MASTER_EXAMPLES),
                 "runner_config": F.RUNNERS_FILE}
# The titles of their refusals under GitHub Actions (bad input, exit 1: never argparse's ``usage``).
OUTSIDE = "outside-repository"  # a path that leaves the repository
NOT_A_FILE = F.MISSING_FILE_RULE  # a folder where the flag takes a file, as a changelog that is one is titled


def _from_top(path: str, root: str | None) -> str | None:
    """``path`` from the top of the repository, or None when it is outside."""
    if os.path.isabs(path):
        if root is None:
            from sweepgate.core.load import repo_root
            root = repo_root()
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    else:
        rel = posixpath.normpath(path.replace(os.sep, "/"))
    rel = rel.replace(os.sep, "/")
    if rel == ".." or rel.startswith("../"):
        return None
    return rel


def _is_folder(rel: str, root: str | None) -> bool:
    """Whether ``rel`` (from the top) is a folder in the work tree (a flag that takes files)."""
    from sweepgate.core.worktop import enclosing_top

    top = root or enclosing_top()
    return bool(top) and os.path.isdir(os.path.join(top, rel))


def _at_top(root: str | None) -> bool:
    """Whether the command runs at the repository's top (or outside any repository), where a path from
    here and a path from the top are one."""
    from sweepgate.core.worktop import enclosing_top

    top = root or enclosing_top()
    return top is None or os.path.realpath(top) == os.path.realpath(os.getcwd())


def from_here(root, relative: str) -> str:
    """``relative``, a path from the repository's top ``root``, as a path from the current folder: a fix's
    command or file to make (`engines capture --out`, `mkdir -p`, a script to create) is read from there, and
    every command may be run from a subfolder. The top's own spelling where it is run from the top."""
    return os.path.relpath(os.path.join(os.path.abspath(root), relative))


def _chosen(path: str, root: str | None) -> str | None:
    """``path`` as typed, from the top: read from the current folder when that names a file of the repository,
    else from the top when that does; else what names something (a folder, a link: refused as what it is);
    else the path from the top, or from here where that alone stays inside. None when both leave it."""
    if os.path.isabs(path) or _at_top(root):
        return _from_top(path, root)
    from sweepgate.core.worktop import enclosing_top

    top = root or enclosing_top()
    ways = [rel for rel in (_from_top(os.path.abspath(path), root), _from_top(path, root)) if rel is not None]
    for there in (os.path.isfile, os.path.lexists):
        found = next((rel for rel in ways if there(os.path.join(top, rel))), None)
        if found is not None:
            return found
    return ways[-1] if ways else None


def _outside(path: str) -> Diagnostic:
    """The one line for a path that leaves the repository, from here and from its top alike."""
    return Diagnostic(path, 0, 0, OUTSIDE, "outside the repository", "pass a path inside it", in_file=False)


# The repository's data files that are read from its top when no flag names them.
DEFAULT_FILES = (F.RUNNERS_FILE, F.CHANGELOG_FILE)


def check_repo_paths(args, root: str | None = None) -> None:
    """Rewrite the repository-data flags on ``args`` as plain paths from the top (``_chosen``); refuse one
    outside it. The paths from the top, and the default files, are what the command reads from the top
    wherever it runs: a problem at one is annotated at it from there (``errors.read_from_the_top``), and
    said at the path as typed (``errors.typed_as``). A flag left at its default is read from the top."""
    problems, from_top, typed = [], list(DEFAULT_FILES), {}
    parser = getattr(args, "_parser", None)
    for dest in REPO_DATA_FLAGS:
        value = getattr(args, dest, None)
        if not value:
            continue
        defaulted = parser is not None and value == parser.get_default(dest)
        paths = value if isinstance(value, list) else [value]
        fixed = []
        for path in paths:
            rel = _from_top(path, root) if defaulted else _chosen(path, root)
            if rel is None:
                problems.append(_outside(path))
            elif _is_folder(rel, root):
                problems.append(Diagnostic(path, 0, 0, NOT_A_FILE,
                                           f"{REPO_DATA_FLAGS[dest]} takes a file; this is a folder",
                                           f"pass the file, e.g. {FILE_EXAMPLES[dest]}"))
            fixed.append(rel if rel and (os.path.isabs(path) or not _at_top(root)) else path)
            if rel is not None:
                from_top.append(fixed[-1])
                if not os.path.isabs(path) and posixpath.normpath(path) != rel:
                    typed[rel] = posixpath.normpath(path)
        setattr(args, dest, fixed if isinstance(value, list) else fixed[0])
    read_from_the_top(from_top)
    typed_as(typed)
    if problems:
        raise SweepgateError(problems)
