"""`sweepgate example` flags a new user combines (nu30)."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT


def test_plots_with_no_rehearse_is_argument_syntax(tmp_path):
    """`sweepgate example --no-rehearse --plots charts` exited 0 with no chart and no word: --no-rehearse
    stops before the charts, so the folder the user asked for was silently never written. Flags that
    cannot go together are argument syntax (README, exit 2), said before the gate and matrix run."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "example", "--no-rehearse", "--plots", "charts"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stdout == "", proc.stdout
    assert proc.stderr.splitlines()[-1] == (
        "sweepgate example: error: argument --plots: not allowed with argument --no-rehearse (no charts are "
        "drawn without the rehearsal); drop --no-rehearse to draw them, or --plots"), proc.stderr
    assert not (tmp_path / "charts").exists()
