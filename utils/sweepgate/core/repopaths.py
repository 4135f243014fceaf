"""Repository-data flags (--changelog-file, --config-files, --runner-config) name files inside the
repository, from its top. A path that leaves the repository is refused up front, in one line,
before any git read could fail on it in a misleading way; an absolute path inside the repository
becomes the path from the top."""

from __future__ import annotations

import os
import posixpath

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError, is_a_folder, read_from_the_top

# argparse dest -> flag
REPO_DATA_FLAGS = {"changelog_file": "--changelog-file", "config_files": "--config-files",
                   "runner_config": "--runner-config"}
FILE_EXAMPLES = {"changelog_file": F.CHANGELOG_FILE, "config_files": "configs/nvidia-master.yaml configs/amd-master.yaml",
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
    """Whether the command runs at the repository's top. From a subfolder a path from the top is
    rewritten as written there (``./x``: ``x``): a problem in the file is then said, and annotated,
    at the file from the top, not at a path read from the current folder (errors.workspace_path)."""
    from sweepgate.core.worktop import enclosing_top

    top = root or enclosing_top()
    return top is None or os.path.realpath(top) == os.path.realpath(os.getcwd())


def from_here(root, relative: str) -> str:
    """``relative``, a path from the repository's top ``root``, as a path from the current folder: a fix's
    command or file to make (`engines capture --out`, `mkdir -p`, a script to create) is read from there, and
    every command may be run from a subfolder. The top's own spelling where it is run from the top."""
    return os.path.relpath(os.path.join(os.path.abspath(root), relative))


def _outside(path: str, dest: str, root: str | None) -> Diagnostic:
    """The one line for a path that leaves the repository from its top. Inside `configs/`,
    `--changelog-file ../perf-changelog.yaml` names the changelog from where the command runs; say
    that these paths start at the top, and the path that names that file from there, when it is a file
    (a path to nothing, or to a folder, is said as what it is, and the flag's example given)."""
    here = None if os.path.isabs(path) else _from_top(os.path.abspath(path), root)
    said = "outside the repository: this flag's paths are read from the repository's top folder, wherever the command runs"
    if here:  # the flag's value is wrong, not the file it names from here: no annotation on that file
        from sweepgate.core.worktop import enclosing_top

        full = os.path.join(root or enclosing_top() or ".", here)
        if os.path.isfile(full):
            return Diagnostic(path, 0, 0, OUTSIDE, said, f"pass {here} (that file, from the top)", in_file=False)
        what = is_a_folder() if os.path.isdir(full) else "does not exist either"
        return Diagnostic(path, 0, 0, OUTSIDE, f"{said}, and {here}, the file it names from here, {what}",
                          f"pass a file's path from the top, e.g. {FILE_EXAMPLES[dest]}", in_file=False)
    return Diagnostic(path, 0, 0, OUTSIDE, "outside the repository", "pass a path inside it", in_file=False)


# The repository's data files that are read from its top when no flag names them.
DEFAULT_FILES = (F.RUNNERS_FILE, F.CHANGELOG_FILE)


def check_repo_paths(args, root: str | None = None) -> None:
    """Rewrite the repository-data flags on ``args`` as plain paths from the top; refuse one outside it.
    The paths from the top, and the default files, are what the command reads from the top wherever it
    runs: a problem at one is annotated at it from there (``errors.read_from_the_top``)."""
    problems, from_top = [], list(DEFAULT_FILES)
    for dest in REPO_DATA_FLAGS:
        value = getattr(args, dest, None)
        if not value:
            continue
        paths = value if isinstance(value, list) else [value]
        fixed = []
        for path in paths:
            rel = _from_top(path, root)
            if rel is None:
                problems.append(_outside(path, dest, root))
            elif _is_folder(rel, root):
                problems.append(Diagnostic(path, 0, 0, NOT_A_FILE,
                                           f"{REPO_DATA_FLAGS[dest]} takes a file; this is a folder",
                                           f"pass the file, e.g. {FILE_EXAMPLES[dest]}"))
            fixed.append(rel if rel and (os.path.isabs(path) or not _at_top(root)) else path)
            if rel is not None:
                from_top.append(fixed[-1])
        setattr(args, dest, fixed if isinstance(value, list) else fixed[0])
    read_from_the_top(from_top)
    if problems:
        raise SweepgateError(problems)
