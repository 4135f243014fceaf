"""What to say about a YAML syntax error that is a line indented as no block above it is.

libyaml says `did not find expected key` (a key one space too deep), `did not find expected '-'
indicator` (a key that left its entry) or `mapping values are not allowed` (a key indented under the
value above it, read as more of that value) at the line, which names the mistake but not the fix;
this names the indents the blocks still open above that line use, from the text alone."""

from __future__ import annotations

import re

# A line's content that is a mapping key: `name:` or `name: value` (quoted names too), not a scalar.
_KEY = re.compile(r"""^(?:"[^"]*"|'[^']*'|[^\s#'"\-\[\]{},][^#]*?)\s*:(?:\s|$)""")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _spaces(n: int) -> str:
    return f"{n} space{'' if n == 1 else 's'}"


def _either(levels: list[int], word: str) -> str:
    names = [str(n) for n in levels]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {word} {names[-1]}"


def open_levels(lines: list[str], n: int) -> tuple[dict[int, str], int | None]:
    """The indents of the blocks still open at line ``n`` (0-based), each `list` or `keys`: each line
    above it less indented than every line between, and for a `- key:` item the column its mapping's
    keys start at; and the indent of the line just above when that line is a key whose value is still
    to come (its block may go deeper), else None."""
    levels: dict[int, str] = {}
    limit, under = None, None
    for line in reversed(lines[:n]):
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        i = _indent(line)
        if limit is None and _KEY.match(body) and body.endswith(":"):
            under = i
        if limit is not None and i >= limit:
            continue
        levels[i] = "list" if body.startswith("-") else "keys"
        rest, col = body, i
        while rest.startswith("-") and rest[1:2] in (" ", ""):  # `- - key:` nests a sequence per dash
            stripped = rest[1:].lstrip(" ")
            col += len(rest) - len(stripped)
            rest = stripped
            if _KEY.match(rest):
                levels[col] = "keys"
        limit = i
        if i == 0:
            break
    return dict(sorted(levels.items())), under


def indent_hint(text: str, line0: int) -> tuple[str, str] | None:
    """(what is wrong, how to fix it) for a syntax error at line ``line0`` (0-based) that is its
    indentation, or None where the indentation is not the question."""
    lines = text.split("\n")
    if line0 >= len(lines) or not lines[line0].strip() or lines[line0].lstrip(" ").startswith("\t"):
        return None
    line, (levels, under) = lines[line0], open_levels(lines, line0)
    if not levels:
        return None
    k, indents = _indent(line), list(levels)
    deeper = f", or more than {under} to put it under the key above" if under is not None else ""
    if k not in levels:
        return (f"this line is indented {_spaces(k)}, and the blocks open above it are indented "
                f"{_either(indents, 'and')}",
                f"indent it as the block it belongs to: {_either(indents, 'or')} spaces{deeper}")
    if levels[k] == "list" and not line.lstrip(" ").startswith("-"):
        keys = sorted((n for n, kind in levels.items() if kind == "keys"), key=lambda n: (abs(n - k), -n))
        more = f", or indent it {_spaces(keys[0])}, as the keys above it" if keys else ""
        return (f"at {_spaces(k)} this line is in a list, whose items start with '- '",
                f"start a new item with '- '{more}")
    return None


def continuation_hint(text: str, line0: int) -> tuple[str, str] | None:
    """(what is wrong, how to fix it) for a `key: value` line at ``line0`` (0-based) indented deeper
    than the key above it, whose plain value it then reads as going on (`mapping values are not
    allowed`), or None where the line above is no such key."""
    lines = text.split("\n")
    above = next((i for i in range(min(line0, len(lines)) - 1, -1, -1)
                  if lines[i].strip() and not lines[i].strip().startswith("#")), None)
    if above is None or line0 >= len(lines):
        return None
    rest, col = lines[above].strip(), _indent(lines[above])
    while rest.startswith("-") and rest[1:2] == " ":
        stripped = rest[1:].lstrip(" ")
        col, rest = col + len(rest) - len(stripped), stripped
    key = _KEY.match(rest)
    if not key or not rest[key.end():].strip() or _indent(lines[line0]) <= col:  # no value to go on with
        return None
    k = _indent(lines[line0])  # which of the two lines is the slip is not in the text: both are named
    return (f"this line is indented {_spaces(k)}, more than the key above it ({col}), "
            "so it reads as more of that key's value",
            f"indent the two keys alike: this one {_spaces(col)}, as the key above, or that one {k}, as this one")
