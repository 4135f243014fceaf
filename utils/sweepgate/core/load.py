"""Load: git blobs and YAML, with positions when a diagnostic needs them.

Every revision's files are read through one ``git cat-file --batch`` process,
never one subprocess per file or key. YAML is parsed once with libyaml's C
loader (master config blocks by rapidyaml where ``core.fastyaml`` proves the
values equal); positions (line/column of any path) come from a second, lazy compose
of the same text only when something must be reported.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import re
import os
import subprocess
import sys
from collections.abc import Mapping

from sweepgate.core.pyyaml import FastReader, NotFinite, PythonReader, yaml

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError, read_from_the_top
from sweepgate.core.textmode import not_valid_utf8, save_as_utf8, wide_refusal

TYPE_CHECKING = False  # typing's flag without importing typing
if TYPE_CHECKING:  # pathlib (with urllib.parse and ipaddress) is imported where a Path is made: the matrix and
    from pathlib import Path  # the gate make none, and its import cost them about 17M instructions a run

_Loader = FastReader  # libyaml: much faster than PyYAML's Python scanner (``reader_for``)


def repo_root(start: str = ".") -> str:
    """The top of the work tree that holds ``start``, found the way git finds it."""
    proc = subprocess.run(["git", "-C", start, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    top = proc.stdout.strip()
    if proc.returncode != 0 or not top:
        where = os.path.abspath(start)
        reason = "is not inside a git work tree" if "work tree" in proc.stderr else "is not inside a git repository"
        raise SweepgateError(Diagnostic(
            where, 0, 0, GIT_RULE, f"{where} {reason}",
            "cd into a clone of your benchmark repository (git clone, or git init and commit) and run sweepgate there"))
    return top


def _blob_id(data: bytes, like: str) -> str:
    """Git's id of a blob holding ``data``, in the hash of the id ``like`` (SHA-1 or SHA-256)."""
    h = hashlib.sha256() if len(like) == 64 else hashlib.sha1()
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


def as_committed(root, path: str, data: bytes) -> bytes:
    """A work-tree file's bytes as ``git add`` would store them: under core.autocrlf or an ``eol``
    attribute git turns CRLF into LF, so a Windows checkout's changelog is checked as committed,
    not refused line by line. Only a file holding a CR costs a ``git hash-object`` (which writes
    nothing); any other filter, or a git that fails, leaves the bytes as they are."""
    if b"\r" not in data:
        return data
    proc = subprocess.run(["git", "-C", str(root), "hash-object", "--path", path, "--stdin"], input=data,
                          capture_output=True)
    oid = proc.stdout.strip().decode(errors="replace")
    if proc.returncode or oid == _blob_id(data, oid):
        return data
    lf = data.replace(b"\r\n", b"\n")
    return lf if _blob_id(lf, oid) == oid else data


def open_repo(start: str = ".", refs: tuple[str, ...] = ()) -> "Git":
    """A Git reader on the repository that holds ``start`` (any subdirectory of it). ``refs`` are looked
    up in the same git call that finds the repository's top (the matrix and the gate spawned one git
    process more on every run for it); when that call fails (no repository, a ref that is no commit),
    nothing is learnt from it and each is found, and said, as it was before (``Git.resolve_all``)."""
    if refs and all(ref and not ref.startswith("-") for ref in refs):
        proc = subprocess.run(["git", "-C", start, "rev-parse", "--show-toplevel", "--git-common-dir",
                               *(f"{r}^{{commit}}" for r in refs)], capture_output=True, text=True)
        lines = proc.stdout.splitlines()
        if (proc.returncode == 0 and len(lines) == len(refs) + 2 and lines[0]
                and all(F.COMMIT_SHA.fullmatch(line) for line in lines[2:])):
            git = Git(lines[0])
            git._git_dir = os.path.join(os.path.abspath(start), lines[1])  # git says it from ``start``
            git._resolved.update(zip(refs, lines[2:]))
            return git
    return Git(repo_root(start))


# A tree entry's mode for a symbolic link (git stores one as a blob holding the name it points to).
LINK_MODE = b"120000"

# Bytes of requests sent to a cat-file process before its answers are read: git stops reading
# while its answers fill the pipe, so a request larger than the pipe holds would wait for ever.
ASK_BYTES = 16 * 1024

GIT_RULE = "git"  # the title of a git command that failed or ended early
# How a shallow clone gets what it cut off: a ref that is no commit there says it, a commit past the cut
# (HEAD~1 in a depth-1 checkout) or a branch the checkout left out (origin/main)
# A --depth clone fetches its own branch only (its refspec names no other): `git fetch origin BRANCH` writes
# FETCH_HEAD alone, no origin/BRANCH, so the branch is fetched into its remote-tracking name. {remote}: the
# remote the ref names, else the one the branch merges into (``upstream.merged_into``).
SHALLOW_FETCH = ("fetch it first: git fetch --deepen N for history past the cut, "
                 "git fetch {remote} BRANCH:refs/remotes/{remote}/BRANCH for a branch left out; "
                 "fetch-depth: 0 in actions/checkout")
YAML_RULE = "yaml-syntax"  # the title of text that is not YAML


def _chunks(specs: list[str]) -> list[list[str]]:
    """``specs`` in runs whose request lines fit ``ASK_BYTES`` (one spec a run at least)."""
    runs, run, size = [], [], 0
    for spec in specs:
        n = len(spec.encode()) + 1
        if run and size + n > ASK_BYTES:
            runs.append(run)
            run, size = [], 0
        run.append(spec)
        size += n
    return runs + [run] if run else runs


