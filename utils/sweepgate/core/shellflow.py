"""Where a shell text's commands may or may not run (``regions``), for ``core.shellwords`` to tell a `cd` or an
assignment that surely holds from one that may not.

Read from the code (``core.shellcode``: comments, strings and heredoc bodies blank; each command substitution and
subshell a span of its own, read as its own text): a region is a part of it run only on a condition, or run again,
or elsewhere. Each begins (``START``) and ends (``END``), and some have points in them where another of their
branches may begin (``BRANCH``):

- `if … fi` (its branches at `then`, `elif`, `else`), `case … esac` (at each `;;`, `;&`, `;;&`), a loop `while`/
  `until`/`for`/`select` … `done` (``LOOP``: its body may run again, or not at all; at `do`), from its keyword;
- the commands after the first `&&` or `||` of a list, up to the list's end (a `;`, `&`, line break or the closer
  of what holds it), each further `&&`/`||` a branch; a pipeline (`cd b | cat`: each part is run in a subshell),
  and a list run in the background (`cd b &`), from its first word;
- a function's body (``FUNCTION``: run when it is called, from where it is called, or never), from its name.

Not a shell: a reserved word is read only where a command may begin (`echo fi` is an argument), the `&&` and `||`
of a `[[ ]]` are none of a list's, and a redirection's `&` (`2>&1`, `&>f`) runs nothing in the background. What
it misreads makes a region where bash has none at most, never leaves a `cd` out of one (a region's end is a
closer bash would read as one).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from sweepgate.core import shellgrammar

JOIN, LOOP, FUNCTION = "join", "loop", "function"
START, BRANCH, END, CALL = "start", "branch", "end", "call"
WRITE = "write"  # (``core.shellwords``) a command that sets variables no assignment shows: `read X`, `printf -v X`

_TOKEN = re.compile(r"(?P<word>(?:[0-9]*(?:&>>?|[<>]&|>\||[<>])|[^\s;&|()`<>])+)"
                    r"|(?P<op>;;&|;;|;&|&&|\|\||\|&|[;&|\n()`])|[ \t\r\f\v]+")
_FUNCTION = re.compile(shellgrammar.FUNCTION_HEADER + r"[ \t\n]*(?=" + shellgrammar.COMPOUND + r"|\(|\{)")
_OPENERS = {"if": "if", "case": "case", "while": "loop", "until": "loop", "for": "loop", "select": "loop", "{": "{"}
_CLOSERS = {"fi": "if", "esac": "case", "done": "loop", "}": "{"}
_BRANCHES = {"then": "if", "elif": "if", "else": "if", "do": "loop"}
_LOOP_NAME = re.compile(rf"[ \t]+({shellgrammar.NAME})(?![^\s;&|()])")  # `for NAME`


@dataclass
class Region:
    """A part of the code run on a condition (module docstring): its kind, its first offset, its end, the offsets of
    its branches, how far what it may see reaches (``FUNCTION``: the end of the text or span that holds it) and a
    `for`/`select` loop's variable."""
    kind: str
    start: int
    end: int = -1
    branches: list[int] = field(default_factory=list)
    reach: int = -1
    variable: str = ""
    name: str = ""  # a function's
    # an `&&`/`||` list's: where its first command begins, and the offset of each `||` in it (what the commands before
    # one set may not have been set when the commands after it run: `cd a || cd b` runs `cd b` where `cd a` failed)
    lead: int = -1
    failing: list[int] = field(default_factory=list)
    # an `if`'s: the offset of each `elif` and `else`, where the run goes on as it was after the last condition (the
    # branch before it did not run)
    instead: list[int] = field(default_factory=list)


@dataclass
class _List:
    """The list being read: where its first word is, where its pipeline's is, its open `&&`/`||` and pipe regions."""
    start: int = -1
    pipeline: int = -1
    either: Region | None = None
    pipe: Region | None = None
    continued: bool = False  # after `&&`, `||` or `|`: a line break goes on with the list


def regions(code: str, spans: list[tuple[int, int]]) -> list[Region]:
    """Each region of ``code`` (module docstring), those inside each span too (``spans``: each command substitution's
    and subshell's (start, end) as ``shellcode.code`` gives them)."""
    found: list[Region] = []
    spans = sorted(spans)
    starts = [start for start, _ in spans]
    frames = [(0, len(code))] + [(start + (2 if code.startswith("$(", start) else 1), end) for start, end in spans]
    for lo, hi in frames:  # the spans in one are those that start in it (they nest)
        _frame(code, lo, hi, spans[bisect.bisect_left(starts, lo):bisect.bisect_left(starts, hi)], found)
    return found


def events(found: list[Region]) -> list[tuple[int, str, Region]]:
    """The regions' starts, branches and ends in order of their offsets: at one offset, ends first (the inner one
    first), then branches, then starts (the outer one first)."""
    out = []
    for r in found:
        out.append((r.start, 2, -r.end, START, r))
        out += [(at, 1, 0, BRANCH, r) for at in r.branches]
        out.append((r.end, 0, -r.start, END, r))
    out.sort(key=lambda e: e[:3])
    return [(at, what, r) for at, _, _, what, r in out]


def _frame(code: str, lo: int, hi: int, inner: list[tuple[int, int]], found: list[Region]) -> None:
    """The regions of ``code[lo:hi]`` outside its spans (``inner``: those in it, each read as part of a word)."""
    flat = list(code[lo:hi])
    top_end = -1
    for start, end in inner:
        if start > top_end:  # an outermost one: its text is a word's
            flat[start - lo:end - lo + 1] = "x" * (end - start + 1)
            top_end = end
    reader = _Reader(code, lo, hi, "".join(flat), found)
    pos = 0
    while pos < len(reader.flat) and (m := _TOKEN.match(reader.flat, pos)):
        at, pos = lo + m.start(), m.end()
        if m["word"] is not None:
            pos = reader.word(at, m["word"], pos)
        elif m["op"] is not None and not reader.test and not (m["op"] == "\n" and reader.lst.continued):
            reader.op(at, m["op"])
    reader.close()


