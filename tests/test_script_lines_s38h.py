"""Review of where a rehearsal's problem stands (s38h).

1. ``scriptlines.command_start`` took a `\\` that ends a comment (`echo start  # path C:\\`) or stands in quotes
   for one that joins the next line to its command, so a command on the next line was said to start a line too
   early. Checked against the line real bash numbers the command by.
2. ``scriptlines.first_command`` (where a missing result file, a missing eval result or a timeout bash could not
   place stands) tried each pattern over the script and then the whole library before the next pattern, and
   read every line as text: a script whose own lines pass no `--result-dir` stood at `benchmarks/lib/clients.sh:36`,
   inside the library's `readonly _SG_SERVING_OPTS="..."` string, though its own line names `$RESULT_FILENAME`;
   the repository's multi-node scripts stood at library lines for all three. Now the script's own words come
   first (never a comment, a string's text or a heredoc's body; a `$RESULT_FILENAME` in double quotes is a
   word's), then the script's line that calls into the library where a pattern finds a line (`disagg::run`),
   never a library line itself.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sweepgate.core import scriptlines
from sweepgate.rehearsal import runner

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

HERE = 'here() { echo "line ${BASH_LINENO[0]}"; }\n'
STARTS = {  # the text after the function's line -> the line (of the whole script) the `here` command starts at
    "after a comment ending in \\": ("echo start   # path C:\\\nhere\n", 3),
    "after a comment ending in \\\\": ("x=1 # \\\\\nhere\n", 3),
    "after a line whose \\ is in quotes": ('echo "x \\\n" ; here\n', 3),
    "after a line whose \\ is in single quotes": ("echo 'x \\\n' ; here\n", 3),
    "after an escaped \\": ("echo a\\\\\nhere\n", 3),
    "a command a \\ joins": ("here \\\n  arg\n", 2),
    "a command two \\ join": ("echo go; here \\\n  a \\\n  b\n", 2),
    "a command a \\ joins, after a comment ending in \\": ("# C:\\\nhere \\\n  arg\n", 3),
}


@pytest.mark.parametrize("how", STARTS)
def test_the_line_a_command_starts_at_from_the_line_bash_numbers_it_by(tmp_path, how):
    text, starts = STARTS[how]
    script = tmp_path / "s.sh"
    script.write_text(HERE + text)
    r = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60)
    (said,) = [int(line.split()[1]) for line in r.stdout.splitlines() if line.startswith("line ")]
    assert scriptlines.command_start((HERE + text).splitlines(), said) == starts, (said, r.stdout)


def test_a_timeout_after_a_comment_ending_in_a_backslash_stands_at_the_line_it_was_running(tmp_path):
    from test_rehearse_lines_s37b import _at, _rehearse

    lines, rel, _ = _rehearse(tmp_path, "echo start   # path C:\\\nsleep 300\n", "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:2"], lines


def _with_library(tmp_path: Path, text: str) -> tuple[Path, Path]:
    """A copy of the repository's benchmark library and a script reading ``text`` beside its own scripts."""
    shutil.copytree(ROOT / "benchmarks", tmp_path / "benchmarks")
    script = tmp_path / "benchmarks/single_node/fixed_seq_len/mine.sh"
    script.write_text(text)
    return tmp_path, script


SGLANG_CLIENT = ('#!/usr/bin/env bash\nsource "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"\n'
                 'python3 -m sglang.bench_serving --model "$MODEL" \\\n'
                 '  --output-file "${RESULT_DIR}/${RESULT_FILENAME}.json"\n')


def test_a_result_the_scripts_own_client_writes_stands_at_that_client_not_in_a_library_string(tmp_path):
    root, script = _with_library(tmp_path, SGLANG_CLIENT)
    rel = str(script.relative_to(root))
    assert scriptlines.first_command(root, script, runner.WRITES_RESULT) == (rel, 3)
    assert scriptlines.first_command(root, script, runner.WRITES_EVAL) == (rel, 3)


@pytest.mark.parametrize("seed", sorted(p.name for p in (ROOT / "benchmarks/multi_node/fixed_seq_len").glob("*.sh")))
def test_the_multi_node_scripts_problems_stand_at_their_own_lines(seed):
    script = ROOT / "benchmarks/multi_node/fixed_seq_len" / seed
    rel, lines = str(script.relative_to(ROOT)), script.read_text().splitlines()
    for finds, says in [(runner.WRITES_RESULT, "${RESULT_FILENAME}"), (runner.WRITES_EVAL, "${RESULT_FILENAME}"),
                        ((runner.CLIENT_RUNS, runner.SERVER_WAITS), "disagg::run")]:
        file, line = scriptlines.first_command(ROOT, script, finds)
        assert file == rel and says in lines[line - 1], (finds, file, line)


