"""Which parts of a shell text bash reads as commands (``code``), for ``core.shellwords`` and ``core.scriptlines``;
and which it takes as text alone, expanding nothing in them (``parts``: comments, single-quoted strings, heredoc
bodies).

``code(text)`` is ``text`` with all that is not code blanked (every character but a line break becomes a
blank, so offsets and lines stay; a line break after a `\\` in code, which joins two lines into one, is blanked
too): comments, quoted strings (over as many lines as they run), `\\`-escaped characters, arithmetic
(`$(( ))`, `(( ))`, `$[ ]`), `${ }`, an array's words (`X=( )`), the inside of an array element's subscript
where a command or an assignment may stand (``core.shellgrammar``; `x[1<<2]=3`: no heredoc's start, as bash
reads it whole; one holding only names, digits and arithmetic's signs, `x[i+1]`, reads the same either way and
is left) and heredoc bodies (up to their terminator).
What bash runs inside them stays: a command substitution `$( )` or `` ` ` `` wherever it is (in double quotes,
in `${ }`, in an unquoted heredoc's body), and the `)` that ends a `case` item's pattern (in a `$( )` or `( )`
too, where a `case` command is open); the `)` that ends a `$( )` is blanked (what follows it is no command's
start). With it, where each command substitution and subshell is (offset of its first character, offset of its
end), for what it assigns to stay inside it. A `source`/`.` command word spelled with quotes or `\\`
(`"source"`, `\\.`, `s\\ource`, `so''urce`, `$'source'`), which bash runs as `source`, is written unquoted at the
end of its place (`"source"` as `  source`), and so is a word that runs one (``shellgrammar.LEADS``: `"eval"`,
`\\builtin`). A `$((` or `((` whose `)` closing its second `(` has no `)` right
after it is no arithmetic: as bash does, it is read again as a `$(` (or a subshell) holding a subshell.
"""

from __future__ import annotations

import re
import string
from typing import NamedTuple

from sweepgate.core import shellgrammar

CODE, QUOTED, BRACED, ARITHMETIC, ARRAY, BODY, OLD_ARITHMETIC = "code", '"', "${", "((", "=(", "body", "$["
SUBSCRIPT = "x["
# What each context acts on (group `s`; a `$` only before `(`, `{`, `[` or a quote, a `#` only at a word's
# start, a `[` only after a letter, digit or `_`, a line break only when a heredoc's body begins after it, a
# `case` or `esac` word only in a `$( )` or `( )`); all else is code in CODE and blanked in the others. CODE's
# pattern is matched, not searched: it runs over what it skips in one step (most of a text), a subscript that
# holds only names, digits and arithmetic's signs too (`x[i+1]`: read whole or not, it reads the same).
_PLAIN = r"[\w+*/%,.:=^~@-]*+"  # a subscript's inside that reads the same as code
_CASE_WORD = r"(?<![^\s;&|()])(?:case|esac)(?![^\s;&|()])"
_SPECIAL = {QUOTED: re.compile(r'(?P<s>["\\`]|\$[({])'), BRACED: re.compile(r"""(?P<s>[}'"\\`]|\$[({'])"""),
            ARITHMETIC: re.compile(r"(?P<s>[()`]|\$[({])"), OLD_ARITHMETIC: re.compile(r"(?P<s>[][`]|\$[({])"),
            SUBSCRIPT: re.compile(r"""(?P<s>[][`'"\\]|\$[({[])"""), BODY: re.compile(r"(?P<s>[\\`]|\$[({])"),
            ARRAY: re.compile(r"""(?P<s>[)'"\\`\n]|\$[({'"]|(?<![^\s;&|(){}])#)""")}


def _code_pattern(bodies: bool, cases: bool) -> re.Pattern:
    """CODE's pattern: before heredoc bodies (a line break acts), inside `$( )` or `( )` (`case`, `esac` act)."""
    stop, words = r"\n" * bodies, "ce" * cases
    # (an atomic group, not `(?:...)*+`: Python before 3.11.5 fails a possessive group whose branch holds a
    # lookbehind, `(?:[^#]++|(?<=b)#)*+#` matches no `a #`, and the text's comments were read as code)
    skip = (rf"""(?>(?:[^#'"\\`()$<\[{stop}{words}]++|\$(?![({{'"[])|<(?!<)|(?<=[^\s;&|(){{}}])#|(?<!\w)\["""
            + rf"|\[(?={_PLAIN}\])" + (rf"|(?!{_CASE_WORD})[ce]" if cases else "") + ")*)")
    special = r"""(?P<s>['"\\`()]|\$[({'"[]|#|<<|\[""" + r"|\n" * bodies + f"|{_CASE_WORD}" * cases + ")"
    return re.compile(skip + special)


