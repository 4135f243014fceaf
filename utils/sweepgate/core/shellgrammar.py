"""Where bash begins a command, and what an assignment's word is: the one rule ``core.shellcode`` (as it reads
the text) and ``core.shellwords`` (as it reads the code) both follow.

A command may begin first on a line, right after an operator (``OPERATORS``), or after a reserved word that
stands as a word of its own and a blank where a command may begin itself (``KEYWORDS``: `! source x`,
`{ source x; }`, `then source x`, `! time source x`; not `!source x`, `{source`, `a.then source x`, nor
`echo time source x`, `echo { source x`: an argument is no reserved word), and after an assignment's word and a
blank where a command may begin (``ASSIGNMENT``: `A=1 source x`, `x[1]=2 source x`, `X+=1 source x`; no
reserved word follows one: `A=1 time source x` runs a program `time`). Where a command may begin, ``function NAME``
and ``coproc NAME`` (``NAMED``) may be followed by a compound command whose body is where one may begin
(``COMPOUNDS``: `function f { source x; }`, `function f if source x; ...`; after `function f()` or at a `(`, an
operator begins it). Where one may begin, bash reads an array element's subscript (`x[1<<2]`) whole; in the code
its inside is blank or plain, so it holds no other bracket and a try of it stops at the next `[`.
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
COMPOUNDS = ("{", "if", "while", "until")  # the reserved words that may begin a function's body
NAME = r"[A-Za-z_]\w*"
FUNCTION_NAME = r"""[^\s;&|()<>`'"\\$]+"""  # bash takes any word but a reserved one: `function a.b-c {`
SUBSCRIPT = r"\[[^][]*+\]"  # over lines too: bash reads it whole
# An assignment's word up to its `=`: the name, and an element's subscript or a `+` (which leave its value unknown)
ASSIGNMENT_WORD = rf"(?P<name>{NAME})(?P<element>(?:{SUBSCRIPT})?\+?)="
ASSIGNMENT = re.compile(ASSIGNMENT_WORD)
# In the code (re.MULTILINE): where a command may begin (a line's start, an operator, a keyword), blanks after
_AFTER = re.escape(OPERATORS.replace("\n", ""))
# (a keyword only where a command may begin itself: `echo time source x`, `echo { source x` run no `source`)
_FUNCTION = rf"(?:{'|'.join(NAMED)})[ \t]+{FUNCTION_NAME}(?=[ \t]+(?:{'|'.join(map(re.escape, COMPOUNDS))})[ \t])"
COMMAND_START = (rf"(?:^|[{_AFTER}])(?:[ \t]*(?:{'|'.join(map(re.escape, KEYWORDS))}|{_FUNCTION})(?=[ \t]))*"
                 r"[ \t]*")
