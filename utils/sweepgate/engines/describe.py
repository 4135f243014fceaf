"""Describe an argparse parser as a manifest's list of options (plain JSON, no live objects)."""

from __future__ import annotations

import argparse

# Strings a type callable is tried on at capture time; which it accepts tells its kind.
_PROBES = {"int": "7", "float": "7.5", "word": "abc"}


def type_kind(func) -> str:
    """What values an option's ``type`` accepts, learned by calling it: int, float, json, bool or str."""
    if func is None:
        return "str"
    name = getattr(func, "__name__", "")
    if name in ("int", "float", "str", "bool"):
        return name
    accepted = {key for key, text in _PROBES.items() if _accepts(func, text)}
    if "word" in accepted:
        return "str"
    if _accepts(func, '{"a": 1}'):
        return "json"
    if accepted == {"int"}:
        return "int"
    return "float" if "float" in accepted else "other"


def _accepts(func, text: str) -> bool:
    try:
        func(text)
    except Exception:  # noqa: BLE001 - any failure means "rejects"; argparse does the same
        return False
    return True


def _type_name(func) -> str | None:
    if func is None:
        return None
    return getattr(func, "__qualname__", None) or type(func).__name__


def _json_safe(values) -> list | None:
    if values is None:
        return None
    try:
        return [v if isinstance(v, (str, int, float, bool)) else str(v) for v in values]
    except TypeError:  # a container that cannot be listed (e.g. a custom __contains__)
        return None


def _nargs(action: argparse.Action):
    nargs = action.nargs
    if nargs is None:
        return 0 if isinstance(action, _NO_VALUE) else 1
    return nargs


_NO_VALUE = (argparse._StoreConstAction, argparse._StoreTrueAction, argparse._StoreFalseAction,
             argparse._CountAction, argparse._HelpAction, argparse._VersionAction,
             argparse._AppendConstAction, argparse.BooleanOptionalAction)


def describe_action(action: argparse.Action) -> dict:
    nargs = _nargs(action)
    return {
        "flags": list(action.option_strings),
        "dest": action.dest,
        "type": _type_name(action.type),
        "kind": type_kind(action.type),
        "choices": _json_safe(action.choices),
        "nargs": nargs,
        "takes_value": nargs != 0,
    }


def walk(parser: argparse.ArgumentParser) -> tuple[list[dict], list[dict]]:
    """(options, positionals) of ``parser``; sub-command parsers are not descended into."""
    options, positionals = [], []
    for action in parser._actions:  # argparse keeps no public list of its actions
        if isinstance(action, argparse._SubParsersAction):
            continue
        (options if action.option_strings else positionals).append(describe_action(action))
    return options, positionals