class Git:
    """Read-only access to one repository's objects.

    Object reads go through one long-lived ``git cat-file --batch`` process.
    """

    def __init__(self, root=".") -> None:
        self._root = os.fspath(root)
        self._batch: subprocess.Popen | None = None
        self._resolved: dict[str, str] = {}
        self._trees: dict[tuple[str, str], dict[str, str]] = {}
        self._reads: dict[tuple[str, str], tuple[str, bytes | None]] = {}
        self._worktree: dict[tuple[str, int], tuple[str, bytes | None]] = {}  # (path, id length) -> (id, bytes)
        self._check: subprocess.Popen | None = None
        self._links: set[tuple[str, str]] = set()  # (ref, path) of each symbolic link a tree read met

    def run(self, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
        proc = subprocess.run(["git", "-C", self._root, *args], capture_output=True, input=input)
        if check and proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SweepgateError(Diagnostic(
                self._root, 0, 0, GIT_RULE, f"git {' '.join(args[:3])} failed: {err[-1] if err else proc.returncode}",
                "check that the refs exist (fetch with enough depth) and that this is a git repository"))
        return proc.stdout

    @property
    def root(self):
        """The repository directory as a pathlib.Path (imported only when asked for)."""
        from pathlib import Path

        return Path(self._root)

    def is_ancestor(self, ancestor: str, commit: str) -> bool:
        """Whether ``ancestor`` is ``commit`` or one of its ancestors."""
        return subprocess.run(["git", "-C", self._root, "merge-base", "--is-ancestor", ancestor, commit],
                              capture_output=True).returncode == 0

    def defined_at(self, commit: str | None, key: str) -> str | None:
        """``path:line`` of a top-level ``key:`` in a YAML file under configs/ at ``commit`` (None: the
        working tree, untracked files too) -- a file the matrix may not read as a master config -- or None."""
        pattern = "^[\"']?" + re.escape(key) + "[\"']?[ \t]*:"
        where = [commit] if commit else ["--untracked"]
        out = self.run("grep", "-z", "-n", "-I", "-E", "-e", pattern, *where, "--", f"{F.CONFIG_DIR}/*.yaml",
                       f"{F.CONFIG_DIR}/*.yml", check=False).decode("utf-8", "replace")
        parts = out.split("\0")  # [COMMIT:]PATH NUL LINE NUL TEXT: a path may hold ':' itself
        if len(parts) < 3 or not parts[1].isdigit():
            return None
        path = parts[0][len(commit) + 1:] if commit else parts[0]
        return f"{path}:{parts[1]}"

    @functools.cached_property
    def shallow(self) -> bool:
        """Whether this clone's history is cut short (``fetch-depth: 1``): ancestry may be unknowable."""
        proc = subprocess.run(["git", "-C", self._root, "rev-parse", "--is-shallow-repository"],
                              capture_output=True, text=True)
        return proc.stdout.strip() == "true"

    def resolve(self, ref: str, flag: str | None = None, example=None) -> str:
        """Commit id of ``ref``, or a diagnostic saying it is not a commit here; its hint names
        ``flag``, the option that passes the ref, and ``example()``, a value for it that exists
        (a function: looking one up costs git calls, made only when ``ref`` is no commit)."""
        try:
            return self.resolve_all(ref)[0]
        except SweepgateError:
            if flag is None:
                raise
            raise self._not_a_commit(ref, flag, example() if example else None, self.near_ref(ref)) from None

    def resolve_all(self, *refs: str) -> list[str]:
        """Commit ids of refs (one git call for all of them; learns the git dir on the way)."""
        wanted = [r for r in refs if r not in self._resolved]
        for ref in wanted:
            if not ref or ref.startswith("-"):  # git reads it as an option ('--all'), or echoes it back
                raise self._not_a_commit(ref)
        if wanted:
            proc = subprocess.run(["git", "-C", self._root, "rev-parse", "--git-common-dir",
                                   *(f"{r}^{{commit}}" for r in wanted)], capture_output=True, text=True)
            lines = proc.stdout.split()
            if (proc.returncode == 0 and len(lines) == len(wanted) + 1
                    and all(F.COMMIT_SHA.fullmatch(line) for line in lines[1:])):
                self._git_dir = lines[0]
                self._resolved.update(zip(wanted, lines[1:]))
            else:
                for ref in wanted:
                    one = self.commit_of(ref)  # '' when git fails: --verify prints a name only on success
                    if not F.COMMIT_SHA.fullmatch(one):
                        raise self._not_a_commit(ref)
                    self._resolved[ref] = one
        return [self._resolved[r] for r in refs]

    def commit_of(self, ref: str) -> str:
        """Commit id of ``ref``, or '' when it is no commit here (git says nothing, nothing is raised).
        Asked anew each time, never from ``resolve``'s memory: MERGE_HEAD, REBASE_HEAD and HEAD itself
        come and go while a conflict is being resolved."""
        return self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).decode().strip()

    def _not_a_commit(self, ref: str, flag: str | None = None, example: str | None = None,
                      near: str | None = None) -> SweepgateError:
        where = f"'{ref}' is not a commit in {os.path.abspath(self._root)}"
        if self._no_commit():  # `git init`, the first commit not made: no ref names a commit, none can be fetched
            return SweepgateError(Diagnostic(
                "git", 0, 0, F.GIT_REF_RULE, f"{where} (this repository has no commit yet)",
                "make the first commit (git commit), then pass its branch; sweepgate validate --staged checks "
                "the changelog staged for it"))
        # A shallow clone ('HEAD~1', 'origin/main' past a depth-1 checkout) lacks what it never fetched: say so.
        fetch = self._shallow_fetch(ref) if self.shallow else self._fetch_hint(ref)
        cut = "this clone is shallow" if self.shallow else ""
        if flag and near:  # a typo of a name that is here: 'mian', 'orgin/main'
            said = "; ".join(filter(None, (cut, f"did you mean {near}?")))
            return SweepgateError(Diagnostic("git", 0, 0, F.GIT_REF_RULE, f"{where} ({said})",
                                             f"pass {flag} {near}, or another branch, tag or commit that exists "
                                             f"here ({fetch})"))
        what = "a branch, tag or commit that exists here" + (f", e.g. {flag} {example}" if flag and example else "")
        return SweepgateError(Diagnostic(
            "git", 0, 0, F.GIT_REF_RULE, f"{where} ({cut})" if cut else where,
            f"pass {f'{flag} with ' if flag else ''}{what} ({fetch})"))

    def _remote_branch(self, ref: str) -> tuple[str, str] | None:
        """(remote, branch) of ``ref`` when it names a branch of a remote here ('upstream/main~1'), else None."""
        name = re.split(r"[~^@:]", ref, maxsplit=1)[0].removeprefix("refs/remotes/")
        remote, _, branch = name.partition("/")
        return (remote, branch) if branch and remote in self.run("remote", check=False).decode().split() else None

    def _fetch_hint(self, ref: str) -> str:
        """How a full clone gets ``ref``, no commit here: a remote's branch ('origin/main' in a clone made with
        --single-branch -b feature) by the fetch that writes it whatever the remote's refspec names
        (``upstream.fetch_command``); any other ref, fetched in CI."""
        from sweepgate.core.upstream import fetch_command

        named = self._remote_branch(ref)
        return f"fetch it first: {fetch_command(*named)}" if named else "fetch it first in CI"

    def _shallow_fetch(self, ref: str) -> str:
        """How a shallow clone gets what it cut off (``SHALLOW_FETCH``), from the remote ``ref`` names, else
        the one this branch merges into: a remote this clone has (upstream in a clone that has no origin)."""
        from sweepgate.core.upstream import merged_into

        named = self._remote_branch(ref)
        return SHALLOW_FETCH.replace("{remote}", named[0] if named else merged_into(self)[0])

    def _no_commit(self) -> bool:
        """Whether the repository holds no ref at all and HEAD names no commit: a new one, before its first commit."""
        return not (self.commit_of("HEAD") or self.run("for-each-ref", "--count=1", "refs/", check=False).strip())

    def near_ref(self, ref: str) -> str | None:
        """The branch, remote-tracking branch or tag here whose name is nearest ``ref``, a revision that is no
        commit here, with ``ref``'s own ``~N``/``^`` suffix ('mian~1' -> 'main~1'); None when none is near (a
        commit not fetched, a name of another repository)."""
        import difflib

        name, suffix = re.fullmatch(r"(.*?)([~^].*)?", ref).groups()
        proc = subprocess.run(["git", "-C", self._root, "for-each-ref", "--format=%(refname:short)",
                               "refs/heads", "refs/remotes", "refs/tags"], capture_output=True, text=True)
        names = ["HEAD", *(n for n in proc.stdout.splitlines() if n)] if proc.returncode == 0 else []
        if not name or name in names:  # 'main~1000' past a shallow history: no other name is meant
            return None
        spelt = {n.lower(): n for n in reversed(names)}  # 'head' for HEAD: case as typed
        near = difflib.get_close_matches(name.lower(), list(spelt), n=1, cutoff=0.75)
        return spelt[near[0]] + (suffix or "") if near else None

    # -- object reads ---------------------------------------------------------------

    def objects(self, specs: list[str]) -> list[tuple[str, str, bytes | None]]:
        """(object id, type, content) for each ``rev:path`` spec; ('', 'missing', None) if absent."""
        return [answer for chunk in _chunks(specs) for answer in self._objects(chunk)]

    def _objects(self, specs: list[str]) -> list[tuple[str, str, bytes | None]]:
        if not specs:
            return []
        if self._batch is None or self._batch.poll() is not None:
            self._batch = subprocess.Popen(["git", "-C", self._root, "cat-file", "--batch"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=subprocess.DEVNULL)
        proc = self._batch
        self._ask(proc, specs)
        out = []
        for _ in specs:
            line = proc.stdout.readline().rstrip(b"\n")
            if not line:  # no answer line is empty: the end of git's output, git has exited
                proc.wait()
                raise self._batch_ended()
            # "<spec> missing" / "<spec> ambiguous": the spec itself may hold spaces.
            header = line.split()
            if len(header) < 3 or line.endswith((b" missing", b" ambiguous")) or not header[2].isdigit():
                out.append(("", "missing", None))
                continue
            size = int(header[2])
            content = proc.stdout.read(size)
            proc.stdout.read(1)
            out.append((header[0].decode(), header[1].decode(), content))
        return out

    def _ask(self, proc: subprocess.Popen, specs: list[str]) -> None:
        """Send ``specs`` to a cat-file process; one that has already exited (a folder that is no
        repository: git quits at once) is said as such, not as a broken pipe."""
        try:
            proc.stdin.write("".join(f"{s}\n" for s in specs).encode())
            proc.stdin.flush()
        except BrokenPipeError:
            proc.wait()
            raise self._batch_ended() from None

    def _batch_ended(self) -> SweepgateError:
        """git cat-file died mid-stream: at once when the folder is no repository (a --keys-from, --tools or
        library caller's path, never checked), else an I/O failure, not a missing file."""
        repo_root(self._root)  # raises "is not inside a git repository" when it is not one
        return SweepgateError(Diagnostic(self._root, 0, 0, GIT_RULE, "git cat-file --batch ended early",
                                         "check the repository (git fsck) and rerun"))

    def close(self) -> None:
        for proc in (self._batch, self._check):
            if proc is not None:
                try:
                    proc.stdin.close()
                except BrokenPipeError:  # requests still buffered for a git that has exited
                    pass
                # A read cut short (Ctrl-C mid-blob) leaves git writing the rest: with its pipe closed it
                # ends (EPIPE) instead of blocking the wait forever.
                proc.stdout.close()
                proc.wait()
        self._batch = self._check = None

    def __del__(self):  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass

    def list_dir(self, ref: str, directory: str) -> list[str]:
        """Paths of the blobs directly inside ``directory`` at ``ref``."""
        return list(self.tree_blobs(ref, directory))

    def tree_blobs(self, ref: str, directory: str) -> dict[str, str]:
        """{path: blob id} of the files directly inside ``directory`` at ``ref`` (one tree read)."""
        directory = directory.rstrip("/")
        if (ref, directory) in self._trees:
            return self._trees[(ref, directory)]
        (oid, kind, tree), = self.objects([f"{ref}:{directory}"])
        blobs: dict[str, str] = {}
        if kind == "tree" and tree is not None:
            width = len(oid) // 2  # 20 bytes in SHA-1 repositories, 32 in SHA-256 ones
            pos = 0
            while pos < len(tree):
                space = tree.index(b" ", pos)
                nul = tree.index(b"\0", space)
                mode, name = tree[pos:space], tree[space + 1:nul].decode("utf-8", "replace")
                if not mode.startswith(b"4"):  # skip subtrees
                    path = f"{directory}/{name}" if directory else name
                    blobs[path] = tree[nul + 1:nul + 1 + width].hex()
                    if mode == LINK_MODE:
                        self._links.add((ref, path))
                pos = nul + 1 + width
        self._trees[(ref, directory)] = blobs
        return blobs

    def link_at(self, ref: str, path: str) -> bytes | None:
        """The name the symbolic link ``path`` points to at ``ref`` (git stores a link as a blob of that
        name, which a read of ``ref:path`` returns as the file's content); None when it is no link there."""
        if self._tree_id(ref, path) and (ref, path) in self._links:
            return self.read_blobs(ref, [path])[path]
        return None

    def read_blobs(self, ref: str, paths: list[str]) -> dict[str, bytes | None]:
        """Contents of several files at ``ref``; None for missing files."""
        return {p: content for p, (_, content) in self.read_blob_ids(ref, paths).items()}

    def read_blob_ids(self, ref: str, paths: list[str]) -> dict[str, tuple[str, bytes | None]]:
        """(blob id, contents) of several files at ``ref``.

        A file whose work-tree copy hashes to the blob id at ``ref`` is read from disk, which
        costs a fraction of inflating it from the object store; a file is read once per run.
        """
        out: dict[str, tuple[str, bytes | None]] = {}
        rest = []
        for path in paths:
            if (ref, path) in self._reads:
                out[path] = self._reads[(ref, path)]
                continue
            oid = self._tree_id(ref, path)
            data = self._worktree_copy(path, oid) if oid else None
            if data is None:
                rest.append(path)
            else:
                out[path] = self._reads[(ref, path)] = (oid, data)
        for path, (oid, kind, content) in zip(rest, self.objects([f"{ref}:{p}" for p in rest])):
            out[path] = self._reads[(ref, path)] = (oid, content if kind == "blob" else None)
        return {p: out[p] for p in paths}

    def read_prefix(self, ref: str, path: str, longer: bytes) -> bytes | None:
        """Contents of ``path`` at ``ref``; when ``longer`` starts with them they are taken from it
        (checked by blob id and size, so the blob itself is never inflated)."""
        if (ref, path) not in self._reads:
            oid, kind, size = self.info([f"{ref}:{path}"])[0]
            if kind == "blob" and size <= len(longer) and _blob_id(longer[:size], oid) == oid:
                self._reads[(ref, path)] = (oid, longer[:size])
        return self.read_blobs(ref, [path])[path]

    def info(self, specs: list[str]) -> list[tuple[str, str, int]]:
        """(object id, type, size) of each spec, ('', 'missing', 0) if absent; contents are not read."""
        return [answer for chunk in _chunks(specs) for answer in self._info(chunk)]

    def _info(self, specs: list[str]) -> list[tuple[str, str, int]]:
        if self._check is None or self._check.poll() is not None:
            self._check = subprocess.Popen(["git", "-C", self._root, "cat-file", "--batch-check"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=subprocess.DEVNULL)
        self._ask(self._check, specs)
        out = []
        for _ in specs:
            line = self._check.stdout.readline()
            if not line:
                self._check.wait()
                raise self._batch_ended()
            header = line.split()
            ok = len(header) == 3 and header[2].isdigit()
            out.append((header[0].decode(), header[1].decode(), int(header[2])) if ok else ("", "missing", 0))
        return out

    def _tree_id(self, ref: str, path: str) -> str:
        folder, _, _ = path.rpartition("/")
        return self.tree_blobs(ref, folder).get(path, "")

    def _worktree_copy(self, path: str, oid: str) -> bytes | None:
        """The work tree's bytes of ``path`` if they are exactly blob ``oid``, else None (each file
        is read and hashed once a run, however many revisions ask)."""
        key = (path, len(oid))
        if key not in self._worktree:
            try:
                with open(os.path.join(self._root, path), "rb") as f:
                    data = f.read()
            except OSError:
                data = None
            self._worktree[key] = (_blob_id(data, oid) if data is not None else "", data)
        found, data = self._worktree[key]
        return data if found == oid else None

    @functools.cached_property
    def git_dir(self) -> str | None:
        raw = getattr(self, "_git_dir", None)
        if raw is None:
            proc = subprocess.run(["git", "-C", self._root, "rev-parse", "--git-common-dir"],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                return None
            raw = proc.stdout.strip()
        return raw if os.path.isabs(raw) else os.path.join(self._root, raw)

    @functools.cached_property
    def cache(self):
        from sweepgate.core.cache import Cache

        return Cache.for_git_dir(self.git_dir)

    def diff(self, base: str, head: str, path: str) -> str:
        out = self.run("diff", "--no-color", "--no-ext-diff", "-U0", base, head, "--", path)
        return out.decode("utf-8", "replace")

    def changed_files(self, base: str, head: str) -> list[str]:
        out = self.run("diff", "--name-only", "-z", base, head)
        return [p.decode() for p in out.split(b"\0") if p]


# --------------------------------------------------------------------------- YAML with positions

def reader_for(text: str):
    """The loader that reads ``text`` as the reference's ``yaml.safe_load`` does: libyaml (C) for
    speed, but PyYAML's own Python scanner for a text holding a tab, since libyaml takes tabs the
    Python scanner refuses (after a value, before a comment, as the space after a colon)."""
    return PythonReader if "\t" in text else _Loader


def reference_reads(text: str) -> bool:
    """Whether PyYAML's Python scanner (the reference's ``yaml.safe_load``) takes ``text``'s tokens."""
    try:
        for _ in yaml.scan(text, Loader=PythonReader):
            pass
    except yaml.YAMLError:
        return False
    return True


def parse_yaml(text: str, path: str) -> object:
    """Parse YAML (``reader_for``) or raise one diagnostic at the syntax error."""
    from sweepgate.core.yamlsafe import places, refuse_alias_bomb, unseen_break_blamed

    try:
        data = yaml.load(text, Loader=reader_for(text))
    except NotFinite as exc:
        raise SweepgateError(Diagnostic(path, *places(text)(exc.problem_mark), "not-finite", exc.problem,
                                        "write a finite number")) from None
    except yaml.MarkedYAMLError as exc:
        mark, message = exc.problem_mark or exc.context_mark, f"invalid YAML: {exc.problem or exc.context}"
        if mark and (blamed := unseen_break_blamed(text, mark.index, reader_for(text))):  # s50c: a pasted U+2028
            at, what, fix = blamed
            raise SweepgateError(Diagnostic(path, text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at),
                                            YAML_RULE, f"invalid YAML: {what}", fix)) from None
        at_end = exc.problem_mark is not None and not text[exc.problem_mark.index:].strip()
        if exc.context_mark is not None and exc.context and ("end of stream" in (exc.problem or "") or at_end):
            # An unclosed quote or bracket: the end of the file is not where the mistake is.
            mark = exc.context_mark
            what = exc.context.removeprefix("while scanning ").removeprefix("while parsing ")
            message = f"invalid YAML: {what} starting here is never closed"
        line, col = places(text)(mark) if mark else (0, 0)
        fix, indent = "fix the YAML syntax at this position", _indent_hint(text, exc, mark, line - 1)
        if mark and mark.index >= len(text.rstrip()) and text.strip():  # past the last character: at it
            before = text.rstrip()
            line, col = before.count("\n") + 1, len(before) - before.rfind("\n") - 1
        if indent:  # a line indented as no block above it is: say which indents those blocks use
            message, fix = f"{message}: {indent[0]}", indent[1]
        raise SweepgateError(Diagnostic(path, line, col, YAML_RULE, message, fix)) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, other controls)
        before = text[:exc.position] if isinstance(exc.position, int) else ""
        raise SweepgateError(Diagnostic(
            path, before.count("\n") + 1, len(before) - before.rfind("\n"), YAML_RULE,
            f"invalid YAML: character #x{exc.character if isinstance(exc.character, int) else ord(exc.character):04x} "
            "is not allowed in YAML", "remove it (a control character pasted with the text?)")) from None
    except yaml.YAMLError as exc:
        raise SweepgateError(Diagnostic(path, 0, 0, YAML_RULE, f"invalid YAML: {exc}".replace("\n", " "),
                                        "fix the YAML syntax")) from None
    refuse_alias_bomb(data, text, path)
    return data


def _indent_hint(text: str, exc, mark, line0: int) -> tuple[str, str] | None:
    """``core.yamlindent``'s account of a block's missing key or item (libyaml's `did not find
    expected ...`, the Python scanner's `expected <block end>, ...`) or of a key indented under the
    value above it (`mapping values are not allowed`), at the line the parser stopped at (``line0``, 0-based, by the
    file's line feeds: PyYAML's ``mark.line`` counts a U+2028 too, s50c)."""
    from sweepgate.core.yamlindent import continuation_hint, indent_hint

    problem = exc.problem or ""
    if mark is not exc.problem_mark:
        return None
    if problem.startswith("mapping values are not allowed"):  # a key read as more of the value above
        return continuation_hint(text, line0)
    if problem.startswith(("did not find expected", "expected <block end>")):
        return indent_hint(text, line0)
    return None


def parse_strict(path: str, text: str, line_of=None, found=(), *, as_reference: bool = False) -> object:
    """Parse YAML under the hygiene rules (``core.yamlsafe``), or raise every problem.

    ``line_of`` maps a line of ``text`` to the line reported; ``found`` are problems
    the caller already has (they are reported together, and skip the duplicate-key pass).
    ``as_reference``: read it as the reference's ``yaml.safe_load`` does instead of under the
    hygiene rules: a key repeated in a mapping keeps its last value, and anchors, aliases and
    merge keys are taken (an alias bomb is still refused, and a tag safe_load cannot build).
    """
    from sweepgate.core import yamlsafe

    line_of = line_of or (lambda n: n)
    diags = [*found, *(() if as_reference else (*yamlsafe.refuse_features(path, text, line_of),
                                                *yamlsafe.yaml11_booleans(path, text, line_of)))]
    if not diags and not as_reference:  # composing aliases would walk an alias bomb's shared nodes
        diags = yamlsafe.duplicate_keys(path, text, line_of)
    if diags:
        raise SweepgateError(diags)
    try:
        return parse_yaml(text, path)
    except SweepgateError as exc:
        raise SweepgateError([Diagnostic(d.file, line_of(d.line), d.col, d.rule, d.message, d.hint)
                              for d in exc.diagnostics]) from None


# The last element of a path that asks for where a mapping entry's scalar value starts, not its key
# (``YamlDoc.locate``): a bad value is shown at the value, a bad or missing field at its key. No YAML key of ours
# is this text (a NUL needs a quoted escape).
VALUE = "\0value"


def at_value(path: tuple) -> tuple:
    """``path`` located at its value when that is a scalar, or a flow list or mapping, of a mapping entry
    (``VALUE``), else as ``path``."""
    return (*path, VALUE)


def position_index(text: str) -> dict[tuple, tuple[int, int]]:
    """Map every path (tuple of keys/indices) to the 1-based (line, col) where its value starts.

    For mapping entries, the position is that of the key, which is where a reader looks; the path with
    ``VALUE`` after it holds the position of the entry's value when that is a scalar or a flow list or mapping
    (``_value_start``).
    """
    from sweepgate.core.yamlsafe import places

    index: dict[tuple, tuple[int, int]] = {}
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return index
    place = places(text)  # by the file's line feeds, which a U+2028 PyYAML breaks at is not

    flat: dict[int, dict] = {}  # a merged mapping's keys (``_merged_pairs``), worked out once

    def walk(node, path):  # an alias's value under each path to it: parse_yaml refused a bomb already
        if isinstance(node, yaml.MappingNode):
            merges = any(key_node.tag == MERGE_TAG for key_node, _ in node.value)
            for key_node, value_node in _merged_pairs(node, flat).values() if merges else node.value:
                child = path + (_key(key_node),)
                index[child] = place(key_node.start_mark)
                if (value := _value_start(value_node, text, place)) is not None:
                    index[child + (VALUE,)] = value
                walk(value_node, child)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                child = path + (i,)
                index[child] = place(item.start_mark)
                walk(item, child)

    if root is not None:
        index[()] = place(root.start_mark)
        walk(root, ())
    return index


MERGE_TAG = "tag:yaml.org,2002:merge"  # a `<<` key's, as PyYAML's resolver tags it


def _merged_pairs(node, flat: dict[int, dict]) -> dict:
    """{key: (key node, value node)} of a mapping node with what it merges (``<<``), each merged mapping worked out
    once (``flat``, by node id): its own keys win, then the first of several merged mappings, as PyYAML's merge
    takes them."""
    if id(node) in flat:
        return flat[id(node)]  # a mapping that merges itself has, there, nothing more
    out = flat[id(node)] = {}
    for key_node, value_node in node.value:
        if key_node.tag == MERGE_TAG:
            merged = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for each in reversed(merged):
                if isinstance(each, yaml.MappingNode):
                    out.update(_merged_pairs(each, flat))
    out.update({_key(key_node): (key_node, value_node) for key_node, value_node in node.value
                if key_node.tag != MERGE_TAG})
    return out


def _key(node):
    """A mapping key node's value as a path holds it: an int key as int, any other as its text."""
    if node.tag[-4:] == ":int":
        try:
            return int(node.value)
        except ValueError:
            pass
    return node.value


def _value_start(node, text: str, place) -> tuple[int, int] | None:
    """1-based (line, col) where a mapping entry's value ``node`` starts, for ``VALUE``: a scalar's first character,
    on the next line when it is written there; a block scalar's (`key: >-`) first line of text, not its indicator
    on the key's line (at the indicator when it holds no text); a flow list's or mapping's `[` or `{`. None for
    `k:` with nothing after it, and for a block list or mapping, whose items and keys stand at themselves.
    An anchor or a tag before the value (`k: &a x`, `k: !!str x`), where PyYAML starts the node, is passed over."""
    mark = node.start_mark
    if isinstance(node, yaml.ScalarNode):
        if not (node.value or node.style):
            return None
        if node.style in ("|", ">"):
            start, end = text.find("\n", mark.index) + 1, node.end_mark.index
            while 0 < start < end:
                stop = text.find("\n", start)
                line = text[start:stop if stop >= 0 else len(text)]
                if line.strip():
                    return place(mark)[0] + text.count("\n", mark.index, start), len(line) - len(line.lstrip(" ")) + 1
                start = stop + 1 if stop >= 0 else end
    elif not node.flow_style:
        return None
    at = _PROPERTIES.match(text, mark.index).end() if text[mark.index:mark.index + 1] in ("&", "!") else mark.index
    if at == mark.index or at >= node.end_mark.index:
        return place(mark)
    return place(mark)[0] + text.count("\n", mark.index, at), at - text.rfind("\n", 0, at)


# An anchor's or tag's words before a node's value, with the blanks, line breaks and comments after them
_PROPERTIES = re.compile(r"(?:[&!]\S*(?:[ \t]+(?:#[^\n]*)?|(?:#[^\n]*)?\r?\n)*)+")


class YamlDoc:
    """A parsed YAML file that can locate any of its paths on demand.

    ``blocks`` maps each top-level key to the content hash of its block (when the
    file was split for caching); ``blob`` is the content id of the whole file.
    ``located``: whether ``diag`` finds a problem's line and column (composing the YAML again for them);
    False where only what the problems are matters (``configgate.also_on_base``): line 0.
    """

    located = True

    def __init__(self, path: str, text: str, data: object, blocks: dict[str, str] | None = None, blob: str = ""):
        self.path, self.text, self.data, self.blocks, self.blob = path, text, data, blocks, blob

    @functools.cached_property
    def _positions(self) -> dict[tuple, tuple[int, int]]:
        return position_index(self.text)

    def _index_for(self, path: tuple) -> dict[tuple, tuple[int, int]]:
        """Positions for ``path`` (the whole file's; ``MasterDoc`` indexes one block)."""
        return self._positions

    def locate(self, path: tuple) -> tuple[int, int]:
        """(line, col) of ``path``, or of its nearest located ancestor (``at_value(path)``: of its scalar value,
        else of ``path``)."""
        path = tuple(path)
        index = self._index_for(path)
        while path:
            if path in index:
                return index[path]
            path = path[:-1]
        return index.get((), (1, 1))

    def locate_value(self, path: tuple) -> tuple[int, int]:
        """(line, col) of the value at ``path`` (``at_value``): how ``expand.Where`` asks, this module importing it."""
        return self.locate(at_value(path))

    def diag(self, path: tuple, rule: str, message: str, hint: str = "") -> Diagnostic:
        line, col = self.locate(path) if self.located else (0, 0)
        return Diagnostic(self.path, line, col, rule, message, hint)


def _uncommitted(path: str) -> bool:
    """Whether ``path``, from the top, which the revision read lacks, is a file of the work tree."""
    from sweepgate.core.worktop import enclosing_top

    top = enclosing_top()
    return bool(top) and not os.path.isabs(path) and os.path.isfile(os.path.join(top, path))


def _decode(path: str, raw: bytes | None, example: str | None = None) -> str:
    """``raw`` as text; None is a file not there, said with ``example``, a file of its kind (walker s43: a missing
    `--config-files nope.yaml` was shown the runners file as its example)."""
    if raw is None:
        if _uncommitted(path):  # read at a ref: creating it or passing its path again would change nothing
            raise SweepgateError(Diagnostic(path, 0, 0, F.MISSING_FILE_RULE, "not in the commit read; the work tree "
                                            "has it, uncommitted", f"commit it (git add {path}, then git commit) "
                                            "and rerun"))
        raise SweepgateError(Diagnostic(path, 0, 0, F.MISSING_FILE_RULE, "does not exist",
                                        "create the file, or pass the path of one from the current folder or from "
                                        "the repository's top" + (f" (e.g. {example})" if example else "")))
    if wide := wide_refusal(raw):  # UTF-16 of ASCII text decodes as UTF-8, its NULs then no YAML: the encoding
        raise SweepgateError(Diagnostic(path, 1, 0, F.ENCODING_RULE, *wide))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:  # at its line and column (in bytes), as the changelog gate says it
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        raise SweepgateError(Diagnostic(path, raw.count(b"\n", 0, exc.start) + 1, exc.start - line_start + 1,
                                        F.ENCODING_RULE, not_valid_utf8(raw[exc.start]), save_as_utf8())) from None


def load_doc(path: str, raw: bytes | None, example: str | None = None) -> YamlDoc:
    text = _decode(path, raw, example)
    return YamlDoc(path, text, parse_yaml(text, path))


_TOP_KEY = r"""(?:"[^"\n]*"|'[^'\n]*'|[A-Za-z0-9_.][^:#\n]*?)[ \t]*:(?:[ \t]|$)"""
NOT_A_KEY = b" \t\r#\n"  # what a line that starts a block cannot start with
_BLOCK_START = rf"\n[^{NOT_A_KEY.decode()}]"  # a line that starts a block (or is unusual)
# The same patterns for text and for raw bytes (offsets into the bytes are what the cache keeps).
_PATTERNS = {str: (re.compile(_TOP_KEY, re.M), re.compile(_BLOCK_START)),
             bytes: (re.compile(_TOP_KEY.encode(), re.M), re.compile(_BLOCK_START.encode()))}


_SPANS_SEEN: list[tuple[str | bytes, list | None]] = []  # the last texts split (the gate splits one twice)


def block_spans(text: str | bytes) -> list[tuple[int, int, int]] | None:
    """(0-based first line, start, end) of each top-level block of a block-style mapping.

    Returns None when the file is not plainly shaped that way (flow style,
    document markers, anything unusual at column 0), so callers parse it whole.
    Lines before the first key (comments, blank lines) belong to no block.
    """
    for seen, spans in _SPANS_SEEN:
        if seen is text:
            return None if spans is None else list(spans)
    spans = _split(text)
    _SPANS_SEEN[:] = [(text, spans), *_SPANS_SEEN[:1]]
    return None if spans is None else list(spans)


def _split(text: str | bytes) -> list[tuple[int, int, int]] | None:
    top_key, block_start = _PATTERNS[type(text)]
    newline, not_a_key = ("\n", NOT_A_KEY.decode()) if isinstance(text, str) else (b"\n", NOT_A_KEY)
    starts = [0] if text[:1] and text[:1] not in not_a_key else []
    starts += [m.start() + 1 for m in block_start.finditer(text)]
    spans, line, last = [], 0, 0
    for offset in starts:
        if not top_key.match(text, offset):
            return None
        line += text.count(newline, last, offset)
        last = offset
        spans.append(line)
    ends = starts[1:] + [len(text)]
    return list(zip(spans, starts, ends))


def block_spans_around(text: bytes, lo: int, hi: int) -> list[tuple[int, int, int]]:
    """The ``block_spans`` of ``text`` that share a byte with [lo, hi) (line numbers left 0), found
    without splitting the rest of the file; [] when that stretch is empty or not plainly shaped."""
    top_key, block_start = _PATTERNS[bytes]
    hi = min(hi, len(text))
    if hi <= lo:
        return []
    start = lo
    while start > 0 and not (text[start - 1:start] == b"\n" and text[start:start + 1] not in NOT_A_KEY):
        start = text.rfind(b"\n", 0, start - 1) + 1  # the previous line's start
    if start == 0 and text[:1] in NOT_A_KEY:
        first = block_start.search(text)  # text before the first key belongs to no block
        start = first.start() + 1 if first else len(text)
    if start >= hi:  # the stretch lies in the text before the first key
        return []
    after = block_start.search(text, hi - 1)
    end = after.start() + 1 if after else len(text)
    starts = [start] + [m.start() + 1 for m in block_start.finditer(text, start, end)]
    if not all(top_key.match(text, offset) for offset in starts):
        return []
    return [(0, s, e) for s, e in zip(starts, starts[1:] + [end])]


def top_key(block: bytes, start: int = 0) -> str:
    """The key a block found by ``block_spans`` starts with (in ``block``, or at ``start`` of the
    file's bytes), without its quotes."""
    head = _PATTERNS[bytes][0].match(block, start).group()
    key = head[:head.rindex(b":")].rstrip(b" \t").decode("utf-8", "replace")
    return key[1:-1] if key[:1] in "\"'" and len(key) > 1 else key


def block_text(text: str | bytes, start: int, end: int) -> str | bytes:
    """One block's text; the last block always ends with one more newline than the file."""
    newline = "\n" if isinstance(text, str) else b"\n"
    return text[start:end] + newline if end == len(text) else text[start:end]


def split_blocks(text: str) -> list[tuple[int, str]] | None:
    """(0-based first line, block text) of each top-level block, or None (see ``block_spans``)."""
    spans = block_spans(text)
    return None if spans is None else [(line, block_text(text, a, b)) for line, a, b in spans]


def _json_safe(value) -> bool:
    try:
        return json.loads(json.dumps(value)) == value
    except (TypeError, ValueError):
        return False


BULK = 64  # from this many blocks on, the cached values are worth reading in
FAST_YAML = 16  # from this many blocks on, importing rapidyaml costs less than PyYAML would


def _parse_blocks(path: str, texts: list[str], hashes: list[str], cache) -> list[object]:
    """The parsed value (or None) of each block: cached, else rapidyaml where it provably
    agrees with PyYAML (``core.fastyaml``), else PyYAML. Few blocks skip both. A block whose aliases
    expand past ``yamlsafe.EXPANDED_VALUES_LIMIT`` values is None: the whole file's parse refuses it."""
    from sweepgate.core import yamlsafe

    keep = cache is not None and cache.dir is not None and len(texts) >= BULK
    values = [cache.block(path, h) if keep else None for h in hashes]
    missing = [i for i, v in enumerate(values) if v is None]
    # A few blocks cost less through PyYAML than importing rapidyaml does.
    fast = [None] * len(missing)
    if len(missing) >= FAST_YAML or "ryml" in sys.modules:
        from sweepgate.core import fastyaml

        fast = fastyaml.load_blocks([texts[i] for i in missing])
    for i, built in zip(missing, fast):
        if built is not None:  # built from JSON: plain data already
            values[i] = built[0]
            if keep:
                cache.add_block(path, hashes[i], values[i])
            continue
        try:
            values[i] = yaml.load(texts[i], Loader=_Loader)
        except yaml.YAMLError:
            continue
        if yamlsafe.alias_bomb_at(values[i], texts[i]) is not None:  # refused by the whole file's parse
            values[i] = None
            continue
        if keep and _json_safe(values[i]):
            cache.add_block(path, hashes[i], values[i])
    return values


class MasterDoc(YamlDoc):
    """A master config split at its top-level keys; a block is parsed when its value is needed.

    ``blocks`` maps each config key to the hash of its block's bytes, which is what the
    verdict cache is keyed by: a block whose verdict is known is never parsed unless
    its value is asked for (the selected configs of a change). Spans are byte offsets,
    so one block is decoded without decoding the file.
    """

    def __init__(self, path: str, raw: bytes | None, blob: str, spans: dict[str, tuple[int, int, int]],
                 blocks: dict[str, str], values: dict[str, object], cache, read=None, text: str | None = None):
        self._raw, self._read = raw, read  # ``read`` gives the file's bytes when ``raw`` was not given
        super().__init__(path, text, None, blocks, blob)
        self._spans, self._values, self._cache = spans, values, cache
        self._block_positions: dict[str, dict] = {}

    @property
    def raw(self) -> bytes:
        if self._raw is None:
            self._raw = self._read()
        return self._raw

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = _decode(self.path, self.raw, F.MASTER_EXAMPLES[0])
        return self._text

    @text.setter
    def text(self, value: str | None) -> None:
        self._text = value

    def keys(self) -> list[str]:
        return list(self.blocks)

    def block_text(self, key: str) -> str:
        return block_text(self.raw, *self._spans[key][1:]).decode("utf-8")

    def value(self, key: str):
        if key not in self._values:
            self.load([key])
        return self._values[key]

    def load(self, keys) -> None:
        """Parse the blocks of ``keys`` not parsed yet, in one batch."""
        wanted = [k for k in keys if k not in self._values]
        texts = [self.block_text(k) for k in wanted]
        for key, parsed in zip(wanted, _parse_blocks(self.path, texts, [self.blocks[k] for k in wanted],
                                                     self._cache)):
            # Known keys come from earlier parses of the same text: it parses the same way.
            self._values[key] = parsed[key] if isinstance(parsed, dict) and key in parsed else None

    def _index_for(self, path: tuple) -> dict[tuple, tuple[int, int]]:
        if path and path[0] in self._spans:
            key = path[0]
            if key not in self._block_positions:
                line = self._spans[key][0]
                self._block_positions[key] = {p: (n + line, col) for p, (n, col)
                                              in position_index(self.block_text(key)).items()}
            return self._block_positions[key]
        return self._positions


def load_master_doc(path: str, raw: bytes | None, blob: str, cache, read=None) -> YamlDoc:
    """A master config split into blocks; only blocks never seen before are parsed now (for their keys).

    A version split before needs no reading at all: with ``raw`` None its bytes come
    from ``read()`` when something asks for them.
    """
    index = cache.doc_index(path, blob) if cache is not None else None
    if index is not None and (raw is not None or read is not None):
        spans = {key: (line, start, end) for key, _, line, start, end in index}
        blocks = {key: h for key, h, *_ in index}
        return MasterDoc(path, raw, blob, spans, blocks, {}, cache, read)
    # a tab: the whole file, as the reference reads it
    found = block_spans(raw) if raw is not None and b"\t" not in raw else None
    if found is None:
        return _whole(path, raw, blob)
    pieces = [block_text(raw, start, end) for _, start, end in found]
    hashes = [hashlib.sha1(piece).hexdigest() for piece in pieces]
    known = cache.block_keys(path) if cache is not None else {}
    todo = [i for i, h in enumerate(hashes) if h not in known]  # the others are parsed when needed
    try:  # the file is UTF-8 when its new blocks and what precedes the first are: the known ones were
        raw[:found[0][1] if found else len(raw)].decode("utf-8")
        texts = [pieces[i].decode("utf-8") for i in todo]
    except UnicodeDecodeError:
        _decode(path, raw)  # raises, at the byte's line and column in the file
    parsed = dict(zip(todo, _parse_blocks(path, texts, [hashes[i] for i in todo], cache)))
    spans, blocks, values = {}, {}, {}
    for i, (span, key_hash) in enumerate(zip(found, hashes)):
        if i in parsed:
            value = parsed[i]
            if not isinstance(value, dict) or len(value) != 1:
                # Let the whole-file parser report the problem at its real position.
                return _whole(path, raw, blob)
            (key, values[key]), = value.items()
        else:
            key = known[key_hash]
        if key in blocks:
            # A repeated top-level key: keep whole-file semantics (the last one wins).
            return _whole(path, raw, blob)
        spans[key], blocks[key] = span, key_hash
    if cache is not None:
        cache.set_doc_index(path, blob, [(k, blocks[k], *spans[k]) for k in blocks])
    return MasterDoc(path, raw, blob, spans, blocks, values, cache)  # its text is decoded when asked for


def _whole(path: str, raw: bytes | None, blob: str) -> YamlDoc:
    """A master config parsed whole, as the reference reads every file."""
    text = _decode(path, raw, F.MASTER_EXAMPLES[0])
    return YamlDoc(path, text, parse_yaml(text, path), None, blob)


class Configs(Mapping):
    """Config key -> config of a revision, each value parsed on first use (``MasterDoc``)."""

    def __init__(self):
        self._docs: dict[str, YamlDoc] = {}
        self._values: dict[str, object] = {}

    def add(self, key: str, doc: YamlDoc, value=None) -> None:
        self._docs[key] = doc
        if not isinstance(doc, MasterDoc):
            self._values[key] = value

    def add_all(self, keys, doc: "MasterDoc") -> None:
        self._docs.update(dict.fromkeys(keys, doc))

    def __getitem__(self, key: str):
        if key in self._values:
            return self._values[key]
        doc = self._docs[key]  # KeyError for unknown keys, as a dict
        value = self._values[key] = doc.value(key)
        return value

    def __contains__(self, key) -> bool:
        return key in self._docs

    def __iter__(self):
        return iter(self._docs)

    def __len__(self) -> int:
        return len(self._docs)

    def load_all(self) -> None:
        """Parse every value not parsed yet, one batch per file."""
        by_doc: dict[int, tuple[YamlDoc, list[str]]] = {}
        for key, doc in self._docs.items():
            if key not in self._values and isinstance(doc, MasterDoc):
                by_doc.setdefault(id(doc), (doc, []))[1].append(key)
        for doc, keys in by_doc.values():
            doc.load(keys)

    def items(self):
        self.load_all()
        return super().items()

    def values(self):
        self.load_all()
        return super().values()


# --------------------------------------------------------------------------- a revision's inputs

class Revision:
    """The generation inputs of one revision: master configs and runners, parsed once.

    ``configs``/``owner`` (config key -> value / YamlDoc) are filled by check.check_masters.
    """

    def __init__(self, ref: str, masters: list[YamlDoc], runners: YamlDoc, cache: object = None):
        self.ref, self.masters, self.runners, self.cache = ref, masters, runners, cache
        self.configs = Configs()
        self.owner: dict[str, YamlDoc] = {}

    def where(self, key: str):
        from sweepgate.core.expand import Where

        return Where(self.owner.get(key), key)


def master_paths_in(root: Path) -> list[str]:
    """The work tree's master configs (configs/*-master.yaml), as paths from the top, sorted."""
    return sorted(str(p.relative_to(root)) for p in (root / F.CONFIG_DIR).glob(F.MASTER_GLOB))


def master_keys_in(git: "Git", why: list | None = None, docs: dict | None = None) -> dict[str, str] | None:
    """{config key: the master config defining it} of the work tree, each file split into blocks as
    ``load_revision`` splits it (a version split before is read from the cache, not parsed; a new one
    only its new blocks, for their keys; nothing is checked). None when a master config cannot be
    read: a key it holds would look unknown; ``why``, when given, receives the diagnostics that say so;
    ``docs``, when given, each file's document by its path, to read a config of (``config_in``)."""
    paths = master_paths_in(git.root)
    out: dict[str, str] = {}
    try:
        blobs = worktree_blobs(git.root, paths)
        for path in paths:
            doc = load_master_doc(path, blobs[path][1], blobs[path][0], git.cache)
            if docs is not None:
                docs[path] = doc
            keys = doc.keys() if isinstance(doc, MasterDoc) else {} if doc.data is None else doc.data
            if not isinstance(keys, (dict, list)):  # not a mapping of config keys
                return None
            out.update((str(key), path) for key in keys if str(key) not in out)
    except SweepgateError as exc:
        if why is not None:
            why.extend(exc.diagnostics)
        return None
    git.cache.flush()  # the split of a new version, so that the next command reads it
    return out


def config_in(doc: YamlDoc, key: str):
    """The config ``key`` of a master config's document (``master_keys_in``'s ``docs``), its block alone parsed;
    None when the document holds no such key or its block cannot be parsed (said where it is checked)."""
    try:
        if isinstance(doc, MasterDoc):
            return doc.value(key) if key in doc.blocks else None
        return doc.data.get(key) if isinstance(doc.data, dict) else None
    except SweepgateError:
        return None


def worktree_blobs(root: Path, paths: list[str], like: str = "") -> dict[str, tuple[str, bytes | None]]:
    """{path: (git blob id in the hash of ``like``, bytes)} of work-tree files; ("", None) when missing."""
    out = {}
    for path in paths:
        raw = read_worktree_file(root, path)
        raw = as_committed(root, path, raw) if raw is not None else None
        out[path] = (_blob_id(raw, like) if raw is not None else "", raw)
    return out


def master_paths_at(git: Git, ref: str) -> list[str]:
    names = git.list_dir(ref, F.CONFIG_DIR)
    suffix = F.MASTER_GLOB.lstrip("*")  # "*-master.yaml"
    return sorted(p for p in names if p.rsplit("/", 1)[-1].endswith(suffix))


def load_revision(git: Git, ref: str, config_files: list[str] | None = None,
                  runner_file: str | None = None, *, worktree: bool = False) -> Revision:
    """Read and parse a revision's master configs and runners file (from git, or the work tree)."""
    runner_file = runner_file or F.RUNNERS_FILE
    if worktree:
        paths = config_files or master_paths_in(git.root)
        blobs = worktree_blobs(git.root, [*paths, runner_file])
    else:
        paths = config_files or master_paths_at(git, ref)
        if not paths:  # configs/ committed as a link holds no master config: say it is one
            linked_at(git, ref, [F.CONFIG_DIR], folder=True)
        linked_at(git, ref, [*paths, runner_file])
        blobs = _read_unindexed(git, ref, paths, runner_file)
        read_from_the_top([*paths, runner_file])  # a problem in one is annotated at it, even gone from the work tree
    if repeated := next((p for i, p in enumerate(paths) if p in paths[:i]), None):  # each key would clash with itself
        raise SweepgateError(Diagnostic(repeated, 0, 0, "config-files", "this config file is given more than once",
                                        "pass each config file once"))
    if not paths:
        raise SweepgateError(Diagnostic(F.CONFIG_DIR, 0, 0, F.MISSING_FILE_RULE,
                                        f"no {F.CONFIG_DIR}/{F.MASTER_GLOB} "  # s49e: the work tree's was 'at WORKTREE'
                                        + ("in the working tree" if worktree else f"at {F.short_sha(ref)}"),
                                        "add at least one master config file"))
    cache = git.cache
    with _no_gc():  # parsing builds only acyclic plain data: collections would find nothing
        masters = [load_master_doc(p, blobs[p][1], blobs[p][0], cache, lambda p=p: git.read_blobs(ref, [p])[p])
                   for p in paths]
    runners = load_doc(runner_file, blobs[runner_file][1], F.RUNNERS_FILE)
    runners.blob = blobs[runner_file][0]
    return Revision(ref, masters, runners, cache=cache)


def _read_unindexed(git: Git, ref: str, paths: list[str], runner_file: str) -> dict[str, tuple[str, bytes | None]]:
    """(blob id, contents) of each file; a master config whose version was split before is not
    read now (contents None): its blocks are known, and its text is read only if asked for."""
    cache, known = git.cache, git.tree_blobs(ref, F.CONFIG_DIR)
    # the runners file is always read whole, even when it is also one of the master configs given
    indexed = {p: known[p] for p in paths
               if p != runner_file and p in known and cache.doc_index(p, known[p]) is not None}
    blobs = git.read_blob_ids(ref, [p for p in [*paths, runner_file] if p not in indexed])
    blobs.update((p, (oid, None)) for p, oid in indexed.items())
    return blobs


@contextlib.contextmanager
def _no_gc():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_worktree_file(root, path: str) -> bytes | None:
    """The bytes of the work tree's ``path`` (from the repository's top ``root``); None when it is
    missing, a folder, or under a file (``configs/runners.yaml/x``). One this user cannot read (its
    mode, a folder on the way) is refused at its path, never taken for missing: a config or changelog
    it holds would read as deleted. So is one that is a symbolic link, or under a folder that is one,
    whether it points at a file, at nothing or in a loop (``linked_input``): git commits a link as the
    name it points to, which is what a ``--head-ref`` read takes (``Git.link_at``), never the file; a
    link followed here would pass in the work tree what the commit of it is refused for, and one to
    nothing would read as a deleted config."""
    import stat
    from pathlib import Path  # not imported by the matrix or the gate, which read no work-tree file this way

    refuse_linked_input(root, path)
    try:  # not blocking: a FIFO in a config's place is refused, never waited on for good
        fd = os.open(Path(root) / path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode
            if stat.S_ISDIR(mode):
                return None
            if not stat.S_ISREG(mode):
                from sweepgate.core.worktop import not_a_file

                raise not_a_file(path, mode)
            return fh.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except OSError as exc:
        from sweepgate.core.errors import os_reason

        raise SweepgateError(Diagnostic(path, 0, 0, "unreadable-file", f"cannot read: {os_reason(exc)}",
                                        "make it a file this user can read (its mode, a folder's on its way), "
                                        "or put the file itself in its place")) from None


def refuse_linked_input(root, path: str, shown=None, *, follow: bool = True) -> None:
    """Refuse the work tree's input ``path`` (a '/' path from the top ``root``) when it, or a folder on its
    way, is a symbolic link (``linked_input``), as ``linked_at`` refuses one at a commit; a path that is
    missing, runs through a file or cannot be looked at is left to its read to say. ``shown(rel)``: how
    the line names a path (``worktop.shown_path`` of another checkout's); ``follow``: ``linked_input``'s."""
    import stat
    from pathlib import Path

    here, parts, shown = Path(root), path.split("/"), shown or (lambda rel: rel)
    for i, part in enumerate(parts):
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except OSError:
            return
        if stat.S_ISLNK(mode):
            raise linked_input(shown(path), shown("/".join(parts[:i + 1])), here, follow=follow)
        if not stat.S_ISDIR(mode):
            return


def linked_at(git: Git, ref: str, paths: list[str], *, folder: bool = False) -> None:
    """Refuse an input among ``paths`` that is a symbolic link at ``ref``, or lies under a folder that is
    one (``linked_input``): its blob is the name the link points to, which would be read as the file's
    text (a runners file that is no mapping, a master config of one string), and a file under a linked
    folder would read as missing. ``folder``: ``paths`` are folders (configs/, where master configs are
    looked for)."""
    for path in paths:
        parts = path.split("/")
        for link in ("/".join(parts[:i]) for i in range(1, len(parts) + 1)):
            if (target := git.link_at(ref, link)) is not None:
                raise linked_input(path, link, target, at=ref, folder=folder)


# How a master config, runners file or changelog that is a symbolic link (or a folder on its way) is mended.
LINKED_INPUT_FIX = "put the {} itself in its place"


def linked_input(path: str, link: str, full, at: str | None = None, *, follow: bool = True,
                 folder: bool = False) -> SweepgateError:
    """The one line of an input (a master config, the runners file, the changelog) at ``path`` that is a
    symbolic link, or lies under a folder ``link`` that is one (both '/' paths from the top; ``full``: the
    link's own path on disk, or at ``at``, a commit, the name it points to): git stores a link as the name it
    points to, so a commit holds no file there to read. Said alike of the work tree and of a commit: the link
    and where it points (``errors.LinkTrouble``'s words for one to nothing or in a loop). ``follow=False``:
    the name it points to only, never looked up (an approved commit's link on the GPU host, whose files,
    there or not, are none of the job log's business: ``check.checked_runners``). ``folder``: ``path`` is a
    folder read for its files (configs/)."""
    from sweepgate.core.errors import link_trouble

    if at is not None:
        said = f"a symbolic link at {F.short_sha(at)} (to {os.fsdecode(full)})"
    elif not follow:
        said = f"a symbolic link to {os.readlink(full)}"
    elif (trouble := link_trouble(full)) is not None and trouble.link == os.fspath(full):
        said = trouble.said
    else:
        said = f"a symbolic link to {os.readlink(full)}"
    what = "is" if link == path else f"{link} (a folder on its way) is"
    kind = "folder" if folder else "file"
    return SweepgateError(Diagnostic(path, 0, 0, "linked-input", f"{what} {said}, and a commit holds a link as "
                                     f"the name it points to, not a {kind} to read",
                                     LINKED_INPUT_FIX.format("file" if link == path and not folder else "folder")))
