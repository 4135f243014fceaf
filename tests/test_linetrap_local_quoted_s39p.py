"""s39p: the rehearsal's trap takes a function's `local -` (s39a: the options it saves, the rehearsal's `set -T`
among them, are put back as the function returns) from the `local` command's text. A `-` inside a value counted:
`local msg='functions - inherit traps'; set -T` in a function was taken for `local -`, so the script's own `set -T`
was thought put back as it returned: `$-` lost its T and a RETURN trap no longer ran as a helper returned. Only a
`-` word of the command itself, outside quotes, `$( )`, `${ }`, backquotes and an array's `( )`, counts now.
Each runs a real bash twice, plainly and with the rehearsal's BASH_ENV, and compares what the script did.
"""

from __future__ import annotations

import pytest

from test_linetrap_unchanged_s38g import _same

AFTER = ('; set -T; }\nenable_trace\necho "after: $-"\n'
         "g() { trap 'echo RET-$FUNCNAME' RETURN; h; }\nh() { :; }\ng\n")


def test_a_quoted_dash_in_a_local_value_is_no_local_dash(tmp_path):
    _, out, _ = _same(tmp_path, "enable_trace() { local msg='functions - inherit traps'" + AFTER)
    assert "after: hBT\nRET-h\nRET-g\n" in out, out


@pytest.mark.parametrize("value", [
    'msg="functions - inherit traps"', "n=$(echo x - y)", "o=${zz:- - }", "p=(a - b)", "q=a\\ -\\ b",
    "r=`echo c - d`", "s='it''s - x' t=\"say \\\" - \\\"\"", "-a u=(a - b)",
], ids=["double", "command-substitution", "expansion", "array", "backslash", "backquote", "mixed", "declare-a"])
def test_a_dash_inside_any_word_of_local_is_no_local_dash(tmp_path, value):
    _, out, _ = _same(tmp_path, f"enable_trace() {{ local {value}" + AFTER)
    assert "after: hBT\nRET-h\nRET-g\n" in out, out


@pytest.mark.parametrize("value", ["'x' -", "m=\"a b\" - n=1", "-- -", "m=$(echo -) -", "q=a\\  - b"],
                         ids=["after-quoted", "between", "after-dashdash", "after-substitution", "after-backslash"])
def test_a_dash_word_among_quoted_values_still_is_local_dash(tmp_path, value):
    _, out, _ = _same(tmp_path, f"enable_trace() {{ local {value}" + AFTER)
    assert "after: hB\nRET-g\n" in out, out
