"""The README's by-hand results walk-through runs as written (from a subfolder of a repository)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from helpers import ROOT, sweepgate_on_path, vllm_output

KEY = "dsr1-fp8-b300-vllm"  # the example fleet's; it has a conc-32 row, as the walk-through asks for


def _walk_through() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"By hand, each output without a sidecar.*?```\n(.*?)```", readme, re.S)
    assert found, "the README's by-hand results walk-through is gone"
    return found.group(1)


@pytest.mark.skipif(not shutil.which("jq") and not os.environ.get("SWEEPGATE_REQUIRE_JQ"),
                    reason="the walk-through uses jq (.ci/run installs it and sets SWEEPGATE_REQUIRE_JQ)")
def test_the_readme_s_by_hand_walk_through_ingests_and_compares(tmp_path):
    from sweepgate.commands import example

    repo = tmp_path / "repo"
    repo.mkdir()
    example.build_repo(str(repo))
    here = repo / "configs"  # "from anywhere in the repository"
    for run, factor in (("101", 1.0), ("102", 1.02), ("103", 0.98)):
        (here / f"main-{run}").mkdir()
        output = vllm_output(32, output_throughput=409.6 * factor, total_token_throughput=819.2 * factor)
        (here / f"main-{run}" / "result.json").write_text(json.dumps(output))
    (here / "pr").mkdir()
    slower = vllm_output(32, date="20260102-120000", output_throughput=409.6 * 0.5, total_token_throughput=819.2 * 0.5)
    (here / "pr" / "result.json").write_text(json.dumps(slower))
    env = sweepgate_on_path(tmp_path)
    script = "set -e\n" + _walk_through().replace("KEY", KEY)
    proc = subprocess.run(["bash", "-c", script], cwd=here, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    rows = (here / "row.json").read_text()  # test-config's output as the walk-through saved it
    assert len(json.loads(rows)) == 1, rows  # the row the outputs ran, no other to pick
    assert proc.stdout.count("ingested 1 results (1 new)") == 4, proc.stdout
    assert "1 point regressed" in proc.stdout and "(n=3)" in proc.stdout, proc.stdout
    assert sorted(p.suffix for p in (here / "charts").iterdir()) == [".png", ".svg"], proc.stderr
