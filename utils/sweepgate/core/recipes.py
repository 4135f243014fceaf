"""Recipes: one revision's configs, runner facts and resolved benchmark scripts, and how two differ.

A recipe's identity is its config content, the runner facts it expands with, and
the content of its resolved benchmark script (CONTRACTS section 7), of the helpers
it sources and of every other file its jobs run (``benchmarks/benchmark_lib.sh``
and its parts, the multi-node helpers, the launchers, what those source, and what a
`source` whose path starts where only the run knows may read: the ``job_files`` the
caller passes, ``core.identity.recipe_files``, the files the run identity hashes),
hashed as the run identity hashes them (``core.digest``).
"""

from __future__ import annotations

import functools
import json
import posixpath
from dataclasses import dataclass, field
from typing import Callable

from sweepgate.core import fields as F
from sweepgate.core import shellwords
from sweepgate.core.digest import file_sha, files_sha
from sweepgate.core.errors import Diagnostic, SweepgateError
from sweepgate.core.shellwords import FOLDER, TOP_CWD


SCRIPT_DIR = "benchmarks/single_node"
MULTI_NODE_SCRIPT_DIR = "benchmarks/multi_node"
DISAGG_LIB = f"{MULTI_NODE_SCRIPT_DIR}/disagg_lib.sh"  # starts a multi-node job's workers
# What a multi-node script sources or starts besides benchmark_lib.sh (tests/test_identity.py checks every file
# benchmarks/multi_node/*.sh names is here): every multi-node job runs them (``identity.support_files``)
MULTINODE_PARTS = (DISAGG_LIB, *(f"{MULTI_NODE_SCRIPT_DIR}/{name}" for name in ("disagg_head.sh", "node_task.sh",
                                                                               "docker_task.sh")))
SCRIPT_SCENARIO_DIRS = {F.AGENTIC_CODING: "agentic", F.FIXED_SEQ_LEN: "fixed_seq_len"}
RULE_BASE = "base-unreadable"
RULE_NO_LIBRARY = "missing-library"
# Where a repository without the benchmark library gets it when the installed package's copy cannot be found
LIBRARY_KEPT = "from the repository `sweepgate example --keep --no-rehearse` keeps"
RULE_NO_BENCHMARKS = "no-benchmarks-folder"


def shipped_benchmarks() -> str | None:
    """The benchmarks/ folder the installed package ships (the example fleet's: the library, its parts, the
    example's scripts and launchers), as an absolute path a fix can name; None when it cannot be found."""
    import os

    from sweepgate.core.fleet import fleet_root

    try:
        folder = os.path.join(fleet_root(), F.BENCHMARKS_DIR)
    except SweepgateError:
        return None
    return folder if os.path.isfile(os.path.join(folder, posixpath.basename(F.BENCHMARK_LIB))) else None


def library_copy(root: str | None = None) -> str:
    """The fix of a repository without the benchmark library (of a missing script, where it lacks it too): copy
    it from the copy the installed package ships (``shipped_benchmarks``), to its paths from the current folder
    (``repopaths.from_here``), as every fix names them. ``root``: the repository's top, else the one the current
    folder is in."""
    from sweepgate.core.repopaths import from_here
    from sweepgate.core.worktop import enclosing_top

    top = root or enclosing_top()
    lib, parts = (F.BENCHMARK_LIB, posixpath.dirname(F.BENCHMARK_LIB_PARTS[0]))
    if top:
        lib, parts = from_here(top, lib), from_here(top, parts)
    shipped = shipped_benchmarks()
    where = f"from {shipped}/, where sweepgate ships them" if shipped else LIBRARY_KEPT
    return f"copy {lib} and {parts}/, which the scripts source, {where}"


def no_benchmarks(root: str, command: str) -> Diagnostic | None:
    """The one problem of a repository with no benchmarks/ folder at all (a clone holding only configs/ and the
    changelog), for a ``command`` that runs rows' scripts: said once, at the folder (from the top, as every place
    the command found itself), the fix's paths from here, with where the package's own scripts are; None when
    the folder is there."""
    import os

    from sweepgate.core.errors import read_from_the_top
    from sweepgate.core.repopaths import from_here

    if os.path.isdir(os.path.join(root, F.BENCHMARKS_DIR)):
        return None
    here = from_here(root, F.BENCHMARKS_DIR)
    shipped = shipped_benchmarks()
    start = (f"start from the ones sweepgate ships: cp -r {shipped} {here} ({shipped}/README.md says how to "
             "write a script)" if shipped else "start from the benchmarks/ of the repository `sweepgate example "
             "--keep --no-rehearse` keeps")
    read_from_the_top([F.BENCHMARKS_DIR])  # an annotation's place too, from a subfolder
    return Diagnostic(F.BENCHMARKS_DIR, 0, 0, RULE_NO_BENCHMARKS,
                      f"no such folder; {command} runs each row's benchmark script from it (CONTRACTS section 7)",
                      f"add your scripts under {here}/, or {start}", in_file=True)


def gpu_family(runner: str) -> str:
    """A runner label's or runner name's GPU family: 'cluster:b300-nv', 'b300-nv_00', 'b300' -> 'b300'.

    The launcher a runner runs (launch_<runner-name prefix>.sh) passes the same family
    to launch::resolve_script.
    """
    name = runner[len(F.CLUSTER_PREFIX):] if runner.startswith(F.CLUSTER_PREFIX) else runner
    return name.split("_", 1)[0].split("-", 1)[0]


def runs_multinode(row: dict) -> bool:
    """A row with prefill/decode workers, or of a multinode: true config (MULTINODE=true in its job)."""
    return F.PREFILL in row or F.DECODE in row or row.get(F.MULTINODE) is True


def script_candidates(row: dict, gpu: str | None = None) -> list[str]:
    """The benchmark scripts a row may run, most specific first (CONTRACTS section 7).

    The row runs the first candidate that exists. A multi-node row looks under
    benchmarks/multi_node/ with the same names. ``gpu`` defaults to the family of the
    row's runner. This is the one home of the rule in Python; the runner launchers
    implement it in bash (launch::resolve_script in benchmarks/runners/launch_common.sh).
    """
    scenario = SCRIPT_SCENARIO_DIRS[
        F.AGENTIC_CODING if row.get(F.SCENARIO_TYPE) == F.AGENTIC_CODING else F.FIXED_SEQ_LEN]
    mtp = "_mtp" if row.get(F.SPEC_DECODING, F.DEFAULT_SPEC_DECODING) == "mtp" else ""
    stem = f"{row[F.MODEL_PREFIX]}_{row[F.PRECISION]}_{gpu or gpu_family(str(row[F.RUNNER]))}"
    directory = f"{MULTI_NODE_SCRIPT_DIR if runs_multinode(row) else SCRIPT_DIR}/{scenario}"
    return [f"{directory}/{stem}_{row[F.FRAMEWORK]}{mtp}.sh", f"{directory}/{stem}{mtp}.sh"]


