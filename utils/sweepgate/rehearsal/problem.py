"""A rehearsal's problem, and what finds the line of the script it is about."""

from __future__ import annotations

import re


class Problem(str):
    """A rehearsal's problem (`what is wrong; how to fix`) and what finds the line it is about: the call
    ``stack`` bash was at (``linetrap.place``; innermost frame first), else the command ``words`` as recorded
    (``scriptlines.command_line``), the patterns that ``finds`` the line (one, or several: the script's line
    for the first that finds one, its own or its call into the library, ``scriptlines.first_command``), or
    (``said``) the file and line bash names in the script's output; or the line already found (``at``: what a
    script left running, ``runner.left_by_line``). A plain string stands at the script."""

    words: list[str] = []
    finds: tuple[re.Pattern, ...] = ()
    said: bool = False
    stack: list[tuple[str, int]] = []
    at: tuple[str, int] | None = None

    def __new__(cls, text: str, *, words: list[str] | None = None,
                finds: re.Pattern | tuple[re.Pattern, ...] | None = None, said: bool = False,
                stack: list[tuple[str, int]] | None = None, at: tuple[str, int] | None = None) -> Problem:
        self = super().__new__(cls, text)
        self.words, self.said, self.stack, self.at = words or [], said, stack or [], at
        self.finds = finds if isinstance(finds, tuple) else (finds,) if finds else ()
        return self
