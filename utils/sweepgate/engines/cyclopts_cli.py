"""Options of a cyclopts command (AIPerf's ``aiperf profile``), from cyclopts' own argument model.

AIPerf has no argparse parser: its CLI is a cyclopts App over pydantic config
models. ``App.assemble_argument_collection`` is what cyclopts parses with; each
argument there gives its names, negative names, type hint and choices.
"""

from __future__ import annotations

import enum
import typing


def _choices(hint) -> list[str] | None:
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        names = {m.name.lower().replace("_", "-") for m in hint}
        values = {str(m.value) for m in hint if isinstance(m.value, str)}
        return sorted(names | values)
    if typing.get_origin(hint) is typing.Literal:
        return [str(v) for v in typing.get_args(hint)]
    return None


def _unwrap(hint):
    """Optional[X] / list[X] -> X, and whether it was a list."""
    is_list = False
    for _ in range(3):
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (list, tuple, set, typing.Union) or str(origin) == "types.UnionType":
            args = [a for a in args if a is not type(None) and a is not Ellipsis]
            is_list = is_list or origin in (list, tuple, set)
            if len(args) == 1:
                hint = args[0]
                continue
        break
    return hint, is_list


def _kind(hint) -> str:
    if hint is bool:
        return "bool"
    if hint is int:
        return "int"
    if hint is float:
        return "float"
    return "str"


def describe_argument(arg) -> dict:
    hint, _is_list = _unwrap(arg.hint)
    is_bool = hint is bool
    return {"flags": [n for n in (*arg.names, *arg.negatives) if n.startswith("-")],
            "dest": arg.field_info.name if getattr(arg, "field_info", None) else arg.names[0].lstrip("-"),
            "type": getattr(hint, "__name__", str(hint)), "kind": _kind(hint), "choices": _choices(hint),
            "nargs": "?" if is_bool else 1, "takes_value": not is_bool}


def command_options(app, command: str) -> tuple[list[dict], list[dict], dict]:
    """(options, positionals, meta) of ``app``'s sub-command ``command``."""
    collection = app[command].assemble_argument_collection()
    options, positionals = [], []
    for arg in collection:
        if not arg.parse or not arg.names:
            continue
        described = describe_argument(arg)
        (options if described["flags"] else positionals).append(described)
    return options, positionals, {"parser": "cyclopts", "allow_abbrev": False, "underscores_as_dashes": False}
