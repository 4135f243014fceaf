"""A job's run identity: what makes two runs of a matrix row the same run (CONTRACTS section 9).

Two jobs are the same run when they measure the same point of the same recipe on
the same runner pool with the same code: the row's recipe-fingerprint, conc, runner
and point fields, and the content of every file the job executes — the benchmark
script (CONTRACTS section 7 and its multi-node extension), ``benchmark_lib.sh`` and
every part it sources, the multi-node helpers, and the runner's launcher with the
shared launcher library. ``run_identity`` is the one function that says so; the job
sidecar records it, ``ci reuse`` matches on it, and the plan's recipes and unlisted-change rule
hash the same files (``recipe_files``) with the same ``core.digest`` functions. A row whose script is at none of
section 7's paths, or whose launcher or other support file is not there, has none
(``blind_spots``): what it runs instead is kept elsewhere, out of the identity's sight.
"""

from __future__ import annotations

import bisect
import errno
import fnmatch
import hashlib
import json
import os
import posixpath
import re
from typing import Callable

from sweepgate.core import fields as F
from sweepgate.core import jsrequires, pyimports, recipes, shellwords
from sweepgate.core.digest import files_sha
from sweepgate.core.errors import SweepgateError
from sweepgate.core.recipes import (MULTINODE_PARTS, argument_paths, bare_names, ending_in, globbed, helper_folders,
                                    ran_from_workspace, read_helpers, resolve_script, runs_multinode, script_candidates,
                                    shell_files, sourced_helpers, started, tail_sources, unseen_sources)
from sweepgate.core.shellwords import TOP_CWD
from sweepgate.core.worktop import GIT_DIR, WORKSPACE

LAUNCHER_DIR = "benchmarks/runners"
LAUNCHER_LIB = f"{LAUNCHER_DIR}/launch_common.sh"
_LAUNCHER = re.compile(rf"{re.escape(LAUNCHER_DIR)}/launch_[^/]*\.sh")  # a launcher or launch_common.sh
# Row fields that say which measurement a job takes besides the fingerprint and conc.
POINT_FIELDS = (F.RECIPE_FINGERPRINT, F.CONC, F.RUNNER, F.ISL, F.OSL, F.SCENARIO_TYPE, F.RUN_EVAL, F.EVAL_ONLY)

Blobs = dict[str, "bytes | None"]


class Tracked:
    """A checkout's tracked files (``list_paths() -> paths``, listed once, when a `source` first asks), which a `source`
    whose path starts where only the run knows may read (``tail_files``), its submodules and its symbolic links."""

    def __init__(self, list_paths: Callable[[], "list[str]"], gitlinks: Callable[[], "dict[str, str]"] | None = None,
                 symlinks: Callable[[], "list[str]"] | None = None, there: Callable[[str], bool] | None = None):
        self._list, self._by_name, self._gitlinks, self._symlinks = list_paths, None, gitlinks, symlinks
        self._sorted: list[str] | None = None
        self._folders: dict[str, list[str]] | None = None  # folder name -> the tracked folders so named
        self.there = there if there is not None else (lambda path: True)  # (``Reader.there``)

    def gitlinks(self) -> list[str]:
        """The checkout's submodules (git lists each as one entry, its commit: none of the files in it), in order."""
        return sorted(self._gitlinks()) if self._gitlinks is not None else []

    def symlinks(self) -> list[str]:
        """The tracked symbolic links (git stores each as the name it points to), in order."""
        return sorted(self._symlinks()) if self._symlinks is not None else []

    def _names(self) -> dict[str, list[str]]:
        if self._by_name is None:
            self._by_name = {}
            for path in sorted(set(self._list())):
                self._by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        return self._by_name

    def may_be(self, rest: str) -> list[str]:
        """The tracked files a path from a start only the run knows that ends in ``rest`` may be, in order: those that
        end in it (the start inside the checkout, or its top), and those it ends in (the start above the checkout:
        `"$GITHUB_WORKSPACE/repo/x/y.sh"` with the checkout at `$GITHUB_WORKSPACE/repo` reads x/y.sh), name for name."""
        return [path for path in self._names().get(rest.rsplit("/", 1)[-1], ())
                if _along(path, rest)]

    def folders_along(self, rest: str) -> list[str]:
        """The tracked folders (never the top) a path from a start only the run knows that ends in ``rest`` may be, as
        ``may_be`` for files: those that end in it, and those it ends in, name for name, in order."""
        if self._folders is None:
            self._folders = {}
            for path in sorted({path.rsplit("/", 1)[0] for paths in self._names().values() for path in paths
                                if "/" in path}):
                for up in range(path.count("/") + 1):  # each folder on the way
                    folder = path.rsplit("/", up)[0] if up else path
                    held = self._folders.setdefault(folder.rsplit("/", 1)[-1], [])
                    held += [] if folder in held else [folder]
        return sorted(folder for folder in self._folders.get(rest.rsplit("/", 1)[-1], ()) if _along(folder, rest))

    def matching(self, pattern: str, from_top: bool, above: bool = False) -> list[str]:
        """The tracked files a path with a glob (``recipes.globbed``) matches, in order, name for name as bash's glob
        does (`*` never across a `/`; a dot file too, which costs a reuse at most): the whole path from the top
        (``from_top``), else its last names (a path whose start only the run knows), or, ``above`` (an absolute
        path's: the checkout may be mounted anywhere along it), a path its last names match whole too."""
        want = pattern.split("/")
        return [path for paths in self._names().values() for path in paths
                if _globs_along(path.split("/"), want, from_top, above)]

    def under(self, folder: str) -> list[str]:
        """The tracked files in ``folder``, at any depth, in order (none for a file or a path the checkout has not)."""
        if self._sorted is None:
            self._sorted = sorted(path for paths in self._names().values() for path in paths)
        lo, hi = (bisect.bisect_left(self._sorted, folder + end) for end in "/0")  # "0" follows "/"
        return self._sorted[lo:hi]

    def holds(self, path: str) -> bool:
        return path in self._names().get(path.rsplit("/", 1)[-1], ())


def _along(path: str, rest: str) -> bool:
    """Whether the checkout's ``path`` may be what a path from a start only the run knows that ends in ``rest`` names:
    one ends in the other, name for name (``recipes.ending_in``)."""
    return bool(ending_in(rest, [path]) or ending_in(path, [rest]))


def _globs_along(names: list[str], want: list[str], whole: bool, above: bool = False) -> bool:
    """Whether the path of ``names`` matches the glob's ``want`` name for name: all of it (``whole``), or its end, or
    (``above``) all of the path, ``want``'s end."""
    if above and len(names) < len(want):
        want = want[len(want) - len(names):]
    if len(names) < len(want) or whole and len(names) != len(want):
        return False
    return all(fnmatch.fnmatchcase(name, glob) for name, glob in zip(names[len(names) - len(want):], want))


