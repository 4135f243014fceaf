"""Which files a benchmark script's shell text sources, and where they are (``recipes.sourced``).

Not a shell: in the text's code (``core.shellcode``: not in a comment, a string, a heredoc's body, but in
every command substitution, quoted or not, in backticks and in an unquoted heredoc's body), a ``source``/``.``
command is found wherever a command begins (``core.shellgrammar``: a line's start, after ``;``, ``&&``, ``||``,
``|``, ``(``, `` ` ``, a ``case`` pattern's ``)``, or a word ``{``, ``!``, ``then``, ``else``, ``do``, ``if``,
``elif``, ``while``, ``until``, ``time`` standing where a command begins itself), after assignments
(``X=1 source x``), ``builtin``, ``command`` or ``eval`` (``time`` only first or right after ``eval``), words that
may be empty (``$SUDO``, ``$(cmd)``: ``_MAYBE_EMPTY``) and before a ``--``, so ``[ -r X ] && . X`` and ``if [ -f X ]; then source X; fi``
source X. Its first word is followed through the usual spellings of a place: ``$0``, ``${BASH_SOURCE[0]}``
(the script), ``${X%/*}``, ``$(dirname X)``, ``$(cd X && pwd)``, ``$(realpath X)``, ``$(readlink -f X)``,
a path after any of them, nested at will, ``$PWD`` and ``$(pwd)`` (the working folder: the checkout's top, where
jobs run, until a `cd` moves it, as for a relative path below), a plain relative path (from the top), and a variable
the text set to one of these before the command (``ROOT="$(cd "$(dirname "$0")/../.." && pwd)";
LIB_DIR="$ROOT/benchmarks"``). Anything else (``$HOME``,
an absolute path, another command's output) is no place. A command string is read as the code it is, with the
variables in force where it stands: the word after a shell's `-c` (`bash -c "source X; run"`, `srun ... sh -lc '. X'`)
and the quoted words of an `eval` where a command begins (`eval "source X"`); in a shell's string in single quotes
`$0` is the argument after it, no place. A `source` whose file only the run knows (``Reading.unseen``: a
process substitution, standard input, a place that is no spelling above) is kept apart, for the run identity to say
it cannot see it, unless its path ends in names written out (``Reading.tails``: `"$VENV/bin/activate"`), which the run
identity looks for among the checkout's tracked files, or is a variable the text set to such a path, or a path under it
(`LIB="$BENCH_DIR/lib.sh"; source "$LIB"`: read as the path written inline, ``_tail_place``; not when the variable
had a value before, ``_set_before``); one outside the checkout
(an absolute path with an expansion in it) is not; one under the home folder (`~/ws/x.sh`, `"$HOME/ws/x.sh"`) is a
written end (s48i: a runner's checkout may lie there).
A bare name (`source helpers`) is read from the checkout's top, where bash looks after the PATH; a relative path after a
`cd`/`pushd` from where it went (a place, or a relative path from where it was; after `popd`, `cd -` or a `cd` to a
folder only the run knows, the path is such a written end); a command string run after a `cd` away from the top starts
where only the run knows (`cd b; bash -c "source x.sh"`: `srun`, `docker run -w` may put it elsewhere), so its relative
paths, `$PWD` and `$(pwd)` are written ends. A `cd` or an assignment the run may not make (``core.shellflow``: in an
`if`, `case` or loop, after `&&`/`||`, in a pipeline, the background or a function's body) holds in its branch alone
(an `if`'s `else` or `elif` goes on as after its condition: ``_instead``);
after it the working folder, or the variable, holds either value (``_flowed``, ``_either``: the written end both
share, else one only the run knows), and so at a loop's start and in a function's body for what they (or, for a
function, the rest of the text) may set, and where a function is called for what its body may set. A command that
sets a variable no assignment's word shows (``_writes``: `read X`, `printf -v X`, `eval "X=…"`, `${X:=…}`) makes it
one only the run knows, and one whose names or code only the run knows (`declare "$N=…"`, `read -r "$N"`, an
assignment through a nameref, `eval "$(cat env)"`) every variable, and such an `eval` the working folder too.
A file sourced runs
in the same shell: ``reading`` takes the working folder it starts in (the one at its `source`), and where each file it
sources leaves it (``recipes.start_of``: `source ./h.sh` where h.sh runs `cd sub` goes on in sub) and what it leaves
its variables (``recipes.started``: `source env.sh` where env.sh sets `D=shared` goes on with D=shared); a `cd` to a
folder the checkout does not hold may fail (``reading``'s absent). A variable set to
a relative path is read from the working folder where it is used (``_RELATIVE``). A heredoc given to a shell (`bash <<'EOF'`, `cat <<EOF
| bash`) is read as a command string. What a command substitution or a subshell assigns
(`X=$(D=x; source "$D/y.sh")`, `(D=x)`) stays inside it. A `source` is said at the line bash gives its
command (``_said_at``).

``reading`` also gives the other paths the text names from the script's folder (``Reading.named``): each
spelling of a place above, anywhere in the text, with a path after it (`python3 "$B/client.py"`; `$PWD`, `$(pwd)` and a
relative path with a `/` where the working folder is the script's or one under it); the value of
a variable that is then used as a folder (`B="$ROOT/benchmarks"`, then `"$B/client.py"`) names no file itself. And the
files it runs by a path from the working folder in the checkout (``Reading.ran``: `python3 shared/tool.py`, `bash "$S"`,
`bash "$GITHUB_WORKSPACE/x.sh"`, `./tools/run.sh`, in a command string too, through a wrapper or on standard input,
`timeout 60 bash x.sh`, `bash < x.sh`: a script's path written anywhere but a comment; ``Reading.ran_from_workspace``:
the path after `$GITHUB_WORKSPACE/`, read as any tracked file ending so where a file of the job moves the workspace),
and those it runs by a path whose start only the run knows but whose end is written (``Reading.ran_tails``: `bash
"$D/x.sh"`), each with the working folder at the run, where the file starts (``Reading.ran_sites``,
``Reading.ran_tail_sites``; so for ``Reading.named``, ``Reading.named_sites``). A file read as data goes there too, its
site ``READ_AS_DATA`` (hashed, never read as shell): the file after an input redirection (`< params.txt`, `$(< v.txt)`)
and a reader command's words (`cat .env`, `grep -v '^#' .env`); and one fed to an interpreter that runs its input
(`bash < "$D/x.sh"`) as a file run. A `for` loop's variable stands for each word of its list where its body sources,
runs or reads it (``Reading.loops``); a path with a glob there is every tracked file it matches (``Reading.globs``).
Any other word of a command that names a file (an argument, an option's value after its `=`, an assignment's value:
`--config c.json`, `CFG=c.json cmd`) is read as data too, its site ``ARGUMENT`` (``_argument_words``: a word only the
run knows is passed over); a file a reader gives a shell (`cat x | bash`, `bash -c "$(cat x)"`) is a file run. A file
run, sourced or read through a variable a list read at run time sets (`while read -r f; do bash "$f"; done < list`,
``_listed``) or fed to an interpreter by `xargs` is one only the run knows (``Reading.unseen``); one a `find` runs
(`-exec bash {} +`, `| xargs -I{} bash {}`) is every tracked file its `-name` matches (``_found_runs``). A `make`
reads its makefile as data (``_makefiles``), and a function whose body runs `"$1"` runs each word of its calls
(``_called_with``).
"""

from __future__ import annotations

import bisect
import collections
import functools
import posixpath
import re
from dataclasses import dataclass, field

from sweepgate.core import mounts, shellcode, shellflow, shellgrammar
from sweepgate.core.worktop import WORKSPACE

SELF, FOLDER, TOP, TAIL = "self", "folder", "top", "tail"
# The working folder a file read as data "starts" in (``Reading.ran_sites``: `cat .env`, `< params.txt`): hashed as
# it is, never read as shell (``reading`` of it is empty)
DATA = "data"
READ_AS_DATA = (DATA, "")
# The working folder a file a word of a command names "starts" in (``Reading.ran_sites``: `python3 x.py --config
# c.json`, `--chat-template=t.jinja`, `CFG=c.json cmd`: the program may open it): hashed as data, as ``READ_AS_DATA``
# is, but a folder so named is not read whole (``identity.tail_files``), and a word only the run knows is passed over
ARGUMENT = (DATA, "argument")
# The start of a written end (``Reading.ran_tails``) of an absolute path read as data or named by a word (s47f,
# ``_absolute_data_tail``): a submodule may hold its file only where its names go through the submodule's
# (``identity._may_hold``, as from the workspace), never any submodule as from any other start
ABSOLUTE_DATA = "/"


def is_data(site: "Place | None") -> bool:
    """Whether a file read from ``site`` is read as data (``READ_AS_DATA``, ``ARGUMENT``), never as shell."""
    return site is not None and site[0] == DATA


# A variable's value that is a relative path written out (`LIB=lib/x.sh`): from the working folder where it is used,
# which a `cd` since may have moved (``_head``); never a `source`'s place
_RELATIVE = "relative"
# (SELF, "") | (FOLDER, path from the script's folder) | (TOP, path from the checkout's top) | (TAIL, path from a place
# only the run knows: a variable's value, never a `source`'s place, ``_tail_place``)
Place = tuple[str, str]
# The working folder a script starts in: the checkout's top, where jobs run
TOP_CWD: Place = (TOP, "")
# The working folder, kept among a scope's variables under a name no variable has: a `cd` moves it, `$(pwd)` and
# `$PWD` (unless the text sets PWD) are it
_CWD = " cwd"

# An unquoted parameter expansion alone as a word (`$SUDO`, `${SUDO}`, `$@`, `$1`) may expand to nothing, and then
# bash runs the next word as the command: `SUDO=""; ${SUDO} source X` sources X; so do `"$@"`, `"${@}"` and
# `"${PREFIX[@]}"`, quoted, with no arguments or an empty array (no word at all). For the run identity reading more
# than bash sources is safer than less, so such words before a `source` where a command begins, after an assignment
# (`A=1 $S source X`) or `eval`, are read as empty, whatever their value (`CMD=echo; $CMD source X` is read as
# sourcing X too); any other quoted word never is (`"${S}" source X`, `"$*" source X`, `'time' source X`,
# `"echo" source X`: bash runs that word). A redirection is no word of the command either: `</dev/null source X`,
# `2>&1 source X`, `<"$F" . X` source X. So is a command substitution alone as a word (`$(cmd) source X`,
# `` `cmd` . X``: one that prints nothing is dropped), ``_empty_words``.
_REDIRECTION = r'(?:[0-9]+|\{[A-Za-z_]\w*\})?(?:<<<|<<-?|&>>?|>>|<>|>\||[<>]&|[<>])[ \t]*[^\s;&|()<>`]*'
_EMPTY_WORD = rf'(?:\$(?:[A-Za-z_]\w*|[@*1-9])|{_REDIRECTION})[ \t]+'  # `${...}`, `"..."` are blank in the code
_MAYBE_EMPTY = rf'(?:{_EMPTY_WORD})*'
# such a word as the text has it, where the code blanks it: one `${ }`, `"$@"`, `"${NAME[@]}"`, a redirection
_EXPANSION_WORD = re.compile(r'\$\{[^\s]*\}|"\$(?:@|\{(?:@|[A-Za-z_]\w*\[@\])\})"'
                             r'|(?:[0-9]+|\{[A-Za-z_]\w*\})?[<>]\S*')
# A `source`/`.` command, after words that run it as one (`builtin`, `command`, `eval`, and `time` first or right
# after `eval`, where it is the reserved word: `command time`, `A=1 time` run a program `time`; `eval`'s words are
# a command line again, so `!` and `time` may follow it in any order), `--` allowed.
_TIME = r'time(?:[ \t]+-p)?[ \t]+(?:--[ \t]+)?'
_RUNS_AS_ONE = (rf'(?:(?:builtin|command(?:[ \t]+-p)?)[ \t]+(?:--[ \t]+)?'
                rf'|eval[ \t]+(?:--[ \t]+)?(?:{_TIME}|![ \t]+|{_EMPTY_WORD})*)*')


def _source(timed: bool) -> str:
    """A `source`/`.` command after words that may expand to nothing or are redirections (``_MAYBE_EMPTY``), and a
    `time` before it only when ``timed`` (where a command begins, not after an assignment)."""
    return (rf'{_MAYBE_EMPTY}(?P<command>{"(?:" + _TIME + ")?" if timed else ""}{_RUNS_AS_ONE}'
            r'(?P<source>source|\.)[ \t]+(?:--[ \t]+)?)')


_SOURCE = _source(timed=True)
# Where a command begins in the code (``shellcode.code``, ``shellgrammar``), and then a `source`/`.` command or an
# assignment (`local`, `export`, ... allowed; `)` ends a `case` item's pattern there: the one of a `$( )` is
# blanked). An element's assignment (`x[1]=`, its subscript blanked in the code) or an appending one (`X+=`)
# leaves its variable's place unknown.
_COMMAND = re.compile(rf'{shellgrammar.COMMAND_START}'
                      rf'(?:{_SOURCE}|(?P<cd>(?:builtin[ \t]+)?(?:cd|pushd|popd))(?=[ \t;&|)\n]|$)'
                      rf'|(?P<declare>{shellgrammar.DECLARATION})?'
                      rf'{shellgrammar.ASSIGNMENT_WORD})', re.MULTILINE)
# What may follow an assignment in the same command: another (`A=1 B=$(...)`), or a `source` (`X=1 . x`,
# not after `local`, `export`, ...: their words are all names).
_NEXT = re.compile(rf'[ \t]+(?:{_source(timed=False)}|{shellgrammar.ASSIGNMENT_WORD})')
_GAP = re.compile(r"\s+")
# up to a word that may be empty, after words that may be and assignments (`A=1 $(true) source x` sources x)
_MAY_BEGIN = re.compile(rf'{shellgrammar.COMMAND_START}(?:{_EMPTY_WORD}|{shellgrammar.ASSIGNMENT_WORD}'
                        r'[^ \t;&|()<>]*[ \t]+)*', re.MULTILINE)
_BLANKS = re.compile(r'(?:[ \t]|\\\n)+(?:--(?:[ \t]|\\\n)+)?')  # in the text: a `\` joins two lines
_SELF = re.compile(r'\$(?:\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE(?!\w)|0(?!\w)|\{0\})')
_SELF_FOLDER = re.compile(r'\$\{(?:BASH_SOURCE(?:\[0\])?|0)%/\*\}')
_VARIABLE = re.compile(r'\$(?:\{(?P<braced>[A-Za-z_]\w*)\}|(?P<bare>[A-Za-z_]\w*))')
_REST = re.compile(r'(?:/+[\w.+-]*)*')
_LITERAL = re.compile(r'[\w.+-]+(?:/+[\w.+-]*)*')
_DEPTH = 16  # command substitutions in one word followed, at most (each is a level of recursion)
_CLOSING = {"'": "'", '"': '"', "(": ")", "{": "}"}
_HEAD = re.compile(r'\$[({\w]')
_TOKEN = re.compile(r'[^ \t]+')
_WORD_END = frozenset(" \t" + shellgrammar.OPERATORS)
# A command substitution ``_command`` can tell a place from, and the longest spelling of a place followed
# (each `$(` of a text is tried as one: a longer one would cost a scan of the text each)
_PLACE_COMMAND = re.compile(r'\$\([ \t]*(?:dirname|cd|realpath|readlink|pwd|git)(?![\w-])')
_SPELLING_MAX = 256
# The name of a shell (`bash`, `sh`, `dash`, `ksh`, `zsh`) and of an interpreter that runs a file it is given (a shell, `python3.11`)
_SHELL_NAME = r'(?:ba|da|k|z)?sh'
PYTHON_NAME = r'python[\d.]*'  # python, python3, python3.11 (core.pyimports too)
_INTERPRETER_NAME = r'(?:' + PYTHON_NAME + '|' + _SHELL_NAME + ')'
# A shell run with a command string (`bash -c`, `sh -lc`, `/bin/bash -o pipefail -ec`; its options before) or
# `eval`, as a word of the code; the string follows
_STRING_COMMAND = re.compile(r'(?<![\w./-])(?:(?P<shell>(?:[\w.-]*/)*' + _SHELL_NAME + r')[ \t]+'
                             r'(?:(?:-o[ \t]+[\w-]+|[-+][\w-]*)[ \t]+)*?-[A-Za-z]*c[A-Za-z]*'
                             r'|(?P<eval>eval)|(?P<trap>trap)|(?P<ssh>(?:[\w.-]*/)*ssh))(?=[ \t])')
# `ssh`'s options that take a value (`-i key`, `-p 22`, `-o Opt=v`, `-tp 22`): the host is the first word that is no
# option, OpenSSH reads options after it too (`ssh node -t …`, up to a `--`), and the words after them are the
# command the remote login shell runs (s48e, s48h)
_SSH_VALUED = frozenset("BbcDEeFIiJLlmOoPpQRSWw")
_SSH_COMMAND = re.compile(r'(?<![\w./-])(?:[\w.-]*/)*ssh(?=[ \t])')
# A line of the code that gives a heredoc to a shell (`bash <<EOF`, `cat <<'EOF' | sh -s`)
_SHELL_WORD = r'(?<![\w./-])(?:[\w.-]*/)*' + _SHELL_NAME + r'(?![\w./-])'
# (or to `ssh`, whose remote login shell reads it as its commands: `ssh node <<'EOF'`, s48h)
_HEREDOC_RUNNER = r'(?:' + _SHELL_WORD + r'|(?<![\w./-])(?:[\w.-]*/)*ssh(?![\w./-]))'
_SHELL_HEREDOC = re.compile(rf'^[^\n]*?(?:{_HEREDOC_RUNNER}[^\n]*<<(?!<)|<<(?!<)[^\n]*{_HEREDOC_RUNNER})', re.MULTILINE)
# Text a shell reads on its standard input: `bash <<< "..."`, `echo "..." | bash` (`printf` too; options after it)
_SHELL_FED = re.compile(rf'{_SHELL_WORD}(?:[ \t]+-[A-Za-z]+)*[ \t]*<<<(?P<string>)'
                        rf'|(?<![\w./-])(?P<feed>echo|printf)(?=[ \t])(?P<words>[^\n|;&()]*)\|[ \t]*{_SHELL_WORD}'
                        r'(?:[ \t]+-[A-Za-z]+)*[ \t]*(?=$|[;&|)\n])', re.MULTILINE)
_STRING_DEPTH = 4  # command strings inside command strings followed, at most
# The script's own name in a shell's string in single quotes: there it is the argument after the string
_POSITIONAL_SELF = re.compile(r'\$(?:\{(?:0|BASH_SOURCE(?:\[0\])?)(?=[}%#:])|0(?!\w)|BASH_SOURCE(?!\w))')
# Where a command begins, then words that may expand to nothing and assignments, up to a command substitution
_ALONE_AT_START = re.compile(_MAY_BEGIN.pattern + r'\Z', re.MULTILINE)
# A file outside the checkout: an absolute path with an expansion in it (one written out is a written end,
# ``_absolute_tail``). Not `~/…` or `$HOME/…` (s48i): a runner's checkout often lies under the home folder
# (`~/actions-runner/_work/repo/repo`), so such a path's written end is read as one whose start only the run knows
_OUTSIDE = re.compile(r'/')
# The home folder at a path's start (`~`, `~user`, `$HOME`, `${HOME}`), before its first `/`
_HOME = re.compile(r'(?:~[\w.-]*|\$(?:HOME|\{HOME\}))(?=/)')
_SHOWN_MAX = 60  # a word said longer is cut
_STANDARD_INPUT = ("/dev/stdin", "/dev/fd/", "/proc/self/fd/")
# The written end of a path after its last expansion (`"$VENV/bin/activate"`: `/bin/activate`), whole names only
_TAIL = re.compile(r'(?:/+[\w.+-]+)+/*\Z')
_BARE = re.compile(r'\.?[\w+][\w.+-]*')  # a file's name alone (no `/`; a dot file's too, `.env`; not `.`, `..`)
# A relative path written out as a word of its own (or after a `=`, a quote), with a `/` in it: `./client.py`, `a/b`
_RELATIVE_PATH = re.compile(r'(?<![^\s;&|()<>"\'=])(?:\.{1,2}/|[\w+-][\w.+-]*/)[\w.+/-]*(?=[\s;&|()<>"\']|\Z)')
# An interpreter that runs the file named by its first word after its options (``_script_word``: `python3 -u x.py`,
# `bash x.sh`, `bash -o pipefail x.sh`, `python3 -W ignore x.py`, `/usr/bin/env python3 x.py`), as a word of the code
# anywhere in a command (`timeout 600 python3 x.py`, `srun ... bash x.sh`, `run bash x.sh`); group `python` for python
_INTERPRETER = re.compile(r'(?<![\w./-])(?:(?:[\w.-]*/)*env[ \t]+)?(?:[\w.-]*/)*(?:(?P<python>' + PYTHON_NAME + r')|'
                          + _SHELL_NAME + r')(?=[ \t])')
# Each interpreter's options (python's, a shell's): the letters that take an argument (the next word; python's the rest
# of its word when more follows: `-Wignore`), the long ones that take the next word, and the letters after which it
# runs no file's word (a command string, `-c`; a module, `-m`). Any other option takes none (`-O`, `-u`, `-x`, `-e`)
_OPTIONS = {True: ("WX", ("--check-hash-based-pycs",), "cm"), False: ("oO", ("--rcfile", "--init-file"), "c")}
_WORD_GAP = re.compile(r'(?:[ \t]|\\\n)+')  # blanks between words in the text (a `\` joins two lines)


def _script_word(text: str, at: int, python: bool) -> int | None:
    """Where the word of the file an interpreter runs begins in ``text``, the interpreter's own word ending at ``at``:
    the first word after its options (``_OPTIONS``; a shell's `+o`, `+O` too), past a `--`; None when it runs none (a
    command string, a module, standard input: `-`; an operator or a redirection next)."""
    letters, longs, none = _OPTIONS[python]
    argument, ended = False, False
    while gap := _WORD_GAP.match(text, at):
        at = gap.end()
        if text.startswith((";", "&", "|", "<", ">", "(", ")", "\n"), at) or not (word := _word(text, at)):
            return None
        if argument:
            argument = False
        elif ended or word[0] not in ("-" if python else "-+") or len(word) == 1:
            return None if word == "-" and not ended else at
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            argument = word in longs
        else:
            for k, letter in enumerate(word[1:]):
                if letter in none:
                    return None
                if letter in letters:  # python's takes the rest of its word when more follows (`-Wignore`)
                    argument = not python or k == len(word) - 2
                    break
        at += len(word)
    return None


# A command that runs the interpreter after it where only the run knows the working folder (a container, another node,
# `env -C`/`--chdir`): `docker run -w /ws img bash x.sh`, `srun --chdir=b bash x.sh`, `env -C b bash x.sh`. `sudo`,
# `xargs` and `mpirun` run it on this host in the same folder, as `timeout` does (`sudo bash x.sh`, `xargs -n1 bash
# x.sh`, `mpirun -np 8 python3 t.py`), unless an option of theirs moves it (``_MOVED_BY``: `sudo -i` starts in the
# user's home, `sudo -D b`, `sudo -R root`, `--login`, `--chdir`, `--chroot` and their abbreviations, `mpirun -wdir b`);
# any such word up to the interpreter's file counts, its own too
_LATER = r'(?=(?:(?:[ \t]|\\\n)+[^\s;&|]+)*?(?:[ \t]|\\\n)+'
_MOVED_BY = {"env": r'(?:-[A-Za-z0]*C|--chdir)', "sudo": r'(?:-[A-Za-z]*[iDR]|--(?:l|ch)\w*)',
             "mpirun": r'(?:--?(?:wdir|wd|chdir|set-cwd-to-session-dir))(?![\w-])'}
_ELSEWHERE = re.compile(r'(?<![\w./-])(?:srun|salloc|sbatch|docker|podman|enroot|singularity|apptainer|ssh|nsys|'
                        + "|".join(f'{tool}{_LATER}{moved})' for tool, moved in _MOVED_BY.items())
                        + r')(?![\w./-])')
# where a command of a pipeline begins in the code (a `\`-continued line goes on), outside the command substitutions
# and subshells before it (``_run_elsewhere``): an `_ELSEWHERE` word before the interpreter after it counts
_COMMAND_BREAK = ";&|("  # and a newline no `\` continues (``_last_break``)
# A command's own word that starts with a variable (`"$D/x.sh" --flag`, `${BIN}/run`): a file run by its path
_EXPANDED_COMMAND = re.compile(r'(?<![^\s;&|()`])"?\$\{?[A-Za-z_]')
# A script named by a path written out anywhere in the text but a comment, in a pipeline that holds an interpreter's
# word (``_PIPELINE_END``, ``_INTERPRETER_WORD``: `bash < x.sh`, `cat x.sh | bash`, `echo x.sh | xargs bash`, `docker
# run -w /ws img bash x.sh`, a line of a heredoc given to bash): a relative path, or one from the workspace, ending in a
# script's extension; bash or a wrapper may run it, and hashing a file it does not run costs a reuse at most. An
# argument of a pipeline with no interpreter (`echo shared/tool.py`, `cat shared/helper.sh`) runs none
_SCRIPT_NAMED = re.compile(r'(?<![^\s;&|()<>`"\'=])(?:\$(?:' + WORKSPACE + r'|\{' + WORKSPACE + r'\})/+)?'
                           r'(?:[\w.+-]+/+)*[\w+-][\w.+-]*\.(?:sh|bash|py)(?![\w.+/-])')
