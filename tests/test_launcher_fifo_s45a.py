"""s45a: the launcher makes a folder for the FIFO its log goes through (``launch::start``: mktemp -d, then
removed once both ends are open). The cancel traps (INT, TERM) were set before it, so a cancel in that
instant ran ``launch::cancel``, which exits, and left the folder and its FIFO in the GPU host's temporary
folder. The signals are now held while the command starts (noted, as ``core.signals.Held`` notes them),
and the cancel acts once the folder is gone and there is a command to stop.

The TERM is real, sent to the real launcher from inside its mktemp once the folder exists."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_launchers import B300, BASE_ENV, FIXED, MI355X, fake_bin  # noqa: E402


@pytest.mark.parametrize("launcher,gpu", [(B300, "b300"), (MI355X, "mi355x")])
def test_a_cancel_the_instant_the_fifo_folder_exists_leaves_no_folder(tmp_path, launcher, gpu):
    script = tmp_path / FIXED / f"kimik3_fp4_{gpu}.sh"
    script.parent.mkdir(parents=True)
    ran = tmp_path / "ran"
    script.write_text(f'echo "$$" >"{ran}"\nexec sleep 600\n')
    bin_dir = fake_bin(tmp_path)
    real = subprocess.run(["bash", "-c", "command -v mktemp"], capture_output=True, text=True).stdout.strip()
    (bin_dir / "mktemp").write_text(  # the folder made, then TERM to the launcher before mktemp returns
        f'#!/usr/bin/env bash\nmade="$({real} "$@")" || exit\nkill -TERM "${{LAUNCHER_PID}}"\nsleep 0.2\n'
        'printf "%s\\n" "${made}"\n')
    (bin_dir / "mktemp").chmod(0o755)
    (bin_dir / "scancel").write_text("#!/usr/bin/env bash\nexit 0\n")
    (bin_dir / "scancel").chmod(0o755)
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path), "TMPDIR": str(temp), **BASE_ENV}
    proc = subprocess.run(["bash", "-c", 'export LAUNCHER_PID="$$"; exec bash "$0"', str(launcher)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 143, proc.stdout + proc.stderr
    assert "cancelled; releasing Slurm job" in proc.stderr, proc.stderr
    assert list(temp.iterdir()) == [], "the FIFO's folder was left in the temporary folder"
    assert "unbound variable" not in proc.stderr, proc.stderr
    if ran.exists() and ran.read_text().strip():  # the script started before the held cancel acted: stopped too
        pid = int(ran.read_text())
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z", "the script ran on"
