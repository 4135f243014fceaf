"""s37b: rehearsal problems that still stood at the script, with no line.

1. A script that did not finish in time stands at the line bash was running when it was stopped (the
   rehearsal's DEBUG trap, read from BASH_ENV), else at the line that runs the benchmark client; "no result
   file" at the line that should have written it.
2. A server command kept in an array (`SERVE=("vllm" "serve" ...)`, or one word a line) is found there.
3. A subshell the script left running (`bash /path/script.sh (PID n)`) stands at the line it runs, not at
   a line that merely runs `bash`.
Each with a real bash process running the script, through `sweepgate rehearse`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from test_rehearse import FSL_ROWS, _bench_with_script, cli, write_rows  # noqa: E402

EVAL_ROW = {**FSL_ROWS[0], "run-eval": True}


def _rehearse(tmp_path: Path, text: str, *extra: str, row: dict | None = None,
              env: dict | None = None) -> tuple[list[str], str, str]:
    """`sweepgate rehearse` of a repository whose row script reads ``text``: its problem lines (those at the
    script), the script's path, all it wrote to stderr."""
    repo, script = _bench_with_script(tmp_path, text)
    r = cli(["--row-json", str(write_rows(tmp_path, row or FSL_ROWS[0])), "--work-dir", str(tmp_path / "w"),
             *extra], cwd=repo, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    rel = str(script.relative_to(repo))
    return [line for line in r.stderr.splitlines() if line.startswith(rel)], rel, r.stderr


def _at(lines: list[str], rel: str, start: str) -> list[str]:
    """Where the problem that starts with ``start`` stands: `FILE:LINE` (`FILE` alone: at the script)."""
    return [line.split(": ", 1)[0] for line in lines if line.split(": ", 1)[1].startswith(start)]


def test_a_script_stopped_by_its_timeout_stands_at_the_line_it_was_running(tmp_path):
    text = "echo starting\nsleep 0.1\nsleep \\\n  300\necho never\n"
    lines, rel, err = _rehearse(tmp_path, text, "--timeout", "2", env={"GITHUB_ACTIONS": "true"})
    # bash numbers the command by its second line; it stands at the first, where the command starts
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:3"], lines
    assert f"::error file={rel},line=3::the script did not finish within 2s" in err, err


def test_a_timeout_in_a_function_of_the_script_stands_at_its_line_there(tmp_path):
    text = "echo starting\nwait_here() {\n  sleep 300\n}\nwait_here\n"
    lines, rel, _ = _rehearse(tmp_path, text, "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:3"], lines


def test_a_timeout_in_a_library_function_stands_at_the_scripts_call(tmp_path):
    repo, script = _bench_with_script(tmp_path, "")
    (repo / "benchmarks/benchmark_lib.sh").write_text("wait_long() {\n  sleep 300\n}\n")
    script.write_text('source "$(dirname "$0")/../../benchmark_lib.sh"\necho go\nwait_long \\\n  --all-day\n')
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w"),
             "--timeout", "2"], cwd=repo)
    rel = str(script.relative_to(repo))
    assert f"{rel}:3: the script did not finish within 2s" in r.stderr, r.stderr


def test_a_timeout_inside_a_term_trap_still_stands_where_the_script_was(tmp_path):
    text = "trap 'echo cleaning; sleep 0.2; exit 1' TERM\necho go\nsleep 300 &\nwait\n"
    lines, rel, _ = _rehearse(tmp_path, text, "--timeout", "2")
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:4"], lines


def test_a_script_that_sets_its_own_debug_trap_stands_at_its_client_line_when_it_times_out(tmp_path):
    text = ("trap 'true' DEBUG\nrun_benchmark_serving() {\n  sleep 300\n}\necho go\n"
            "run_benchmark_serving --model m \\\n  --result-filename \"$RESULT_FILENAME\"\n")
    lines, rel, _ = _rehearse(tmp_path, text, "--timeout", "2")
    # not at line 1 (where the script's trap replaced the rehearsal's), nor at the function's definition
    assert _at(lines, rel, "the script did not finish within 2s") == [f"{rel}:6"], lines


CLIENT_WRITES_NOTHING = """echo go
client() { :; }
mkdir -p "$RESULT_DIR"
client --model m \\
  --result-dir "$RESULT_DIR" \\
  --result-filename "$RESULT_FILENAME"
"""


def test_no_result_file_stands_at_the_client_line_that_should_have_written_it(tmp_path):
    lines, rel, _ = _rehearse(tmp_path, CLIENT_WRITES_NOTHING)
    assert _at(lines, rel, "no result file") == [f"{rel}:4"], lines


def test_a_result_that_is_not_json_stands_at_the_line_naming_the_result_file(tmp_path):
    text = 'echo go\necho "not json" > "$RESULT_DIR/$RESULT_FILENAME.json"\n'
    lines, rel, _ = _rehearse(tmp_path, text)
    assert _at(lines, rel, "result file is not JSON") == [f"{rel}:2"], lines


