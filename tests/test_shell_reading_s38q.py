"""Review of the shell reading (s38q): a function's body, and `eval !`.

1. s38h made a reserved word begin a command only where a command may begin itself; in `function NAME { ... }`
   the `{` follows the function's name, a plain word, so nothing in such a body was read: a helper sourced in it
   dropped out of the run identity (a changed helper was reused as unchanged), and `function f { x[1<<2]=3; }`
   was read as a heredoc's start, so the `source` lines after it were lost. After `function NAME` (or
   `coproc NAME`) a compound command's reserved word (`{`, `if`, `while`, `until`) now begins its body.
2. `eval ! source X` was read as no `source`: `eval`'s words are a command line again, `!` may begin it.
   `coproc` is a reserved word too: `coproc x[1<<2]=3` was read as a heredoc's start.
3. Misreads found beside them: `'time' source X` (a quoted `time` is a program: bash sources nothing) was read as
   sourcing X, as was any word the code blanks before it (`"echo" source X`; `${CMD} source X` too, until s38v
   read an unquoted expansion as possibly empty: test_shell_reading_s38v); and
   `${A:-$'x\\'y'}` ended its `$' '` at the `\\'`, so the rest of the line was read as a string.
Each case is checked against real bash.
"""

from __future__ import annotations

from test_sourced_library_s35c import LIB, SCRIPT, oracle_tests, script_text

from sweepgate.core import identity

SOURCES_IT = {  # the script's text after its first two lines; bash sources the library once, at the line read
    "function f { source; }; f": f"function f {{ source {LIB}; }}; f\n",
    "function f {, source, }": f"function f {{\n  source {LIB}\n}}\nf\n",
    "function f() { source; }": f"function f() {{ source {LIB}; }}; f\n",
    "function f ( ) { source; }": f"function f ( ) {{ source {LIB}; }}; f\n",
    "function f ( source )": f"function f ( source {LIB} ); f\n",
    "function f, { source; }": f"function f\n{{ source {LIB}; }}\nf\n",
    "function a.b-c { time source; }": f"function a.b-c {{ time source {LIB}; }}; a.b-c\n",
    "function f if source": f"function f if true; then source {LIB}; fi; f\n",
    "! function f { source; }": f"function f {{ ! source {LIB}; }}; f\n",
    "function f { x[1<<2]=3; }, source": f"function f {{ x[1<<2]=3; }}\nsource {LIB}\n",
    "function f {, x[1<<2]=3, }, source": f"function f {{\n x[1<<2]=3; }}\nsource {LIB}\n",
    "eval ! source": f"eval ! source {LIB}\n",
    "eval ! time source": f"eval ! time source {LIB}\n",
    "eval time ! source": f"eval time ! source {LIB}\n",
    "coproc x[1<<2]=3, source": f"coproc x[1<<2]=3\nsource {LIB}\n",
    "${A:-$'x\\'y'}; source": f"echo ${{A:-$'x\\'y'}} ; source {LIB}\n",
}
SOURCES_NOTHING = {  # forms that name the library but bash does not source it
    # `CMD=echo; ${CMD} source` is read as a source on purpose since s38v (an unquoted expansion may be empty)
    "\"echo\" source": f"\"echo\" source {LIB}\n",
    "\"time\" source": f"\"time\" source {LIB} 2>/dev/null || true\n",
    "'time' source": f"'time' source {LIB} 2>/dev/null || true\n",
    "function f { echo source; }": f"function f {{ echo source {LIB}; }}; f\n",
    "function f {, x[1<<2]=3, a heredoc": f"echo function f {{ x[1<<2]=3\nsource {LIB}\n2]=3\n",
    "eval echo ! source": f"eval echo ! source {LIB}\n",
}

(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)


def test_a_helper_sourced_in_a_function_s_body_is_part_of_the_run_identity():
    """The run identity hashes each helper the script sources: one sourced in a `function NAME { }` body too."""
    helpers = {f"benchmarks/shared/{name}.sh": body for name, body in [
        ("braced", "function setup {{ source {}; }}\nsetup\n"),
        ("lines", "function more {{\n  . ./{}\n}}\nmore\n"),
        ("after", "function f {{ x[1<<2]=3; }}\nsource {}\n"),
        ("eval", "eval ! source {}\n")]}
    body = "".join(text.format(path) for path, text in helpers.items())
    tree = {SCRIPT: script_text(body).encode(), **{path: b"echo helper\n" for path in helpers}}
    assert sorted(identity.sourced_helpers(SCRIPT, tree)) == sorted(helpers)