_CODE = {(bodies, cases): _code_pattern(bodies, cases) for bodies in (False, True) for cases in (False, True)}
# `<<EOF`, `<<-EOF`, `<< 'EOF'`, `<<"EOF"`, `<<\EOF` (not `<<<`, a here-string); its body runs to the line
# that is the word alone (tabs before it allowed after `<<-`); a quoted word's body is text only.
_HEREDOC = re.compile(r"""<<(?!<)(?P<strip>-?)[ \t]*(?P<quote>['"]?)(?P<escape>\\?)(?P<end>[\w.+-]+)(?P=quote)""")
# A double-quoted string that runs nothing (no `$(`, no `` ` ``; a `${ }` without quotes or `$` inside).
_SIMPLE_QUOTED = re.compile(r'"(?:[^"\\$`]|\\.|\$(?![({])|\$\{[^}"\'$`\\]*\})*+"', re.DOTALL)
# A command word that is `source`, `.` or a word that runs one (``_UNQUOTED``) once its quotes and `\` are taken
# away (`s\\ource`, `so''urce`, `$'.'`, `"eval"`).
_SPELLED = re.compile(r"""(?:\\[\w.]|\$?"[\w.]*"|\$?'[\w.]*'|[\w.])++(?=[ \t])""")
_QUOTING = re.compile(r"""\$(?=['"])|[\\'"]""")
_UNQUOTED = shellgrammar.SOURCES + shellgrammar.LEADS
_LONGEST = max(map(len, _UNQUOTED))
_WORD_START = frozenset(" \t" + shellgrammar.OPERATORS)
_SPELLED_FIRST = frozenset("\"'" + "".join(word[0] for word in _UNQUOTED))
_OTHER = frozenset(string.ascii_letters + string.digits + "_$") - frozenset("".join(_UNQUOTED))  # in none of them
_OPERATOR, _KEYWORDS = frozenset(shellgrammar.OPERATORS), frozenset(shellgrammar.KEYWORDS)
_COMPOUNDS, _NAMED = frozenset(shellgrammar.COMPOUNDS), frozenset(shellgrammar.NAMED)
_FUNCTION_NAME = re.compile(shellgrammar.FUNCTION_NAME)
_WORD = re.compile(r"[^\s;&|()<>]*")
_ANSI = re.compile(r"\$'(?:[^'\\]|\\.)*'?", re.DOTALL)
_NOT_A_LINE_BREAK = re.compile(r"[^\n]")


class _Open(NamedTuple):
    """A context open at a point of the scan: what opened it (`$(`, `(`, `` ` ``, ...), where, and for a
    heredoc's body where it stops and where the scan goes on after it; how many ranges to blank, command
    substitutions closed, words to write and heredocs met there were when it opened (to read arithmetic again as
    code)."""
    context: str
    opener: str
    at: int
    stop: int = -1
    resume: int = -1
    marks: tuple[int, ...] = (0, 0, 0, 0, 0)
    cases: int = 0  # `case` commands open in a `$( )` or `( )`: a `)` ends an item's pattern


class _Scan:
    """A scan's state: the ranges to blank, the command substitutions closed, the heredocs whose bodies
    begin at the next line break, the contexts open (the text's code at the bottom) and what to write over
    the blanked text (offset, what): `source`/`.` words unquoted, a `\\` and its line break as blanks."""

    def __init__(self, text: str):
        self.text, self.blank, self.spans, self.heredocs, self.words = text, [], [], [], []
        # parts of a word read whole, a quoted string or a subscript where a command may stand: its end -> start
        self.whole: dict[int, int] = {}
        # whether a word may begin a command (``_command_position``): (its offset, whether it is a keyword) -> that
        self.starts: dict[tuple[int, bool], bool] = {}
        self.stack = [_Open(CODE, "", 0)]
        self.literal: list[tuple[int, int]] = []  # (start, end) of each comment, `' '`, `$' '` and heredoc body

    def push(self, context: str, opener: str, at: int, blank: int = 0) -> int:
        self.stack.append(_Open(context, opener, at, marks=self.marks()))
        self.blank.append((at, at + blank))
        return at + len(opener)

    def marks(self) -> tuple[int, ...]:
        return len(self.blank), len(self.spans), len(self.words), len(self.heredocs), len(self.literal)

    def back_to(self, marks: tuple[int, ...]) -> None:
        """Forget what was found since ``marks``."""
        for found, mark in zip((self.blank, self.spans, self.words, self.heredocs, self.literal), marks):
            del found[mark:]


