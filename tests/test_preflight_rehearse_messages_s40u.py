"""preflight's and rehearse's messages a new user's walk found wanting (s40u), each with real bash running
the scripts.

1. A row whose KV-offload arm installs LMCache (or Mooncake) on a runner label stating no
   `accelerator-runtime` in configs/runners.yaml: `plan` warns at the label's hardware entry there, and
   `ci row-env` refuses the job there, but `preflight` said it at the script with no line (the arm's own
   `Error: SWEEPGATE_ACCELERATOR_RUNTIME is ''`, "run sweepgate rehearse on the row"), and `rehearse` at the
   script too, followed by "no result file ...; write the client's own output there". Both now say it where
   `ci row-env` does (one builder, ``jobenv.runtime_refusal``), preflight once for its rows, and neither runs
   the script a job would never get to. A script stopped by --timeout no longer has that follow-on either.
2. preflight's "left running: vllm serve (PID n)" was one line a row (the PIDs differ); it is one line naming
   its rows, as a flag problem is.
3. `--random-range-ratio "$RANGE_RATIO"`, a variable the job environment does not set, was
   "value '' is not a number"; it now names the variable and says the job environment does not set it.
4. `rehearse` said OK for a script passing vLLM a flag it does not have (the stand-ins take any): its OK
   line is followed by one pointing to `sweepgate preflight`, which checks them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from test_preflight_refs import ENV, fleet
from test_rehearse import FSL_ROWS, _bench_with_script, cli, write_rows

ROOT = Path(__file__).resolve().parents[1]
RUNNERS = "configs/runners.yaml"
AMD_KEY = "dsv4-fp4-mi355x-vllm-agentic-mtp"  # rows without a KV-offload backend, and rows installing LMCache
LMCACHE_ROW = "dsv4_tp8_conc8_kvdram-lmcache_spec-mtp"
B300_SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"


def _preflight(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in ENV.items() if k not in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE")}
    return subprocess.run([sys.executable, "-m", "sweepgate", "preflight", *args], cwd=repo, capture_output=True,
                          text=True, env=env, timeout=300)


def _without_runtime(tmp_path: Path) -> tuple[Path, int]:
    """A fleet whose mi355x-amds hardware entry states no accelerator-runtime, and that entry's line."""
    repo = fleet(tmp_path, "main")
    runners = repo / RUNNERS
    text = runners.read_text()
    assert "    accelerator-runtime: rocm\n" in text
    runners.write_text(text.replace("    accelerator-runtime: rocm\n", ""))
    lines = runners.read_text().splitlines()
    hardware = lines.index("hardware:")
    return repo, next(i for i in range(hardware, len(lines)) if lines[i] == "  cluster:mi355x-amds:") + 1


WHAT = ("the row's KV-offload arm installs lmcache, whose build it picks by the runner's accelerator-runtime, "
        "and 'cluster:mi355x-amds' states none in configs/runners.yaml")
FIX = "; add accelerator-runtime (cuda or rocm) under hardware['cluster:mi355x-amds'] in configs/runners.yaml"


def test_rehearse_says_a_runner_without_a_runtime_at_its_runners_entry_and_runs_nothing(tmp_path):
    repo, line = _without_runtime(tmp_path)
    work = tmp_path / "w"
    r = cli(["--config-keys", AMD_KEY, "--exp-name", LMCACHE_ROW, "--work-dir", str(work)], cwd=repo)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.startswith(f"{RUNNERS}:{line}:3: {WHAT}{FIX}"), r.stderr
    assert "no result file" not in r.stderr and "SWEEPGATE_ACCELERATOR_RUNTIME is ''" not in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (work / "calls.jsonl").exists(), r.stderr  # the script never ran


def test_preflight_says_it_there_once_for_its_rows_and_rehearses_the_others(tmp_path):
    repo, line = _without_runtime(tmp_path)
    r = _preflight(repo, "--config-keys", AMD_KEY)
    assert r.returncode == 1, r.stdout + r.stderr
    said = [text for text in r.stderr.splitlines() if "accelerator" in text]
    assert len(said) == 1 and said[0].startswith(f"{RUNNERS}:{line}:3: {WHAT} (2 rows: {LMCACHE_ROW}, "), r.stderr
    assert "on cluster:mi355x-amds, tp 8, conc 8–32, 1 eval); " in said[0], said  # the rows' spread (s51b)
    assert FIX in said[0], said
    assert "run sweepgate rehearse on the row" not in r.stderr, r.stderr
    # the key's line (s51b): its kvnone row rehearsed, its two lmcache rows not
    assert r.stdout.startswith(f"preflight: {AMD_KEY}: 3 rows (") and r.stdout.count("\n") == 1, r.stdout
    assert "): 1 rehearsed, 4 commands; 2 not rehearsed (its runner states no accelerator-runtime), 1 problem (" \
        in r.stdout, r.stdout


