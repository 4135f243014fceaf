"""s39a: words that expand to no word before `source`, besides `$VAR`/`${VAR}` (s38v).

`"$@"`, `"${@}"` and `"${PREFIX[@]}"` (quoted, the way an optional command prefix is kept in an array) expand to
no word at all with no arguments or an empty array, and unquoted `$@`, `$*`, `$1` to none when empty: bash then
sources X. The reader took them for a command's word (the quoted ones blank in the code, the unquoted ones no
`$NAME`) and read no source, so a helper sourced so dropped out of the run identity. `"$*"` and `"${A[@]:-}"` are
one empty word (bash runs the command "") and still read none. So too an unbraced `$S` after an assignment
(`A=1 $S source X`: `A=1 ${S} source X` was read) or `eval` (`eval $S source X`), and a redirection before the
command (`</dev/null source X`, `>&2 . X`, `<"$F" source X`), which is no word of it. Checked against real bash.
"""

from __future__ import annotations

from test_sourced_library_s35c import LIB, oracle_tests

SOURCES_IT = {
    '"$@" source': f'"$@" source {LIB}\n',
    '"${@}" source': f'"${{@}}" source {LIB}\n',
    'P=(); "${P[@]}" .': f'P=()\n"${{P[@]}}" . {LIB}\n',
    '$@ source': f'$@ source {LIB}\n',
    '$* $@ source, in an if': f'if true; then $* $@ source {LIB}; fi\n',
    'A=1 $S source': f'S=\nA=1 $S source {LIB}\n',
    'eval $S source': f'S=\neval $S source {LIB}\n',
    '</dev/null source': f'</dev/null source {LIB}\n',
    '>/dev/null 0<&0 source': f'>/dev/null 0<&0 source {LIB}\n',
    '<"$F" $S . , after &&': f'F=/dev/null S=\ntrue && <"$F" $S . {LIB}\n',
    '<<EOF source': f'<<EOF source {LIB}\nbody\nEOF\n',
}
SOURCES_NOTHING = {
    '"$*" source': f'"$*" source {LIB} 2>/dev/null || true\n',
    '"${P[@]:-}" source': f'P=()\n"${{P[@]:-}}" source {LIB} 2>/dev/null || true\n',
    '"$@" echo source': f'"$@" echo source {LIB}\n',
    '"$@"x source': f'"$@"x source {LIB} 2>/dev/null || true\n',
    '</dev/null echo source': f'</dev/null echo source {LIB}\n',
    '< "$F" echo source': f'F=/dev/null\n< "$F" echo source {LIB}\n',
    '>/dev/null $S echo .': f'S=\n>/dev/null $S echo . {LIB}\n',
}

(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)
