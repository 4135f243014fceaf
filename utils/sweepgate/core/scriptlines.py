"""Where a benchmark script's problem stands: the line of the script (or of the shell library it
sources) that runs a command, or the file and line bash names in what the script printed. Used by
`rehearse`, `preflight` and the engine checks alike."""

from __future__ import annotations

import bisect
import functools
import posixpath
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

from sweepgate.core import pythoncall, shellcode, shellgrammar, shellwords

LIBRARY_GLOBS = ("benchmarks/*.sh", "benchmarks/lib/*.sh", "benchmarks/multi_node/*.sh")


def script_lines(root: Path, script: Path) -> Iterator[tuple[str, int, str]]:
    """(path relative to root, line number, text) of each line that holds more than a comment: the script's,
    then the library's, each with its trailing comment blank (``uncommented``: `echo x  # vllm serve --port 1`
    runs no `vllm`). As text, strings' included: what finds a flag, a pinned version (`readonly
    _SG_LM_EVAL_VERSION="0.4.9.1"`: a string's value is its place) or a recorded command's words reads it; the
    line of a command a problem is about is ``first_command``'s."""
    for path in [script, *_library_paths(root, script)]:
        try:
            lines = uncommented(path.read_text(encoding="utf-8", errors="replace")).splitlines()
        except OSError:
            continue
        rel = str(path.relative_to(root))
        yield from ((rel, number, text) for number, text in enumerate(lines, 1)
                    if text.strip() and not text.lstrip().startswith("#"))


@functools.lru_cache(maxsize=64)
def uncommented(text: str) -> str:
    """``text`` with each comment blank (``shellcode.parts``: a `#` in a string or a word is none; offsets and
    lines kept). A part bash takes as text alone that is one line from a `#` is a comment: a single-quoted
    string starts with a quote, a heredoc's body holds its terminator's line (a line break before it)."""
    chars = list(text)
    for lo, hi in shellcode.parts(text)[2]:
        if text[lo] == "#" and "\n" not in text[lo:hi]:
            chars[lo:hi] = " " * (hi - lo)
    return "".join(chars)


def first_command(root: Path, script: Path, patterns: tuple[re.Pattern, ...]) -> tuple[str, int] | None:
    """The line of the script a user would edit for what ``patterns`` find, at the line its command starts
    (``command_start``): the first line of the script's own words the first of ``patterns`` that finds one
    finds (``ShellFile.found``: never in a comment, a string's text or a heredoc's body), else the first line of
    the script's string that a variable is set to and the script expands where ``patterns`` find the command
    (``ShellFile.run_strings``: `SERVER_CMD="vllm serve ..."`, then `start_server_and_wait $SERVER_CMD`), else
    the first line of the script that calls into the library where the first of them that finds a line there finds one
    (``calls_into``); None when none does (no library line: a line of a shared library is none a script's
    author edits, and one the script never reaches is no line of its run)."""
    own = _shell_file(root, script, script)
    for pattern in patterns:
        if found := own.found(pattern):
            return own.rel, command_start(own.lines, found[0])
    for pattern in patterns:
        if found := own.run_strings(pattern):
            return own.rel, found[0]
    files = [own, *_library(root, script)]  # read only where the script's own words did not answer
    for pattern in patterns:
        if found := calls_into(files, pattern):
            return own.rel, command_start(own.lines, found)
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


# A parameter expansion's start (`$NAME`, `${NAME`), or a character a `\\` escapes (skipped)
_EXPANSION = re.compile(r"\\.|\$\{?[A-Za-z_]\w*", re.DOTALL)
# A function's definition where a command may begin (``shellgrammar``: `name() {`, `function name {`, `name ( )`,
# `x=1; name()`, a library's names hold `::`, `-`, `.`), and its body: any compound command, after line breaks too
_DEFINES = re.compile(rf"{shellgrammar.COMMAND_START}{shellgrammar.FUNCTION_HEADER}"
                      rf"\s*(?P<body>{shellgrammar.COMPOUND})?", re.MULTILINE)
# A compound command that is a word (`if`, `case`, `for`, ...) or its end (`fi`, `esac`, `done`), and what may stand
# before one where a command may begin (reserved words and blanks, after a line's start or an operator)
_OPENS, _CLOSES = tuple(shellgrammar.CLOSING), tuple(dict.fromkeys(shellgrammar.CLOSING.values()))
_COMPOUND_WORD = re.compile(rf"(?<![^\s;&|()])(?:{'|'.join(_OPENS + _CLOSES)})(?![^\s;&|()<>])")
_RESERVED_BEFORE = re.compile(rf"(?:[ \t]*(?:{'|'.join(map(re.escape, shellgrammar.KEYWORDS + _OPENS))})"
                              r"(?=[ \t]))*[ \t]*\Z")