def _tracked(read, blobs: Blobs) -> Tracked:
    """The checkout's tracked files: ``read.tracked()`` (a ``Reader``: ``read_tree``, ``read_git``), else what ``blobs``
    holds when first asked (``_held``)."""
    listing = getattr(read, "tracked", None)
    return (Tracked(listing, getattr(read, "gitlinks", None), getattr(read, "symlinks", None), getattr(read, "there", None))
            if listing is not None else _held(blobs))


def _held(blobs: Blobs) -> Tracked:
    """The files ``blobs`` holds, taken for the checkout's tracked files (a caller that gives a whole checkout)."""
    return Tracked(lambda: [path for path, blob in blobs.items() if blob is not None])


def launcher_files(runner: str, runners: dict) -> list[str]:
    """The launchers a row's runner pool may run (launch_<runner-name prefix>.sh of each runner
    name behind the label: a job runs the one of whichever runner picks it up) and their library."""
    names = ((runners or {}).get(F.LABELS) or {}).get(runner) if isinstance(runners, dict) else None
    names = names if isinstance(names, list) and names else [runner.split(":", 1)[-1]]
    prefixes = dict.fromkeys(str(name).split("_", 1)[0] for name in names)
    return [*(f"{LAUNCHER_DIR}/launch_{prefix}.sh" for prefix in prefixes), LAUNCHER_LIB]


def support_files(row: dict, runners: dict, *, scripted: bool = True) -> list[str]:
    """Every file the job of ``row`` executes besides its benchmark script and the helpers it sources.
    ``scripted=False``: the row has no benchmark script, and its job stops in its launcher
    (``launch::resolve_script``) before anything sources ``benchmark_lib.sh`` or a multi-node helper, so
    it runs the launchers alone."""
    launchers = launcher_files(str(row.get(F.RUNNER, "")), runners)
    if not scripted:
        return launchers
    extra = list(MULTINODE_PARTS) if runs_multinode(row) else []
    return [*F.BENCHMARK_LIB_FILES, *extra, *launchers]


def needed_paths(row: dict, runners: dict) -> list[str]:
    """What ``run_identity`` reads first: the script candidates and the support files."""
    return [*script_candidates(row), *support_files(row, runners)]


def runner_facts(row: dict, runners: dict) -> dict[str, str]:
    """What configs/runners.yaml puts into the job's environment for ``row`` (core.jobenv): its
    hardware facts and, for a multi-node row, its placement. A changed fact is a changed run."""
    from sweepgate.core.jobenv import placement_env, hardware_env

    facts = hardware_env(row, runners)
    if F.PREFILL in row or F.DECODE in row:
        try:
            facts.update(placement_env(row, runners, "ROW"))
        except SweepgateError:
            facts["placement"] = "none"
    return facts


# Why a row has no run identity (``blind_spots``), each the same for every row it holds for, so `ci reuse`
# says it once with the number of its jobs (``blind_lines``).
NO_SCRIPT = "no benchmark script at CONTRACTS section 7's paths"
BLIND_WHY = "so a change to what they run there instead would go unseen; they run"
UNSEEN_WHY = "which only the run can read, so a change to that file would go unseen; they run"


class UnseenSource(str):
    """A cause of ``blind_spots``: `path:line: sources WORD`, a `source` whose file only the run knows
    (``recipes.unseen_sources``: a process substitution, standard input, a variable from the environment alone; one
    whose path ends in names written out reads the tracked files ending so instead, ``tail_files``), or `path:line:
    runs WORD`, a file run so (`bash "$D"` where only the run knows D's value)."""


def blind_spots(row: dict, runners: dict, blobs: Blobs, tracked: Tracked | None = None, *,
                files: list[str] | None = None) -> list[str]:
    """What keeps ``row`` from having a run identity, one cause each: no benchmark script at any of
    its candidates (``NO_SCRIPT``), and each support file (a launcher, ``launch_common.sh``,
    ``benchmark_lib.sh`` or a part of it, a multi-node helper) that is not there, by its path. The job
    then runs files kept elsewhere (InferenceX's launchers are in ``runners/``): hashed as missing, a
    change to them would not change the identity, and `ci reuse` would hand the row results of code
    it never saw. A `source` whose path starts where only the run knows but ends in names written out reads one
    of the tracked files that end so (``tail_files``: ``tracked``, by default what ``blobs`` holds), never a cause.
    ``files``: the row's ``executed_files``, when the caller has them already (its identity hashes them too)."""
    causes = [NO_SCRIPT] if resolve_script(script_candidates(row), blobs) is None else []
    causes += [path for path in support_files(row, runners) if blobs.get(path) is None]
    files = executed_files(row, runners, blobs, tracked) if files is None else files
    unseen = unseen_sources(files, blobs, getattr(files, "folders", None), said=True)
    return causes + [UnseenSource(f"{path}:{line}: {does} {word}") for path, line, word, does in unseen]


def executed_files(row: dict, runners: dict, blobs: Blobs, tracked: Tracked | None = None, *,
                   as_run: bool = False) -> list[str]:
    """Every file the job of ``row`` runs, as far as ``blobs`` holds them, in the order its identity hashes them: its
    script (when there is one) and the helpers it sources (``sourced_helpers``), the support files, then what those
    source or name beside themselves that is none of these (a launcher's own helper, a part ``benchmark_lib.sh``
    sources beyond ``F.BENCHMARK_LIB_PARTS``); the shipped support files source only each other. Last, the
    ``tail_files`` of them all. ``as_run``: a row with no benchmark script runs its launchers alone
    (``support_files(scripted=False)``), as the plan's recipes count it (``recipe_files``)."""
    script = resolve_script(script_candidates(row), blobs)
    tracked = tracked if tracked is not None else _held(blobs)
    folders: dict[str, list] = {}
    own = _started(folders, script, blobs, tracked=tracked) if script else []
    support = support_files(row, runners, scripted=script is not None or not as_run)
    files = dict.fromkeys([*own, *support])
    for path in support:
        files.update(dict.fromkeys(helper for helper in _started(folders, path, blobs, tracked=tracked)
                                   if helper not in files))
    return tail_files(list(files), blobs, tracked, folders)


class Files(list):
    """``executed_files`` in order, and the working folders each of them starts in (``folders``: path -> the folders,
    ``recipes.helper_folders``; a path not there starts at the top), for its `source` lines to be read from there."""
    folders: dict[str, list]


def _started(folders: dict[str, list], path: str, blobs: Blobs, cwd=TOP_CWD, *, tracked: Tracked | None = None
             ) -> list[str]:
    """``path`` run from the working folder ``cwd`` and the helpers it sources (``recipes.helper_folders``), each
    with how it is read (``recipes.Start``: the folder it starts in, where the files it sources leave it) noted in
    ``folders``. A file it runs that the checkout has not is among them when a link or submodule of ``tracked`` is on
    its way (``_through``: ``tail_files`` follows it there)."""
    helpers = helper_folders(path, blobs, cwd, _through(tracked) if tracked is not None else None)
    for each, starts in [(path, [started(path, blobs, cwd)]), *helpers.items()]:
        have = folders.setdefault(each, [])
        have.extend(start for start in starts if start not in have)
    return [path, *helpers]


