"""Where bash begins a command, what an assignment's word is, and what a function's definition is: the one rule
``core.shellcode`` (as it reads the text), ``core.shellwords`` (as it reads the code), ``core.scriptlines`` (a
library's functions) and ``rehearsal.linetrap`` (a subshell that is a function's body, a command's name) follow.

A command may begin first on a line, right after an operator (``OPERATORS``), or after a reserved word that
stands as a word of its own and a blank where a command may begin itself (``KEYWORDS``: `! source x`,
`{ source x; }`, `then source x`, `! time source x`; not `!source x`, `{source`, `a.then source x`, nor
`echo time source x`, `echo { source x`: an argument is no reserved word), and after an assignment's word and a
blank where a command may begin (``ASSIGNMENT``: `A=1 source x`, `x[1]=2 source x`, `X+=1 source x`; no
reserved word follows one: `A=1 time source x` runs a program `time`). Where a command may begin, ``function NAME``
and ``coproc NAME`` (``NAMED``) may be followed by a compound command whose body is where one may begin
(``COMPOUNDS``, any of bash's: `function f { source x; }`, `function f if source x; ...`, `function f case`; after
`function f()` or at a `(`, an operator begins it). `do` after `for NAME` or `for (( ))` (no `;`) is reserved too:
`for x do source x; done`. Where one may begin, bash reads an array element's subscript (`x[1<<2]`) whole; in the
code its inside is blank or plain, so it holds no other bracket and a try of it stops at the next `[`.

A function's definition (``FUNCTION_HEADER``, ``function_header``) is `function NAME`, `function NAME()` or
`NAME()`, blanks allowed in and before its parentheses (`f ( )`), then blanks and line breaks, then its body: any
compound command (``COMPOUND``). A word with a `=` is an assignment's, no `NAME()` (`a=b()` is a syntax error;
`function a=b` defines one).
"""

from __future__ import annotations

import re

OPERATORS = "\n;&|()`"
KEYWORDS = ("then", "do", "else", "if", "elif", "while", "until", "time", "!", "{", "coproc")
# The command words ``core.shellwords`` reads a `source` by: `source`/`.`, and those that run the words after them
# as a command (`builtin source x`, `eval source x`); bash runs each spelled with quotes or a `\` as unquoted
# (`"eval" source x`), `time` not (quoted, it is no reserved word: `"time" source x` runs a program).
SOURCES = ("source", ".")
LEADS = ("builtin", "command", "eval")
NAMED = ("function", "coproc")  # a word that names what the compound command after its next word is
# What begins a compound command (a function's body), and the reserved word that ends each that is a word
COMPOUNDS = ("{", "(", "((", "[[", "if", "case", "for", "select", "while", "until")
CLOSING = {"if": "fi", "case": "esac", "for": "done", "select": "done", "while": "done", "until": "done"}
COMPOUND = (r"(?:\(\(?|(?:" + "|".join(map(re.escape, sorted(set(COMPOUNDS) - {"(", "(("}, key=len, reverse=True)))
            + r")(?![^\s;&|()<>]))")
NAME = r"[A-Za-z_]\w*"
_NOT_IN_A_NAME = r"""\s;&|()<>`'"\\$"""
FUNCTION_NAME = rf"[^{_NOT_IN_A_NAME}]+"  # bash takes any word but a reserved one: `function a.b-c {`
_PARENS = r"[ \t]*\([ \t]*\)"


def function_header(name: str = "") -> str:
    """A function's definition up to its body (module docstring), of any name or of ``name`` (a pattern):
    group `function` its name, group `keyword` set when it is written with `function`."""
    named, bare = (name, name) if name else (FUNCTION_NAME, rf"[^{_NOT_IN_A_NAME}=]+")
    return (rf"(?P<keyword>function[ \t]+)?(?P<function>(?(keyword){named}|{bare}))"
            rf"(?(keyword)(?:{_PARENS})?|{_PARENS})")


FUNCTION_HEADER = function_header()
SUBSCRIPT = r"\[[^][]*+\]"  # over lines too: bash reads it whole
# An assignment's word up to its `=`: the name, and an element's subscript or a `+` (which leave its value unknown)
ASSIGNMENT_WORD = rf"(?P<name>{NAME})(?P<element>(?:{SUBSCRIPT})?\+?)="
ASSIGNMENT = re.compile(ASSIGNMENT_WORD)
# A declaration's builtin before its assignments, with its options (`local -r D=…`, `typeset D=…`, `export -n X=…`)
DECLARATION = r"(?:local|declare|typeset|readonly|export)(?:[ \t]+-\w+)*[ \t]+"
# In the code (re.MULTILINE): where a command may begin (a line's start, an operator, a keyword), blanks after
_AFTER = re.escape(OPERATORS.replace("\n", ""))
# (a keyword only where a command may begin itself: `echo time source x`, `echo { source x` run no `source`)
_FUNCTION = rf"(?:{'|'.join(NAMED)})[ \t]+{FUNCTION_NAME}(?=[ \t]+{COMPOUND})"
_FOR_DO = rf"(?P<loop>(?:for|select)[ \t]+(?:{NAME}[ \t]+)?do)"  # `for (( ))`: blank in the code
COMMAND_START = (rf"(?:^|[{_AFTER}])(?:[ \t]*(?:{'|'.join(map(re.escape, KEYWORDS))}|{_FUNCTION}|{_FOR_DO})"
                 r"(?=[ \t]))*[ \t]*")
