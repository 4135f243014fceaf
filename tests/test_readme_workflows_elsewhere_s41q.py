"""The copied workflows run sweepgate's commands, never the scripts of sweepgate's own tree (s41q).

README once told an adopter to replace `python utils/validate_perf_changelog.py`, `utils/process_changelog.py`
and `utils/generate_sweep_configs.py full-sweep` by their commands; written unevenly, the replacement left
`python sweepgate matrix` (Python then looks for a file named `sweepgate`). The workflows now run the installed
`sweepgate` commands themselves, in sweepgate's repository as in any other, so the copies need no such edit:
no line of them runs a `utils/*.py`, `python sweepgate`, or sets `PYTHONPATH` to `utils`.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
COPIED = ("pr-sweep.yml", "run-sweep.yml", "benchmark-tmpl.yml", "benchmark-multinode-tmpl.yml",
          "sweep-dispatch.yml", "cache-warm.yml")


def test_the_copied_workflows_run_no_script_of_sweepgate_s_own_tree():
    for name in COPIED:
        text = (WORKFLOWS / name).read_text(encoding="utf-8")
        left = [line.strip() for line in text.splitlines() if not line.strip().startswith("#") and (
            re.search(r"\bpython3?\s+(?:-(?!m\b)\S+\s+)*sweepgate\b", line) or re.search(r"utils/\w+\.py", line)
            or re.search(r"PYTHONPATH:.*\butils\b", line) or re.search(r"pip3? install[^\n]* \.\s*$", line))]
        assert not left, f"{name}: {left}"