def _through(tracked: Tracked) -> Callable[[str], bool]:
    """Whether a path the checkout has not as a file goes through one of ``tracked``'s symbolic links or submodules
    (`bench/x.sh` with bench a link to a folder, `vendor/tools/t.py` with vendor/tools a submodule), each listed when
    first asked, or is a folder of its tracked files (`cp -r "$GITHUB_WORKSPACE/recipes/x" .`: ``tail_files`` reads
    them all)."""
    heads: list[str] = []

    def linked(path: str) -> bool:  # through a link or submodule (or one itself)
        if not heads:
            heads.extend(f"{head}/" for head in [*tracked.symlinks(), *tracked.gitlinks()] or [""])
        return any(head and f"{path}/".startswith(head) for head in heads)

    def through(path: str) -> bool:
        return linked(path) or bool(tracked.under(path))
    # (``recipes._named_folder`` asks ``there`` first: a path not there lists nothing)
    through.there, through.linked = tracked.there, linked
    return through


def tail_files(files: list[str], blobs: Blobs, tracked: Tracked, folders: dict[str, list] | None = None) -> Files:
    """``files`` and, after them, every tracked file a `source` in them may read whose path starts where only the run
    knows (``recipes.tail_sources``: `"$GITHUB_WORKSPACE/x/y.sh"`, `cd /workspace; source x/y.sh`): each of the
    ``tracked`` files that end in its written names (all of them: reading more than bash sources costs a reuse at most),
    also through a tracked symbolic link to a folder (`bench -> benchmarks` for `bench/x/y.sh`: the link and the file,
    ``_reached``), with what it sources (the whole library for ``benchmark_lib.sh`` or a part), and theirs. None
    ends so (a venv's `bin/activate`): no file of the checkout, and ``files`` stay as they were. A submodule may hold
    a file ending so (git tracks none of its files): each submodule that may (``_may_hold``) is hashed too, by the
    commit it is at (a ``Reader`` reads its path so), so that a bump of it is a change; so is the submodule that holds
    a file of ``files`` git tracks none of (`source vendor/tools/env.sh`). A path of ``files`` through a tracked link to
    a folder (`source bench/x.sh`) reads the file the link leads to, hashed with the link. So is a file run from a
    moved workspace or along a changed PATH (``_read_runs``). ``folders``: the working folders each file starts in
    (``Files``), those of a tracked file a `source` reads the folder at that `source` (None where only the run knows
    it: then its relative paths are written ends too); a file met again from another folder is read again."""
    out = dict.fromkeys(files)
    todo = list(out)
    folders = {path: list(cwds) for path, cwds in (folders or {}).items()}
    read_with: dict[str, tuple] = {}

    def take(paths: list[str]) -> None:
        more.extend(path for path in paths if path not in out or tuple(folders.get(path, ())) != read_with.get(path))
        out.update(dict.fromkeys(paths))

    tailed, mounted, passed = False, [], 0  # (the mounts of the checkout's folders met, as many as the last full pass)
    while todo:
        more: list[str] = []
        read_with.update((path, tuple(folders.get(path, ()))) for path in todo)
        mounted += [mount for mount in recipes.mounted_folders(shell_files(todo, folders), blobs, folders)
                    if mount not in mounted]
        tailed = _read_ends(todo, take, blobs, tracked, folders, mounted) or tailed
        todo = list(dict.fromkeys(more)) or _read_rest(list(out), blobs, tracked, folders, take, more)
        if not todo and len(mounted) > passed:  # a mount met after a file's ends were read: all again, through it
            todo, passed = list(out), len(mounted)
    if tailed and _workspace_moved(shell_files(out, folders), blobs):  # the workspace set: it may be in any submodule
        out.update(dict.fromkeys(tracked.gitlinks()))
    missing = [path for path in out if path in blobs and blobs[path] is None]
    if missing:  # a file inside a submodule is none git tracks: the submodule's commit stands for it
        out.update(dict.fromkeys(link for link in tracked.gitlinks()
                                 if link not in out and any(f"{path}/".startswith(link + "/") for path in missing)))
    found = Files(out)
    found.folders = folders
    return found


def _read_ends(todo: list[str], take: Callable[[list[str]], None], blobs: Blobs, tracked: Tracked,
               folders: dict[str, list], mounted: list[tuple[str, str]]) -> bool:
    """``take`` (``tail_files``) what the files ``todo`` read by a path whose start only the run knows
    (``_read_tails``, also through each mount of ``mounted``: ``recipes.mounted_folders``) and by a path through a
    tracked link or of a tracked folder (``_reached``, ``_folder_files``); whether any such path was met."""
    tails = [(rest, start in (WORKSPACE, shellwords.ABSOLUTE_DATA), site, start == shellwords.ABSOLUTE_DATA)
             for _, _, rest, start, site in tail_sources(todo, blobs, starts=True, folders=folders, sites=True)]
    tailed = bool(tails)
    _read_tails(tails, take, blobs, tracked, folders, globbed(todo, blobs, folders), mounted)
    for path in todo:  # `source bench/y.sh` by its path, bench a link: git tracks no such path
        if path in blobs and blobs[path] is None and ("/" in path or tracked.there(path) and tracked.under(path)):
            reached, escaped = _reached(path, blobs, tracked, lambda found: [
                got for start in folders.get(path) or [(TOP_CWD, ())]
                for got in _read_at(folders, found, blobs, start[0], tracked)])
            take([*reached, *_folder_files(path, blobs, tracked, folders)])
            if escaped:
                tailed = True
                _read_tails([(escaped, False, TOP_CWD)], take, blobs, tracked, folders)
    return tailed


def _read_rest(files: list[str], blobs: Blobs, tracked: Tracked, folders: dict[str, list],
               take: Callable[[list[str]], None], more: list[str]) -> list[str]:
    """``take`` (``tail_files``) what the shell ``files`` run from a start only the run knows and the modules their
    Python imports (``_read_runs``), then what the JavaScript of ``files`` loads (``_read_loaded``); give what that
    adds to ``more``."""
    return (_read_runs(shell_files(files, folders), blobs, tracked, folders, take, more)
            or _read_loaded(files, blobs, tracked, folders, take, more))


def _read_runs(files: list[str], blobs: Blobs, tracked: Tracked, folders: dict[str, list],
               take: Callable[[list[str]], None], more: list[str]) -> list[str]:
    """``take`` (``tail_files``) what ``files`` may run from a start only the run knows, as a `source` of a path
    starting there reads (``_read_tails``), and give the paths that adds to ``more`` (what ``take`` fills): a file run
    from the workspace (`bash "$GITHUB_WORKSPACE/x.sh"`, ``recipes.ran_from_workspace``) when one of ``files`` moves it
    (``_workspace_moved``: `GITHUB_WORKSPACE=…` in a file sourced, or in the one that runs it; else it is the top's
    alone, ``helper_folders``), and each name alone they spell when one puts a folder on PATH (``_path_folders``,
    ``recipes.bare_names``: `source env.sh` and `run.sh` may be tools/env.sh and tools/run.sh along
    `PATH="$GITHUB_WORKSPACE/tools:$PATH"`, any file ending so; along `PATH=/usr/local/cuda/bin:$PATH` only the top's
    env.sh, bin/env.sh, cuda/bin/env.sh, ...: the checkout is there only if mounted along that path)."""
    ends = [(rest, False) for rest in (ran_from_workspace(files, blobs, folders) if _workspace_moved(files, blobs)
                                       else [])]
    if folders_on_path := _path_folders(files, blobs):
        ends += [(f"{end}/{name}" if end else name, absolute) for name in bare_names(files, blobs)
                 for end, absolute in folders_on_path]
    _read_tails([(rest, absolute, TOP_CWD) for rest, absolute in dict.fromkeys(ends)], take, blobs, tracked, folders)
    # then, all else read, the tracked modules their Python imports
    return list(dict.fromkeys(more)) or _read_imports(files, blobs, tracked, folders, take, more)


