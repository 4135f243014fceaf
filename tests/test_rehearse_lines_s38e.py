"""s38e: rehearse line attribution leftovers.

1. A function started in the background (`f &`) and left running stood at the function's definition line,
   and what it ran (`sleep 300`) at the body's line; both stand at the line that started it.
2. Several processes left running, started at different lines, all stood at the first one's line; each
   stands at the line that started it (one problem a line).
Each with a real bash process running the script, through `sweepgate rehearse`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from test_rehearse_lines_s37b import _at, _rehearse  # noqa: E402

LEFT = "the script left running: "


def sleeping(n: int = 1) -> str:
    """A script's last line: wait until ``n`` `sleep` programs run in its session (the rehearsal starts the script in
    one of its own), so what it leaves running is all there as it ends, however slow the host. A fixed `sleep 0.3`
    was a clock: on a loaded host a background job had not yet started its `sleep` (it was left as `bash` alone), and
    a `while :; do sleep 0.2; done` loop was between two sleeps (s40g)."""
    return f"until (( $(pgrep -c -s 0 -x sleep) >= {n} )); do sleep 0.05; done\n"


def _left(lines: list[str], rel: str) -> list[tuple[str, list[str]]]:
    """Each left-running problem: where it stands, and the programs it names (sorted, without their PIDs)."""
    out = []
    for line in lines:
        at, _, message = line.partition(": ")
        if message.startswith(LEFT):
            named = message[len(LEFT):].rpartition("; ")[0].split(", ")
            out.append((at, sorted(n.rsplit(" (PID", 1)[0].split()[0] for n in named)))
    return out


def test_a_function_started_in_the_background_stands_at_the_line_that_started_it(tmp_path):
    text = "echo go\nwatch() {\n  sleep 300\n}\nwatch &\n" + sleeping()
    lines, rel, _ = _rehearse(tmp_path, text)
    assert _left(lines, rel) == [(f"{rel}:5", ["bash", "sleep"])], lines


def test_a_one_line_function_started_in_the_background_stands_at_its_call(tmp_path):
    text = "echo go\nwatch() { sleep 300; }\nbash -c true\nwatch --all \\\n  --day &\n" + sleeping()
    lines, rel, _ = _rehearse(tmp_path, text)
    assert _left(lines, rel) == [(f"{rel}:4", ["bash", "sleep"])], lines


def test_a_subshell_started_inside_a_function_stands_at_its_line_there(tmp_path):
    text = "echo go\nstart() {\n  ( sleep 300; echo done ) &\n}\nstart\n" + sleeping()
    lines, rel, _ = _rehearse(tmp_path, text)
    assert _left(lines, rel) == [(f"{rel}:3", ["bash", "sleep"])], lines


def test_a_brace_group_in_the_background_stands_at_its_line(tmp_path):
    text = "echo go\nwatch() { sleep 300; }\n{ watch; echo done; } &\n" + sleeping()
    lines, rel, _ = _rehearse(tmp_path, text)
    assert _left(lines, rel) == [(f"{rel}:3", ["bash", "sleep"])], lines


def test_several_processes_left_running_each_stand_at_the_line_that_started_it(tmp_path):
    text = ("echo go\nbash -c true\nwatch() {\n  sleep 301\n}\n( while :; do sleep 302; done ) &\n"
            "sleep 300 &\nwatch &\n" + sleeping(3))
    lines, rel, _ = _rehearse(tmp_path, text)
    got = sorted(_left(lines, rel))
    assert [at for at, _ in got] == [f"{rel}:6", f"{rel}:7", f"{rel}:8"], lines
    assert dict(got)[f"{rel}:7"] == ["sleep"] and dict(got)[f"{rel}:8"] == ["bash", "sleep"], lines


OWN_TRAPS = """n=0
trap 'n=$((n+1))' DEBUG
f() {
  : one; : two
}
f
trap - DEBUG
trap 'echo "returned from ${FUNCNAME:-a file}"' RETURN
g() { :; }
g
trap - RETURN
echo "n=$n"
exit 3
"""


def test_a_script_with_debug_and_return_traps_of_its_own_runs_as_under_plain_bash(tmp_path):
    """The rehearsal's `set -T` made the script's own DEBUG trap run inside its functions and its RETURN
    trap at each function's return: the script's output differed from a plain run's."""
    import subprocess

    plain = tmp_path / "plain.sh"
    plain.write_text(OWN_TRAPS)
    want = subprocess.run(["bash", str(plain)], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}).stdout
    assert want == "n=2\n", want  # f, trap -: nothing inside f, no RETURN line
    _rehearse(tmp_path, OWN_TRAPS)
    assert (tmp_path / "w/script.log").read_text() == want