class _Reader:
    """What ``_frame`` keeps as it reads a frame's words and operators: the constructs open (each its kind, its
    regions, the list outside it), the list being read, whether a command may begin at the next word, a function's
    name waiting for its body, and whether it is inside a `[[ ]]`."""

    def __init__(self, code: str, lo: int, hi: int, flat: str, found: list[Region]):
        self.code, self.lo, self.hi, self.flat, self.found, self.first = code, lo, hi, flat, found, len(found)
        self.stack: list[tuple[str, list[Region], _List]] = []
        self.lst, self.command, self.function, self.test, self.name = _List(), True, -1, False, ""

    def word(self, at: int, word: str, pos: int) -> int:
        """Read the word ``word`` at ``at``; where the frame's reading goes on (past a function's name)."""
        self.lst.continued = False
        if self.test:
            self.test = word != "]]"
            return pos
        if self.command and (header := _FUNCTION.match(self.code, at, self.hi)) and header["function"] not in _OPENERS:
            self.function, self.name = at, header["function"]
            return header.end() - self.lo
        top = self.stack[-1] if self.stack else None
        if word == "do" and top and top[0] == "loop" and top[1] and not top[1][-1].branches:
            self._branch(at)  # `for x do`, `for x in a b; do`, `while c; do`
            self.command = True
        elif self.command and word in _OPENERS:
            self._open(at, word, pos)
        elif self.command and top and top[0] == _CLOSERS.get(word):
            _end_list(self.lst, at)
            _, made, self.lst = self.stack.pop()
            for r in made:
                r.end = at + len(word)
            self.command = False
        elif self.command and top and top[0] == _BRANCHES.get(word) and top[1]:
            self._branch(at)
            if word in ("elif", "else"):
                top[1][-1].instead.append(at)
        elif not (self.command and word in ("!", "time", "in")):
            self._simple(at, word)
        return pos

    def _open(self, at: int, word: str, pos: int) -> None:
        """A compound command's reserved word (or `{`): its region, a function's around it when it is one's body."""
        if self.lst.start < 0:
            self.lst.start = self.lst.pipeline = at
        made = [] if word == "{" else [Region(LOOP if _OPENERS[word] == "loop" else JOIN, at)]
        if word in ("for", "select") and (name := _LOOP_NAME.match(self.flat, pos)):
            made[0].variable = name[1]
        if self.function >= 0:
            made.insert(0, Region(FUNCTION, self.function, reach=self.hi, name=self.name))
            self.function = -1
        self.found.extend(made)
        self.stack.append((_OPENERS[word], made, self.lst))
        self.lst, self.command = _List(), word not in ("case", "for", "select")

    def _branch(self, at: int) -> None:
        _end_list(self.lst, at)
        self.lst = _List()
        self.stack[-1][1][-1].branches.append(at)

    def _simple(self, at: int, word: str) -> None:
        """A word of a simple command (its first where a command may begin)."""
        if self.command:
            if self.function >= 0 and self.code[at] == "(":  # `f() ( … )`: a subshell, its span
                self.found.append(Region(FUNCTION, self.function, at + len(word), reach=self.hi, name=self.name))
                self.function = -1
            if self.lst.start < 0:
                self.lst.start = at
            if self.lst.pipeline < 0:
                self.lst.pipeline = at
            self.test = word == "[["
        self.command = False

    def op(self, at: int, op: str) -> None:
        """Read the operator ``op`` at ``at``."""
        lst = self.lst
        if op in ("&&", "||"):
            _end_pipe(lst, at)
            if lst.either is None:
                lst.either = Region(JOIN, at, lead=lst.start)
                self.found.append(lst.either)
            else:
                lst.either.branches.append(at)
            if op == "||" and lst.either.lead >= 0:
                lst.either.failing.append(at)
            lst.pipeline, lst.continued = -1, True
        elif op in ("|", "|&"):
            if lst.pipe is None:
                lst.pipe = Region(JOIN, lst.pipeline if lst.pipeline >= 0 else at)
                self.found.append(lst.pipe)
            lst.continued = True
        elif op in (";", "\n", "&", ";;", ";&", ";;&"):
            if op == "&" and lst.start >= 0:
                self.found.append(Region(JOIN, lst.start, at + 1))
            _end_list(lst, at)
            self.lst = _List()
            if op in (";;", ";&", ";;&") and self.stack and self.stack[-1][0] == "case" and self.stack[-1][1]:
                self.stack[-1][1][-1].branches.append(at)
        self.command = True  # and after a `case` item's pattern's `(`, `)`

    def close(self) -> None:
        """End what is still open where the frame ends."""
        _end_list(self.lst, self.hi)
        for _, made, outer in reversed(self.stack):
            for r in made:
                r.end = self.hi
            _end_list(outer, self.hi)
        for r in self.found[self.first:]:  # this frame's
            if r.end < 0:
                r.end = self.hi


def _end_pipe(lst: _List, at: int) -> None:
    if lst.pipe is not None:
        lst.pipe.end = at
        lst.pipe = None


def _end_list(lst: _List, at: int) -> None:
    """Close the regions of the list ``lst`` at ``at``, where it ends."""
    _end_pipe(lst, at)
    if lst.either is not None:
        lst.either.end = at
        lst.either = None
