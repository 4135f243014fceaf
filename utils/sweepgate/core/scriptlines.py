"""Where a benchmark script's problem stands: the line of the script (or of the shell library it
sources) that runs a command, or the file and line bash names in what the script printed. Used by
`rehearse`, `preflight` and the engine checks alike."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

LIBRARY_GLOBS = ("benchmarks/*.sh", "benchmarks/lib/*.sh", "benchmarks/multi_node/*.sh")


def script_lines(root: Path, script: Path) -> Iterator[tuple[str, int, str]]:
    """(path relative to root, line number, text) of each line that is no comment: the script's, then
    the library's."""
    for path in [script] + sorted({p for g in LIBRARY_GLOBS for p in root.glob(g)} - {script}):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        rel = str(path.relative_to(root))
        yield from ((rel, number, text) for number, text in enumerate(lines, 1) if not text.lstrip().startswith("#"))


def first_line(root: Path, script: Path, pattern: re.Pattern) -> tuple[str, int] | None:
    """The first line (the script's first, then the library's) that ``pattern`` finds; None when none."""
    return next(((rel, number) for rel, number, text in script_lines(root, script) if pattern.search(text)), None)


def runs_module(modules: list[str]) -> re.Pattern:
    """What finds a line that runs one of ``modules`` as `python3 -m MODULE`."""
    return re.compile(r"(?<![\w-])-m\s+(" + "|".join(map(re.escape, modules)) + r")(?![\w.-])")


def _word(word: str) -> str:
    return r"(?<![\w./-])" + re.escape(word) + r"(?![\w-])"


def command_line(root: Path, script: Path, words: list[str]) -> tuple[str, int] | None:
    """The line that runs the command ``words`` (as recorded: a program, by its file name, and its first
    arguments, values expanded): of the lines that write the program, the first that writes the most of
    the other words; None when no line writes the program."""
    if not words or not words[0].rsplit("/", 1)[-1]:
        return None
    program = re.compile(_word(words[0].rsplit("/", 1)[-1]))
    others = [re.compile(_word(w)) for w in words[1:] if w]
    best, score = None, -1
    for rel, number, text in script_lines(root, script):
        if program.search(text):
            found = sum(1 for w in others if w.search(text))
            if found > score:
                best, score = (rel, number), found
    return best


# bash's "FILE: line N: ..." of any error (`foo: command not found`)
BASH_SAYS = re.compile(r"^(?P<file>[^\n]+?): line (?P<line>\d+): ")
_CLEANUP = re.compile(r"\(?(Stopping|Stopped) ")  # benchmark_lib's exit trap, after the error
_ERROR = re.compile(r"error|unknown option|unrecognized|not found|no such file|invalid|failed", re.I)


def cause(tail: str) -> str:
    """The line of a failed script's output that says why: the last one that reads like an error,
    else the last one before the exit trap's cleanup lines (a review saw "(Stopped vLLM server.)"
    named as the reason while "unknown option '--random-range-ratoi'" stood above it)."""
    lines = [line.strip() for line in tail.strip().splitlines() if line.strip()]
    told = [line for line in lines if not _CLEANUP.match(line)]
    return next((line for line in reversed(told) if _ERROR.search(line)), told[-1] if told else "")


def in_repository(name: str, root: Path) -> str | None:
    """A file bash names, from the repository's top; None when it is no file in the repository (or no
    name a file can have: the script's output can hold any text, a name too long, a NUL byte)."""
    where, root = Path(name), root.resolve()
    try:
        path = (where if where.is_absolute() else root / where).resolve()
        return str(path.relative_to(root)) if path.is_file() and path.is_relative_to(root) else None
    except (OSError, ValueError):
        return None


def bash_named(said: str, root: Path) -> tuple[str, int] | None:
    """The file and line bash names in a line it printed (`x.sh: line 12: foo: command not found`), when
    that is a file in the repository; else None."""
    found = BASH_SAYS.match(said)
    named = in_repository(found["file"], root) if found else None
    return (named, int(found["line"])) if named else None
