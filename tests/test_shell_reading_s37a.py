"""The shell reader's misreadings left after s36j (s37a), each checked against real bash.

1. An array element's assignment whose subscript shifts (`x[1<<2]=3`, `a[i<<1]+=2`) was taken for a heredoc's
   start, so the lines after it were skipped as its body (the library sourced after it was not seen). bash reads
   `x[...]` whole where a command's name (or an assignment) may stand, and only there. A `source` after such an
   assignment or an appending one (`x[1]=2 source x`, `X+=1 source x`) was not seen either, and `X+=/y` was
   taken to leave X as it was.
2. A `source` word quoted or escaped past its first letter (`s\\ource x`, `so''urce x`, `$'source' x`), which
   bash runs as `source`, was not read as sourcing.
3. A `case` item's `)` inside `$( )` (`v=$(case $x in a) ...;; esac)`) closed the substitution early: a `source`
   in the item was not seen, and an assignment in it (or in any subshell `( )`) was taken for the script's own.
4. Over lines joined by `\\`, the line named for a `source` was the `source` word's, not the one bash gives the
   command (the line of the word after its first, or of its first word when that is an assignment).
The helpers sourced these ways are in test_shell_reading_s36b's run identity test (marked `s37a`).
"""

from __future__ import annotations

import pytest
from test_sourced_library_s35c import LIB, SCRIPT, bash_sourced_at, oracle_tests, script_text

from sweepgate.core import recipes

