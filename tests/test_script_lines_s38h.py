"""Review of where a rehearsal's problem stands (s38h).

1. ``scriptlines.command_start`` took a `\\` that ends a comment (`echo start  # path C:\\`) or stands in quotes
   for one that joins the next line to its command, so a command on the next line was said to start a line too
   early. Checked against the line real bash numbers the command by.
"""

from __future__ import annotations

import subprocess

import pytest

from sweepgate.core import scriptlines

HERE = 'here() { echo "line ${BASH_LINENO[0]}"; }\n'
STARTS = {  # the text after the function's line -> the line (of the whole script) the `here` command starts at
    "after a comment ending in \\": ("echo start   # path C:\\\nhere\n", 3),
    "after a comment ending in \\\\": ("x=1 # \\\\\nhere\n", 3),
    "after a line whose \\ is in quotes": ('echo "x \\\n" ; here\n', 3),
    "after a line whose \\ is in single quotes": ("echo 'x \\\n' ; here\n", 3),
    "after an escaped \\": ("echo a\\\\\nhere\n", 3),
    "a command a \\ joins": ("here \\\n  arg\n", 2),
    "a command two \\ join": ("echo go; here \\\n  a \\\n  b\n", 2),
    "a command a \\ joins, after a comment ending in \\": ("# C:\\\nhere \\\n  arg\n", 3),
}


@pytest.mark.parametrize("how", STARTS)
def test_the_line_a_command_starts_at_from_the_line_bash_numbers_it_by(tmp_path, how):
    text, starts = STARTS[how]
    script = tmp_path / "s.sh"
    script.write_text(HERE + text)
    r = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60)
    (said,) = [int(line.split()[1]) for line in r.stdout.splitlines() if line.startswith("line ")]
    assert scriptlines.command_start((HERE + text).splitlines(), said) == starts, (said, r.stdout)


def test_a_timeout_after_a_comment_ending_in_a_backslash_stands_at_the_line_it_was_running(tmp_path):
    from test_rehearse_lines_s37b import _at, _rehearse

    lines, rel, _ = _rehearse(tmp_path, "echo start   # path C:\\\nsleep 300\n", "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:2"], lines