def _read_imports(files: list[str], blobs: Blobs, tracked: Tracked, folders: dict[str, list],
                  take: Callable[[list[str]], None], more: list[str]) -> list[str]:
    """``take`` (``tail_files``) the tracked modules the Python of ``files`` imports, and theirs (``core.pyimports``):
    each `.py` file of ``files`` as a script run (sys.path[0] its folder), and what a shell file of them gives python
    to run (`python3 -m MOD`, `-c CODE`, a heredoc), from each working folder it may be in there (the top, a folder
    it starts in or `cd`s to); each searching too the folders a PYTHONPATH of theirs names. Give what that adds to
    ``more``."""
    def text_of(path: str) -> str | None:
        return None if blobs.get(path) is None else blobs[path].decode("utf-8", "replace")
    shells, scripts, starts, paths = shell_files(files, folders), [], [], []
    for path in shells:
        if path.endswith(".py") or (text := text_of(path)) is None:
            continue
        modules, codes, pythonpath = pyimports.shell_python(text)
        cwds = _python_cwds(path, text, folders)
        paths += [pyimports.within(cwd, each) for cwd in cwds for each in pythonpath]
        code = [*(f"import {m}\nimport {m}.__main__\n" for m in modules), *codes]
        scripts += [(each, cwd) for each in code for cwd in cwds]
    # (code given on `-c` or standard input: sys.path[0] is the working folder, its name one no file has)
    scripts = [(posixpath.join(cwd, f"-{k}"), each, [cwd, *paths], [cwd]) for k, (each, cwd) in enumerate(scripts)]
    starts = [(path, None, [posixpath.dirname(path), *paths], _run_in(path, folders)) for path in files
              if path.endswith(".py")]
    found = pyimports.followed(starts + scripts, text_of, tracked.holds,
                               lambda folder: tracked.under(folder) if folder else tracked.matching("*", True),
                               tracked.may_be)
    # (a file it opens that is no script, a config, is read as data: what its text names is not followed)
    take([got for path in found for got in ([path] if recipes.runnable(path, blobs.get(path)) or path not in blobs
                                            else _read_at(folders, path, blobs, shellwords.READ_AS_DATA))])
    return list(dict.fromkeys(more))


def _read_loaded(files: list[str], blobs: Blobs, tracked: Tracked, folders: dict[str, list],
                 take: Callable[[list[str]], None], more: list[str]) -> list[str]:
    """``take`` (``tail_files``) what the JavaScript files of ``files`` load by a relative path, and theirs
    (``core.jsrequires``: `node shared/x.js` with `require('./m.js')`), each read as data; give what that adds to
    ``more``."""
    found = jsrequires.followed(files, lambda path: None if blobs.get(path) is None else blobs[path].decode(
        "utf-8", "replace"), tracked.holds)
    take([got for path in found for got in _read_at(folders, path, blobs, shellwords.READ_AS_DATA)])
    return list(dict.fromkeys(more))


def _run_in(path: str, folders: dict[str, list]) -> list[str | None]:
    """The working folders (checkout paths; None: one only the run knows) the Python file ``path`` runs in: where
    each run of it starts (``folders``), the top by default."""
    places = [start[0] for start in folders.get(path) or [(TOP_CWD, ())] if not shellwords.is_data(start[0])]
    return list(dict.fromkeys(place[1] if place and place[0] == shellwords.TOP else None for place in places))


def _python_cwds(path: str, text: str, folders: dict[str, list]) -> list[str]:
    """The working folders (checkout paths) python may start in from the shell file ``path``: the top, each it starts
    in, each a `cd` in it goes to."""
    cwds = [""]
    for start in folders.get(path) or [(TOP_CWD, ())]:
        read = recipes._shell_reading(text, *start)
        places = [start[0], *(recipes._site(posixpath.dirname(path), place) for _, place, _ in read.moved)]
        cwds += [place[1] for place in places if place and place[0] == shellwords.TOP]
    return list(dict.fromkeys(cwds))


def _read_tails(tails: list[tuple], take: Callable[[list[str]], None], blobs: Blobs, tracked: Tracked,
                folders: dict[str, list], globs: list[tuple] = (), mounted: list[tuple[str, str]] = ()) -> None:
    """``take`` what a `source` of each of ``tails`` (its written end, whether it starts at the workspace, the working
    folder there, and whether it is an absolute path read as data, which may name a folder read whole) may read
    (``tail_files``), each file read from that folder (``folders``), also through each mount of ``mounted``
    (``_through_mounts``); a tracked link out of the checkout on its way adds the names after it, from a start only
    the run knows (``_reached``). Then what each path with a glob of ``globs`` (``recipes.globbed``) matches
    (``_read_globs``)."""
    _read_globs(globs, take, blobs, tracked, folders, mounted)
    seen: set[tuple] = set()
    while tails:
        rest, from_top, site, *whole = tails.pop(0)
        if (rest, from_top, site) in seen:
            continue
        seen.add((rest, from_top, site))
        take([link for link in tracked.gitlinks() if _may_hold(link, rest, from_top)])
        for path in [*tracked.may_be(rest), *(path for path in _through_mounts(rest, mounted) if tracked.holds(path))]:
            take(_read_at(folders, path, blobs, site, tracked))
        if whole and whole[0]:  # s48e: `python3 t.py /workspace/shared/cfgs` may read each file of shared/cfgs
            for folder in dict.fromkeys([*tracked.folders_along(rest), *_through_mounts(rest, mounted)]):
                take(_folder_files(folder, blobs, tracked, folders))
        names = rest.split("/")
        for link in tracked.symlinks():  # `$X/bench/y.sh`, bench a link: the file is where the link leads
            for k in range(1, len(names)):
                if _along(link, "/".join(names[:k])):
                    reached, escaped = _reached(f"{link}/{'/'.join(names[k:])}", blobs, tracked,
                                                lambda path: _read_at(folders, path, blobs, site, tracked))
                    take([link, *reached])
                    tails += [(escaped, False, site)] if escaped else []  # out of the checkout: it may come back


