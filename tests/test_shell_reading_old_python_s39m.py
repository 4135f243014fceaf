"""s39m: on Python 3.11.0 to 3.11.4 (Debian 12's python3 is 3.11.2; `requires-python = ">=3.11"` admits it, and a GPU
host runs `ci row-env` with its own Python) the re module fails a possessive group whose branch holds a lookbehind,
so ``shellcode.code`` blanked no comment: `# ... (x). y` was read as code, a `source` in a comment as one, and the
run identity a host took differed from the one `ci reuse` took elsewhere. The code's pattern is an atomic group now,
read alike on every Python; checked with each other python3 found on this machine."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sweepgate.core import shellcode, shellwords

ROOT = Path(__file__).resolve().parents[1]
TEXTS = ["a=1 # comment . x.sh\n",
         "# The registry (register_pid). _SG_SESSION[i] is\nsource benchmarks/x.sh # then . y.sh\n",
         'echo "a # b" # c\ncase $x in a) . z.sh ;; esac # . w.sh\n']
PROBE = ("import json, sys\nfrom sweepgate.core import shellcode, shellwords\n"
         "print(json.dumps([[shellcode.code(t)[0], shellwords.reading(t).sourced] for t in json.loads(sys.argv[1])]))\n")
OTHERS = sorted({str(Path(path).resolve()) for name in ("python3", "python3.11")
                 if (path := shutil.which(name, path="/usr/bin:/usr/local/bin"))} - {str(Path(sys.executable).resolve())})


def test_comments_are_blank_in_the_code_here():
    assert [shellcode.code(t)[0].count("#") for t in TEXTS] == [0, 0, 0]
    assert [len(shellwords.reading(t).sourced) for t in TEXTS] == [0, 1, 1]


@pytest.mark.parametrize("python", OTHERS or [pytest.param(None, marks=pytest.mark.skip("no other python3 here"))])
def test_every_python_reads_the_code_alike(python):
    version = subprocess.run([python, "-c", "import sys; print(sys.version_info >= (3, 11))"], capture_output=True,
                             text=True).stdout.strip()
    if version != "True":
        pytest.skip(f"{python} is older than requires-python")
    proc = subprocess.run([python, "-P", "-c", PROBE, json.dumps(TEXTS)], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT / "utils"), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    here = [[shellcode.code(t)[0], shellwords.reading(t).sourced] for t in TEXTS]
    assert json.loads(proc.stdout) == json.loads(json.dumps(here))