def code(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with all that is not code blanked, and each command substitution's (start, end), in order."""
    return parts(text)[:2]


def parts(text: str) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]]:
    """``code(text)``, and the (start, end) of each part of ``text`` bash takes as text alone, expanding nothing in
    it: a comment, a string in single quotes (`' '`, `$' '`), a heredoc's body (one whose word is unquoted runs its
    `$( )`, in the code: the rest of it is text here too), in order."""
    scan, i, n = _Scan(text), 0, len(text)
    while True:
        top = scan.stack[-1]
        stop = top.stop if top.context == BODY else n
        if top.context == CODE:
            m = _CODE[bool(scan.heredocs), top.opener in ("$(", "(")].match(text, i, stop)
        else:
            m = _SPECIAL[top.context].search(text, i, stop)
        j = m.start("s") if m else stop
        if top.context != CODE:
            scan.blank.append((i, j))
        if m:
            i = _special(scan, top, j)
        elif top.context == BODY:
            scan.stack.pop()
            i = top.resume
        else:
            break
    out, pieces, at = _blanked(text, scan.blank), [], 0
    for lo, word in sorted(scan.words):
        pieces += [out[at:lo], word]
        at = lo + len(word)
    return "".join(pieces) + out[at:], sorted(scan.spans), sorted(scan.literal)


def _special(scan: _Scan, top: _Open, j: int) -> int:
    """Act on the character at ``text[j]`` that ``top``'s context acts on; where the scan goes on."""
    text, c = scan.text, scan.text[j]
    if top.context == CODE and (c in "\\'\"" or text[j + 1:j + 2] in ("'", '"')) and text[j - 1:j] not in _OTHER:
        _spelled_source(scan, j)
    if c == "\\":
        if text[j + 1:j + 2] == "\n" and top.context == CODE:  # joins the line to the next: no line break
            scan.words.append((j, "  "))
        else:
            scan.blank.append((j, j + 1 + (text[j + 1:j + 2] != "\n")))
        return j + 2
    if c == "'":
        end = text.find("'", j + 1) + 1 or len(text)
        scan.blank.append((j, end))
        scan.literal.append((j, end))
        scan.whole[end - 1] = j
        return end
    if c == '"':
        if top.context == QUOTED:
            scan.stack.pop()
            scan.blank.append((j, j + 1))
            scan.whole[j] = top.at
            return j + 1
        if simple := _SIMPLE_QUOTED.match(text, j):  # most are: one step, not one per `"` and `${ }`
            scan.blank.append((j, simple.end()))
            scan.whole[simple.end() - 1] = j
            return simple.end()
        return scan.push(QUOTED, '"', j, 1)
    if c == "`":
        if top.opener == "`":
            return _close(scan, top, j)
        return scan.push(CODE, "`", j)
    if c == "$":
        return _dollar(scan, top, j)
    if c in "()}]":
        return _paren(scan, top, j) if c == "(" else _close(scan, top, j)
    if c == "[":  # in code, in `$[ ]` or in a subscript
        if top.context == CODE:
            return _subscript(scan, j)
        return scan.push(SUBSCRIPT if top.context == SUBSCRIPT else OLD_ARITHMETIC, "[", j, 1)
    if c in "ce":
        return _case(scan, top, j)
    if c == "#":
        end = _line_end(text, j)
        scan.blank.append((j, end))
        scan.literal.append((j, end))
        return end
    if c == "<":
        return _heredoc(scan, j)
    return _bodies(scan, j + 1) if scan.heredocs else j + 1  # a line break


def _dollar(scan: _Scan, top: _Open, j: int) -> int:
    """`$(( ))`, `$( )`, `${ }`, `$' '` (in code) or a `$` that opens nothing."""
    text = scan.text
    if text.startswith("$((", j):
        return scan.push(ARITHMETIC, "$((", j, 3)
    if text.startswith("$(", j):
        return scan.push(CODE, "$(", j)
    if text.startswith("${", j):
        return scan.push(BRACED, "${", j, 2)
    if text.startswith("$[", j):
        return scan.push(OLD_ARITHMETIC, "$[", j, 2)
    # `$' '` in code, an array's words, a `${ }` not in double quotes (`${A:-$'x\\'y'}`; in them its `'` is one)
    if (top.context in (CODE, ARRAY) or top.context == BRACED and scan.stack[-2].context != QUOTED) and text.startswith(
            "$'", j):
        end = _ANSI.match(text, j).end()
        scan.blank.append((j, end))
        scan.whole[end - 1] = j  # part of a word: `A=$'a b'` is an assignment's
        scan.literal.append((j, end))
        return end
    if top.context != CODE:
        scan.blank.append((j, j + 1))
    return j + 1


