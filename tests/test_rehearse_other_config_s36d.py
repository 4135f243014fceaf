"""`sweepgate rehearse --exp-name NAME` expands every config to find its row, so a config that cannot be
expanded stops it, however unrelated: in a clone of a real InferenceX-like branch a new runner label
without a hardware entry on another config refused the rehearsal of a fixed-seq-len row, its fix naming only
that config's runners.yaml entry. `--config-keys` expands the configs it names alone, and the fix says so
where no key was named (s36d, a new user's afternoon)."""

from __future__ import annotations

import subprocess
import sys

from test_preflight_refs import ENV, fleet, git

ROW = ("--exp-name", "dsr1_8k1k", "--conc", "4", "--where", "runner=cluster:b300-nv", "--where", "tp=8")


def _rehearse(repo, *args):
    return subprocess.run([sys.executable, "-m", "sweepgate", "rehearse", *args], cwd=repo, capture_output=True,
                          text=True, env={k: v for k, v in ENV.items() if k != "GITHUB_ACTIONS"}, timeout=300)


def test_a_config_that_cannot_be_expanded_names_config_keys_as_the_way_past_it(tmp_path):
    repo = fleet(tmp_path, "main")
    config, runners = repo / "configs/amd-master.yaml", repo / "configs/runners.yaml"
    text = config.read_text()
    at = text.index("runner: cluster:mi355x-amds", text.index("dsv4-fp4-mi355x-vllm-agentic-mtp:"))
    config.write_text(text[:at] + "runner: cluster:mi355x-new" + text[at + len("runner: cluster:mi355x-amds"):])
    runners.write_text(runners.read_text().replace("    - mi355x-amds_02\n",
                                                   "    - mi355x-amds_02\n  cluster:mi355x-new:\n    - new_00\n", 1))
    git(repo, "commit", "-qam", "a label with no hardware entry, on an agentic config")
    proc = _rehearse(repo, *ROW, "--work-dir", str(tmp_path / "w1"))
    (line,) = proc.stderr.splitlines()
    assert proc.returncode == 1 and line.startswith("configs/amd-master.yaml:"), proc.stderr
    assert "has no hardware entry" in line and line.endswith(
        "; or name the rehearsed row's config with --config-keys KEY, which expands that config alone"), line
    proc = _rehearse(repo, *ROW, "--config-keys", "dsr1-fp8-b300-vllm", "--work-dir", str(tmp_path / "w2"))
    assert proc.returncode == 0, proc.stderr  # the way the fix names
    proc = _rehearse(repo, "--config-keys", "dsv4-fp4-mi355x-vllm-agentic-mtp", "--work-dir", str(tmp_path / "w3"))
    assert proc.returncode == 1 and "--config-keys" not in proc.stderr, proc.stderr  # named: its own problem only