def _through_mounts(rest: str, mounted: list[tuple[str, str]]) -> list[str]:
    """The checkout paths a written end ``rest`` may name through a mount of ``mounted`` (target, the checkout folder
    mounted there: ``recipes.mounted_folders``): for each start of its names that is the end of the target's, the rest
    under that folder (s48e: `cat /workspace/bar/c.json` in a file `-v "$PWD/shared:/workspace/bar"` runs is
    shared/c.json, as is `bar/c.json` from a working folder only the run knows). Reading one the run does not costs a
    reuse at most."""
    names = rest.split("/")
    found: list[str] = []
    for target, folder in mounted:
        if not target:  # s48h: a target only the run knows: the folder may be at any start of the path
            kept = [name for name in names if name]
            found += [posixpath.join(folder, *kept[k:]) for k in range(len(kept))]
            continue
        own = [name for name in target.split("/") if name]
        found += [posixpath.join(folder, *names[k:]) for k in range(1, min(len(own), len(names) - 1) + 1)
                  if names[:k] == own[len(own) - k:]]
    return list(dict.fromkeys(found))


def _globbed_through_mounts(want: list[str], mounted: list[tuple[str, str]], tracked: Tracked) -> list[str]:
    """The tracked files an absolute path with a glob (its names ``want``) matches through a mount of ``mounted``, as
    ``_through_mounts`` maps a written end: its names after the target's, from the folder mounted there."""
    found: list[str] = []
    for target, folder in mounted:
        if not target:  # s48h: a target only the run knows: the glob's names from any start, under the folder
            kept = [name for name in want if name]
            for k in range(len(kept)):
                pattern = [*(folder.split("/") if folder else []), *kept[k:]]
                found += [path for path in tracked.matching("/".join(pattern), True) if path not in found]
            continue
        own = [name for name in target.split("/") if name]
        for k in range(1, min(len(own), len(want) - 1) + 1):
            if all(fnmatch.fnmatchcase(name, glob) for name, glob in zip(own[len(own) - k:], want[:k])):
                pattern = [*(folder.split("/") if folder else []), *want[k:]]
                found += [path for path in tracked.matching("/".join(pattern), True) if path not in found]
    return found


def _read_globs(globs: list[tuple], take: Callable[[list[str]], None], blobs: Blobs, tracked: Tracked,
                folders: dict[str, list], mounted: list[tuple[str, str]] = ()) -> None:
    """``take`` (``tail_files``) every tracked file each of ``globs`` (``recipes.globbed``: a path with a glob, whether
    from the top, the working folder there) matches, read from that folder (``folders``), and the submodules that
    may hold one (git tracks none of their files): each on its way from the top, any where only the run knows the
    start."""
    for pattern, from_top, site in globs:
        above = pattern.startswith("/")  # (s48e: an absolute path's: the checkout may be mounted anywhere along it)
        pattern = pattern.lstrip("/")
        want = pattern.split("/")
        take([link for link in tracked.gitlinks()
              if not from_top or _globs_along(link.split("/"), want[:link.count("/") + 1], True)])
        for path in tracked.matching(pattern, from_top, above):
            take(_read_at(folders, path, blobs, site, tracked))
        for path in _globbed_through_mounts(want, mounted, tracked) if above else ():
            take(_read_at(folders, path, blobs, site, tracked))


def _folder_files(folder: str, blobs: Blobs, tracked: Tracked, folders: dict[str, list]) -> list[str]:
    """The tracked files in ``folder`` (a path of ``tail_files`` the checkout has no file at), each read as data: a
    folder a file of the job copies or reads whole (`cp -rT "$GITHUB_WORKSPACE/recipes/x" recipes/x`)."""
    runs = [start[0] for start in folders.get(folder) or () if not shellwords.is_data(start[0])]  # a copy's
    return [got for path in tracked.under(folder)
            for site in (runs if runs and recipes.runnable(path, blobs.get(path)) else [shellwords.READ_AS_DATA])
            for got in _read_at(folders, path, blobs, site, tracked)]


def _read_at(folders: dict[str, list], path: str, blobs: Blobs, site=TOP_CWD, tracked: Tracked | None = None
             ) -> list[str]:
    """A tracked file a `source` reads from the working folder ``site`` and what it sources (``_started``; the
    whole library for ``benchmark_lib.sh`` or a part)."""
    return (list(F.BENCHMARK_LIB_FILES) if path in F.BENCHMARK_LIB_FILES
            else _started(folders, path, blobs, site, tracked=tracked))


LINK_HOPS = 40  # symbolic links followed on one path at most (Linux's own limit): past it, no file is read


def _reached(path: str, blobs: Blobs, tracked: Tracked, read: Callable[[str], list[str]]
             ) -> tuple[list[str], str | None]:
    """What a `source` of ``path`` (from the checkout's top) reads when a folder on its way is a tracked symbolic link:
    each such link (its target is what git stores, so a link pointed elsewhere is a change) and, when they lead to a
    tracked file, that file with its helpers (``read``: from the folder of the `source`), or to a path inside a submodule, the submodule.
    Nothing when no folder on the way is a link, or the first is not read yet (``read_all`` reads it, then asks
    again); only the links when they lead outside the checkout (an absolute target, one above it through `..`), and
    then, second, the names after the last link: the folder it leads to is one only the run knows, which may be
    the checkout's own or inside any submodule (`tools -> /ws/repo/vendor/tools`), so ``tail_files`` reads them as
    a path from such a start. None second otherwise."""
    links = set(tracked.symlinks())
    if not links:
        return [], None
    hops: list[str] = []
    for _ in range(LINK_HOPS):
        names = path.split("/")
        link = next(("/".join(names[:k]) for k in range(1, len(names)) if "/".join(names[:k]) in links), None)
        if link is None:
            break
        hops.append(link)
        if link not in blobs:
            return hops, None
        target = (blobs[link] or b"").decode("utf-8", "replace")
        after = names[link.count("/") + 1:]
        path = posixpath.normpath(posixpath.join(posixpath.dirname(link), target, *after))
        if not target:
            return hops, None
        if target.startswith("/") or path == ".." or path.startswith("../"):
            return hops, "/".join(name for name in after if name not in ("", ".", "..")) or None
    else:
        return hops, None
    if not hops:
        return [], None
    if tracked.holds(path):
        return [*hops, *read(path)], None
    return hops + [sub for sub in tracked.gitlinks() if path.startswith(sub + "/")], None


def _workspace_moved(files: list[str], blobs: Blobs) -> bool:
    """Whether one of ``files`` moves ``WORKSPACE`` (``shellwords.moves_workspace``), so that it may be any folder
    in the job (``_may_hold``, a file run from it: ``tail_files``)."""
    return any(shellwords.moves_workspace((blobs.get(path) or b"").decode("utf-8", "replace")) for path in files)


def _path_folders(files: list[str], blobs: Blobs) -> list[tuple[str, bool]]:
    """The folders ``files`` put on PATH (``shellwords.path_folders``: each one's written end, whether absolute): a
    name alone run or sourced in any of them may then be a file of a folder of the checkout ending so (``tail_files``);
    none when no file of the job sets PATH."""
    return list(dict.fromkeys(folder for path in files for folder in shellwords.path_folders(
        (blobs.get(path) or b"").decode("utf-8", "replace"))))


