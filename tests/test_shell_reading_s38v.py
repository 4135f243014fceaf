"""s38v: `SUDO=""; ${SUDO} source X` sources X in bash (the empty word is dropped, `source` is the command), but
since s38q a word blank in the code before `source` made the reader read no source there, so a helper sourced
this way dropped out of the run identity (a changed helper was reused as unchanged).

An unquoted parameter expansion alone as a word (`$VAR`, `${VAR}`, `${VAR:-x}`) before `source` where a command
begins is now read as possibly empty: the `source` counts. What bash does there depends on the value; for the
run identity over-reading is the safe side, so `CMD=echo; ${CMD} source X` (bash sources nothing) is read as
sourcing X too: the documented choice, checked below. A quoted word is never empty that way (`"${S}" source X`
runs the command "", `'time' source X` a program `time`) and still reads no source. Checked against real bash.
"""

from __future__ import annotations

from test_sourced_library_s35c import LIB, SCRIPT, bash_sourced_at, oracle_tests, script_text

from sweepgate.core import identity, recipes

SOURCES_IT = {  # the script's text after its first two lines; bash sources the library once, at the line read
    'SUDO=""; ${SUDO} source': f'SUDO=""; ${{SUDO}} source {LIB}\n',
    "SUDO=; $SUDO source": f"SUDO=; $SUDO source {LIB}\n",
    "A=; B=, ${A} $B . ": f"A=; B=\n${{A}} $B . {LIB}\n",
    "${A:-} source": f"${{A:-}} source {LIB}\n",
    "after &&, $SUDO source": f"SUDO=\ntrue && $SUDO source {LIB}\n",
    "if ...; then ${SUDO} source": f"SUDO=\nif true; then ${{SUDO}} source {LIB}; fi\n",
}
SOURCES_NOTHING = {  # forms that name the library but bash does not source it, with the variable empty
    '"${S}" source': f'S=; "${{S}}" source {LIB} 2>/dev/null || true\n',
    '"$S" source': f'S=; "$S" source {LIB} 2>/dev/null || true\n',
    "x${S} source": f"S=; x${{S}} source {LIB} 2>/dev/null || true\n",
    "${S}'' source": f"S=; ${{S}}'' source {LIB} 2>/dev/null || true\n",
    "${S} 'time' source": f"S=; ${{S}} 'time' source {LIB} 2>/dev/null || true\n",
    "echo $S source": f"S=; echo $S source {LIB}\n",
}

(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)

OVER_READ = {  # a variable that is not empty: bash runs it, sources nothing; read as a source all the same
    "CMD=echo; ${CMD} source": f"CMD=echo; ${{CMD}} source {LIB}\n",
    "CMD=echo; $CMD source": f"CMD=echo; $CMD source {LIB}\n",
}


def test_a_word_that_is_not_empty_after_all_is_read_as_empty_the_safe_side(tmp_path):
    for body in OVER_READ.values():
        assert bash_sourced_at(tmp_path, body) == [], body
        assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(body).encode()}) == [(SCRIPT, 3)], body


def test_a_helper_sourced_after_an_empty_variable_is_part_of_the_run_identity():
    helpers = {"benchmarks/shared/sudo.sh": 'SUDO=""; ${{SUDO}} source {}\n',
               "benchmarks/shared/bare.sh": "SUDO=; $SUDO . ./{}\n"}
    body = "".join(text.format(path) for path, text in helpers.items())
    tree = {SCRIPT: script_text(body).encode(), **{path: b"echo helper\n" for path in helpers}}
    assert sorted(identity.sourced_helpers(SCRIPT, tree)) == sorted(helpers)
