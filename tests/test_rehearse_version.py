"""The LMCache version the lmcache arm installs comes from the row, i.e. from the master config."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from conftest import ROOT

EXP_NAME = "kimik3_tp8_conc4_kvdram-lmcache_spec-mtp"


def rehearse_in_copy(tmp_path, version: str | None) -> list[list[str]]:
    """Rehearse the seed row in a copy of the example fleet, optionally with another LMCache version."""
    fleet = tmp_path / f"fleet-{version or 'as-shipped'}"
    shutil.copytree(ROOT / "configs", fleet / "configs")
    (fleet / "benchmarks").symlink_to(ROOT / "benchmarks")
    if version:
        master = fleet / "configs" / "nvidia-master.yaml"
        text = master.read_text()
        assert text.count('name: lmcache, version: "0.5.4rc2"') == 1
        master.write_text(text.replace('name: lmcache, version: "0.5.4rc2"', f'name: lmcache, version: "{version}"'))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=fleet, check=True)
    subprocess.run([*git, "add", "-A"], cwd=fleet, check=True)
    subprocess.run([*git, "commit", "-qm", "fleet"], cwd=fleet, check=True)
    work = fleet / "work"
    env = {**os.environ, "SWEEPGATE_REHEARSE_DURATION": "3", "PYTHONPATH": str(ROOT / "utils")}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "rehearse", "--exp-name", EXP_NAME,
                           "--work-dir", str(work)], cwd=fleet, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calls = [json.loads(line) for line in (work / "calls.jsonl").read_text().splitlines()]
    servers = [c for c in calls if c["tool"] == "lmcache" and c["argv"][:1] == ["server"]]
    assert servers, "the LMCache server was started through SERVER_STANDIN"
    return [c["argv"] for c in calls if c["tool"] == "pip"]


def test_changing_the_config_version_changes_the_recorded_install(tmp_path):
    shipped = rehearse_in_copy(tmp_path, None)
    changed = rehearse_in_copy(tmp_path, "0.6.1")
    assert any("lmcache==0.5.4rc2" in arg for argv in shipped for arg in argv), shipped
    assert any("lmcache==0.6.1" in arg for argv in changed for arg in argv), changed
    assert not any("0.5.4rc2" in arg for argv in changed for arg in argv)
