"""Where a rehearsed script is: bash's own call stack, written by a DEBUG trap.

bash reads ``$BASH_ENV`` before a script's first line. The rehearsal points it at a file that puts it
back as the job had it (unset, or the job's own file, read then), turns on `set -T` (functions, command
substitutions and subshells inherit the DEBUG trap) and sets a DEBUG trap that writes the call stack
(``$LINENO``, ``BASH_SOURCE``, ``BASH_LINENO``): in the script's own shell before each command on a line
of the script itself, over one file (``where``, with how many it wrote; a library function it calls runs
under its call's line, and writes nothing), and in each subshell before its first command, to another
(``subshells``, with its PID, start time, that count as it was started, function and command). The script
runs unchanged otherwise: ``$?``, ``$_`` and ``PIPESTATUS`` are kept, the trap writes nothing to its
output, `set -x` traces none of it (on stderr or at ``BASH_XTRACEFD``), a `set -e` script is not stopped
by it, and what `set -T` would change is not: a DEBUG or RETURN handler of the script's own runs where
plain bash runs it (`set -T` is off while a RETURN trap is set, and for a command that may set one or a
DEBUG trap, a `trap` run through a variable too, `$cmd ... RETURN` with cmd=trap: a `trap` whose signal
words name neither keeps it on),
`$-`, `$SHELLOPTS`, `set -o`, `shopt -o` and `[[ -o functrace ]]` show no functrace unless the script set it
itself (then it is the script's; a function's `local -` putting back options saved with the rehearsal's `set -T`
is not the script setting it). What the script sees is a function (``_sweepgate_at``) and variables named
``_sweepgate_*``; a function of its own named as a builtin the trap runs (`echo`, `printf`, `read`, `set`,
`trap`, `local`, `unset`: the trap calls each as `builtin`) runs only where the script calls it. A script
that sets a DEBUG trap of its own replaces the rehearsal's: where its shell is is unknown from then on (an
empty stack, written over the `trap` line's; ``place`` also takes a stack ending at such a line for unknown),
also once it clears it (`trap - DEBUG`: nothing of the rehearsal's runs to see that, and a `trap` function of
its own would change what the script runs).
"""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path

from sweepgate.core import scriptlines, shellcode, shellgrammar, shellwords
from sweepgate.core.textmode import decoded

