"""Where a benchmark script's problem stands: the line of the script (or of the shell library it
sources) that runs a command, or the file and line bash names in what the script printed. Used by
`rehearse`, `preflight` and the engine checks alike."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

from sweepgate.core import shellcode

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
    """The first line (the script's first, then the library's) that ``pattern`` finds; else the line of the
    first array assignment whose words, as bash reads them, it finds (``assigned_at``); None when none."""
    return next(((rel, number) for rel, number, text in script_lines(root, script) if pattern.search(text)),
                None) or assigned_at(root, script, pattern)


def first_command(root: Path, script: Path, patterns: tuple[re.Pattern, ...]) -> tuple[str, int] | None:
    """The first line the first of ``patterns`` that finds one finds (``first_line``), moved to the line its
    command starts at (``command_start``: a `\\` joins lines); None when none finds one."""
    for pattern in patterns:
        if found := first_line(root, script, pattern):
            return found[0], command_start(file_lines(root / found[0]), found[1])
    return None


def file_lines(path: Path) -> list[str]:
    """The lines of a file of the repository; none when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def command_start(lines: list[str], number: int) -> int:
    """The line (from 1) the command on line ``number`` of ``lines`` starts at: back over each line before
    it that a `\\` in its code joins to it (bash numbers such a command by a later line of it); a `\\` that
    ends a comment or stands in quotes joins nothing (``shellcode.code``: such a join is blanked, the line
    break of any other line kept)."""
    if not 1 < number <= len(lines):
        return number
    text = "\n".join(lines[:number])
    code, ends = shellcode.code(text)[0], []
    for line in lines[:number - 1]:
        ends.append((ends[-1] + 1 if ends else 0) + len(line))  # where each line's line break is
    while number > 1 and code[ends[number - 2]] != "\n":
        number -= 1
    return number


# `NAME=(` (or `+=(`, after local/declare/typeset/readonly/export and their options) where a command starts
_ARRAY = re.compile(r"(?:^|[;&|{(]|(?<![\w-])(?:then|do|else))[ \t]*(?:(?:local|declare|typeset|readonly|export)"
                    r"(?:[ \t]+-\w+)*[ \t]+)?[A-Za-z_]\w*\+?=\(")


def array_words(lines: list[str], number: int, start: int) -> list[tuple[int, str]]:
    """(line, word) of the words of the array assignment whose `(` ends at ``start`` of line ``number`` (from
    1), quotes removed as bash removes them, up to its `)`: a command kept in a variable (`SERVE=("vllm"
    "serve" "$MODEL")`, one word a line). Read line by line (shlex); a line it cannot read ends the words."""
    words: list[tuple[int, str]] = []
    for at in range(number, len(lines) + 1):
        lexer = shlex.shlex(lines[at - 1][start if at == number else 0:], posix=True, punctuation_chars="()")
        lexer.commenters = "#"
        try:
            for word in lexer:
                if word == ")":
                    return words
                words.append((at, word))
        except ValueError:  # a quote closed on a later line, a `\\` at the end
            return words
    return words


def assigned_at(root: Path, script: Path, pattern: re.Pattern) -> tuple[str, int] | None:
    """The line of the word ``pattern`` finds in the words of the first array assignment (the script's, then
    the library's) it finds in, joined by single blanks (``array_words``); None when none."""
    read: dict[str, list[str]] = {}  # each file's lines, read once however many arrays it assigns
    for rel, number, text in script_lines(root, script):
        for found in _ARRAY.finditer(text):
            lines = read[rel] if rel in read else read.setdefault(rel, file_lines(root / rel))
            words = array_words(lines, number, found.end())
            joined, starts = "", []
            for _, word in words:
                starts.append(len(joined))
                joined += word + " "
            hit = pattern.search(joined)
            if hit:
                return rel, words[max(i for i, at in enumerate(starts) if at <= hit.start())][0]
    return None


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


CAUSE_SHOWN = 200  # characters of ``cause``'s line a one-line message holds (an annotation shows no lines below it)


def shown(cause_line: str) -> str:
    """``cause_line`` as a one-line message holds it, at most CAUSE_SHOWN characters."""
    return cause_line[:CAUSE_SHOWN]


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