_NAME_EDGE = r"[\w:.-]"  # what may stand next to a function's or a file's name, in a longer word


class ShellFile:
    """A shell file of the repository, as the lookups of a script's lines read it: its lines; its words
    (``words``: the code, ``shellcode.code``, with each parameter expansion `$NAME`/`${NAME` outside the text
    bash expands nothing in, ``shellcode.parts``: a string's text, a comment, a heredoc's body are blank); its
    names (``names``: the text but for those parts, a double-quoted string's text kept, as a path run is
    written: `bash "$DIR/head.sh"`); its functions (name, first line, last line)."""

    def __init__(self, rel: str, text: str):
        self.rel, self.text, self.lines = rel, text, text.split("\n")  # lines as bash counts them
        code, spans, literal = shellcode.parts(text)
        starts = [lo for lo, _ in literal]

        def in_literal(at: int) -> bool:
            k = bisect.bisect_right(starts, at) - 1
            return k >= 0 and at < literal[k][1]
        words, names = list(code), list(text)
        for m in _EXPANSION.finditer(text):
            if m.group()[0] == "$" and not in_literal(m.start()):
                words[m.start():m.end()] = m.group()
        for lo, hi in literal:
            names[lo:hi] = (" " if c != "\n" else c for c in text[lo:hi])
        self.code, self.words, self.names, self.spans = code, "".join(words), "".join(names), spans
        self.breaks = [i for i, c in enumerate(text) if c == "\n"]
        self.functions = list(self._functions())
        # the lines of its `source`/`.` commands: a library's file they name is read, not run (its top level
        # defines what the script calls)
        self.sourcing = {self.line_of(at) for at, _ in shellwords.reading(text).sourced}

    def line_of(self, at: int) -> int:
        """The line (from 1) of the offset ``at``."""
        return bisect.bisect_left(self.breaks, at) + 1

    def found(self, pattern: re.Pattern) -> list[int]:
        """The lines (from 1, in order) ``pattern`` finds in the words: of the code, each logical line (a `\\`
        joins) read whole; of an array assignment (`SERVE=("vllm" "serve")`), its words as bash reads them
        (``array_words``)."""
        lines, at = set(), 0
        for logical in self.words.split("\n"):
            lines.update(self.line_of(at + m.start()) for m in pattern.finditer(logical))
            at += len(logical) + 1
        for m in _ARRAYS.finditer(self.names):
            if self.code[m.end() - 2] == "=":  # in the code: no comment's, no string's
                number = self.line_of(m.end())
                start = m.end() - (self.breaks[number - 2] + 1 if number > 1 else 0)
                lines.update(array_hits(self.lines, number, start, pattern))
        return sorted(lines)

    def run_strings(self, pattern: re.Pattern) -> list[int]:
        """The lines (from 1, in order) ``pattern`` finds in the value of an assignment of the code
        (``shellwords.reading``: never a comment's or a heredoc's body, never an `echo`'s argument) whose variable
        the code expands elsewhere (``words``: `$NAME`, `${NAME}`): a command kept in a string, run as
        `$SERVER_CMD` or `eval "$SERVER_CMD"`."""
        lines = set()
        for name, _, at, end in shellwords.reading(self.text).assigned:
            hits = list(pattern.finditer(self.text, at, end))
            used = re.compile(r"\$\{?" + re.escape(name) + r"(?!\w)")
            if hits and any(not at <= m.start() < end for m in used.finditer(self.words)):
                lines.update(self.line_of(m.start()) for m in hits)
        return sorted(lines)

    def _functions(self) -> Iterator[tuple[str, int, int]]:
        """Each function the file defines: its name, first line, last line (its body's end, ``_body_end``; the
        definition's line when its body is not found)."""
        for m in _DEFINES.finditer(self.names):
            if self.code[m.start("function")] != self.text[m.start("function")]:
                continue  # a definition's look in a double-quoted string
            first, at = self.line_of(m.start("function")), m.start("body")
            yield m["function"], first, self.line_of(self._body_end(at, m["body"])) if at >= 0 else first

    def _body_end(self, at: int, body: str) -> int:
        """Where the compound command ``body`` that begins at ``at`` ends: the `}` of a `{ }` (the braces of the code
        counted), the `)` of a subshell, the `fi`, `esac` or `done` of a compound command that is a word (those of the
        code where a command may begin counted after its own), the line of `(( ))` or `[[ ]]` itself."""
        if body == "(":
            return next((end for start, end in self.spans if start == at), at)
        if body == "{":
            depth = 0
            for at in range(at, len(self.code)):
                depth += {"{": 1, "}": -1}.get(self.code[at], 0)
                if depth == 0:
                    break
            return at
        if body not in shellgrammar.CLOSING:
            return at
        depth = 1  # its own word, where the function's header (no reserved word) stands before it
        for m in _COMPOUND_WORD.finditer(self.code, at + len(body)):
            lead = max(self.code.rfind(c, 0, m.start()) for c in shellgrammar.OPERATORS) + 1
            if _RESERVED_BEFORE.match(self.code, lead, m.start()):
                depth += 1 if m.group() in _OPENS else -1
                if depth == 0:
                    return m.start()
        return at

    def unit_of(self, line: int) -> str:
        """The function (innermost) a line is in, else the file's own name (its top level)."""
        inside = [(last - first, name) for name, first, last in self.functions if first <= line <= last]
        return min(inside)[1] if inside else posixpath.basename(self.rel)