# where a pipeline ends: a newline (not one a `\` continues), `;`, `&&`, `||`, `&` (not a redirection's: `2>&1`, `&>`,
# `|&`)
_PIPELINE_END = re.compile(r'(?<!\\)\n|;|&&|\|\||(?<![<>&|])&(?![>&])')
# an interpreter's word anywhere (``_INTERPRETER`` with no word after it: `| bash`, `| xargs bash`)
_INTERPRETER_WORD = re.compile(r'(?<![\w./-])(?:[\w.-]*/)*' + _INTERPRETER_NAME + r'(?![\w.+/-])')
# a `source`/`.` command's word (``Reading.sourced`` and ``tails`` read it, a command string's too: `bash -c 'source
# y.sh'`): no file run
_SOURCE_BEFORE = re.compile(r'(?<![^\s;&|(`"\'])(?:source|\.)[ \t]+(?:--[ \t]+)?["\']?\Z')
# `$0` as the text spells it (`$0`, `${0}`, `${0%/*}`; not its name alone, `${0##*/}`): in a file sourced, the
# script bash runs, not that file
_DOLLAR0 = re.compile(r'\$(?:0(?!\w)|\{0(?:[}%:/^,@]|#(?!#)))')


def names_dollar0(text: str) -> bool:
    """Whether ``text`` spells `$0` anywhere (``_DOLLAR0``; `${BASH_SOURCE[0]}` is not it): ``reading`` takes both for
    the file read, which in a file sourced `$0` is not (``recipes.helper_folders`` reads its paths beside the running
    script too)."""
    return _DOLLAR0.search(text) is not None


# An assignment of PATH (`export PATH="$GITHUB_WORKSPACE/tools:$PATH"`, `PATH=… cmd`, `PATH+=…`)
_PATH_SET = re.compile(r'(?<![\w$.{/-])PATH(?P<append>\+?)=')
# PATH's own value in an assignment of it (`$PATH`, `${PATH}`, `${PATH:+:$PATH}` once what it holds is taken)
_OLD_PATH = re.compile(r'\$(?:PATH(?!\w)|\{PATH(?:[^{}\w][^{}]*)?\})')
# A name alone as a word (`env.sh`, `"run.sh"`, `tune`): bash looks along PATH for a command, and for a `source`
_BARE_WORD = re.compile(r'(?<![^\s;&|()<>`"\'])[\w+][\w.+-]*(?=[\s;&|()<>`"\']|\Z)')


@functools.lru_cache(maxsize=1024)
def _uncommented(text: str) -> str:
    """``text`` with its comments blanked (``shellcode.parts``' text parts that begin with a `#` and end on its line:
    a heredoc's body that begins with one, `bash <<'EOF'` then `# set up`, is kept), the same length: what bash may
    run (once per text: the run identity asks of each file of a job's again for every row, ``identity.tail_files``)."""
    out = list(text)
    for begin, end in shellcode.parts(text)[2]:
        if text.startswith("#", begin) and "\n" not in text[begin:end]:
            out[begin:end] = " " * (end - begin)
    return "".join(out)


def path_folders(text: str) -> list[tuple[str, bool]]:
    """The folders each assignment of PATH in ``text`` but in a comment (``_PATH_SET``) puts on it, PATH's own value
    aside, each as what a tracked file found there may end in: its written end (``_tail``: `tools` for `tools`,
    `./tools`, `"$GITHUB_WORKSPACE/tools"`, `$PWD/tools`; "" for one of which no name is written, `.`, an empty entry,
    `$(cat p)`: any folder), and whether it is an absolute path written out (`/usr/local/cuda/bin`: the checkout, if
    there at all, is mounted somewhere along it, so only a file whose path that one ends in may be found, the top's
    `nvcc`, `bin/nvcc`, ..., never `tools/nvcc`), in order. A name alone that a file of the job runs or sources may be
    a file of such a folder (``bare_words``, ``identity.tail_files``); none: PATH is as the job found it."""
    code = _uncommented(text)
    found: dict[tuple[str, bool], None] = {}
    for m in _PATH_SET.finditer(code):
        value = _word(text, m.end()).replace('"', "").replace("'", "")
        while (held := _OLD_PATH.sub("\0", value)) != value:
            value = held
        entries = value.split(":")
        for k, entry in enumerate(entries):
            if "\0" in entry and not entry.replace("\0", "") or not entry and k == 0 and m["append"]:
                continue  # PATH's own value; `PATH+=:/x` begins with a separator
            entry = entry.replace("\0", "").rstrip("/") or ("/" if entry.startswith("/") else entry)
            absolute = entry.startswith("/") and not re.search(r'[$`~*?\[]', entry)
            end = _tail(entry if absolute or _LITERAL.fullmatch(entry) else _TAIL.search(entry)) or ""
            found[end, absolute and bool(end)] = None
    return list(found)


def bare_words(text: str) -> list[str]:
    """Each name alone as a word in ``text`` but in a comment (``_BARE_WORD``: a command's, a `source`'s, an
    argument's; a file of that name in a folder on a PATH a file of the job set may be the one run), in order."""
    return list(dict.fromkeys(m.group() for m in _BARE_WORD.finditer(_uncommented(text))))


# The job's workspace (actions/checkout puts the checkout there): a path after it is read from the checkout's top
_WORKSPACE = re.compile(rf'\$(?:{WORKSPACE}|\{{{WORKSPACE}\}})(?=/)')
_WORKSPACE_NAMED = re.compile(rf"(?<!\w){WORKSPACE}(?!\w)")
# an expansion of it that only reads it: `$GITHUB_WORKSPACE`, `${GITHUB_WORKSPACE}`, `${GITHUB_WORKSPACE:-/x}`,
# `${GITHUB_WORKSPACE%/*}`, `${#GITHUB_WORKSPACE}` (not `${GITHUB_WORKSPACE:=/x}` nor `${GITHUB_WORKSPACE=/x}`, which
# set it)
_WORKSPACE_EXPANDED = re.compile(rf"\$(?:\{{[#!]?{WORKSPACE}(?![\w=]|:=)|{WORKSPACE}(?!\w))")


def moves_workspace(text: str) -> bool:
    """Whether ``text`` but its comments names ``WORKSPACE`` otherwise than expanding it to read it
    (`GITHUB_WORKSPACE=…`, `export GITHUB_WORKSPACE=…`, `${GITHUB_WORKSPACE:=…}`, `read GITHUB_WORKSPACE`; not
    `${GITHUB_WORKSPACE:-…}`, `# cd $GITHUB_WORKSPACE`): then, in it and in every file of the job (a file it sources,
    one it runs, one that sources it: the variable is the shell's and exported), it may be any folder. The one test of
    it (``identity.tail_files``)."""
    code = _uncommented(text)
    return len(_WORKSPACE_NAMED.findall(code)) > len(_WORKSPACE_EXPANDED.findall(code))


@dataclass
class Reading:
    """What ``reading`` finds in a text: each file sourced (an offset on the line bash gives its command, its
    place), each assignment (name, its place, where its value is), and each other path named (offset, its place)."""
    sourced: list[tuple[int, Place]] = field(default_factory=list)
    assigned: list[tuple[str, Place | None, int, int]] = field(default_factory=list)
    named: list[tuple[int, Place]] = field(default_factory=list)
    # the working folder at each path of ``named``, in the same order (None: only the run knows it): where a file run
    # by it starts
    named_sites: list[Place | None] = field(default_factory=list)
    # each file run by a path from the working folder (``_ran``): an offset, its place (TOP, or FOLDER)
    ran: list[tuple[int, Place]] = field(default_factory=list)
    # the working folder at each run of ``ran``, in the same order (None: only the run knows it): where the file starts,
    # as bash runs it there (``recipes.sourced_helpers`` reads its relative paths from there, as a file sourced there)
    ran_sites: list[Place | None] = field(default_factory=list)
    # each file run from the workspace (`bash "$GITHUB_WORKSPACE/x.sh"`, in ``ran`` from the top too): an offset, the
    # path after it (no `..`); where a file of the job moves the workspace (``moves_workspace``), any tracked file
    # ending so may be the one run (``recipes.ran_from_workspace``). Not ``ran_tails``, read whatever the job sets
    ran_from_workspace: list[tuple[int, str]] = field(default_factory=list)
    # each `source` whose file only the run knows (``_unseen``): an offset on its line, its word as written; and a file
    # run so (``_ran``: `bash "$D"` where D's value is lost), which are also in ``unseen_ran``
    unseen: list[tuple[int, str]] = field(default_factory=list)
    unseen_ran: list[tuple[int, str]] = field(default_factory=list)
    # where a file sourced may have set any variable (its code a computed writer, `export $(cat .env)`: the end of
    # its `source` word): a value set before is one only the run knows after (``_set_values``)
    set_anything: list[int] = field(default_factory=list)
    # each `source` of a path whose start only the run knows but whose end is written (``_tail``:
    # `"$VENV/bin/activate"`, `benchmarks/x.sh` after a `cd` to such a place): an offset on its line, that end (a
    # relative path, no `..`), and the variable its own word starts with when that word is the variable, unset in
    # the text, and then that end alone (`"$GITHUB_WORKSPACE/x/y.sh"`, `"${V}"/x/y.sh`: ``_start``), else ""
    tails: list[tuple[int, str, str]] = field(default_factory=list)
    # each `cd`/`pushd`/`popd`: its offset, the working folder after it, the end of the scope it holds for
    moved: list[tuple[int, Place | None, int]] = field(default_factory=list)
    # the working folder at each `source` of ``sourced``, in the same order (None: only the run knows it): where the
    # file sourced starts, as it runs in the same shell (``recipes.sourced_helpers``)
    sites: list[Place | None] = field(default_factory=list)
    # and at each `source` of ``tails``, in the same order
    tail_sites: list[Place | None] = field(default_factory=list)
    # the working folder where the text ends (where a file that sources it goes on from)
    end_cwd: Place | None = TOP_CWD
    # each file run (``ran``) by a path whose start only the run knows but whose end is written (`bash "$D/x.sh"`, D
    # none of the text's; `python3 x.py` after a `cd` only the run knows): an offset, that end (``_tail``); and the
    # working folder there, in the same order (where the file run starts)
    ran_tails: list[tuple[int, str, str]] = field(default_factory=list)
    ran_tail_sites: list[Place | None] = field(default_factory=list)
    # each variable the text may set (anywhere: in a function's body, by `read`, by a file it sources), and its value
    # where the text ends (None: only the run knows it): what a file that sources it goes on with (``reading``'s sets)
    left: dict[str, Place | None] = field(default_factory=dict)
    # each `for NAME in WORDS` loop: where its body begins and where it ends, its variable, its list's words as written
    # (``_looped``: where the variable stands in its body, each of them)
    loops: list[tuple[int, int, str, list[str]]] = field(default_factory=list)
    # each file sourced or run by a path with a glob (`for f in "$D"/*.sh; do source "$f"; done`): an offset, its place
    # with the glob in its names (TOP, FOLDER, or TAIL for one whose start only the run knows), and the working folder
    # there, in the same order (``_globbed``: every tracked file it matches, ``identity.tail_files``)
    globs: list[tuple[int, Place]] = field(default_factory=list)
    glob_sites: list[Place | None] = field(default_factory=list)
    # each file a word of a command names (``_argument_words``: `--config c.json`, `CFG=c.json cmd`), its place (TOP, or
    # FOLDER) as ``ran``'s, and its site (``ARGUMENT``) in the same order: data its program may open, where the
    # checkout has it (``recipes.argument_paths``)
    arguments: list[tuple[int, Place]] = field(default_factory=list)
    argument_sites: list[Place | None] = field(default_factory=list)
    # each file or folder a copy command copies (``_copy_sources``: `cp shared/x.sh /tmp/x.sh`, `cp -r shared "$T/s"`,
    # `tar cf - shared | …`), also in ``ran`` as data: its place, and the working folder at the copy, where a copy
    # of it may run (``recipes.helper_folders`` reads a script so, and each script of a folder)
    copied: list[tuple[int, Place]] = field(default_factory=list)
    copied_sites: list[Place | None] = field(default_factory=list)
    # the container the text runs in (``_Inside``: a command string's, `srun --container-mounts=… bash -c '…'`), whose
    # mounts say which file of the checkout a `source` of an absolute path there is (``_record``); None: this host
    inside: "_Inside | None" = None
    # each mount of a folder of the checkout a command of the text that starts a container writes (``_mounted``): its
    # target, and the folder's place (TOP, or FOLDER): a file that container runs may spell a file of that folder by
    # the target's names (s48e: `cat /workspace/bar/c.json` in the shared/x.sh a `-v "$PWD/shared:/workspace/bar"`
    # runs is shared/c.json; ``identity.tail_files`` maps a written end through each)
    mounted: list[tuple[str, Place]] = field(default_factory=list)


def reading(text: str, cwd: Place | None = TOP_CWD, moves: tuple[tuple[int, Place | None], ...] = (),
            sets: tuple[tuple[int, tuple[tuple[str, Place | None], ...]], ...] = (),
            absent: frozenset[Place] = frozenset()) -> Reading:
    """What ``text`` sources and names (``Reading``), read once; ``cwd``: the working folder at its start (a file
    sourced after a `cd` starts where the `cd` went: (TOP, that folder), None when only the run knows it); ``moves``:
    where a file it sources leaves the working folder (the `source`'s offset in ``Reading.sourced``, the folder after
    it: `source ./h.sh` where h.sh runs `cd sub` goes on in sub, as a sourced file runs in the same shell); ``sets``:
    the variables a file it sources may set, each with the value it leaves (the `source`'s offset in
    ``Reading.sourced`` or ``Reading.tails``, then (name, place) pairs, ``Reading.left``: `source env.sh` where env.sh
    sets `D=shared` goes on with D=shared); ``absent``: the folders the checkout holds no file in (places): a `cd` to
    one may fail (bash goes on where it was, unless `set -e`), or go to a folder the run made (`mkdir -p out; cd out`),
    so the working folder after it is either (``_either``: mostly one only the run knows)."""
    if is_data(cwd):
        return Reading()
    parts = shellcode.parts(text)
    start = {} if cwd == TOP_CWD else {_CWD: cwd}
    literals = _code_literals(text, parts) if "eval" in text else {}
    # (one a file it sources may set again is the run's to say)
    literals = {name: held for name, held in literals.items() if all(name != set_name for _, pairs in sets
                                                                      for set_name, _ in pairs)}
    read = _read(text, start, 0, False, dict(moves), parts, dict(sets), absent, literals=literals)
    read.named, read.named_sites = _named(text, read.assigned, read.moved, start)
    return read


def _read(text: str, variables: dict[str, Place | None], depth: int, positional: bool,
          moves: dict[int, Place | None] | None = None, parts: tuple | None = None,
          sets: dict[int, tuple] | None = None, absent: frozenset[Place] = frozenset(),
          inside: "_Inside | None" = None, lost: frozenset[str] = frozenset(),
          literals: "dict[str, tuple[str, int]] | None" = None) -> Reading:
    """The `source` commands of ``text`` (``variables`` in force at its start), and those of each command string it
    runs (``_command_strings``), ``depth`` of them deep. ``positional``: ``text`` is a `bash -c` string written in
    single quotes, where `$0` is the argument after it, not the script. ``parts``: ``shellcode.parts(text)``, when
    the caller has it. ``inside``: ``text`` is a command string run in a container (``_Inside``), its files run by an
    absolute path read as that container sees them. ``lost``: the variables an outer text set to a path that only the
    run knows at ``text``'s start (``_path_valued``, ``_ran_places``). ``literals``: the code the file sets variables
    to (``_code_literals``), which an `eval` of one of them alone runs."""
    read, shown, literals = Reading(inside=inside), text, literals or {}
    code, spans, literal = parts or shellcode.parts(text)
    if positional:  # `bash -c 'source "$0"' "$LIB"`: a place only the run knows (its length kept: the code's)
        text = _POSITIONAL_SELF.sub(lambda m: "$" + "_" * (len(m.group()) - 1), text)
    _commands(text, code, spans, read, variables, shown, moves or {}, sets or {}, absent, literals)
    _ran(text, code, read, variables or {}, literal, spans, inside, lost)
    _copied(text, code, spans, read, variables or {})
    read.mounted += _mounted(text, code, spans, read, variables or {})
    if depth < _STRING_DEPTH:
        aliased = [(value, offsets, False) for _, _, value, offsets in _aliases(text, code)] + _array_commands(
            text, code)
        strings = _command_strings(text, code) + _shell_heredocs(text, code, literal) + _fed_strings(text, code)
        for inner, offsets, quoted in strings + aliased:
            at_start = _in_force(read.assigned, offsets[0] if offsets else 0, variables)
            if _cwd_at(read.moved, offsets[0] if offsets else 0, variables) not in (TOP_CWD, (TOP, ".")) or any(
                    each is offsets for _, each, _ in aliased):  # (s51e: an alias runs where it is used)
                # after a `cd` the shell starts where it went, or where `srun`, `docker run -w` put it: only the
                # run knows (a relative path there is a written end, every tracked file ending so)
                at_start[_CWD] = None
            if (own := _string_inside(text, code, spans, offsets, read, variables)) and own.view.written:
                at_start[_CWD] = own.site  # run in a container: it starts where the container's options say
            if offsets and _SSH_COMMAND.search(*_command_view(code, spans, offsets[0])[1:]):
                at_start[_CWD] = None  # (s48e: another host's login shell, in its home: a folder only the run knows)
            gone = lost | {name for name in variables if name != _CWD and at_start.get(name) is None
                           and _path_valued(f"${name}", variables)}  # (after an `eval` in the outer text)
            # (a string run after the literal's assignment, that assigns the variable nowhere itself, sees it, where
            # its shell gets the variable: exported, through a command that hands it the environment, _hands_down)
            held = {name: (value, -1) for name, (value, end) in literals.items()
                    if end < (offsets[0] if offsets else 0) and not re.search(
                        rf'(?<![\w$./:-]){re.escape(name)}(?:\[[^]\n]*\])?\+?=', inner)
                    and _hands_down(text, code, spans, offsets, name)}
            sub = _read(inner, at_start, depth + 1, quoted, absent=absent, inside=own or inside, lost=frozenset(gone),
                        literals=held)
            _take_sub(read, sub, offsets)
    return read


# The commands that run a command string in a shell started with their own environment (``_hands_down``): a shell,
# and Slurm's, which export the whole environment unless told otherwise (`--export`)
_HANDING = frozenset(("bash", "sh", "dash", "zsh", "ksh", "srun", "salloc", "sbatch"))
# Words that start the string's shell without this one's environment, or with another (a container, another host,
# another user, `env -i`): with any of them in the command, a variable set here is not the string's
_NOT_HANDING = frozenset(("docker", "podman", "nerdctl", "ssh", "sudo", "su", "doas", "runuser", "env", "enroot",
                          "singularity", "apptainer", "chroot", "setpriv", "unshare", "nsenter", "systemd-run"))
_EXPORTED = (r'(?<![\w./-])(?:export|declare[ \t]+-\w*x\w*|typeset[ \t]+-\w*x\w*)(?:[ \t]+[^\s;&|()]+)*?'
             r'[ \t]+{}(?![\w[])')


def _hands_down(text: str, code: str, spans, offsets: list[int], name: str) -> bool:
    """Whether the shell that runs the command string at ``offsets`` gets the variable ``name`` this text sets (s48e,
    ``_code_literals``): exported (`export V='…'`, `export V`, `declare -x V`) before the string, and the string's
    command, as written, is a shell or Slurm's (``_HANDING``) with no word that starts it elsewhere or with another
    environment (``_NOT_HANDING``, an `--export` but `--export=ALL`). Otherwise (`docker run img bash -c '…'`, `ssh
    node '…'`, a variable not exported, a command the reading cannot tell) the string's `eval "$V"` runs what its own
    environment holds, code only the run knows."""
    at = offsets[0] if offsets else 0
    if not re.search(_EXPORTED.format(re.escape(name)), code[:at]):
        return False
    lo, view, begin = _command_view(code, spans, at)
    words = [word.replace('"', "").replace("'", "") for word in text[lo + begin:at].split()]
    words = [word for word in words if not _BEFORE_VALUE.match(word) or word.startswith("-")]  # (`V=x cmd`)
    if not words or posixpath.basename(words[0]) not in _HANDING:
        return False
    return not any(posixpath.basename(word) in _NOT_HANDING or word.startswith("--export") and word != "--export=ALL"
                   for word in words)


def _take_sub(read: Reading, sub: Reading, offsets: list[int]) -> None:
    """What the reading ``sub`` of a command string found, into ``read``: each finding's offset the string's own
    (``offsets``: where each of its characters is in the outer text), the sites as they are."""
    def outer(at: int) -> int:
        return offsets[min(at, len(offsets) - 1)]

    read.sourced += [(outer(at), place) for at, place in sub.sourced]
    read.sites += sub.sites
    read.tail_sites += sub.tail_sites
    read.unseen += [(outer(at), word) for at, word in sub.unseen]
    read.unseen_ran += [(outer(at), word) for at, word in sub.unseen_ran]
    read.tails += [(outer(at), rest, start) for at, rest, start in sub.tails]
    read.ran += [(outer(at), place) for at, place in sub.ran]
    read.ran_sites += sub.ran_sites
    read.ran_from_workspace += [(outer(at), rest)
                                for at, rest in sub.ran_from_workspace]
    read.ran_tails += [(outer(at), rest, begun) for at, rest, begun in sub.ran_tails]
    read.ran_tail_sites += sub.ran_tail_sites
    read.globs += [(outer(at), place) for at, place in sub.globs]
    read.glob_sites += sub.glob_sites
    read.arguments += [(outer(at), place) for at, place in sub.arguments]
    read.argument_sites += sub.argument_sites
    read.copied += [(outer(at), place) for at, place in sub.copied]
    read.copied_sites += sub.copied_sites
    read.mounted += [mount for mount in sub.mounted if mount not in read.mounted]


def _cwd_at(moved: list[tuple[int, Place | None, int]], at: int, variables: dict[str, Place | None]) -> Place | None:
    """The working folder at ``at`` of the text: where the last `cd` before it in a scope holding it
    (``Reading.moved``) went, else the one in force at the text's start (``variables``)."""
    held = [place for where, place, end in moved if where < at < end]
    return held[-1] if held else _cwd(variables)


def _in_force(assigned: list[tuple[str, Place | None, int, int]], at: int,
              variables: dict[str, Place | None]) -> dict[str, Place | None]:
    """``variables`` and the top-level assignments (``Reading.assigned``) whose word ended before ``at``."""
    out = dict(variables)
    out.update((name, place) for name, place, _, end in assigned if end <= at)
    return out


def _at_command_start(code, at: int) -> bool:
    """Whether a command may begin at ``code[at]`` (a string or a list of characters), after words that may expand
    to nothing and assignments (``_ALONE_AT_START``), looked back along its line at most ``_SPELLING_MAX``."""
    window = "".join(code[max(0, at - _SPELLING_MAX):at])
    return bool(_ALONE_AT_START.search(window[window.rfind("\n") + 1:]))


def _command_strings(text: str, code: str) -> list[tuple[str, list[int], bool]]:
    """Each command string ``text`` runs whose text is there to read: the word after `-c` of a shell (`bash -c
    "..."`, `sh -c '...'`, `srun ... /bin/bash -lc "..."`), the words of an `eval` whose first word is quoted
    (`eval "source X"`) and a `trap`'s quoted first word, the command it runs on a signal (`trap 'source X'
    EXIT`), found in the ``code`` (never in a comment or a string's text); each as the shell reads it (quotes
    removed, a `\\` in double quotes taken), the offset in ``text`` of each of its characters, and whether it is a
    shell's string all in single quotes (its `$0` is no script's)."""
    out = []
    for m in _STRING_COMMAND.finditer(code):
        if (m["eval"] or m["trap"]) and not _at_command_start(code, m.start()):
            continue  # `echo eval 'source x'`: an argument
        at = gap.end() if (gap := _BLANKS.match(text, m.end())) else m.end()
        at = _ssh_command_at(text, at) if m["ssh"] else at
        if (m["eval"] or m["trap"]) and not text.startswith(("'", '"', "$'"), at):
            continue
        if m["ssh"] and (at is None or not _quoted_later(text, at)):  # (`ssh node sudo 'bash x.sh'`: ssh joins the
            continue  # words, the remote shell reads them again; `ssh node bash x.sh`: ``_ran`` reads its words)
        words, ends = [], at
        while ends < len(text) and (word := _word(text, ends)):
            words.append((ends, word))
            ends += len(word)
            if not (m["eval"] or m["ssh"]) or not (gap := re.match(r"(?:[ \t]|\\\n)+", text[ends:])):
                break
            ends += gap.end()
        inner, offsets = [], []
        for k, (start, word) in enumerate(words):
            if k:
                inner.append(" ")
                offsets.append(start)
            _dequoted(word, start, inner, offsets)
        quoted = bool(m["shell"]) and len(words) == 1 and words[0][1].startswith("'")
        out.append(("".join(inner), offsets, quoted))
    return out


# An `alias` command's word (s51e): each of its words `NAME=VALUE` defines NAME, whose VALUE bash reads as code where
# a command begins with NAME (under `shopt -s expand_aliases`, which a file sourced may set: read wherever it is)
_ALIAS = re.compile(r'(?<![\w./-])alias(?=[ \t])')
_ALIAS_NAME = re.compile(r"[^\s=/$`'\"\\;&|()<>]+=")


