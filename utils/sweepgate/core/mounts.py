"""What a command that starts a container writes of the host folders it mounts into it and of the folder it starts in
(CONTRACTS section 9: ``shellwords`` maps a path under a mount's target back to the checkout's file).

Only the options' words are read, as written: `docker run -v "$GITHUB_WORKSPACE":/workspace -w /workspace img …`,
`-v a:b:ro`, `--volume=a:b`, `--mount type=bind,source=a,target=b` (`src`, `dst`, `destination`), podman's
alike; Slurm's pyxis `--container-mounts=a:b,c:d` and `--container-workdir=b` (`srun`, `salloc`, `sbatch`);
`enroot start --mount a:b`; `singularity`/`apptainer` `--bind a:b,c:d` (`-B`) and `--pwd b`. A mount's source is kept as
written (``shellwords`` says where it is on the host: the workspace, `$PWD`, `$(pwd)`, `.`, a variable); its target
and the working folder only when written out as an absolute path (a variable's is one only the run knows)."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

# How an option gives its mounts: one `SOURCE:TARGET[:FLAGS]` pair, a comma-separated list of them, or docker's
# `key=value` list (`type=bind,source=…,target=…`)
_PAIR, _PAIRS, _KEYED = "pair", "pairs", "keyed"
_DOCKER = ({"-v": _PAIR, "--volume": _PAIR, "--mount": _KEYED}, ("-w", "--workdir"))
_PYXIS = ({"--container-mounts": _PAIRS}, ("--container-workdir",))
_SINGULARITY = ({"-B": _PAIRS, "--bind": _PAIRS, "--mount": _KEYED}, ("--pwd",))
# each command that starts a container (by its name, its folder aside; each one ``shellwords._ELSEWHERE`` finds): its
# mount options and its working folder's
TOOLS = {"docker": _DOCKER, "podman": _DOCKER, "srun": _PYXIS, "salloc": _PYXIS, "sbatch": _PYXIS,
         "enroot": ({"-m": _PAIR, "--mount": _PAIR}, ()), "singularity": _SINGULARITY, "apptainer": _SINGULARITY}
_SOURCE_KEYS, _TARGET_KEYS = ("source", "src"), ("target", "destination", "dst")
# s48i: a tool named through a variable (`$DOCKER run`, `"${DOCKER:-docker}" run`, `$CONTAINER_RUNTIME exec`): a lone
# expansion (quotes taken), with its default when it has one; the subcommands that start a container or run in one
# after it make it docker's (podman's alike), and a default naming one of ``TOOLS`` makes it that tool
_EXPANSION = re.compile(r'\$(?:[A-Za-z_]\w*|\{[A-Za-z_]\w*(?::?[-=](?P<default>[^{}]*))?\})')
_SUBCOMMANDS = frozenset(("run", "exec", "create"))
ABSOLUTE = re.compile(r'/[\w.+/-]*')  # an absolute path written out: no expansion, no glob


@dataclass(frozen=True)
class View:
    """The mounts a container's command writes (each its source as written, quotes taken, "" for no host folder, and
    its target, an absolute path), the folder it starts in (None: the image's, or one only the run knows), and
    whether any such option is written at all (``written``)."""
    mounts: tuple[tuple[str, str], ...] = ()
    workdir: str | None = None
    written: bool = False
    # the sources of the mounts whose target is not written out (`-v "$PWD/shared:$DEST"`): their folder may be
    # anywhere in the container (s48h, ``shellwords._mounted``)
    unplaced: tuple[str, ...] = ()

    def holding(self, path: str) -> tuple[str, str] | None:
        """The source of the mount whose target holds the absolute ``path`` (the deepest such target: a mount inside
        another hides what is there), and the path under it ("" for the target itself); None when none holds it."""
        path = posixpath.normpath(path)
        best = None
        for source, target in self.mounts:
            if path == target or path.startswith(target.rstrip("/") + "/"):
                if best is None or len(target) >= len(best[1]):
                    best = (source, target)
        if best is None:
            return None
        return best[0], path[len(best[1]):].lstrip("/")


def view(words: list[str]) -> View | None:
    """The ``View`` of a command's ``words`` (as written, up to the file it runs): None when none of them starts a
    container (``TOOLS``). Each of its mount options and working folder options after that word is read, whatever stands
    between (an option's value of another kind is never one of these: `-e`, `--name`); the last such word's, where one
    runs another (`srun … docker run -v …`: the file runs in docker's container). A tool named through a variable is
    one too (``tool``: `$DOCKER run`)."""
    bare = [word.replace("\\\n", "").replace('"', "").replace("'", "") for word in words]  # (a `\` joins lines)
    k = max((k for k, word in enumerate(bare) if tool(bare, k) is not None), default=None)
    if k is None:
        return None
    mounting, workdirs = TOOLS[tool(bare, k)]
    mounts: list[tuple[str, str]] = []
    unplaced: list[str] = []
    workdir, written, i = None, False, k + 1
    while i < len(bare):
        name, value = _option(bare[i], [*mounting, *workdirs])
        if name is not None and value is None:  # its value is the next word
            i += 1
            value = bare[i] if i < len(bare) else ""
        if name in mounting:
            mounts += _mounts(value, mounting[name])
            unplaced += [source for source, target in _specs(value, mounting[name])
                         if source and not ABSOLUTE.fullmatch(target)]
        elif name is not None:
            workdir = posixpath.normpath(value) if ABSOLUTE.fullmatch(value) else None
        written = written or name is not None
        i += 1
    return View(tuple(mounts), workdir, written, tuple(unplaced))


def tool(words: list[str], k: int) -> str | None:
    """The container tool of ``TOOLS`` the word ``words[k]`` (quotes taken) names: by its name, its folder aside, or
    (s48i) a lone expansion whose default names one (`${SRUN:-srun}`) or that a subcommand of docker's follows
    (`$DOCKER run`, `"$CONTAINER_RUNTIME" exec`: read as docker, podman's options alike); None for any other."""
    word = words[k]
    if posixpath.basename(word) in TOOLS:
        return posixpath.basename(word)
    if not (m := _EXPANSION.fullmatch(word)):
        return None
    if m["default"] and posixpath.basename(m["default"]) in TOOLS:
        return posixpath.basename(m["default"])
    return "docker" if k + 1 < len(words) and words[k + 1] in _SUBCOMMANDS else None


def mounts_unread(words: list[str]) -> bool:
    """Whether ``words`` (a command's, its own word first, quotes taken) are those of a tool only the run knows (a lone
    expansion ``tool`` reads as none: `$LAUNCH`) that write a mount as some tool of ``TOOLS`` does (an option of theirs
    whose value holds a `:` and is no URL, `--container-mounts=a:b`, `--bind a:b`): how it reads them is the run's
    to say (s48i: ``shellwords`` leaves the row with no identity)."""
    if not words or not _EXPANSION.fullmatch(words[0]) or tool(words, 0) is not None:
        return False
    names = list(dict.fromkeys(name for mounting, _ in TOOLS.values() for name in mounting))
    for k, word in enumerate(words[1:], 1):
        name, value = _option(word, names)
        value = words[k + 1] if name is not None and value is None and k + 1 < len(words) else value
        if name is not None and ":" in value and "://" not in value:
            return True
    return False


def _option(word: str, names: list[str]) -> tuple[str | None, str | None]:
    """The option of ``names`` ``word`` is, and its value when the word holds it (`--volume=a:b`, `-va:b`); (None, None)
    when it is none of them."""
    for name in names:
        if word == name:
            return name, None
        if name.startswith("--") and word.startswith(name + "="):
            return name, word[len(name) + 1:]
        if not name.startswith("--") and word.startswith(name) and len(word) > len(name):
            return name, word[len(name):].removeprefix("=")
    return None, None


def _mounts(value: str, how: str) -> list[tuple[str, str]]:
    """The (source, target) pairs an option's ``value`` writes (``how``: ``_PAIR``, ``_PAIRS``, ``_KEYED``), those whose
    target is an absolute path written out (normalized); a source "" for a mount of no host folder."""
    return [(source, posixpath.normpath(target)) for source, target in _specs(value, how) if ABSOLUTE.fullmatch(target)]


def _specs(value: str, how: str) -> list[tuple[str, str]]:
    """Every (source, target) pair an option's ``value`` writes, as written (``_mounts``)."""
    if how == _KEYED:
        keys = dict(part.partition("=")[::2] for part in _split(value, ","))
        bind = keys.get("type", "bind") == "bind"  # a named volume, a tmpfs: no host folder (its source "")
        specs = [(next((keys[k] for k in _SOURCE_KEYS if k in keys and bind), ""),
                  next((keys[k] for k in _TARGET_KEYS if k in keys), ""))]
    else:
        specs = []
        for spec in _split(value, ",") if how == _PAIRS else [value]:
            parts = _split(spec, ":")
            specs.append((parts[0], parts[1] if len(parts) > 1 else parts[0]))  # `SOURCE` alone: the same path there
    return specs


def _split(value: str, at: str) -> list[str]:
    """``value`` cut at each ``at`` outside a `${…}` or `$(…)` (`${X:-a}:/ws` is two parts)."""
    parts, depth, begun = [], 0, 0
    for i, c in enumerate(value):
        if c in "({":
            depth += 1
        elif c in ")}" and depth:
            depth -= 1
        elif c == at and not depth:
            parts.append(value[begun:i])
            begun = i + 1
    return [*parts, value[begun:]]
