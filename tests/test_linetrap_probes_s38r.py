"""s38r: the rehearsal's line trap (rehearsal/linetrap.py) after a reviewer's probes.

1. An ordinary `trap HANDLER EXIT` turned `set -T` off (as for any command naming `trap`) and it came back
   only at the script shell's next simple command: a `( ... ) &` started in between inherited no DEBUG
   trap, wrote no record, and what it left running stood at an earlier line that ran `bash`. Only the
   signal words of a `trap` (after its handler) decide now whether it may set a DEBUG or RETURN trap; a
   handler's name or text (`cleanup_debug`, `rm -f debug.log`, `...; return`) does not.
2. A function whose body is a subshell (`f() (`) that was stopped by the timeout stood at the `(` of its
   definition; it stands at the line it runs, as a `f() {` body does.
3. A script that sets its own DEBUG trap and then clears it (`trap - DEBUG`) leaves no trap of the
   rehearsal's behind: where it is from then on is unknown, and the timeout stands at the script, at no
   line (not at the line of the `trap`, nor any other). The rehearsal does not put its trap back: only a
   `trap` of its own (a function named `trap`) could see that command, and that would change what the
   script runs.
Each with real bash, through `sweepgate rehearse` or the trap's BASH_ENV file.
"""

from __future__ import annotations

import pytest

from test_linetrap_unchanged_s38g import _same
from test_rehearse_lines_s37b import _at, _rehearse
from test_rehearse_lines_s38e import _left, sleeping

LEFT_AFTER_TRAP = ("echo go\nbash -c true\n{trap}\ncleanup_logs() {{ :; }}\n( while :; do sleep 302; done ) &\n"
                   + sleeping())  # no braces in it: .format leaves it as it is


@pytest.mark.parametrize("trap", ["trap cleanup_logs EXIT", "trap cleanup_debug EXIT",
                                  "trap 'rm -f /tmp/s38r-debug.log; return' EXIT INT"])
def test_a_subshell_started_after_an_exit_trap_stands_at_its_own_line(tmp_path, trap):
    lines, rel, _ = _rehearse(tmp_path, LEFT_AFTER_TRAP.format(trap=trap))
    assert _left(lines, rel) == [(f"{rel}:5", ["bash", "sleep"])], lines


@pytest.mark.parametrize("trap", [
    "trap cleanup_logs EXIT", "trap -- 'echo \"it is DEBUG\"' EXIT", 'trap "rm -f debug.log" INT TERM',
    "trap return INT", "trap - EXIT"])
def test_the_next_subshell_after_a_trap_of_other_signals_is_written(tmp_path, trap):
    """No command of the script's shell runs between the `trap` and the `( ... ) &`: the subshell is
    written only if `set -T` was on as it started."""
    text = f"echo go\n{trap}\n( echo sub ) &\nwait\n"
    _, _, paths = _same(tmp_path, text)
    data = paths["subshells"].read_bytes() if paths["subshells"].exists() else b""
    assert b"echo sub" in data, data


@pytest.mark.parametrize("text", [
    # the signal in lower case is still RETURN: the helper does not run the handler, as in plain bash
    "g() { :; }\nf() { trap 'echo ret' return; g; echo body; }\nf\ntrap - return\nf2() { g; }\nf2\n",
    # a RETURN trap next to other signals, and a handler naming DEBUG set for another signal
    "g() { :; }\nf() { trap 'echo ret' EXIT RETURN; g; echo body; }\nf\ntrap 'echo DEBUG' EXIT\ntrap - RETURN\ng\n",
], ids=["lower-case", "among-others"])
def test_a_return_trap_still_runs_where_plain_bash_runs_it(tmp_path, text):
    _same(tmp_path, text)


def test_a_function_whose_body_is_a_subshell_stands_at_the_line_it_runs(tmp_path):
    lines, rel, _ = _rehearse(tmp_path, "echo go\nf() (\n  sleep 300\n)\nf\n", "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:3"], lines


def test_a_subshell_over_lines_still_stands_at_its_opening(tmp_path):
    """Not a function's body: the `(` started it."""
    text = "echo go\nf() {\n  (\n    sleep 300\n  )\n}\nf\n"
    lines, rel, _ = _rehearse(tmp_path, text, "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:3"], lines


def test_after_the_script_clears_its_own_debug_trap_the_timeout_stands_at_no_line(tmp_path):
    text = "echo go\ntrap ':' DEBUG\ntrap - DEBUG\nwait_here() {\n  sleep 300\n}\nwait_here\n"
    lines, rel, _ = _rehearse(tmp_path, text, "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [rel], lines



def test_a_trap_whose_handler_reads_the_options_as_it_is_set_sees_no_functrace(tmp_path):
    """A double-quoted handler is expanded as the `trap` runs: its `$-` is read then."""
    _, out, _ = _same(tmp_path, 'trap "echo flags $-" EXIT\ntrap "echo opts ${SHELLOPTS}" INT\ntrap -p INT\n')
    assert "flags" in out and "functrace" not in out, out
