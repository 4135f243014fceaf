"""What a running rehearsal is doing: its step and the last command its script ran.

On a terminal, a rich status line (on stderr, through ``core.report.console``): one line, the step's
number and the command cut to the terminal's width, read as text (never as rich markup: a command's
`[/INST]` is no closing tag). Otherwise (piped, under NO_COLOR or TERM=dumb: ``core.report.live``) one plain line
per step and per whole command, also on stderr, so stdout keeps only the rehearsal's own report. A
command's control characters are written as escapes (``printable``) in either.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from sweepgate.core.errors import printable
from sweepgate.core.report import live
from sweepgate.rehearsal.calllog import open_log, shim_call


class Progress:
    """Steps and commands of one rehearsal; use as a context manager. ``title`` begins each line (`rehearse`;
    preflight's row); ``lines``: whether a stream not drawn on gets a line a step and a command (rehearse's
    log) or nothing (preflight says each row in a line of its own once it is done)."""

    def __init__(self, stream=None, *, title: str = "rehearse", lines: bool = True):
        self.stream = sys.stderr if stream is None else stream
        self.tty = live(self.stream)
        self.title, self.lines = title, lines
        self.status = None
        self.step_text = ""

    def __enter__(self) -> Progress:
        if self.tty:
            from sweepgate.core.report import console

            self.console = console(self.stream)
            self.status = self.console.status(self._line(self.title))
            self.status.start()
            self.status.update(self._line(self.title))  # drawn now (an update is), not at the next tick
        return self

    def __exit__(self, *exc) -> None:
        if self.status is not None:
            self.status.stop()

    def step(self, text: str) -> None:
        self.step_text = text
        self._show(f"{self.title}: {text}")

    def command(self, call: dict) -> None:
        argv = call.get("argv") or []
        line = printable(shlex.join([str(call.get("tool", "?")), *map(str, argv)]))
        if self.status is not None:  # one status line on a terminal; a log keeps the whole command
            number = self.step_text.partition(": ")[0]  # "step 2/3": the line is the command's
            self.status.update(self._line(f"{self.title}: {number + ': ' if number else ''}$ {line}"))
        elif self.lines:
            print(f"{self.title}:   $ {line}", file=self.stream, flush=True)

    def _show(self, text: str) -> None:
        if self.status is not None:
            self.status.update(self._line(text))
        elif self.lines:
            print(printable(text), file=self.stream, flush=True)

    def _line(self, text: str):
        """``text`` as one line of the status beside its spinner: text, not markup, cut to the terminal's width."""
        from rich.text import Text

        shown = Text(printable(text))
        shown.truncate(max(self.console.width - 2, 10), overflow="ellipsis")  # the spinner and a blank before it
        return shown


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
