"""A Ctrl-C while `sweepgate` starts is "interrupted", exit 130, never a traceback (cli23).

Real processes and real SIGINTs. The entry script is the one pip writes for the console script
(`from sweepgate.cli import main; sys.exit(main())`). What Python does before sweepgate's first
line (its own startup, site, the entry script's `import re`, finding the package) is Python's: a
SIGINT before Python has installed its handler ends the process by the signal (-2, nothing said),
and one after it, in Python's code, prints Python's traceback. From the package's first line on
(``sweepgate/__init__.py``), an interrupt anywhere before main()'s own guard is said in one line.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "import re\nimport sys\nfrom sweepgate.cli import main\nif __name__ == '__main__':\n    sys.exit(main())\n"
# The same, saying when main() has returned: a process ended by SIGINT itself (not by our 130) must have got there.
ENTRY_SAYS_RETURNED = ENTRY.replace("    sys.exit(main())\n", "    code = main()\n    sys.stderr.write('returned\\n')\n"
                                    "    sys.exit(code)\n")
# Holds the import of sweepgate.cli (after the package's __init__ ran, before main()): says so, then waits.
HOLD = """\
import sys, time
class _Hold:
    def find_spec(self, name, path=None, target=None):
        if name == "sweepgate.cli":
            sys.stderr.write("holding\\n"); sys.stderr.flush(); time.sleep(30)
        return None
sys.meta_path.insert(0, _Hold())
"""


def entry(tmp_path: Path, text: str = ENTRY) -> Path:
    script = tmp_path / "bin" / "sweepgate"
    script.parent.mkdir(exist_ok=True)
    script.write_text(text)
    return script


def env(*paths: Path) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (*paths, ROOT / "utils"))}


def test_an_interrupt_while_the_command_s_modules_load_is_one_line_and_130(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(HOLD)
    proc = subprocess.Popen([sys.executable, str(entry(tmp_path)), "--help"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env(tmp_path / "site"))
    assert proc.stderr.readline() == "holding\n"
    proc.send_signal(signal.SIGINT)
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 130 and err == "sweepgate: interrupted\n", err


@pytest.mark.parametrize("delay_ms", [0, 2, 5, 10, 15, 20, 30, 40, 50])
def test_an_interrupt_at_any_moment_after_our_first_line_is_no_traceback(tmp_path, delay_ms):
    """-X importtime says when the package's import (our first lines) has finished: from then on no
    traceback, whatever the moment; before it, Python's own behaviour is not ours to judge."""
    proc = subprocess.Popen([sys.executable, "-X", "importtime", str(entry(tmp_path, ENTRY_SAYS_RETURNED)), "--help"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env())
    time.sleep(delay_ms / 1000)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=60)[1]
    ours_started = re.search(r"^import time:.*\|\s+sweepgate$", err, re.M)
    if not ours_started:
        pytest.skip(f"interrupted before sweepgate's first line ({proc.returncode}): Python's own startup")
    assert "Traceback" not in err, err[-2000:]
    # 0: --help was done before the signal; -SIGINT: it came while Python shut down after our last line
    # (Python puts back the default handler as it finalizes, and a default SIGINT ends the process silently;
    # in our code Python's handler raises KeyboardInterrupt, said in one line as 130)
    assert proc.returncode in (0, 130, -signal.SIGINT), (proc.returncode, err[-2000:])
    said = err.removesuffix("returned\n")  # main() said it and returned 130; else the hook said it, before main()
    assert proc.returncode != 130 or said.endswith("sweepgate: interrupted\n"), err[-500:]
    assert proc.returncode != -signal.SIGINT or "\nreturned\n" in err, err[-500:]