PREVIOUS = "SWEEPGATE_BASH_ENV"  # the job's own BASH_ENV, read after the trap's file puts it back
# bash's stack as the trapped command has it: ``_sweepgate_at``'s own frame (BASH_SOURCE[0]) left out
_STACK = '"$1" "$((${#BASH_SOURCE[@]} - 1))" "${BASH_SOURCE[@]:1}" "${BASH_LINENO[@]:1}"'
# what shows `set -T` (`$-`, `$SHELLOPTS`, `set`, `set -o`, `shopt -o`, `[[ -o functrace ]]`) or may set a trap
# (DEBUG, RETURN)
_READS = "*'$-'*|*'${-'*|*SHELLOPTS*|*shopt*|*functrace*|set|set\\ *|*\\ set\\ *"
# `local -` (its words may hold other names): the options are saved as it runs and put back as its function returns.
# A `local` with a `-` between blanks somewhere (cheap, tried first), then that again once ``_LOCAL_WORDS`` blanked
# what is inside its words.
_LOCAL_OPTIONS = "?(builtin+([[:space:]]))local[[:space:]]@(*[[:space:]]|)-?([[:space:]]*)"
# ``_sweepgate_lo COMMAND``: whether COMMAND is a `local -` read as bash reads its words: each '...', "..." (its `\x`),
# `\x`, `...`, and $( ), ${ } or array ( ) with none nested inside, is one `_`, so the `-` of `local msg='a - b'`,
# `local n=$(echo x - y)`, `local p=(a - b)` is no word of its own. A ( ) or { } with one nested inside, or a quote
# left open, is no `local -` (the rehearsal's `set -T` is then taken for the script's, as before s39a). Left to
# right, each step cutting what it read off the front: a glob matching the whole text at once (extglob's nested
# repetition) took seconds on a `local` of sixty values.
_LOCAL_WORDS = r"""_sweepgate_lo() {
  builtin local c="$1" out= pre
  while [[ $c == *[\'\"\\\`\(\{]* ]]; do
    pre=${c%%[\'\"\\\`\(\{]*}; out+=${pre}_; c=${c:${#pre}}
    case ${c:0:1} in
      \') c=${c:1}; [[ $c == *\'* ]] || return 1; c=${c#*\'} ;;
      \") c=${c:1}
          while [[ $c == *[\"\\]* ]]; do
            pre=${c%%[\"\\]*}; c=${c:${#pre}}
            [[ $c == \\* ]] || break; c=${c:2}
          done
          [[ $c == \"* ]] || return 1; c=${c:1} ;;
      \\) c=${c:2} ;;
      \`) c=${c:1}; [[ $c == *\`* ]] || return 1; c=${c#*\`} ;;
      \() c=${c:1}; pre=${c%%[()]*}; [[ $c == "$pre)"* ]] || return 1; c=${c#*\)} ;;
      \{) c=${c:1}; pre=${c%%[\{\}]*}; [[ $c == "$pre}"* ]] || return 1; c=${c#*\}} ;;
    esac
  done
  [[ $out$c == LOCALOPTS ]]
}
"""
_SHOWS = f"@(*trap*|{_READS})"
# A `trap` whose words are all known before it runs and whose signals (the words after its handler, one word
# of its own: plain, or one quoted string) hold no DEBUG or RETURN: it sets (or prints) only other traps, so
# what `set -T` changes is not at stake, unless its text also reads the options (`trap "echo $-" EXIT` expands
# it now). Matched against the command upper-cased (bash takes `debug` too).
# A handler `trap cleanup_debug EXIT` or `trap 'rm -f debug.log' EXIT` names no signal; `trap "$1" "$2"`,
# `trap x $sig`, `builtin trap ...` are not known before they run.
_HANDLER = ("TRAP+([[:space:]])?(--+([[:space:]]))"  # then one word: unquoted, '...' or "..."
            "@(+([![:space:]\\\"\\\\\\'])|\\'*([!\\'])\\'|\\\"*([!\\\"\\\\]|\\\\?)\\\")")
_SIGNAL = "+([[:space:]])+([[:alnum:]_+-])"
_SETS_OTHERS = (f"$_sweepgate_c != @({_READS}) && ${{_sweepgate_c^^}} == {_HANDLER}+({_SIGNAL})*([[:space:]])"
                f" && ${{_sweepgate_c^^}} != {_HANDLER}*({_SIGNAL})+([[:space:]])?(SIG)@(DEBUG|RETURN)"
                f"*({_SIGNAL})*([[:space:]])")

