"""preflight says a script that fails alike in rows of several exp-names once (s41d new-user walk): a script that
stopped at its first lines (`Error: required environment variables are not set: HF_TOKEN`) was two problems, one
`row dsr1_1k1k: the script exited 1 ...` and one `row dsr1_8k1k: ... (4 rows: ...)`, as the exp-name in the message
kept them apart. It is one problem naming its rows, as a flag problem or what a script left running is; a
problem of one row names it too, so `run sweepgate rehearse on the row` says which."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_preflight_refs import ENV, fleet

SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"


def _preflight(repo: Path, *keys: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in ENV.items() if k not in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE")}
    return subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", *keys], cwd=repo,
                          capture_output=True, text=True, env=env, timeout=300)


def _preflight_failing(tmp_path: Path, lines: str, word: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """preflight over the fleet with SCRIPT's `prepare_model_path || exit 1` line replaced by ``lines``: what it
    ran, and its stderr's lines naming ``word``."""
    repo = fleet(tmp_path, "main")
    text = (repo / SCRIPT).read_text()
    assert text.count("prepare_model_path || exit 1\n") == 1
    (repo / SCRIPT).write_text(text.replace("prepare_model_path || exit 1\n", lines))
    r = _preflight(repo, "dsr1-fp8-b300-vllm")
    return r, [line for line in r.stderr.splitlines() if word in line]


def test_a_script_failing_alike_in_rows_of_several_exp_names_is_one_problem_naming_them(tmp_path):
    r, said = _preflight_failing(tmp_path, "echo 'Error: HF_TOKEN is not set' >&2; exit 1\n", "HF_TOKEN")
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert said[0].startswith(f"{SCRIPT}: the script exited 1 in the fast rehearsal (Error: HF_TOKEN is not set) "
                              "(5 rows: dsr1_1k1k, dsr1_8k1k on cluster:b300-nv, tp 4–8, conc 4–32, 2 eval); "), \
        said
    assert said[0].endswith("; run sweepgate rehearse on the row"), said
    assert ", 1 problem, " in r.stderr, r.stderr


def test_a_script_failing_in_one_row_names_it(tmp_path):
    r, said = _preflight_failing(tmp_path, '[[ $ISL == 1024 ]] && { echo "Error: no 1k" >&2; exit 1; }\n'
                                           "prepare_model_path || exit 1\n", "no 1k")
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert said[0].startswith(f"{SCRIPT}: the script exited 1 in the fast rehearsal (Error: no 1k) "
                              "(row dsr1_1k1k cluster:b300-nv tp8 conc 4); "), said
