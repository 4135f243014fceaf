"""README's *The workflows in another repository*, its script-to-command edits applied as written (s41q).

The bullet names the commands the copied workflows run from sweepgate's own tree and the `sweepgate`
commands they become. An adopter replaces each quoted text by its command; what is left must be a
command that runs, never `python sweepgate matrix` (Python then looks for a file named `sweepgate`).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
COPIED = ("pr-sweep.yml", "run-sweep.yml", "benchmark-tmpl.yml", "benchmark-multinode-tmpl.yml",
          "sweep-dispatch.yml", "cache-warm.yml")


def replacements() -> list[tuple[str, str]]:
    """(text, command) pairs of README's bullet: `A`, `B` and `C` become `sweepgate a`, ... and `sweepgate c`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The workflows in another repository", 1)[1].split("\n## ", 1)[0]
    bullet = " ".join(section[section.index("utils/validate_perf_changelog.py") - 40:].split())
    before, after = bullet.split(" become ", 1)
    olds = re.findall(r"`([^`]+)`", before.rsplit("- ", 1)[-1])
    news = re.findall(r"`(sweepgate [^`]+)`", after)[:len(olds)]
    assert len(olds) == len(news) == 3, (olds, news)
    return list(zip(olds, news))


def test_each_script_readme_names_becomes_a_command_that_runs_when_replaced_as_written():
    """New-user walk (s41q): README wrote `python utils/validate_perf_changelog.py` but the other two
    without their `python` (`utils/process_changelog.py`, `utils/generate_sweep_configs.py full-sweep`), so
    replacing them as written left `python sweepgate matrix` and `python sweepgate full-sweep` in
    pr-sweep.yml and cache-warm.yml: `can't open file '.../sweepgate'`."""
    pairs = replacements()
    for name in COPIED:
        text = (WORKFLOWS / name).read_text(encoding="utf-8")
        for old, new in pairs:
            text = text.replace(old, new)
        left = [line.strip() for line in text.splitlines()
                if re.search(r"\bpython3?\s+(?:-(?!m\b)\S+\s+)*sweepgate\b", line) or re.search(r"utils/\w+\.py", line)]
        assert not left, f"{name}: {left}"
