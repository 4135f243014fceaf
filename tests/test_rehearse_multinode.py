"""`sweepgate rehearse` of the example's multi-node rows: a stand-in per worker, a router stand-in, nothing left."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT


def running_in(marker: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                environ = (proc / "environ").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if marker in cmd or marker in environ:
                found.append(cmd)
    return found


@pytest.mark.parametrize("key,workers", [("dsr1-fp4-b300-sglang-disagg", (2, 4)),
                                         ("dsr1-fp8-mi355x-sglang-disagg", (1, 2))])
def test_each_example_multinode_row_rehearses_and_leaves_nothing(tmp_path, key, workers):
    work = tmp_path / "work"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "rehearse", "--exp-name", "dsr1_1k1k",
                           "--config-keys", key, "--work-dir", str(work)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calls = [json.loads(line) for line in (work / "calls.jsonl").read_text().splitlines()]
    modes = [c["argv"][c["argv"].index("--disaggregation-mode") + 1] for c in calls
             if c["argv"][:2] == ["-m", "sglang.launch_server"]]
    assert (modes.count("prefill"), modes.count("decode")) == workers
    assert sum(c["argv"][:2] == ["-m", "sglang_router.launch_router"] for c in calls) == 1
    assert running_in(str(work)) == []


def test_a_router_that_cannot_reach_a_worker_fails_the_rehearsal(tmp_path):
    from sweepgate.rehearsal.standin import python_module

    assert python_module("sglang_router.launch_router", ["--port", "1", "--prefill", "http://127.0.0.1:9"]) == 1


def test_multi_node_scripts_are_shellcheck_clean():
    shellcheck = Path(sys.executable).parent / "shellcheck"
    scripts = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "benchmarks" / "multi_node").rglob("*.sh"))
    assert len(scripts) >= 5
    proc = subprocess.run([str(shellcheck) if shellcheck.exists() else "shellcheck", "-x", *scripts], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