# The trap's work, a function of the BASH_ENV file: parsed once (a trap's string is parsed each time it
# runs), called with the trapped command's `$LINENO` and `$_` (its last word: `$_` is that again after it).
# In the script's own shell it writes the stack over ``where`` when the command is on a line of the script
# itself (a library function's runs under its call's line), in a subshell its first command's to
# ``subshells``. `set -T` (for functions, command substitutions and subshells to inherit the trap) also
# hands a caller's RETURN trap to each function it calls and shows in `$-`: it is turned off before a
# command that shows it or may set a DEBUG or RETURN trap (not a `trap` of other signals, ``_SETS_OTHERS``:
# nothing of the script's shell may run before a `( ... ) &` after it, to turn it on again), and wanted on
# again after (``_sweepgate_want``; the trap's string turns it on once `trap -p RETURN` says no RETURN trap
# is set: a function called from a DEBUG trap sees none). ``_sweepgate_T``: how it was left (T, empty), `-`
# once `$-` says the script set or unset it itself (from then on it is the script's). A function's `local -` saves
# the options as they are, the rehearsal's `set -T` too, and its return puts them back, which no command of the
# script did: ``_sweepgate_lm`` holds the depth (``FUNCNAME``) of each such function not yet returned (one that ran
# it while `set -T` was the rehearsal's), and once the shell is above one, how `set -T` is now is how it was left,
# the rehearsal's again (a `set -T` of the script's inside it was put back too). Before the script's
# own `trap` of a DEBUG (or RETURN) handler, an empty stack is written over the `trap` line's: its DEBUG
# handler replaces the rehearsal's, so where its shell is is unknown from then on. In a subshell its record
# also holds how many commands the script's shell had written, the function and the command
# (`${FUNCNAME[1]}`: [0] is this function's).
# The command is read as ``_sweepgate_c``: its text, or `trap TEXT` where its first word is a variable ($NAME,
# ${NAME}, "$NAME") whose value is `trap` or `builtin` (`cmd=trap; $cmd 'rm -rf "$d"' RETURN`), a `trap` all the same.
# Each command succeeds: a DEBUG trap's failing one stops a `set -e` script.
_FUNCTION = """LOCALWORDS_sweepgate_at() {
  _sweepgate_c=$BASH_COMMAND
  if [[ $_sweepgate_c == ?(\\\")\\$?(\\{)[[:alpha:]_]* ]]; then
    _sweepgate_c=${_sweepgate_c#\\\"}; _sweepgate_c=${_sweepgate_c#?}; _sweepgate_c=${_sweepgate_c#\\{}
    _sweepgate_c=${_sweepgate_c%%[!A-Za-z0-9_]*}
    [[ ${!_sweepgate_c-} == @(trap|builtin)?([[:space:]]*) ]] && _sweepgate_c="trap $BASH_COMMAND" ||
      _sweepgate_c=$BASH_COMMAND
  fi
  if [[ $BASHPID == "$$" ]]; then
    if [[ ${BASH_SOURCE[1]} == "${BASH_SOURCE[-1]}" ]]; then
      _sweepgate_n=$((${_sweepgate_n:-0} + 1)); builtin printf '%s\\0' "$_sweepgate_n" STACK 1<>WHERE || :
    fi
  elif [[ ${_sweepgate_pid-} != "$BASHPID" ]]; then
    _sweepgate_pid=$BASHPID; builtin local stat; builtin read -r stat </proc/$BASHPID/stat || stat=
    builtin printf '%s\\0' "$BASHPID" "${stat##*)}" "${_sweepgate_n:-0}" "${FUNCNAME[1]-}" "$BASH_COMMAND" STACK \\
      >>SUBSHELLS || :
  fi
  while [[ -n ${_sweepgate_lm[0]-} ]] && (( _sweepgate_lm[-1] > ${#FUNCNAME[@]} )); do
    builtin unset '_sweepgate_lm[-1]'; _sweepgate_T=; [[ $- != *T* ]] || _sweepgate_T=T
  done
  [[ ${_sweepgate_T--} == - || $BASH_COMMAND != LOCALOPTS ]] || ! _sweepgate_lo "$BASH_COMMAND" ||
    _sweepgate_lm+=("${#FUNCNAME[@]}")
  [[ ${_sweepgate_T--} == - || $_sweepgate_T == T && $- == *T* && ( $_sweepgate_c != SHOWS || OTHERS ) ]] || {
    builtin local is=; [[ $- != *T* ]] || is=T
    if [[ $is != "$_sweepgate_T" ]]; then _sweepgate_T=-
    elif [[ $_sweepgate_c == SHOWS && ! ( OTHERS ) ]]; then [[ -z $_sweepgate_T ]] || { builtin set +T; _sweepgate_T=; }
    else _sweepgate_want=T _sweepgate_last=$2; fi
  }
  [[ $BASHPID != "$$" || $_sweepgate_c != trap[[:space:]]* || $_sweepgate_c == *[[:space:]]-[lp]* ||
     ${_sweepgate_c^^} != *@(DEBUG|RETURN)* || OTHERS ]] ||
    builtin printf '%s\\0' "${_sweepgate_n:-0}" 0 0 1<>WHERE || :
  _sweepgate_xfd=; return 0
}
"""
# Nothing of the trap may reach `set -x`'s trace, on stderr or on the fd `BASH_XTRACEFD` names: the trap
# runs with both closed. Closing its trace fd puts bash's trace back on stderr, so the fd is named again
# after (by `printf -v`, whose last word keeps `$_`). The fd is worked out in a redirection's word, which
# nothing traces: ``_sweepgate_xfd`` (emptied by ``_sweepgate_at``) is assigned there, as a key of an
# associative array (no arithmetic: any value is harmless; a leading 0 keeps `-1` from closing anything).
_TRAP = ('{ { _sweepgate_at "$LINENO" "$_"; [[ -z ${_sweepgate_want-} ]] || '
         '{ { builtin trap -p RETURN; builtin echo; } 1<>RETURNS"$BASHPID" && '
         'builtin read -r _sweepgate_ret <RETURNS"$BASHPID" || _sweepgate_ret=unknown; '
         '[[ -n $_sweepgate_ret ]] || { builtin set -T; _sweepgate_T=T; }; _sweepgate_want=; : "$_sweepgate_last"; }; '
         '} {_sweepgate_xfd}>&-; [[ -z ${BASH_XTRACEFD-} ]] || builtin printf -v BASH_XTRACEFD %s%.0s "$BASH_XTRACEFD" '
         '"$_" || : "$_"; } 2>&"${_sweepgate_none[${_sweepgate_xfd:=0${BASH_XTRACEFD:-2}}]-}-"')


