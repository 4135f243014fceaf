"""s38e: the shell reader against real bash.

1. An element's subscript broken over lines where a command may stand (`x[` then `1]=2 source X`), which bash
   reads whole, was not taken for an assignment's: the `source` after it was not read.
2. An ANSI-C string in an assignment before `x[1<<2]=3` (`A=$'a b' x[1<<2]=3`) was not taken for part of the
   word, so `x[1<<2]` was taken for no assignment and its `<<2` for a heredoc: the lines after it were skipped.
"""

from __future__ import annotations

from test_sourced_library_s35c import LIB, oracle_tests

SOURCES_IT = {  # the script's text after its first two lines; bash sources the library once, at the line read
    "x[ over lines ]=2 source": f"x[\n1]=2 source {LIB}\n",
    "x[ over three lines ]=2 source": f"x[1\n+\n1]=2 source {LIB}\n",
    "A=1 x[ over lines ]=2 source": f"A=1 x[\n1]=2 source {LIB}\n",
    "after A=$'a b' x[1<<2]=3": f"A=$'a b' x[1<<2]=3\nsource {LIB}\n",
    "after A=$'a\\' b' x[1<<2]=3": f"A=$'a\\' b' x[1<<2]=3\nsource {LIB}\n",
    "A=$'a b' x[1<<2]=3 source": f"A=$'a b' x[1<<2]=3 source {LIB}\n",
}
SOURCES_NOTHING = {  # forms that name the library but bash does not source it
    "x[ over lines ] in a string": f"echo 'x[\n1]=2 source {LIB}'\n",
    "after A=$'a b' x[1<<2]=3, a heredoc's body": f"A=$'a b' x[1<<2]=3 cat <<X >/dev/null\nsource {LIB}\nX\n",
}

(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)