NOT_WORDS = ('echo go\nUSAGE="pass --result-dir and --save-result"  # --result-filename\n'
             "echo '${RESULT_FILENAME} run_benchmark_serving'\ncat <<'EOF'\n--result-dir ${RESULT_FILENAME}\nEOF\n"
             'cat <<EOF\nrun_benchmark_serving $RESULT_FILENAME\nEOF\n')


@pytest.mark.parametrize("finds", ["result", "eval", "timeout"])
def test_a_comment_a_strings_text_a_heredocs_body_is_no_line_that_writes_the_result(tmp_path, finds):
    patterns = {"result": runner.WRITES_RESULT, "eval": runner.WRITES_EVAL,
                "timeout": (runner.CLIENT_RUNS, runner.SERVER_WAITS)}[finds]
    root, script = _with_library(tmp_path, NOT_WORDS)
    assert scriptlines.first_command(root, script, patterns) is None
    script.write_text(NOT_WORDS + 'client --model m \\\n  --save-result --result-dir "$RESULT_DIR"\n'
                      'run_benchmark_serving --model m\nrun_requested_evals\n')
    want = {"result": 10, "eval": 13, "timeout": 12}[finds]
    assert scriptlines.first_command(root, script, patterns) == (str(script.relative_to(root)), want)


def test_a_library_function_stands_at_the_scripts_call_and_only_when_the_script_calls_it(tmp_path):
    root = tmp_path
    (root / "benchmarks/lib").mkdir(parents=True)
    (root / "benchmarks/benchmark_lib.sh").write_text('source "$(dirname "${BASH_SOURCE[0]}")/lib/mine.sh"\n')
    (root / "benchmarks/lib/mine.sh").write_text(
        'readonly OPTS="--result-dir=d"\nmy_client() {\n  vllm bench serve --save-result \\\n    --result-dir "$1"\n}\n'
        "my_run() {\n  my_client \"$RESULT_DIR\"\n}\n")
    script = root / "benchmarks/single_node/fixed_seq_len/mine.sh"
    script.parent.mkdir(parents=True)
    script.write_text('source "$(dirname "$0")/../../benchmark_lib.sh"\necho go\n')
    assert scriptlines.first_command(root, script, runner.WRITES_RESULT) is None
    script.write_text('source "$(dirname "$0")/../../benchmark_lib.sh"\necho go\nmy_run || exit 1\n')
    rel = str(script.relative_to(root))
    assert scriptlines.first_command(root, script, runner.WRITES_RESULT) == (rel, 3)
    assert scriptlines.first_command(root, script, (runner.CLIENT_RUNS,)) == (rel, 3)


def test_a_result_named_only_in_a_comment_stands_at_the_script_not_at_a_library_line(tmp_path):
    """The reviewer's run: `rehearse` of a script that writes another file, with the real library beside it."""
    from test_rehearse import FSL_ROWS, _bench_with_script, cli, write_rows

    repo, script = _bench_with_script(tmp_path, 'mkdir -p "$RESULT_DIR"\n'
                                      'echo \'{}\' > "$RESULT_DIR/other.json"  # not ${RESULT_FILENAME}\n')
    for path in (ROOT / "benchmarks").rglob("*.sh"):
        if "_node/" not in str(path):
            (repo / path.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, repo / path.relative_to(ROOT))
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo)
    rel = str(script.relative_to(repo))
    said = [line for line in r.stderr.splitlines() if ": no result file " in line]
    assert r.returncode == 1 and [line.split(": ", 1)[0] for line in said] == [rel], r.stderr


def test_a_script_s_own_answer_reads_no_library_and_each_file_is_parsed_once(tmp_path):
    """first_command read and parsed the script and every library file on every call (about 40 ms), though the
    script's own words answer most; the library is read only where they do not, and a file's parse is kept for
    the same text, so a rehearsal placing several problems parses each file once."""
    root, script = _with_library(tmp_path, SGLANG_CLIENT)
    scriptlines._parsed.cache_clear()
    assert scriptlines.first_command(root, script, runner.WRITES_RESULT)[1] == 3
    assert scriptlines._parsed.cache_info().misses == 1  # the script alone
    library = len(scriptlines._library_paths(root, script))
    assert library > 5
    assert scriptlines.first_command(root, script, (re.compile(r"no-such-command-s38"),)) is None
    assert scriptlines._parsed.cache_info().misses == 1 + library
    assert scriptlines.first_command(root, script, (re.compile(r"no-such-command-s38"),)) is None
    assert scriptlines._parsed.cache_info().misses == 1 + library  # nothing parsed again
