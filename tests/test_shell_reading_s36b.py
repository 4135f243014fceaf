"""The shell reader's known gaps after s35g (s36b), each checked against real bash.

1. A `<<EOF` inside a string that runs over lines was taken for a heredoc, so every line after it was skipped
   (the library sourced after it was not seen); and a `source` line inside such a string was read as sourcing.
2. An unquoted heredoc's body runs its command substitutions (`$(source x)`, `` `source x` ``): not seen.
3. A command substitution inside quotes (`echo "$(source x)"`) or backticks was not read as commands unless
   it was an assignment's.
4. A command after assignments (`X=1 source x`, `X=1 . x`) and other spellings bash sources by
   (`builtin source`, `command .`, `source -- x`, `time source`, `eval source x`, a `case` item `a) . x`) were
   not read as sourcing.
A helper sourced any of these ways was left out of the run identity (a changed helper was reused as unchanged).
The cases of s36j (test_shell_reading_s36j's docstring) are in the same tables, marked `s36j`.
"""

from __future__ import annotations

import subprocess

import pytest
from test_reuse import assert_each_file_is_part_of_the_identity
from test_sourced_library_s35c import LIB, SCRIPT, bash_sourced_at, oracle_tests, script_text

from sweepgate.core import recipes

SOURCES_IT = {  # the script's text after its first two lines; bash sources the library once
    # 1.
    "after a <<EOF in a string over lines": f'echo "usage:\n  cat <<EOF\n"\nsource {LIB}\n',
    "after a <<EOF in a single-quoted string over lines": f"echo 'usage:\n  cat <<EOF\n'\nsource {LIB}\n",
    # 3.
    "a quoted $( ) of echo": f'echo "$(source {LIB})"\n',
    "a quoted $( ) after text": f'echo "now: $(. "$(dirname "$0")/../../benchmark_lib.sh"; echo)"\n',
    "backticks": f"echo `source {LIB}`\n",
    # 4.
    "X=1 source": f"X=1 source {LIB}\n",
    "X=1 .": f"X=1 . {LIB}\n",
    "two assignments, one quoted, then source": f'A=1 B="x; y" source {LIB}\n',
    "an assignment of $( ) then source": f"A=$(echo a) source {LIB}\n",
    "builtin source": f"builtin source {LIB}\n",
    "command .": f"command . {LIB}\n",
    "command -- source": f"command -- source {LIB}\n",
    "source --": f"source -- {LIB}\n",
    ". --": f'. -- "$(dirname "$0")/../../benchmark_lib.sh"\n',
    "time source": f"time source {LIB}\n",
    "X=1 builtin source": f"X=1 builtin source {LIB}\n",
    "eval source": f"eval source {LIB}\n",
    "a case item on one line": f"case x in x) source {LIB};; esac\n",
    "the second case item": f"case a in\n  b) source x.sh;;\n  a) . {LIB};;\nesac\n",
    # s36j 1.
    "after $[1<<2]": f"echo $[1<<2]\nsource {LIB}\n",
    "after $[ ] nested, in a string": f'x=1; echo "$[ $[1<<2] + 1 ]" $[x[1]<<1]\nsource {LIB}\n',
    "after (( x <<= 1 ))": f"x=1; (( x <<= 1 ))\nsource {LIB}\n",
    "after $(( 1<<2 ))": f"echo $(( 1<<2 ))\nsource {LIB}\n",
    "after [[ a < b ]]": f"[[ a < b ]]\nsource {LIB}\n",
    "after ${{x/<</}}": f"x=a; echo ${{x/<</}} \"${{x/<</}}\"\nsource {LIB}\n",
    "after a quoted let": f"let 'x=1<<2'\nsource {LIB}\n",
    "after a here-string": f"cat <<<x >/dev/null\nsource {LIB}\n",
    # s36j 2.
    '"source"': f'"source" {LIB}\n',
    "'source'": f"'source' {LIB}\n",
    "\\source": f"\\source {LIB}\n",
    '"."': f'"." {LIB}\n',
    "\\.": f"\\. {LIB}\n",
    'if ...; then "source"': f'if true; then "source" "$(dirname "$0")/../../benchmark_lib.sh"; fi\n',
    'X=1 "source"': f"X=1 'source' {LIB}\n",
    "builtin \\source": f"builtin \\source {LIB}\n",
    # s36j 3.
    "$((cd .); source) in a string": f'echo "$((cd .); source {LIB})"\n',
    "$((cd .); source) assigned": f'X="$((cd .) && source {LIB}; echo)"\n',
    "((cd .); source)": f"((cd .); source {LIB})\n",
}
SOURCES_NOTHING = {  # forms that name the library but bash does not source it
    "a source line inside a string over lines": f'echo "a\nsource {LIB}\n"\n',
    "a source line inside a single-quoted string over lines": f"echo 'a\nsource {LIB}\n'\n",
    "inside a string with an escaped quote": f'echo "a \\" b\nsource {LIB}\n"\n',
    "$( ) in a quoted heredoc's body": f"cat <<'EOF' >/dev/null\n$(source {LIB})\nEOF\n",
    "$( ) in single quotes": f"echo '$(source {LIB})'\n",
    "export X=1 source": f"export X=1 source {LIB}\n",
    "local X=1 source": f"f() {{ local X=1 source {LIB}; }}; f\n",
    "command -v": f"command -v source {LIB} >/dev/null\n",
    "an array's words": f"X=(source {LIB})\n",
    "after a $( ) that ends": f"echo $(echo) source {LIB}\n",
    "after $(( )) that ends": f"echo $((1)) . {LIB}\n",
    "a quote right after source": f'source"{LIB}"\n',
    "a quoted source in a comment": f'# "source" {LIB}\n',
    "a quoted source after echo": f'echo "source" {LIB}\n',
    "a quoted source in a string": f"echo 'a;\"source\" {LIB}'\n",
    '"source"x': f'"source"{LIB} 2>/dev/null || true\n',
    "a quoted word that is not source": f'"sourced" {LIB} 2>/dev/null || true\n',
    # s36j 4.
    "an escaped line break, then source": f"echo \\\nsource {LIB}\n",
    "after $[ ] that ends": f"echo $[1] source {LIB}\n",
    "arithmetic $(( (1) )) then source as a word": f"echo $(( (1) )) source {LIB}\n",
}
IN_BODIES = {  # 2. bash sources the library at the heredoc command's line; it is read at the body's line, after it
    "$( ) in an unquoted heredoc's body": f"cat <<EOF >/dev/null\nbody $(source {LIB})\nEOF\n",
    "$( ) in quotes in an unquoted heredoc's body": f'cat <<-EOF >/dev/null\n\t"$(. ./{LIB})"\n\tEOF\n',
    "backticks in an unquoted heredoc's body": f"cat <<EOF >/dev/null\n`source {LIB}`\nEOF\n",
    "the second of two bodies": f"cat <<'A' - <<B >/dev/null\n$(source x.sh)\nA\n$(source {LIB})\nB\n",
}


