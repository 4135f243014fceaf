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

NOT_RUN = ('echo go  # we used to run vllm serve here\necho "start vllm serve"\necho \'or sglang serve\'\n'
           'cat <<EOF\nvllm serve "$MODEL" --port "$PORT"\npython3 -m sglang.launch_server --port "$PORT"\nEOF\n')


def _said(stderr: str, rel: str, start: str) -> list[str]:
    """Where each problem that starts with ``start`` stands: `FILE:LINE`, `FILE` alone at the script."""
    return [line.split(": ", 1)[0] for line in stderr.splitlines()
            if line.startswith(rel) and line.split(": ", 1)[1].startswith(start)]


@pytest.mark.parametrize("framework", ["vllm", "sglang"])
def test_a_server_named_in_a_comment_a_string_or_a_heredoc_only_stands_at_the_script(tmp_path, framework):
    row = FSL_ROWS[0] if framework == "vllm" else {**FSL_ROWS[0], "framework": "sglang",
                                                     "image": "lmsysorg/sglang:v0.5.0"}
    repo, script = _bench_with_script(tmp_path, NOT_RUN)
    if framework == "sglang":
        script = script.rename(script.with_name("dsr1_fp8_b300_sglang.sh"))
    r = cli(["--row-json", str(write_rows(tmp_path, row)), "--work-dir", str(tmp_path / "w")], cwd=repo)
    rel = str(script.relative_to(repo))
    assert r.returncode == 1 and _said(r.stderr, rel, "the script never started") == [rel], r.stderr


def _agentic(tmp_path: Path, text: str) -> tuple[Path, str]:
    """A repository with this one's configs and benchmark library, the seed row's script reading ``text``."""
    repo = tmp_path / "bench"
    shutil.copytree(ROOT / "configs", repo / "configs", symlinks=True)
    shutil.copytree(ROOT / "benchmarks", repo / "benchmarks")
    script = repo / "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh"
    script.write_text(text)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo, str(script.relative_to(repo))


SOURCES = '#!/usr/bin/env bash\nsource "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"\n'


@pytest.mark.parametrize("how,line", [("never", None), ("refused", 3)])
def test_an_lmcache_server_never_started_stands_at_the_scripts_arm_line_never_at_the_librarys(tmp_path, how, line):
    """The arm's library line (kv_offload_arms.sh's `lmcache server`) ran nowhere: a script that never sets the arm
    up stands at the script; one whose `setup_kv_offload_arm` refused the lmcache arm, at that line."""
    text = SOURCES + ("echo go\n" if how == "never" else 'setup_kv_offload_arm --arms "none" \\\n  --chunk-size 256\n'
                      'echo "lmcache server comes later"\n')
    repo, rel = _agentic(tmp_path, text + "exit 0\n")
    r = cli(["--row-json", str(write_rows(tmp_path, SEED_ROW)), "--work-dir", str(tmp_path / "w")], cwd=repo)
    want = rel if line is None else f"{rel}:{line}"
    assert r.returncode == 1 and _said(r.stderr, "benchmarks/", "expected one LMCache server per node") == [want], \
        r.stderr


@pytest.mark.parametrize("seed", sorted(p.name for p in (ROOT / "benchmarks/multi_node/fixed_seq_len").glob("*.sh")))
def test_a_multi_node_rows_workers_and_router_stand_at_the_scripts_call_into_the_library(seed):
    script = ROOT / "benchmarks/multi_node/fixed_seq_len" / seed
    rel, lines = str(script.relative_to(ROOT)), script.read_text().splitlines()
    row = {"prefill": {"num-worker": 1, "tp": 8}, "decode": {"num-worker": 0, "tp": 8}}
    problems = multinode.check_calls(row, {"PORT": "8000"}, [])
    said = {d.message.split(",")[0]: (d.file, lines[d.line - 1].strip() if d.line else "")
            for d in runner._problem_diagnostics(ROOT, script, problems, "")}
    # the workers at the script's line that makes their server command, the router at its disagg::run
    assert said == {"expected 1 prefill server(s)": (rel, 'disagg::sglang_server_argv "$@"'),
                    "expected one router": (rel, "disagg::run || exit 1")}, said


def test_preflights_sglang_note_stands_at_the_scripts_server_line_not_at_an_echo_of_it(tmp_path):
    from sweepgate.engines.preflight import check_row

    script = tmp_path / "benchmarks/single_node/fixed_seq_len/x.sh"
    script.parent.mkdir(parents=True)
    script.write_text('echo "about to run python3 -m sglang.launch_server"  # python3 -m sglang.launch_server\n'
                      'python3 -m sglang.launch_server \\\n  --port "$PORT" &\n')
    calls = [{"tool": "python3", "argv": ["-m", "sglang.launch_server", "--port", "1"]}]
    (note,) = check_row({"image": "lmsysorg/sglang:v0.5.0"}, calls, tmp_path, script)
    assert (note.file, note.line, note.rule) == (str(script.relative_to(tmp_path)), 2, "engine-unchecked"), note


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
