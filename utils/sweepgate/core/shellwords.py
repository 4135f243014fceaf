"""Which files a benchmark script's shell text sources, and where they are (``recipes.sourced``).

Not a shell: a ``source``/``.`` command is found wherever a command begins (a line's start, after ``;``,
``&&``, ``||``, ``|``, ``(``, ``{``, ``!``, or ``then``, ``else``, ``do``, ``if``, ``elif``, ``while``,
``until``), outside quotes and comments, so ``[ -r X ] && . X`` and ``if [ -f X ]; then source X; fi``
source X. Its first word is followed through the usual spellings of a place: ``$0``, ``${BASH_SOURCE[0]}``
(the script), ``${X%/*}``, ``$(dirname X)``, ``$(cd X && pwd)``, ``$(realpath X)``, ``$(readlink -f X)``,
a path after any of them, nested at will, ``$PWD`` and ``$(pwd)`` (the checkout's top, where jobs run),
a plain relative path (from the top), and a variable the text set to one of these before the command
(``ROOT="$(cd "$(dirname "$0")/../.." && pwd)"; LIB_DIR="$ROOT/benchmarks"``). Anything else (``$HOME``,
an absolute path, another command's output) is no place.
"""

from __future__ import annotations

import posixpath
import re

SELF, FOLDER, TOP = "self", "folder", "top"
Place = tuple[str, str]  # (SELF, "") | (FOLDER, path from the script's folder) | (TOP, path from the checkout's top)

# Where a command begins, and then a `source`/`.` command or an assignment (`local`, `export`, ... allowed).
_COMMAND = re.compile(r'(?:^|[;&|({!]|(?<![\w-])(?:then|else|do|if|elif|while|until)(?=[ \t]))[ \t]*'
                      r'(?:(?P<source>source|\.)[ \t]+|(?:(?:local|export|readonly|declare(?:[ \t]+-\w+)*)[ \t]+)?'
                      r'(?P<name>[A-Za-z_]\w*)=)', re.MULTILINE)
# A line's text before a command, when no quote is open in it and no comment has begun (`#` starts one at
# a word's start only: `${#a[@]}` and `a#b` are words).
_CLOSED = re.compile(r'''(?:[^'"\\#\n]|\\.|'[^'\n]*'|"(?:[^"\\\n]|\\.)*"|(?<=[^\s;&|(){}])#)*''')
_SELF = re.compile(r'\$(?:\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE(?!\w)|0(?!\w)|\{0\})')
_SELF_FOLDER = re.compile(r'\$\{(?:BASH_SOURCE(?:\[0\])?|0)%/\*\}')
_VARIABLE = re.compile(r'\$(?:\{(?P<braced>[A-Za-z_]\w*)\}|(?P<bare>[A-Za-z_]\w*))')
_REST = re.compile(r'(?:/+[\w.+-]*)*')
_LITERAL = re.compile(r'[\w.+-]+(?:/+[\w.+-]*)*')
_DEPTH = 16  # command substitutions in one word followed, at most (each is a level of recursion)
_CLOSING = {"'": "'", '"': '"', "(": ")", "{": "}"}


def sourced(text: str) -> list[tuple[int, Place]]:
    """Each file ``text`` sources where it can be told: (offset of the `source`/`.` word, its place)."""
    found, variables, at = [], {}, 0
    while m := _COMMAND.search(text, at):
        at = m.end()
        if not _CLOSED.fullmatch(text, text.rfind("\n", 0, m.start()) + 1, m.start()):
            continue
        word = _word(text, at)
        at += len(word)
        place = _place(word.replace('"', "").replace("'", ""), variables) if word.count("$(") <= _DEPTH else None
        if m["name"]:
            variables[m["name"]] = place
        elif place and place[0] != SELF and posixpath.basename(place[1]) not in ("", ".", ".."):
            found.append((m.start("source"), place))
    return found


def _word(text: str, i: int, *, group: bool = False) -> str:
    """The shell word at ``text[i:]``: quotes, ``$( )`` and ``${ }`` taken whole, blanks inside them too
    (``group``: only the one they begin with)."""
    start, stack = i, []
    while i < len(text):
        c, top = text[i], stack[-1] if stack else ""
        if top == "'" or c == "\\":
            i += 1 if top == "'" else 2
            if top == "'" and c == "'":
                stack.pop()
            continue
        if top and c == _CLOSING[top]:
            stack.pop()
            if group and not stack:
                return text[start:i + 1]
        elif text.startswith(("$(", "${"), i):
            stack.append(text[i + 1])
            i += 1
        elif top != '"' and c in "'\"(":
            stack.append(c)
        elif not top and (c.isspace() or c in ";&|<>)"):
            break
        i += 1
    return text[start:i]


def _words(s: str) -> list[str]:
    """``s`` (quotes removed) cut into words; an operator's characters one a word."""
    out, i = [], 0
    while i < len(s):
        if s[i].isspace():
            i += 1
            continue
        out.append(_word(s, i) or s[i])
        i += len(out[-1])
    return out


def _place(s: str, variables: dict[str, Place | None]) -> Place | None:
    """Where the word ``s`` (quotes removed) points (module docstring), or None."""
    if _LITERAL.fullmatch(s):
        return (TOP, posixpath.normpath(s)) if "/" in s or s.endswith(".sh") else None
    head, end = _head(s, variables)
    rest = s[end:]
    if head is None or not _REST.fullmatch(rest):
        return None
    if not rest.strip("/"):
        return head
    if head[0] == SELF:
        return None
    return head[0], posixpath.normpath(posixpath.join(head[1], rest.lstrip("/")))


def _head(s: str, variables: dict[str, Place | None]) -> tuple[Place | None, int]:
    """The place the word ``s`` starts with, and where it ends in ``s``."""
    if s.startswith("$("):
        inner = _word(s, 0, group=True)
        return _command(_words(inner[2:-1]), variables), len(inner)
    if m := _SELF_FOLDER.match(s):
        return (FOLDER, "."), m.end()
    if m := _SELF.match(s):
        return (SELF, ""), m.end()
    if m := _VARIABLE.match(s):
        name = m["braced"] or m["bare"]
        return (variables.get(name) if name in variables else (TOP, "") if name == "PWD" else None), m.end()
    return None, 0


def _command(words: list[str], variables: dict[str, Place | None]) -> Place | None:
    """Where the output of a command substitution (its words) points: dirname, cd && pwd, realpath,
    readlink -f, pwd."""
    name, args = (words[0], [w for w in words[1:] if w != "--"]) if words else ("", [])
    if name == "pwd" and all(a in ("-P", "-L") for a in args):
        return TOP, ""
    if name == "git" and args == ["rev-parse", "--show-toplevel"]:
        return TOP, ""
    if name == "dirname" and len(args) == 1:
        return _parent(_place(args[0], variables))
    if name == "realpath" or name == "readlink" and any(re.fullmatch(r"-\w*[fem]\w*", a) for a in args):
        paths = [a for a in args if not a.startswith("-")]
        return _place(paths[0], variables) if len(paths) == 1 else None
    if name == "cd" and args and words[-1] in ("pwd", "-P", "-L") and "pwd" in words:
        place = _place(args[0], variables)
        return place if place and place[0] != SELF else None
    return None


def _parent(place: Place | None) -> Place | None:
    if place is None:
        return None
    if place[0] == SELF:
        return FOLDER, "."
    return place[0], posixpath.normpath(posixpath.join(place[1] or ".", ".."))