SOURCES_IT = {  # the script's text after its first two lines; bash sources the library once, at the line read
    # 1.
    "after x[1<<2]=3": f"x[1<<2]=3\nsource {LIB}\n",
    "after a[i<<1]+=2": f"i=1; a[i<<1]+=2\nsource {LIB}\n",
    "after x[$((1<<2))]=1": f"declare -a x; x[$((1<<2))]=1\nsource {LIB}\n",
    "after A=1 x[1<<2]=3": f"A=1 x[1<<2]=3\nsource {LIB}\n",
    "after A=1 \\ then x[1<<2]=3": f"A=1 \\\n  x[1<<2]=3\nsource {LIB}\n",
    "after then x[1<<2]=3": f"if true; then x[1<<2]=3; fi\nsource {LIB}\n",
    "after { x[1<<2]=3; }": f"{{ x[1<<2]=3; }}\nsource {LIB}\n",
    "after ! x[1<<2]=3": f"! x[1<<2]=3\nsource {LIB}\n",
    "after a case item's x[1<<2]=3": f"case a in a) x[1<<2]=3;; esac\nsource {LIB}\n",
    "after x[1<<2] run as a command": f"x[1<<2] 2>/dev/null\nsource {LIB}\n",
    "after m['a b'<<1] quoted": f"declare -A m; m['a b'<<1]=1\nsource {LIB}\n",
    "x[1]=2 source": f"x[1]=2 source {LIB}\n",
    "a[i<<1]+=2 source": f"i=1; a[i<<1]+=2 source {LIB}\n",
    "X+=1 source": f"X+=1 source {LIB}\n",
    "A=1 x[1]=2 \\ then source": f"A=1 x[1]=2 \\\n source {LIB}\n",
    # 2.
    "s\\ource": f"s\\ource {LIB}\n",
    "so''urce": f"so''urce {LIB}\n",
    'sou""rce': f'sou""rce {LIB}\n',
    "s'our'ce": f"s'our'ce {LIB}\n",
    "$'source'": f"$'source' {LIB}\n",
    '$"source"': f'$"source" {LIB}\n',
    "then s\\ource": f"if true; then s\\ource {LIB}; fi\n",
    ".''": f".'' {LIB}\n",
    # 4.
    "X=1 \\ then source": f"X=1 \\\nsource {LIB}\n",
    "A=1 \\ B=2 \\ source": f"A=1 \\\n B=2 \\\n source {LIB}\n",
    "X= over two lines, then source": f'X="a\nb" source {LIB}\n',
    "source \\ then the path": f"source \\\n  {LIB}\n",
    ". \\ \\ then the path": f". \\\n \\\n {LIB}\n",
    "builtin \\ then source": f"builtin \\\n  source -- \\\n  {LIB}\n",
    "builtin source \\ then the path": f"builtin source \\\n  {LIB}\n",
    "command \\ -- \\ source": f"command \\\n -- \\\n source {LIB}\n",
    "time \\ source \\ then the path": f"time \\\n source \\\n {LIB}\n",
    '"source" \\ then the path': f'"source" \\\n {LIB}\n',
    "then source \\ then the path": f"if true; then source \\\n {LIB}; fi\n",
    "source then a path over lines": f'source "$(dirname \\\n "$0")/../../benchmark_lib.sh"\n',
    "echo \\ then && source \\ then the path": f"echo a \\\n b && source \\\n {LIB}\n",
    "source, \\ then an argument": f"source {LIB} \\\n  --quiet\n",
}
SOURCES_NOTHING = {  # forms that name the library but bash does not source it
    # 1. where no command's name or assignment may stand, `x[1<<2]` starts a heredoc (its word is `2]...`)
    "echo x[1<<2]=3, a heredoc": f"echo x[1<<2]=3 >/dev/null\nsource {LIB}\n2]=3\n",
    "let x[1<<2]=3, a heredoc": f"let x[1<<2]=3 2>/dev/null\nsource {LIB}\n2]=3\n",
    "declare x[1<<2]=3, a heredoc": f"declare x[1<<2]=3 2>/dev/null\nsource {LIB}\n2]=3\n",
    "A=1\\ joined to x[1<<2]=3, a heredoc": f"A=1\\\nx[1<<2]=3\nsource {LIB}\n2]=3\n",
    "a source in a subscript's string": f"x['; source {LIB}; ']=1 2>/dev/null\n",
    "a variable added to since": 'D="$(dirname "$0")"; D+=/x\nsource "$D/../../benchmark_lib.sh" 2>/dev/null || true\n',
    # 2.
    "s\\ourced": f"s\\ourced {LIB} 2>/dev/null || true\n",
    "echo s\\ource": f"echo s\\ource {LIB}\n",
    "xs\\ource": f"xs\\ource {LIB} 2>/dev/null || true\n",
    "so''urce in a string": f"echo \"so''urce {LIB}\"\n",
    # 3.
    "a variable set in a case item of $( )": 'D=/opt\nv=$(case a in a) D="$(dirname "$0")";; esac)\n'
                                             'source "$D/../../benchmark_lib.sh" 2>/dev/null || true\n',
    "a variable set in a subshell": 'D=/opt\n(D="$(dirname "$0")")\n'
                                    'source "$D/../../benchmark_lib.sh" 2>/dev/null || true\n',
    "a variable set in a case item of ( )": 'D=/opt\n(case a in a) D="$(dirname "$0")";; esac)\n'
                                            'source "$D/../../benchmark_lib.sh" 2>/dev/null || true\n',
    "after a case in $( ), a quoted source": f'v=$(case a in a) echo;; esac; echo "; source {LIB}")\n',
}
IN_CASE = {  # 3. bash sources the library once (at a line of its own choosing inside `$( )`): the source's line
    "an item": f'echo "$(case a in a) . {LIB};; esac)"\n',
    "the second item": f'echo "$(case a in b) echo b;; a) source {LIB};; esac)"\n',
    "after the case": f'echo "$(case a in b) echo b;; esac; source {LIB})"\n',
    "a case in a case": f'echo "$(case a in a) case b in b) source {LIB};; esac;; esac)"\n',
    "esac as an argument": f'echo "$(case a in a) echo esac;; b) :;; esac; source {LIB})"\n',
    "over lines": f'x="$(\n  case a in\n    a) source {LIB};;\n  esac\n)"\n',
    "in a subshell's case": f'(case a in a) echo "$(case b in b) . {LIB};; esac)";; esac)\n',
}


(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)


@pytest.mark.parametrize("how", IN_CASE)
def test_a_source_in_a_case_item_inside_a_command_substitution_is_read(tmp_path, how):
    assert len(bash_sourced_at(tmp_path, IN_CASE[how])) == 1, how
    text = script_text(IN_CASE[how])
    line = text.count("\n", 0, text.rindex(LIB)) + 1
    assert recipes.library_lines([SCRIPT], {SCRIPT: text.encode()}) == [(SCRIPT, line)], how


def test_a_helper_named_through_a_variable_set_in_a_subshell_is_not_part_of_the_run_identity():
    text = script_text('D=/opt\n(D="$(dirname "$0")")\nsource "$D/helper.sh" 2>/dev/null || true\n')
    assert recipes.sourced_helpers(SCRIPT, {SCRIPT: text.encode()}) == []