def test_a_multi_line_debug_trap_of_the_scripts_own_is_never_where_a_timeout_stands(tmp_path):
    text = ("echo go\ntrap '\n  : traced\n' DEBUG\nrun_benchmark_serving() {\n  sleep 300\n}\necho go\n"
            "run_benchmark_serving --model m\n")
    lines, rel, _ = _rehearse(tmp_path, text, "--timeout", "2")
    # bash was at the trap's last line as the script's trap replaced the rehearsal's: not where it is
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:9"], lines


def test_a_subshell_left_running_inside_a_multi_line_command_substitution_stands_at_no_wrong_line(tmp_path):
    """bash numbers the lines inside a `$( )` over lines from the line it gives the whole command: the
    subshell's stack named line 7 (`echo "$X"`), which started nothing."""
    text = ('echo go\nX=$(\n  echo a\n  ( while :; do sleep 0.2; done ) >/dev/null &\n  echo b\n)\necho "$X"\n'
            "sleep 0.3\necho done\n")
    lines, rel, _ = _rehearse(tmp_path, text)
    left = _left(lines, rel)
    assert left and {at for at, _ in left} <= {rel, f"{rel}:4"}, lines


def test_a_timeout_in_a_subshell_the_script_waits_on_stands_at_its_line(tmp_path):
    """The script's own shell runs no command of its own while it waits on `( ... )`: its timeout stood at
    the command before (`echo go`). It stands at the `(` (a subshell writes where its first command is only)."""
    text = "echo go\n(\n  echo in\n  sleep 300\n)\necho done\n"
    lines, rel, _ = _rehearse(tmp_path, text, "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:2"], lines


def test_a_timeout_in_a_one_line_subshell_stands_at_its_line(tmp_path):
    lines, rel, _ = _rehearse(tmp_path, "echo go\necho more\n( sleep 300 )\n", "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:3"], lines


def test_a_timeout_beside_a_subshell_in_the_background_stands_at_the_scripts_own_line(tmp_path):
    text = "echo go\nwait_here() {\n  sleep 300\n}\n( while :; do sleep 0.2; done ) &\nwait_here\n"
    lines, rel, _ = _rehearse(tmp_path, text, "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:3"], lines


def test_a_subshell_over_lines_left_running_stands_at_its_opening_line(tmp_path):
    text = "echo go\nbash -c true\n(\n  while :; do sleep 302; done\n) &\n" + sleeping()
    lines, rel, _ = _rehearse(tmp_path, text)
    assert _left(lines, rel) == [(f"{rel}:3", ["bash", "sleep"])], lines


def test_a_timeout_in_a_command_substitution_over_lines_stands_at_its_first_line(tmp_path):
    """bash gives `X=$( ... )` over lines the line of its `)`: the timeout stood there."""
    text = 'echo go\nX=$(\n  echo a\n  sleep 300\n)\necho "$X"\n'
    lines, rel, _ = _rehearse(tmp_path, text, "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:2"], lines


def test_a_script_that_sets_functrace_itself_keeps_its_debug_trap_in_functions(tmp_path):
    text = "n=0\nset -eT\ntrap 'n=$((n+1))' DEBUG\nf() {\n  : one; : two\n}\nf\ntrap - DEBUG\necho \"n=$n $-\"\nexit 3\n"
    _rehearse(tmp_path, text)
    assert (tmp_path / "w/script.log").read_text() == "n=5 ehBT\n"
