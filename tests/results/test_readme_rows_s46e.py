"""s46e's first week from a wheel: the README's by-hand Results blocks wrote each output's row with
`sweepgate test-config ... | jq '.[0]' > row.json`. On a real config (kimik2.5-int4-mi355x-vllm at 8k1k conc 32:
a tp 8 and a tp 4 row) `--seq-lens` cannot narrow it to one row, and `.[0]` took the tp 8 row without a word, the
very pick docs/results.md warns of; ingest's own check (a list of several rows is refused, naming the fields they
differ in and the `jq` line that selects one) never saw the list. The README's lines, run as written, now hand
ingest test-config's list."""

from __future__ import annotations

import json
import re
import subprocess

from helpers import ROOT, sweepgate_at, sweepgate_on_path, vllm_output

KEY = "dsr1-fp4-b300-vllm"
# One key whose 1k1k sweep holds conc 32 at tp 8 and at tp 4, as the README's `--seq-lens 1k1k --conc 32` asks
TWO_ROWS = f"""\
{KEY}:
  image: vllm/vllm-openai:v0.11.0
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: b300
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - {{ tp: 8, conc-start: 32, conc-end: 64 }}
      - {{ tp: 4, conc-start: 32, conc-end: 64 }}
"""


def _readme_row_lines() -> list[str]:
    """Every line of the README's *Results* section's code blocks that writes a row with test-config."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Results\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\n(.*?)```", section, re.S)
    return [line for block in blocks for line in block.splitlines() if "sweepgate test-config" in line]


def test_the_readme_s_row_lines_let_ingest_refuse_a_pick_of_several_rows(make_repo, tmp_path):
    repo = make_repo(files={"configs/nvidia-master.yaml": TWO_ROWS})
    env = sweepgate_on_path(tmp_path)
    lines = _readme_row_lines()
    assert len(lines) == 2, lines  # the loop over concurrencies and the one-point block
    (repo.path / "c32.json").write_text(json.dumps(vllm_output(32)), encoding="utf-8")
    for line in lines:
        run = subprocess.run(["bash", "-c", "set -o pipefail; " + line.replace("KEY", KEY)], cwd=repo.path, env=env,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        (row_file,) = {m.replace("$c", "32") for m in re.findall(r"> (row[^ ;]*\.json)", line)}
        proc = sweepgate_at(repo.path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row",
                            row_file, "--run-id", "101", "--ref", "refs/heads/main", "--config-key", KEY, "c32.json")
        assert proc.returncode == 1 and "ingested" not in proc.stdout, (line, proc.stdout, proc.stderr)
        (said,) = proc.stderr.splitlines()
        assert said.startswith(f"{row_file}:1: a list of 2 rows") and "told apart by tp" in said, said
        assert f"`jq 'map(select(.tp == 8))[0]' {row_file} > row.json`" in said, said
