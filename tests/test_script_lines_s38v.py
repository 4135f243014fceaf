"""s38v: a server command kept in a string (`SERVER_CMD="vllm serve ... --port ${PORT}"`, then
`start_server_and_wait $SERVER_CMD`) got no line: since s38p a problem about one command stands where
``scriptlines.first_command`` finds it, in the script's words (a string's text blank), and a wrong port there was
said at the script alone. The string a variable is set to, in the code, that the script expands elsewhere is now
the place when the words hold no match: never a comment, a heredoc's body or an `echo`'s string, never a library
line. Real bash through `sweepgate rehearse`, the repository's own library.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from sweepgate.core import scriptlines  # noqa: E402
from sweepgate.rehearsal import runner  # noqa: E402
from test_rehearse import FSL_ROWS, cli, write_rows  # noqa: E402

SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
SERVES = 'server_cmd=(\n  vllm serve "${MODEL_PATH}"\n'  # the repository's script keeps the command in an array
IN_A_STRING = ('PORT=19999\necho "then vllm serve starts"  # vllm serve\n'
               'SERVER_CMD="vllm serve ${MODEL_PATH} --served-model-name ${MODEL} --port ${PORT} '
               '--max-model-len ${MAX_MODEL_LEN}"\n')


def _repo(tmp_path: Path, how: str) -> tuple[Path, int]:
    """The repository's own configs, library and script, its server started from a string set and run ``how``;
    the line of the string's `vllm serve`."""
    repo = tmp_path / "bench"
    shutil.copytree(ROOT / "configs", repo / "configs", symlinks=True)
    shutil.copytree(ROOT / "benchmarks", repo / "benchmarks")
    text = (ROOT / SCRIPT).read_text()
    head, rest = text.split(SERVES, 1)
    tail = rest.split(' || exit 1\n', 1)[1]
    run = {"unquoted": "start_server_and_wait $SERVER_CMD",
           "eval": 'eval "start_server_and_wait $SERVER_CMD"'}[how]
    (repo / SCRIPT).write_text(head + IN_A_STRING + run + " || exit 1\n" + tail)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo, head.count("\n") + 3


@pytest.mark.parametrize("how", ["unquoted", "eval"])
def test_a_wrong_port_in_a_server_command_kept_in_a_string_stands_at_the_string(tmp_path, how):
    repo, line = _repo(tmp_path, how)
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo)
    said = [x for x in r.stderr.splitlines() if "vllm serve --port is 19999" in x]
    assert r.returncode == 1 and [x.split(": ", 1)[0] for x in said] == [f"{SCRIPT}:{line}"], r.stderr


@pytest.mark.parametrize("text", [
    'X="vllm serve m"\necho "$X"\n',  # set and expanded, but the line is the string: that is the place
    'echo "vllm serve m"\n',  # an echo's string
    'X="vllm serve m"\n',  # set, never expanded
    'cat <<EOF\nX="vllm serve m"\nEOF\necho $X\n',  # a heredoc's body
    '# X="vllm serve m"\necho $X\n',  # a comment
])
def test_only_a_string_a_variable_is_set_to_and_expanded_is_a_server_s_line(tmp_path, text):
    script = tmp_path / "s.sh"
    script.write_text("#!/usr/bin/env bash\n" + text)
    want = (script.name, 2) if text.startswith("X=") and "$X" in text else None
    assert scriptlines.first_command(tmp_path, script, (runner.VLLM_SERVE,)) == want