def _may_hold(submodule: str, rest: str, from_the_workspace: bool) -> bool:
    """Whether ``submodule`` may hold the file of a `source` whose path starts where only the run knows and ends in
    ``rest``: from the workspace (the checkout's top or above it: the `source` command's own word is `$GITHUB_WORKSPACE`
    and then ``rest``, ``shellwords.Reading.tails``; a test or a comment on its line that spells it is none, and no
    file of the job may set it, ``_workspace_moved``), only when its names go through the submodule's
    (`vendor/tools/env.sh`, `repo/vendor/tools/env.sh` for vendor/tools); from any other start, which may be inside
    it, always."""
    if not from_the_workspace:
        return True
    names, own = rest.split("/"), submodule.split("/")
    return any(names[at:at + len(own)] == own for at in range(len(names) - len(own)))


def blind_lines(blind: dict[str, list[dict]]) -> list[str]:
    """One line per cause of ``blind_spots`` (cause -> its rows, in order met): how many jobs it keeps from
    reuse and why; for ``NO_SCRIPT`` the first path looked at for its first row, and the files missing for
    the same jobs on one line (a checkout without benchmarks/lib/ lacks every part of it), three named."""
    files: dict[tuple, list[str]] = {}
    for cause, rows in blind.items():
        if cause != NO_SCRIPT and not isinstance(cause, UnseenSource):
            files.setdefault(tuple(id(row) for row in rows), []).append(cause)
    out = []
    for cause, rows in blind.items():
        if isinstance(cause, UnseenSource):
            out.append(f"{len(rows)} job{'s' if len(rows) != 1 else ''} not reused, no run identity: {cause}, {UNSEEN_WHY}")
            continue
        if cause == NO_SCRIPT:
            what = f"{NO_SCRIPT} (such as {script_candidates(rows[0])[0]})"
        elif (paths := files.pop(tuple(id(row) for row in rows), None)) is not None:
            more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
            what = f"no {', '.join(paths[:3])}{more} in the repository"
        else:
            continue  # said on the line of the first file missing for the same jobs
        out.append(f"{len(rows)} job{'s' if len(rows) != 1 else ''} not reused, no run identity: {what}, {BLIND_WHY}")
    return out


def run_identity(row: dict, runners: dict, blobs: Blobs, tracked: Tracked | None = None) -> str | None:
    """The run identity of ``row`` given the files (``blobs`` holds ``needed_paths`` and the
    ``sourced_helpers`` of its script; ``tracked``: the checkout's files, by default those ``blobs`` holds);
    None when it has ``blind_spots``."""
    files = executed_files(row, runners, blobs, tracked)
    return None if blind_spots(row, runners, blobs, files=files) else _seen_identity(row, runners, blobs, files)


def _seen_identity(row: dict, runners: dict, blobs: Blobs, files: list[str]) -> str:
    """``run_identity`` of a row known to have no ``blind_spots``; ``files``: its ``executed_files``."""
    point = {name: row.get(name) for name in POINT_FIELDS}
    # Eval rows carry no fingerprint: the whole row stands in for it.
    point[F.RECIPE_FINGERPRINT] = row.get(F.RECIPE_FINGERPRINT) or F.row_digest(row)
    point["runner-facts"] = runner_facts(row, runners)
    digest = hashlib.sha256(json.dumps(point, sort_keys=True, separators=(",", ":")).encode())
    digest.update(b"\0" + files_sha(files, blobs).encode())
    return digest.hexdigest()


def read_all(rows: list[dict], runners: dict, read: Callable[[list[str]], Blobs],
             tracked: Tracked | None = None) -> Blobs:
    """Every file the run identities of ``rows`` hash, each read once (``read(paths) -> blobs``; ``tracked``: the
    checkout's files, for ``tail_files``)."""
    wanted: dict[str, None] = {}
    for row in rows:
        wanted.update(dict.fromkeys(needed_paths(row, runners)))
    blobs = read(list(wanted))
    starts = {resolve_script(script_candidates(row), blobs) for row in rows} | {
        path for row in rows for path in support_files(row, runners)}
    read_helpers(starts, blobs, read)
    tracked = tracked if tracked is not None else _tracked(read, blobs)
    while True:  # the tracked files a `source` may read (and what they source), each round reads one more at least
        folders: dict[str, list] = {}
        heard = [path for start in starts if start for path in _started(folders, start, blobs, tracked=tracked)]
        files = tail_files(heard, blobs, tracked, folders)
        # and the files a word of a command names (``recipes.argument_paths``), kept where the checkout has them
        missing = [path for path in dict.fromkeys([*files, *argument_paths(files, blobs, files.folders)])
                   if path not in blobs or blobs[path] is None and path in _listed_links(read)]
        if not missing:
            return blobs
        blobs.update(read(missing))
        read_helpers(missing, blobs, read)


def _listed_links(read) -> dict[str, str]:
    """The submodules a ``Reader`` listed already (none asked for here): one a word names whole (`python3 r.py
    vendor/tools`), read before they were listed as no file, is read again as the commit it is at."""
    return getattr(read, "_links", None) or {}


def recipe_files(rows: list[dict], runners: dict, git, ref: str) -> tuple[Blobs, list[list[str]]]:
    """What the plan's recipes hash (``recipes.load_recipes``' ``job_files``): the files of revision ``ref`` the jobs
    of ``rows`` run, read as ``read_all`` reads them, and for each row every file its job runs (``executed_files``,
    ``as_run``: the same files its run identity hashes, so a helper reached only through a `source` whose path
    starts where only the run knows, or one a launcher sources, is a change of the recipes whose jobs reach it)
    besides its script and the helpers that sources (``RecipeSet.sha`` hashes those), the support files kept
    (a multi-node script sources disagg_lib.sh, which every multi-node job runs)."""
    read = read_git(git, ref)
    tracked = _tracked(read, {})
    blobs = read_all(rows, runners, read, tracked)
    out, known = [], {}
    for row in rows:
        script = resolve_script(script_candidates(row), blobs)
        support = support_files(row, runners)
        # a row's files follow from its script and support files alone: rows alike in both (a runner's every row
        # without a script) share one reading (s45c: 208 recipes of two scripts read them all anew, 6-12 s a plan)
        if (script, *support) not in known:
            own = {script, *sourced_helpers(script, blobs)} - set(support) if script else set()
            known[(script, *support)] = [path for path in executed_files(row, runners, blobs, tracked, as_run=True)
                                         if path not in own]
        out.append(list(known[(script, *support)]))
    return blobs, out


def identities(rows: list[dict], runners: dict, read: Callable[[list[str]], Blobs]) -> list[str | None]:
    """``run_identity`` of each row (None for one with ``blind_spots``), reading every file once."""
    return identities_and_blind(rows, runners, read)[0]


