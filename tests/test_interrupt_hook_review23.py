"""The early-Ctrl-C excepthook (``sweepgate/__init__.py``) is a sweepgate program's only, and exits as
a normal exit does (review23).

Real processes. A library user's tool run as `python -m TOOL` imports sweepgate while argv[0] is still
"-m" (Python sets it to the module's path only once the package is found): it is not ours, and keeps
Python's own KeyboardInterrupt. A sweepgate program's exit 130 runs the atexit cleanup first (the
contract: 130 "having cleaned up as on a normal exit"), which ``os._exit`` alone skips.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
CLEANUP = ("import atexit, sys\n"
           "atexit.register(lambda: open(sys.argv[1], 'w').write('cleaned'))\n"
           "print('written before', flush=False)\n"
           "raise KeyboardInterrupt\n")


def test_a_library_users_python_m_tool_keeps_python_s_own_interrupt(tmp_path):
    tool = tmp_path / "mytool"
    tool.mkdir()
    (tool / "__init__.py").write_text("import sweepgate\n")
    (tool / "__main__.py").write_text(CLEANUP)
    done = tmp_path / "done"
    proc = subprocess.run([sys.executable, "-m", "mytool", str(done)], cwd=tmp_path, capture_output=True,
                          text=True, env={**ENV, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ENV['PYTHONPATH']}"})
    assert "sweepgate: interrupted" not in proc.stderr, proc.stderr
    assert proc.stderr.rstrip().endswith("KeyboardInterrupt") and done.read_text() == "cleaned"
    assert proc.stdout == "written before\n"


def test_a_sweepgate_program_s_exit_130_runs_its_atexit_cleanup(tmp_path):
    script = tmp_path / "bin" / "sweepgate"
    script.parent.mkdir()
    script.write_text("import sweepgate\n" + CLEANUP)
    done = tmp_path / "done"
    proc = subprocess.run([sys.executable, str(script), str(done)], capture_output=True, text=True, env=ENV)
    assert (proc.returncode, proc.stderr) == (130, "sweepgate: interrupted\n")
    assert done.read_text() == "cleaned" and proc.stdout == "written before\n"


@pytest.mark.parametrize("argv0, orig, ours", [
    ("-m", ["python", "-m", "sweepgate", "--help"], True),
    ("-m", ["python", "-X", "importtime", "-W", "ignore", "-m", "sweepgate"], True),  # options' values skipped
    ("-m", ["python", "-msweepgate"], True),
    ("-m", ["python", "-Bm", "sweepgate"], True),  # combined short options (note 20: no hook)
    ("-m", ["python", "-OOmsweepgate"], True),
    ("-m", ["python", "-bX", "dev", "-m", "sweepgate"], True),  # -X's value after a combined option
    ("-m", ["python", "-Bm", "mytool"], False),
    ("-m", ["python", "-bX", "-m", "-m", "mytool"], False),  # -X's value is "-m"
    ("-m", ["python", "--check-hash-based-pycs", "always", "-m", "sweepgate"], True),
    ("-m", ["python", "-m", "mytool"], False),  # a library user's tool, importing us while it loads
    ("-m", ["python", "--", "-m", "sweepgate"], False),  # review24: a script file named "-m"
    ("-m", ["python", "-E", "--", "-msweepgate"], False),
    ("-m", ["python", "-m", "sweepgate_extras"], False),
    ("/usr/bin/sweepgate", ["python", "/usr/bin/sweepgate"], True),
    ("C:\\venv\\Scripts\\sweepgate.exe", ["sweepgate.exe"], True),
    ("utils/process_changelog.py", ["python", "utils/process_changelog.py"], True),
    ("tool.py", ["python", "tool.py"], False),
])
def test_which_programs_are_sweepgate_s(monkeypatch, argv0, orig, ours):
    import sweepgate

    monkeypatch.setattr(sys, "argv", [argv0])
    monkeypatch.setattr(sys, "orig_argv", orig)
    assert sweepgate._ours() is ours
