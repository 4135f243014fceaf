"""s39a: words that expand to no word before `source`, besides `$VAR`/`${VAR}` (s38v).

`"$@"`, `"${@}"` and `"${PREFIX[@]}"` (quoted, the way an optional command prefix is kept in an array) expand to
no word at all with no arguments or an empty array, and unquoted `$@`, `$*`, `$1` to none when empty: bash then
sources X. The reader took them for a command's word (the quoted ones blank in the code, the unquoted ones no
`$NAME`) and read no source, so a helper sourced so dropped out of the run identity. `"$*"` and `"${A[@]:-}"` are
one empty word (bash runs the command "") and still read none. Checked against real bash.
"""

from __future__ import annotations

from test_sourced_library_s35c import LIB, oracle_tests

SOURCES_IT = {
    '"$@" source': f'"$@" source {LIB}\n',
    '"${@}" source': f'"${{@}}" source {LIB}\n',
    'P=(); "${P[@]}" .': f'P=()\n"${{P[@]}}" . {LIB}\n',
    '$@ source': f'$@ source {LIB}\n',
    '$* $@ source, in an if': f'if true; then $* $@ source {LIB}; fi\n',
}
SOURCES_NOTHING = {
    '"$*" source': f'"$*" source {LIB} 2>/dev/null || true\n',
    '"${P[@]:-}" source': f'P=()\n"${{P[@]:-}}" source {LIB} 2>/dev/null || true\n',
    '"$@" echo source': f'"$@" echo source {LIB}\n',
    '"$@"x source': f'"$@"x source {LIB} 2>/dev/null || true\n',
}

(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)
