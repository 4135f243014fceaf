"""Three gaps in reading a benchmark script's shell text (s35g), checked against real bash where it applies.

1. A heredoc's body is text: `cat <<EOF` (`<<-EOF`, `<<'EOF'`, `<<"EOF"`) then a body line `source
   benchmarks/benchmark_lib.sh` was read as sourcing the library (the missing-library hint pointed at it).
2. A `source` inside an assignment's command substitution, `X=$(source benchmarks/benchmark_lib.sh; echo 1)`,
   was not seen: bash sources it (in a subshell).
3. A file run through a variable built on another (`ROOT=...; B="$ROOT/benchmarks"; python3 "$B/client.py"`)
   was not part of the run identity, and the folder `benchmarks` was hashed (as missing) in its place.
"""

from __future__ import annotations

import pytest
from test_reuse import assert_each_file_is_part_of_the_identity
from test_sourced_library_s35c import SCRIPT, bash_sourced_at, script_text

from sweepgate.core import recipes

# --- 1. heredoc bodies ------------------------------------------------------------------------------------

HEREDOCS = {
    "<<EOF": "cat <<EOF\nsource benchmarks/benchmark_lib.sh\nEOF\n",
    "<<-EOF, tab-indented": "cat <<-EOF >/dev/null\n\tsource benchmarks/benchmark_lib.sh\n\tEOF\n",
    "<<'EOF'": "cat <<'EOF'\n. \"$(dirname \"$0\")/../../benchmark_lib.sh\"\nEOF\n",
    '<<"END", two on a line': 'cat <<"END" - <<X\nsource benchmarks/benchmark_lib.sh\nEND\n'
                              '[ -f x ] && . benchmarks/benchmark_lib.sh\nX\n',
    "<< EOF, a blank before it": "cat << EOF | grep -v x\nif true; then source benchmarks/benchmark_lib.sh; fi\nEOF\n",
    "<<\\EOF": "cat <<\\EOF\nsource benchmarks/benchmark_lib.sh\n EOF\nEOF\n",
}


@pytest.mark.parametrize("how", HEREDOCS)
def test_a_heredoc_body_is_text_not_a_source(tmp_path, how):
    assert bash_sourced_at(tmp_path, HEREDOCS[how]) == [], how
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(HEREDOCS[how]).encode()}) == [], how


AFTER = {  # a heredoc, then the library sourced after its terminator (or no heredoc at all)
    "after a heredoc": "cat <<-'EOF'\n\tsource benchmarks/nothing.sh\n\tEOF\nsource benchmarks/benchmark_lib.sh\n",
    "a here-string is no heredoc": "cat <<< 'x'\nsource benchmarks/benchmark_lib.sh\n",
    "a shift is no heredoc": "echo $((1<<2)) \"<<EOF\" '<<EOF' # <<EOF\nsource benchmarks/benchmark_lib.sh\n",
}


@pytest.mark.parametrize("how", AFTER)
def test_a_source_after_a_heredoc_or_beside_a_shift_is_read_at_the_line_bash_sources_at(tmp_path, how):
    (line,) = bash_sourced_at(tmp_path, AFTER[how])
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(AFTER[how]).encode()}) == [(SCRIPT, line)], how


# --- 2. a source inside an assignment's command substitution -----------------------------------------------

SUBSTITUTED = {
    "bare": "X=$(source benchmarks/benchmark_lib.sh; echo 1)\n",
    "quoted, local, beside the script":
        'f() { local X="$(. "$(dirname "$0")/../../benchmark_lib.sh" && echo 1)"; }; f\n',
    "after another assignment": 'A=1 B="$(source benchmarks/benchmark_lib.sh; echo)"\n',
    "the second substitution of a word": 'C=$(true)$(. ./benchmarks/benchmark_lib.sh)\n',
}


@pytest.mark.parametrize("how", SUBSTITUTED)
def test_a_source_inside_an_assignment_s_command_substitution_is_read(tmp_path, how):
    lines = bash_sourced_at(tmp_path, SUBSTITUTED[how])
    assert lines and recipes.library_lines([SCRIPT], {SCRIPT: script_text(SUBSTITUTED[how]).encode()}) == [
        (SCRIPT, lines[0])], how


def test_a_variable_set_inside_a_command_substitution_does_not_leave_it():
    text = 'D=/opt\nX=$(D="$(dirname "$0")"; echo)\nsource "$D/../../benchmark_lib.sh"\n'
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(text).encode()}) == []


# --- 3. a file run through a variable built on another ------------------------------------------------------

CHAINED = ('ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"; B="$ROOT/benchmarks"; python3 "$B/client.py"\n'
           'CFG_DIR=${B}/configs\ncat "$CFG_DIR"/serve.yaml\n')


def test_a_file_run_through_a_variable_built_on_another_is_part_of_the_run_identity():
    tree = {SCRIPT: script_text(CHAINED).encode(), "benchmarks/client.py": b"print(1)\n",
            "benchmarks/configs/serve.yaml": b"a: 1\n"}
    assert recipes.sourced_helpers(SCRIPT, {SCRIPT: tree[SCRIPT]}) == ["benchmarks/client.py",
                                                                     "benchmarks/configs/serve.yaml"]
    assert_each_file_is_part_of_the_identity(tree, ["benchmarks/client.py", "benchmarks/configs/serve.yaml"])


def test_a_folder_variable_names_no_file_of_its_own_and_a_file_variable_does():
    text = ('D="$(dirname "$0")"\nOUT="$D/out"\nmkdir -p "$OUT/logs"\nCLIENT="$D/client.py"\npython3 "$CLIENT"\n'
            'D=/opt\npython3 "$D/elsewhere.py"\n')
    assert recipes.beside_paths(text) == ["out/logs", "client.py"]
