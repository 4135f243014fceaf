"""The main job: `sweepgate` with no arguments runs the seed scenario on the built-in example fleet."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT


def sweepgate(*args: str, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], capture_output=True, text=True, env=env,
                          cwd=cwd or ROOT, timeout=120)


def test_no_arguments_prints_the_gate_verdict_and_the_seed_matrix(tmp_path):
    proc = sweepgate(cwd=tmp_path)  # works outside any checkout: the repository is built in a temp dir
    assert proc.returncode == 0, proc.stderr
    assert "gate: PASS" in proc.stdout
    for conc in (4, 8, 10, 16):
        assert f"kimik3_tp8_conc{conc}_kvdram-lmcache_spec-mtp" in proc.stdout
    assert "1889" in proc.stdout and "lmcache@0.5.4rc2" in proc.stdout
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran


def test_json_output_is_the_matrix_contract():
    proc = sweepgate("--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["gate"] == {"ok": True, "problems": []}
    rows = out["matrix"]["single_node"]["agentic"]
    assert [r["conc"] for r in rows] == [4, 8, 10, 16]
    assert {r["total-cpu-dram-gb"] for r in rows} == {1889}
    assert out["matrix"]["changelog_metadata"]["entries"][0]["config-keys"] == [out["scenario"]["seed_key"]]


def test_the_example_repository_plans_6_jobs_and_56_gpu_hours(tmp_path):
    # 4 LMCache single-node jobs + their eval on B300, and the two multi-node
    # disaggregated baselines appended after the seed entry (one per GPU family).
    from sweepgate.commands.example import build_repo
    from sweepgate.core.load import Git
    from sweepgate.core.plan import make_plan

    base, head = build_repo(str(tmp_path))
    plan = make_plan(Git(tmp_path), base, head)
    assert plan["jobs"] == 6 and plan["gpu_hours"] == 56.0
    assert plan["by_runner"]["cluster:b300-nv"]["jobs"] == 5
    assert plan["by_runner"]["cluster:mi355x-amds"]["jobs"] == 1
    assert plan["warnings"] == []