@functools.lru_cache(maxsize=1024)
def _shell_reading(text: str, cwd: shellwords.Place | None = TOP_CWD, moves: tuple = (), sets: tuple = (),
                   absent: frozenset = frozenset()) -> shellwords.Reading:
    """``shellwords.reading`` of ``text`` from the working folder ``cwd`` (with the ``moves`` and ``sets`` of the files
    it sources, the ``absent`` folders),
    once per text and start: the run identity asks for every row's script and its helpers, and ``library_lines`` for
    the same files again (nothing changes a ``Reading`` once made)."""
    return shellwords.reading(text, cwd, moves, sets, absent)


def sourced(text: str) -> list[tuple[int, str, str]]:
    """Each file ``text`` sources (``core.shellwords``: wherever a command begins, through every spelling
    of the script's folder, the checkout's top or a variable set to either): (an offset on the line bash gives
    the command, the `source` word's start when no assignment leads it and it is all on one line; its path
    relative to the script's folder or ""; its path from the checkout's top or "")."""
    return _relative(_shell_reading(text).sourced)


def _relative(places) -> list[tuple[int, str, str]]:
    return [(at, path, "") if anchor == FOLDER else (at, "", path) for at, (anchor, path) in places]


def beside_paths(text: str) -> list[str]:
    """Any other file ``text`` names by a path beside the script, wherever it names it: one it runs
    (`python3 "$(dirname "$0")/client.py"`, `bash "$B/other.sh"`) or reads (a config), with or without an
    extension, spelled from the script's folder as a `source` is (``core.shellwords``): relative to it."""
    return [path for _, (_, path) in _shell_reading(text).named]


# helpers of helpers, followed this deep (a cycle ends at once: each file is followed once per folder
# its names resolve from)
SOURCED_DEPTH = 32
# What git stores for a symbolic link, and ``worktop.stored_bytes`` reads for one, is its target's name,
# any bytes but NUL, up to the longest name a link can hold. Blobs carry no mode, so a file of one line
# (no line break) is taken for a link, and read as a script too: hashing a target besides costs a reuse
# at most, never gives one. A name holding a line break is not told from a script's two lines.
LINK_MAX = 4096


def link_target(path: str, blob: bytes | None) -> str | None:
    """The file in the checkout a script (or helper) stored as a symbolic link runs: its target, from
    its own folder, whatever characters its name holds (a blank, '+', 'a//b', 'é'); None for a target
    outside the checkout (absolute or above its top), for a name that is not UTF-8 and for a file of
    more than one line."""
    if not blob or len(blob) > LINK_MAX or blob.startswith(b"/") or b"\n" in blob or b"\0" in blob:
        return None
    try:
        name = blob.decode()
    except UnicodeDecodeError:
        return None
    target = posixpath.normpath(posixpath.join(posixpath.dirname(path), name))
    return None if target == ".." or target.startswith("../") else target


def sourced_helpers(script: str | None, blobs: dict[str, bytes | None], cwd: shellwords.Place | None = TOP_CWD
                    ) -> list[str]:
    """The files ``script`` sources, runs or reads by a path relative to itself (or sources from the
    checkout's top), and theirs, as far as ``blobs`` holds them (``identities`` reads the missing ones
    and asks again); the shared library is not repeated. A symbolic link's target is one of them, and
    what the target names is looked for beside the link (``$0``) and beside the target (``realpath``).
    ``cwd``: the working folder ``script`` starts in (``helper_folders``)."""
    return list(helper_folders(script, blobs, cwd))


# How a file is read (``Start``): the working folder it starts in, the ``shellwords.reading`` moves of the files it
# sources (where each leaves the working folder) and (``started``) their sets (what each leaves its variables) and the
# folders a `cd` in it goes to that the checkout does not hold
Start = tuple


def helper_folders(script: str | None, blobs: dict[str, bytes | None], cwd: shellwords.Place | None = TOP_CWD,
                   reached: Callable[[str], bool] | None = None) -> dict[str, list[Start]]:
    """``sourced_helpers`` of ``script`` (started in ``cwd``), each with how it is read (``Start``): a file sourced
    runs in the same shell, so its relative paths, `$PWD` and `$(pwd)` are from the folder at the `source`
    (`cd b; source ./h.sh`: h.sh's `source x.sh` is b/x.sh), a checkout path (TOP, folder), or None where only the run
    knows it (every tracked file ending in its names is read then, ``tail_sources``); and where it leaves the working
    folder is where the file that sourced it goes on (`source ./h.sh` where h.sh runs `cd sub`: a `source y.sh` after
    it is sub/y.sh). A file run (`bash x.sh`, `python3 "$(dirname "$0")/t.py"`) starts in the working folder at the run
    as well, a new process: where it leaves the working folder is its own. A file run that the checkout has not is
    dropped (an image's own), unless ``reached`` (a path the checkout has not -> whether a tracked link to a folder or
    a submodule is on its way: ``identity.tail_files`` follows it there) says it may be."""
    found: dict[str, list] = {}
    ends: dict = {}
    first = started(script, blobs, cwd, ends) if script else None
    # each file to read: its path, the folder its names beside itself resolve from, how it is read (``Start``), and
    # the folder of the file bash runs (`$0`'s: in a file sourced it is the running script's, not its own)
    todo = [(script, posixpath.dirname(script), first, posixpath.dirname(script))] if script else []
    seen: set = set()
    for _ in range(SOURCED_DEPTH):
        nxt = []
        for path, folder, start, running in todo:
            named = _read_by(path, folder, start, running, blobs, ends, reached)
            if (target := link_target(path, blobs.get(path))) is not None:
                named = [(target, folder, start, running), (target, posixpath.dirname(target), start, running),
                         *named]
            for helper, where, how, runs in named:
                if (helper, where, how, runs) in seen or helper in F.BENCHMARK_LIB_FILES or helper.startswith("../"):
                    continue
                seen.add((helper, where, how, runs))
                found.setdefault(helper, [])
                if how not in found[helper]:
                    found[helper].append(how)
                nxt.append((helper, where, how, runs))
        todo = nxt
    return found


