"""Check one recorded argv against an engine's manifest, the way its parser would read it."""

from __future__ import annotations

import json
import re

from sweepgate.core.errors import json_message

_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


class Index:
    """A manifest's options by flag, with the parser's own leniencies (prefixes, underscores)."""

    def __init__(self, manifest: dict):
        self.manifest = manifest
        self.by_flag = {flag: opt for opt in manifest["options"] for flag in opt["flags"]}
        self.abbrev = manifest.get("allow_abbrev", False)
        self.underscores = manifest.get("underscores_as_dashes", False)

    def find(self, flag: str) -> dict | None:
        if self.underscores and flag.startswith("--"):
            flag = "--" + flag[2:].replace("_", "-")
        if flag in self.by_flag:
            return self.by_flag[flag]
        if "." in flag and self.underscores:  # vLLM: --json-arg.key value
            base = self.by_flag.get(flag.split(".", 1)[0])
            if base and base["kind"] == "json":
                return {**base, "kind": "str", "choices": None}
        if self.abbrev and flag.startswith("--"):
            hits = {id(o): o for f, o in self.by_flag.items() if f.startswith(flag) and f.startswith("--")}
            if len(hits) == 1:
                return next(iter(hits.values()))
        return None


def value_problem(opt: dict, value: str) -> str | None:
    """Why ``value`` is no value of ``opt``, or None."""
    choices = opt.get("choices")
    if choices is not None and value not in [str(c) for c in choices]:
        return f"is not one of {', '.join(map(str, choices))}"
    kind = opt.get("kind")
    if kind in ("int", "float") and opt.get("type") in ("int", "float", "int32", "int64", "uint32", "uint64",
                                                          "double"):
        try:
            int(value) if kind == "int" else float(value)
        except ValueError:
            return f"is not {'an integer' if kind == 'int' else 'a number'}"
    if kind == "json" and value.lstrip()[:1] in ("{", "["):
        try:
            json.loads(value)
        except ValueError as exc:
            return f"is not valid JSON ({json_message(exc)})"
    return None


def _values(opt: dict, args: list[str], i: int) -> tuple[list[str], int]:
    """The values option ``args[i]`` takes (without '='), and the index after them."""
    nargs = opt["nargs"]
    if isinstance(nargs, int):
        return args[i + 1:i + 1 + nargs], i + 1 + nargs
    taken, j = [], i + 1
    while j < len(args) and not (args[j].startswith("-") and not _NUMBER.match(args[j]) and args[j] != "-"):
        taken.append(args[j])
        j += 1
        if nargs == "?":
            break
    return taken, j


def check_argv(manifest: dict, args: list[str]) -> list[tuple[str, str]]:
    """(flag, what is wrong) for each problem in ``args`` (the argv after the command's words)."""
    index, problems, i = Index(manifest), [], 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        if not arg.startswith("-") or arg == "-" or _NUMBER.match(arg):
            i += 1
            continue
        flag, eq, inline = arg.partition("=")
        opt = index.find(flag)
        if opt is None:
            problems.append((flag, "unknown"))
            i += 1
            continue
        if eq:
            values, i = [inline], i + 1
        elif not opt["takes_value"]:
            values, i = [], i + 1
        else:
            values, i = _values(opt, args, i)
        problems.extend(_check_values(opt, flag, values, bool(eq)))
    return problems


def _check_values(opt: dict, flag: str, values: list[str], inline: bool) -> list[tuple[str, str]]:
    nargs = opt["nargs"]
    if not opt["takes_value"] and inline and opt["nargs"] != "?":
        return [(flag, "takes no value")]
    if isinstance(nargs, int) and len(values) < nargs:
        return [(flag, f"needs {nargs} value{'s' if nargs != 1 else ''}")]
    if nargs == "+" and not values:
        return [(flag, "needs at least one value")]
    out = []
    for value in values:
        why = value_problem(opt, value)
        if why:
            out.append((flag, f"value {value!r} {why}"))
    return out