def identities_and_blind(rows: list[dict], runners: dict, read: Callable[[list[str]], Blobs]
                         ) -> tuple[list[str | None], dict[str, list[dict]]]:
    """``identities`` of ``rows``, and the rows each cause of ``blind_spots`` keeps from having one (cause ->
    its rows, in order met: what ``blind_lines`` says), each row's causes found once. The checkout's tracked files
    are ``read.tracked()`` (a ``Reader``: ``read_tree``, ``read_git``), else the files read."""
    tracked = _tracked(read, {}) if getattr(read, "tracked", None) is not None else None
    blobs = read_all(rows, runners, read, tracked)
    tracked = tracked if tracked is not None else _held(blobs)
    ids: list[str | None] = []
    blind: dict[str, list[dict]] = {}
    known: dict[tuple, list[str]] = {}  # rows alike in script and support files run the same files (``recipe_files``)
    for row in rows:
        kind = (resolve_script(script_candidates(row), blobs), *support_files(row, runners))
        if kind not in known:
            known[kind] = executed_files(row, runners, blobs, tracked)  # for its blind spots and its identity both
        files = known[kind]
        causes = blind_spots(row, runners, blobs, files=files)
        for cause in causes:
            blind.setdefault(cause, []).append(row)
        ids.append(None if causes else _seen_identity(row, runners, blobs, files))
    return ids, blind


def check_tools(tools: str) -> None:
    """Refuse a ``--tools`` folder that is not there or is no checkout (no configs/runners.yaml: the
    launchers and runner facts the identity hashes would all be missing; see ``job_identity``)."""
    import os

    from sweepgate.core.check import require_runners_file
    from sweepgate.core.errors import fail
    from sweepgate.core.fields import RUNNERS_FILE

    fix = f"pass main's checkout (the folder holding benchmarks/ and {RUNNERS_FILE})"
    if not os.path.isdir(tools):
        raise fail(tools, 0, f"--tools: {'not a folder' if os.path.exists(tools) else 'no such folder'}", fix)
    require_runners_file(tools, "--tools", fix)  # a folder in its place is said as one, not as none


def job_runners(own: dict, main: dict) -> dict:
    """The runners file a job's identity hashes: the runner facts as `ci row-env` puts them into the
    job (the checkout's ``own``), the runner names behind each label (which launchers run) as ``main``'s."""
    return {**own, F.LABELS: main.get(F.LABELS)}


def job_identity(row: dict, tools: str | None = None, runners: dict | None = None) -> str | None:
    """The run identity of ``row``'s job in the checkout that holds the working directory (its
    top, so a subfolder works), with the launchers and runner labels of ``tools`` (main's; None:
    that checkout's own) and the checkout's own runner facts; None when the row cannot be
    resolved or has ``blind_spots`` (no script at section 7's paths, a launcher that is not there).
    A ``tools`` folder that is not there is refused: hashing no launcher at all would
    give every such job one identity, and reuse would hand one job's results to another; so is a file
    it hashes that is there but cannot be read (``Unreadable``: a launcher chmod 000, a folder in its place).
    ``runners``: ``job_runners`` of the two files, already read and checked (`ci row-env`)."""
    from sweepgate.core.check import checked_runners
    from sweepgate.core.worktop import enclosing_top

    root = enclosing_top() or "."
    tools = tools or root
    check_tools(tools)
    try:  # a runners.yaml its schema refuses (`ci row-env` refused the job already): no identity, no reuse
        if runners is None:  # one there but unreadable: Unreadable, as a launcher is
            runners = job_runners(checked_runners(root, unreadable), checked_runners(tools, unreadable))
        return identities([row], runners, read_tree(root, tools))[0]
    except Unreadable:
        raise  # a file it hashes that cannot be read: said, never taken for missing
    except Unlisted as exc:  # no identity, said: the job runs
        import sys

        print("\n".join(d.render() for d in exc.diagnostics), file=sys.stderr)
        return None
    except (KeyError, TypeError, SweepgateError):
        return None


class Reader:
    """``read(paths) -> blobs`` of one checkout or revision, and ``tracked()``: the files it holds, which a `source`
    whose path starts where only the run knows may read (``tail_files``)."""

    def __init__(self, read: Callable[[list[str]], Blobs], tracked: Callable[[], list[str]],
                 gitlinks: Callable[[], "dict[str, str]"] | None = None,
                 symlinks: Callable[[], "list[str]"] | None = None, there: Callable[[str], bool] | None = None):
        self._read, self.tracked, self._gitlinks, self._links = read, tracked, gitlinks, None
        self.symlinks = symlinks if symlinks is not None else list
        # whether a path may be a folder of the checkout or inside a link or submodule of it (a checkout's: one there,
        # links followed; a revision's: any), asked before its tracked files are listed for a word that names it
        self.there = there

    def gitlinks(self) -> dict[str, str]:
        """Its submodules: path -> the commit each is at (listed once)."""
        if self._links is None:
            self._links = self._gitlinks() if self._gitlinks is not None else {}
        return self._links

    def __call__(self, paths: list[str]) -> Blobs:
        """The files' bytes; a submodule's path (once ``gitlinks`` was asked: ``tail_files``) reads as the commit it is
        at, as `git diff` shows it, alike in a checkout and a revision."""
        links = self._links or {}
        out = self._read([path for path in paths if path not in links])
        out.update({path: f"Subproject commit {links[path]}\n".encode() for path in paths if path in links})
        return out


def read_git(git, ref: str) -> Reader:
    """``read`` over the files of revision ``ref`` (``core.load.Git``), as `ci reuse` reads them; its tracked files
    are those ``ref`` holds (`git ls-tree`), its submodules the commits it records."""
    listing = _once(lambda: _entries(git.run("ls-tree", "-r", "-z", ref), lambda head: head.split(b" ")[::2]))
    return Reader(lambda paths: git.read_blobs(ref, paths), lambda: listing()[0], lambda: listing()[1],
                  lambda: listing()[2])


Listing = "tuple[list[str], dict[str, str], list[str]]"  # paths, submodules (path -> commit), symbolic links


def _once(make: Callable[[], Listing]) -> Callable[[], Listing]:
    """``make``, called once however often it is asked (one listing for a ``Reader``'s files and submodules)."""
    made: list = []
    return lambda: made[0] if made else (made.append(make()) or made[0])


def _entries(out: bytes, mode_and_id) -> Listing:
    """Paths, submodules (mode 160000: path -> commit) and symbolic links (mode 120000) of `git ls-files -s -z` or
    `git ls-tree -r -z` output; ``mode_and_id(head)``: the mode and object id in what comes before an entry's tab."""
    paths, links, symlinks = [], {}, []
    for entry in out.split(b"\0"):
        head, tab, name = entry.partition(b"\t")
        if not tab:
            continue
        path = name.decode("utf-8", "replace")
        paths.append(path)
        mode, oid = mode_and_id(head)
        if mode == b"160000":
            links[path] = oid.decode("ascii", "replace")
        elif mode == b"120000":
            symlinks.append(path)
    return list(dict.fromkeys(paths)), links, list(dict.fromkeys(symlinks))