def _aliases(text: str, code: str) -> list[tuple[str, int, str, list[int]]]:
    """Each alias ``text`` defines (``_ALIAS``, where a command begins in its ``code``): its name, where its definition
    ends, and its value as the shell reads it with the offset in ``text`` of each of its characters (``_dequoted``)."""
    out = []
    for m in _ALIAS.finditer(code):
        if not _at_command_start(code, m.start()):
            continue
        at = m.end()
        while (gap := re.match(r"(?:[ \t]|\\\n)+", text[at:])) and (word := _word(text, at + gap.end())):
            at += gap.end()
            if named := _ALIAS_NAME.match(word):
                inner: list[str] = []
                offsets: list[int] = []
                _dequoted(word[named.end():], at + named.end(), inner, offsets)
                out.append((named.group()[:-1], at + len(word), "".join(inner), offsets))
            at += len(word)
    return out


# An array assignment (s51e: `cmd=(./shared/x.sh --fast)`, `CMD+=(--x)`) and its elements as the word of a command
# (`"${cmd[@]}"`, after words that run their words, ``_WRAPPERS_BEFORE``: `timeout 60 "${cmd[@]}"`)
_ARRAY_ASSIGNMENT = re.compile(r'(?<![\w$./-])([A-Za-z_]\w*)\+?=\(')


def _array_commands(text: str, code: str) -> list[tuple[str, list[int], bool]]:
    """The words of each array assignment whose elements ``text`` runs as a command (``_ARRAY_ASSIGNMENT``), each
    as ``_command_strings`` gives a string (its line breaks blanks): the first element is the command's word, so a
    path there is a file run and an interpreter's script (`CMD=(python3 shared/x.py)`) one, as written out."""
    out = []
    for m in _ARRAY_ASSIGNMENT.finditer(text):
        if code[m.start():m.end() - 1] != text[m.start():m.end() - 1] or not _at_command_start(code, m.start()) and (
                not re.search(rf'{shellgrammar.DECLARATION}\Z', code[max(0, m.start() - 64):m.start()])):
            continue  # (in a comment or a string; an argument)
        run = re.compile(rf'"?\$\{{{re.escape(m[1])}\[[@*]\]\}}')
        if not any(_at_command_start(text, r.start()) or _WRAPPERS_BEFORE.search(
                text, max(0, r.start() - _SPELLING_MAX), r.start()) for r in run.finditer(text)):
            continue
        inner: list[str] = []
        offsets: list[int] = []
        at = m.end()
        while (gap := re.match(r"(?:\s|\\\n)*", text[at:])) and (word := _word(text, at + gap.end())):
            at += gap.end()
            if word.startswith(")"):
                break
            if word.startswith("#"):  # a comment, to its line's end
                at = text.find("\n", at) if "\n" in text[at:] else len(text)
                continue
            inner.append(" ")
            offsets.append(at)
            _dequoted(word, at, inner, offsets)
            at += len(word)
        out.append(("".join(inner[1:]), offsets[1:], False))
    return out


def _quoted_later(text: str, at: int) -> bool:
    """Whether a word of the command at ``at`` (up to its end, ``_word`` by ``_word``) holds a quote."""
    while at < len(text) and (word := _word(text, at)):
        if "'" in word or '"' in word:
            return True
        at += len(word)
        if not (gap := re.match(r"(?:[ \t]|\\\n)+", text[at:])):
            return False
        at += gap.end()
    return False


def _ssh_command_at(text: str, at: int) -> int | None:
    """Where the command an `ssh` whose options start at ``at`` gives the remote host begins: after its options (and
    the values ``_SSH_VALUED`` take, attached or the next word), before and after the host, up to a `--`; None where
    the line ends before one."""
    host, ended = False, False
    while at < len(text) and (word := _word(text, at)):
        bare = word.replace('"', "").replace("'", "")
        if (host and ended) or (host and not bare.startswith("-")):
            return at
        if bare == "--" and not ended:
            ended = True
        elif bare.startswith("-") and not ended:
            valued = next((i for i, c in enumerate(bare[1:], 1) if c in _SSH_VALUED), None)
            if valued == len(bare) - 1:  # its value is the next word
                at += len(word)
                if not (gap := re.match(r"(?:[ \t]|\\\n)+", text[at:])):
                    return None
                at += gap.end()
                word = _word(text, at) or ""
        else:
            host = True
        at += len(word)
        if not (gap := re.match(r"(?:[ \t]|\\\n)+", text[at:])):
            return None
        at += gap.end()
    return None


def _shell_heredocs(text: str, code: str, literal: list[tuple[int, int]]) -> list[tuple[str, list[int], bool]]:
    """The body of each heredoc given to a shell to run (`bash <<'EOF'`, `bash -s <<EOF`, `cat <<EOF | bash`: a line of
    the code with a `<<` and a shell's word), up to its terminator's line; each as ``_command_strings`` gives a string."""
    bodies = {lo: hi for lo, hi in literal}
    out = []
    for m in _SHELL_HEREDOC.finditer(code):
        lo = code.find("\n", m.end()) + 1
        if lo and (hi := bodies.get(lo)) is not None:
            inner = text[lo:hi]
            inner = inner[:inner.rfind("\n") + 1]  # the terminator's line is no code
            out.append((inner, list(range(lo, lo + len(inner))), False))
    return out


def _fed_strings(text: str, code: str) -> list[tuple[str, list[int], bool]]:
    """The text a shell reads on its standard input from the script's words: a here-string (`bash <<< "source X"`)
    and the words an `echo` or `printf` pipes into it (`echo "source X" | bash`), each as ``_command_strings``
    gives a string."""
    out = []
    for m in _SHELL_FED.finditer(code):
        if m["feed"]:
            at, end = m.start("words"), m.end("words")
        else:
            at = gap.end() if (gap := _BLANKS.match(text, m.end())) else m.end()
            end = at + len(_word(text, at))
        inner, offsets = [], []
        while (gap := re.compile(r"[ \t]*").match(text, at)) and gap.end() < end and (word := _word(text, gap.end())):
            if inner:  # `printf` prints its arguments as its format says: each on a line of its own, read so
                inner.append("\n" if m["feed"] == "printf" else " ")
                offsets.append(gap.end())
            _dequoted(word, gap.end(), inner, offsets)
            at = gap.end() + len(word)
        out.append(("".join(inner), offsets, False))
    return out


