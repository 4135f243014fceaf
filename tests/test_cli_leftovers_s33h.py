"""New-user review (s33h): four leftovers of the command line, each driven as a real process.

1. A repository without `benchmarks/` was told "no benchmark script" with no word of where the
   library the scripts source (`benchmark_lib.sh`, `lib/`) comes from: the repository `sweepgate
   example --keep` keeps holds them, and the fix says so.
2. `results compare --plots charts --comment-file /tmp/x.md` from `benchmarks/` named the charts from
   /tmp (`repo/benchmarks/charts`); charts inside the repository are named from its top.
3. `changelog rebase` during a merge conflict said one identical line per marker (3 for one conflict).
4. A `--runner-name` the row's pool does not list was annotated `::error::` with no title.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "results"))

import synth  # noqa: E402
from conftest import CHANGELOG  # noqa: E402
from test_changelog_tools import entry, repo_env  # noqa: E402
from test_rehearse import SEED_EXP, SEED_ROW  # noqa: E402

from sweepgate.results import store  # noqa: E402


def sweepgate(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    full.update({"PYTHONPATH": str(ROOT / "utils"), "SWEEPGATE_REHEARSE_DURATION": "1", **env})
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=300)


# --- 4. the runner-pool refusal's title ---------------------------------------------------------

def test_a_runner_outside_the_row_s_pool_is_titled_unknown_runner_under_actions(tmp_path):
    repo = tmp_path / "bench"
    shutil.copytree(ROOT / "configs", repo / "configs", symlinks=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(SEED_ROW))
    r = sweepgate(["rehearse", "--exp-name", SEED_EXP, "--row-json", str(rows), "--runner-name", "x_01"],
                  repo / "configs", GITHUB_ACTIONS="true")
    assert r.returncode == 1 and "::error title=unknown-runner::--runner-name: runner 'x_01'" in r.stderr, r.stderr
    r = sweepgate(["ci", "row-env", "--row", json.dumps(SEED_ROW), "--runner-name", "x_01", "--output", "-"], repo,
                  GITHUB_ACTIONS="true")
    assert r.returncode == 1 and "::error title=unknown-runner::--runner-name: runner 'x_01'" in r.stderr, r.stderr
