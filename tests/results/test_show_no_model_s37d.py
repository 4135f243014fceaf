"""`results show` names a line whose output states no model and that has no config key as compare names its
point, `(no config key or model)`, where the table has a model column (new user s37d: the real SGLang 2024-12
outputs, which state no model, stood under `moonshotai/Kimi-K2.5`'s lines with a blank model cell, reading as
more of that model's lines)."""

from __future__ import annotations

import os
import subprocess
import sys

from helpers import ROOT

NO_MODEL = "sglang/sglang_2024-12_llama3.3-70b_h200x4_online.jsonl"  # its lines state no model
WITH_MODEL = "vllm/ifx_benchserving_kimik2.5_int4_mi355x_tp8_mtp_1k1k_conc4.json"  # moonshotai/Kimi-K2.5


def _sweepgate(*argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "SWEEPGATE_DB", "COLUMNS", "NO_COLOR")}
    # COLUMNS: the whole table, its result and run columns among them (piped with none, a log's 200 columns leave
    # them out, s50b)
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(ROOT / "utils"), "COLUMNS": "400"}, timeout=120)


def test_a_line_of_no_config_key_or_model_says_so_in_the_model_column(env, samples):
    url = f"sqlite:///{env / 'r.db'}"
    done = _sweepgate("results", "ingest", "--db", url, str(samples / NO_MODEL), str(samples / WITH_MODEL))
    assert done.returncode == 0, done.stderr
    shown = _sweepgate("results", "show", "--db", url)
    assert shown.returncode == 0, shown.stderr
    lines = [line for line in shown.stdout.splitlines() if "sglang_2024-12" in line]
    assert len(lines) == 7 and all(line.split("│")[1].strip() == "(no config key or model)" for line in lines), lines
    kimi = [line for line in shown.stdout.splitlines() if "moonshotai/Kimi-K2.5" in line]
    assert len(kimi) == 1, shown.stdout
    alone = _sweepgate("results", "show", "--db", url, "--run", lines[0].split("│")[-3].strip())
    assert "(no config key or model)" not in alone.stdout, alone.stdout  # no model column: none of its lines has one
