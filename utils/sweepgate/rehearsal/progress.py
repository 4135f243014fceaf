"""What a running rehearsal is doing: its step and the last command its script ran.

On a terminal, a rich status line (on stderr, through ``core.report.console``), the
command cut to fit; otherwise (piped, or under NO_COLOR: ``core.report.live``) one plain
line per step and per whole command, also on stderr, so stdout keeps only the rehearsal's
own report.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from sweepgate.core.report import live
from sweepgate.rehearsal.calllog import open_log, shim_call

MAX_COMMAND_CHARS = 160


class Progress:
    """Steps and commands of one rehearsal; use as a context manager."""

    def __init__(self, stream=None):
        self.stream = sys.stderr if stream is None else stream
        self.tty = live(self.stream)
        self.status = None
        self.step_text = ""

    def __enter__(self) -> Progress:
        if self.tty:
            from sweepgate.core.report import console

            self.status = console(self.stream).status("rehearse: starting")
            self.status.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.status is not None:
            self.status.stop()

    def step(self, text: str) -> None:
        self.step_text = text
        self._show(f"rehearse: {text}")

    def command(self, call: dict) -> None:
        argv = call.get("argv") or []
        line = shlex.join([str(call.get("tool", "?")), *map(str, argv)])
        if self.status is not None:  # one status line on a terminal; a log keeps the whole command
            short = line if len(line) <= MAX_COMMAND_CHARS else line[:MAX_COMMAND_CHARS - 1] + "…"
            self.status.update(f"rehearse: {self.step_text}: $ {short}")
        else:
            print(f"rehearse:   $ {line}", file=self.stream, flush=True)

    def _show(self, text: str) -> None:
        if self.status is not None:
            self.status.update(text)
        else:
            print(text, file=self.stream, flush=True)


class CallTail:
    """New lines of the shims' call log since the last look."""

    def __init__(self, log: Path):
        self.log, self.offset = log, 0

    def new_calls(self) -> list[dict]:
        try:
            with open_log(self.log) as fh:  # never a wait on a FIFO the script put there
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return []
        complete = chunk[:chunk.rfind(b"\n") + 1]
        self.offset += len(complete)
        # what the script wrote there that is no shim call is left out (the verdict's reading warns of it)
        calls = (shim_call(line) for line in complete.decode("utf-8", errors="replace").splitlines())
        return [c for c in calls if c is not None]
