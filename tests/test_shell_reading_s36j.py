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
"""

from __future__ import annotations

import subprocess

import pytest
from test_reuse import assert_each_file_is_part_of_the_identity
from test_sourced_library_s35c import SCRIPT, bash_sourced_at, script_text

from sweepgate.core import recipes

LIB = "benchmarks/benchmark_lib.sh"
SOURCES_IT = {  # the script's text after its first two lines; bash sources the library once
    # 1.
    "after $[1<<2]": f"echo $[1<<2]\nsource {LIB}\n",
    "after $[ ] nested, in a string": f'x=1; echo "$[ $[1<<2] + 1 ]" $[x[1]<<1]\nsource {LIB}\n',
    "after (( x <<= 1 ))": f"x=1; (( x <<= 1 ))\nsource {LIB}\n",
    "after $(( 1<<2 ))": f"echo $(( 1<<2 ))\nsource {LIB}\n",
    "after [[ a < b ]]": f"[[ a < b ]]\nsource {LIB}\n",
    "after ${{x/<</}}": f"x=a; echo ${{x/<</}} \"${{x/<</}}\"\nsource {LIB}\n",
    "after a quoted let": f"let 'x=1<<2'\nsource {LIB}\n",
    "after a here-string": f"cat <<<x >/dev/null\nsource {LIB}\n",
    # 2.
    '"source"': f'"source" {LIB}\n',
    "'source'": f"'source' {LIB}\n",
    "\\source": f"\\source {LIB}\n",
    '"."': f'"." {LIB}\n',
    "\\.": f"\\. {LIB}\n",
    'if ...; then "source"': f'if true; then "source" "$(dirname "$0")/../../benchmark_lib.sh"; fi\n',
    'X=1 "source"': f"X=1 'source' {LIB}\n",
    "builtin \\source": f"builtin \\source {LIB}\n",
    # 3.
    "$((cd .); source) in a string": f'echo "$((cd .); source {LIB})"\n',
    "$((cd .); source) assigned": f'X="$((cd .) && source {LIB}; echo)"\n',
    "((cd .); source)": f"((cd .); source {LIB})\n",
}
SOURCES_NOTHING = {  # forms that name the library but bash does not source it
    "a quoted source in a comment": f'# "source" {LIB}\n',
    "a quoted source after echo": f'echo "source" {LIB}\n',
    "a quoted source in a string": f"echo 'a;\"source\" {LIB}'\n",
    '"source"x': f'"source"{LIB} 2>/dev/null || true\n',
    "a quoted word that is not source": f'"sourced" {LIB} 2>/dev/null || true\n',
    # 4.
    "an escaped line break, then source": f"echo \\\nsource {LIB}\n",
    "after $[ ] that ends": f"echo $[1] source {LIB}\n",
    "arithmetic $(( (1) )) then source as a word": f"echo $(( (1) )) source {LIB}\n",
}


@pytest.mark.parametrize("how", SOURCES_IT)
def test_the_line_bash_sources_the_library_at_is_the_line_read(tmp_path, how):
    (line,) = bash_sourced_at(tmp_path, SOURCES_IT[how])
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(SOURCES_IT[how]).encode()}) == [(SCRIPT, line)], how


@pytest.mark.parametrize("how", SOURCES_NOTHING)
def test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one(tmp_path, how):
    assert bash_sourced_at(tmp_path, SOURCES_NOTHING[how]) == [], how
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(SOURCES_NOTHING[how]).encode()}) == [], how


def test_a_source_after_a_heredoc_that_let_starts_is_not_read():
    """`let x=1<<2` does start a heredoc (its word is `2`), as bash reads it: what follows is its body."""
    text = script_text(f"let x=1<<2\nsource {LIB}\n2\n")
    assert recipes.library_lines([SCRIPT], {SCRIPT: text.encode()}) == []


CONTINUED = {  # a `\` that joins a line to the next: bash sources the library (its line is bash's own choice)
    "source \\ then the path": f"source \\\n  {LIB}\n",
    "X=1 \\ then source": f"X=1 \\\nsource {LIB}\n",
    "builtin \\ then source": f"builtin \\\n  source -- \\\n  {LIB}\n",
}


@pytest.mark.parametrize("how", CONTINUED)
def test_a_source_command_over_joined_lines_is_read(tmp_path, how):
    assert len(bash_sourced_at(tmp_path, CONTINUED[how])) == 1, how
    text = script_text(CONTINUED[how])
    line = text.count("\n", 0, text.index("source")) + 1  # the `source` word's
    assert recipes.library_lines([SCRIPT], {SCRIPT: text.encode()}) == [(SCRIPT, line)], how


HELPERS = {  # how the script sources the helper (each a form read since s36j) -> the helper's path
    '"source" benchmarks/shared/quoted.sh\n': "benchmarks/shared/quoted.sh",
    "\\. benchmarks/shared/escaped.sh\n": "benchmarks/shared/escaped.sh",
    "source \\\n  benchmarks/shared/joined.sh\n": "benchmarks/shared/joined.sh",
    "echo $[1<<2]\nsource benchmarks/shared/after.sh\n": "benchmarks/shared/after.sh",
    'echo "$((cd .); source benchmarks/shared/sub.sh)"\n': "benchmarks/shared/sub.sh",
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
