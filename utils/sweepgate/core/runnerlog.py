"""What the GitHub Actions runner reads as a workflow command, and the output streams that let none
through but sweepgate's own annotations.

The runner reads every line a step prints, on stdout and stderr alike, cut at ``\\r``, ``\\n`` and
``\\r\\n`` (actions/runner ``ActionCommandManager.TryProcessCommand``), and takes as a command:

- a line that starts with ``::`` once leading whitespace is trimmed (``TryParseV2``):
  ``::set-output``, ``::add-mask``, ``::stop-commands`` (which silences every later command,
  sweepgate's ``::error`` annotations among them), ``::error``/``::warning`` (fake annotations), ...;
- a line that holds ``##[`` anywhere (the legacy ``TryParse``): ``x ##[set-output name=matrix;]true``.

Both tests compare with the culture's rules, which skip characters that weigh nothing (a zero-width
space, a control character, a combining mark) wherever they are: ``\\u200b::x`` and ``#\\u200b#[`` count.

A PR controls much of what sweepgate prints (config keys and values it refuses, changelog text, result
files' strings, script output). Under ``GITHUB_ACTIONS=true`` the CLI wraps each of its output streams
that the runner can read (not a regular file: a step summary or ``>matrix.json`` is data, read by no
one as commands) in ``CommandSafeStream``; a line that would be a command is rewritten so it is none
(``neutralize``), and only ``workflow_command`` (``errors.emit``'s annotations) writes one.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import threading
import unicodedata
from contextlib import contextmanager

COMMAND_PREFIX = "::"       # TryParseV2, at the start of a line after its leading whitespace
LEGACY_COMMAND = "##["      # TryParse, anywhere in a line
_LEGACY_DEFUSED = "## ["    # a space weighs something: no longer "##[" to the runner

_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")
# Printable ASCII and line breaks hold no character the runner's comparison skips.
_PLAIN = re.compile(r"[^\n\r\x20-\x7e]")
_LINE_START_COLON = re.compile(r"(?:\A|[\r\n])[ ]*:")
# Categories of what may weigh nothing to the comparison: control and format characters, combining
# marks, code points this Python does not know (the runner's ICU may know them as ignorable), and
# the line and paragraph separators. Over-counting only rewrites a line that holds one of them.
_WEIGHTLESS_CATEGORIES = frozenset(("Cc", "Cf", "Cn", "Mn", "Me", "Zl", "Zp"))
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")  # Hangul fillers: letters by category, ignorable by default


def _weightless(ch: str) -> bool:
    return ch in _FILLERS or unicodedata.category(ch) in _WEIGHTLESS_CATEGORIES


def _skeleton(line: str) -> str:
    """The line as the runner's comparison sees it: without the characters it skips."""
    return "".join(ch for ch in line if not _weightless(ch))


def is_command(line: str) -> bool:
    """Whether the runner would read ``line`` (one line, no line break) as a workflow command."""
    first = next((ch for ch in line if not ch.isspace() and not _weightless(ch)), "")
    if first != ":" and ("[" not in line or line.count("#") < 2):
        return False  # most lines, found without looking at each character
    seen = _skeleton(line)
    return seen.lstrip().startswith(COMMAND_PREFIX) or LEGACY_COMMAND in seen


def neutralize(line: str) -> str:
    """``line`` (one line, no line break), rewritten so it is no workflow command if it was one: the
    characters that hid the command go, ``##[`` becomes ``## [`` and a leading ``::`` gets a backslash
    before it (Markdown shows ``\\::`` as ``::``). Any other line comes back unchanged."""
    if not is_command(line):
        return line
    seen = _skeleton(line).replace(LEGACY_COMMAND, _LEGACY_DEFUSED)
    text = seen.lstrip()
    if text.startswith(COMMAND_PREFIX):
        seen = seen[:len(seen) - len(text)] + "\\" + text
    return seen


def neutralize_text(text: str) -> str:
    """Every line of ``text`` neutralized, its line breaks kept."""
    if not _PLAIN.search(text) and LEGACY_COMMAND not in text and not _LINE_START_COLON.search(text):
        return text  # the common case, a table or JSON: nothing to look at line by line
    parts = _LINE_BREAK.split(text)
    parts[::2] = [neutralize(line) for line in parts[::2]]
    return "".join(parts)


class CommandSafeStream:
    """A text stream that writes whole lines, each neutralized; a line not yet ended waits for its end
    (or ``finish``), so a command cannot be split across two writes."""

    def __init__(self, stream):
        self.wrapped = stream
        self._pending: list[str] = []
        self._lock = threading.Lock()  # a line is gathered whole even when two threads print

    def write(self, text: str) -> int:
        cut = max(text.rfind("\n"), text.rfind("\r"))
        with self._lock:
            if cut < 0:
                if text:
                    self._pending.append(text)
                return len(text)
            block = "".join(self._pending) + text[:cut + 1]
            self._pending = [text[cut + 1:]] if cut + 1 < len(text) else []
            self.wrapped.write(neutralize_text(block))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def finish(self) -> None:
        """Write the line not yet ended, as a whole line."""
        with self._lock:
            rest, self._pending = "".join(self._pending), []
            if rest:
                self.wrapped.write(neutralize_text(rest))
        self.wrapped.flush()

    def workflow_command(self, line: str) -> None:
        """Write one workflow command sweepgate means (an annotation), on a line of its own."""
        if _LINE_BREAK.search(line):
            raise ValueError(f"a workflow command is one line: {line!r}")
        ended = not self._pending
        self.finish()
        self.wrapped.write(line + "\n" if ended else "\n" + line + "\n")

    def __getattr__(self, name):  # flush, fileno, isatty, encoding, ...: the wrapped stream's
        return getattr(self.wrapped, name)


def write_command(line: str, stream=None) -> None:
    """Write the workflow command ``line`` to ``stream`` (stderr), past a ``CommandSafeStream``."""
    stream = stream or sys.stderr
    safe = stream
    while safe is not None and not isinstance(safe, CommandSafeStream):  # beneath a results command's
        safe = getattr(safe, "wrapped", None)  # report.PrintableStream (or cli.ReaderMayLeave): none, else
    if safe is not None:
        safe.workflow_command(line)
    else:
        print(line, file=stream)


def _read_by_the_runner(stream) -> bool:
    """Whether the runner may read what ``stream`` carries: anything but a regular file."""
    try:
        return not stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both of the last two
        return True


@contextmanager
def command_safe_streams():
    """Under ``GITHUB_ACTIONS=true``, sys.stdout and sys.stderr as ``CommandSafeStream`` (those the
    runner may read) for the block; both restored, their last lines written, after it."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        yield
        return
    saved = sys.stdout, sys.stderr
    if saved[0] is not None and _read_by_the_runner(saved[0]):
        sys.stdout = CommandSafeStream(saved[0])
    if saved[1] is not None and _read_by_the_runner(saved[1]):
        sys.stderr = CommandSafeStream(saved[1])
    try:
        yield
    finally:
        wrapped = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = saved
        for stream in wrapped:
            if isinstance(stream, CommandSafeStream):
                try:
                    stream.finish()
                except (OSError, ValueError):  # the reader left, a full disk (said already), a closed stream
                    pass
