"""preflight's lines, a config key each: on a clone of the reference's repository (1,290 rows, most without a
script) it printed a line a row (1,290 of them, "not rehearsed (no benchmark script)"), and a problem several rows
met named the first three rows' labels. Now a config key's rows are one line with their count and spread,
consecutive keys none of whose rows was rehearsed for the same reason are one line, a problem names its rows' count
and spread, and `--all-rows` prints what it printed before; the problems, their annotations, the summary and the
exit code are the same either way.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEY = "dsr1-fp8-b300-vllm"
SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"


def _fleet(tmp_path: Path) -> Path:
    fleet = tmp_path / "fleet"
    shutil.copytree(ROOT / "configs", fleet / "configs", symlinks=False)
    shutil.copytree(ROOT / "benchmarks", fleet / "benchmarks")
    subprocess.run(["git", "init", "-q", str(fleet)], check=True)
    return fleet


def _preflight(fleet: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "GITHUB_ACTIONS": "true"}
    env.pop("COLUMNS", None)
    return subprocess.run([sys.executable, "-m", "sweepgate", "preflight", *args], cwd=cwd or fleet,
                          capture_output=True, text=True, env=env, timeout=300)


def _problems(proc: subprocess.CompletedProcess) -> list[str]:
    return [x for x in proc.stderr.splitlines() if not x.startswith(("::", "preflight: "))]


def test_a_key_s_rows_are_one_line_and_a_problem_names_their_count_and_spread(tmp_path):
    fleet = _fleet(tmp_path)
    script = fleet / SCRIPT
    text = script.read_text()
    script.write_text(text.replace("--kv-cache-dtype fp8", "--kv-cache-dtypx fp8"))
    line = text[:text.index("--kv-cache-dtype fp8")].count("\n") + 1
    grouped = _preflight(fleet, "--config-keys", KEY)
    assert grouped.returncode == 1, grouped.stdout + grouped.stderr
    # one line for the key: its rows' count, what they span (both exp-names on the runner, tp, conc, the evals)
    assert grouped.stdout.count("\n") == 1, grouped.stdout
    said = re.fullmatch(rf"preflight: {KEY}: (\d+) rows \(dsr1_1k1k, dsr1_8k1k on cluster:b300-nv, tp 4–8, "
                        r"conc \d+–\d+, (\d+) eval\): [1-9]\d* commands, 1 problem \(\d+\.\d\ds\)\n", grouped.stdout)
    assert said, grouped.stdout
    rows = int(said[1])
    problem = [x for x in _problems(grouped) if "--kv-cache-dtypx" in x]
    assert len(problem) == 1 and problem[0].startswith(f"{SCRIPT}:{line}: vllm 0.11.0 has no option --kv-cache-dtypx"
                                                       ), grouped.stderr
    assert f"({rows} rows: dsr1_1k1k, dsr1_8k1k on cluster:b300-nv, tp 4–8, conc " in problem[0], problem
    assert ", ..." not in problem[0], problem
    annotations = [x for x in grouped.stderr.splitlines() if x.startswith("::error")]
    assert len(annotations) == len(_problems(grouped)) == 1 and f"line={line}::" in annotations[0], grouped.stderr

    # --all-rows: a line a row (rows that differ only in tp read apart), the problem naming every row
    every = _preflight(fleet, "--config-keys", KEY, "--all-rows")
    assert every.returncode == grouped.returncode, every.stdout + every.stderr
    labels = re.findall(r"^preflight: ((?:eval )?dsr1_\dk1k cluster:b300-nv tp\d+ conc \d+): \d+ commands, "
                        r"\d problems? \(", every.stdout, re.M)
    assert len(labels) == rows == every.stdout.count("\n") and len(set(labels)) == rows, every.stdout
    problem = [x for x in _problems(every) if "--kv-cache-dtypx" in x]
    assert len(problem) == 1 and f"({rows} rows: {', '.join(labels)})" in problem[0], (problem, labels)
    assert len([x for x in every.stderr.splitlines() if x.startswith("::error")]) == 1, every.stderr
    # the summary is the same either way
    assert re.sub(r" in \S+s$", "", every.stderr.splitlines()[-1]) == re.sub(
        r" in \S+s$", "", grouped.stderr.splitlines()[-1]) == f"preflight: {rows} rows ({said[2]} eval), 1 problem, " \
        "0 warnings", (every.stderr, grouped.stderr)


def test_keys_none_of_whose_rows_has_a_script_are_one_line_and_each_script_its_problem(tmp_path):
    """The corpus's clone in small: the shipped benchmarks/ holds scripts for a few keys; a fleet whose scripts are
    gone has every key not rehearsed, which was a line a row."""
    fleet = _fleet(tmp_path)
    for folder in ("single_node", "multi_node"):
        for script in (fleet / "benchmarks" / folder).rglob("*.sh"):
            if script.parent.name in ("fixed_seq_len", "agentic"):
                script.unlink()
    grouped = _preflight(fleet, cwd=fleet / "configs")
    every = _preflight(fleet, "--all-rows", cwd=fleet / "configs")
    assert grouped.returncode == every.returncode == 1, grouped.stdout + grouped.stderr
    summary = re.match(r"preflight: (\d+) rows \(\d+ eval\), (\d+) problems, ", grouped.stderr.splitlines()[-1])
    assert summary, grouped.stderr
    rows, problems = int(summary[1]), int(summary[2])
    assert rows > 20 and every.stdout.count("\n") == rows, every.stdout  # --all-rows: a line a row, as before
    assert every.stdout.count("not rehearsed (no benchmark script)") == rows, every.stdout
    assert re.fullmatch(rf"preflight: \d+ config keys \([^()]+ and \d+ others\), {rows} rows: not rehearsed "
                        rf"\(no benchmark script\), {problems} problems \(\d+\.\d\ds\)\n", grouped.stdout), \
        grouped.stdout  # one line for them all
    said = _problems(grouped)
    assert len(said) == problems and all(" resolve" in x and "no benchmark script" in x for x in said), said
    assert all(re.match(r"configs/\S+-master\.yaml:\d+: '", x) for x in said), said  # each at its config
    assert len([x for x in grouped.stderr.splitlines() if x.startswith("::error")]) == problems, grouped.stderr
    assert sorted(x.split(" (")[0] for x in said) == sorted(x.split(" (")[0] for x in _problems(every)), said
    assert re.sub(r" in \S+s$", "", grouped.stderr.splitlines()[-1]) == re.sub(
        r" in \S+s$", "", every.stderr.splitlines()[-1]), every.stderr


def test_a_spread_says_what_the_rows_span():
    from sweepgate.commands.preflight import spread

    rows = [{"exp-name": "dsr1_8k1k", "runner": "mi355x", "tp": tp, "ep": 1, "conc": conc}
            for tp, conc in ((4, 4), (8, 4), (4, 32))]
    rows.append({"exp-name": "dsr1_8k1k", "runner": "mi355x", "tp": 8, "ep": 8, "conc": 64, "run-eval": True})
    assert spread(rows) == "dsr1_8k1k on mi355x, tp 4–8, ep 1–8, conc 4–64, 1 eval"
    multi = [{"exp-name": f"x{n}", "runner": "gb200", "conc": [n, 2 * n]} for n in (1, 8, 16)]
    assert spread(multi) == "3 experiments on gb200, conc 1–32"


def test_a_run_of_keys_not_rehearsed_alike_is_one_line_and_a_rehearsed_key_ends_it():
    from types import SimpleNamespace

    from sweepgate.commands.preflight import KeyLog

    said: list[str] = []
    log = KeyLog(said.append)
    row = {"exp-name": "e", "runner": "r", "tp": 8, "conc": 4}
    for key in ("a", "b", "c"):
        log.add([(key, row), (key, row)], [(row, None, "no benchmark script")] * 2, {key: 0}, 0.01)
    log.add([("d", row)], [(row, SimpleNamespace(calls=[1, 2]), "")], {}, 1.0)
    log.add([("e", row)], [(row, None, "no benchmark script")], {"e": 0}, 0.01)
    log.flush()
    assert said == ["3 config keys (a, b and 1 other), 6 rows: not rehearsed (no benchmark script), 3 problems (0.03s)",
                    "d: 1 row (e r tp8 conc 4): 2 commands, 0 problems (1.00s)",
                    "e: 1 row (e r tp8 conc 4): not rehearsed (no benchmark script), 1 problem (0.01s)"]
