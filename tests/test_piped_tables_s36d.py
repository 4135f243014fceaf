"""Tables written to a pipe or a file ended lines in blanks: rich pads every cell to its column's width, the
last column's too, so `sweepgate example | cat -A` showed `mtp $` on the matrix's rows and `results compare`'s
header `verdict  $` and rows `new    $` (trailing blanks that a diff, a CI log or a pasted report keeps).
Piped, no line ends in a blank; a terminal's output is as rich draws it (s36d, a new user's afternoon)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "results"))

import synth  # noqa: E402

from sweepgate.results import store  # noqa: E402


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k not in ("SWEEPGATE_DB", "COLUMNS")}
    env["PYTHONPATH"] = str(ROOT / "utils")
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def _blank_ended(text: str) -> list[str]:
    return [line for line in text.splitlines() if line != line.rstrip()]


def test_the_example_s_matrix_table_piped_ends_no_line_in_a_blank(tmp_path):
    r = _run(["example", "--no-rehearse"], tmp_path)
    assert r.returncode == 0 and "mtp" in r.stdout, r.stdout + r.stderr
    assert _blank_ended(r.stdout) == [], r.stdout


def test_a_compare_table_piped_ends_no_line_in_a_blank(tmp_path):
    db = tmp_path / "r.db"
    with store.open_store(f"sqlite:///{db}") as st:
        st.add(synth.history(keys=synth.KEYS[:1], concs=(4, 8)) + synth.pr_run(keys=synth.KEYS[:1], concs=(4, 8, 16)))
    r = _run(["results", "compare", "--db", f"sqlite:///{db}", "--run", "pr-7"], tmp_path)
    assert r.returncode == 0 and "verdict" in r.stdout and " new" in r.stdout, r.stdout + r.stderr
    assert _blank_ended(r.stdout) == [], r.stdout