def install(work: Path, env: dict[str, str]) -> dict[str, Path]:
    """Write the BASH_ENV file into ``work`` and point ``env`` at it; the paths its trap writes."""
    paths = {"where": work / "script.where", "subshells": work / "script.subshells"}
    for path in paths.values():
        path.unlink(missing_ok=True)  # a run before's stack in this --work-dir is not this one's
    function = (_FUNCTION.replace("LOCALWORDS", _LOCAL_WORDS).replace("STACK", _STACK).replace("SHOWS", _SHOWS)
                .replace("OTHERS", _SETS_OTHERS).replace("LOCALOPTS", _LOCAL_OPTIONS)
                .replace("WHERE", shlex.quote(str(paths["where"])))
                .replace("SUBSHELLS", shlex.quote(str(paths["subshells"]))))
    trap = _TRAP.replace("RETURNS", shlex.quote(str(work / "script.return.")))  # one a PID: none shared
    file = work / "bash_env.sh"
    file.write_text(
        "# sweepgate rehearse: BASH_ENV of the rehearsed script (rehearsal/linetrap.py)\n"
        f'if [[ -n "${{{PREVIOUS}:-}}" ]]; then BASH_ENV=${PREVIOUS}; unset {PREVIOUS}; . "$BASH_ENV"\n'
        f"else unset BASH_ENV {PREVIOUS}; fi\n"
        f'if [[ -z "$(builtin trap -p DEBUG)" ]]; then\n{function}'
        "declare -A _sweepgate_none=(); _sweepgate_xfd=\n"
        "if [[ $- == *T* ]]; then _sweepgate_T=-; else builtin set -T; _sweepgate_T=T; fi\n"
        f"builtin trap {shlex.quote(trap)} DEBUG\nfi\n",
        encoding="utf-8")
    env.pop(PREVIOUS, None)  # one of a rehearsal this one runs in is not the job's
    if env.get("BASH_ENV"):
        env[PREVIOUS] = env["BASH_ENV"]
    env["BASH_ENV"] = str(file)
    return paths