def test_a_timeout_is_not_followed_by_no_result_file(tmp_path):
    repo, script = _bench_with_script(tmp_path, "echo starting\nsleep 300\n")
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w"),
             "--timeout", "1"], cwd=repo)
    assert r.returncode == 1 and "the script did not finish within 1s" in r.stderr, r.stderr
    assert "no result file" not in r.stderr, r.stderr


def _edited_b300(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    repo = fleet(tmp_path, "main")
    script = repo / B300_SCRIPT
    text = script.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    script.write_text(text)
    return repo


def _line(repo: Path, rel: str, text: str) -> int:
    return next(n for n, line in enumerate((repo / rel).read_text().splitlines(), 1) if text in line)


def test_preflight_says_what_a_script_left_running_once_naming_its_rows(tmp_path):
    repo = _edited_b300(tmp_path, ("vllm_parallel_args || exit 1\n", "vllm_parallel_args || exit 1\nsleep 300 &\n"))
    r = _preflight(repo, "--config-keys", "dsr1-fp8-b300-vllm")
    line = _line(repo, B300_SCRIPT, "sleep 300 &")
    said = [text for text in r.stderr.splitlines() if "left running" in text]
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert said[0].startswith(f"{B300_SCRIPT}:{line}: left running: sleep 300 (5 rows: dsr1_1k1k, dsr1_8k1k on "
                              "cluster:b300-nv, tp 4–8, conc 4–32, 2 eval); "), said
    assert "PID" not in said[0], said


def test_an_empty_value_from_a_variable_the_job_does_not_set_is_said_so(tmp_path):
    # (RANDOM_RANGE_RATIO itself is set for every job since s45c, as the reference's workflow sets it)
    repo = _edited_b300(tmp_path, ('"${RANDOM_RANGE_RATIO:-0.8}"', '"$RANGE_RATIO"'))
    r = _preflight(repo, "--config-keys", "dsr1-fp8-b300-vllm")
    line = _line(repo, B300_SCRIPT, "--random-range-ratio")
    said = [text for text in r.stderr.splitlines() if "--random-range-ratio" in text]
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert said[0].startswith(f"{B300_SCRIPT}:{line}: vllm 0.11.0 `vllm bench serve` --random-range-ratio: value '' "
                              "($RANGE_RATIO is empty: the job environment does not set it) is not a number "
                              "(3 rows: "), said
    assert said[0].endswith('; set $RANGE_RATIO in the script before this line, or give it a default here '
                            '("${RANGE_RATIO:-VALUE}")'), said


def test_an_empty_value_from_a_variable_the_script_sets_empty_is_not_blamed_on_the_job(tmp_path):
    repo = _edited_b300(tmp_path, ('"${RANDOM_RANGE_RATIO:-0.8}"', '"$ratio"'),
                        ("vllm_parallel_args || exit 1\n", 'vllm_parallel_args || exit 1\nratio=""\n'))
    r = _preflight(repo, "--config-keys", "dsr1-fp8-b300-vllm")
    said = [text for text in r.stderr.splitlines() if "--random-range-ratio" in text]
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert "value '' ($ratio is empty) is not a number" in said[0], said
    assert "job environment" not in said[0], said


def test_rehearse_s_ok_points_to_preflight_for_the_engine_flags(tmp_path):
    repo = _edited_b300(tmp_path, ("--gpu-memory-utilization 0.90", "--gpu-memory-utilisation 0.90"))
    r = cli(["--config-keys", "dsr1-fp8-b300-vllm", "--exp-name", "dsr1_1k1k", "--conc", "4",
             "--work-dir", str(tmp_path / "w")], cwd=repo)
    assert r.returncode == 0, r.stdout + r.stderr
    ok, kept, note = r.stdout.splitlines()[-3:]  # the kept result's run id (s50g) between them
    assert ok.startswith("rehearse: OK in ") and kept.startswith("rehearse: its sidecar names run "), r.stdout
    assert note == ("rehearse: the engines' flags were not checked (the stand-ins take any); "
                    "sweepgate preflight --config-keys dsr1-fp8-b300-vllm checks them against the manifests "
                    "of the row's versions"), r.stdout
    assert re.search(r"gpu-memory-utilisation", _preflight(repo, "--config-keys", "dsr1-fp8-b300-vllm").stderr)