def _read_by(path: str, folder: str, start: Start, running: str, blobs: dict[str, bytes | None], ends: dict,
             reached: Callable[[str], bool] | None) -> list[tuple]:
    """The files ``path`` (read as ``start``, its names beside itself from ``folder``, `$0` the file in ``running``)
    sources, names or runs, for ``helper_folders``: each its path, the folder its names beside itself resolve from, how
    it is read (``Start``) and the folder of the file bash runs (a file sourced keeps ``running``; one run is its
    own)."""
    text = (blobs.get(path) or b"").decode("utf-8", "replace")
    read = _shell_reading(text, *start)
    # `$0` and `${BASH_SOURCE[0]}` are one spelling to ``shellwords``: in a file sourced that spells `$0`, a
    # path beside "the script" is read beside both it and the running script (one more file costs a reuse)
    folders = dict.fromkeys([folder, running] if shellwords.names_dollar0(text) else [folder])

    def each_of(places, sites) -> list[tuple[str, shellwords.Place | None]]:  # each path and the site it starts at
        return [(_helper(each, beside, from_top), _site(each, site))
                for (_, beside, from_top), site in zip(_relative(places), sites)
                for each in (folders if beside or (site and site[0] == FOLDER) else [folder])]
    sourced = [(helper, site, running) for helper, site in each_of(read.sourced, read.sites)]
    # a file named or run beside the script: a new process, from the working folder there
    named = [(helper, site, None) for helper, site in each_of(read.named, read.named_sites)]
    # a file run, where the checkout has it (`python3 x.py` may run the image's own) or may through a tracked link or
    # a submodule on its way (``reached``); from the working folder there
    # (one read as data by a name alone, `cat .env`, `tail -n 1`: no link or submodule on its way, none asked for)
    named += [(helper, site, None) for helper, site in each_of(read.ran, read.ran_sites)
              if helper not in blobs or blobs[helper] is not None or reached is not None
              and (not shellwords.is_data(site) or "/" in helper) and reached(helper)]
    # a file a word of a command names, where the checkout has it (``argument_paths`` reads them first), or a tracked
    # folder (``_named_folder``): as data
    named += [(helper, site, None) for entry, named_at in zip(read.arguments, read.argument_sites)
              for helper, site in each_of([entry], [named_at]) if blobs.get(helper) is not None
              or _named_folder(helper, blobs, reached, whole=not shellwords.assigned_at(text, entry[0])
                               or shellwords.exported_at(text, entry[0]))]
    # a script a copy command copies, or a folder it copies (``shellwords.Reading.copied``): the copy may run
    named += [(helper, site, None) for helper, site in each_of(read.copied, read.copied_sites)
              if runnable(helper, blobs.get(helper)) or _named_folder(helper, blobs, reached)]
    return [(helper, posixpath.dirname(helper), started(helper, blobs, site, ends),
             posixpath.dirname(helper) if runs is None else runs) for helper, site, runs in sourced + named]


RUNNABLE = (".sh", ".bash", ".py")  # a copied file's endings read as a script's (and one that starts with `#!`)


def runnable(path: str, blob: bytes | None) -> bool:
    """Whether a file a copy command copies (``shellwords.Reading.copied``) is read as a script its copy may run:
    one ending in ``RUNNABLE`` or starting with `#!`; any other (a config) stays data."""
    return blob is not None and (path.endswith(RUNNABLE) or blob.startswith(b"#!"))


def _named_folder(path: str, blobs: dict[str, bytes | None], reached: Callable[[str], bool] | None, *,
                  whole: bool = True) -> bool:
    """Whether a word of a command names a folder of the checkout (not its top) or a path inside a submodule, which
    ``reached`` says (``identity._through``; asked only of one its ``there`` says may be, so that a word naming
    nothing lists no tracked file): a program may list and read every file in it (`python3 r.py shared/cfgs`,
    ``identity.tail_files`` reads them), or the submodule stands for it. Not one ``blobs`` has not read yet, nor a
    file. ``whole=False`` (a variable's value, `D=shared`: mostly a folder a script builds paths on, which the reading
    follows): only a path through a link or submodule (``reached.linked``), no folder read whole."""
    return (path in blobs and blobs[path] is None and path not in ("", ".") and reached is not None
            and getattr(reached, "there", bool)(path)
            and (reached if whole else getattr(reached, "linked", reached))(path))


def start_of(path: str, blobs: dict[str, bytes | None], cwd: shellwords.Place | None = TOP_CWD,
             ends: dict | None = None, depth: int = 0) -> Start:
    """How ``path`` is read when it starts in ``cwd`` (``Start``): with the moves of the files it sources that may move
    the working folder, each the folder that file leaves (``_end``), found in turn (where one goes on from depends on
    the ones before it); after a `source` whose path starts where only the run knows, the folder is one only the run
    knows when a file of ``blobs`` ending in its written names may move it."""
    ends = {} if ends is None else ends
    text = (blobs.get(path) or b"").decode("utf-8", "replace")
    folder, moves, held = posixpath.dirname(path), (), None
    for _ in range(SOURCED_DEPTH):
        read = _shell_reading(text, cwd, moves)
        found = []
        for (at, beside, from_top), site in zip(_relative(read.sourced), read.sites):
            helper, site = _helper(folder, beside, from_top), _site(folder, site)
            if helper in F.BENCHMARK_LIB_FILES or helper.startswith("../") or blobs.get(helper) is None:
                continue
            moves_it, end = _end(helper, blobs, site, ends, depth + 1)
            if moves_it:
                found.append((at, end))
        for (at, rest, _), site in zip(read.tails, read.tail_sites):  # any file ending so may be the one sourced
            held = held if held is not None else [p for p, blob in blobs.items() if blob is not None]
            if any(_end(p, blobs, _site(folder, site), ends, depth + 1)[0] for p in ending_in(rest, held)
                   if p not in F.BENCHMARK_LIB_FILES):
                found.append((at, None))
        # kept once found: a `source` the moves make a written end (`f() { source ./h.sh; }`, h.sh moving it) still does
        merged = tuple(sorted({**dict(moves), **dict(found)}.items()))
        if merged == moves:
            break
        moves = merged
    return cwd, moves


def started(path: str, blobs: dict[str, bytes | None], cwd: shellwords.Place | None = TOP_CWD,
            ends: dict | None = None) -> Start:
    """``start_of`` of ``path``, then the sets of the files it sources and the folders it may `cd` to that the checkout
    does not hold (``_sets``): a file sourced runs in the same shell, so what it assigns holds after its `source`
    (`source env.sh` where env.sh sets `D=shared`, then `bash "$D/x.sh"`: shared/x.sh), as its `cd` does; and a `cd`
    to a folder the checkout does not hold may fail (`cd missing; python3 x.py` runs x.py)."""
    ends = {} if ends is None else ends
    cwd, moves = start_of(path, blobs, cwd, ends)
    return (cwd, moves, *_sets(path, blobs, cwd, moves, ends, 0))