Stack = list[tuple[str, int]]  # bash's call stack: (file as bash names it, line), innermost frame first


def _records(data: bytes, head: int) -> list[tuple[list[str], Stack]]:
    """The whole records of a trap's file: ``head`` fields, then the stack (a record cut short ends it)."""
    fields, out, i = data.decode("utf-8", "surrogateescape").split("\0"), [], 0
    while i + head + 2 < len(fields):
        lineno, count = fields[i + head], fields[i + head + 1]
        if not (lineno.isdigit() and count.isdigit()) or i + head + 2 + 2 * int(count) >= len(fields):
            break
        n, at = int(count), i + head + 2
        sources, lines = fields[at:at + n], fields[at + n:at + 2 * n]
        stack = [(sources[0], int(lineno))] if n else []
        stack += [(sources[k], int(lines[k - 1])) for k in range(1, n) if lines[k - 1].isdigit()]
        out.append((fields[i:i + head], stack))
        i = at + 2 * n
    return out


def stopped_at(path: Path | None) -> tuple[int, Stack]:
    """How many commands the script's own shell had written, and the stack of the one it runs now (read
    before it is stopped: its TERM handler's commands would be written over it); the stack is empty when
    there is none (no trap, a file cut short). The trap writes it over the one before from the file's
    start, never truncating it (on ext4 a file truncated and written again is flushed to the disk as it is
    closed: milliseconds a command), so what follows the first record is what is left of longer ones before."""
    for _ in range(3):  # the first time it is written, in the moment before its bytes are there
        try:
            found = _records(path.read_bytes(), 1) if path else []
        except OSError:
            return 0, []
        if found and found[0][0][0].isdigit():
            return int(found[0][0][0]), found[0][1]
        time.sleep(0.01)
    return 0, []


def _started(path: Path | None, started: dict[int, str], root: Path | None) -> list[tuple[int, int, Stack]]:
    """(PID, the count of the script's shell's commands it was started after, where it was started) of each
    subshell the trap wrote whose PID ``started`` (PID -> start time, of the processes alive as the script
    was stopped) has with the same start time (a PID given to another process after the subshell ended is
    none of its): the stack of its first command, less the frame of a function it was started to run (`f &`:
    that command is the function's entry, at its definition; the line that started it is its call), at the
    line of the `(` that opens it when that is on a line before (``_opening``; not the `(` of a function's
    body, `f() (`: the call started that subshell, and its line is a frame of the stack). A stack whose innermost line,
    in a file of the repository at ``root``, does not hold its command's name is empty (unknown): bash
    numbers the lines inside a `$( )` over lines from the line it gives the whole command, so such a line
    is another command's."""
    try:
        found = _records(path.read_bytes(), 5) if path else []
    except OSError:
        return []
    out, sources = [], {}  # each file a stack stands in read once (``_Source``)
    for (pid, stat, count, function, command), stack in found:
        start = stat.split()[19:20]
        if pid.isdigit() and count.isdigit() and start and started.get(int(pid)) == start[0]:
            called = shellwords.command_name(command)  # a function's entry has its call's: `X=1 watch`
            entry = len(stack) > 1 and function not in ("", "source", "main") and called == function
            stack = stack[1:] if entry else stack
            if root is not None:
                name = stack[0][0] if stack else None
                if name not in sources:
                    sources[name] = _Source(root, name)
                source = sources[name]
                stack = ((stack if entry else _opening(source, stack, function))
                         if _holds(source, stack, called) else [])
            out.append((int(pid), int(count), stack))
    return out


def subshells(path: Path | None, started: dict[int, str], parents: dict[int, int] | None = None,
              root: Path | None = None) -> dict[int, Stack]:
    """PID -> where it was started (``_started``), for each subshell alive as the script was stopped, and for
    each process such a subshell started (``parents``: PID -> parent PID, of the same processes)."""
    out = {pid: stack for pid, _, stack in _started(path, started, root)}
    for pid in started:
        ancestor = _ancestor(pid, out, parents or {})
        if ancestor is not None:
            out.setdefault(pid, out[ancestor])
    return out