def _library_paths(root: Path, script: Path) -> list[Path]:
    """The library's files of the repository at ``root`` (``LIBRARY_GLOBS``) but ``script``, in order."""
    return sorted({p for g in LIBRARY_GLOBS for p in root.glob(g)} - {script})


def _library(root: Path, script: Path) -> list[ShellFile]:
    """The library's files but ``script``, each read (``ShellFile``); one that cannot be read is none."""
    return [file for path in _library_paths(root, script) if (file := _shell_file(root, path, script)) is not None]


def _shell_file(root: Path, path: Path, script: Path) -> ShellFile | None:
    """``path`` read as a ``ShellFile`` (its parse kept for the same text: a rehearsal places several problems,
    each reading the script and the library); the script that cannot be read is an empty one, any other none."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        if path != script:
            return None
        text = ""
    return _parsed(str(path.relative_to(root)), text)


@functools.lru_cache(maxsize=64)
def _parsed(rel: str, text: str) -> ShellFile:
    return ShellFile(rel, text)


def calls_into(files: list[ShellFile], pattern: re.Pattern) -> int | None:
    """The first line of the script (``files[0]``) whose names name a function or a file of the library
    (``files[1:]``) that reaches a line ``pattern`` finds in the library's words: one holding such a line, or
    naming one that reaches it (calling a function, running a file: a `source` line names none, as what it reads
    only defines what a later line calls). None when no line of the script does."""
    units: set[str] = set()  # the library's functions and files, by name
    reach: set[str] = set()
    for file in files[1:]:
        units.add(posixpath.basename(file.rel))
        units.update(name for name, _, _ in file.functions)
        reach.update(file.unit_of(line) for line in file.found(pattern))
    if not reach:
        return None
    named = re.compile(rf"(?<!{_NAME_EDGE})(?:{'|'.join(map(re.escape, sorted(units, key=len, reverse=True)))})"
                       rf"(?!{_NAME_EDGE})")
    names_in: dict[str, set[str]] = {}  # a unit -> the names its lines name (calls, runs; not a `source`)
    for file in files[1:]:
        for m in named.finditer(file.names):
            if (line := file.line_of(m.start())) not in file.sourcing:
                names_in.setdefault(file.unit_of(line), set()).add(m.group())
    grew = True
    while grew:
        grew = False
        for unit, names in names_in.items():
            if unit not in reach and names & reach:
                reach.add(unit)
                grew = True
    own = files[0]
    return next((line for m in named.finditer(own.names)
                 if m.group() in reach and (line := own.line_of(m.start())) not in own.sourcing), None)


# `NAME=(` (or `+=(`, after local/declare/typeset/readonly/export and their options) where a command starts
_ARRAYS = re.compile(rf"{shellgrammar.COMMAND_START}(?:{shellgrammar.DECLARATION})?{shellgrammar.NAME}\+?=\(",
                     re.MULTILINE)


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


def array_hits(lines: list[str], number: int, start: int, pattern: re.Pattern) -> list[int]:
    """The lines of the words ``pattern`` finds in the words of the array assignment whose `(` ends at ``start``
    of line ``number`` (``array_words``), joined by single blanks."""
    words = array_words(lines, number, start)
    joined, starts = "", []
    for _, word in words:
        starts.append(len(joined))
        joined += word + " "
    return [words[bisect.bisect_right(starts, hit.start()) - 1][0] for hit in pattern.finditer(joined)]


def runs_module(modules: list[str]) -> re.Pattern:
    """What finds a line that runs one of ``modules`` as `python3 -m MODULE` (``pythoncall.runs_module``)."""
    return re.compile(pythoncall.runs_module(modules))


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


def failed_at(tail: str, root: Path) -> tuple[str, int] | None:
    """Where a failed script's ``tail`` (its output's last lines) puts its failure: the file and line bash names in
    its ``cause``, else the last file and line of the repository bash named in it (s45c: `line 14:
    /workspace/server.log: No such file or directory`, the server never started, and the cause, the client's
    "Error: benchmark client failed", names no line); None when bash named none."""
    if found := bash_named(cause(tail), root):
        return found
    return next((found for line in reversed(tail.splitlines()) if (found := bash_named(line.strip(), root))), None)