def _sets(path: str, blobs: dict[str, bytes | None], cwd: shellwords.Place | None, moves: tuple, ends: dict,
          depth: int) -> tuple[tuple, frozenset]:
    """The ``shellwords.reading`` sets and absent folders of ``path`` read from ``cwd`` with ``moves``: for each
    `source` in it of a file that may set variables, their values where that file ends (``_left``); after a `source`
    whose path starts where only the run knows, of each file of ``blobs`` ending in its written names (a value they do
    not all leave alike is one only the run knows); and each folder a `cd` in it goes to that holds no file of
    ``blobs`` (``_absent``: reading more than bash runs costs a reuse at most). Found in turn, as the moves are (which
    file a `source` reads may depend on what the ones before it set)."""
    if (found := ends.get(("sets", path, cwd, moves))) is not None:  # once per file and start
        return found
    ends["sets", path, cwd, moves] = ((), frozenset())  # met again while being read: a cycle
    text = (blobs.get(path) or b"").decode("utf-8", "replace")
    folder, sets, absent, held = posixpath.dirname(path), (), frozenset(), None
    for _ in range(SOURCED_DEPTH):
        read = _shell_reading(text, cwd, moves, sets, absent)
        found = {}
        for (at, beside, from_top), site in zip(_relative(read.sourced), read.sites):
            helper = _helper(folder, beside, from_top)
            if not helper.startswith("../") and blobs.get(helper) is not None:
                found[at] = _left(helper, blobs, _site(folder, site), ends, depth + 1)
        for (at, rest, _), site in zip(read.tails, read.tail_sites):  # any file ending so may be the one sourced
            held = held if held is not None else [p for p, blob in blobs.items() if blob is not None]
            lefts = [dict(_left(p, blobs, _site(folder, site), ends, depth + 1)) for p in ending_in(rest, held)]
            names = sorted({name for left in lefts for name in left})
            found[at] = tuple((name, values.pop() if len(values := {left.get(name, ()) for left in lefts}) == 1
                               and () not in values else None) for name in names)
        now = tuple(sorted((at, pairs) for at, pairs in found.items() if pairs)), absent | _absent(folder, read, blobs,
                                                                                                   ends)
        if now == (sets, absent):
            break
        sets, absent = now
    ends["sets", path, cwd, moves] = sets, absent
    return sets, absent


def _absent(folder: str, read: shellwords.Reading, blobs: dict[str, bytes | None], ends: dict) -> frozenset:
    """The places a `cd` of ``read`` (a file in ``folder``) goes to where no file of ``blobs`` is: folders the
    checkout does not hold (or none the identity reads, which costs a reuse at most). One under which ``read`` names a
    file ``blobs`` has not read yet is not one until it is read (``read_all`` reads it, then asks again)."""
    went = {place: at[1] for _, place, _ in read.moved if place and place[0] in (shellwords.TOP, FOLDER)
            and (at := _site(folder, place)) is not None and at[1] not in ("", ".")}
    if not went:
        return frozenset()
    if (held := ends.get(("folders",))) is None:
        held = ends["folders",] = {part for p, blob in blobs.items() if blob is not None
                                   for part in _folders_of(p)}
    named = [_helper(folder, beside, top)
             for _, beside, top in _relative(read.sourced + read.named + read.ran + read.arguments)]
    unread = [path for path in named if path not in blobs]
    return frozenset(place for place, at in went.items()
                     if at not in held and not any(path.startswith(at + "/") for path in unread))