def _ancestor(pid: int, among, parents: dict[int, int]) -> int | None:
    """The nearest of ``among`` that ``pid`` is or descends from (``parents``: PID -> parent PID), or None."""
    seen = set()
    while pid not in among and pid in parents and pid not in seen:
        seen.add(pid)
        pid = parents[pid]
    return pid if pid in among else None


def waited_on(path: Path | None, started: dict[int, str], parents: dict[int, int], script: int, count: int,
              root: Path) -> Stack:
    """Where the subshell the script's own shell (PID ``script``) waits on was started: one alive, of it,
    that it started after the last command it wrote (``count``, ``stopped_at``; a `( ... )` runs no command
    of the script's shell), the last started of them; empty when there is none, or where it is unknown."""
    found = [(started[pid], k, stack) for k, (pid, n, stack) in enumerate(_started(path, started, root))
             if n == count and _ancestor(pid, {script}, parents) == script]
    return max(found, key=lambda f: (int(f[0]) if f[0].isdigit() else 0, f[1]))[2] if found else []


class _Source:
    """The file of the repository a stack's innermost frame names (``name``, as bash names it; None: no frame), read
    once, when first asked, for all that is asked of it: its ``lines`` as ``scriptlines.file_lines`` reads them
    (``_holds``), its ``text`` (``_opening``, ``in_command``; as ``Path.read_text`` decodes it: universal
    newlines, undecodable bytes kept) and its ``code`` (``shellcode.code``, found once), and where the command on
    a line starts (``command_start``), found once for a line asked of both when the lines up to it read the same
    both ways."""

    def __init__(self, root: Path, name: str | None):
        self.root, self.name = root, name
        self._read = None  # (file from the repository's top or None, text or None, lines)
        self._start: tuple[int, list[str], int] | None = None  # (line, the lines up to it, where its command starts)
        self._code: tuple[str, list[tuple[int, int]]] | None = None

    def _load(self) -> tuple[str | None, str | None, list[str]]:
        if self._read is None:
            file = scriptlines.in_repository(self.name, self.root) if self.name is not None else None
            try:
                data = (self.root / file).read_bytes() if file else None
            except OSError:
                data = None
            if data is None:
                self._read = (file, None, [])
            else:  # read once, decoded as each reader before did: the text's and file_lines' ways
                self._read = (file, decoded(data, "surrogateescape"), decoded(data, "replace").splitlines())
        return self._read

    @property
    def file(self) -> str | None:
        return self._load()[0]

    @property
    def text(self) -> str | None:
        return self._load()[1]

    @property
    def lines(self) -> list[str]:
        return self._load()[2]

    def code(self) -> tuple[str, list[tuple[int, int]]]:
        """``shellcode.code`` of its ``text``, found once."""
        if self._code is None:
            self._code = shellcode.code(self.text)
        return self._code

    def command_start(self, lines: list[str], number: int) -> int:
        """``scriptlines.command_start(lines, number)``, which reads only ``lines[:number]``: found again only for
        other lines up to ``number``."""
        if self._start is None or self._start[0] != number or self._start[1] != lines[:number]:
            self._start = (number, lines[:number], scriptlines.command_start(lines, number))
        return self._start[2]


def _holds(source: _Source, stack: Stack, name: str) -> bool:
    """Whether the command that ends at the innermost frame's line (in ``source``, its file) holds ``name`` (an
    empty name, or a file outside the repository: nothing to tell by)."""
    if not (stack and name) or source.file is None:
        return True
    lines = source.lines
    line = stack[0][1]
    return 0 < line <= len(lines) and name in "\n".join(lines[source.command_start(lines, line) - 1:line])


