"""s36h: diagnostics that stood at no line, and a misleading hint.

1. `rehearse`'s problems all stood at the script with no line ("the script never started the SGLang
   server"); each stands at the line it is about where the script has one.
2. preflight's "left running: ..." stood at the script with no line; it stands at the line that started it.
4. `rehearse --where tpp=8` without --exp-name, over rows of several exp-names, fell back to every row and
   said "no row chosen ...; pass --exp-name NAME" where the field was the problem.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.core.errors import SweepgateError  # noqa: E402
from sweepgate.rehearsal import runner  # noqa: E402
from test_rehearse import FSL_ROWS  # noqa: E402

TWO_NAMES = [FSL_ROWS[0], {**FSL_ROWS[1], "exp-name": "dsr1_8k1k", "isl": 8192}]


def _refusal(where: list[str], conc: int | None = None) -> str:
    with pytest.raises(SweepgateError) as caught:
        runner.select_row(TWO_NAMES, "rows.json", None, conc, where)
    return str(caught.value)


def test_a_mistyped_where_field_over_several_exp_names_is_named_with_a_did_you_mean():
    line = _refusal(["tpp=8"])
    # `pp` is as close to `tpp` as `tp`: both are named (s41i)
    assert line.startswith("rows.json: no row has a field 'tpp'; did you mean pp or tp? (their fields: "), line


def test_a_where_value_no_row_has_over_several_exp_names_is_named_with_the_values_there_are():
    assert _refusal(["tp=3"]) == "rows.json: no row has tp=3; the rows have tp 8", _refusal(["tp=3"])


def test_a_where_that_keeps_rows_of_several_exp_names_still_asks_for_one():
    assert _refusal(["tp=8"]).startswith("rows.json: no row chosen: 2 rows (exp-name dsr1_1k1k, dsr1_8k1k)")


def _rehearse(tmp_path, text: str, row: dict | None = None, name: str | None = None) -> tuple[list[str], str]:
    """`sweepgate rehearse` of a repository whose row script reads ``text``: its problem lines, the script."""
    from test_rehearse import _bench_with_script, cli, write_rows

    repo, script = _bench_with_script(tmp_path, text)
    if name:
        script = script.rename(script.with_name(name))
    r = cli(["--row-json", str(write_rows(tmp_path, row or FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")],
            cwd=repo)
    assert r.returncode == 1, r.stdout + r.stderr
    rel = str(script.relative_to(repo))
    return [line for line in r.stderr.splitlines() if line.startswith(rel)], rel


def test_a_server_never_started_stands_at_the_line_that_should_start_it(tmp_path):
    lines, rel = _rehearse(tmp_path, 'if [ -n "$NEVER" ]; then\n  vllm serve m --port "$PORT"\nfi\n')
    assert f"{rel}:2: the script never started `vllm serve`; start it in the script, listening on \"$PORT\" " \
           "(start_server_and_wait)" in lines, lines


def test_an_sglang_server_never_started_stands_at_its_launch_line(tmp_path):
    row = {**FSL_ROWS[0], "framework": "sglang", "image": "lmsysorg/sglang:v0.5.0"}
    lines, rel = _rehearse(tmp_path, 'if [ -n "$NEVER" ]; then\n  python3 -m sglang.launch_server --port "$PORT"\nfi\n',
                           row, "dsr1_fp8_b300_sglang.sh")
    assert any(line.startswith(f"{rel}:2: the script never started the SGLang server") for line in lines), lines


def test_a_script_that_fails_stands_at_the_line_bash_names(tmp_path):
    lines, rel = _rehearse(tmp_path, "echo starting\nno_such_command_s36h\nexit 3\n")
    assert lines[0].startswith(f"{rel}:2: the script exited 3 ("), lines  # its cause in parentheses (s37d)
    assert "line 2: no_such_command_s36h: command not found); its output" in lines[0], lines


def test_what_a_rehearsal_left_running_stands_at_the_line_that_started_it(tmp_path):
    lines, rel = _rehearse(tmp_path, "echo starting\nsleep 300 &\nexit 0\n")
    assert any(line.startswith(f"{rel}:2: the script left running: sleep 300 (PID ") for line in lines), lines


def test_preflight_puts_what_was_left_running_at_the_line_that_started_it(tmp_path):
    from sweepgate.commands.preflight import _run_problems
    from sweepgate.rehearsal.record import Recording

    script = tmp_path / "benchmarks/single_node/fixed_seq_len/x.sh"
    script.parent.mkdir(parents=True)
    script.write_text('echo go\nsleep 300 &\nvllm serve m --port "$PORT" &\n')
    rec = Recording(script, [], 0, False, ["sleep 300 (PID 12)", "vllm serve (PID 13)", "bash (PID 14)",
                                           "sleep 300 (PID 15)"])
    got = [(d.file, d.line, d.message) for d in _run_problems(rec, tmp_path)]
    rel = "benchmarks/single_node/fixed_seq_len/x.sh"
    # by command, not PID (s40u): the rows that left the same at a line are one problem naming them
    assert got == [(rel, 2, "left running: sleep 300 (2 processes)"), (rel, 3, "left running: vllm serve"),
                   (rel, 0, "left running: bash")], got


def test_a_multi_node_problem_stands_at_the_line_that_starts_the_router_or_the_workers(tmp_path):
    from sweepgate.rehearsal import multinode

    script = tmp_path / "benchmarks/multi_node/x.sh"
    script.parent.mkdir(parents=True)
    script.write_text('echo go\npython3 -m sglang.launch_server --disaggregation-mode "$1" &\n'
                      'python3 -m sglang_router.launch_router --port 9 &\n')
    row = {"prefill": {"num-worker": 1, "tp": 8}, "decode": {"num-worker": 0, "tp": 8}}
    problems = multinode.check_calls(row, {"PORT": "8000"}, [])
    got = {(d.line, d.message.split(",")[0]) for d in runner._problem_diagnostics(tmp_path, script, problems, "")}
    assert got == {(2, "expected 1 prefill server(s)"), (3, "expected one router")}, got
