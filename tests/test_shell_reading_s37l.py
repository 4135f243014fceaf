"""Review of s37a's shell reading (s37l): one rule for where a command begins, and no quadratic subscript.

1. `shellwords` took a `!` or `{` glued to the next word (`!source x`, `{x[1]=2 source x`) and a reserved word
   ending a longer word (`a.then source x`) for a command's start, where `shellcode` and bash do not; it did not
   take `time A=1 source x` for one, where bash does. Both readers now use one rule (``core.shellgrammar``).
2. An array element's subscript (`x[...]` before `=`) was matched up to the line's end, past any other `[`: on a
   line of `!x[` (each a command start to shellwords) that was quadratic (8.7 s for 48 kB). It now stops at the
   next `[`.
3. Each `x[` where a command may stand cost a step of the scan's own (28 µs each); one whose subscript holds
   only names, digits and arithmetic's signs is now read with the code around it.
4. A word before `x[1<<2]=3` that assigns through `$( )`, quotes or blanks (`x[$(echo 1)]=1`, `A="a b"`) was
   not taken for an assignment, so `x[1<<2]` started a heredoc and the lines after it were skipped.
Each reading case is checked against real bash.
"""

from __future__ import annotations

from test_sourced_library_s35c import LIB, oracle_tests

from sweepgate.core import shellcode, shellwords

SOURCES_IT = {  # the script's text after its first two lines; bash sources the library once, at the line read
    "time A=1 source": f"time A=1 source {LIB}\n",
    "after x[$(echo 1)]=1 x[1<<2]=3": f"x[$(echo 1)]=1 x[1<<2]=3\nsource {LIB}\n",
    "after x[1 + 1]=1 x[1<<2]=3": f"x[1 + 1]=1 x[1<<2]=3\nsource {LIB}\n",
    "after x[']']=2 x[1<<2]=3": f"x[']']=2 x[1<<2]=3\nsource {LIB}\n",
    "after x[y[0]]=1 x[1<<2]=3": f"y=(0); x[y[0]]=1 x[1<<2]=3\nsource {LIB}\n",
    "after x[1]+=2 x[1<<2]=3": f"x[1]+=2 x[1<<2]=3\nsource {LIB}\n",
    "after A=\"a b\" x[1<<2]=3": f'A="a b" x[1<<2]=3\nsource {LIB}\n',
    "after A='a b' x[1<<2]=3": f"A='a b' x[1<<2]=3\nsource {LIB}\n",
    "after A=\"$(echo a b)\" x[1<<2]=3": f'A="$(echo a b)" x[1<<2]=3\nsource {LIB}\n',
    "x[i+1]=2 source": f"i=1; x[i+1]=2 source {LIB}\n",
    "! x[1]=2 source": f"! x[1]=2 source {LIB}\n",
}
SOURCES_NOTHING = {  # forms that name the library but bash does not source it
    "!source": f"!source {LIB} 2>/dev/null || true\n",
    '!"source"': f'!"source" {LIB} 2>/dev/null || true\n',
    "(!source)": f"(!source {LIB}) 2>/dev/null || true\n",
    "!x[1]=2 source": f"!x[1]=2 source {LIB} 2>/dev/null || true\n",
    "{x[1]=2 source": f"{{x[1]=2 source {LIB} 2>/dev/null || true\n",
    "a.then source": f"echo a.then source {LIB}\n",
    "!x[1<<2]=3, a heredoc": f"!x[1<<2]=3 2>/dev/null\nsource {LIB}\n2]=3\n",
}


(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)


def test_an_element_subscript_is_read_no_further_than_the_next_bracket():
    """Bounded structurally: a try of the subscript from one `[` stops at the next `[` (or `]`, or the line's
    end), so a line of `!x[` (or `; x[`) costs a try per `[` over what lies before the next one: linear."""
    assert shellwords._COMMAND.match("x[1]=2").group("element") == "[1]"
    assert shellwords._COMMAND.match("x[a[b]=2") is None
    assert shellwords._NEXT.match(" x[a[b]=2") is None
    assert shellwords.reading("echo " + "!x[" * 2000 + "\n").sourced == []


def test_a_plain_subscript_costs_the_scan_no_step_of_its_own(monkeypatch):
    """s37 review: each `x[1]` where a command may stand was a step of the scan's own (a context opened and
    closed: 28 µs, 40k lines of `x[1]=2` took 1.15 s, 0.001 s before). Counted, not timed: the scan's steps."""
    steps = []
    special = shellcode._special

    def counted(scan, top, j):
        steps.append(j)
        return special(scan, top, j)
    monkeypatch.setattr(shellcode, "_special", counted)
    shellcode.code("x[1]=2\ny[i+1]+=3 z[a_b]=4\n" * 1000)
    assert len(steps) < 10, len(steps)
    steps.clear()
    code, _ = shellcode.code("x[1<<2]=3\n")  # one that holds `<<` is still read whole (no heredoc)
    assert code == "x[    ]=3\n" and steps