def in_command(root: Path, stack: Stack) -> Stack:
    """The script's own shell's ``stack`` with its innermost frame, in a file of the repository, at the first
    line of its command when that line is inside a `$( )` or `( )` over lines (the outermost): bash gives
    such a command the line where that ends (`X=$(`, lines, then `)`), and the script's own shell runs no
    command inside one."""
    source = _Source(root, stack[0][0] if stack else None)
    text, lines = _lines_past_first(source, stack)
    if text is None:
        return stack
    line = stack[0][1]
    at = sum(len(x) + 1 for x in lines[:line - 1])
    first = min((start for start, end in source.code()[1] if start < at <= end), default=-1)
    if first < 0:
        return stack
    begins = text.count("\n", 0, first) + 1
    return [(stack[0][0], scriptlines.command_start(lines, begins))] + stack[1:]


def _lines_past_first(source: _Source, stack: Stack) -> tuple[str | None, list[str]]:
    """The text and lines of the file of ``stack``'s innermost frame (``source``, when it is one of the
    repository) when its line is past the first and within the file, the only lines a command over lines can
    end at; (None, []) otherwise."""
    text = source.text if stack else None
    lines = text.split("\n") if text is not None else []
    return (text, lines) if text is not None and 1 < stack[0][1] <= len(lines) else (None, [])


def _opening(source: _Source, stack: Stack, function: str = "") -> Stack:
    """``stack`` with its innermost frame, in a file of the repository, at the line of the `(` (or `$(`,
    `` ` ``) that opens the subshell its line's command is the first of, when that is on a line before:
    `(`, then `echo in` below it, was started at the `(`. Not when that `(` is the body of ``function``
    (`f() (`, the function the command runs in): its call started it, a frame of the stack; the innermost
    stays at the line it runs, as in a `f() {` body."""
    text, lines = _lines_past_first(source, stack)
    if text is None:
        return stack
    at = sum(len(x) + 1 for x in lines[:source.command_start(lines, stack[0][1]) - 1])
    code, spans = source.code()
    opens = [start for start, end in spans if start < at < end]
    first = max(opens, default=-1)  # the innermost: spans do not overlap but nest
    if first < 0 or text[first:at].strip(" \t\n$(`") != "":
        return stack  # not the first command inside it
    if function and _body_of(function).search(code, 0, first):
        return stack
    return [(stack[0][0], text.count("\n", 0, first) + 1)] + stack[1:]


def _body_of(name: str) -> re.Pattern:
    """A function definition's header (``shellgrammar.function_header``), `name()` or `function name`, ending a
    text (where its body opens)."""
    return re.compile(rf"(?:^|[\s;&|(){{}}]){shellgrammar.function_header(re.escape(name))}\s*$")


_SETS_DEBUG = re.compile(r"(?<![\w-])trap(?![\w-]).*(?<![\w-])DEBUG(?![\w-])")


def place(root: Path, script: Path, stack: Stack) -> tuple[str, int] | None:
    """The line a stack stands at: its innermost frame in the script, else in the repository (a library's
    top level), at the line its command starts (``scriptlines.command_start``); None when no frame is in the
    repository, or when its innermost command set a DEBUG trap: the script's own replaced the rehearsal's
    there, so the stack is where that happened, not where the script is."""
    frames = [(found, line) for file, line in stack if line > 0
              and (found := scriptlines.in_repository(file, root))]
    innermost = scriptlines.in_repository(stack[0][0], root) if frames else None
    if not frames or (innermost and _SETS_DEBUG.search(_line(root / innermost, stack[0][1]))):
        return None
    rel = str(script.relative_to(root))
    file, line = next((frame for frame in frames if frame[0] == rel), frames[0])
    return file, scriptlines.command_start(scriptlines.file_lines(root / file), line)


def _line(path: Path, number: int) -> str:
    lines = scriptlines.file_lines(path)
    return lines[number - 1] if 0 < number <= len(lines) else ""
