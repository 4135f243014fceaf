"""Review of the lookups of a script's lines that still read raw text (s38p).

1. A rehearsal's problem about one command (`vllm serve`, the SGLang server, the LMCache server,
   `mooncake_master`, a multi-node row's workers or router) and preflight's note on the SGLang server stood at
   the first line whose text matched, the script's and then the library's, so a comment (`# we used to run vllm
   serve here`), an `echo "start vllm serve"` or a heredoc's body could be the line a problem stands at, and a
   library line stood where the script's own line calls into the library, or a library line the script never
   runs: a row of the lmcache arm whose script never set it up stood at `benchmarks/lib/kv_offload_arms.sh`.
   They now stand where ``scriptlines.first_command`` puts the others: the script's own words, else its line
   that calls into the library; an arm's server, else the script's `setup_kv_offload_arm` line.
2. A script that set its own DEBUG trap and ran `python3 -m sglang.bench_serving` stood, when its timeout
   stopped it, at its server wait: the client lookup had no `sglang.bench_serving`.
Each with real files, real bash through `sweepgate rehearse` where a rehearsal says it.
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
from sweepgate.rehearsal import multinode, runner  # noqa: E402
from test_rehearse import FSL_ROWS, SEED_ROW, _bench_with_script, cli, write_rows  # noqa: E402

def _said(stderr: str, rel: str, start: str) -> list[str]:
    """Where each problem that starts with ``start`` stands: `FILE:LINE`, `FILE` alone at the script."""
    return [line.split(": ", 1)[0] for line in stderr.splitlines()
            if line.startswith(rel) and line.split(": ", 1)[1].startswith(start)]


SGLANG_CLIENT = ('wait_for_server_ready --port "$PORT"\n'
                 'python3 -m sglang.bench_serving --model "$MODEL" \\\n'
                 '  --output-file "${RESULT_DIR}/${RESULT_FILENAME}.json"\n')


def test_sglang_bench_serving_is_a_client_line(tmp_path):
    script = tmp_path / "benchmarks/single_node/fixed_seq_len/x.sh"
    script.parent.mkdir(parents=True)
    script.write_text(SGLANG_CLIENT)
    rel = str(script.relative_to(tmp_path))
    assert scriptlines.first_command(tmp_path, script, (runner.CLIENT_RUNS, runner.SERVER_WAITS)) == (rel, 2)
    script.write_text("echo 'python3 -m sglang.bench_serving'\npython3 -m sglang.bench_serving_x\n"
                      "python3 -m sglang.bench_serving.py\n")
    assert scriptlines.first_command(tmp_path, script, (runner.CLIENT_RUNS,)) is None


def test_a_script_with_its_own_debug_trap_stopped_in_sglang_bench_serving_stands_at_that_line(tmp_path):
    """The script's `python3` (a function of its own) waits as a client that never ends; the rehearsal's DEBUG
    trap is the script's own, so the client's line is what says where it was."""
    text = ("trap 'true' DEBUG\npython3() { sleep 300; }\nwait_for_server_ready() { :; }\necho go\n"
            + SGLANG_CLIENT)
    repo, script = _bench_with_script(tmp_path, text)
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w"),
             "--timeout", "2"], cwd=repo)
    rel = str(script.relative_to(repo))
    assert _said(r.stderr, rel, "the script did not finish within 2s") == [f"{rel}:6"], r.stderr
