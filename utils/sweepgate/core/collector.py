"""Diagnostics for one file, capped per rule: the gate's and the matrix step's reports share it,
so a change that deletes or edits a long stretch of history reads the same in both."""

from __future__ import annotations

import collections

from sweepgate.core.errors import Diagnostic

MAX_PER_RULE = 20


class More(Diagnostic):
    """The line that stands for a rule's problems past the cap: ``stands_for`` of them."""

    __slots__ = ("stands_for",)

    def __init__(self, *args, stands_for: int = 1, **kwargs):
        super().__init__(*args, **kwargs)
        self.stands_for = stands_for


def problems_in(diags) -> int:
    """How many problems ``diags`` report, a capped rule's summary line counting for all it stands for."""
    return sum(getattr(d, "stands_for", 1) for d in diags)


class Collector:
    """Diagnostics for one file, at most MAX_PER_RULE per rule plus a summary line."""

    def __init__(self, path: str):
        self.path = path
        self.items: list[Diagnostic] = []
        self.counts: collections.Counter = collections.Counter()
        self.first_over: dict[str, int] = {}
        self.summaries: dict[str, tuple[str, str, str]] = {}

    def add(self, line: int, rule: str, message: str, hint: str = "", col: int = 0,
            more: tuple[str, str, str] | None = None) -> None:
        """``more``: how the summary past the cap says the rule's problems, (one, several, the fix of them all)
        (``1 more line ends in CRLF``), where the rule's title would read as jargon (``4746 more 'crlf' problem(s)``)."""
        self.counts[rule] += 1
        if more is not None:
            self.summaries.setdefault(rule, more)
        if self.counts[rule] <= MAX_PER_RULE:
            self.items.append(Diagnostic(self.path, line, col, rule, message, hint))
        else:
            self.first_over.setdefault(rule, line)

    def extend(self, diags) -> None:
        for d in diags:
            self.add(d.line, d.rule, d.message, d.hint, d.col)

    def done(self) -> list[Diagnostic]:
        out = sorted(self.items, key=lambda d: (d.line, d.col))
        for rule, line in self.first_over.items():
            more = self.counts[rule] - MAX_PER_RULE
            one, several, fix = self.summaries.get(rule) or (f"'{rule}' problem(s)", f"'{rule}' problem(s)",
                                                             "fix the ones above, then rerun the gate")
            out.append(More(self.path, line, 0, rule, f"{more} more {one if more == 1 else several} from here on",
                            fix, stands_for=more))
        return out

    def has(self, *rules: str) -> bool:
        return any(self.counts[r] for r in rules)
