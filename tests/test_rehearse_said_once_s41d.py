"""A rehearsed script that fails is said to fail once (s41d): a script that exited non-zero, or was killed by a
signal, without writing its result was followed by "no result file ...; write the client's own output there",
which only repeated the exit (the script stopped before its client ran) and sent the reader to the wrong line.
The exit is the cause and is said alone; a script that exits 0 without its result is still told of the file.
"""

from __future__ import annotations

import pytest

from test_rehearse import FSL_ROWS, _bench_with_script, cli, write_rows

B300_SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"


def _problems(stderr: str, script: str) -> list[str]:
    """The problem lines about the script (the log's tail left out)."""
    return [line for line in stderr.split("--- last lines of ")[0].splitlines() if line.startswith(script)]


@pytest.mark.parametrize("body, told", [("echo 'Error: TP=8 only' >&2\nexit 1\n", "the script exited 1"),
                                        ("kill -KILL $$\n", "the script was killed by SIGKILL")])
def test_a_script_that_fails_before_its_result_is_said_to_fail_once(tmp_path, body, told):
    repo, script = _bench_with_script(tmp_path, body)
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo)
    said = _problems(r.stderr, B300_SCRIPT)
    assert r.returncode == 1 and len(said) == 1 and told in said[0], r.stderr
    assert "no result file" not in r.stderr, r.stderr


def test_a_script_that_exits_0_without_its_result_is_told_of_the_file(tmp_path):
    repo, script = _bench_with_script(tmp_path, "echo done\n")
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo)
    assert r.returncode == 1 and "no result file" in r.stderr and "the script exited" not in r.stderr, r.stderr

