"""A Ctrl-C (or SIGTERM) that lands while Python runs a garbage-collection callback is not lost.

New user (newuser27, second walk): Ctrl-C during `sweepgate results compare --run 200 --plots DIR
--comment-file F`, about 1.5 s in, sometimes printed

    Exception ignored in: <function _collection_gced at 0x...>
    Traceback (most recent call last):
      File ".../sqlalchemy/event/registry.py", line 103, in _collection_gced
    KeyboardInterrupt:

and the command went on to the end, exit 0: the KeyboardInterrupt the handler raised inside a
weakref callback (SQLAlchemy's, run by the collector) is one Python cannot raise anywhere, so it
printed it as "ignored" and dropped it. Reproduced here deterministically with a real process and
a real signal raised inside such a callback, under ``run_guarded``, which every command runs in:
the command now ends as the signal says (130 "interrupted", 143 "terminated"), no traceback.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BODY = """\
import os, signal, sys, weakref
sys.path.insert(0, {utils!r})
from sweepgate.core.errors import run_guarded

class Thing:
    pass

def callback(_):
    os.kill(os.getpid(), signal.{sig})
    for _ in range(1000):  # Python runs the handler here, inside the callback
        pass

def body():
    thing = Thing()
    ref = weakref.ref(thing, callback)
    del thing  # the callback runs now, as the collector runs SQLAlchemy's
    print("work finished")
    return 0

sys.exit(run_guarded(body))
"""


@pytest.mark.parametrize("sig, code, said", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")])
def test_a_signal_inside_a_collector_callback_still_stops_the_command(tmp_path, sig, code, said):
    script = tmp_path / "body.py"
    script.write_text(BODY.format(utils=str(ROOT / "utils"), sig=sig))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    assert (done.returncode, done.stderr) == (code, f"sweepgate: {said}\n"), (done.returncode, done.stderr)
    assert signal.Signals[sig]  # the names above are the platform's own


def test_other_unraisable_errors_are_still_reported_as_python_does(tmp_path):
    """Only a Ctrl-C or a stop signal is taken over: any other error in a callback is printed as before."""
    script = tmp_path / "body.py"
    script.write_text(BODY.format(utils=str(ROOT / "utils"), sig="SIGINT").replace(
        "os.kill(os.getpid(), signal.SIGINT)", "raise ValueError('in a callback')"))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "work finished\n", done
    assert "Exception ignored in" in done.stderr and "ValueError: in a callback" in done.stderr, done.stderr