def _dequoted(word: str, start: int, inner: list[str], offsets: list[int]) -> None:
    """Add the characters of the shell ``word`` (at ``start`` of the text) to ``inner`` as the shell passes them on,
    each with its offset: quotes removed, in double quotes a `\\` before `$`, `` ` ``, `"`, `\\` taken, and
    unquoted one before any character."""
    i, quote = 0, ""
    while i < len(word):
        c = word[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                inner.append(c)
                offsets.append(start + i)
            i += 1
            continue
        if c == "\\" and i + 1 < len(word) and (not quote or word[i + 1] in '$`"\\\n'):
            if word[i + 1] != "\n":
                inner.append(word[i + 1])
                offsets.append(start + i + 1)
            i += 2
            continue
        if c == '"' or c == "'" and not quote:
            quote = "" if quote == c else c
        elif not quote and word.startswith("$'", i):
            quote = "'"
            i += 1
        else:
            inner.append(c)
            offsets.append(start + i)
        i += 1


def _unseen(word: str, substituted: bool) -> str | None:
    """The `source` word that ``_place`` found no place for (a process substitution, `<(...)`, when ``substituted``),
    as said, when it is a file of the run the reading cannot see: a process substitution, standard input
    (`/dev/stdin`, `/dev/fd/N`), or a place only the run knows (a variable from the environment, an argument, another
    command's output), or a path under the home folder (`~/ws/x.sh`, `$HOME/ws/x.sh`: s48i, the checkout may lie
    there); None for one outside the checkout (an absolute path with an expansion in it: the image's or the runner's,
    no file of the repository; one written out is a written end, ``_absolute_tail``)."""
    if substituted:
        return "<(...)"
    bare = word.replace('"', "").replace("'", "")
    if not bare:
        return None
    if bare.startswith(_STANDARD_INPUT) or not _OUTSIDE.match(bare):
        return word if len(word) <= _SHOWN_MAX else word[:_SHOWN_MAX - 3] + "..."
    return None


def _commands(text: str, code: str, spans: list[tuple[int, int]], read: Reading,
              variables: dict[str, Place | None] | None = None, shown: str | None = None,
              moves: dict[int, Place | None] | None = None, sets: dict[int, tuple] | None = None,
              absent: frozenset[Place] = frozenset(), literals: "dict[str, tuple[str, int]] | None" = None) -> None:
    """Read the commands of ``text`` (found in its ``code``) into ``read``. What a command substitution
    (``spans``) assigns stays inside it, and an assignment's value is in force from the end of its word. ``shown``:
    the text as written, where ``text`` stands for it (of the same length), for a word said; ``moves``, ``sets``,
    ``absent``: ``reading``'s."""
    shown, moves, sets = text if shown is None else shown, moves or {}, sets or {}
    flow = _Flow(text, code, spans, read, list(moves), sets, literals)
    read.loops = _loop_lists(text, code, flow.found)
    code, empty = _empty_words(text, code, spans)
    scopes = [_Scope(len(text) + 1, dict(variables or {}), [], began=_cwd(variables or {}))]
    # chain: where an assignment's word ends (another, or a `source` unless `declared` by `local`, ..., may follow);
    # lead: where the first assignment's word of the chain ends
    at, chain, declared, spanned, lead = 0, -1, False, 0, 0
    while True:
        # within an assignment's word first (its substitutions), then what follows the word, then the rest: a
        # search past the word each time made `A=1 A=1 ... source x` (one line, no command start) quadratic
        m = _COMMAND.search(code, at, chain) if chain >= 0 else None
        if chain >= 0 and m is None:
            if (n := _NEXT.match(code, chain)) and (n["name"] or not declared):
                m = n
            chain = -1
        if m is None and (m := _COMMAND.search(code, at)) is None:
            break
        spanned = flow.enter(scopes, spanned, m)
        at = m.end()
        if m.re is _COMMAND and (_after_a_blanked_word(text, code, m) or m.start() in empty and not m["source"]):
            continue
        if m["source"]:  # the blanks matched after it may be a quote blanked in the code (`source"x"` is none)
            if not (gap := _BLANKS.match(text, m.end("source"))):
                continue
            at = gap.end()
        if m.re is _COMMAND and m["cd"]:
            scopes[-1].cwd = _arrived(scopes[-1].cwd, _moved(text, m.end("cd"), m["cd"], scopes[-1]), absent)
            read.moved.append((m.start("cd"), scopes[-1].cwd, scopes[-1].end))
            continue
        word = _word(text, at)
        followed = word.count("$(") <= _DEPTH
        place = _place(word.replace('"', "").replace("'", ""), scopes[-1].variables) if followed else None
        if m["name"]:
            _assignment(read, scopes, m, at, word, place)
            chain = at + len(word)
            declared, lead = (declared, lead) if m.re is _NEXT else (bool(m["declare"]), chain)
        else:
            said_at = lead - 1 if m.re is _NEXT else _said_at(text, code, m, at + len(word))
            _each_record(read, shown[at:at + len(word)], shown[at:at + 2] == "<(", (at, said_at), place, scopes[-1])
            _after_source(read, scopes, at + len(word), moves.get(said_at, ()), sets.get(said_at, ()), absent)
    _ended(read, scopes, flow, spanned, len(text))


def _ended(read: Reading, scopes: list[_Scope], flow: _Flow, spanned: int, end: int) -> None:
    """Where the text (of length ``end``) ends (``_commands``): the regions and assignments still pending applied (where
    a command string or a path named after the last command stands), its working folder and the values it leaves
    (``Reading.end_cwd``, ``Reading.left``)."""
    _enter(scopes, flow.spans, flow.until(scopes, spanned, end + 1), end)
    read.end_cwd = scopes[0].cwd
    read.left = {name: scopes[0].variables.get(name) for name in sorted(flow.sets.by_name) if name != _CWD}


def _after_source(read: Reading, scopes: list[_Scope], end: int, moved: "Place | None | tuple",
                  values: tuple[tuple[str, Place | None], ...], absent: frozenset[Place]) -> None:
    """What the file a `source` (its word ending at ``end``) reads leaves, as it runs in the same shell: the working
    folder it moved to (``moved``, ``reading``'s moves; () when it moves none: as a `cd` here) and the variables it
    set (``values``, ``reading``'s sets: as assignments here)."""
    if moved != ():
        scopes[-1].cwd = _arrived(scopes[-1].cwd, moved, absent)
        read.moved.append((end, scopes[-1].cwd, scopes[-1].end))
    for name, value in values:
        if name == _ANY:  # a computed writer in it (`export $(cat .env)`): every variable known here, unknown now
            read.set_anything.append(end)
            for each in sorted(_every({_ANY}, {k: v for scope in scopes for k, v in scope.variables.items()})):
                _set(scopes[-1], scopes, read, end, each, None)
        else:
            _set(scopes[-1], scopes, read, end, name, value)


def _arrived(cwd: Place | None, went: Place | None, absent: frozenset[Place]) -> Place | None:
    """The working folder after a `cd` from ``cwd`` to ``went``: ``went``, or either (``_either``) when the checkout
    does not hold it (``reading``'s absent: the `cd` may fail, and bash goes on where it was)."""
    return _either(cwd, went) if went in absent else went


def _assignment(read: Reading, scopes: list[_Scope], m: re.Match, at: int, word: str, place: Place | None) -> None:
    """An assignment (``_commands``) of ``m``'s variable to ``word`` at ``at`` (``place``: where it points): pending in
    the scope until its word ends, and noted in ``read`` at the text's own level."""
    if place is None and not m["element"] and not _set_before(scopes[-1], m["name"]):
        place = _tail_place(word)
    place = None if m["element"] else _relative_value(word, place)
    scopes[-1].pending.append((at + len(word), m["name"], place))
    if len(scopes) == 1:
        read.assigned.append((m["name"], place, at, at + len(word)))


class _Flow:
    """The regions of a text's code (``shellflow``: a condition, a loop, a function), met in order as ``_commands``
    reads its commands (``_flowed``)."""

    def __init__(self, text: str, code: str, spans: list[tuple[int, int]], read: Reading, moving: list[int] = (),
                 setting: dict[int, tuple] | None = None, literals: "dict[str, tuple[str, int]] | None" = None):
        writes = _writes(text, code, literals=literals)
        # a `source` of a file that moves the working folder (``reading``'s moves) may set it, as a `cd` there does, and
        # one of a file that sets variables (``reading``'s sets) may set those
        self.found = found = shellflow.regions(code, spans)
        sourcing = [(at, frozenset(name for name, _ in pairs)) for at, pairs in (setting or {}).items() if pairs]
        self.sets = _Sets(code, sorted(writes + [(at, frozenset([_CWD])) for at in moving] + sourcing,
                                       key=lambda w: w[0]))
        calls = [(m.start(), shellflow.CALL, r) for r in found if r.kind == shellflow.FUNCTION and r.name
                 and self.sets.within(r.start, r.end)
                 for m in re.compile(rf'(?<![\w./$-]){re.escape(r.name)}(?![\w./-])').finditer(code, r.end, r.reach)]
        # taken from its end, in order
        calls += [(at, shellflow.WRITE, names) for at, names in writes]
        self.events = sorted(shellflow.events(found) + calls, key=lambda e: e[0], reverse=True)
        self.spans, self.read = spans, read

    def until(self, scopes: list[_Scope], spanned: int, end: int) -> int:
        """Apply those before ``end``; the next ``spanned`` (``_enter``)."""
        while self.events and self.events[-1][0] < end:
            spanned = _flowed(scopes, self.spans, spanned, self.events.pop(), self.sets, self.read)
        return spanned

    def enter(self, scopes: list[_Scope], spanned: int, m: re.Match) -> int:
        """Apply those met before the command ``m`` (a keyword, an operator before it, its own word), then ``_enter``
        its place."""
        return _enter(scopes, self.spans, self.until(scopes, spanned, m.end()), m.start())


# What a loop's body or a function's may set, read over: a word that assigns (`X=`, `x[1]=`, `X+=`, `local X=`; an
# argument's `a=b` too) and a `cd`, `pushd`, `popd` word
_ASSIGNS = re.compile(r'(?<![\w$./:-])([A-Za-z_]\w*)(?:\[[^]\n]*\])?\+?=')
_MOVES = re.compile(r'(?<![\w./-])(?:cd|pushd|popd)(?![\w./-])')
_ABSENT = ("", "")  # a variable not set (the checkout's top for the working folder)


def _flowed(scopes: list[_Scope], spans: list[tuple[int, int]], spanned: int,
            event: tuple[int, str, shellflow.Region], sets: _Sets, read: Reading) -> int:
    """Apply a region's start, branch or end (``shellflow``) to the scope in force at it: what a `cd` or an assignment
    in a region made holds in it, and after its end (or at its next branch) each variable it changed, the working
    folder too, is either value (``_either``): the one before it or the one it made, as the run may not run it. A
    loop's body may run again, and a function's from wherever it is called: at their start, each variable set in
    them (or in the rest of the text, for a function) is one only the run knows, and so is the working folder when
    a `cd` stands there; after a function's body, what it did not change is as before it. The next ``spanned``
    (``_enter``)."""
    at, what, region = event
    spanned = _enter(scopes, spans, spanned, at)
    scope = scopes[-1]
    if what == shellflow.CALL:  # a function called (or named: `trap f EXIT`): what its body may set, it may have
        for name in _every(sets.within(region.start, region.end), scope.variables):
            if _value(scope.variables, name) is not None:
                _set(scope, scopes, read, at, name, None)
        return spanned
    if what == shellflow.WRITE:  # `read X`, `printf -v X`, `${X:=…}`, `eval "X=…"`: a value only the run knows
        for name in _every(region, scope.variables):
            if name in scope.variables or name == _CWD and _cwd(scope.variables) is not None:
                _set(scope, scopes, read, at, name, None)
        return spanned
    if what == shellflow.START:
        _begun(scope, scopes, read, at, region, sets)
        return spanned
    if (held := scope.regions.get(id(region))) is None:
        return spanned  # begun in a scope that ended (an unclosed list in a `$( )`)
    before, entered, touched = held
    if at in region.instead:  # `else`, `elif`: as after the last condition, the branch before not run (``_instead``)
        _instead(scope, scopes, read, at, region)
        return spanned
    if at in region.failing:
        touched |= _failed(scope, scopes, read, at, region, sets)
    for name in set(before) | set(entered) | set(scope.variables) | touched:
        now, then = _value(scope.variables, name), _value(before, name)
        if now != _value(entered, name) or name in touched:
            value = _either(then, now)
        elif what == shellflow.END:
            value = then
        else:
            continue
        if value != now:
            _set(scope, scopes, read, at, name, value)
    if region.instead:
        _branched(scope, scopes, read, at, what, region)
    if what == shellflow.END:
        del scope.regions[id(region)]
    return spanned


def _branched(scope: _Scope, scopes: list[_Scope], read: Reading, at: int, what: str, region: shellflow.Region) -> None:
    """An `if` with an `else` or `elif` (``_instead``) at a `then`: what the branch after the next `else` goes on from;
    at its `fi`: either where it is or where a branch before ended."""
    if what == shellflow.BRANCH:
        scope.alternatives[id(region)] = (dict(scope.variables), scope.alternatives.get(id(region), ({}, []))[1])
        return
    for ended in scope.alternatives.pop(id(region), ({}, []))[1]:
        for name in set(ended) | set(scope.variables) | {_CWD}:
            if (value := _either(_value(scope.variables, name), _value(ended, name))) != _value(scope.variables, name):
                _set(scope, scopes, read, at, name, value)


def _instead(scope: _Scope, scopes: list[_Scope], read: Reading, at: int, region: shellflow.Region) -> None:
    """An `if`'s `else` or `elif` (``_flowed``): the branch before it ran only when its condition held, so the run goes
    on here as it was after that condition (`if …; then cd a; else bash x.sh; fi` runs x.sh where the `if` began);
    where that branch ended is kept for the `fi`, after which either holds."""
    after, ended = scope.alternatives.get(id(region), (None, []))
    if after is None:  # no condition read (a `then` in a scope that ended): either, as before
        after = {name: _either(_value(scope.regions[id(region)][0], name), _value(scope.variables, name))
                 for name in set(scope.variables) | set(scope.regions[id(region)][0]) | {_CWD}}
        after = {name: value for name, value in after.items() if value != _ABSENT}
    ended.append(dict(scope.variables))
    scope.alternatives[id(region)] = (after, ended)
    for name in set(after) | set(scope.variables) | {_CWD}:
        if (value := _value(after, name)) != _value(scope.variables, name):
            _set(scope, scopes, read, at, name, value)


def _begun(scope: _Scope, scopes: list[_Scope], read: Reading, at: int, region: shellflow.Region, sets: _Sets) -> None:
    """A region's start (``_flowed``): what it is entered with kept; a loop's, or a function's, forgets what it (or the
    rest of the text, for a function) may set."""
    before, touched = dict(scope.variables), set()
    if at in region.failing:
        touched = _failed(scope, scopes, read, at, region, sets)
    if region.kind != shellflow.JOIN:
        touched = _every(sets.within(region.start, region.end), scope.variables) | {region.variable} - {""}
        reach = touched if region.kind == shellflow.LOOP else {
            name for name in [*scope.variables, _CWD] if sets.sets(name, region.start, region.reach)}
        for name in reach:
            if name == _CWD and _cwd(scope.variables) is not None or name != _CWD and name in scope.variables:
                _set(scope, scopes, read, at, name, None if name == _CWD else _ABSENT)
    scope.regions[id(region)] = (before, dict(scope.variables), touched)


def _failed(scope: _Scope, scopes: list[_Scope], read: Reading, at: int, region: shellflow.Region, sets: _Sets
            ) -> set[str]:
    """At a `||` of a list (``region``): the commands before it may have failed before setting what they set, so each
    variable (or the working folder) they may set that the commands after it set again is one only the run knows
    there (`cd a || cd b`: `cd b` runs from where `cd a` failed to leave, not from a); those names, for the region's
    end to take either value (``_flowed``). A `cd` before it that the commands after it leave alone may have failed
    too, and they run only when something before failed: there the working folder is either the one before the list
    or the one the `cd` left (``_either``; `cd a || bash x.sh` runs x.sh from the top, `cd a && false || bash x.sh`
    from a), as an `if`'s `else` is read; after the list it is the `cd`'s, as before (`cd a || exit`)."""
    dropped = set()
    for name in _every(sets.within(region.lead, at), scope.variables):
        if sets.sets(name, at, region.end) and (name in scope.variables or name == _CWD):
            _set(scope, scopes, read, at, name, None)
            dropped.add(name)
    if _CWD not in dropped and sets.sets(_CWD, region.lead, at):
        held = [place for where, place, end in read.moved if where < region.lead < end]
        if (either := _either(held[-1] if held else scope.began, scope.cwd)) != scope.cwd:
            _set(scope, scopes, read, at, _CWD, either)
    return dropped


def _set(scope: _Scope, scopes: list[_Scope], read: Reading, at: int, name: str, value: "Place | None") -> None:
    """Make ``name`` (the working folder for ``_CWD``) ``value`` in ``scope`` (``_ABSENT``: not set), noted (``_noted``)."""
    if value == _ABSENT:
        scope.variables.pop(name, None)
    else:
        scope.variables[name] = value
    _noted(scope, scopes, read, at, name, None if value == _ABSENT else value)


class _Sets:
    """Where a text's code may set each variable (``_ASSIGNS``) or the working folder (``_CWD``: ``_MOVES``), found
    once."""

    def __init__(self, code: str, writes: list[tuple[int, frozenset[str]]] = ()):
        self.found = [(m.start(), m[1]) for m in _ASSIGNS.finditer(code)]
        self.found += [(m.start(), _CWD) for m in _MOVES.finditer(code)]
        self.found += [(at, name) for at, names in writes for name in names]
        self.found.sort()
        self.offsets = [at for at, _ in self.found]
        self.by_name: dict[str, list[int]] = {}
        for at, name in self.found:
            self.by_name.setdefault(name, []).append(at)

    def within(self, start: int, end: int) -> set[str]:
        """What ``code[start:end]`` may set."""
        return {name for _, name in self.found[bisect.bisect_left(self.offsets, start):
                                               bisect.bisect_left(self.offsets, end)]}

    def sets(self, name: str, start: int, end: int) -> bool:
        """Whether ``code[start:end]`` may set ``name`` (a variable: by its name, or as any, ``_ANY``)."""
        for one in (name, _ANY) if name != _CWD else (name,):
            offsets = self.by_name.get(one, [])
            k = bisect.bisect_left(offsets, start)
            if k < len(offsets) and offsets[k] < end:
                return True
        return False


def _every(names: set[str] | frozenset[str], variables: dict[str, Place | None]) -> set[str]:
    """``names`` with any variable (``_ANY``) taken for each of ``variables`` (the working folder not among them)."""
    if _ANY not in names:
        return set(names)
    return set(names) - {_ANY} | {name for name in variables if name != _CWD}


# A command that sets variables named as its arguments, no assignment's word (after words that may be empty and
# assignments: `IFS= read -r X`): `read`, `mapfile`/`readarray`, `getopts` (its second word), `printf -v X`; a
# declaration (`declare`, `typeset`, `local`, `readonly`, `export`: each word's name up to its `=`, unknown there;
# the assignment ``_commands`` reads in it then sets it, which for a quoted one, `declare "X=…"`, it cannot);
# and `eval`, whose words are code. A name only the run knows (`read -r "$N"`, `printf -v "$1"`, `declare "$k=$v"`,
# `export $(grep … .env | xargs)`) may be any variable's (``_ANY``)
_DECLARATIONS = ("local", "declare", "typeset", "readonly", "export")
_WRITER = re.compile(_MAY_BEGIN.pattern + r'(?:(?:builtin|command)[ \t]+)?'
                     rf'(?P<writer>read|mapfile|readarray|getopts|printf|eval|{"|".join(_DECLARATIONS)})(?=[ \t])',
                     re.MULTILINE)
# the options of a writer that take the next word as their argument (no name it sets)
_OPTION_ARGUMENTS = {"read": "dinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc"}
# `${X:=…}`, `${X=…}`: X set where it is unset (or empty), wherever it is expanded
_DEFAULTED = re.compile(r'\$\{([A-Za-z_]\w*):?=')
_NAME_WORD = re.compile(r'([A-Za-z_]\w*)(?:\[[^]]*\])?\+?')
# Any variable (``_writes``): a name no variable has, for a command that may set whichever the run names, or run code
# only the run knows (`eval "$(cat env)"`, `eval "$CMD"`: the working folder too)
_ANY = " any"
# Where a command's own word stands in the code, after where a command begins (its assignments follow, ``_computed``)
_COMMAND_WORD = re.compile(shellgrammar.COMMAND_START, re.MULTILINE)
_BLANK = re.compile(r"[ \t]+")
_PREFIX = re.compile(r"[ \t]+[A-Za-z_./]")  # the command's word written out after an expansion's word


def _writes(text: str, code: str, depth: int = 0, literals: "dict[str, tuple[str, int]] | None" = None
            ) -> list[tuple[int, frozenset[str]]]:
    """Where ``text`` (its ``code``) sets variables without an assignment's word (``_WRITER``, ``_DEFAULTED``), and the
    names each may set (``_CWD`` for an `eval` whose words `cd`; ``_ANY`` for one whose names only the run knows, and
    for a write through a nameref, `declare -n R=X; R=…`, whose variable it cannot tell), in order: there each is one
    only the run knows (``_flowed``), so a `source "$X"` after `X=a.sh; read -r X` never reads a.sh for it. An `eval`
    of a variable alone that ``literals`` holds (``_code_literals``, set before it) runs that code: what it sets."""
    found = [(m.start(), frozenset([m[1]])) for m in _DEFAULTED.finditer(text)]
    refs, declaring, own = set(), set(), set()  # the namerefs, where their declarations and declaring words stand
    for m in _WRITER.finditer(code):
        writer, raw, starts, at = m["writer"], [], [], m.end("writer")
        while (gap := _BLANKS.match(text, at)) and (word := _writer_word(text, gap.end())):
            raw.append(word)
            starts.append(gap.end())
            at = gap.end() + len(word)
        if writer == "eval":
            inner: list[str] = []
            for word in raw:
                _dequoted(word, 0, inner, [])
                inner.append(" ")
            body = "".join(inner)
            if (lone := _LONE_EXPANSION.fullmatch(body.strip())) and (held := (literals or {}).get(
                    lone[1] or lone[2])) and held[1] < m.start():
                body = held[0]  # s47f: `eval "$DOCKER_CMD_DETECT"`, the code set to it before
            names = {a[1] for a in _ASSIGNS.finditer(body)} | {_CWD for _ in _MOVES.finditer(body)}
            names |= _computed(body)
            if depth < _STRING_DEPTH:
                names |= {name for _, more in _writes(body, shellcode.code(body)[0], depth + 1) for name in more}
        else:
            options = "".join(word[1:] for word in raw if word.startswith("-") and word != "--")
            if writer in _DECLARATIONS and set(options) & set("pfF"):
                continue  # `declare -p X`, `export -f f`: prints, or a function's attribute
            names = {name for word in _named_words(writer, raw) if (name := _set_name(word, writer in _DECLARATIONS))}
            if writer in ("declare", "typeset", "local") and "n" in options:
                refs |= names - {_ANY}
                declaring.add(m.start("writer"))
                own.update(starts)
        if names:
            found.append((m.start("writer"), frozenset(names)))
    if refs:  # what is assigned through a nameref is its variable's: any, as the run may point it anywhere
        found = [(at, names | {_ANY} if names & refs and at not in declaring else names) for at, names in found]
        found += [(a.start(), frozenset([_ANY])) for a in _ASSIGNS.finditer(code) if a[1] in refs
                  and a.start() not in own]
    return sorted(found, key=lambda f: f[0])


# An `eval`'s words that are a variable alone (`"$DOCKER_CMD_DETECT"`, `${V}`): the code it holds is what runs
_LONE_EXPANSION = re.compile(r'\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))')
# An assignment where a command begins, plain or exported (`V='…'`, `export V="…"`), its word quoted whole
_CODE_ASSIGNMENT = re.compile(r'(?m)(?:^|(?<=[;&|({]))[ \t]*(?:export[ \t]+)?([A-Za-z_]\w*)=')
# what may follow such an assignment's word for the shell itself to hold it (``_code_literals``): the command's end,
# not a command's word it would be the prefix of (`V='…' true`), a pipe or a `&` (a subshell's), a line continued
_SHELL_S_OWN = re.compile(r'[ \t]*(?:$|\n|;(?!;)|&&|\|\||#)', re.MULTILINE)
# an `unset` and the words after it (``_code_literals``: a name among them is no code the eval's shell holds)
_UNSET = re.compile(r'(?<![\w./-])unset((?:[ \t]+[^\s;&|)]+)+)')


def _code_literals(text: str, parts: tuple) -> dict[str, tuple[str, int]]:
    """The code a file sets variables to, known before the run (s47f: InferenceX's job.slurm sets
    `DOCKER_CMD_DETECT='if docker ps …; then DOCKER_CMD=docker; else DOCKER_CMD="sudo docker"; fi'` and runs `eval
    "$DOCKER_CMD_DETECT"` in each node's shell): each variable ``text`` assigns once, outside any condition, loop or
    function (``shellflow.regions``), to a word quoted whole with no expansion in it, and that no command sets
    otherwise (``_writes``: `read V`, an `eval` of code only the run knows); its value, and where its assignment
    ends. An `eval` of it alone after that runs this code (``_writes``), no longer code only the run knows."""
    code, spans, _ = parts
    regions = shellflow.regions(code, spans)
    counts = collections.Counter(m[1] for m in _ASSIGNS.finditer(code))
    unset = {name.strip("'\"") for m in _UNSET.finditer(text) for name in m[1].split()}
    if any(re.search(r"[$`*?[]", name) for name in unset):  # `unset "$N"`: whichever the run names
        return {}
    found: dict[str, tuple[str, int]] = {}
    own: set[tuple[int, str]] = set()  # (an `export V='…'` is a declaration's write of V too: its own)
    for m in _CODE_ASSIGNMENT.finditer(code):
        word, name = _word(text, m.end()), m[1]  # (the code's quotes are blank: the text says)
        value = word[1:-1] if len(word) > 1 and word[0] == word[-1] and word[0] in "'\"" else None
        if value is None or counts[name] != 1 or word[0] == '"' and re.search(r'[$`\\"]', value) or "'" in value \
                and word[0] == "'" or any(r.start <= m.start() < r.end for r in regions) or name in unset \
                or not _SHELL_S_OWN.match(code, m.end() + len(word)) or any(a <= m.start() <= b for a, b in spans):
            continue  # (s47l: not in a subshell, not a command's prefix, never unset: the eval's shell holds it)
        found[name] = (value, m.end() + len(word))
        own.add((m.start() + len(m[0]) - len(m[0].lstrip()), name))
    for _ in range(2):  # (an `eval` of one may set another: read again with what is left)
        written = {name for at, names in _writes(text, code, literals=found) for name in names if (at, name) not in own}
        if _ANY in written:
            return {}
        found = {name: held for name, held in found.items() if name not in written}
    return found


def _writer_word(text: str, i: int) -> str:
    """The word at ``text[i]`` (``_word``), or a command substitution in backticks there (`eval `cat env``)."""
    if text.startswith("`", i):
        end = text.find("`", i + 1)
        return text[i:end + 1] if end > 0 else text[i:]
    return _word(text, i)


def _named_words(writer: str, words: list[str]) -> list[str]:
    """The words of a ``writer`` command (``_writes``) that name what it sets: `printf`'s after `-v`, `getopts`'s
    second, and every other word but an option and its argument (`read -r -u "$FD" line`: `line`)."""
    if writer == "printf":
        return [name for k, word in enumerate(words) if word.startswith("-v")
                for name in (words[k + 1:k + 2] if word == "-v" else [word[2:]])]
    if writer == "getopts":
        return words[1:2]
    named, argument, options = [], False, _OPTION_ARGUMENTS.get(writer, "")
    for k, word in enumerate(words):
        if argument:
            argument = False
        elif word.startswith("-") and len(word) > 1 and "--" not in words[:k]:
            argument = word[-1] in options
        else:
            named.append(word)
    return named


def _set_name(word: str, declaring: bool) -> str | None:
    """The variable a writer's ``word`` sets (``_named_words``): its name as written (a declaration's up to its `=`,
    quotes taken), ``_ANY`` when an expansion makes it (`"$N"`, `"$k=$v"`, `$(…)`), else None (`%s`, `5`)."""
    head = word.split("=", 1)[0] if declaring else word
    if re.search(r'[$`]', head.split("[", 1)[0]):
        return _ANY
    name = _NAME_WORD.fullmatch(head.replace('"', "").replace("'", "").replace("\\", ""))
    return name[1] if name and (not declaring or "=" in word) else None


def _computed(text: str) -> set[str]:
    """What the code ``text`` (an `eval`'s) may set when it runs a command whose own word only the run knows (`$CMD`,
    `"$(cat env)"`, `$1=x`: after its assignments, a word that begins with an expansion): any variable, and the
    working folder (``_CWD``) unless that word stands alone before a command's word written out, where it is read as
    one that may be empty (`eval $S source x`, ``_MAYBE_EMPTY``)."""
    code, names = shellcode.code(text)[0], set()
    for m in _COMMAND_WORD.finditer(code):
        at = m.end()
        while at > m.start() and code[at - 1] == " " and text[at - 1] not in " \t":
            at -= 1  # a quoted word, blank in the code
        while (a := shellgrammar.ASSIGNMENT.match(text, at)) and (gap := _BLANK.match(
                text, a.end() + len(_word(text, a.end())))):
            at = gap.end()
        if text.startswith(("$", '"$', "`", '"`'), at):
            names |= {_ANY} if _PREFIX.match(text, at + len(_word(text, at))) else {_ANY, _CWD}
    return names


def _value(variables: dict[str, Place | None], name: str) -> "Place | None":
    return _cwd(variables) if name == _CWD else variables.get(name, _ABSENT)


def _noted(scope: _Scope, scopes: list[_Scope], read: Reading, at: int, name: str, place: Place | None) -> None:
    """Note in ``read`` that ``name`` (the working folder for ``_CWD``) became ``place`` at ``at`` (``Reading.moved``,
    and ``Reading.assigned`` at the text's own level)."""
    if name == _CWD:
        read.moved.append((at, place, scope.end))
    elif len(scopes) == 1:
        read.assigned.append((name, place, at, at))


def _either(one: "Place | None", other: "Place | None") -> Place | None:
    """A place that holds whichever of two values a variable (or the working folder) has: the value when both are
    one; else the written end they share (``TAIL``: every tracked file ending so holds either, `lib/x.sh` and
    `benchmarks/lib/x.sh` share `lib/x.sh`), or None (only the run knows: no name shared, a variable not set, which
    may come from the environment, or one of them unknown)."""
    if one == other:
        return one
    if one in (None, _ABSENT) or other in (None, _ABSENT) or SELF in (one[0], other[0]):
        return None
    names = [[part for part in place[1].split("/") if part not in ("", ".", "..")] for place in (one, other)]
    shared = []
    for a, b in zip(reversed(names[0]), reversed(names[1])):
        if a != b:
            break
        shared.insert(0, a)
    return (TAIL, "/".join(shared)) if shared else None


def _record(read: Reading, word: str, substituted: bool, said_at: int, place: Place | None, scope: _Scope) -> None:
    """Put what the `source` command with the path's ``word`` (a process substitution when ``substituted``; its place,
    if any) sources into ``read``, said at ``said_at``: a path relative to the working folder, the ``scope``'s (a `cd`
    moved it from the top; None: only the run knows where), its place, or a file only the run knows (``_unseen``; a
    written end after a variable the text does not set, none of the scope's, is said with it: ``_start``)."""
    cwd = scope.cwd
    if (relative := _relative_word(word)) and cwd != TOP_CWD:
        place = None if cwd is None else (cwd[0], posixpath.normpath(posixpath.join(cwd[1] or ".", relative)))
        if place is None or place[0] == TAIL:
            _unplaced(read, said_at, word, _tail(place[1] if place else relative), cwd=cwd)
        else:
            _sourced(read, said_at, place, cwd)
    elif place and place[0] == TAIL:  # under a variable set to a path only the run knows the start of (`$LIB`)
        _unplaced(read, said_at, _unseen(word, substituted) or word, _tail(place[1]), cwd=cwd)
    elif place and place[0] != SELF and posixpath.basename(place[1]) not in ("", ".", ".."):
        _sourced(read, said_at, place, cwd)
    elif place is None and _BARE.fullmatch(bare := word.replace('"', "").replace("'", "")):
        # `source helpers`: bash looks on the PATH, then in the folder jobs run from, the checkout's top
        _sourced(read, said_at, (TOP, bare), cwd)
    elif place is None and read.inside is not None and mounts.ABSOLUTE.fullmatch(bare):
        _record_inside(read, said_at, word, read.inside.place(bare)[0], cwd)
    elif place is None and not substituted and (tail := _absolute_tail(bare)):
        _unplaced(read, said_at, word, tail, cwd=cwd)  # the checkout may be mounted there (``_absolute_tail``)
    elif place is None and not substituted and bare.startswith("/") and (globbed := _globbed(word, scope.variables)):
        _glob(read, said_at, globbed, cwd, word)  # (s48e: `source /workspace/lib/*.sh`, as with no glob)
    elif place is None and (said := _unseen(word, substituted)):
        bare = word.replace('"', "").replace("'", "")
        tail = None if substituted or bare.startswith(_STANDARD_INPUT) else _tail(_TAIL.search(bare))
        _unplaced(read, said_at, said, tail, _start(bare, tail, scope.variables), cwd)


_FOR_IN = re.compile(rf'(?:for|select)[ \t]+({shellgrammar.NAME})(?:[ \t]|\\\n)+in(?=[ \t;\n])')
_LOOPED_DEPTH = 4  # loops inside loops whose variables a word's expansion is followed through, at most


def _loop_lists(text: str, code: str, found: list[shellflow.Region]) -> list[tuple[int, int, str, list[str]]]:
    """Each `for NAME in WORDS` loop of ``found`` (``shellflow.regions`` of ``code``) as ``Reading.loops`` keeps it: its
    body's start (its `do`), its end, its variable and the words of its list as ``text`` has them (`a.sh`,
    `"$D"/*.sh`); a `for NAME` with no `in` (the arguments) is none."""
    out = []
    for region in found:
        if region.kind != shellflow.LOOP or not region.variable or not region.branches or not (
                m := _FOR_IN.match(code, region.start)):
            continue
        words, at = [], m.end()
        while (gap := _WORD_GAP.match(text, at)) and gap.end() < region.branches[0] and (
                word := _word(text, gap.end())):
            words.append(word)
            at = gap.end() + len(word)
        out.append((region.branches[0], region.end, region.variable, words))
    return out


def _looped(loops: list[tuple[int, int, str, list[str]]], at: int, word: str, variables: dict[str, Place | None],
            depth: int = 0) -> list[str] | None:
    """The words ``word`` at ``at`` stands for when it expands the variable of a loop whose body holds it
    (``Reading.loops``) and the variable has no other value there (``variables``): the word with each of the loop's
    list in its place (`"$f"` in `for f in a.sh b.sh` is `a.sh`, then `b.sh`; a loop's inside another's, both);
    None when it expands none."""
    for body, end, name, listed in reversed(loops):
        named = re.compile(rf'\$(?:{name}(?!\w)|\{{{name}\}})')
        if body <= at < end and variables.get(name) is None and named.search(word):
            # (a list's word stands in a use's double quotes as it was written: its quotes and globs are its own)
            out = [_without_empty_quotes(named.sub(
                lambda m, each=each: f'"{each}"' if _scanned(word[:m.start()])[1] == '"' else each, word))
                for each in listed]
            return [deeper for each in out for deeper in (
                _looped(loops, at, each, variables, depth + 1) if depth < _LOOPED_DEPTH else None) or [each]]
    return None


_GLOB = re.compile(r'[*?[]')
_AN_EXPANSION = re.compile(r'\$\{[^}]*\}|\$\w+|\$\([^)]*\)')


def _bare(word: str) -> str:
    return word.replace('"', "").replace("'", "")


# A glob's character in quotes (`"x*"`, `'[0-9]'`, `$'?'`) or after a `\\` is literal text: bash never expands it.
# ``_quoted_globs_masked`` writes each so as a character no path holds, and a pattern matches it as itself.
# A `\` bash takes out (one quoting the next character) and the `$` of a `$'…'` are written as ``_UNSAID``: no part
# of a name (``_bare`` keeps them, so the two texts stay as long).
_MASKS = {"*": "\x01", "?": "\x02", "[": "\x03"}
_UNSAID = "\x04"
_MASKED_AS_LITERAL = str.maketrans({_UNSAID: "", **{mask: f"[{glob}]" for glob, mask in _MASKS.items()}})
_MASKED_AS_GLOBS = str.maketrans({_UNSAID: "", **{mask: glob for glob, mask in _MASKS.items()}})


def _quoted_globs_masked(word: str) -> str:
    """``_bare(word)`` (its quote characters taken out, each of the others kept) with each glob character (``_MASKS``)
    bash reads as literal text written as its mask: one inside single or double quotes or `$'…'`, or after a `\\`
    outside single quotes. A word whose quotes do not close is returned as ``_bare`` gives it: every glob character
    in it is then a glob (what a glob matches is read, never fewer files)."""
    out, quote = _scanned(word)
    return _bare(word) if quote else out


def _without_empty_quotes(word: str) -> str:
    """``word`` without each `""` outside quotes (an empty string beside other text adds nothing to it): `""$D"/*"`
    is `"$D"/*`. A word of nothing else stays as it is (an empty word), and so does a `$""` (a translated string)."""
    out, quote, i = [], "", 0
    while i < len(word):
        char = word[i]
        if not quote and word.startswith('""', i) and len(word) > 2 and not word.startswith("$", i - 1 if i else 0):
            i += 2
            continue
        if char == "\\" and quote != "'":
            out.append(word[i:i + 2])
            i += 2
            continue
        if not quote and char == "$" and word.startswith("'", i + 1):
            quote = "$'"
            out.append("$'")
            i += 2
            continue
        if char in "\"'" and (not quote or quote == char or quote == "$'" and char == "'"):
            quote = "" if quote else char
        out.append(char)
        i += 1
    return "".join(out)


def _scanned(word: str) -> tuple[str, str]:
    """``_quoted_globs_masked``'s text of ``word``, and the quote open at its end ("" for none, `"`, `'`, `$'`)."""
    out: list[str] = []
    quote, i = "", 0
    while i < len(word):
        char = word[i]
        if char == "\\" and quote != "'" and i + 1 < len(word):
            escaped = word[i + 1]
            if quote == '"' and escaped not in '"\\$`':
                out.append(char)  # (in double quotes a backslash before another character is itself)
            else:
                # (a quote character so is itself, in the place of the backslash: ``_bare`` takes the quote out)
                out += ([escaped] if escaped in "\"'"
                        else [char if quote == "$'" else _UNSAID, _MASKS.get(escaped, escaped)])
                i += 2
                continue
        elif not quote and char == "$" and word.startswith("'", i + 1):
            quote, i = "$'", i + 2
            out.append(_UNSAID)
            continue
        elif char in "\"'" and (not quote or quote == char or quote == "$'" and char == "'"):
            quote = "" if quote else char
        elif char in "\"'":
            pass  # (a quote character inside the other quotes: literal, but ``_bare`` takes it out too)
        else:
            out.append(_MASKS.get(char, char) if quote else char)
        i += 1
    return "".join(out), quote


def _globbed(word: str, variables: dict[str, Place | None]) -> "Place | None | tuple | bool":
    """Where the files a path with a glob in its names (`*`, `?`, `[`: `"$D"/*.sh`, `shared/x-*.sh`) matches are, read
    with ``variables`` (the working folder among them): a place whose path holds the glob from its first name with
    one (an expansion there matches any name, `*`), TOP or FOLDER, or TAIL where only the run knows the start but
    names before the glob are written (`"$GITHUB_WORKSPACE"/shared/*.sh`, the workspace may be moved: every tracked
    file matching its end, ``identity.tail_files``); () for one outside the checkout (`/etc/profile.d/*.sh`); None
    where only the run knows the folder and no name before the glob is written; False for a path with no glob. An
    absolute path's TAIL is all of it, its `/` kept (s48e: `bash /workspace/shared/*.sh` in a container that mounts
    the checkout there), but under ``_NO_CHECKOUT``: ().
    A path whose glob characters are all literal (``_quoted_globs_masked``: `"x*.sh"`) names one file, matched so, as
    a relative path is where only the run knows the folder (TAIL: every tracked file of that name); False where a
    variable only the run knows starts it (read as any path so is)."""
    bare, masked = _bare(word), _quoted_globs_masked(word)
    if (home := _HOME.match(bare)) and (at_home := _HOME.match(masked)):  # s48i: `~/ws/*.sh` as `/ws/*.sh`
        bare, masked = bare[home.end():], masked[at_home.end():]
    names = [_AN_EXPANSION.sub("", name) for name in masked.split("/")]
    literal = not any(_GLOB.search(name) for name in names)
    k = next((k for k, name in enumerate(names) if _GLOB.search(name.translate(_MASKED_AS_GLOBS))), None)
    if k is None:
        return False
    names = masked.split("/")
    if bare.startswith("/") and not bare.startswith((*_NO_CHECKOUT, *_STANDARD_INPUT)):
        # s48e: an absolute path, as one with no glob (``_absolute_tail``): the file holding it may run in a container
        # that mounts the checkout along it, so its written end, kept absolute (``identity._read_globs``: every tracked
        # file it ends in, or that ends in it)
        whole = posixpath.normpath(_AN_EXPANSION.sub("*", masked).translate(_MASKED_AS_LITERAL))
        return (TAIL, whole) if whole.strip("/") else ()
    if _OUTSIDE.match(bare):
        return ()
    prefix = bare[:len("/".join(names[:k]))]
    pattern = _AN_EXPANSION.sub("*", "/".join(names[k:])).translate(_MASKED_AS_LITERAL)
    head = (_cwd(variables) if not prefix else _from_cwd(_cwd(variables), prefix) if _LITERAL.fullmatch(prefix)
            else _place(prefix, variables))
    if head is None and (tail := _tail(_TAIL.search(prefix))):  # `"$GITHUB_WORKSPACE"/shared/*.sh`: its written end
        head = (TAIL, tail)
    if head is None or head[0] == SELF or head[0] == TAIL and not head[1]:
        return (False if prefix else (TAIL, posixpath.normpath(pattern))) if literal else None
    place = posixpath.normpath(posixpath.join(head[1] or ".", pattern))
    return () if head[0] == TOP and place.startswith("../") else (head[0], place)


def _glob(read: Reading, at: int, globbed: "Place | None | tuple", cwd: Place | None, word: str) -> None:
    """A file sourced or run at ``at`` by the path ``word`` with a glob (``_globbed``), the working folder there
    ``cwd``: into ``Reading.globs``, or ``Reading.unseen`` where only the run knows where it matches."""
    if globbed is None:
        read.unseen.append((at, word if len(word) <= _SHOWN_MAX else word[:_SHOWN_MAX - 3] + "..."))
    elif globbed:
        read.globs.append((at, globbed))
        read.glob_sites.append(cwd)


def _each_record(read: Reading, word: str, substituted: bool, where: tuple[int, int], place: Place | None,
                 scope: _Scope) -> None:
    """``_record`` the `source` of ``word`` (``where``: its offset, where it is said; ``substituted``: a process
    substitution) at its ``place``, or, where it expands a loop's variable
    (``_looped``), of each word of the loop's list in its place, one with a glob as every file it matches
    (``_glob``)."""
    at, said_at = where
    looped = _looped(read.loops, at, word, scope.variables)
    if looped is None:
        _record(read, word, substituted, said_at, place, scope)
    for each in looped or ():
        if (globbed := _globbed(each, scope.variables)) is not False:
            _glob(read, said_at, globbed, scope.cwd, each)
        else:
            _record(read, each, False, said_at, _place(_bare(each), scope.variables), scope)


def _record_inside(read: Reading, said_at: int, word: str, place: Place | None, cwd: Place | None) -> None:
    """A `source` in a container (``Reading.inside``) of a path ``word`` the checkout holds at ``place``
    (``_Inside.place``): that file, or every tracked file it may be (a written end: the mount's start only the run
    knows, or no mount holds it); nothing where the mount is no folder of the checkout."""
    if place is not None and place[0] == TAIL:
        _unplaced(read, said_at, word, place[1], cwd=cwd)
    elif place is not None and posixpath.basename(place[1]) not in ("", ".", ".."):
        _sourced(read, said_at, place, cwd)


def _sourced(read: Reading, said_at: int, place: Place, cwd: Place | None) -> None:
    """A file ``read`` sources at ``said_at`` from ``place``, the working folder there ``cwd`` (``Reading.sites``)."""
    read.sourced.append((said_at, place))
    read.sites.append(cwd)


def _set_before(scope: _Scope, name: str) -> bool:
    """Whether ``name`` has a value in ``scope`` already, or one pending: set again, which value it holds may be the
    run's to say (`if ...; then D=a; else D="$X/b"; fi`), and no written end (``_tail_place``) is read for it, which
    could leave out the other value's file; it stays a place only the run knows, as before."""
    return name in scope.variables or any(pending == name for _, pending, _ in scope.pending)


def _tail_place(word: str) -> Place | None:
    """Where an assignment's ``word`` that is no place (``_place``) points when it is a path whose start only the run
    knows but whose end is written (`LIB="$BENCH_DIR/lib.sh"`, `D=${X:-/opt}/bench`): (TAIL, that end, ``_tail``), so
    that a `source` of the variable, or of a path under it, reads as that path written inline would (``_record``);
    None when no name of it is written (`V="$X"`, `V="$X/$Y"`), for standard input and outside the checkout
    (``_unseen``)."""
    bare = word.replace('"', "").replace("'", "")
    if not _unseen(word, False) or bare.startswith(_STANDARD_INPUT):
        return None
    tail = _tail(_TAIL.search(bare))
    return (TAIL, tail) if tail else None


def _unplaced(read: Reading, said_at: int, said: str, tail: str | None, start: str = "",
              cwd: Place | None = TOP_CWD) -> None:
    """A `source` the reading cannot place: one whose path ends in a ``tail`` (``Reading.tails``, from ``start``; the
    working folder there ``cwd``), else one whose file only the run knows (``Reading.unseen``)."""
    if tail:
        read.tails.append((said_at, tail, start))
        read.tail_sites.append(cwd)
    else:
        read.unseen.append((said_at, said))


_STARTED = re.compile(r'\$(?:\{(?P<braced>[A-Za-z_]\w*)\}|(?P<bare>[A-Za-z_]\w*))(?P<rest>(?:/+[\w.+-]+)+)')


def _start(bare: str, tail: str | None, variables: dict[str, Place | None]) -> str:
    """The variable a `source` word (quotes removed, ``bare``) starts with when the word is that variable and then
    its written end ``tail`` alone, name for name (no `.`, `..`, no other expansion: `$GITHUB_WORKSPACE/x/y.sh`), and
    the text never sets it (``variables``: not among them); else "" (the start may be anywhere)."""
    m = _STARTED.fullmatch(bare)
    if not m or not tail or (name := m["braced"] or m["bare"]) in variables:
        return ""
    names = [part for part in m["rest"].split("/") if part]
    return name if "/".join(names) == tail and all(part not in (".", "..") for part in names) else ""


def _tail(rest: "str | re.Match | None") -> str | None:
    """The written end of a `source` path whose start only the run knows (``Reading.tails``: what follows its last
    expansion, whole names from a `/` on, or a relative path after a `cd` to a place only the run knows), as a relative
    path: `.` and `..` dropped (above an unknown place, `x/../y` is some `y`); None when no name is left."""
    if isinstance(rest, re.Match):
        rest = rest.group()
    if not rest:
        return None
    parts = [part for part in posixpath.normpath(rest.strip("/")).split("/") if part not in ("", ".", "..")]
    return "/".join(parts) if parts and not rest.endswith("/") else None


def _absolute_tail(bare: str) -> str | None:
    """The written end of an absolute path written out (``bare``: quotes taken) that a text on this host runs or
    sources, taken as a start only the run knows (``_tail``: every tracked file it ends in, or that ends in it): the
    file holding it may run in a container that mounts the checkout there (`bash /workspace/shared/y.sh` in a file
    a `docker run -v "$GITHUB_WORKSPACE":/workspace` runs; reading that file, nothing says so), or the path may be the
    checkout's own on the runner. Reading a file of the image's too costs a reuse at most; None for standard input
    (``_STANDARD_INPUT``) and a path with no name."""
    if not mounts.ABSOLUTE.fullmatch(bare) or bare.startswith(_STANDARD_INPUT):
        return None
    return _tail(bare)


# Pseudo file systems no checkout is mounted in: a path read as data there is the host's own (`< /dev/null`)
_NO_CHECKOUT = ("/dev/", "/proc/", "/sys/")


def _absolute_data_tail(bare: str) -> str | None:
    """The written end of an absolute path written out (``bare``: quotes taken) that a text reads as data or names by
    a command's word (`cat /workspace/shared/c.json`, `--config /workspace/c.json`) where no mount the text writes says
    what it is (s47f): the file holding it may run in a container that mounts the checkout there, as for a path run
    (``_absolute_tail``), so every tracked file it ends in, or that ends in it, is hashed as data, and a submodule
    only where its names go through one (``ABSOLUTE_DATA``: `/tmp/out.json`, `/models/x/config.json` are mostly the
    run's or the host's own, and none brings every submodule's commit). None under ``_NO_CHECKOUT``."""
    if bare.startswith(_NO_CHECKOUT) or bare in ("/dev", "/proc", "/sys"):
        return None
    return _absolute_tail(bare)


def _relative_word(word: str) -> str | None:
    """The path a `source` word spells from the working folder (a name or a relative path written out), or None."""
    bare = word.replace('"', "").replace("'", "")
    return bare if (_BARE.fullmatch(bare) or _LITERAL.fullmatch(bare)) and not bare.startswith("/") else None


def _moved(text: str, at: int, command: str, scope: _Scope) -> Place | None:
    """Where the ``command`` (`cd`, `pushd`, `popd`) whose word ends at ``text[at]`` leaves the working folder of
    ``scope``: a relative path from where it was, a place (`cd "$(dirname "$0")"`), or None (`popd`, `cd -`, `cd` home,
    a folder outside the checkout or only the run knows)."""
    target = ""
    while not command.endswith("popd") and (gap := _BLANKS.match(text, at)) and (word := _word(text, gap.end())):
        at = gap.end() + len(word)
        if not (word.startswith("-") and len(word) > 1):  # `cd -P x`: an option
            target = word
            break
    if not target or target == "-":
        return None
    if (relative := _relative_word(target)) is not None:
        return None if scope.cwd is None else (scope.cwd[0], posixpath.normpath(posixpath.join(scope.cwd[1] or ".",
                                                                                                 relative)))
    place = _place(target.replace('"', "").replace("'", ""), scope.variables)
    return place if place and place[0] != SELF else None


def _after_a_blanked_word(text: str, code: str, m: re.Match) -> bool:
    """Whether a word blank in the code (a quoted string: `'time' source x`, `"echo" source x`) stands before the
    command ``m`` found where one seemed to begin: bash runs that word, the rest its arguments; a word that is one
    unquoted `${ }`, or `"$@"`, `"${@}"`, `"${NAME[@]}"`, may be no word (``_MAYBE_EMPTY``) and is no such one, nor
    a `for (( ))` loop's head. The
    command's own word may be spelled with quotes (`"source" x`, `"eval" source x`: written unquoted at its end in
    the code, ``shellcode``)."""
    first = (m.start("command") if m["source"] else m.start("cd") if m["cd"] else m.start("declare") if m["declare"]
             else m.start("name"))
    if m["source"]:
        first = max(m.start(), _word_start(text, first))
    return _blanked_word(text, code, m.end("loop") if m.re is _COMMAND and m["loop"] else m.start(), first)


def _blanked_word(text: str, code: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` holds a word blank in the code other than one that may be empty
    (``_EXPANSION_WORD``)."""
    blanked = [i for i in range(start, end) if code[i] == " " and text[i] not in " \t"
               and text[i:i + 2] != "\\\n" and text[i - 1:i + 1] != "\\\n"]
    return any(not _EXPANSION_WORD.fullmatch(_TOKEN.search(text, _word_start(text, i))[0]) for i in blanked)


def _empty_words(text: str, code: str, spans: list[tuple[int, int]]) -> tuple[str, set[int]]:
    """``code`` with the blank closer of each command substitution that is a word of its own where a command
    begins, a blank after it (`$(cmd) source x`, `` `cmd` . x``, after other such words or `$VAR`s too), written as
    a `;`: bash drops the word where it prints nothing and runs the next as the command (``_MAYBE_EMPTY``); and where
    those closers are (only a `source` is read after one: `$(true) A=1 x` runs a program `A=1`)."""
    chars, empty = list(code), []  # empty: in order
    for start, end in spans:
        if text[start] not in "$`" or start and text[start - 1] not in _WORD_END or text[end + 1:end + 2] not in (
                " ", "\t"):
            continue
        # after the line break, the last operator on its line or the last of these closers before it
        line, k = code.rfind("\n", 0, start), bisect.bisect_left(empty, start) - 1
        after = max(line, *(code.rfind(c, line + 1, start) for c in shellgrammar.OPERATORS),
                    empty[k] if k >= 0 else -1) + 1
        if _MAY_BEGIN.fullmatch(code[after:start]) and not _blanked_word(text, code, after, start):
            chars[end] = ";"
            bisect.insort(empty, end)
    return ("".join(chars), set(empty)) if empty else (code, set())


def command_name(command: str) -> str:
    """The name a simple command's text (bash's ``$BASH_COMMAND``) runs: its first word after its assignments
    (``shellgrammar.ASSIGNMENT``, each value one shell word followed by a blank: `A="a b" watch`, `x[1]=2 watch`),
    quotes taken off its ends."""
    at = 0
    while (found := shellgrammar.ASSIGNMENT.match(command, at)) and (
            gap := _GAP.match(command, found.end() + len(_word(command, found.end())))):
        at = gap.end()
    words = command[at:].split(maxsplit=1)
    return words[0].strip("'\"") if words else ""


def _word_start(text: str, i: int) -> int:
    """Where the word of the text holding offset ``i`` begins (after a blank or an operator)."""
    while i > 0 and text[i - 1] not in _WORD_END:
        i -= 1
    return i


def _said_at(text: str, code: str, m: re.Match, end: int) -> int:
    """An offset on the line bash gives the `source` command ``m`` matched in ``code`` (its path's word ends at
    ``end``): that of its second word's end (`source \\` then the path: the path's line; `builtin \\` then
    `source`: the `source` word's), as bash's parser reads one word past the first before it takes the command's
    line (a command led by an assignment takes the line where that ends). `time` and its `-p` are no word."""
    if text.find("\n", m.start("command"), end) < 0:  # most: all on one line
        return m.start("source")
    words = list(_TOKEN.finditer(code, m.start("command"), m.end()))
    while words and words[0].group() in ("time", "-p"):
        words.pop(0)
    return (words[1].end() if len(words) > 1 else end) - 1


@dataclass
class _Scope:
    """The variables in force inside a command substitution (or the text) that ends at ``end``, and the
    assignments made there whose word has not ended yet (end of the word, name, place)."""
    end: int
    variables: dict[str, Place | None]
    pending: list[tuple[int, str, Place | None]]
    # each region (``shellflow``) begun here and not ended: the variables before it and as it was entered
    regions: dict[int, tuple[dict, dict]] = field(default_factory=dict)
    # each `if` begun here and not ended: the variables after its last condition, and where each branch before ended
    alternatives: dict[int, tuple[dict, list[dict]]] = field(default_factory=dict)
    # the working folder where it began (as its text, or the command substitution holding it, began)
    began: Place | None = TOP_CWD

    @property
    def cwd(self) -> Place | None:
        """The folder a relative path, `$(pwd)` and `$PWD` are from (a `cd` moves it; None: only the run knows)."""
        return _cwd(self.variables)

    @cwd.setter
    def cwd(self, place: Place | None) -> None:
        self.variables[_CWD] = place


def _cwd(variables: dict[str, Place | None]) -> Place | None:
    """The working folder where ``variables`` are in force: the checkout's top, where jobs run, until a `cd`."""
    return variables.get(_CWD, TOP_CWD)


def _enter(scopes: list[_Scope], spans: list[tuple[int, int]], k: int, at: int) -> int:
    """Make ``scopes`` those in force at ``at``: leave the command substitutions that ended, put the
    assignments whose word ended in force, enter those (``spans[k:]``) that ``at`` is inside; the next k."""
    while at >= scopes[-1].end:
        scopes.pop()
    top = scopes[-1]
    for _, name, place in [p for p in top.pending if p[0] <= at]:
        top.variables[name] = place
    top.pending[:] = [p for p in top.pending if p[0] > at]
    while k < len(spans) and spans[k][0] <= at:
        if spans[k][1] > at:
            scopes.append(_Scope(spans[k][1], dict(scopes[-1].variables), [], began=scopes[-1].cwd))
        k += 1
    return k


def _named(text: str, assigned: list[tuple[str, Place | None, int, int]],
           moved: list[tuple[int, Place | None, int]], start: dict[str, Place | None] | None = None
           ) -> tuple[list[tuple[int, Place]], list[Place | None]]:
    """Each path ``text`` names from the script's folder outside `source` (``Reading.named``): by a spelling of a place
    (`$PWD` and `$(pwd)` the working folder where they stand, ``moved``), or by a relative path written out where the
    working folder is the script's or one under it (`cd "$(dirname "$0")"`, then `python3 ./client.py`); and the
    working folder at each (``Reading.named_sites``: the one a relative path is read from, else the one there, ``start``
    at the text's start)."""
    found, variables, done, at = [], {}, 0, 0  # done: the assignments in force at `at`
    assigned = sorted(assigned, key=lambda a: a[3])
    for m in _RELATIVE_PATH.finditer(text) if any(place and place[0] == FOLDER for _, place, _ in moved) else ():
        found += [(m.start(), (FOLDER, posixpath.normpath(posixpath.join(cwd[1], m.group()))), None, cwd)
                  for cwd in _cwds_at(moved, m.start(), start) if cwd and cwd[0] == FOLDER]
    while m := _HEAD.search(text, at):
        while done < len(assigned) and assigned[done][3] <= m.start():
            variables[assigned[done][0]] = assigned[done][1]
            done += 1
        head, rest, skip = _spelled(text, m.start())
        deep = head.count("$(") > _DEPTH
        places = []
        for variables[_CWD] in _cwds_at(moved, m.start(), start) if head and not deep else ():
            place = _place(head.replace('"', "").replace("'", "") + rest, variables)
            places += [place] if place and place not in places else []
        at = m.start() + (len(head) + len(rest) if places or deep else skip)
        if rest.strip("/"):
            found += [(m.start(), place, _VARIABLE.match(head), _cwd_at(moved, m.start(), start or {}))
                      for place in places]
    found.sort(key=lambda f: f[0])
    folders = {v[1] or v[2] for _, _, v, _ in found if v}  # variables used with a path after them
    spans = [(start, end) for name, _, start, end in assigned if name in folders and start < end]  # in order, apart
    starts = [start for start, _ in spans]

    def in_a_folder_value(at: int) -> bool:
        k = bisect.bisect_right(starts, at) - 1
        return k >= 0 and at < spans[k][1]
    kept = [(at, place, cwd) for at, place, _, cwd in found if place[0] == FOLDER
            and posixpath.basename(place[1]) not in ("", ".", "..") and not in_a_folder_value(at)]
    return [(at, place) for at, place, _ in kept], [cwd for _, _, cwd in kept]


def _ran(text: str, code: str, read: Reading, start: dict[str, Place | None],
         literal: list[tuple[int, int]] = (), spans: list[tuple[int, int]] = (), inside: "_Inside | None" = None,
         lost: frozenset[str] = frozenset()) -> None:
    """Each file ``text`` runs by a path from the working folder, into ``read`` (its ``assigned`` and ``moved`` read
    already): the first word after an interpreter anywhere in a command (``_INTERPRETER``: `python3 shared/tool.py`,
    `bash "$S"` with `S=shared/x.sh`, `timeout 60 bash "$GITHUB_WORKSPACE/shared/x.sh"`), a command's own word with a
    `/` (`tools/run.sh`, `"$D/x.sh"`) where a command begins, and a script's path written out anywhere but in a comment,
    in a pipeline with an interpreter (``_SCRIPT_NAMED``: `bash < x.sh`, `echo x.sh | xargs bash`; ``literal``:
    ``shellcode.parts``' spans); read from the working folder there (``start``: the variables in force at the text's
    start, the working folder among them; a `cd` since, ``_cwds_at``) into ``Reading.ran``, each with that working
    folder (``Reading.ran_sites``: where the file starts). A path outside the checkout (an absolute path with an
    expansion in it) is none (one under the home folder is a written end: s48i); one whose start only the run knows but whose end is written (`bash "$D/x.sh"`, D none of the text's or set
    by a file it sources to such a path; `python3 x.py` after a `cd` only the run knows) goes to ``Reading.ran_tails``
    (and its working folder to ``Reading.ran_tail_sites``), every tracked file ending so (``_ran_tail``). One from the
    workspace is from the top, and its path after the workspace goes to ``Reading.ran_from_workspace`` too. One run by
    an interpreter after `docker run`, `srun`, `env -C` … (``_run_elsewhere``) starts where only the run knows, a
    container's or another node's folder: its relative path is a written end, unless its options say (``_contained``;
    ``inside``: the container ``text`` runs in, a command string's). A file read as data (``_read_words``) is read
    so, its site ``READ_AS_DATA``; a word that expands a loop's variable is each word of its list (``_looped``), one
    with a glob every file it matches (``Reading.globs``). ``code``: ``text``'s code (``shellcode.parts``, ``spans``)."""
    assigned, moved, before = read.assigned, read.moved, len(read.unseen)
    words, elsewhere, data, arguments = _ran_words(text, code, literal, spans, _a_path(assigned, start, lost), (start, read))
    found: dict[tuple[int, Place, Place | None], None] = {}
    named: dict[tuple[int, Place, Place | None], None] = {}  # by a command's word alone (``Reading.arguments``)
    tails: dict[tuple[int, str, Place | None], None] = {}
    unseen, values = _found_run(text, code, read, start, spans), _set_values(text, code, read)  # (s49c: ``values``)
    listed = functools.cache(lambda: _listed_names(text, code, assigned))  # asked of a path only the run knows
    defaulted = functools.cache(lambda: _defaulted_names(text, assigned))  # and so
    container = _containers(text, code, spans, read, start, elsewhere, inside)
    for at, written in sorted(set(words)):
        looped = _looped(read.loops, at, written, _in_force(assigned, at, start)) if "$" in written else None
        for word in looped if looped is not None else [written]:  # a loop's variable: each word of its list
            places = _ran_places(read, at, word, (at in elsewhere, at in data, at in arguments), start, tails,
                                 unseen, listed, defaulted, functools.partial(container, at), _made_at(text, at), lost,
                                 values)
            (named if at in arguments else found).update(
                ((at, place, cwd), None) for place, cwd in places if place and place[0] in (TOP, FOLDER)
                and posixpath.basename(place[1]) not in ("", ".", "..")
                and not (place[0] == TOP and place[1].startswith("../")))
    for at, place, cwd in found:
        read.ran.append((at, place))
        read.ran_sites.append(cwd)
    for at, place, cwd in named:
        read.arguments.append((at, place))
        read.argument_sites.append(cwd)
    for (at, tail, cwd), begun in tails.items():
        read.ran_tails.append((at, tail, begun))
        read.ran_tail_sites.append(cwd)
    read.unseen += list({**unseen, **_unread_tools(text, code)})  # (s48i: `$LAUNCH --container-mounts=…`)
    read.unseen_ran += read.unseen[before:]


def _unread_tools(text: str, code: str) -> dict[tuple[int, str], None]:
    """Each command of ``text`` (its ``code``) whose own word is a tool only the run knows that writes a mount as a
    container tool does (s48i, ``mounts.mounts_unread``: `$LAUNCH --container-mounts=…`), its offset and word as said
    (``Reading.unseen``): which tool reads those options, and so what it runs there, is the run's to say."""
    found = {}
    for m in _EXPANDED_COMMAND.finditer(text):
        if _at_command_start(code, m.start()) and (
                code[m.start()] == "$" if text[m.start()] == "$" else _at_command_start(text, m.start())) and (
                words := [_bare(word) for word in [_word(text, m.start()), *_command_line(text, m.start())]]
        ) and mounts.mounts_unread(words):
            said = _word(text, m.start())
            found[m.start(), said if len(said) <= _SHOWN_MAX else said[:_SHOWN_MAX - 3] + "..."] = None
    return found


def _a_path(assigned: list[tuple[str, Place | None, int, int]], start: dict[str, Place | None], lost: frozenset[str]):
    """Whether a command's own word at an offset is a variable set to a path (``_ran_words``' ``a_path``): there, where
    the text starts, or in an outer text (``lost``)."""
    return lambda at, word: _path_valued(_bare(word), _in_force(assigned, at, start)) or _path_valued(
        _bare(word), start, lost)


def _path_valued(bare: str, variables: dict[str, Place | None], lost: frozenset[str] = frozenset()) -> bool:
    """Whether a command's own word ``bare`` (quotes taken) is a variable alone that the text set to a path: a place of
    the checkout or a written end (`F="$WS_PATH/server.sh"`; ``_ran`` runs it as the path written there), or a relative
    path with a `/`; never one it set to a name (`DOCKER_CMD=docker`, `PY=${PY:-python3}`: a command bash looks up) or
    one only the run knows. ``lost``: names an outer text set so (``_read``), each one such a variable too."""
    m = _VARIABLE.fullmatch(bare)
    if m and (m["braced"] or m["bare"]) in lost:
        return True
    value = variables.get(m["braced"] or m["bare"]) if m else None
    return bool(value) and (value[0] in (TOP, FOLDER, TAIL) or value[0] == _RELATIVE and "/" in value[1])


def _copied(text: str, code: str, spans: list[tuple[int, int]], read: Reading, start: dict[str, Place | None]
            ) -> None:
    """Each file of ``read.ran`` (``_ran``'s, just read) that a copy command copies (``_copy_sources``), into
    ``Reading.copied``, with the working folder at the copy (``Reading.copied_sites``; None for one copied where only
    the run knows it, ``_run_elsewhere``); and each folder of a variable alone that the text set to a name
    (``_named_values``), also as a command's word (``Reading.arguments``: read whole)."""
    copies = _copy_sources(text, code)
    for at in sorted(copies.keys() - {at for at, _ in read.ran}):  # `D=shared; cp -r "$D" "$T"`: the folder shared
        for name in _named_values(text, read.assigned, at):
            if (place := _from_cwd(_cwd_at(read.moved, at, start), name)) and place[0] in (TOP, FOLDER):
                read.ran.append((at, place))
                read.ran_sites.append(READ_AS_DATA)
                read.arguments.append((at, place))
                read.argument_sites.append(ARGUMENT)
    for at, place in dict.fromkeys((at, place) for at, place in read.ran if at in copies):
        read.copied.append((at, place))
        read.copied_sites.append(None if copies[at] == _REMOTE_COPY or _run_elsewhere(code, spans, at, text)
                                 else _cwd_at(read.moved, at, start))


def _named_values(text: str, assigned: list[tuple[str, Place | None, int, int]], at: int) -> list[str]:
    """The names alone (``_BARE``: `shared`, no `/`, which is no place, ``_place``) a variable whose expansion alone is
    the word at ``at`` was set to before it, each of its assignments': which one holds there may be the run's to say,
    and copying more than bash copies costs a reuse at most."""
    m = _VARIABLE.fullmatch(_bare(_word(text, at)))
    values = [_bare(text[begin:end]) for name, place, begin, end in assigned
              if m and name == (m["braced"] or m["bare"]) and place is None and end <= at]
    return list(dict.fromkeys(value for value in values if _BARE.fullmatch(value) and not value.startswith(".")))


def _found_run(text: str, code: str, read: Reading, start: dict[str, Place | None],
               spans) -> dict[tuple[int, str], None]:
    """What ``text``'s finds run (``_found_runs``) into ``read``: every tracked file a `-name` matches (``Reading.
    globs``, run from the working folder there, or where only the run knows for `-execdir` or a find run elsewhere);
    and the files run only the run knows, each an offset and its words as said (``Reading.unseen``): a find's with
    no `-name` or a test beyond one, an `xargs`' that no find with a `-name` feeds (``_fed_by_xargs``)."""
    finds = _found_runs(text, code)
    named = {fed for _, names, _, fed in finds if names is not None}
    unseen = dict.fromkeys(fed for fed in _fed_by_xargs(text, code) if fed[0] not in named)
    for at, names, execdir, _ in finds:
        if names is None:
            said = text[at:text.find("\n", at) % (len(text) + 1)]
            unseen[at, said if len(said) <= _SHOWN_MAX else said[:_SHOWN_MAX - 3] + "..."] = None
        for name in names or ():
            read.globs.append((at, (TAIL, name)))
            read.glob_sites.append(None if execdir or _run_elsewhere(code, spans, at, text)
                                   else _cwd_at(read.moved, at, start))
    return unseen


def _from_workspace(read: Reading, at: int, rest: str, site, data: bool) -> list[tuple[Place | None, Place | None]]:
    """A file named under the job's workspace (``_WORKSPACE``, ``rest`` the path after it): the checkout's file there,
    at ``site``; one run (not read as data) is noted in ``Reading.ran_from_workspace``."""
    places = [((TOP, posixpath.normpath(rest.lstrip("/"))), site)] if _REST.fullmatch(rest) else []
    read.ran_from_workspace += [(at, place[1]) for place, _ in places if not place[1].startswith("..") and not data]
    return places


def _ran_places(read: Reading, at: int, word: str, how: tuple[bool, bool, bool], start: dict[str, Place | None],
                tails: dict, unseen: dict, listed=frozenset, defaulted=frozenset, inside=lambda: None, made=False,
                lost: frozenset[str] = frozenset(), values=lambda at, name: None
                ) -> list[tuple[Place | None, Place | None]]:
    """Where the file ``word`` at ``at`` runs (``_ran``) may be, each with the working folder it starts in (for one
    read as data, ``READ_AS_DATA``; for one a command's word names, ``ARGUMENT``); ``how``: whether it runs elsewhere
    (``_run_elsewhere``), whether it is read as data, whether a command's word names it alone (``_argument_words``:
    where only the run knows it, or what a glob in it matches, it is passed over; a written start with a part in a
    variable, ``_parted_argument``); ``made``: whether it is a makefile (``_made_at``). One with a glob goes to
    ``Reading.globs`` (``_glob``), a written end to ``tails``, one only the run knows to ``unseen`` (each ``_ran``'s,
    keyed so that a word read from two folders is said once): one the text gave a value it lost (``_cleared``), or a
    file run (not read: `cp "$f"` of a `find`'s output is mostly the run's own) that a list read at run time names
    (``listed()``: ``_listed_names``, ``_listed``); ``values``: ``_set_values``, for ``_run_unplaced``."""
    if (places := _contained(read, at, word, how, tails, inside)) is not None:
        return places  # run in a container whose options say where it is (``inside()``, ``_contained``)
    (elsewhere, data, argument), assigned, moved, bare = how, read.assigned, read.moved, _bare(word)
    here = None if elsewhere else _cwd_at(moved, at, start)
    as_data = ARGUMENT if argument else READ_AS_DATA
    if m := _WORKSPACE.match(bare):
        return _from_workspace(read, at, bare[m.end():], as_data if data else here, data)
    # (a word that expands nothing reads no variable: only the working folder, set below)
    variables = _in_force(assigned, at, start) if "$" in word or "`" in word else dict(start)
    places = []
    # where the run may be in the script's folder or one under it, each (``_cwds_at``), and the folder there
    for variables[_CWD] in dict.fromkeys([*([] if elsewhere else _cwds_at(moved, at, start)), here]):
        site = as_data if data else variables[_CWD]
        if (not argument or _unquoted_glob(word)) and (globbed := _globbed(word, variables)) is not False:
            if globbed is not None or not argument:  # (a word's glob where only the run knows the folder: passed over)
                _glob(read, at, globbed, site, word)
            continue
        place = _from_cwd(variables[_CWD], bare) if _LITERAL.fullmatch(bare) else _place(bare, variables)
        places.append((place, site))
        if _LITERAL.fullmatch(bare) and not bare.startswith("/") and (container := inside()) and container.view.written:
            places += [(alias, site) for alias in container.within(bare)]  # (in a container: by its mounts too)
        if (data or argument) and place is None and (tail := _absolute_data_tail(bare)):
            tails[at, tail, site] = ABSOLUTE_DATA  # (s47f: the checkout may be mounted there)
        if argument:
            _parted_argument(read, at, bare, place, variables, site)
            continue  # (a start only the run knows: passed over)
        _run_unplaced(read, at, word, place, (data, made, site), variables, start, (tails, unseen),
                      (listed, defaulted, values, lost))
    return places


def _run_unplaced(read: Reading, at: int, word: str, place: Place | None, how: tuple,
                  variables: dict[str, Place | None], start: dict[str, Place | None], into: tuple[dict, dict],
                  asked: tuple) -> None:
    """What ``_ran_places`` makes of a file ``word`` at ``at`` runs or reads (``how``: whether it is read as data,
    whether a makefile, the working folder there) that is no command's word alone: a written end to ``tails``, one only
    the run knows to ``unseen`` (``into``), one with a written start and a part in a variable a glob (``_parted``, or
    s49c's ``_valued_patterns`` where the text wrote out the values a variable it lost may hold); ``asked``: the
    ``listed``, ``defaulted``, ``values`` and ``lost`` of ``_ran_places``."""
    (data, made, site), (tails, unseen), (listed, defaulted, values, lost) = how, into, asked
    bare, assigned = _bare(word), read.assigned
    # (an absolute path run: the checkout may be mounted there, ``_absolute_tail``; a file read as data where
    # only the run knows the start of its path, `cat "$TMP/out"`, is mostly the run's own: a relative path's is)
    if (tail := _ran_tail(word, place) or place is None and not data and _absolute_tail(bare)) and (
            not data or made or _LITERAL.fullmatch(bare)):
        tails[at, tail, site] = ""
    elif place is None and _cleared(bare, at, assigned, variables) and (
            patterns := _valued_patterns(bare, at, values)):  # s49c: `bash "benchmarks/${SUB}/${NAME}"`
        for pattern in patterns:
            _glob(read, at, _globbed(pattern, variables), site, word)
    elif place is None and (_cleared(bare, at, assigned, variables) or not data and _listed(bare, listed())
                            or _unknown_whole(bare, data, defaulted) or not data and _path_valued(bare, start, lost)
                            ) and (said := _unseen(word, False)):  # (``_path_valued``'s ``lost``: see ``_read``)
        unseen[at, said] = None
    elif place is None and (pattern := _parted(bare)):
        _glob(read, at, _globbed(pattern, variables), site, word)


_VALUE_PATTERN = re.compile(r'[\w.+*-]*(?:/+[\w.+*-]*)*')  # a value that is a path, or part of one (``_set_values``)
_VALUED_MAX = 64  # the paths a word's variables' values may make at most (``_valued_patterns``); past it, none


def _set_values(text: str, code: str, read: Reading):
    """``values(at, name)``: the values ``text`` set the variable ``name`` to before ``at``, each as a pattern (its
    quotes taken, an expansion in it a `*`, as ``_parted`` reads one), and `*` where the value it had before may stand
    (the last set on a condition, a loop's or a function's body: set at a region's end, ``Reading.assigned``) or the
    text never set it; None where a command only the run reads may have set it (``_writes``: `read -r N`, `export
    $(cat .env)`, `eval "$C"`; a file sourced with such a writer, ``Reading.set_anything``) or a value is no path."""
    writes = functools.cache(lambda: _writes(text, code))

    def values(at: int, name: str) -> list[str] | None:
        if any(end < at for end in read.set_anything) or any(
                begin < at and (name in names or _ANY in names) for begin, names in writes()):
            return None
        events = [(begin, end) for each, _, begin, end in read.assigned if each == name and end <= at]
        if not events:
            return ["*"]
        out = []
        for begin, end in events:
            if begin < end:
                value = _AN_EXPANSION.sub("*", _bare(text[begin:end]))
                if not _VALUE_PATTERN.fullmatch(value):
                    return None
                out.append(value)
        if events[-1][0] < events[-1][1]:  # set last where it surely holds: that value alone
            return out[-1:]
        return list(dict.fromkeys([*out, "*"]))
    return values


def _valued_patterns(bare: str, at: int, values) -> list[str] | None:
    """The paths a word run at ``at`` (``bare``: quotes taken) whose start is written may be (s49c), each a pattern:
    each variable it expands one of its ``values`` (``_set_values``), any other expansion a `*`; None for a word that
    starts at an expansion, one whose variable holds a value only the run knows, or too many."""
    if bare.startswith("$") or "`" in bare or "$(" in bare:
        return None
    found = [""]
    last = 0
    for m in _VARIABLE.finditer(bare):
        each = values(at, m["braced"] or m["bare"])
        if each is None:
            return None
        found = [f"{done}{bare[last:m.start()]}{value}" for done in found for value in each]
        last = m.end()
        if len(found) > _VALUED_MAX:
            return None
    found = [_AN_EXPANSION.sub("*", f"{done}{bare[last:]}") for done in found]
    return [pattern for pattern in dict.fromkeys(posixpath.normpath(p) for p in found)
            if _PARTED.fullmatch(pattern) and not pattern.startswith("..")] or None


# A word that starts at an expansion the reading does not follow: a default (`${S:-x.sh}`, `${S:=x.sh}`, the
# environment may set it) or an array's element (`${S[@]}`, `${S[a]}`)
_DEFAULT_OR_ELEMENT = re.compile(r'\$\{[A-Za-z_]\w*(?::?[-=]|\[)')
_PARTED = re.compile(r'[\w.+-]+(?:/+[\w.+*-]*)*')


def _parted(bare: str) -> str | None:
    """A path run or read (``bare``: its word, quotes taken, no glob of its own) whose start is written but a part of
    it is an expansion (`shared/${N}.sh`, `shared/${MODEL:-x}.sh`, `shared/$F`) as a glob, each expansion a `*`
    (`shared/*.sh`: every tracked file it may be, whatever the variable holds); None for any other word (one that
    starts at an expansion, `$TMP/out.json`, is read as before)."""
    if bare.startswith("$") or "$" not in bare or "`" in bare:
        return None
    pattern = _AN_EXPANSION.sub("*", bare)
    return pattern if _PARTED.fullmatch(pattern) and "$" not in pattern else None


def _parted_argument(read: Reading, at: int, bare: str, place: Place | None, variables: dict[str, Place | None],
                     site: Place | None) -> None:
    """A word of a command (``_argument_words``) whose start is written but a part of it is an expansion
    (`--config "shared/${N}.json"`, ``_parted``), its last name written in part (`*.json`, `cfg_*`): every tracked file
    it may be, as data (``Reading.globs``). One whose last name is an expansion alone (`dir="benchmarks/${n}/${s}"`,
    mostly a folder a script builds paths on), or where only the run knows the folder it matches in, is passed over,
    as any such word is."""
    if place is None and (pattern := _parted(bare)) and pattern.rsplit("/", 1)[-1].strip("*") and (
            globbed := _globbed(pattern, variables)):
        _glob(read, at, globbed, site, bare)


def _unknown_whole(bare: str, data: bool, defaulted) -> bool:
    """Whether a path run or read (``bare``) that the reading cannot place is one only the run knows and may be a
    tracked file (its row then has no identity): one starting at a default or an array's element
    (``_DEFAULT_OR_ELEMENT``), or a file run by a variable alone that the text set from one (``defaulted()``,
    ``_defaulted_names``: `S=${SCRIPT:-x.sh}; bash "$S"`, `: "${S:=x.sh}"; bash "$S"`). A variable the text never
    sets (`bash "$S"`, S from the environment), one set from another the run knows (`script="$1"`), and a path under
    one (`$TMP/out.json`, mostly the run's own) are passed over as before."""
    if _DEFAULT_OR_ELEMENT.match(bare):
        return True
    if not data and (m := _VARIABLE.match(bare)) and m.end() < len(bare) and bare[m.end()] == "/":
        return (m["braced"] or m["bare"]) in defaulted()  # (s51e: a path under one, `bash "$dir/run.sh"`)
    return not data and bool(m := _VARIABLE.fullmatch(bare)) and (m["braced"] or m["bare"]) in defaulted()


def _defaulted_names(text: str, assigned: list[tuple[str, Place | None, int, int]]) -> frozenset[str]:
    """The variables ``text`` sets from a default or an array's element, to a value the reading does not say
    (``Reading.assigned``'s value None: `S=${SCRIPT:-x.sh}`, `S=${A[0]}`), or by a default (`: "${S:=x.sh}"`)."""
    return frozenset([m[1] for m in _DEFAULTED.finditer(text)] + [
        name for name, place, at, end in assigned if place is None and _DEFAULT_OR_ELEMENT.search(text, at, end)]
    ) | _built_from_parameters(text, assigned)


_MENTIONS_POSITIONAL = re.compile(r'\$(?:[1-9*@]|\{[#!]?[1-9*@])')


def _built_from_parameters(text: str, assigned: list[tuple[str, Place | None, int, int]]) -> frozenset[str]:
    """(s51e) The variables ``text`` sets to a value built from a positional parameter, not the parameter alone
    (`local s="benchmarks/$1"`, `s="${1%.sh}.sh"`), or from a variable set from one (`s="$1"; s="benchmarks/$s"`): a
    file run by one holds what the call gave the function changed, and ``_runners`` reads the call's words as they
    stand (a6ccb3e0, s49c: `run x.sh` read as x.sh where the body runs benchmarks/x.sh), so the file is one only the
    run knows. A copy of the parameter alone (`script="$1"`, `local s="${1:-}"`) is none: its call's words are the
    file run."""
    derived: set[str] = set()
    while True:
        mentioned = [re.compile(rf'\$\{{?{re.escape(name)}(?!\w)') for name in derived]
        more = {name for name, place, at, end in assigned if place is None and name not in derived and (
            _MENTIONS_POSITIONAL.search(text, at, end) or any(p.search(text, at, end) for p in mentioned))}
        if not more:
            break
        derived |= more
    return frozenset(name for name, place, at, end in assigned if name in derived and place is None and at < end
                     and not _POSITIONAL_WORD.fullmatch(text[at:end]))  # (a declaration alone, `local s`: no value)


def _cleared(bare: str, at: int, assigned: list[tuple[str, Place | None, int, int]],
             variables: dict[str, Place | None]) -> bool:
    """Whether a path run at ``at`` (``bare``: its word, quotes taken) expands a variable the text gave a known value
    before and only the run knows now (``variables``: those in force there), as after a computed writer (`D=x.sh;
    export $(cat .env); bash "$D"`): the file run is one only the run knows, as a `source` of it (``Reading.unseen``).
    A variable the text never gave a value it knew (a function's parameter, one from the environment) is none: its
    run is passed over, as before."""
    for m in _VARIABLE.finditer(bare):
        name = m["braced"] or m["bare"]
        if name in variables and variables[name] is None and any(
                each == name and place is not None and end <= at for each, place, _, end in assigned):
            return True
    return False


def _ran_words(text: str, code: str, literal, spans=(), a_path=lambda at, word: False, sourced=({}, None)
               ) -> tuple[list[tuple[int, str]], set[int], set[int], set[int]]:
    """The words ``_ran`` reads as files run or read (each an offset and the word), the offsets of those an interpreter
    runs (or a reader reads) where only the run knows the working folder (``_run_elsewhere``; ``spans``: the code's
    command substitutions and subshells, ``shellcode.parts``), the offsets of those read as data, not run
    (``_read_words``), and of those read as data only because a command's word names them (``_argument_words``).
    A command's own word that is an expansion is one when it spells a `/` or ``a_path(at, word)`` says it holds a path
    (``_path_valued``: `"$RUN_FILE_FULL"`, a variable the text set to one), not a command's name (`$DOCKER_CMD`)."""
    words = [(at, _word(text, at)) for m in _INTERPRETER.finditer(code)
             if (at := _script_word(text, m.end(), bool(m["python"]))) is not None]
    read, data = _read_words(text, code, spans)
    elsewhere = {at for at, _ in words + read if _run_elsewhere(code, spans, at, text)}
    words += [(m.start(), m.group()) for m in _RELATIVE_PATH.finditer(code) if _at_command_start(code, m.start())]
    # (unquoted, its `$` is in the code: not in a comment or a heredoc's body; quoted, no comment's `#` before it)
    words += [(m.start(), word) for m in _EXPANDED_COMMAND.finditer(text) if _at_command_start(code, m.start())
              and (code[m.start()] == "$" if text[m.start()] == "$" else _at_command_start(text, m.start()))
              and ("/" in (word := _word(text, m.start())) or a_path(m.start(), word))]
    comments = [(begin, end) for begin, end in literal if text.startswith("#", begin)]
    ends = [m.start() for m in _PIPELINE_END.finditer(text)]
    words += [(m.start(), m.group()) for m in _SCRIPT_NAMED.finditer(text)
              if not any(begin <= m.start() < end for begin, end in comments)
              and not _SOURCE_BEFORE.search(text, max(0, m.start() - _SPELLING_MAX), m.start())
              and _with_an_interpreter(text, ends, m.start(), m.end())]
    arguments, commands, spots = _argument_words(text, code, literal, {end for _, end in spans})
    words += commands
    known = {at for at, _ in words}  # (s51e: a path in a variable a wrapper runs, `timeout 60 "$S"`, or a loop's,
    loops = sourced[1].loops if sourced[1] is not None else []  # `for f in shared/*.sh; do "$f"; done`)
    words += [(at, word) for at, word in spots if at not in known and (
        "/" in word or a_path(at, word) or _looped(loops, at, word, {}) is not None)]
    words += _call_words(text, code, spans, words + spots, arguments, a_path, sourced)
    ran = {at for at, _ in words}
    taken = ran | {at for at, _ in read}
    arguments = [(at, word) for at, word in arguments if at not in taken]
    named = {at for at, _ in arguments}
    made = _makefiles(text, code)
    elsewhere |= {at for at, _ in made if _run_elsewhere(code, spans, at, text)}
    return words + read + arguments + made, elsewhere, data - ran | named | {at for at, _ in made}, named


def _call_words(text: str, code: str, spans, words, arguments, a_path, sourced) -> list[tuple[int, str]]:
    """The words of ``arguments`` (each command's) that stand in a call of a function whose body runs a positional
    parameter (``_runners``; ``words``: those run as a command) or of an alias (s51e), read as files run; and (s49c)
    in a call of one a file sourced before defines (``sourced``: what ``_ran_words`` is given), those that spell a path
    or a script's name or that ``a_path`` says hold a path. Those this text defines are noted among its file's
    variables (``_RUNS_ARGUMENT``), for a file that sources it."""
    inherited = []  # (s49c) the functions that run a parameter a file sourced before defines (or one sourcing this)
    if sourced[1] is not None:  # and those this one defines, for a file sourcing it: its ``Reading.left``
        inherited = [(name[len(_RUNS_ARGUMENT):], end) for name, _, _, end in sourced[1].assigned
                     if name.startswith(_RUNS_ARGUMENT)] + [(name[len(_RUNS_ARGUMENT):], 0) for name in sourced[0]
                                                            if name.startswith(_RUNS_ARGUMENT)]
    aliases = [(name, end) for name, end, _, _ in _aliases(text, code)]  # (s51e: `alias b=./x.sh`, then `b`)
    runners = _runners(text, code, spans, words, arguments, inherited + aliases)
    if sourced[1] is not None:
        sourced[1].left.update((f"{_RUNS_ARGUMENT}{name}", None) for name in [r.name for r in runners] + [
            name for name, _ in aliases])
    bodies = [(r.start, r.end) for r in shellflow.regions(code, spans) if r.kind == shellflow.FUNCTION] if (
        runners or inherited or aliases) else []  # (s50c: a call in one defined before, `main() { run_it x.sh; }`)
    called, handed = _called_with(code, runners, aliases, bodies), _called_with(code, [], inherited, bodies)
    # (a call of a function a file sourced defines: only a word that spells a path, `run_it shared/x.sh`, or a variable
    # set to one, s50c: `run_it "$S"`; not `b300`, which would have the tracked files listed for a name no file has)
    return [(at, word) for at, word in arguments if not _ELEMENTS.fullmatch(_bare(word)) and (
        any(begin <= at < end for begin, end in called) or (
        "/" in word or _SCRIPT_SUFFIX.search(_bare(word)) or a_path(at, word)) and any(
        begin <= at < end for begin, end in handed))]


# An array's every element as a word (`"${cmd[@]}"`): in a call, a command ``_array_commands`` reads
_ELEMENTS = re.compile(r'\$\{[A-Za-z_]\w*\[[@*]\]\}')
# A name noted among a file's variables (``Reading.left``) for each function it defines whose body runs a parameter
# (s49c: handed, as its variables are, to the file that sources it, ``_called_with``): no variable's name has a blank
_RUNS_ARGUMENT = " runs-argument "
_SCRIPT_SUFFIX = re.compile(r'\.(?:sh|bash|py)$')
# A positional parameter as a word (`"$1"`, `${2}`, `"$@"`): in a function's body, a word of where it is called
# (s50c: with a default or a check, `"${1:-}"`, `${1:?need a script}`, as a `set -u` script takes its arguments)
_POSITIONAL = r'\$(?:[1-9*@]|\{[1-9*@](?::?[-?=][^}]*|:[ \t]*[0-9]+(?::[ \t]*[0-9]+)?)?\})'
# A variable (or an array's every element, s51e: `"${a[@]}"`) as a word a function's body runs (``_copied_parameter``)
_COPY_WORD = re.compile(r'\$(?:\{(?P<braced>[A-Za-z_]\w*)(?:\[[@*]\])?\}|(?P<bare>[A-Za-z_]\w*))')
_POSITIONAL_WORD = re.compile(rf'"?{_POSITIONAL}"?')


def _runners(text: str, code: str, spans, words: list[tuple[int, str]], arguments=(), inherited=()
             ) -> list[shellflow.Region]:
    """The functions whose body runs a positional parameter (``words``: the interpreters' words and the words run as a
    command, each an offset and the word: `run() { bash "$1"; }`, s51e: `run() { "$@"; }`, `exec "$1"`, `timeout 60
    "${@:2}"`), or a variable it set from one before (s49c: `local script="$1"; bash "$script"`, s51e: `$cmd`,
    `a=("$@"); "${a[@]}"`), ``shellflow``'s FUNCTION regions; and (s51e) those whose body hands one to a call of
    such a function (``arguments``: each command's words; ``inherited``: the names of those a file sourced defines,
    and the aliases, with where each is defined): `wrap() { run_it "$@"; }`. So `retry() { "$@"; }` is one, and
    `retry run_it x.sh` reads x.sh as a file run."""
    running = [at for at, word in words if _POSITIONAL_WORD.fullmatch(word)]
    copies = [(at, m["braced"] or m["bare"]) for at, word in words if (m := _COPY_WORD.fullmatch(_bare(word)))]
    handed = [(at, word) for at, word in arguments if _POSITIONAL_WORD.fullmatch(word) or _COPY_WORD.fullmatch(
        _bare(word))]
    if not running and not copies and not handed:
        return []
    regions = [r for r in shellflow.regions(code, spans) if r.kind == shellflow.FUNCTION and r.name]
    bodies = [(r.start, r.end) for r in regions]
    found: list[shellflow.Region] = []
    while True:
        calls = _called_with(code, found, inherited, bodies) if found or inherited else []
        passed = [(at, word) for at, word in handed if any(begin <= at < end for begin, end in calls)]
        at_run = running + [at for at, word in passed if _POSITIONAL_WORD.fullmatch(word)]
        at_copy = copies + [(at, m["braced"] or m["bare"]) for at, word in passed
                            if (m := _COPY_WORD.fullmatch(_bare(word)))]
        now = [r for r in regions if any(r.start <= at < r.end for at in at_run) or any(
            r.start <= at < r.end and _copied_parameter(name).search(text, r.start, at) for at, name in at_copy)]
        if len(now) == len(found):
            return now
        found = now


def _copied_parameter(name: str) -> re.Pattern:
    """An assignment of ``name`` to a positional parameter alone (`script="$1"`, `local s=${2}`, `declare -r s="$@"`,
    `local s="${1:-}"`), or a loop of it over the parameters (s50c: `for s in "$@"; do`, `for s; do`)."""
    n = re.escape(name)
    return re.compile(rf'(?<![\w$./-])(?:{n}=(["\']?){_POSITIONAL}\1(?=[\s;)}}]|$)'
                      rf'|{n}=\((?:[ \t]*"?{_POSITIONAL}"?)+[ \t]*\)'
                      rf'|for[ \t]+{n}(?:[ \t]+in(?:[ \t]+"?{_POSITIONAL}"?)+)?[ \t]*[;\n])')


def _called_with(code: str, runners: list[shellflow.Region], inherited=(), bodies=()) -> list[tuple[int, int]]:
    """Where the words stand of each call of a function whose body runs a positional parameter (``runners``,
    ``_runners``: `run() { bash "$1"; }; run shared/x.sh`): each from the function's name to its pipeline's end, after
    the body, or in the body of a function defined before it, which may be called after (``bodies``, s50c: `main() {
    run x.sh; }`); and of one a file sourced before defines (``inherited``: its name and the offset from which it is
    defined, s49c: `source lib.sh; run shared/x.sh`). Each word there is read as a file run (what it sources
    followed), whichever parameter the body runs: more than bash runs, never less."""
    found = []
    for name, begin, reach in [*((r.name, r.end, r.reach) for r in runners),
                               *((name, at, len(code)) for name, at in inherited)]:
        call = re.compile(rf'(?<![\w./$-]){re.escape(name)}(?=[ \t])')
        for lo, hi in [(begin, reach), *((start, end) for start, end in bodies if end <= begin)]:
            for m in call.finditer(code, lo, hi):
                if _at_command_start(code, m.start()):
                    found.append((m.end(), e.start() if (e := _PIPELINE_END.search(code, m.end())) else len(code)))
    return found


# The commands whose words name no file a program opens: a `cd` (a folder), a `source` (read as shell), a loop's or a
# `case`'s head (``Reading.loops``), a function's name, a test (`[[ -f x ]]`), a word printed
_NO_ARGUMENTS = frozenset(("cd", "pushd", "popd", "source", ".", "for", "select", "case", "function", "[[", "[",
                           "test", "echo", "printf"))
# A `[[ … ]]` test in the code: its `&&`, `||`, `(` begin no command
_TEST_SPAN = re.compile(r'(?<![^\s;&|(!])\[\[[ \t].*?[ \t]\]\](?![^\s;&|)])', re.DOTALL)
_TEST_WORDS = frozenset(("==", "!=", "=~", "=", "]]", "]"))  # a test's, in `[[ … ]]` after a `&&`, `||`
# A glob a word of a command holds that bash expands: unquoted, no special parameter's (`$?`); `[` left to tests
_ARGUMENT_GLOB = re.compile(r'[*?]')
_SPECIAL_PARAMETER = re.compile(r'\$[?#@*!$0-9-]')
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')


def _unquoted_glob(word: str) -> bool:
    """Whether a command's ``word`` holds a glob bash expands (``_ARGUMENT_GLOB``): outside quotes and expansions."""
    return bool(_ARGUMENT_GLOB.search(_SPECIAL_PARAMETER.sub("", _AN_EXPANSION.sub("", _QUOTED.sub("", word)))))


# What comes before an option's value (`--config=`, `-c=`) or an assignment's (`CFG=`, `export CFG=`) in a word
_BEFORE_VALUE = re.compile(r'-{0,2}[A-Za-z_][\w.-]*(?:\[[^]]*\])?\+?=')


# Programs (and builtins) that run their words as a command (s51e: `timeout 600 ./x.sh`, `exec "$@"`, `nohup ./x.sh &`,
# `env A=1 ./x.sh`, `sudo -E ./x.sh`): each word after one that is no option or assignment may be the command run, a
# path there a file run (what it sources followed), as the command's own word is; an option's value taken for one
# (`timeout -s KILL 60`) names no file, and costs nothing
_RUNS_ITS_WORDS = frozenset(("exec", "command", "nohup", "timeout", "env", "stdbuf", "setsid", "nice", "ionice",
                             "chrt", "taskset", "numactl", "sudo", "doas", "xargs", "flock", "unbuffer", "strace",
                             "time", "mpirun", "mpiexec", "nsys", "ncu", "caffeinate", "chronic", "eval", "trap"))
# (the words before an array's elements run: ``_array_commands``)
_WRAPPERS_BEFORE = re.compile(r'(?:(?:^|[ \t])(?:' + "|".join(sorted(_RUNS_ITS_WORDS))
                              + r')(?:[ \t]+(?:-\S*|[0-9]\S*))*[ \t]+)+\Z')
_BATCH = frozenset(("sbatch", "srun", "salloc"))  # Slurm's: a script among their words is a program run
_BATCH_SCRIPT = (".sh", ".bash", ".slurm", ".sbatch", ".py")
# The options of ``_BATCH`` commands that take the next word as their value when written without `=` (`-o logs/%j.out`,
# `--container-image nvcr.io/x/y:1`): its short options (those that take one in any of the three, but `-W`, which is
# `sbatch`'s flag, and the optional `-I`, `-K`) and its long ones. Any other option (`--parsable`, `--wait`, `-l`,
# `--exclusive`, one added in a later Slurm) takes none: a word after it may be the script (s47f: `sbatch --parsable
# tools/run` runs tools/run), read as one, which costs a reuse at most.
_BATCH_VALUED_SHORT = frozenset("AaBbCcDdeFGiJLMmNnopqSTtrwx")
_BATCH_VALUED_LONG = frozenset((
    "account", "array", "begin", "chdir", "cluster", "clusters", "comment", "constraint", "container-env",
    "container-image", "container-mounts", "container-name", "container-workdir", "cpu-bind", "cpus-per-gpu",
    "cpus-per-task", "deadline", "dependency", "distribution", "error", "exclude", "export", "export-file", "extra",
    "gid", "gpu-bind", "gpus", "gpus-per-node", "gpus-per-task", "gres", "input", "job-name", "licenses",
    "mail-type", "mail-user", "mem", "mem-per-cpu", "mem-per-gpu", "mpi", "network", "nodefile", "nodelist", "nodes",
    "ntasks", "ntasks-per-gpu", "ntasks-per-node", "open-mode", "output", "partition", "priority", "qos",
    "reservation", "segment", "signal", "time", "time-min", "tmp", "uid", "wckey", "wrap"))


def _batch_valued(option: str) -> bool:
    """Whether the ``_BATCH`` command's ``option`` (a word, quotes taken) takes the next word as its value: one of
    ``_BATCH_VALUED_SHORT`` alone (`-o`; `-N2` holds its own) or ``_BATCH_VALUED_LONG`` with no `=`."""
    if option.startswith("--"):
        return option[2:] in _BATCH_VALUED_LONG
    return len(option) == 2 and option[0] == "-" and option[1] in _BATCH_VALUED_SHORT


def _batch_script(bare: str, before: str) -> bool:
    """Whether a word of a ``_BATCH`` command (``bare``: quotes taken; ``before``: the word before it) is a script it
    runs (s45d: `sbatch -N 2 shared/job.slurm`, `srun --mpi=pmix tools/run`): no option, and a script's ending, or a `/`
    where no option stands before it whose value it is (``_batch_valued``: `-o logs/%j.out`; not `--parsable
    tools/run`). Each such word is read as one: one that runs none costs a reuse at most."""
    if bare.startswith("-"):
        return False
    return bare.endswith(_BATCH_SCRIPT) or "/" in _AN_EXPANSION.sub("", bare) and not _batch_valued(before)


def _argument_words(text: str, code: str, literal, ends=()) -> tuple[list[tuple[int, str]], ...]:
    """Each word of each command of ``text`` (found where a command begins in its ``code``; not in a comment or a
    heredoc's body, ``literal``), its own word and its assignments among them, that may name a file the program opens
    (``_file_words``); never a redirection (``_read_words`` reads the file after `<`), nor ``_NO_ARGUMENTS``' words.
    Each an offset and the word; second, each command's own word that is a path (a `/` outside its expansions:
    `"./$f"`) or a Slurm one's script, a file run, and a word after a program that runs its words (s51e,
    ``_RUNS_ITS_WORDS``: `timeout 60 ./x.sh`) as its own; third, such a word that is an expansion (`"$@"`, `$cmd`)."""
    skipped = sorted((begin, end) for begin, end in literal if not text.startswith("'", begin))
    starts = [begin for begin, _ in skipped]
    found: list[tuple[int, str]] = []
    commands: list[tuple[int, str]] = []
    spots: list[tuple[int, str]] = []
    tests = [(t.start(), t.end()) for t in _TEST_SPAN.finditer(code)]
    for m in _COMMAND_WORD.finditer(code):
        at, first, batch, before, wrapped = m.end(), True, False, "", False
        if (blanked := next((i for i in range(m.start(), at) if text[i] != code[i]), at)) < at:
            # a quoted word, blank in the code: the command's own (`"./$f"`), else no command begins here (a string's
            # second line, an array's words)
            if not text.startswith(('"', "'", "$'", '$"'), blanked) or blanked and text[blanked - 1] not in _WORD_END:
                continue
            at = blanked
        if (k := bisect.bisect_right(tests, (at, at)) - 1) >= 0 and at < tests[k][1]:
            continue  # in a `[[ … ]]` test
        while at < len(text):
            if redirection := _A_REDIRECTION.match(text, at):
                at = redirection.end()
            elif not (word := _word(text, at)) or word.startswith("#") or (
                    k := bisect.bisect_right(starts, at) - 1) >= 0 and at < skipped[k][1]:
                break
            else:
                bare = _bare(word)
                if first and bare in _NO_ARGUMENTS or bare in _TEST_WORDS:
                    break
                assignment = shellgrammar.ASSIGNMENT.match(bare)
                own = (first or wrapped) and not assignment and not bare.startswith("-")
                if own and "/" in _AN_EXPANSION.sub("", bare) or batch and _batch_script(bare, before):
                    commands.append((at, word))
                if own and re.match(r"\$[{\w@*]", bare):
                    spots.append((at, word))
                batch, before = batch or first and not assignment and posixpath.basename(bare) in _BATCH, bare
                wrapped = wrapped or first and not assignment and posixpath.basename(bare) in _RUNS_ITS_WORDS
                first = first and bool(assignment)  # the command's word follows
                found += _file_words(text, at, word, ends)
                at += len(word)
            if not (gap := _WORD_GAP.match(text, at)):
                break
            at = gap.end()
    return found, commands, spots


def _file_words(text: str, at: int, word: str, ends=()) -> list[tuple[int, str]]:
    """The part of a command's ``word`` at ``at`` that may name a file (``_argument_words``): the word (`c.json`, one
    before a `)` that ``ends`` a `$( )` or subshell, s50c), or what follows the `=` of an option's or an assignment's
    word (`--config=c.json`); never an option, a number or a `case` pattern."""
    bare = _bare(word)
    if text.startswith(")", at + len(word)) and at + len(word) not in ends or re.search(r"\s", bare):
        return []  # a `case` item's pattern; a word no path is (read across a string's lines)
    if value := _BEFORE_VALUE.match(bare):
        k = word.index("=") + 1
        return [(at + k, word[k:])] if value.end() < len(bare) else []
    return [] if bare.startswith("-") or bare.isdigit() else [(at, word)]


_ASSIGNED = re.compile(r'(?<![^\s;&|(`])[A-Za-z_]\w*(?:\[[^]\n]*\])?\+?=\Z')  # a variable's name and `=` before a value


def assigned_at(text: str, at: int) -> bool:
    """Whether the word at ``at`` of ``text`` (``Reading.arguments``) is a variable's value (`D=shared`, `local D=b`,
    `export CFG=c.json`, `CFG=c.json cmd`), not a command's word or an option's (`--dir=shared`)."""
    return _assigned(text, at) is not None


def _assigned(text: str, at: int) -> re.Match | None:
    """``_ASSIGNED``'s match ending at ``at``: none unless an `=` stands right before it (asked first, the search
    costs a scan of up to _SPELLING_MAX characters at each of a script's words)."""
    if at < 1 or text[at - 1] != "=":
        return None
    return _ASSIGNED.search(text, max(0, at - _SPELLING_MAX), at)


_DECLARING = ("declare", "typeset", "local", "readonly")  # each exports with a `-x` among its options
_ALL_EXPORTED = re.compile(r'(?<![^\s;&|(`])set[ \t]+(?:-\w*a\w*|-o[ \t]+allexport)(?![\w-])')
_EXPORT_WORDS = re.compile(r'(?<![^\s;&|(`])(?:export|(?:declare|typeset)[ \t]+-\w*x\w*)[ \t]+([^\n;&|]*)')
_COMMAND_SEP = "\n;&|(`"  # what ends the command before a word (``exported_at``)
_PREFIX_WORD = re.compile(r'[A-Za-z_]\w*(?:\[[^]]*\])?\+?=|[0-9]*[<>#&]')  # an assignment, a redirection, a comment
# search paths a program looks for its code along, not data it reads: PATH and PYTHONPATH the reading follows itself
_SEARCH_PATH = re.compile(r'PATH|PYTHONPATH|LD_LIBRARY_PATH|LIBRARY_PATH|CPATH|MANPATH|PKG_CONFIG_PATH')


def exported_at(text: str, at: int) -> bool:
    """Whether a variable's value at ``at`` (``assigned_at``) is in the environment of a program the text runs, which
    may read the folder it names (`os.environ["CFG_DIR"]`): its assignment is an `export` or `declare -x`, or a
    command's (`CFG_DIR=shared/cfgs python3 r.py`), or the text exports its name elsewhere (`export CFG_DIR`) or every
    variable (`set -a`). Not a search path (``_SEARCH_PATH``: ``pyimports`` and ``path_folders`` follow those)."""
    m = _assigned(text, at)
    if m is None or _SEARCH_PATH.fullmatch(name := re.match(r"\w+", m.group()).group()):
        return False
    # what stands before the name in its command: from just after the last separator before it (``_COMMAND_SEP``;
    # a regex ending in \Z searched from 0 tried every position of the text before it, at each assignment)
    before = text[max(text.rfind(c, 0, m.start()) for c in _COMMAND_SEP) + 1:m.start()].split()
    after = text[at + len(_word(text, at)):].split("\n", 1)[0].split(";", 1)[0].split()
    if before and (before[0] == "export" or before[0] in _DECLARING and any(
            word.startswith("-") and "x" in word for word in before[1:])) or after and not _PREFIX_WORD.match(after[0]):
        return True  # (an `export`, or a command's word after it: no assignment, redirection or comment)
    every, names = _exports(text)
    return every or name in names


@functools.lru_cache(maxsize=32)
def _exports(text: str) -> tuple[bool, frozenset[str]]:
    """Whether ``text`` exports every variable (`set -a`), and the names its `export`/`declare -x` commands name:
    the whole text's, read once per text (``exported_at`` asks at each of its assignments)."""
    names = frozenset(name for words in _EXPORT_WORDS.findall(text)
                      for name in re.findall(r"(?<![\w$-])([A-Za-z_]\w*)(?![\w\[])", words))
    return _ALL_EXPORTED.search(text) is not None, names


# A redirection of a file to a command's input (`< f`, `0< f`, `<> f`, `$(< f)`; not a heredoc's `<<`, a here-string's
# `<<<`, a process substitution's `<(`, a duplication's `<&`), in the code: the file is read
_INPUT = re.compile(r'(?<![<>])[0-9]*<(?![<&(])>?')
_BLANKS_OR_NONE = re.compile(r'[ \t]*')
# A command that reads the files its words name (after words that may be empty and assignments, where a command
# begins): `cat .env`, `export $(grep -v '^#' .env | xargs)`, `head -1 cfg.json`, `jq . cfg.json`, `cp cfg.json /tmp`
_READER = re.compile(_MAY_BEGIN.pattern + r'(?:(?:command|exec|builtin)[ \t]+)?(?P<reader>cat|tac|head|tail|less|more|'
                     r'grep|egrep|fgrep|rg|sed|awk|gawk|jq|yq|sort|uniq|wc|cut|paste|nl|diff|cmp|comm|join|md5sum|'
                     r'sha1sum|sha256sum|sha512sum|base64|xxd|od|cp|install|rsync|scp|tar)(?=[ \t])', re.MULTILINE)
_A_REDIRECTION = re.compile(_REDIRECTION)


def _read_words(text: str, code: str, spans) -> tuple[list[tuple[int, str]], set[int]]:
    """The words of ``text`` (its ``code``, ``spans``) that name a file a command reads: the file after each input
    redirection (``_INPUT``), and each word of a reader command but its options and redirections (``_READER``; a
    word that names no file of the checkout reads nothing, ``recipes.helper_folders``); and the offsets of those
    read as data, never run: all but a file fed to an interpreter that runs its input (`bash < x.sh`, `python3 - <
    t.py`: ``_stdin_script``) and one a reader gives a shell to run (``_fed_to_shell``: `cat x | bash`, `bash -c
    "$(cat x)"`, `eval "$(< x)"`)."""
    found, data = [], set()
    strings = functools.cache(lambda: _shell_strings(text, code))
    for m in _INPUT.finditer(code):
        if word := _word(text, at := _BLANKS_OR_NONE.match(text, m.end()).end()):
            found.append((at, word))
            if not _stdin_script(text, code, spans, m.start()) and not _fed_to_shell(text, code, m.start(), strings):
                data.add(at)
    for m in _READER.finditer(code):
        run = _fed_to_shell(text, code, m.end("reader"), strings)
        for at, word in _command_words(text, m.end("reader")):
            if m["reader"] == "tar" and word.startswith(_TAR_FOLDER) and len(word) > len(_TAR_FOLDER):
                at, word = at + len(_TAR_FOLDER), word[len(_TAR_FOLDER):]  # the folder it packs from (``_tar_sources``)
            if not word.startswith("-") and not word.isdigit():  # (a number: an option's, `head -n 5`)
                found.append((at, word))
                if not run:
                    data.add(at)
    return found, data


def _command_line(text: str, at: int) -> list[str]:
    """The words after the command's own word that begins at ``at`` in ``text``, as written (``_command_words``)."""
    return [word for _, word in _command_words(text, at + len(_word(text, at)))]


def _command_words(text: str, at: int) -> list[tuple[int, str]]:
    """The words of the command whose own word ends at ``at`` in ``text``, each (its offset, the word), its
    redirections passed over, up to the operator that ends it."""
    words = []
    while gap := _WORD_GAP.match(text, at):
        at = gap.end()
        if redirection := _A_REDIRECTION.match(text, at):
            at = redirection.end()
            continue
        if not (word := _word(text, at)):
            break
        words.append((at, word))
        at += len(word)
    return words


# A command that copies the files its words name (``_copy_sources``), where a command begins, as ``_READER`` finds it
_COPY = re.compile(_MAY_BEGIN.pattern
                   + r'(?:(?:command|exec|builtin)[ \t]+)?(?P<copy>cp|install|rsync|scp|tar)(?=[ \t])', re.MULTILINE)
_COPY_TARGET = ("-t", "--target-directory")  # cp's and install's folder to copy into, before the files
_COPY_VALUED = {"cp": ("-S", "--suffix"), "install": ("-m", "--mode", "-o", "--owner", "-g", "--group", "-S"),
                "rsync": ("-e", "--rsh", "--exclude", "--include", "--filter", "-f"), "tar": (),
                "scp": ("-P", "-i", "-o", "-F", "-c", "-l", "-J", "-S", "-D", "-X")}
# A copy command whose copy lands on another host (s48i: `scp x.sh node:/tmp`): it may run there, from a working
# folder only the run knows
_REMOTE_COPY = "scp"
_TAR_FOLDER = "--directory="  # a `tar`'s folder to pack from or unpack into, in the option's own word
_TAR_VALUED = "fCTXbgHKLNV"  # tar's one-letter options that take the next word (`-czf out.tgz`, `cf -`)


def _copy_sources(text: str, code: str) -> dict[int, str]:
    """The offsets of the words of ``text`` (its ``code``) that a copy command copies from, as ``_read_words`` finds
    them (each with its command): each of `cp`'s, `install`'s, `rsync`'s or `scp`'s words but its options, their
    values and the last (the copy; the
    value of `-t`/`--target-directory` instead, when it has one), and each word a `tar` that creates an archive
    (`c` among its first letters, `--create`) packs, unless a `-C` moves where it packs from. A copy may run where it
    went (`cp shared/x.sh /tmp/F/x.sh; bash /tmp/F/x.sh`): its scripts are read as run from the working folder at the
    copy (``recipes.helper_folders``), or, copied to another host (``_REMOTE_COPY``), from one only the run knows."""
    found: dict[int, str] = {}
    for m in _COPY.finditer(code):
        command, words = m["copy"], _command_words(text, m.end("copy"))
        found.update(dict.fromkeys(_tar_sources(words) if command == "tar" else _copied_words(words, command), command))
    return found


def _copied_words(words: list[tuple[int, str]], command: str) -> list[int]:
    """The offsets of the files a `cp`, `install`, `rsync` or `scp` (``command``) of ``words`` copies
    (``_copy_sources``)."""
    files, target, skip, valued = [], False, False, _COPY_VALUED[command]
    for at, word in words:
        if skip:
            skip = False
        elif command == "install" and word in ("-d", "--directory"):  # (folders made, nothing copied)
            return []
        elif word in _COPY_TARGET or word in valued:
            skip, target = True, target or word in _COPY_TARGET
        elif word.startswith("-"):
            target = target or word.startswith(("--target-directory=", "-t"))
        else:
            files.append(at)
    return files if target else files[:-1]


def _tar_sources(words: list[tuple[int, str]]) -> list[int]:
    """The offsets of the files a `tar` of ``words`` packs (``_copy_sources``): none unless it creates an archive. A
    folder a `-C`/`--directory` moves it to packs from is one of them whole (`tar -C shared -czf /tmp/s.tgz .`: any
    file in it may be packed, and run where it is unpacked), and the words after it, paths in it, are left to it."""
    files, skip, create, valued, moved = [], 0, False, [], False
    for k, (at, word) in enumerate(words):
        bundle = word[1:] if word.startswith("-") and not word.startswith("--") else word if k == 0 else ""
        if skip:
            skip -= 1
            if valued and valued.pop(0) == "C":
                files.append(at)
                moved = True
        elif word in ("--create",) or word.startswith("--directory") or word.startswith("--file"):
            create = create or word == "--create"
            skip = 0 if "=" in word or word == "--create" else 1
            valued = ["C"] if word == "--directory" else []
            if word.startswith("--directory="):
                files.append(at + len("--directory="))  # (``_read_words`` reads the value from there)
                moved = True
        elif bundle and bundle.isalpha():
            create = create or "c" in bundle
            valued = [letter for letter in bundle if letter in _TAR_VALUED]
            skip = len(valued)
        elif not word.startswith("-") and not moved:
            files.append(at)
    return files if create else []


def _shell_strings(text: str, code: str) -> list[tuple[int, int]]:
    """Where each command string of a shell's `-c` or of an `eval` that begins with a command substitution stands in
    ``text`` (`bash -c "$(cat x)"`, `eval $(< x)`): what the substitution prints is the code run."""
    out = []
    for m in _STRING_COMMAND.finditer(code):
        at = gap.end() if (gap := _BLANKS.match(text, m.end())) else m.end()
        word = _word(text, at)
        if word.lstrip('"').startswith(("$(", "`")) and (not m["eval"] or _at_command_start(code, m.start())):
            out.append((at, at + len(word)))
    return out


def _fed_to_shell(text: str, code: str, at: int, strings) -> bool:
    """Whether what the reader at ``at`` prints (`cat x`, `< x`) runs as shell: its pipeline goes on into an
    interpreter that runs its input (`cat x | bash`, `cat x | tr -d '\\r' | bash -s`: no file's word, ``_script_word``),
    or it stands in a shell's command string that a command substitution begins (``strings()``: ``_shell_strings``)."""
    if any(begin <= at < end for begin, end in strings()):
        return True
    end = m.start() if (m := _PIPELINE_END.search(code, at)) else len(code)
    pipe = code.find("|", at, end)
    return pipe >= 0 and any(_script_word(text, w.end(), bool(re.search(PYTHON_NAME + r'\Z', w.group())))
                             is None for w in _INTERPRETER_WORD.finditer(code, pipe, end))


# A command that runs the words it reads from its input (or a file, `-a`) as arguments of the command after it
_XARGS = re.compile(r'(?<![\w./-])xargs(?![\w./-])')
_ECHOED = re.compile(r'[ \t]*(?:echo|printf)[ \t][^|]*\|[ \t]*xargs')  # its input: words written out
_ARG_FILE = re.compile(r'[ \t](?:-a|--arg-file)')


def _fed_by_xargs(text: str, code: str) -> list[tuple[int, str]]:
    """Each `xargs` that runs an interpreter with no file's word of its own (`cat list | xargs -n1 bash`, `xargs -a
    list python3`): the file run is a line of its input, which only the run knows (``Reading.unseen``), unless words
    written out are its input (`echo x.sh | xargs bash`: ``_SCRIPT_NAMED`` reads x.sh); an offset and its words up to
    the interpreter's, as said."""
    found, ends = [], [e.end() for e in _PIPELINE_END.finditer(code)]
    for m in _XARGS.finditer(code):
        begin = ends[k - 1] if (k := bisect.bisect_right(ends, m.start())) else 0
        end = e.start() if (e := _PIPELINE_END.search(code, m.end())) else len(code)
        if _ECHOED.match(code, begin) and "$" not in text[begin:m.start()] and not _ARG_FILE.search(code, m.end(), end):
            continue
        if (pipe := code.find("|", m.end(), end)) >= 0:
            end = pipe
        for w in _INTERPRETER_WORD.finditer(code, m.end(), end):
            if _script_word(text, w.end(), bool(re.search(PYTHON_NAME + r'\Z', w.group()))) is None:
                said = text[m.start():w.end()]
                found.append((m.start(), said if len(said) <= _SHOWN_MAX else said[:_SHOWN_MAX - 3] + "..."))
                break
    return found


# A `find` whose matches an interpreter runs: by its `-exec`/`-execdir` (`find shared -name y.sh -exec bash {} \;`,
# `+`), or by an `xargs` its output feeds (`find shared -name y.sh | xargs -I{} bash {}`). Each file run is one the
# find matches: read as every tracked file a `-name` pattern matches by its name, anywhere in the checkout (more than
# the start folders hold: hashing more costs a reuse at most, and a start folder only the run knows needs no reading);
# one with no `-name`, or a test that matches on more than a name (`-path`, `-regex`, `-iname`, a `!`/`-not`), is
# one only the run knows (``Reading.unseen``)
_FIND = re.compile(r'(?<![\w./$-])find(?![\w./-])')
_FIND_EXEC = frozenset(("-exec", "-execdir", "-ok", "-okdir"))
_FIND_BEYOND_A_NAME = frozenset(("-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-iname",
                                 "-lname", "-ilname", "!", "-not", "-samefile", "-inum", "-links"))


def _found_runs(text: str, code: str) -> list[tuple[int, list[str] | None, bool, int]]:
    """Each `find` of ``text`` (its ``code``) whose matches an interpreter runs (``_FIND``): its offset, its `-name`
    patterns (quotes taken; None when none, or one only the run knows, or a test beyond a name), whether it runs them
    from their own folder (`-execdir`: where only the run knows), and the offset of the `xargs` that runs them (-1:
    its `-exec`)."""
    found = []
    for m in _FIND.finditer(code):
        if not _at_command_start(code, m.start()) and not re.search(r'(?:sudo|timeout|nice|time|command|exec|env)'
                                                                     r'(?:[ \t]+[^\s;&|]+)*[ \t]+\Z',
                                                                     code[max(0, m.start() - 80):m.start()]):
            continue
        at, names, beyond, execdir, ran = m.end(), [], False, False, False
        while (gap := _WORD_GAP.match(text, at)) and (word := _word(text, at := gap.end())):
            bare = _bare(word)
            if bare in _FIND_EXEC:
                execdir = execdir or bare.endswith("dir")
                at += len(word)
                while (gap := _WORD_GAP.match(text, at)) and (each := _word(text, gap.end())):
                    at = gap.end() + len(each)
                    if _bare(each).lstrip("\\") in (";", "+"):
                        break
                    ran = ran or bool(_INTERPRETER_WORD.fullmatch(_bare(each)))
                continue
            if bare == "-name" and (gap := _WORD_GAP.match(text, at + len(word))):
                pattern = _word(text, gap.end())
                names.append(_bare(pattern))
                beyond = beyond or "$" in pattern or "`" in pattern or "/" in _bare(pattern) or not _bare(pattern)
                at = gap.end() + len(pattern)
                continue
            beyond = beyond or bare in _FIND_BEYOND_A_NAME
            at += len(word)
        fed = -1
        if not ran:
            end = e.start() if (e := _PIPELINE_END.search(code, at)) else len(code)
            while end < len(code) and code[end] == ";" and code[end - 1] == "\\":  # `\;`: a find's, no end
                end = e.start() if (e := _PIPELINE_END.search(code, end + 1)) else len(code)
            pipe = code.find("|", at, end)
            if pipe < 0 or not (x := _XARGS.search(code, pipe, end)) or not _INTERPRETER_WORD.search(
                    code, x.end(), end):
                continue
            fed = x.start()
        found.append((m.start(), None if beyond or not names else names, execdir, fed))
    return found


# `make` reads its makefile from the folder its `-C` names (`make -C shared`), else the working folder (`cd shared &&
# make`): `GNUmakefile`, `makefile`, `Makefile` there, or each `-f` file from that folder; what a makefile includes
# is not followed (a file it names that the checkout has is hashed only where a word of the text names it too)
_MAKE = re.compile(_MAY_BEGIN.pattern + r'(?:(?:command|exec|builtin|sudo|nice|time)[ \t]+)?(?P<make>g?make)'
                   r'(?=[ \t;&|)]|$)', re.MULTILINE)
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


def _made_at(text: str, at: int) -> bool:
    """Whether the word at ``at`` is a makefile a `make` reads (``_makefiles`` puts each at the last letter of `make`,
    where no other word starts): one in a folder only the run knows (`make -C "$D"`) is any tracked file ending so."""
    return at >= 3 and text.startswith("make", at - 3)


def _makefiles(text: str, code: str) -> list[tuple[int, str]]:
    """The makefile each `make` of ``text`` (its ``code``) reads (``_MAKE``), each at the offset of the last letter of
    `make` (no other word's), as a word
    written from the working folder there (`"$D"/Makefile` for `make -C "$D"`): read as data."""
    found = []
    for m in _MAKE.finditer(code):
        at, folder, files, option = m.end("make"), "", [], ""
        while (gap := _WORD_GAP.match(text, at)) and (word := _word(text, at := gap.end())):
            at += len(word)
            bare = _bare(word)
            if option:
                value = word
            elif bare in ("-C", "--directory", "-f", "--file", "--makefile"):
                option = bare
                continue
            elif bare.startswith(("-C", "-f")) and len(bare) > 2 and not bare.startswith("--"):
                option, value = bare[:2], word[word.index(bare[1]) + 1:]
            elif bare.startswith(("--directory=", "--file=", "--makefile=")):
                option, value = bare.split("=", 1)[0], word[word.index("=") + 1:]
            else:
                continue
            if option in ("-C", "--directory"):
                folder = value if _bare(value).startswith("/") or not folder else f"{folder}/{value}"
            else:
                files.append(value)
            option = ""
        found += [(m.end("make") - 1, f"{folder}/{name}" if folder and not _bare(name).startswith("/") else name)
                  for name in files or _MAKEFILES]
    return found


# A path whose file only a list the run reads names: after folders written out, a variable (or an element of an
# array) that such a list sets, or a command substitution (a loop's list `$(cat list.txt)`, ``_looped``)
_LISTED = re.compile(r'(?:[\w.+-]*/)*(?:\$(?:\{(?P<braced>[A-Za-z_]\w*)(?:\[[^]]*\])?\}|(?P<bare>[A-Za-z_]\w*))'
                     r'|\$\(.*\)|`.*`)', re.DOTALL)
_READS_A_LIST = ("read", "mapfile", "readarray")


def _listed_names(text: str, code: str, assigned: list[tuple[str, Place | None, int, int]]) -> frozenset[str]:
    """The variables ``text`` sets from what the run reads: by `read`, `mapfile`, `readarray` (`while read -r f; do …;
    done < list.txt`, `mapfile -t L < list.txt`), or to a command's output that is no place (`f=$(head -n 1
    list.txt)`; ``assigned``: ``Reading.assigned``)."""
    names = {name for name, place, start, end in assigned
             if place is None and text[start:end].lstrip('"').startswith(("$(", "`"))}
    for m in _WRITER.finditer(code):
        if m["writer"] in _READS_A_LIST:
            words, at = [], m.end("writer")
            while (gap := _BLANKS.match(text, at)) and (word := _word(text, gap.end())):
                words.append(word)
                at = gap.end() + len(word)
            names |= {_set_name(word, False) or "" for word in _named_words(m["writer"], words)}
    return frozenset(names - {"", _ANY})


def _listed(bare: str, listed: frozenset[str]) -> bool:
    """Whether the path ``bare`` (quotes taken) of a file run or read is one a list the run reads names
    (``_LISTED``, ``_listed_names``): which file that is only the run knows."""
    m = _LISTED.fullmatch(bare)
    return bool(m) and (not (m["braced"] or m["bare"]) or (m["braced"] or m["bare"]) in listed)


def _stdin_script(text: str, code: str, spans, at: int) -> bool:
    """Whether the command holding the input redirection at ``at`` has an interpreter that runs no file's word
    (``_script_word``: `bash < x.sh`, `bash -s < x.sh`, `python3 - < t.py`), so that it runs its input, or is an `ssh`
    (its input goes to the remote host, whose login shell or command may run it)."""
    lo, view, begin = _command_view(code, spans, at)
    if _SSH_COMMAND.search(view, begin):  # s48i: `ssh node < x.sh` (the remote login shell runs it), `ssh node 'cat >
        return True  # /tmp/x.sh' < x.sh` (a copy there, which may run): read as a script run, as `bash < x.sh`
    return any(_script_word(text, lo + m.end(), bool(m["python"])) is None for m in _INTERPRETER.finditer(view, begin))


def _command_view(code: str, spans: list[tuple[int, int]], at: int) -> tuple[int, str, int]:
    """The code of the command holding ``at`` up to it (``_run_elsewhere``): the offset it is read from (the innermost
    command substitution or subshell holding ``at``, the text's start when none), that code with what those closed
    before ``at`` hold blanked, and where the command begins in it (after its last ``_COMMAND_BREAK``)."""
    lo = max([start for start, end in spans if start < at < end], default=0)
    source, pieces, done = code[lo:at], [], 0
    # closed before ``at``: nothing in it begins the command (blanked, the spans' union in one pass: a script asks
    # this at each file it runs or reads, so a character list of all the code before each was most of a plan)
    for start, end in sorted((start - lo, end - lo + 1) for start, end in spans if lo <= start and end < at):
        if end > done:
            pieces += [source[done:max(start, done)], " " * (end - max(start, done))]
            done = end
    view = "".join(pieces) + source[done:]
    return lo, view, _last_break(view) + 1


def _last_break(view: str) -> int:
    """Where the last ``_COMMAND_BREAK`` of ``view`` stands (each is one character), -1 when none: read from the
    end, not by finding every one of them."""
    last = max(view.rfind(c) for c in _COMMAND_BREAK)
    newline = len(view)
    while (newline := view.rfind("\n", last + 1, newline)) > last:
        if newline == 0 or view[newline - 1] != "\\":
            return newline
    return last


def _run_elsewhere(code: str, spans: list[tuple[int, int]], at: int, text: str | None = None) -> bool:
    """Whether the file run at ``at`` (an interpreter's word) runs where only the run knows the working folder: an
    ``_ELSEWHERE`` command (`docker run`, `srun`, `env -C`) stands before it in its command. That command begins after
    the last ``_COMMAND_BREAK`` before ``at`` in the innermost command substitution or subshell holding it (``spans``,
    from ``shellcode.parts``; the text when none), what those closed before ``at`` hold skipped: a `$( )` inside a
    word begins no command (`srun --container-name=$(echo "$I" | sed …) bash x.sh` runs x.sh elsewhere). With the
    ``text``, a container tool named through a variable counts too (s48i: `$DOCKER run`, ``mounts.tool``)."""
    lo, view, begin = _command_view(code, spans, at)
    if _ELSEWHERE.search(view, begin) is not None:
        return True
    return (text is not None and (_VARIABLE_TOOL.search(view, begin) or _DEFAULT_TOOL.search(text, lo + begin, at))
            is not None and mounts.view(_words_before(text, lo + begin, at)) is not None)


def _words_before(text: str, i: int, at: int) -> list[str]:
    """The words of ``text`` from ``i`` (where a command begins) up to ``at``, as written."""
    words = []
    while i < at:
        if text[i].isspace() or text.startswith("\\\n", i):
            i += 1
            continue
        words.append(_word(text, i) or text[i])
        i += len(words[-1])
    return words


@dataclass(frozen=True)
class _Inside:
    """A container a command of the text starts (``mounts.View``), with the variables in force at that command on the
    host (its working folder among them), which say where each mount's source is."""
    view: mounts.View
    variables: dict

    def place(self, path: str) -> tuple[Place | None, bool, str | None]:
        """Where the checkout holds the container's absolute ``path``: its place (TOP, FOLDER; TAIL for a mount whose
        source starts where only the run knows, `-v "$REPO":/ws`), None when the mount holding it is no folder of the
        checkout (an absolute host path, a named volume); whether a mount holds it at all (when none does, it is the
        image's, or the checkout's mounted where only the run knows: every tracked file it ends in, a TAIL of its
        names); and its path from the workspace when the mount's source is the workspace (``Reading.
        ran_from_workspace``)."""
        held = self.view.holding(path)
        if held is None:
            return ((TAIL, tail) if (tail := _tail(path)) else None), False, None
        source, rest = held
        source = source.rstrip("/") or source
        host = f"{source}/{rest}" if rest else source
        if m := _WORKSPACE.match(host + "/"):
            path = posixpath.normpath(host[m.end():].lstrip("/") or ".")
            if path.startswith(".."):
                return None, True, None
            return (TOP, "" if path == "." else path), True, None if path == "." else path
        if not source or source.startswith("/"):  # (s48i: `~/ws`, `$HOME/ws` may hold the checkout: a written end)
            return None, True, None  # a folder of the host's (not the checkout), a named volume, a tmpfs
        if _LITERAL.fullmatch(host):  # `.`, `./repo`; a name alone is a named volume's
            place = _from_cwd(_cwd(self.variables), host) if host.startswith(".") else None
        else:
            place = _place(host, self.variables)
            place = (TAIL, tail) if place is None and (tail := _ran_tail(host, None)) else place
        if place and place[0] != TAIL and posixpath.normpath(place[1] or ".") == ".":
            place = (place[0], "")
        return place, True, None

    def within(self, relative: str) -> list[Place]:
        """The checkout's places a ``relative`` path (quotes taken) in the container may be: from the working folder
        its options name, when a mount of the checkout holds that path (`-w /workspace`, `--config bar/c.json` under
        `-v "$PWD/shared:/workspace/bar"`), and its ``aliases``."""
        found = []
        if self.view.workdir is not None:
            place, mounted, _ = self.place(posixpath.join(self.view.workdir, relative))
            found += [place] if mounted and place is not None and place[0] in (TOP, FOLDER) else []
        return found + [place for place in self.aliases(relative) if place not in found]

    def aliases(self, relative: str) -> list[Place]:
        """The checkout's places a ``relative`` path (quotes taken) read where only the run knows the container's
        working folder may be through a mount of a folder of the checkout under another name (s47f: `-v
        "$PWD/shared:/workspace/bar"`, then `bash bar/x.sh` or `--config bar/c.json` is shared/x.sh, shared/c.json when
        the container is in /workspace, which no mount holds or the options do not name): for each such mount, each
        start of ``relative`` that is the end of its target's names, the rest under its source. Reading one the run
        does not costs a reuse at most."""
        names = [name for name in posixpath.normpath(relative).split("/") if name not in ("", ".")]
        found: list[Place] = []
        for _, target in self.view.mounts:
            own = [name for name in target.split("/") if name]
            for k in range(1, min(len(own), len(names) - 1) + 1):
                if names[:k] == own[len(own) - k:]:
                    place, mounted, _ = self.place("/".join([target.rstrip("/"), *names[k:]]))
                    if mounted and place is not None and place[0] in (TOP, FOLDER) and place not in found:
                        found.append(place)
        return found

    @property
    def site(self) -> Place | None:
        """The folder of the checkout the container starts in: its working folder's place (``place``), None when the
        options write none (the image's) or the checkout holds it nowhere the options say."""
        if self.view.workdir is None:
            return None
        place, mounted, _ = self.place(self.view.workdir)
        return place if mounted else None


def _inside_at(text: str, code: str, spans, at: int, read: Reading, start: dict[str, Place | None]) -> _Inside:
    """The container the command holding ``at`` starts (``_Inside``; one of no options, ``mounts.View()``, for a
    command that runs elsewhere but starts none, `ssh`, `env -C`), read with the variables in force there."""
    lo, _, begin = _command_view(code, spans, at)
    words = _words_before(text, lo + begin, at)
    variables = _in_force(read.assigned, at, start)
    variables[_CWD] = _cwd_at(read.moved, at, start)
    return _Inside(mounts.view(words) or mounts.View(), variables)


# A command's word that starts a container (``mounts.TOOLS``, its folder aside), and where its command ends
_CONTAINER_TOOL = re.compile(r'(?<![^\s;&|(`])(?:[\w.+-]*/)*(?:' + "|".join(mounts.TOOLS) + r')(?=[ \t])')
# a word of the code that may follow a container tool named through a variable (s48i: `$DOCKER run`; the code blanks
# `"$X"`, `${X:-docker}`, so ``mounts.view`` of the text's words says whether one does)
_VARIABLE_TOOL = re.compile(r'(?<![^\s;&|(`])(?:run|exec|create)(?=[ \t])')
# and one whose default names the tool, in the text (`${SRUN:-srun} --container-mounts=…`: blank in the code)
_DEFAULT_TOOL = re.compile(r'\$\{[A-Za-z_]\w*:?[-=](?:[^{}/]*/)*(?:' + "|".join(mounts.TOOLS) + r')\}')
_COMMAND_END = re.compile(r'(?<!\\)\n|[;&|)]|\Z')


def _mounted(text: str, code: str, spans, read: Reading, start: dict[str, Place | None]) -> list[tuple[str, Place]]:
    """Each mount of a folder of the checkout (TOP, FOLDER) the commands of ``text`` that start a container write
    (``Reading.mounted``): its target ("" where it is not written out: `-v "$PWD/shared:$DEST"`) and the folder's
    place, as ``_Inside.place`` reads the mount's source with the variables in force at the command; whether or not
    the command runs a file the text names (`docker run -d … img` then `docker exec`: the image's own command may run
    one)."""
    found: list[tuple[str, Place]] = []
    for m in [*_CONTAINER_TOOL.finditer(code), *_VARIABLE_TOOL.finditer(code), *_DEFAULT_TOOL.finditer(text)]:
        end = _COMMAND_END.search(code, m.end()).start()
        container = _inside_at(text, code, spans, end, read, start)
        for _, target in container.view.mounts:
            place, mounted, _ = container.place(target)
            if mounted and place is not None and place[0] in (TOP, FOLDER) and (target, place) not in found:
                found.append((target, place))
        for source in container.view.unplaced:  # (s48h: its target only the run knows, said "")
            place, _, _ = _Inside(mounts.View(((source, "/"),)), container.variables).place("/")
            if place is not None and place[0] in (TOP, FOLDER) and ("", place) not in found:
                found.append(("", place))
    return found


def _containers(text: str, code: str, spans, read: Reading, start: dict[str, Place | None], elsewhere: set[int],
                inside: "_Inside | None"):
    """The container of each word's offset of ``_ran`` (asked once each): its command's (``_inside_at``) when that runs
    elsewhere (``elsewhere``, ``_run_elsewhere``), else ``inside``, the one the text runs in (None: this host)."""
    return functools.cache(lambda at: _inside_at(text, code, spans, at, read, start)
                           if at in elsewhere or _run_elsewhere(code, spans, at, text) else inside)


def _string_inside(text: str, code: str, spans, offsets: list[int], read: Reading,
                   start: dict[str, Place | None]) -> "_Inside | None":
    """The container a command string (at ``offsets``, ``_read``) runs in when its command runs elsewhere
    (``_run_elsewhere``: `srun --container-mounts=… bash -c '…'`), else None."""
    if not offsets or not _run_elsewhere(code, spans, offsets[0], text):
        return None
    return _inside_at(text, code, spans, offsets[0], read, start)


def _contained(read: Reading, at: int, word: str, how: tuple[bool, bool, bool], tails: dict,
               inside) -> list[tuple[Place | None, Place | None]] | None:
    """Where the file ``word`` at ``at`` (``_ran``; ``how``: ``_ran_places``') is when it runs in a container (``inside()``:
    its ``_Inside``, None when it runs on this host): an absolute path by the container's mounts (``_Inside.place``;
    one no mount holds is run from a start only the run knows, a written end in ``tails``, and never read as data), a
    relative path from the folder the container's options start it in; None when that says nothing (``_ran_places``
    reads it)."""
    elsewhere, data, argument = how
    bare = _bare(word)
    if not (mounts.ABSOLUTE.fullmatch(bare) or elsewhere and _LITERAL.fullmatch(bare)) or (
            container := inside()) is None:
        return None
    path = posixpath.join(container.view.workdir or "/", bare)
    if not bare.startswith("/") and container.site is None and (
            container.view.workdir is None or container.view.holding(path) is None):
        return None
    # (a relative path: from the working folder the options name, which a mount of the checkout holds, or which holds
    # a mount of it, s47f: `-v "$PWD/shared:/workspace/bar" -w /workspace … bash bar/x.sh` runs shared/x.sh)
    place, mounted, workspace = container.place(path)
    site = ARGUMENT if argument else READ_AS_DATA if data else container.site
    if not mounted and (data or argument):
        # the image's or the run's own file, mostly, where the options write the mounts; where they write none
        # (`docker exec`, `ssh`), the checkout may be mounted there (s47f: every tracked file it may be, as data)
        if not container.view.written and (tail := _absolute_data_tail(bare)):
            tails[at, tail, site] = ABSOLUTE_DATA
        return []
    if place is not None and place[0] == TAIL:
        tails[at, place[1], site] = ABSOLUTE_DATA if data or argument else ""
        return []
    if workspace is not None and not data and not workspace.startswith(".."):
        read.ran_from_workspace.append((at, workspace))
    return [] if place is None else [(place, site)]


def _with_an_interpreter(text: str, ends: list[int], start: int, end: int) -> bool:
    """Whether the pipeline of ``text`` that holds ``text[start:end]`` (between the ``_PIPELINE_END`` before it and the
    one after it, at ``ends``) holds an interpreter's word too (``_INTERPRETER_WORD``: `cat x.sh | bash`)."""
    k = bisect.bisect_left(ends, start)
    begin, stop = ends[k - 1] + 1 if k else 0, ends[k] if k < len(ends) else len(text)
    return _INTERPRETER_WORD.search(text[begin:start] + " " + text[end:stop]) is not None


def _ran_tail(word: str, place: Place | None) -> str | None:
    """The written end of a path run (``_ran``) whose start only the run knows: a place's (``TAIL``), or that after the
    last expansion of a ``word`` that is no place (`"$D/x.sh"`); None for a place, a path outside the checkout or one
    with no name written (``_unseen``)."""
    if place is not None:
        return place[1] if place[0] == TAIL and place[1] else None
    bare = word.replace('"', "").replace("'", "")
    if not _unseen(word, False) or bare.startswith(_STANDARD_INPUT):
        return None
    return _tail(_TAIL.search(bare))


def _cwds_at(moved: list[tuple[int, Place | None, int]], at: int,
             start: dict[str, Place | None] | None = None) -> list[Place | None]:
    """The working folders a path named at ``at`` may be from: the one there (``_cwd_at``); where that is one only the
    run knows (after a `cd` the run may not make, ``_flowed``), each of the script's folder or one under it that was
    one before ``at`` too (`cd "$(dirname "$0")"; [ -n "$X" ] && cd sub; python3 ./client.py`: either)."""
    cwd = _cwd_at(moved, at, start or {})
    if cwd is not None and cwd[0] != TAIL:
        return [cwd]
    return list(dict.fromkeys([place for where, place, _ in moved if where < at and place and place[0] == FOLDER]
                              or [cwd]))


def _spelled(text: str, i: int) -> tuple[str, str, int]:
    """The place's spelling that starts at ``text[i]`` (`$(...)`, `${...}`, `$X`), the path after it (the
    spelling's closing quote skipped: `"$(dirname "$0")"/client.py`), and how far to look on for the next
    when it is none (past a `$(` left open for ``_SPELLING_MAX`` characters: what it holds is no place)."""
    if text.startswith("$(", i):
        head = _word(text[i:i + _SPELLING_MAX], 0, group=True) if _PLACE_COMMAND.match(text, i) else ""
        if not head.endswith(")"):
            return "", "", max(len(head), 1)
    else:
        m = _SELF_FOLDER.match(text, i) or _SELF.match(text, i) or _VARIABLE.match(text, i)
        if not m:
            return "", "", 1
        head = m.group()
    j = i + len(head) + (text.startswith('"/', i + len(head)))
    rest = _REST.match(text, j).group()
    return text[i:j], rest, 1


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
        elif not top and (c.isspace() or c in ";&|<>)`"):
            break
        i += 1
    return text[start:i]


def _words(s: str) -> list[str]:
    """``s`` (quotes removed) cut into words (a `\\` and a line break between them too); an operator's
    characters one a word."""
    out, i = [], 0
    while i < len(s):
        if s[i].isspace() or s[i] == "\\" and s[i + 1:i + 2] == "\n":
            i += 1 + (s[i] == "\\")
            continue
        out.append(_word(s, i) or s[i])
        i += len(out[-1])
    return out


def _place(s: str, variables: dict[str, Place | None]) -> Place | None:
    """Where the word ``s`` (quotes removed) points (module docstring), or None."""
    if _LITERAL.fullmatch(s):
        return (TOP, posixpath.normpath(s)) if "/" in s or s.endswith(".sh") else None
    head, end = _head(s, variables)
    rest = _VARIABLE.sub(lambda m: _written(m, variables), s[end:]) if head is not None and "$" in s[end:] else s[end:]
    if head is None or not _REST.fullmatch(rest):
        return None
    if not rest.strip("/"):
        return head
    if head[0] == SELF:
        return None
    return head[0], posixpath.normpath(posixpath.join(head[1], rest.lstrip("/")))


def _written(m: re.Match, variables: dict[str, Place | None]) -> str:
    """A variable's expansion (``m``, ``_VARIABLE``) after a word's start (``_place``), as the relative path written out
    that the text set it to (``_RELATIVE``: `RUN_FILE=server.sh; F="$WS_PATH/${RUN_FILE}"` is `"$WS_PATH/server.sh"`),
    else as it stands (no place: the word is none)."""
    value = variables.get(m["braced"] or m["bare"])
    return value[1] if value and value[0] == _RELATIVE and _LITERAL.fullmatch(value[1]) else m.group()


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
        value = variables.get(name) if name in variables else _cwd(variables) if name == "PWD" else None
        return (_from_cwd(_cwd(variables), value[1]) if value and value[0] == _RELATIVE else value), m.end()
    return None, 0


def _relative_value(word: str, place: Place | None) -> Place | None:
    """An assignment's ``place``, or (``_RELATIVE``, the path) when its ``word`` is a relative path written out: bash
    reads it from the working folder where the variable is used (`LIB=a.sh; cd c; source "$LIB"` sources c/a.sh)."""
    bare = word.replace('"', "").replace("'", "")
    return (_RELATIVE, place[1]) if place and place[0] == TOP and _LITERAL.fullmatch(bare) else place


def _from_cwd(cwd: Place | None, relative: str) -> Place | None:
    """Where the relative path ``relative`` is from the working folder ``cwd``: a place, or a written end when only the
    run knows the folder (``_tail``)."""
    if cwd is None:
        return (TAIL, tail) if (tail := _tail(relative)) else None
    return cwd[0], posixpath.normpath(posixpath.join(cwd[1] or ".", relative))


def _command(words: list[str], variables: dict[str, Place | None]) -> Place | None:
    """Where the output of a command substitution (its words) points: dirname, cd && pwd, realpath,
    readlink -f, pwd."""
    name, args = (words[0], [w for w in words[1:] if w != "--"]) if words else ("", [])
    if name == "pwd" and all(a in ("-P", "-L") for a in args):
        return _cwd(variables)
    if name == "git" and args == ["rev-parse", "--show-toplevel"]:
        return TOP_CWD
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
