"""A row whose script printed nothing before preflight's --timeout stopped it (s41e's adoption review: a
`sleep 300` before the server, `preflight --timeout 3`) was said as "the script did not finish in the fast
rehearsal ()": the parentheses hold the last line the script printed, and it printed none. With no line to
show there are no parentheses; the line the script was stopped at still places the problem."""
from __future__ import annotations

from test_rehearse_lines_s37b import _preflight_problems


def test_a_silent_script_that_did_not_finish_is_said_without_empty_parentheses(tmp_path):
    got, _ = _preflight_problems(tmp_path, "sleep 0.1\nsleep 300\n", timeout=2)
    stopped = [(line, message) for line, message in got if "did not finish in the fast rehearsal" in message]
    assert [line for line, _ in stopped] == [2], got
    assert all("()" not in message and message.endswith("fast rehearsal") for _, message in stopped), stopped
