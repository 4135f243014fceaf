"""`sweepgate preflight --fail-on-warning | head -1`: the reader of stdout leaving ended the command at
its first row's line with exit 1 (bad input), the rest of the rows unchecked and the warnings never
said; it must run to its end and exit 3 as it would unpiped (new-user walk-through, nu31)."""

from __future__ import annotations

import os
import subprocess
import sys

from test_preflight_refs import ENV, ENTRY, fleet, git

CONFIG = "configs/nvidia-master.yaml"


def test_a_reader_who_stops_reading_keeps_exit_3_and_the_warnings(tmp_path):
    repo = fleet(tmp_path, "main")
    config = repo / CONFIG
    config.write_text(config.read_text().replace("vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.12.0", 1))
    with (repo / "perf-changelog.yaml").open("a") as fh:
        fh.write(ENTRY)
    git(repo, "commit", "-qam", "a new image, no manifest for it")
    read, write = os.pipe()
    os.close(read)  # gone before the first byte: every write to stdout fails with EPIPE
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--base-ref", "HEAD~", "--head-ref", "HEAD",
                           "--fail-on-warning"], cwd=repo, stdout=write, stderr=subprocess.PIPE, text=True,
                          env={k: v for k, v in ENV.items() if k != "GITHUB_ACTIONS"}, timeout=300)
    os.close(write)
    assert proc.returncode == 3, (proc.returncode, proc.stderr)
    assert "warning: image vllm/vllm-openai:v0.12.0 has no vllm or vllm-bench manifest" in proc.stderr, proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("preflight: 5 rows (2 eval), 0 problems, 1 warning"), proc.stderr
