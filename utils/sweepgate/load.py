"""Load: git blobs and YAML, with positions when a diagnostic needs them.

Every revision's files are read through one ``git cat-file --batch`` process,
never one subprocess per file or key. YAML is parsed once with libyaml's C
loader; positions (line/column of any path) come from a second, lazy compose
of the same text only when something must be reported.
"""

from __future__ import annotations

import fnmatch
import functools
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sweepgate import fields as F
from sweepgate.errors import Diagnostic, SweepgateError

try:  # libyaml is much faster; fall back to pure Python where it is missing
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


class Git:
    """Read-only access to one repository's objects."""

    def __init__(self, root: Path | str = "."):
        self.root = Path(root)

    def run(self, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
        proc = subprocess.run(["git", "-C", str(self.root), *args], capture_output=True, input=input)
        if check and proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SweepgateError(Diagnostic(
                str(self.root), 0, 0, "git", f"git {' '.join(args[:3])} failed: {err[-1] if err else proc.returncode}",
                "check that the refs exist (fetch with enough depth) and that this is a git repository"))
        return proc.stdout

    def toplevel(self) -> Path:
        return Path(self.run("rev-parse", "--show-toplevel").decode().strip())

    def resolve(self, ref: str) -> str:
        out = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).decode().strip()
        if not out:
            raise SweepgateError(Diagnostic(
                "git", 0, 0, "git-ref", f"'{ref}' is not a commit in {self.root}",
                "pass a branch, tag or commit that exists here (fetch it first in CI)"))
        return out

    def list_dir(self, ref: str, directory: str) -> list[str]:
        """Paths of the blobs directly inside ``directory`` at ``ref``."""
        out = self.run("ls-tree", "-z", "--name-only", ref, "--", directory.rstrip("/") + "/")
        return [p.decode() for p in out.split(b"\0") if p]

    def read_blobs(self, ref: str, paths: list[str]) -> dict[str, bytes | None]:
        """Contents of several files at ``ref`` in one git process; None for missing files."""
        if not paths:
            return {}
        request = "".join(f"{ref}:{p}\n" for p in paths).encode()
        out = self.run("cat-file", "--batch", input=request)
        result: dict[str, bytes | None] = {}
        pos = 0
        for path in paths:
            end = out.index(b"\n", pos)
            header = out[pos:end].split()
            pos = end + 1
            if len(header) == 2 and header[1] == b"missing" or len(header) < 3:
                result[path] = None
                continue
            size = int(header[2])
            result[path] = out[pos:pos + size] if header[1] == b"blob" else None
            pos += size + 1
        return result

    def diff(self, base: str, head: str, path: str) -> str:
        out = self.run("diff", "--no-color", "--no-ext-diff", "-U0", base, head, "--", path)
        return out.decode("utf-8", "replace")

    def changed_files(self, base: str, head: str) -> list[str]:
        out = self.run("diff", "--name-only", "-z", base, head)
        return [p.decode() for p in out.split(b"\0") if p]


# --------------------------------------------------------------------------- YAML with positions

def parse_yaml(text: str, path: str) -> Any:
    """Parse YAML (C loader) or raise one diagnostic at the syntax error."""
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise SweepgateError(Diagnostic(
            path, (mark.line + 1) if mark else 0, (mark.column + 1) if mark else 0, "yaml-syntax",
            f"invalid YAML: {exc.problem or exc.context}", "fix the YAML syntax at this position")) from None
    except yaml.YAMLError as exc:
        raise SweepgateError(Diagnostic(path, 0, 0, "yaml-syntax", f"invalid YAML: {exc}",
                                        "fix the YAML syntax")) from None


def position_index(text: str) -> dict[tuple, tuple[int, int]]:
    """Map every path (tuple of keys/indices) to the 1-based (line, col) where its value starts.

    For mapping entries, the position is that of the key, which is where a reader looks.
    """
    index: dict[tuple, tuple[int, int]] = {}
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return index

    def walk(node, path):
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = key_node.value
                if key_node.tag.endswith(":int"):
                    try:
                        key = int(key)
                    except ValueError:
                        pass
                child = path + (key,)
                index[child] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                walk(value_node, child)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                child = path + (i,)
                index[child] = (item.start_mark.line + 1, item.start_mark.column + 1)
                walk(item, child)

    if root is not None:
        index[()] = (root.start_mark.line + 1, root.start_mark.column + 1)
        walk(root, ())
    return index


@dataclass
class YamlDoc:
    """A parsed YAML file that can locate any of its paths on demand."""

    path: str
    text: str
    data: Any

    @functools.cached_property
    def _positions(self) -> dict[tuple, tuple[int, int]]:
        return position_index(self.text)

    def locate(self, path: tuple) -> tuple[int, int]:
        """(line, col) of ``path``, or of its nearest located ancestor."""
        path = tuple(path)
        while path:
            if path in self._positions:
                return self._positions[path]
            path = path[:-1]
        return self._positions.get((), (1, 1))

    def diag(self, path: tuple, rule: str, message: str, hint: str = "") -> Diagnostic:
        line, col = self.locate(path)
        return Diagnostic(self.path, line, col, rule, message, hint)


def load_doc(path: str, raw: bytes | None) -> YamlDoc:
    if raw is None:
        raise SweepgateError(Diagnostic(path, 0, 0, "missing-file", f"{path} does not exist",
                                        "create it or pass the right path"))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SweepgateError(Diagnostic(path, 0, 0, "encoding", f"not UTF-8 ({exc.reason} at byte {exc.start})",
                                        "save the file as UTF-8")) from None
    return YamlDoc(path, text, parse_yaml(text, path))


# --------------------------------------------------------------------------- a revision's inputs

@dataclass
class Revision:
    """The generation inputs of one revision: master configs and runners, parsed once."""

    ref: str
    masters: list[YamlDoc]
    runners: YamlDoc
    configs: dict[str, dict] = field(default_factory=dict)
    owner: dict[str, YamlDoc] = field(default_factory=dict)

    def where(self, key: str):
        from sweepgate.expand import Where
        doc = self.owner.get(key)
        if doc is None:
            return Where()
        return Where(doc.path, doc.locate((key,))[0])


def master_paths_at(git: Git, ref: str) -> list[str]:
    names = git.list_dir(ref, F.CONFIG_DIR)
    return sorted(p for p in names if fnmatch.fnmatch(Path(p).name, F.MASTER_GLOB))


def load_revision(git: Git, ref: str, config_files: list[str] | None = None,
                  runner_file: str | None = None, *, worktree: bool = False) -> Revision:
    """Read and parse a revision's master configs and runners file (from git, or the work tree)."""
    runner_file = runner_file or F.RUNNERS_FILE
    if worktree:
        root = git.root
        paths = config_files or sorted(
            str(p.relative_to(root)) for p in (root / F.CONFIG_DIR).glob(F.MASTER_GLOB))
        blobs = {p: _read_file(root / p) for p in [*paths, runner_file]}
    else:
        paths = config_files or master_paths_at(git, ref)
        blobs = git.read_blobs(ref, [*paths, runner_file])
    if not paths:
        raise SweepgateError(Diagnostic(F.CONFIG_DIR, 0, 0, "missing-file",
                                        f"no {F.CONFIG_DIR}/{F.MASTER_GLOB} at {ref}",
                                        "add at least one master config file"))
    masters = [load_doc(p, blobs[p]) for p in paths]
    return Revision(ref, masters, load_doc(runner_file, blobs[runner_file]))


def _read_file(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
