"""The GITHUB_OUTPUT / GITHUB_ENV file format, written and read the way the runner does."""

from __future__ import annotations

import re
import uuid


_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # fullmatch: `$` also matches before a final newline


def format_kv(values: dict[str, str]) -> str:
    """The GITHUB_OUTPUT / GITHUB_ENV file format.

    Single-line values are ``name=value``; a value with a newline uses a random
    heredoc delimiter that is checked not to occur in it, so no value can smuggle
    in another variable.
    """
    out = []
    for name, value in values.items():
        if not _NAME_RE.fullmatch(name):
            raise ValueError(f"bad variable name {name!r}")
        value = str(value)
        if "\n" not in value and "\r" not in value:
            out.append(f"{name}={value}\n")
            continue
        delim = f"ghadelimiter_{uuid.uuid4().hex}"
        while delim in value:  # 128 random bits: rare, but a test draws a clash on purpose
            delim = f"ghadelimiter_{uuid.uuid4().hex}"
        out.append(f"{name}<<{delim}\n{value}\n{delim}\n")
    return "".join(out)


def parse_kv(text: str) -> dict[str, str]:
    """Read a GITHUB_OUTPUT / GITHUB_ENV file the way the runner does (for tests and collect)."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            body = []
            while i < len(lines) and lines[i] != delim:
                body.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError(f"unterminated heredoc for {name}")
            i += 1
            values[name] = "\n".join(body)
        else:
            name, _, value = line.partition("=")
            values[name] = value
    return values
