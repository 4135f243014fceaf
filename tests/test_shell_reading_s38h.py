"""Review of the shell reading (s38h): a reserved word is one only where a command may begin.

1. `shellwords` took `time`, `then`, `!`, `{`, `do` for reserved words wherever a blank stood before them, so
   `echo time source x` (and `echo then source x`, `echo ! source x`, `echo { source x`) read as sourcing x;
   bash reads them as `echo`'s arguments. A reserved word now begins a command only where one may begin itself
   (`! time source x`, `time ! source x` still do). After an assignment (`A=1 time source x`) or `command`
   (`command time source x`), `time` is a program, not the reserved word: bash sources nothing.
2. `shellcode` read `x[1<<2]=3` after such an argument (`echo then x[1<<2]=3`, `echo A=1 x[1<<2]=3`) as an
   element's assignment, where bash reads `<<2` as a heredoc's start: the lines after it were read as code.
Each case is checked against real bash.
"""

from __future__ import annotations

from test_sourced_library_s35c import LIB, oracle_tests

SOURCES_IT = {  # the script's text after its first two lines; bash sources the library once, at the line read
    "! time source": f"! time source {LIB}\n",
    "time ! source": f"time ! source {LIB}\n",
    "! ! source": f"! ! source {LIB}\n",
    "! { time source; }": f"echo a; ! {{ time source {LIB}; }}\n",
    "then time source": f"if true; then time source {LIB}; fi\n",
    "eval time source": f"eval time source {LIB}\n",
    "eval -- time -p source": f"eval -- time -p source {LIB}\n",
    "time -p source": f"time -p source {LIB}\n",
    "then A=1 x[1<<2]=3": f"if true; then A=1 x[1<<2]=3; fi\nsource {LIB}\n",
}
SOURCES_NOTHING = {  # forms that name the library but bash does not source it
    "echo time source": f"echo time source {LIB}\n",
    "echo then source": f"echo then source {LIB}\n",
    "echo ! source": f"echo ! source {LIB}\n",
    "echo { source": f"echo {{ source {LIB}\n",
    "echo do source": f"echo do source {LIB}\n",
    "echo a; echo if ! source": f"echo a; echo if ! source {LIB}\n",
    "A=1 time source": f"A=1 time source {LIB} 2>/dev/null || true\n",
    "command time source": f"command time source {LIB} 2>/dev/null || true\n",
    "builtin time source": f"builtin time source {LIB} 2>/dev/null || true\n",
    "echo then x[1<<2]=3, a heredoc": f"echo then x[1<<2]=3\nsource {LIB}\n2]=3\n",
    "echo A=1 x[1<<2]=3, a heredoc": f"echo A=1 x[1<<2]=3\nsource {LIB}\n2]=3\n",
    "echo time x[1<<2]=3, a heredoc": f"echo time x[1<<2]=3\nsource {LIB}\n2]=3\n",
}


(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)


def test_a_line_of_many_words_before_subscripts_reads_each_word_once(monkeypatch):
    """Whether a word stands where a command may begin now reads the words before it back to where one does:
    each word's answer is kept, so a line of `x[1<<2]=3` words reads each once, not once per later one
    (counted, not timed: the words taken for assignments)."""
    from sweepgate.core import shellcode, shellgrammar

    read = []

    class Counted:
        def match(self, word):
            read.append(word)
            return shellgrammar.ASSIGNMENT_RE.match(word)
    monkeypatch.setattr(shellgrammar, "ASSIGNMENT_RE", shellgrammar.ASSIGNMENT, raising=False)
    monkeypatch.setattr(shellgrammar, "ASSIGNMENT", Counted())
    code, _ = shellcode.code("x[1<<2]=3 " * 2000 + "\n" + "A=1 " * 2000 + "x[1<<2]=3\n")
    assert "<<" not in code and len(read) <= 2 * 4000, len(read)
