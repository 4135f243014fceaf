"""A stand-in server the tests start as a real process, on a port it picks itself (s40g).

The tests picked a free port (bound to port 0, then let go) and polled it up to 600 times, 50 ms apart: the port
could be taken by another process between the two (the kernel gives such ports to outgoing connections too), and
on a host slow enough the polling ran out and the test went on against no server. Here the server binds port 0
itself and says the port it got on stderr once it listens (standin.serve's first line): the test reads that line,
waiting on the server, not on a clock.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from lifetime import DIES_WITH_US
from sweepgate.rehearsal import standin

STANDIN = Path(standin.__file__)
SERVING = "fakeserver: serving "  # standin.serve's first line: "... on http://HOST:PORT"


class Serving:
    """``standin.py shim ARGV... --port 0`` running: its ``url``, and the lines it wrote on stderr (``lines``,
    whole once ``stop`` has returned)."""

    def __init__(self, *argv: str, env: dict | None = None):
        env = {**os.environ, **(env or {})}
        env.pop(standin.FAST_ENV, None)
        self.proc = subprocess.Popen([*DIES_WITH_US, sys.executable, "-I", "-S", str(STANDIN), "shim", *argv,
                                      "--port", "0"], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        first = self.proc.stderr.readline()  # written once it listens; "" when it ended first
        if not first.startswith(SERVING):
            self.proc.kill()
            raise AssertionError(f"the stand-in did not start: {first}{self.proc.stderr.read()}")
        self.url = first.rsplit(" on ", 1)[1].strip()
        self.lines: list[str] = [first]
        self._reader = threading.Thread(target=self.lines.extend, args=(self.proc.stderr,), daemon=True)
        self._reader.start()

    def stop(self) -> list[str]:
        """TERM it and wait until it has ended and its stderr is read to the end; its lines."""
        self.proc.terminate()
        self.proc.wait(timeout=120)
        self._reader.join()
        return self.lines

    def requests(self) -> list[str]:
        """The requests it logged, in order (``GET /health``), once stopped."""
        return [" ".join(line.split()[1:3]) for line in self.stop() if line.startswith("fakeserver: ")
                and line.split()[1:2] and line.split()[1] in ("GET", "POST")]

    def __enter__(self) -> Serving:
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.stop()