def _folders_of(path: str) -> list[str]:
    """The folders ``path`` (from the checkout's top) is in: `a/b/c.sh` -> a, a/b."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]


def _left(path: str, blobs: dict[str, bytes | None], cwd: shellwords.Place | None, ends: dict, depth: int) -> tuple:
    """What a file sourced from ``cwd`` leaves the variables it may set (``shellwords.Reading.left``), as (name, place)
    pairs for the file that sources it: a place beside it as one from the checkout's top (``_site``), its own name
    (`$0`) as one only the run knows, as is a place beside it in a file that spells `$0` (in a file sourced, `$0` is
    the running script: `D="$(dirname "$0")/lib"` is beside that, ``shellwords`` takes it for this file's); past ``SOURCED_DEPTH`` files sourced in each other, or in a cycle, nothing."""
    key = ("left", path, cwd)
    if key not in ends:
        ends[key] = ()
        if depth < SOURCED_DEPTH:
            text = (blobs.get(path) or b"").decode("utf-8", "replace")
            start = start_of(path, blobs, cwd, ends, depth)
            read = _shell_reading(text, *start, *_sets(path, blobs, *start, ends, depth))
            folder, dollar0 = posixpath.dirname(path), shellwords.names_dollar0(text)
            ends[key] = tuple((name, None if place is None or place[0] == shellwords.SELF
                               or dollar0 and place[0] == FOLDER else
                               _site(folder, place) if place[0] == FOLDER else place)
                              for name, place in read.left.items())
    return ends[key]


def _end(path: str, blobs: dict[str, bytes | None], cwd: shellwords.Place | None, ends: dict, depth: int
         ) -> tuple[bool, shellwords.Place | None]:
    """Whether a file sourced from ``cwd`` may move the working folder (a `cd` in it, or in a file it sources: even
    one that leaves it where it was may not run), and the folder it leaves (a checkout path; None where only the run
    knows it, and past ``SOURCED_DEPTH`` files sourced in each other, a cycle among them)."""
    if (path, cwd) not in ends:
        ends[path, cwd] = (True, None)  # met again while being read: a cycle
        if depth < SOURCED_DEPTH:
            text = (blobs.get(path) or b"").decode("utf-8", "replace")
            start = start_of(path, blobs, cwd, ends, depth)  # and what the files it sources set (`cd "$D"`)
            read = _shell_reading(text, *start, *_sets(path, blobs, *start, ends, depth))
            left = read.end_cwd
            if left and left[0] == FOLDER and shellwords.names_dollar0(text):
                left = None  # `cd "$(dirname "$0")"`: beside the running script, not this file (``_left``)
            ends[path, cwd] = (bool(read.moved), _site(posixpath.dirname(path), left))
    return ends[path, cwd]


def _site(folder: str, cwd: shellwords.Place | None) -> shellwords.Place | None:
    """The working folder at a `source` (``shellwords.Reading.sites``) as a checkout path: one beside the script is
    from ``folder``, the folder its names resolve from."""
    if cwd is None or cwd[0] != shellwords.FOLDER:
        return cwd
    path = posixpath.normpath(posixpath.join(folder, cwd[1]))
    return (shellwords.TOP, "" if path == "." else path) if path != ".." and not path.startswith("../") else None


def _helper(folder: str, beside: str, from_top: str) -> str:
    """A file named beside the script's ``folder`` or from the checkout's top, as a checkout path."""
    # "$(dirname ...)//x.sh" is dir//x.sh to bash, inside the folder: never an absolute path
    return posixpath.normpath(posixpath.join(folder, beside.lstrip("/")) if beside else from_top)


def read_helpers(scripts, blobs: dict[str, bytes | None], read) -> None:
    """Add to ``blobs`` the helpers ``scripts`` source, then theirs (``read(paths) -> blobs``, one call
    per level of `source`), as deep as ``sourced_helpers`` follows them."""
    for _ in range(SOURCED_DEPTH):
        more = sorted({h for s in scripts for h in sourced_helpers(s, blobs) if h not in blobs})
        if not more:
            return
        blobs.update(read(more))


def library_lines(scripts, blobs: dict[str, bytes | None]) -> list[tuple[str, int]]:
    """Where ``scripts`` and the helpers they source (as far as ``blobs`` holds them) source the benchmark
    library (`source`/`.` of a path that is ``benchmark_lib.sh``, as ``sourced_helpers`` reads them):
    (file, 1-based line) of the first such line of each file, each file once, in the order met."""
    found: dict[str, int] = {}
    for script in scripts:
        helpers = helper_folders(script, blobs)
        for path in [script, *shell_files(helpers, helpers)]:
            if path in found:
                continue
            text = (blobs.get(path) or b"").decode("utf-8", "replace")
            for at, beside, from_top in sourced(text):
                if _helper(posixpath.dirname(path), beside, from_top) == F.BENCHMARK_LIB:
                    found[path] = text.count("\n", 0, at) + 1
                    break
    return list(found.items())


def unseen_sources(paths, blobs: dict[str, bytes | None], folders: dict | None = None, *, said: bool = False
                   ) -> list[tuple]:
    """(file, 1-based line, its word) of each `source` in the files ``paths`` (as far as ``blobs`` holds them) whose
    file only the run knows (``shellwords.Reading.unseen``: `source <(...)`, `source "$FROM_THE_ENVIRONMENT/x.sh"`),
    and of each file run so, in order; each file read from each working folder ``folders`` gives it
    (``helper_folders``; by default the top). ``said``: and last, what the line does to it, ``UNSEEN_RUNS`` (a file run,
    ``shellwords.Reading.unseen_ran``: `bash "$D"`) or ``UNSEEN_SOURCES``."""
    found = []
    for path in dict.fromkeys(paths):
        text = (blobs.get(path) or b"").decode("utf-8", "replace")
        for start in (folders or {}).get(path) or [(TOP_CWD, ())]:
            read = _shell_reading(text, *start)
            ran = set(read.unseen_ran)
            found += [(path, text.count("\n", 0, at) + 1, word,
                       *([UNSEEN_RUNS if (at, word) in ran else UNSEEN_SOURCES] if said else []))
                      for at, word in read.unseen]
    return list(dict.fromkeys(found))


UNSEEN_SOURCES, UNSEEN_RUNS = "sources", "runs"  # what a line does to a file only the run knows (``unseen_sources``)


def tail_sources(paths, blobs: dict[str, bytes | None], *, starts: bool = False, folders: dict | None = None,
                 sites: bool = False) -> list[tuple]:
    """(file, 1-based line, the written end of its path) of each `source` in the files ``paths`` (as far as ``blobs``
    holds them) whose path starts where only the run knows but ends in names written out (``shellwords.Reading.tails``:
    `source "$VENV/bin/activate"`, `cd /workspace; source benchmarks/x.sh`, `source x.sh` in a helper sourced where
    only the run knows the working folder), and of each file run so (``shellwords.Reading.ran_tails``: `bash
    "$D/x.sh"`), in order; with ``starts``, and the variable its own word starts with (`GITHUB_WORKSPACE` for
    `"$GITHUB_WORKSPACE/x/y.sh"`; "" for any other start, a file run's too: its folder may be inside any submodule;
    ``shellwords.ABSOLUTE_DATA`` for an absolute path read as data, s47f).
    Each file is read from each working folder ``folders`` gives it (``helper_folders``; by default the top); with
    ``sites``, last, the working folder at the `source` (a checkout path, None where only the run knows it: where the
    file it reads starts)."""
    found = []
    for path in dict.fromkeys(paths):
        text = (blobs.get(path) or b"").decode("utf-8", "replace")
        for start in (folders or {}).get(path) or [(TOP_CWD, ())]:
            read = _shell_reading(text, *start)
            tails = [*read.tails, *read.ran_tails]  # a file run: as one sourced (its start "", s47f: or ABSOLUTE_DATA)
            found += [(path, text.count("\n", 0, at) + 1, rest, *([start] if starts else []),
                       *([_site(posixpath.dirname(path), site)] if sites else []))
                      for (at, rest, start), site in zip(tails, [*read.tail_sites, *read.ran_tail_sites])]
    return list(dict.fromkeys(found))


def globbed(paths, blobs: dict[str, bytes | None], folders: dict | None = None) -> list[tuple[str, bool, tuple]]:
    """(the path with a glob from the checkout's top, or its written end where only the run knows the start; whether
    from the top; the working folder there, a checkout path or None) of each file the files ``paths`` source, run or
    read by a path with a glob (``shellwords.Reading.globs``: `for f in "$D"/*.sh; do source "$f"; done`), in order,
    each file read from each working folder ``folders`` gives it; ``identity.tail_files`` reads every tracked file
    each matches."""
    found = [(place[1], False, _site(folder, site)) if place[0] == shellwords.TAIL else
             (_helper(folder, *_relative([(at, place)])[0][1:]), True, _site(folder, site))
             for folder, read in _readings(paths, blobs, folders)
             for (at, place), site in zip(read.globs, read.glob_sites)]
    return list(dict.fromkeys(found))


def argument_paths(paths, blobs: dict[str, bytes | None], folders: dict | None = None) -> list[str]:
    """The paths of the files a word of a command in the files ``paths`` names (``shellwords.Reading.arguments``:
    `python3 x.py --config c.json`, `CFG=c.json cmd`), in order, each file read from each working folder ``folders``
    gives it: ``identity.read_all`` reads them, and those the checkout has are data its job reads (``helper_folders``).
    """
    found = [_helper(folder, beside, from_top) for folder, read in _readings(paths, blobs, folders)
             for _, beside, from_top in _relative(read.arguments)]
    return [path for path in dict.fromkeys(found) if not path.startswith("../")]


def mounted_folders(paths, blobs: dict[str, bytes | None], folders: dict | None = None) -> list[tuple[str, str]]:
    """(the target, the folder's checkout path) of each mount of a folder of the checkout a command that starts a
    container in the files ``paths`` writes (``shellwords.Reading.mounted``), in order, each file read from each
    working folder ``folders`` gives it: ``identity.tail_files`` reads a written end through each."""
    found = [(target, site[1]) for folder, read in _readings(paths, blobs, folders) for target, place in read.mounted
             if (site := _site(folder, place)) is not None and site[0] == shellwords.TOP]
    return list(dict.fromkeys(found))


def _readings(paths, blobs: dict[str, bytes | None], folders: dict | None):
    """(its folder, its ``shellwords.Reading``) of each of the files ``paths`` (as far as ``blobs`` holds them) read
    from each working folder ``folders`` gives it (by default the top), in order."""
    for path in dict.fromkeys(paths):
        text = (blobs.get(path) or b"").decode("utf-8", "replace")
        for start in (folders or {}).get(path) or [(TOP_CWD, ())]:
            yield posixpath.dirname(path), _shell_reading(text, *start)


def shell_files(paths, folders: dict) -> list[str]:
    """The ``paths`` read as shell from one of their working folders ``folders`` gives them at least (a file the job
    reads as data alone, `cat .env`, is none: ``shellwords.READ_AS_DATA``), in order."""
    return [path for path in paths
            if any(not shellwords.is_data(start[0]) for start in folders.get(path) or [(TOP_CWD,)])]


def ran_from_workspace(paths, blobs: dict[str, bytes | None], folders: dict | None = None) -> list[str]:
    """The path after the workspace of each file the files ``paths`` run from it
    (``shellwords.Reading.ran_from_workspace``: `bash "$GITHUB_WORKSPACE/x.sh"`), in order, each file read from each
    working folder ``folders`` gives it; read only when a file of the job moves the workspace
    (``identity.tail_files``), unlike ``tail_sources``' files run by a path only the run knows the start of
    (``shellwords.Reading.ran_tails``), read whatever the job sets."""
    found = []
    for path in dict.fromkeys(paths):
        text = (blobs.get(path) or b"").decode("utf-8", "replace")
        for start in (folders or {}).get(path) or [(TOP_CWD, ())]:
            found += [rest for _, rest in _shell_reading(text, *start).ran_from_workspace]
    return list(dict.fromkeys(found))


def bare_names(paths, blobs: dict[str, bytes | None]) -> list[str]:
    """Each name alone as a word in the files ``paths`` (``shellwords.bare_words``), in order."""
    return list(dict.fromkeys(name for path in dict.fromkeys(paths)
                              for name in shellwords.bare_words((blobs.get(path) or b"").decode("utf-8", "replace"))))


def ending_in(rest: str, paths) -> list[str]:
    """The ``paths`` (a checkout's tracked files) that end in ``rest`` name for name (`x/benchmarks/a.sh` and
    `benchmarks/a.sh` end in `benchmarks/a.sh`, `xbenchmarks/a.sh` does not), in order."""
    return [path for path in paths if path == rest or path.endswith("/" + rest)]


def missing_library(places: list[tuple[str, int]], *, where: str = "the repository",
                    severity: str = "error", root: str | None = None) -> Diagnostic:
    """The one wording of scripts that source the benchmark library where it is missing (``rehearse``,
    ``preflight``, ``plan``): once, at the first line of ``places`` (``library_lines``) that sources it
    (where bash stops), the other files counted; its fix is ``library_copy(root)``."""
    (file, line), others = places[0], [path for path, _ in places[1:]]
    more = (f" ({len(others)} other file{'s' if len(others) > 1 else ''} source{'' if len(others) > 1 else 's'} it "
            f"too: {', '.join(others[:3])}{', ...' if len(others) > 3 else ''})" if others else "")
    return Diagnostic(file, line, 0, RULE_NO_LIBRARY, f"sources {F.BENCHMARK_LIB}, which {where} does not have{more}",
                      library_copy(root), severity=severity)


def library_problem(scripts, read, **how) -> Diagnostic | None:
    """``missing_library`` for ``scripts`` of a checkout that lacks the library, reading them and the
    helpers they source with ``read(paths) -> blobs``; None when none of them sources it."""
    blobs = read(sorted(scripts))
    read_helpers(scripts, blobs, read)
    places = library_lines(sorted(scripts), blobs)
    return missing_library(places, **how) if places else None


def resolve_script(candidates: list[str], blobs: dict[str, bytes | None]) -> str | None:
    for path in candidates:
        if blobs.get(path) is not None:
            return path
    return None


def _script_rows(config) -> dict[str, list[dict]]:
    """Per scenario type, the script-relevant part of each search-space point as a row-shaped dict.

    Only what ``script_candidates`` reads; no expansion, so it works on any revision.
    """
    out: dict[str, list[dict]] = {}
    if not isinstance(config, dict):
        return out
    scenarios = config.get(F.SCENARIOS)
    if not isinstance(scenarios, dict):
        return out
    identity = {f: config.get(f) for f in (F.MODEL_PREFIX, F.PRECISION, F.FRAMEWORK, F.RUNNER)}
    if not all(isinstance(v, str) for v in identity.values()):
        return out
    for scenario in F.SCENARIO_TYPES:
        blocks = scenarios.get(scenario)
        if not isinstance(blocks, list):
            continue
        specs = set()
        for block in blocks:
            for point in (block.get(F.SEARCH_SPACE) or []) if isinstance(block, dict) else []:
                if isinstance(point, dict):
                    specs.add(str(point.get(F.SPEC_DECODING, F.DEFAULT_SPEC_DECODING)))
        rows = []
        for spec in sorted(specs):
            row = {**identity, F.SPEC_DECODING: spec, F.MULTINODE: config.get(F.MULTINODE) is True}
            if scenario == F.AGENTIC_CODING:
                row[F.SCENARIO_TYPE] = F.AGENTIC_CODING
            rows.append(row)
        if rows:
            out[scenario] = rows
    return out


def script_users(configs: dict) -> dict[str, list[str]]:
    """Each script a config's rows run first (``script_candidates``[0]) -> the config keys whose rows
    do, in config order: where a missing script is reported (``_script_rows``; no expansion)."""
    out: dict[str, list[str]] = {}
    for key, config in configs.items():
        for rows in _script_rows(config).values():
            for row in rows:
                users = out.setdefault(script_candidates(row)[0], [])
                if key not in users:
                    users.append(key)
    return out


@dataclass
class RecipeSet:
    """One revision's recipes: configs, runner facts, resolved scripts and their hashes."""

    ref: str
    configs: dict
    owner: dict
    runners: dict
    blobs: dict[str, bytes | None] = field(default_factory=dict)
    # key -> scenario -> sorted list of (candidate[0], resolved path or None)
    scripts: dict[str, dict[str, list[tuple[str, str | None]]]] = field(default_factory=dict)
    candidates: dict[str, list[str]] = field(default_factory=dict)  # candidate[0] -> all candidates
    # key -> every file its jobs run besides its script and the helpers that sources (``job_files``: what their run
    # identities hash); a row with no benchmark script runs its launchers alone (``runs_lib``)
    support: dict[str, list[str]] = field(default_factory=dict)
    runners_doc: object = None  # the runners file as read (``YamlDoc``: where its entries stand), when it was

    def runners_place(self, path: tuple) -> tuple[str, int, int]:
        """(file, line, col) of ``path`` in the runners file (of its nearest entry there); the file
        at no line when it could not be read."""
        doc = self.runners_doc
        return (doc.path, *doc.locate(path)) if doc is not None else (F.RUNNERS_FILE, 0, 0)

    def sha(self, path: str | None) -> str | None:
        """A script's digest with the helpers it sources, as the run identity hashes them (core.digest)."""
        if not path or self.blobs.get(path) is None:
            return file_sha(None)
        helpers = sourced_helpers(path, self.blobs)
        return files_sha([path, *helpers], self.blobs) if helpers else file_sha(self.blobs[path])

    def helpers(self) -> set[str]:
        """Every file a resolved script sources (``sourced_helpers``), the target of a script stored as a
        symbolic link among them: a benchmark script no config resolves to is still run through it."""
        return {h for per in self.scripts.values() for pairs in per.values() for _, p in pairs if p
                for h in sourced_helpers(p, self.blobs)}

    @property
    def lib_sha(self) -> str | None:
        """One digest of the library: the entry point and every part it sources (core.digest)."""
        if self.blobs.get(F.BENCHMARK_LIB) is None:
            return None
        return files_sha(F.BENCHMARK_LIB_FILES, self.blobs)

    def runs_lib(self, key: str) -> bool:
        """Whether the jobs of ``key`` run ``benchmark_lib.sh`` (and so every part it sources): those of
        its rows with a benchmark script do (``scripted_scenarios``); a job with none stops in its launcher."""
        return F.BENCHMARK_LIB in self.support.get(key, ())

    def scripted_scenarios(self, key: str) -> list[str]:
        """The scenario types of ``key`` with at least one row whose benchmark script resolves."""
        per = self.scripts.get(key, {})
        return [s for s in F.SCENARIO_TYPES if any(p for _, p in per.get(s, ()))]

    def runner_facts(self, key: str):
        runner = (self.configs.get(key) or {}).get(F.RUNNER) if isinstance(self.configs.get(key), dict) else None
        if not isinstance(self.runners, dict) or not isinstance(runner, str):
            return None
        # Only the hardware facts reach rows and jobs (DRAM budget, node shape, NICs); node lists
        # and the pool's size do not change a recipe.
        facts = (self.runners.get(F.HARDWARE) or {}).get(runner)
        return {k: v for k, v in facts.items() if k != F.POOL_NODES} if isinstance(facts, dict) else facts

    def script_ids(self, key: str, scenario: str) -> list[tuple[str, str | None, str | None]]:
        return [(first, path, self.sha(path)) for first, path in self.scripts.get(key, {}).get(scenario, [])]


# (rows, runners, git, ref) -> (the files of ``ref`` the jobs of ``rows`` run, as read; for each row every file its job
# runs: ``core.identity.recipe_files``, what the run identity hashes)
JobFiles = Callable[..., "tuple[dict[str, bytes | None], list[list[str]]]"]


def load_recipes(git, ref: str, opts, *, is_base: bool, extra_paths: list[str] = (),
                 job_files: JobFiles) -> tuple[RecipeSet, list]:
    """Load and check a revision; read every candidate script and every file its jobs run.

    ``job_files`` reads the files the rows' jobs run and names, per row, those besides its script and the helpers
    that sources (``core.identity.recipe_files``, which this module cannot import: the run identity's own reading, so
    the plan hashes what it hashes); they become ``RecipeSet.support``."""
    from sweepgate.core.check import check_revision
    from sweepgate.core.load import load_revision

    notes: list[Diagnostic] = []
    rev = None
    try:
        rev = load_revision(git, ref, opts.config_files, opts.runner_config)
        check_revision(rev)
    except SweepgateError as exc:
        if not is_base:
            raise
        first = exc.diagnostics[0] if exc.diagnostics else Diagnostic(F.CONFIG_DIR)
        notes.append(Diagnostic(first.file, first.line, first.col, RULE_BASE,
                                f"the base revision's configs do not load cleanly ({len(exc.diagnostics)} "
                                f"problem(s), first: {first.message}); the diff uses what could be read",
                                severity="info"))
    runners = rev.runners.data if rev else {}
    recipes = RecipeSet(ref, dict(rev.configs) if rev else {}, dict(rev.owner) if rev else {},
                        runners if isinstance(runners, dict) else {}, runners_doc=rev.runners if rev else None)
    _read_recipes(git, recipes, [*F.BENCHMARK_LIB_FILES, *extra_paths], job_files)
    return recipes, notes


def _read_recipes(git, recipes: RecipeSet, wanted: list[str], job_files: JobFiles) -> None:
    """Fill ``recipes``' candidates, support, blobs and resolved scripts (with their helpers)."""
    ref = recipes.ref
    candidates: dict[str, dict[str, list[list[str]]]] = {}
    key_rows: list[tuple[str, dict, list[str]]] = []
    for key, config in recipes.configs.items():
        for scenario, rows in _script_rows(config).items():
            lists = [script_candidates(r) for r in rows]
            candidates.setdefault(key, {})[scenario] = lists
            key_rows.extend((key, row, paths) for row, paths in zip(rows, lists))
            for paths in lists:
                recipes.candidates[paths[0]] = paths
    blobs, ran = job_files([row for _, row, _ in key_rows], recipes.runners, git, ref)
    recipes.blobs = blobs
    if more := [path for path in dict.fromkeys(wanted) if path not in blobs]:
        blobs.update(git.read_blobs(ref, more))
    for key, per_scenario in candidates.items():
        for scenario, lists in per_scenario.items():
            recipes.scripts.setdefault(key, {})[scenario] = sorted(
                {(paths[0], resolve_script(paths, blobs)) for paths in lists}, key=lambda t: (t[0], t[1] or ""))
    for (key, _, _), files in zip(key_rows, ran):  # what a row's job runs depends on whether its script is there
        support = recipes.support.setdefault(key, [])
        support += [path for path in files if path not in support]
    recipes.support = {key: files for key, files in recipes.support.items() if files}


def read_reached(base: RecipeSet, head: RecipeSet, read_base: Callable, read_head: Callable) -> None:
    """Add to each revision's blobs the files the other's jobs run (``RecipeSet.support``) that it never read, as
    ``read_base``/``read_head`` (``paths -> blobs``; a submodule as the commit it records) read them there: a revision
    reads only what its own jobs reach, so an unchanged file the head newly reaches (a launcher that newly sources a
    helper, or `source "$GITHUB_WORKSPACE/.venv/bin/activate"`, which reaches every submodule) or no longer reaches
    would compare with nothing and be a change (``_support_changes``). Files read at their own revision only: what
    the rest of the plan finds there stays true."""
    for mine, theirs, read in ((base, head, read_base), (head, base, read_head)):
        if missing := sorted({p for files in theirs.support.values() for p in files if p not in mine.blobs}):
            mine.blobs.update(read(missing))


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b if not isinstance(a, (dict, list)) else _canon(a) == _canon(b)


def _canon(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def changed_paths(a, b, path: tuple = ()) -> list[tuple]:
    """Paths (tuples of keys/indices) where two JSON-shaped values differ, deepest first-found."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                out.append(path + (k,))
            else:
                out.extend(changed_paths(a[k], b[k], path + (k,)))
        return out
    if isinstance(a, list) and isinstance(b, list):
        if all(not isinstance(x, (dict, list)) for x in a + b):
            return [] if _same(a, b) else [path]  # a scalar list (conc-list) is one field
        out = []
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                out.append(path + (i,))
            else:
                out.extend(changed_paths(a[i], b[i], path + (i,)))
        return out
    return [] if _same(a, b) else [path]


def path_text(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(whole config)"


def _value_at(config, path: tuple):
    for part in path:
        try:
            config = config[part]
        except (KeyError, IndexError, TypeError):
            return None
    return config


def _plain(value) -> bool:
    scalar = (str, int, float, bool, type(None))
    return isinstance(value, scalar) or (isinstance(value, list) and all(isinstance(v, scalar) for v in value))


def field_values(base_config, head_config, paths: list[tuple]) -> dict[str, list]:
    """[base value, head value] of each changed path (``changed_paths``) whose values are plain, a scalar or a
    list of scalars (None where the field is absent), by ``path_text``; a mapping or a list of them (a search-space
    entry added whole) is named by the plan's fields, not shown (s48d: `changed KEY: image` said not from what to
    what, which `results compare` says of the same change)."""
    pairs = {path_text(p): [_value_at(base_config, p), _value_at(head_config, p)] for p in paths}
    return {name: pair for name, pair in pairs.items() if all(map(_plain, pair))}


def scenarios_of(config) -> list[str]:
    if not isinstance(config, dict) or not isinstance(config.get(F.SCENARIOS), dict):
        return []
    return [s for s in F.SCENARIO_TYPES if config[F.SCENARIOS].get(s)]


@dataclass
class KeyDiff:
    key: str
    status: str  # one of F.RECIPE_STATUSES
    fields: list[str] = field(default_factory=list)
    values: dict[str, list] = field(default_factory=dict)  # field -> [base value, head value] (``field_values``)
    scripts: list[dict] = field(default_factory=list)   # {path, base, head} (sha256 prefixes, None = absent)
    runner: bool = False
    lib: bool = False
    support: list[str] = field(default_factory=list)  # changed job files besides the library (RecipeSet.support)
    scenarios: list[str] = field(default_factory=list)  # scenario types whose identity changed
    field_scenarios: list[str] = field(default_factory=list)  # ... because of config fields

    def as_dict(self) -> dict:
        out = {"key": self.key, "status": self.status}
        if self.status == F.RECIPE_CHANGED:
            out.update(fields=self.fields, values=self.values, scripts=self.scripts, runner=self.runner,
                       benchmark_lib=self.lib, support_files=self.support, scenarios=self.scenarios)
        return out


def _script_changes(base: RecipeSet, head: RecipeSet, key: str, present: list[str], diff: KeyDiff) -> set[str]:
    """Record in ``diff.scripts`` each resolved script that differs; return the scenarios they touch."""
    touched: set[str] = set()
    seen_scripts: dict[str, dict] = {}
    for scenario in present:
        b_ids, h_ids = base.script_ids(key, scenario), head.script_ids(key, scenario)
        if b_ids == h_ids:
            continue
        touched.add(scenario)
        b_map = {first: (path, sha) for first, path, sha in b_ids}
        h_map = {first: (path, sha) for first, path, sha in h_ids}
        for first in sorted(b_map.keys() | h_map.keys()):
            bp, bs = b_map.get(first, (None, None))
            hp, hs = h_map.get(first, (None, None))
            if (bp, bs) == (hp, hs) or _changed_only_through(base, head, bp, hp, diff):
                continue
            path = hp or bp or first
            if path not in seen_scripts:
                seen_scripts[path] = {"path": path, "base": F.short_sha(bs) if bs else None,
                                      "head": F.short_sha(hs) if hs else None, "scenarios": [],
                                      **({"base_path": bp} if bp and bp != hp else {})}
                diff.scripts.append(seen_scripts[path])
            if scenario not in seen_scripts[path]["scenarios"]:
                seen_scripts[path]["scenarios"].append(scenario)
    return touched


def _changed_only_through(base: RecipeSet, head: RecipeSet, bp: str | None, hp: str | None, diff: KeyDiff) -> bool:
    """Whether a script is unchanged itself and differs only by helpers the diff already names as the
    key's changed support files or library (disagg_lib.sh), so that it is not listed a second time."""
    if not bp or bp != hp or file_sha(base.blobs.get(bp)) != file_sha(head.blobs.get(hp)):
        return False
    named = set(diff.support) | (set(F.BENCHMARK_LIB_FILES) if diff.lib else set())
    helpers = dict.fromkeys([*sourced_helpers(bp, base.blobs), *sourced_helpers(hp, head.blobs)])
    return all(h in named for h in helpers if file_sha(base.blobs.get(h)) != file_sha(head.blobs.get(h)))


def _support_changes(base: RecipeSet, head: RecipeSet, key: str) -> list[str]:
    """The files ``key``'s jobs run at either revision (``RecipeSet.support``) whose content differs (each read at
    both revisions: ``read_reached``); the library's files are left to ``KeyDiff.lib``, which hashes them as one."""
    paths = dict.fromkeys([*base.support.get(key, ()), *head.support.get(key, ())])
    return [p for p in paths if p not in F.BENCHMARK_LIB_FILES
            and file_sha(base.blobs.get(p)) != file_sha(head.blobs.get(p))]


def diff_recipes(base: RecipeSet, head: RecipeSet) -> dict[str, KeyDiff]:
    lib_changed = base.lib_sha != head.lib_sha
    out: dict[str, KeyDiff] = {}
    for key in list(head.configs) + [k for k in base.configs if k not in head.configs]:
        if key not in head.configs:
            out[key] = KeyDiff(key, F.RECIPE_REMOVED)
            continue
        h = head.configs[key]
        if key not in base.configs:
            out[key] = KeyDiff(key, F.RECIPE_NEW, scenarios=scenarios_of(h))
            continue
        b = base.configs[key]
        diff = KeyDiff(key, F.RECIPE_UNCHANGED)
        paths = changed_paths(b, h)
        diff.fields = [path_text(p) for p in paths]
        diff.values = field_values(b, h, paths)
        present = [s for s in F.SCENARIO_TYPES if s in scenarios_of(b) or s in scenarios_of(h)]
        touched: set[str] = set()
        for p in paths:
            if len(p) >= 2 and p[0] == F.SCENARIOS and p[1] in F.SCENARIO_TYPES:
                touched.add(p[1])
            else:
                touched.update(present)
        diff.field_scenarios = [s for s in F.SCENARIO_TYPES if s in touched]
        diff.runner = not _same(base.runner_facts(key), head.runner_facts(key))
        diff.support = _support_changes(base, head, key)
        if diff.runner or diff.support:
            touched.update(present)
        if lib_changed and head.runs_lib(key):
            diff.lib = True
            touched.update(head.scripted_scenarios(key))
        touched.update(_script_changes(base, head, key, present, diff))
        diff.scenarios = [s for s in F.SCENARIO_TYPES if s in touched]
        if diff.fields or diff.scripts or diff.runner or diff.lib or diff.support:
            diff.status = F.RECIPE_CHANGED
        out[key] = diff
    return out
