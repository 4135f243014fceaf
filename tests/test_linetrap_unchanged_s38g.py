"""s38g: the rehearsal's DEBUG trap (rehearsal/linetrap.py) leaves the script's behaviour as plain bash has it.

The trap needs `set -T` for the line a function body or a subshell is at; functrace also makes a function
inherit its caller's RETURN trap (a cleanup runs when a helper returns, not when its own function does),
shows in `$-`, and with `BASH_XTRACEFD` the trap's own commands were traced. Each test runs a real bash
twice, plainly and with the rehearsal's BASH_ENV, and compares what the script did.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.rehearsal import linetrap  # noqa: E402


def _run(tmp_path: Path, text: str, trapped: bool, name: str = "s.sh") -> tuple[int, str, dict]:
    """Run ``text`` as a script in its own directory (plain bash, or under the rehearsal's trap): its exit
    status, all it wrote, the trap's paths."""
    home = tmp_path / ("trapped" if trapped else "plain")
    home.mkdir(exist_ok=True)
    script = home / name
    script.write_text(text)
    env = {k: v for k, v in os.environ.items() if k not in ("BASH_ENV", linetrap.PREVIOUS)}
    paths = {}
    if trapped:
        (home / "w").mkdir()
        paths = linetrap.install(home / "w", env)
    r = subprocess.run(["bash", name], cwd=home, env=env, capture_output=True, text=True, timeout=60)
    return r.returncode, f"{r.stdout}-- stderr --\n{r.stderr}", paths


def _same(tmp_path: Path, text: str) -> tuple[int, str, dict]:
    plain = _run(tmp_path, text, trapped=False)
    trapped = _run(tmp_path, text, trapped=True)
    assert trapped[:2] == plain[:2], f"plain bash: {plain[:2]}\nunder the trap: {trapped[:2]}"
    return trapped


RETURN_CLEANUP = """set -e
helper() { :; }
with_tmp() {
  local d=./tmpdir; mkdir "$d"
  trap 'rm -rf "$d"' RETURN
  helper
  echo data > "$d/file"
  echo "wrote $d/file"
}
with_tmp
echo "left: $(ls -d tmpdir 2>/dev/null || echo none)"
"""


def test_a_return_trap_runs_when_its_own_function_returns_not_a_helper_it_calls(tmp_path):
    rc, out, _ = _same(tmp_path, RETURN_CLEANUP)
    assert rc == 0 and "wrote ./tmpdir/file" in out and "left: none" in out, out


@pytest.mark.parametrize("text", [
    # a handler that clears itself, then `source` (a RETURN trap also runs as a sourced file ends)
    'g() { :; }\nf() { trap \'echo "RET ${FUNCNAME[0]}"; trap - RETURN\' RETURN; g; echo body; }\nf\n'
    'h() { local t=x; trap \'echo cleanup $t\' RETURN; g; g; }\nh\ntrap - RETURN\nsource /dev/null\necho end\n',
    # set through variables, in a library-like wrapper: nothing in the command's text names RETURN
    'on() { trap "$1" "$2"; }\ng() { echo g; }\nf() { on "echo ret-f" RETURN; g; x=$(g); echo "x=$x"; }\nf\n'
    'trap - RETURN\nf2() { g; }\nf2\n',
    # a RETURN trap at the top level runs as a sourced file ends, not as a function returns
    'echo "echo sourced" > lib.sh\ntrap \'echo ret\' RETURN\nf() { echo f; }\nf\n. ./lib.sh\ntrap - RETURN\nf\n',
], ids=["self-clearing", "set-through-variables", "top-level"])
def test_return_traps_run_where_plain_bash_runs_them(tmp_path, text):
    _same(tmp_path, text)


def test_the_scripts_own_functrace_is_kept(tmp_path):
    # the script asks for set -T itself: its RETURN trap is inherited by the helper, as plain bash does
    _, out, _ = _same(tmp_path, "set -T\n" + RETURN_CLEANUP.replace("set -e\n", ""))
    assert "No such file" in out, out


def test_dollar_dash_and_the_shell_options_show_no_functrace(tmp_path):
    text = ('set -e\necho "top: $-"\nf() { echo "in f: $-"; }\nf\necho "sub: $(echo $-)"\n'
            'case $- in *T*) echo T;; *) echo noT;; esac\n[[ $SHELLOPTS == *functrace* ]] && echo T || echo noT\n'
            'set -o | grep functrace\nold=$(set +o); eval "$old"\necho "after: $-"\n')
    _, out, _ = _same(tmp_path, text)
    assert "T" not in out.split("top: ")[1].split("\n")[0], out


def test_a_function_body_still_has_its_line_after_a_return_trap_is_gone(tmp_path):
    """The trap's `set -T` comes back once no RETURN trap is set: a function's body is where it was."""
    text = ('c() { trap "echo c" RETURN; :; }\nc\ntrap - RETURN\nlast() {\n  echo one\n  echo two\n}\n'
            'echo "$-" >/dev/null\nlast\n')
    _, out, paths = _same(tmp_path, text)
    assert out == "c\none\ntwo\n-- stderr --\n", out
    assert linetrap.stopped_at(paths["where"])[1][:1] == [("s.sh", 6)], linetrap.stopped_at(paths["where"])


def test_a_trace_to_bash_xtracefd_holds_none_of_the_trap(tmp_path):
    """Bash traces to the fd that `BASH_XTRACEFD` names; the trap's commands reach neither it nor stderr, and
    `$_`, the fd and the variable are as the script left them."""
    text = ('exec 19>trace.log\nBASH_XTRACEFD=19\nset -x\necho one\ny=$(echo two)\nf() { echo "$1"; }\n'
            'f three\n( echo four )\ntrap "echo ret" RETURN\nf five; echo "last=$_"\ntrap - RETURN\n'
            'set +x\necho "fd=$BASH_XTRACEFD"\ncat trace.log\nunset BASH_XTRACEFD\nset -x\necho six\n')
    _, out, _ = _same(tmp_path, text)
    assert "+ echo one\n" in out and "+ echo six\n" in out.split("-- stderr --")[1], out
    assert "_sweepgate" not in out and "BASHPID" not in out and "last=five" in out, out


def test_a_subshell_is_still_written_with_its_line(tmp_path):
    _, _, paths = _same(tmp_path, "echo go\nf() { :; }\nf\n( echo sub ) | cat\n")
    assert b"s.sh" in paths["subshells"].read_bytes()


@pytest.mark.parametrize("value", ["-1", "abc", "", "99999999999999999999"])
def test_an_odd_bash_xtracefd_does_not_stop_a_set_e_script(tmp_path, value):
    text = (f"set -eu\nBASH_XTRACEFD='{value}' 2>/dev/null || :\nf() {{ echo \"f $1\"; }}\nf one\n"
            "x=$(f two); echo \"$x\"\ntrap 'echo bye' EXIT\n( f three )\necho end\n")
    rc, out, _ = _same(tmp_path, text)
    assert rc == 0 and "end\n" in out, out
