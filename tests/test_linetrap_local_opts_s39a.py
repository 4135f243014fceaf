"""s39a: the rehearsal's `set -T` and a function's `local -`, and `[[ -o functrace ]]`.

1. `local -` (bash 4.4+) saves the shell's options as the function runs it and puts them back as it returns; a
   function that hides its trace with `local -; ...; set +x` ran its `set +x` with the rehearsal's `set -T` turned
   off, and its return put `set -T` back on without the trap: the trap took that for the script's own `set -T` and
   kept it on from then on. A later function's RETURN trap then ran as each helper it called returned (a `set -e`
   script whose cleanup removed a folder before it was written died), and `$-` showed T.
2. `[[ -o functrace ]]` (also `[ -o functrace ]`, `test -o functrace`) said functrace was on.
Each runs a real bash twice, plainly and with the rehearsal's BASH_ENV, and compares what the script did.
"""

from __future__ import annotations

import pytest

from test_linetrap_unchanged_s38g import RETURN_CLEANUP, _same

QUIET = "quiet() {\n  local -\n  echo \"token set\"\n  set +x\n}\nquiet\n"


def test_a_return_trap_after_a_local_dash_function_runs_where_plain_bash_runs_it(tmp_path):
    rc, out, _ = _same(tmp_path, "set -e\n" + QUIET + RETURN_CLEANUP.replace("set -e\n", ""))
    assert rc == 0 and "wrote ./tmpdir/file" in out and "left: none" in out, out


@pytest.mark.parametrize("text", [
    # its last command shows the options: `set -T` is off as it returns, and back on after
    QUIET + 'echo "flags: $-"\n',
    # a RETURN trap set in the function keeps `set -T` off until it returns
    "g() { :; }\nf() { local -; set -e; trap 'echo ret $FUNCNAME' RETURN; g; echo in; }\nf\necho \"$-\"\ng\n",
    # nested: each return puts back what its own `local -` saved
    "inner() { local -; set +u; }\nouter() { local -; inner; set +e; }\nouter\necho \"$-\"\nouter; inner\n"
    "echo \"$-\"\n",
    # `local -` among other names, and a script that sets functrace itself after one
    "f() { local x=1 -; echo \"$x\"; set +x; }\nf\necho \"$-\"\nset -T\necho \"$-\"\nf\necho \"$-\"\n",
], ids=["last-command-shows", "return-trap-inside", "nested", "among-names-then-own"])
def test_dollar_dash_after_a_local_dash_function_is_as_plain_bash_has_it(tmp_path, text):
    _same(tmp_path, text)


def test_the_option_test_operator_sees_no_functrace(tmp_path):
    text = ("[[ -o functrace ]] && echo on || echo off\n[ -o functrace ] && echo on || echo off\n"
            "test -o functrace && echo on || echo off\nf() { [[ -o functrace ]] && echo on || echo off; }\nf\n")
    _, out, _ = _same(tmp_path, text)
    assert out.startswith("off\noff\noff\noff\n"), out


@pytest.mark.parametrize("text", [
    # a script's own `echo` that logs each line it prints: the trap's `echo` wrote empty lines into its log
    "echo() { builtin echo \"[log] $*\" >> log.txt; builtin echo \"$@\"; }\n"
    "f() { trap 'builtin echo ret' RETURN; :; }\nf\ntrap - RETURN\necho one\necho two\ncat log.txt\n",
    # a script's own `set` (the trap's `set -T`/`set +T` ran it: the script exited 1)
    "set() { builtin echo \"set $*\" >&2; builtin set \"$@\"; }\nset -e\nf() { :; }\nf\necho \"$-\" >/dev/null\n:\n",
    # and its own printf, read, local, trap and unset, each counting its calls
    "n=0\nfor c in printf read local trap unset; do eval \"$c() { n=\\$((n + 1)); builtin $c \\\"\\$@\\\"; }\"; done\n"
    "g() { :; }\nf() { trap 'builtin echo ret' RETURN; g; }\nf\ntrap - RETURN\n( : ) | cat\ny=1; unset y\n"
    "echo \"calls: $n\"\n",
], ids=["echo", "set", "others"])
def test_the_scripts_own_functions_named_as_builtins_run_only_where_it_calls_them(tmp_path, text):
    _same(tmp_path, text)


def test_the_scripts_own_set_t_inside_a_local_dash_function_is_put_back_as_it_returns(tmp_path):
    text = ("f() { local -; set -T; echo \"in: $-\"; }\nf\necho \"out: $-\"\ng() { :; }\n"
            "h() { trap 'echo \"ret $FUNCNAME\"' RETURN; g; }\nh\n")
    _, out, _ = _same(tmp_path, text)
    assert "ret g" not in out, out
