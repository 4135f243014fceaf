"""A python interpreter running a module (`python3 -m MODULE`), read one way wherever sweepgate reads one: a
call the rehearsal recorded (preflight's engine calls, the SGLang and multi-node checks), the rehearsal's shims
(in bash, so no interpreter starts for each call a script makes) and the script lines a problem stands at.

An interpreter is named python, python3 or python3.N, by any path (``NAME``: `/usr/bin/python3`, `python3.12`).
Before its -m come CPython's own options (``module_call``): letters run together (`-uB`, `-um MODULE`), -W and -X
with their value joined (`-Xdev`) or as the next word (`-X dev`), long ones (`--check-hash-based-pycs MODE`
takes the next word); -m's module is joined to it (`-mMODULE`) or the next word. -c, `-`, `--` or a file name
end the options with no module: what follows is the program's.
"""

from __future__ import annotations

import re
import shlex
import string

NAME = r"python(3(\.[0-9]+)?)?"  # an interpreter's file name: one text for Python's re and bash's [[ =~ ]]
UNVERSIONED = ("python3", "python")  # the names of NAME with no minor version
VALUE_LETTERS = "WX"  # the options that take a value: joined, or the next word
VALUE_OPTIONS = ("--check-hash-based-pycs",)  # the long ones that take the next word
MODULE_LETTER, COMMAND_LETTER = "m", "c"
# the letters of the options that take no value, which run together before -m's (`-Bum`)
FLAG_LETTERS = "".join(sorted(set(string.ascii_letters) - set(VALUE_LETTERS + MODULE_LETTER + COMMAND_LETTER)))


def is_interpreter(word: str) -> bool:
    """Whether ``word`` (a program as written, or its file name) names a python interpreter (``NAME``)."""
    return re.fullmatch(NAME, word.rsplit("/", 1)[-1]) is not None


def module_call(argv: list[str]) -> tuple[str, list[str]] | None:
    """(module, its arguments) of an interpreter's arguments ``argv`` that run `-m MODULE` after the
    interpreter's own options; None when they run no module (-c, `-`, `--`, a file name, no -m)."""
    at = 0
    while at < len(argv):
        word = argv[at]
        if word in VALUE_OPTIONS:
            at += 2
            continue
        if word in ("--", "-", "") or not word.startswith("-"):
            return None
        if not word.startswith("--"):
            for k, letter in enumerate(word[1:], 2):
                rest = word[k:]
                if letter == MODULE_LETTER:
                    if rest:
                        return rest, argv[at + 1:]
                    return (argv[at + 1], argv[at + 2:]) if at + 1 < len(argv) else None
                if letter == COMMAND_LETTER:
                    return None
                if letter in VALUE_LETTERS:
                    at += 0 if rest else 1  # its value is the next word
                    break
        at += 1
    return None


def called_module(tool: str | None, argv: list[str]) -> tuple[str, list[str]] | None:
    """(module, its arguments) of a recorded call ``tool argv...`` that runs an interpreter with -m, else None."""
    return module_call(list(argv)) if tool and is_interpreter(tool) else None


def runs_module(modules: list[str]) -> str:
    """The regular expression (text) of where a script's line runs one of ``modules`` with -m: `-m MODULE`,
    `-mMODULE`, or -m the last of the interpreter's letters run together (`-um MODULE`); the word before is not
    read, as a script may name its interpreter in a variable or quoted (`"$PYTHON" -m`, `"python3" -m`), text
    the code's words leave blank, and the module's whole name is what tells the call."""
    names = "|".join(map(re.escape, modules))
    return rf"(?<![\w-])-[{FLAG_LETTERS}]*{MODULE_LETTER}\s*(?:{names})(?![\w.-])"


def bash_module() -> str:
    """Bash that reads ``module_call`` in the array ``_sg_args``: ``_sg_module`` the module ('' for none), and
    ``_sg_next`` the index of its first argument in ``_sg_args``."""
    values = "|".join(shlex.quote(o) for o in VALUE_OPTIONS)
    return (
        "_sg_i=0 _sg_module= _sg_next=0\n"
        "while (( _sg_i < ${#_sg_args[@]} )); do\n"
        "  _sg_a=${_sg_args[_sg_i]}\n"
        "  case $_sg_a in\n"
        f"    {values}) (( _sg_i += 2 )); continue ;;\n"
        "    --|-|''|[!-]*) break ;;\n"
        "    --*) (( _sg_i += 1 )); continue ;;\n"
        "  esac\n"
        "  _sg_k=1 _sg_end=\n"
        "  while (( _sg_k < ${#_sg_a} )); do\n"
        "    _sg_c=${_sg_a:_sg_k:1} _sg_rest=${_sg_a:_sg_k+1}\n"
        "    case $_sg_c in\n"
        f"      {MODULE_LETTER}) if [[ -n $_sg_rest ]]; then _sg_module=$_sg_rest _sg_next=$(( _sg_i + 1 ))\n"
        "         else _sg_module=${_sg_args[_sg_i+1]-} _sg_next=$(( _sg_i + 2 )); fi\n"
        "         _sg_end=1; break ;;\n"
        f"      {COMMAND_LETTER}) _sg_end=1; break ;;\n"
        f"      [{VALUE_LETTERS}]) [[ -z $_sg_rest ]] && (( _sg_i += 1 )); break ;;\n"
        "      *) (( _sg_k += 1 )) ;;\n"
        "    esac\n"
        "  done\n"
        "  [[ -n $_sg_end ]] && break\n"
        "  (( _sg_i += 1 ))\n"
        "done\n"
    )