(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)


@pytest.mark.parametrize("how", IN_BODIES)
def test_a_source_in_an_unquoted_heredoc_s_body_is_read_at_its_own_line(tmp_path, how):
    (line,) = bash_sourced_at(tmp_path, IN_BODIES[how])
    text = script_text(IN_BODIES[how])
    assert line == 3 and recipes.library_lines([SCRIPT], {SCRIPT: text.encode()}) == [
        (SCRIPT, text.count("\n", 0, text.rindex(LIB)) + 1)], how


HELPERS = {  # how the script sources the helper (each a form read since s36b, s36j or s37a) -> its path
    "X=1 source benchmarks/shared/prefixed.sh\n": "benchmarks/shared/prefixed.sh",
    "command . ./benchmarks/shared/command.sh\n": "benchmarks/shared/command.sh",
    'echo "$(source benchmarks/shared/quoted.sh)"\n': "benchmarks/shared/quoted.sh",
    "cat <<EOF\n`. benchmarks/shared/body.sh`\nEOF\n": "benchmarks/shared/body.sh",
    '"source" benchmarks/shared/quoted_word.sh\n': "benchmarks/shared/quoted_word.sh",
    "\\. benchmarks/shared/escaped.sh\n": "benchmarks/shared/escaped.sh",
    "source \\\n  benchmarks/shared/joined.sh\n": "benchmarks/shared/joined.sh",
    "echo $[1<<2]\nsource benchmarks/shared/after.sh\n": "benchmarks/shared/after.sh",
    'echo "$((cd .); source benchmarks/shared/sub.sh)"\n': "benchmarks/shared/sub.sh",
    # s37a
    "x[1<<2]=3\nsource benchmarks/shared/after_subscript.sh\n": "benchmarks/shared/after_subscript.sh",
    "s\\ource benchmarks/shared/escaped_inside.sh\n": "benchmarks/shared/escaped_inside.sh",
    "so''urce benchmarks/shared/quoted_inside.sh\n": "benchmarks/shared/quoted_inside.sh",
    'echo "$(case a in a) . benchmarks/shared/case.sh;; esac)"\n': "benchmarks/shared/case.sh",
}


def test_a_helper_sourced_any_of_these_ways_is_part_of_the_run_identity(tmp_path):
    tree = {SCRIPT: script_text(f"source {LIB}\n{''.join(HELPERS)}").encode(),
            **{path: f"echo {path}\n".encode() for path in HELPERS.values()}}
    assert_each_file_is_part_of_the_identity(tree, HELPERS.values())
    # bash sources every one of them, from the checkout's top
    for path, blob in tree.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(blob)
    (tmp_path / LIB).write_text("")
    r = subprocess.run(["bash", SCRIPT], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert [line for line in r.stdout.splitlines() if "/shared/" in line] == list(HELPERS.values()), r.stdout + r.stderr
