"""The shell reader's last known misses after s36b (s36j), each checked against real bash.

1. `$[1<<2]` (bash's old arithmetic) was taken for a heredoc's start, so every line after it was skipped (the
   library sourced after it was not seen). Other `<<` that start no heredoc are checked with it.
2. A `source`/`.` command word spelled with quotes or a backslash (`"source" x`, `'.' x`, `\\source x`), which
   bash still runs as `source`, was not read as sourcing.
3. `$((cmd); source x)` is no arithmetic: its `))` is not together, and bash reads it as a command
   substitution (a subshell first). In a string, the `source` in it was not read.
4. Lines joined by a `\\`: `echo \\` then `source x` on the next line (one command, an echo) was read as sourcing,
   and `source \\` then the path on the next line was not.
A helper sourced any of these ways was left out of the run identity (a changed helper was reused as unchanged).
The cases that run as s36b's do are in its tables (test_shell_reading_s36b, marked `s36j`); here, the rest.
"""

from __future__ import annotations

import pytest
from test_sourced_library_s35c import LIB, SCRIPT, bash_sourced_at, script_text

from sweepgate.core import recipes



def test_a_source_after_a_heredoc_that_let_starts_is_not_read():
    """`let x=1<<2` does start a heredoc (its word is `2`), as bash reads it: what follows is its body."""
    text = script_text(f"let x=1<<2\nsource {LIB}\n2\n")
    assert recipes.library_lines([SCRIPT], {SCRIPT: text.encode()}) == []


CONTINUED = {  # a `\` that joins a line to the next: bash sources the library, at the line read (s37a: it was
    # the `source` word's; bash gives the command the line of its second word, or of a first that assigns)
    "source \\ then the path": f"source \\\n  {LIB}\n",
    "X=1 \\ then source": f"X=1 \\\nsource {LIB}\n",
    "builtin \\ then source": f"builtin \\\n  source -- \\\n  {LIB}\n",
}


@pytest.mark.parametrize("how", CONTINUED)
def test_a_source_command_over_joined_lines_is_read(tmp_path, how):
    (line,) = bash_sourced_at(tmp_path, CONTINUED[how])
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(CONTINUED[how]).encode()}) == [(SCRIPT, line)], how


def test_a_long_chain_of_assignments_is_read_in_one_pass_over_the_text(monkeypatch):
    """s36 review: each assignment of a chain (`A=1 A=1 ... source x`, one line with no command start
    after it) had the next command searched for to the end of the text: quadratic, 23 s for a 32 kB line
    of a script a pull request may add, on the gate's cold path. The characters searched stay a small
    multiple of the text's length (counted, not timed)."""
    from sweepgate.core import shellwords

    searched = []

    class Counted:
        def __init__(self, pattern):
            self.pattern = pattern

        def search(self, string, pos=0, endpos=None):
            end = len(string) if endpos is None else endpos
            searched.append(max(0, end - pos))
            return self.pattern.search(string, pos, end)

    monkeypatch.setattr(shellwords, "_COMMAND", Counted(shellwords._COMMAND))
    for text in ("A=1 " * 2000 + "source benchmarks/x.sh\n", "X=$(" + "Y=$(a) " * 1000 + ")\n"):
        searched.clear()
        read = shellwords.reading(text)
        assert sum(searched) < 20 * len(text), (text[:8], sum(searched), len(text))
    assert read.sourced == [] and shellwords.reading("A=1 " * 2000 + "source benchmarks/x.sh\n").sourced