def _tracked_and_links(root: str, launchers_root: str | None = None) -> Listing:
    """The files git tracks in the checkout ``root`` (`git ls-files`: never a venv or an output the run made beside
    them), those under ``LAUNCHER_DIR`` from ``launchers_root`` (``read_tree``), the checkout's submodules (path
    -> the commit its index records) and its symbolic links, each from there (``_listed``)."""
    own, links, symlinks = _listed(root)
    if launchers_root and os.path.abspath(launchers_root) != os.path.abspath(root):
        under = LAUNCHER_DIR + "/"
        theirs, their_links, their_symlinks = _listed(launchers_root)
        own = [p for p in own if not p.startswith(under)] + [p for p in theirs if p.startswith(under)]
        links = {**{p: c for p, c in links.items() if not p.startswith(under)},
                 **{p: c for p, c in their_links.items() if p.startswith(under)}}
        symlinks = [p for p in symlinks if not p.startswith(under)] + [p for p in their_symlinks if p.startswith(under)]
    return own, links, symlinks


# `git ls-files` in a folder that is no checkout says so (in the C locale it runs in); any other failure is no such word
NOT_A_REPOSITORY = "not a git repository"


def _listed(root: str) -> Listing:
    """``_tracked_and_links`` of one folder: `git ls-files -s` (the ownership check passed over, `safe.directory`, and
    nothing run, `core.fsmonitor` off: it only lists files, so a checkout another user owns lists as its owner's).
    A folder with no `.git` at or above it that git calls no repository, or on a host without git (actions/checkout
    downloads a tarball there), is no checkout: every entry under it is listed (``.git`` aside, no linked folder
    followed). A checkout git cannot list (no git to ask, a damaged index) would be walked into its untracked files
    (a venv) and without its submodules, an identity `ci reuse` never takes: ``Unlisted``."""
    import subprocess

    from sweepgate.core.errors import os_reason
    from sweepgate.core.worktop import enclosing_top

    try:
        proc = subprocess.run(["git", "-c", "safe.directory=*", "-c", "core.fsmonitor=false", "-C", root,
                               "ls-files", "-s", "-z"], capture_output=True, env={**os.environ, "LC_ALL": "C"})
    except OSError as exc:
        said, proc = "no git on the PATH" if isinstance(exc, FileNotFoundError) else f"git: {os_reason(exc)}", None
    else:
        said = next((line for line in proc.stderr.decode("utf-8", "replace").splitlines() if line.strip()),
                    f"git ls-files exited {proc.returncode}")
    if proc is not None and proc.returncode == 0:
        return _entries(proc.stdout, lambda head: head.split(b" ")[:2])
    if enclosing_top(root) is not None or (proc is not None and NOT_A_REPOSITORY not in said):
        raise _unlisted(root, said, "install git on the host" if proc is None else
                        f"repair the checkout (`git -C {root} ls-files` says what is wrong)")
    out, symlinks = [], []
    for folder, dirs, names in os.walk(root):
        rel = os.path.relpath(folder, root)
        under = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        linked = [d for d in dirs if os.path.islink(os.path.join(folder, d))]  # listed, never walked into
        dirs[:] = [d for d in dirs if d != GIT_DIR and d not in linked]
        out += [under + name for name in [*names, *linked]]
        symlinks += [under + name for name in [*names, *linked] if os.path.islink(os.path.join(folder, name))]
    return out, {}, symlinks


class Unlisted(SweepgateError):
    """A checkout whose tracked files git cannot list (``_listed``): ``job_identity`` says so and gives none."""


def _unlisted(root: str, said: str, fix: str) -> Unlisted:
    from sweepgate.core.errors import Diagnostic

    return Unlisted(Diagnostic(root, 0, 0, "unlisted-checkout", f"the run identity cannot list the checkout's tracked "
                               f"files ({said}), so the job has none and `ci reuse` will not reuse its results", fix,
                               severity="warning"))


def read_tree(root: str, launchers_root: str | None = None) -> Reader:
    """``read`` over checked-out files: the launchers from ``launchers_root`` (the benchmark
    job runs main's launchers beside the approved commit's scripts), the rest from ``root``; each as
    git stores it (``worktop.stored_bytes``: a symbolic link is its target's name), as ``ci reuse``
    reads the same files from git objects. A file that is there but cannot be read is refused
    (``Unreadable``), never hashed as missing."""
    from sweepgate.core.worktop import stored_bytes

    def read(paths: list[str]) -> Blobs:
        out: Blobs = {}
        for path in paths:
            where = launchers_root if launchers_root and path.startswith(LAUNCHER_DIR + "/") else root
            try:
                out[path] = stored_bytes(where, path, strict=True)
            except OSError as exc:
                if not _named_as_a_file(path) and exc.errno in (errno.EISDIR, errno.EINVAL):
                    out[path] = None  # a path a script names beside itself may be a folder (its configs/)
                    continue
                raise unreadable(where, path, exc) from None
        return out

    def there(path: str) -> bool:
        return _there(launchers_root if launchers_root and path.startswith(LAUNCHER_DIR + "/") else root, path)

    listing = _once(lambda: _tracked_and_links(root, launchers_root))
    return Reader(read, lambda: listing()[0], lambda: listing()[1], lambda: listing()[2], there)


def _there(root: str, path: str) -> bool:
    """Whether ``path`` may be a folder of the checkout ``root``, or be inside one of its links or submodules
    (``Reader.there``): it is there (links followed), or the nearest folder on its way that is (not the top) is
    empty or a repository of its own (a submodule not checked out, or checked out)."""
    if os.path.exists(os.path.join(root, path)):
        return True
    parts = path.split("/")[:-1]
    while parts and not os.path.isdir(folder := os.path.join(root, *parts)):
        parts.pop()
    try:
        return bool(parts) and (not os.listdir(folder) or os.path.lexists(os.path.join(folder, GIT_DIR)))
    except OSError:  # (a folder this user may not list: it may be)
        return True


class Unreadable(SweepgateError):
    """A file the run identity hashes that is there but cannot be read: hashed as missing, the job's
    identity would be that of another run (one whose checkout lacks the file), and `ci reuse` could hand
    it that run's results. ``job_identity`` lets it through, where other refusals mean no identity."""


def _named_as_a_file(path: str) -> bool:
    """Whether ``path`` is one of the files every job of its kind runs (the launchers, benchmark_lib.sh and
    its parts, the multi-node helpers): nothing else may stand there."""
    return _LAUNCHER.fullmatch(path) is not None or path in F.BENCHMARK_LIB_FILES or path in MULTINODE_PARTS


def unreadable(where: str, path: str, exc: OSError) -> Unreadable:
    """The one line of a file the run identity cannot read (``Unreadable``), at its path as
    ``worktop.shown_path`` names it (from the top for the repository's own, else from the working directory)."""
    from sweepgate.core.errors import Diagnostic, os_reason
    from sweepgate.core.worktop import READABLE_FIX, shown_path

    return Unreadable(Diagnostic(shown_path(where, path), 0, 0, "unreadable-identity-file",
                                 f"the run identity cannot read it ({os_reason(exc)}): hashed as missing, the job "
                                 "would take the identity of a run without it, and `ci reuse` could hand it that "
                                 "run's results", f"{READABLE_FIX}, or remove it if no job runs it"))
