"""Changelog entries as the reference's entry model reads them, for the matrix step.

The reference checks each appended entry with a pydantic model in its default (lax) mode, which
converts where the gate's schema (``perf-changelog.schema.json``) refuses: a flag written ``'yes'``,
``'true'``, ``'on'``, ``1`` ... is a boolean, ``eval-min-prefill-ep: '2'`` (or ``true``) an integer;
and it takes an empty pr-link, a description line with no visible text and a scenario type named twice. The matrix
step reads an entry as the reference does (``reference_entries``) and schema-checks a view of it
that holds what the schema's stricter rules refuse in a form they take (``schema_view``); the gate
reads entries as written.
"""

from __future__ import annotations

import re

from sweepgate.core import fields as F

TRUE_WORDS = frozenset({"1", "on", "t", "true", "y", "yes"})  # pydantic's, compared lower-cased
FALSE_WORDS = frozenset({"0", "off", "f", "false", "n", "no"})
INT_TEXT = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*(?:\.0+)?")  # what pydantic reads as an integer
FLAGS = (F.EVALS_ONLY, F.ALL_EVALS, F.APPEND_ONLY)


def lax_bool(value):
    """``value`` as a boolean field takes it, or itself when the field refuses it."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.lower()
        if word in TRUE_WORDS or word in FALSE_WORDS:
            return word in TRUE_WORDS
    return value


def lax_int(value):
    """``value`` as an integer field takes it, or itself when the field refuses it."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and INT_TEXT.fullmatch(value.strip()):
        return int(value.strip().split(".")[0])
    return value


def _each_entry(entries, change):
    """``entries`` with ``change`` made to a copy of each entry that is a mapping (anything else as it is)."""
    if not isinstance(entries, list):
        return entries
    out = []
    for entry in entries:
        if isinstance(entry, dict):
            entry = dict(entry)
            change(entry)
        out.append(entry)
    return out


def reference_entries(entries):
    """The entries with their flags and ``eval-min-prefill-ep`` converted as the reference's model does."""
    def convert(entry: dict) -> None:
        for flag in FLAGS:
            if flag in entry:
                entry[flag] = lax_bool(entry[flag])
        if entry.get(F.EVAL_MIN_PREFILL_EP) is not None:
            entry[F.EVAL_MIN_PREFILL_EP] = lax_int(entry[F.EVAL_MIN_PREFILL_EP])

    return _each_entry(entries, convert)


def schema_view(entries):
    """The entries for the schema check: an empty pr-link or description line with no visible text
    holds one, and a scenario-type naming only known types names each once (each path keeps its place, except the
    later copies of a repeated type)."""
    def view(entry: dict) -> None:
        if entry.get(F.PR_LINK) == "":
            entry[F.PR_LINK] = "-"
        lines = entry.get(F.DESCRIPTION)
        if isinstance(lines, list):
            entry[F.DESCRIPTION] = [line if not isinstance(line, str) or line.strip() else "-" for line in lines]
        types = entry.get(F.ENTRY_SCENARIO_TYPE)
        if isinstance(types, list) and types and all(t in F.SCENARIO_TYPES for t in types):
            entry[F.ENTRY_SCENARIO_TYPE] = list(dict.fromkeys(types))

    return _each_entry(entries, view)