def _paren(scan: _Scan, top: _Open, j: int) -> int:
    """A `(`: of `(( ))`, of an array (`X=(`), or of a subshell (code)."""
    if top.context == ARITHMETIC:
        return scan.push(ARITHMETIC, "(", j, 1)
    if scan.text.startswith("((", j):
        return scan.push(ARITHMETIC, "((", j, 2)
    if scan.text[j - 1:j] == "=":
        return scan.push(ARRAY, "(", j, 1)
    return scan.push(CODE, "(", j)


def _close(scan: _Scan, top: _Open, j: int) -> int:
    """A `)`, `}`, `]` or `` ` `` that may close ``top``: a `)` in code that closes no `(`, or inside a `case`
    command, ends a `case` item's pattern (and stays); the `)` of a subshell and the `]` of a subscript in code
    stay, all other closers are blanked."""
    if top.context == CODE and scan.text[j] == ")" and (top.opener in ("", "`") or top.cases):
        return j + 1
    scan.stack.pop()
    if top.context == SUBSCRIPT and scan.stack[-1].context == CODE:
        scan.whole[j] = top.at
        return j + 1
    if top.opener in ("$((", "((") and not scan.text.startswith("))", j):  # no arithmetic: read it again
        scan.back_to(top.marks)
        return scan.push(CODE, "$(", top.at) if top.opener == "$((" else scan.push(CODE, "(", top.at)
    if top.opener in ("$(", "`"):
        scan.spans.append((top.at, j))
    elif top.context == CODE:  # a subshell's `)` (what it assigns stays inside it too)
        scan.spans.append((top.at, j))
        return j + 1
    end = j + 1 + (top.opener in ("$((", "((") and scan.text.startswith("))", j))
    scan.blank.append((j, end))
    return end


def _spelled_source(scan: _Scan, j: int) -> None:
    """A quote, `\\` or `$` at ``text[j]`` in code, the first of a command word's (after what begins one of
    ``_UNQUOTED``, if anything): the word written unquoted if it is one of them."""
    text, k = scan.text, j
    while k > max(0, j - _LONGEST) and (text[k - 1].isalnum() or text[k - 1] in "._"):
        k -= 1
    head = text[k:j]
    if not (k == 0 or text[k - 1] in _WORD_START) or not any(word.startswith(head) for word in _UNQUOTED):
        return
    if (head or text[j + 1:j + 2] in _SPELLED_FIRST) and (m := _SPELLED.match(text, k)) and (
            word := _QUOTING.sub("", m.group())) in _UNQUOTED:
        scan.blank.append((k, m.end()))
        scan.words.append((m.end() - len(word), word))


def _subscript(scan: _Scan, j: int) -> int:
    """A `[` in code after a letter, digit or `_`: where a command's name or an assignment may stand, after a
    name (`x[1<<2]=3`), it opens a subscript bash reads whole (no heredoc, no comment in it), else it is text."""
    text, k = scan.text, j
    while k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_"):
        k -= 1
    if k == j or text[k].isdigit() or not _command_position(scan, k):
        return j + 1
    return scan.push(SUBSCRIPT, "[", j)


def _case(scan: _Scan, top: _Open, j: int) -> int:
    """A `case` or `esac` word in a `$( )` or `( )`: one that stands where a command may opens or closes a
    `case` command (whose items' patterns end in a `)` that closes nothing)."""
    word = scan.text[j:j + 4]
    if _command_position(scan, j, ("in",) if word == "esac" else ()):
        scan.stack[-1] = top._replace(cases=max(0, top.cases + (1 if word == "case" else -1)))
    return j + 4