def test_a_missing_eval_result_stands_at_the_line_that_runs_the_evals(tmp_path):
    text = ('echo go\nrun_requested_evals() { :; }\necho \'{}\' > "$RESULT_DIR/${RESULT_FILENAME}.json"\n'
            "run_requested_evals\n")
    lines, rel, _ = _rehearse(tmp_path, text, row=EVAL_ROW)
    assert _at(lines, rel, "no result file") == [f"{rel}:4"], lines


@pytest.mark.parametrize("assigned, line", [
    ('SERVE=("vllm" "serve" "$MODEL" --port 1234)\n', 2),
    ("SERVE=(\n  'vllm'\n  serve \"$MODEL\"  # the server\n  --port 1234\n)\n", 3),
    ('declare -a SERVE=(vllm\n  serve "$MODEL" --port 1234)\n', 2),
], ids=["quoted-words", "a-word-a-line", "declare-split"])
def test_a_server_command_kept_in_an_array_is_found_where_it_is_assigned(tmp_path, assigned, line):
    text = f"echo go\n{assigned}\"${{SERVE[@]}}\" &\nsleep 1\n"
    lines, rel, _ = _rehearse(tmp_path, text)
    assert _at(lines, rel, "vllm serve --port is 1234") == [f"{rel}:{line}"], lines


def test_a_subshell_left_running_stands_at_its_line_not_at_one_that_runs_bash(tmp_path):
    text = "echo go\nbash -c true\n( while :; do sleep 0.2; done ) &\nsleep 0.3\nexit 0\n"
    lines, rel, _ = _rehearse(tmp_path, text)
    left = [line for line in lines if "the script left running: bash " in line]
    assert [line.split(": ", 1)[0] for line in left] == [f"{rel}:3"], lines


def test_a_subshell_a_library_function_started_stands_at_the_scripts_call(tmp_path):
    repo, script = _bench_with_script(tmp_path, "")
    lib = repo / "benchmarks/benchmark_lib.sh"
    lib.write_text("start_watch() {\n  ( while :; do sleep 0.2; done ) &\n}\n")
    script.write_text('echo go\nsource "$(dirname "$0")/../../benchmark_lib.sh"\nbash -c true\nstart_watch\n'
                      "sleep 0.3\n")
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo)
    rel = str(script.relative_to(repo))
    left = [line for line in r.stderr.splitlines() if "the script left running: bash " in line]
    assert [line.split(": ", 1)[0] for line in left] == [f"{rel}:4"], r.stderr


def test_the_trap_leaves_the_script_as_it_was(tmp_path):
    """What the script sees of the rehearsal's DEBUG trap: no BASH_ENV of its own, `$?`, `$_` and
    PIPESTATUS as bash keeps them, nothing in its `set -x` trace."""
    text = ('set -x\necho "env=${BASH_ENV-unset}"\nfalse | true; echo "ps=${PIPESTATUS[*]}"\n'
            'false || echo "rc=$?"\necho a b; echo "last=$_"\nexit 3\n')
    _rehearse(tmp_path, text, env={"BASH_ENV": "", "SWEEPGATE_BASH_ENV": str(tmp_path / "none.sh")})
    log = (tmp_path / "w/script.log").read_text()
    assert "env=unset\n" in log and "ps=1 0\n" in log and "rc=1\n" in log and "last=b\n" in log, log
    assert "sweepgate" not in log and "BASHPID" not in log, log


def test_the_jobs_own_bash_env_is_still_read_and_seen(tmp_path):
    job_env = tmp_path / "job_env.sh"
    job_env.write_text("JOB_ENV_READ=yes\n")
    _rehearse(tmp_path, 'echo "read=${JOB_ENV_READ-no} env=$BASH_ENV"\nexit 3\n', env={"BASH_ENV": str(job_env)})
    assert f"read=yes env={job_env}\n" in (tmp_path / "w/script.log").read_text()


def _preflight_problems(tmp_path: Path, text: str, timeout: int = 30) -> tuple[list[tuple[int, str]], str]:
    """preflight's run problems of the first FSL row, its script reading ``text``, run as preflight runs it
    (a real bash process): (line, message) of each at the script, and the script's path."""
    from sweepgate.commands.preflight import _run_problems
    from sweepgate.rehearsal.record import record_row

    repo, script = _bench_with_script(tmp_path, text)
    rec = record_row(FSL_ROWS[0], repo, timeout)
    rel = str(script.relative_to(repo))
    return [(d.line, d.message) for d in _run_problems(rec, repo) if d.file == rel], rel


def test_preflight_puts_a_row_that_did_not_finish_at_the_line_it_was_stopped_at(tmp_path):
    got, _ = _preflight_problems(tmp_path, "echo go\nsleep 0.1\nsleep 300\n", timeout=2)
    assert [line for line, message in got if "did not finish in the fast rehearsal" in message] == [3], got


def test_preflight_puts_a_subshell_left_running_at_its_line(tmp_path):
    got, _ = _preflight_problems(tmp_path, "echo go\nbash -c true\n( while :; do sleep 0.2; done ) &\nsleep 0.3\n")
    assert [line for line, message in got if message.startswith("left running: bash ")] == [3], got
