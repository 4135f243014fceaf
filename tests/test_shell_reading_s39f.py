"""s39f: the shell reading's cases still misread, each checked against real bash.

1. A line that runs a command recorded (``scriptlines.command_line``, a leftover's or a problem's words) and the
   line preflight says writes a refused flag (``preflight.locate``) were found in the text of each line, a
   trailing comment's too: `echo start  # python3 -m vllm... --port 8000` on a line before the one that runs it
   was that line. ``scriptlines.script_lines`` now gives each line with its comment blank (strings kept).
2. A word that runs the next as a command (`builtin`, `command`, `eval`) spelled with quotes or a `\\`
   (`"eval" source X`, `\\builtin source X`, `'command' source X`, `e"val" source X`), which bash runs as the word
   unquoted, read as an unknown program's: no source, so a helper sourced so dropped out of the run identity (a
   changed helper was reused as unchanged). Such a word is now read as `source` itself was: unquoted. `time`
   quoted stays a program (bash runs `/usr/bin/time`, which cannot run `source`).
3. A function's definition had three patterns (``scriptlines``, ``linetrap``, ``shellgrammar``), now one
   (``shellgrammar.function_header``, and the command's name after its assignments, ``shellwords.command_name``).
   The copies that were wrong: a library function written `f ( ) {`, with a blank line before its `{`, after
   another command on its line (`X=1; f() {`), or whose body is any compound command but `{ }` (`f() (`,
   `f() for`, `function f if`, `f() case`, ...) held only its first line, so a script's call of it was not the
   line of a server it starts (``first_command``); a background call `A="a b" f &` was named `b` (the value read
   up to its blank), so what it left running stood at the function's line, not the call's.
4. After `function NAME` only `{`, `if`, `while`, `until` began its body: `function f case` in a `$( )` left the
   `case` unopened, its pattern's `)` ended the substitution, and what the rest assigned (`D=/opt`) leaked out of it
   (the library sourced by `$D` later was read as none). `do` after `for NAME` or `for (( ))` with no `;` between
   (`for x do source X; done`) was not where a command begins.
5. A command substitution alone as a word before `source` (`$(true) source X`, `` `cmd` . X``) that prints nothing
   is dropped by bash, which then sources X; it was read as a program's name (no source: under-read, the unsafe
   side for the run identity). Such a word is now read as possibly empty, as `$VAR` was since s38v, whatever it
   prints: `$(echo echo) source X`, where bash runs echo, is read as sourcing X too (over-read, the safe side).
   Quoted (`"$(true)" source X`) or part of a longer word (`x$(true)`) it never is.
6. A declaration's builtin before an assignment had two patterns: the source reader's took no options after
   `local`, `export`, `readonly` and knew no `typeset` (`local -r D="$(dirname "$0")"`, `typeset D=…`, `export -n
   D=…` then `source "$D/…"`: no source read), and the array assignment's lookup saw a command begin only after
   `;&|{(`, `then`, `do`, `else` (`x) SERVE=(vllm serve …);;` in a `case`, `! A=(…)`, were none). Both now use
   ``shellgrammar.DECLARATION`` and ``COMMAND_START``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from test_rehearse_lines_s37b import _rehearse
from test_rehearse_lines_s38e import _left
from test_sourced_library_s35c import LIB, SCRIPT, bash_sourced_at, oracle_tests, script_text

from sweepgate.core import identity, recipes, scriptlines
from sweepgate.engines import preflight

SERVE = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "8000"]


def traced(path: Path, word: str) -> list[int]:
    """The lines real bash runs a command named ``word`` at (``set -x``, each trace line led by ``$LINENO``; bash
    takes no PS4 from the environment as root)."""
    r = subprocess.run(["bash", "-c", 'PS4="+\\${LINENO}: "; set -x; . "$0"', str(path)], capture_output=True,
                       text=True, timeout=60)
    return [int(m[1]) for m in re.finditer(rf"^\++(\d+): {re.escape(word)}(?: |$)", r.stderr, re.MULTILINE)]


def test_a_command_or_flag_in_a_trailing_comment_is_not_where_it_runs(tmp_path):
    script = tmp_path / "benchmarks" / "x.sh"
    script.parent.mkdir()
    script.write_text("#!/usr/bin/env bash\npython3() { :; }\n"
                      f"echo start  # {' '.join(SERVE)}\n"
                      f"echo '# kept'; {' '.join(SERVE)}  # then # more\n")
    (line,) = traced(script, "python3")
    assert line == 4
    assert scriptlines.command_line(tmp_path, script, SERVE) == ("benchmarks/x.sh", line)
    assert preflight.locate(tmp_path, script, "--port", "8000") == ("benchmarks/x.sh", line)
    assert preflight.locate(tmp_path, script, "--port") == ("benchmarks/x.sh", line)


QUOTED_LEADS = {  # the script's text after its first two lines; bash sources the library once, at the line read
    '"eval" source': f'"eval" source {LIB}\n',
    '"builtin" source': f'"builtin" source {LIB}\n',
    "\\builtin source": f"\\builtin source {LIB}\n",
    "\\eval source": f"\\eval source {LIB}\n",
    "'command' source": f"'command' source {LIB}\n",
    '"command" -p .': f'"command" -p . {LIB}\n',
    'e"val" source': f'e"val" source {LIB}\n',
    "$'builtin' source": f"$'builtin' source {LIB}\n",
    'after ;, "eval" "builtin" source': f'true; "eval" "builtin" source {LIB}\n',
    'S=; ${S} "builtin" source': f'S=; ${{S}} "builtin" source {LIB}\n',
    'if ...; then \\command source': f"if true; then \\command source {LIB}; fi\n",
}
QUOTED_NOTHING = {  # bash runs another command: a program `time`, `xeval`, `eval ` (with its blank)
    '"time" source': f'"time" source {LIB} 2>/dev/null || true\n',
    "\\time source": f"\\time source {LIB} 2>/dev/null || true\n",
    'x"eval" source': f'x"eval" source {LIB} 2>/dev/null || true\n',
    '"eval " source': f'"eval " source {LIB} 2>/dev/null || true\n',
    'echo "eval" source': f'echo "eval" source {LIB}\n',
}

(test_a_quoted_word_that_runs_a_source_is_read_as_its_source,
 test_a_quoted_word_that_runs_another_command_reads_no_source) = oracle_tests(QUOTED_LEADS, QUOTED_NOTHING)


def test_a_helper_sourced_after_a_quoted_eval_or_builtin_is_part_of_the_run_identity():
    helpers = {"benchmarks/shared/eval.sh": '"eval" source {}\n', "benchmarks/shared/builtin.sh": "\\builtin . ./{}\n"}
    body = "".join(text.format(path) for path, text in helpers.items())
    tree = {SCRIPT: script_text(body).encode(), **{path: b"echo helper\n" for path in helpers}}
    assert sorted(identity.sourced_helpers(SCRIPT, tree)) == sorted(helpers)


# --- 3. one function header; every compound command a function's body ------------------------------------------

SERVES = {  # a library function that starts the server, however bash takes its definition
    "f ( ) {": "serve_it ( ) {\n  vllm serve m\n}\n",
    "f() then a blank line, {": "serve_it()\n\n{\n  vllm serve m\n}\n",
    "after another command": "X=1; serve_it() {\n  vllm serve m\n}\n",
    "f() (": "serve_it() (\n  vllm serve m\n)\n",
    "f() for": "serve_it() for i in 1; do\n  echo done\n  vllm serve m\ndone\n",
    "function f if, nested": "function serve_it if true; then\n  while :; do break; done\n  vllm serve m\nfi\n",
    "f() case": "serve_it() case 1 in\n  1) vllm serve m;;\nesac\n",
    "function f() until": "function serve_it() until false; do\n  vllm serve m; break\ndone\n",
}


def serve_called(tmp_path: Path, library: str) -> tuple[str, tuple[str, int] | None]:
    """A library (``library``, then a `vllm` that says the script's line it was run from, and another function)
    whose `serve_it` a script calls at its line 5: what real bash says, and the line ``first_command`` finds for
    `vllm serve`."""
    script = tmp_path / "benchmarks" / "single_node" / "x.sh"
    script.parent.mkdir(parents=True)
    (tmp_path / "benchmarks" / "lib.sh").write_text(
        'vllm() { echo "vllm run from line ${BASH_LINENO[-2]}" >&2; }\n' + library + "other() {\n  :\n}\n")
    script.write_text("#!/usr/bin/env bash\nsource benchmarks/lib.sh\necho one\nother\nserve_it\n")
    r = subprocess.run(["bash", str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    return r.stderr, scriptlines.first_command(tmp_path, script, (re.compile("vllm serve"),))


@pytest.mark.parametrize("how", SERVES)
def test_a_script_s_call_of_a_library_function_is_the_line_of_its_server(tmp_path, how):
    assert serve_called(tmp_path, SERVES[how]) == ("vllm run from line 5\n", ("benchmarks/single_node/x.sh", 5))


def test_a_background_call_with_a_quoted_assignment_stands_at_the_call(tmp_path):
    """bash gives the subshell's first command as `A="a b" watch`: its name is `watch`, the call's."""
    text = 'echo go\nwatch() {\n  sleep 300\n}\nA="a b" watch &\nsleep 0.3\n'
    lines, rel, _ = _rehearse(tmp_path, text)
    assert _left(lines, rel) == [(f"{rel}:5", ["bash", "sleep"])], lines


# --- 4. after `function NAME`, any compound command; `for NAME do` ----------------------------------------------

SOURCED_IN_LOOPS = {
    "for NAME do": f"set -- 1\nfor i do source {LIB}; done\n",
    "for (( )) do": f"for ((i = 0; i < 1; i++)) do source {LIB}; done\n",
    "function f for NAME do": f"function f for i do source {LIB}; done\nf 1\n",
    "function f select NAME do": f"PS3=$'\\n'\nfunction f select i do source {LIB}; break; done <<< 1\nf 1\n",
    "a $( ) whose function's body is a case": 'D="$(dirname "$0")"\n'
                                              "X=$(function f case x in x) D=/opt;; esac; f)\n"
                                              'source "$D/../../benchmark_lib.sh"\n',
}

test_a_source_in_a_loop_or_after_a_function_s_case_is_read = oracle_tests(SOURCED_IN_LOOPS, {})[0]


# --- 5. a command substitution alone as a word before `source` may print nothing ------------------------------

EMPTY_SUBSTITUTIONS = {
    "$(true) source": f"$(true) source {LIB}\n",
    "`true` source": f"`true` source {LIB}\n",
    "$(:) $(:) .": f"$(:) $(:) . {LIB}\n",
    "${S} $(true) source": f"S=; ${{S}} $(true) source {LIB}\n",
    "$(true) ${S} source": f"S=; $(true) ${{S}} source {LIB}\n",
    "if ...; then $(true) source": f"if true; then $(true) source {LIB}; fi\n",
    "$( ... ) over lines, then source": f"$(\n  true\n) source {LIB}\n",
    "a $( ) in a $( )": f"X=$($(true) source {LIB}; echo x)\n",
}
PRINTED_WORDS = {  # bash runs a word: the substitution's quoted, or part of a longer word, or an argument
    '"$(true)" source': f'"$(true)" source {LIB} 2>/dev/null || true\n',
    "x$(true) source": f"x$(true) source {LIB} 2>/dev/null || true\n",
    "$(true)x source": f"$(true)x source {LIB} 2>/dev/null || true\n",
    "echo $(true) source": f"echo $(true) source {LIB}\n",
    '"x" $(true) source': f'"x" $(true) source {LIB} 2>/dev/null || true\n',
    'a string "...\n$(true) source ..."': f'echo "a\n$(true) source {LIB}"\n',
    "$(true) A=1 source": f"$(true) A=1 source {LIB} 2>/dev/null || true\n",
}

(test_a_source_after_an_empty_command_substitution_is_read,
 test_a_source_after_a_substitution_that_is_no_word_of_its_own_is_not) = oracle_tests(EMPTY_SUBSTITUTIONS,
                                                                                       PRINTED_WORDS)


def test_a_substitution_that_prints_a_command_is_read_as_empty_the_safe_side(tmp_path):
    body = f"$(echo echo) source {LIB}\n"
    assert bash_sourced_at(tmp_path, body) == []
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(body).encode()}) == [(SCRIPT, 3)]


# --- 6. one declaration pattern; an array assigned wherever a command begins -----------------------------------

DECLARED = {
    "local -r": f'f() {{\n  local -r D="$(dirname "$0")"\n  source "$D/../../benchmark_lib.sh"\n}}\nf\n',
    "typeset": f'typeset D="$(dirname "$0")"; source "$D/../../benchmark_lib.sh"\n',
    "export -n": f'export -n D="$(dirname "$0")"; source "$D/../../benchmark_lib.sh"\n',
}

test_a_source_through_a_variable_declared_with_options_is_read = oracle_tests(DECLARED, {})[0]


ARRAYS = {  # a library function that keeps its server command in an array assigned where a command begins
    "in a case item": "serve_it() {\n  case x in x) SERVE=(\n    vllm serve m\n  );; esac\n  \"${SERVE[@]}\"\n}\n",
    "after a !": "serve_it() {\n  if ! SERVE=(\n    vllm serve m\n  ); then :; fi\n  \"${SERVE[@]}\"\n}\n",
}


@pytest.mark.parametrize("how", ARRAYS)
def test_a_library_server_command_kept_in_an_array_is_reached_by_the_script_s_call(tmp_path, how):
    assert serve_called(tmp_path, ARRAYS[how]) == ("vllm run from line 5\n", ("benchmarks/single_node/x.sh", 5))