def _command_position(scan: _Scan, k: int, also: tuple[str, ...] = ()) -> bool:
    """Whether the word at ``text[k]`` stands where a command may begin (``shellgrammar``): first on a line or
    after an operator, or after a blank and one of ``also``, or a keyword or an assignment's word (over its quoted
    strings and the subscripts read whole, `A="a b"`, `x[$(a b)]=1`: a subscript blank inside, as in the code)
    that stands where a command may begin itself (`echo then x[1<<2]=3`: an argument), a keyword not after an
    assignment's word (`A=1 time`: a program), or `function NAME` before a compound command's reserved word
    (`function f { x[1<<2]=3; }`). Read back word by word; each word's answer kept (``_Scan.starts``), so a line
    of many costs each word once."""
    text, walked, reserved, answer = scan.text, [], False, False
    after = _WORD.match(text, k)[0]  # the word after the one read back: `function f case`
    while True:
        if (k, reserved) in scan.starts:
            answer = scan.starts[k, reserved]
            break
        walked.append((k, reserved))
        before = _word_before(scan, k)
        if before is True or before is None:
            answer = bool(before)
            break
        q, word = before
        if len(walked) == 1 and word in also:
            answer = True
            break
        if word in _KEYWORDS:
            k, reserved = q, True
        elif not reserved and shellgrammar.ASSIGNMENT.match(word):
            k = q
        elif after in _COMPOUNDS and _FUNCTION_NAME.fullmatch(word) and isinstance(
                named := _word_before(scan, q), tuple) and named[1] in _NAMED:  # `function f {`: f's body
            (k, word), reserved = named, True
        else:
            break
        after = word
    scan.starts.update(dict.fromkeys(walked[bool(also):], answer))  # the first's, by ``also``, is not kept
    return answer


def _word_before(scan: _Scan, k: int) -> tuple[int, str] | bool | None:
    """The word before the one at ``text[k]`` (over blanks and a `\\` joining lines; its quoted strings and the
    subscripts read whole, `A="a b"`, `x[$(a b)]=1`, a subscript blank inside as in the code): its offset and
    text; True where a command may begin first on a line or after an operator; None where no blank stands
    between (part of the word before: `$x[`, `A=1\\` and a line break)."""
    text, p, blank = scan.text, k, False
    while p > 0 and (text[p - 1] in " \t" or text[p - 1] == "\n" and text[p - 2:p] == "\\\n"):
        blank, p = blank or text[p - 1] != "\n", p - 1 - (text[p - 1] == "\n")
    if p == 0 or text[p - 1] in _OPERATOR:
        return True
    if not blank:
        return None
    q, word = p, []
    while q > 0 and text[q - 1] not in " \t" and text[q - 1] not in _OPERATOR:
        if (opened := scan.whole.get(q - 1)) is None:
            word.append(text[q - 1])
            q -= 1
        else:
            word.append("[" + " " * (q - 2 - opened) + "]" if text[opened] == "[" else text[opened:q])
            q = opened
    return q, "".join(reversed(word))


def _heredoc(scan: _Scan, j: int) -> int:
    """A `<` in code: a heredoc's start (its body begins after the line), or not."""
    m = _HEREDOC.match(scan.text, j)
    if not m or scan.text[j - 1:j] == "<":
        return j + 1
    scan.heredocs.append((m["strip"], bool(m["quote"] or m["escape"]), m["end"]))
    return m.end()


def _bodies(scan: _Scan, i: int) -> int:
    """The heredoc bodies that begin at ``text[i]``, one after another: a quoted one's blanked, an unquoted
    one's read for command substitutions (each a BODY context, the first on top); where the scan goes on.
    A body without its terminator runs to the end of the text (blanked)."""
    text, unquoted = scan.text, []
    for strip, quoted, end in scan.heredocs:
        start = i
        while i < len(text):
            line_end = _line_end(text, i)
            if (text[i:line_end].lstrip("\t") if strip else text[i:line_end]) == end:
                scan.blank.append((start if quoted else i, line_end))
                scan.literal.append((start, line_end))
                if not quoted:
                    unquoted.append((start, i))
                i = line_end + 1
                break
            i = line_end + 1
        else:
            scan.blank.append((start, len(text)))
            scan.literal.append((start, len(text)))
    scan.heredocs.clear()
    resume = min(i, len(text))
    for start, stop in reversed(unquoted):
        scan.stack.append(_Open(BODY, "", start, stop, resume))
        resume = start
    return resume


def _line_end(text: str, i: int) -> int:
    """The offset of the line break that ends the line ``text[i]`` is on (the text's length on its last)."""
    end = text.find("\n", i)
    return end if end >= 0 else len(text)


def _blanked(text: str, blank: list[tuple[int, int]]) -> str:
    out, at = [], 0
    for lo, hi in sorted(blank):
        if hi > at:
            lo = max(lo, at)
            part = text[lo:hi]
            out += [text[at:lo], _NOT_A_LINE_BREAK.sub(" ", part) if "\n" in part else " " * len(part)]
            at = hi
    out.append(text[at:])
    return "".join(out)
