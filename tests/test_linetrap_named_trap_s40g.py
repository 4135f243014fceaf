"""s40g: a `trap` run through a variable (`cmd=trap; $cmd ... RETURN`) under the rehearsal's line trap.

The line trap turns the rehearsal's `set -T` off for a command that may set a DEBUG or RETURN trap, found by the
command's text (`trap ...`); `$cmd 'rm -rf "$d"' RETURN` holds no `trap`, so `set -T` stayed on and the RETURN
handler ran as each helper the function called returned too (the script's cleanup ran early). A command whose
first word is a variable (`$cmd`, `${cmd}`, `"$cmd"`) holding `trap` or `builtin` is now taken as that `trap`.
Each runs a real bash twice, plainly and with the rehearsal's BASH_ENV, and compares what the script did.
"""

from __future__ import annotations

import pytest

from test_linetrap_unchanged_s38g import RETURN_CLEANUP, _same


@pytest.mark.parametrize("word", ["$cmd", "${cmd}", '"$cmd"', '"${cmd}"'])
def test_a_return_trap_set_through_a_variable_runs_where_plain_bash_runs_it(tmp_path, word):
    text = RETURN_CLEANUP.replace("set -e\n", "set -e\ncmd=trap\n").replace("  trap 'rm", f"  {word} 'rm")
    assert f"{word} 'rm" in text
    rc, out, _ = _same(tmp_path, text)
    assert rc == 0 and "wrote ./tmpdir/file" in out and "left: none" in out, out


def test_builtin_through_a_variable_and_other_traps_alike(tmp_path):
    text = ('b=builtin; t=trap\ng() { :; }\nf() { $b trap "echo ret \\$FUNCNAME" RETURN; g; }\nf\n'
            'h() { $t "echo exit" EXIT; g; echo "$-"; }\nh\nlaunch=(echo hi); "${launch[@]}" there\n')
    _, out, _ = _same(tmp_path, text)
    assert out.count("ret") == 1 and "hi there" in out, out
