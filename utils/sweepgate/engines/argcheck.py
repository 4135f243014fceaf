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
        self.gflags = manifest.get("parser") == "gflags"
        self.flexible_o = str(manifest.get("parser", "")).endswith("FlexibleArgumentParser") and "-O" in self.by_flag

    def find(self, flag: str) -> dict | None:
        if self.underscores and flag.startswith("--"):
            flag = "--" + flag[2:].replace("_", "-")
        if flag in self.by_flag:
            return self.by_flag[flag]
        if self.gflags and "-" in flag.lstrip("-"):  # gflags looks a dashed name up again with underscores
            dashes = len(flag) - len(flag.lstrip("-"))
            return self.by_flag.get(flag[:dashes] + flag[dashes:].replace("-", "_"))
        if "." in flag and self.underscores:  # vLLM: --json-arg.key value
            base = self.by_flag.get(flag.split(".", 1)[0])
            if base and base["kind"] == "json":
                return {**base, "kind": "str", "choices": None}
        if self.abbrev and flag.startswith("--"):
            hits = {id(o): o for f, o in self.by_flag.items() if f.startswith(flag) and f.startswith("--")}
            if len(hits) == 1:
                return next(iter(hits.values()))
        return None


NUMBER_TYPES = ("int", "float", "int32", "int64", "uint32", "uint64", "double")
# vLLM's human_readable_int: 25.6k, 2K (no decimals with a binary suffix), else a plain int()
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_GFLAGS_BOOL = {"1", "t", "true", "y", "yes", "0", "f", "false", "n", "no"}  # gflags, any case


def _human_int_problem(value: str) -> str | None:
    match = _HUMAN_INT.fullmatch(value.strip())
    if match and match[2] in "kmg":
        return None
    if match and match[2] in "KMG":
        return None if match[1].isdigit() else f"has decimals with the binary suffix {match[2]}"
    try:
        int(value)
    except ValueError:
        return "is not an integer (or one like 25.6k or 2K)"
    return None


def _typed_problem(kind: str | None, type_name: str, value: str) -> str | None:
    """Why the option's type function (a builtin, vLLM's optional_type or human_readable_int) refuses it."""
    if type_name == "human_readable_int":
        return _human_int_problem(value)
    optional = "optional_type" in type_name
    if optional and value in ("", "None"):
        return None
    if kind in ("int", "float") and (optional or type_name in NUMBER_TYPES):
        try:
            int(value) if kind == "int" else float(value)
        except ValueError:
            return f"is not {'an integer' if kind == 'int' else 'a number'}"
    if kind == "json" and (optional or value.lstrip()[:1] in ("{", "[")):
        try:
            json.loads(value)
        except ValueError as exc:
            return f"is not valid JSON ({json_message(exc)})"
    if kind == "bool" and type_name == "bool" and value.lower() not in _GFLAGS_BOOL:
        return "is not a boolean (true, false, yes, no, 1 or 0)"
    return None


def value_problem(opt: dict, value: str) -> str | None:
    """Why ``value`` is no value of ``opt``, or None."""
    choices = opt.get("choices")
    if choices is not None and value not in [str(c) for c in choices]:
        if not choices:
            return "is given, and the manifest lists no value this option takes"
        return f"is not one of {', '.join(map(str, choices))}"
    return _typed_problem(opt.get("kind"), str(opt.get("type") or ""), value)


def _looks_like_a_flag(arg: str) -> bool:
    """What argparse will not take as an option's value: '-x', '--x' (not a number, '-', or with a space)."""
    return arg.startswith("-") and arg != "-" and not _NUMBER.match(arg) and " " not in arg


def _values(opt: dict, args: list[str], i: int, gflags: bool = False) -> tuple[list[str], int]:
    """The values option ``args[i]`` takes (without '='), and the index after them. argparse takes no
    flag as a value ('--tokenizer --port 1' is "expected one argument"); gflags takes the next word."""
    nargs = opt["nargs"]
    if isinstance(nargs, int):
        taken = args[i + 1:i + 1 + nargs]
        if not gflags:
            taken = taken[:next((n for n, a in enumerate(taken) if _looks_like_a_flag(a)), len(taken))]
        return taken, i + 1 + len(taken)
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
        if index.flexible_o and arg.startswith("-O") and arg != "-O" and arg[2] != ".":
            arg = "-O.level=" + (arg[3:] if arg[2] == "=" else arg[2:])  # vLLM's -O3 / -O=3 / -Odecode
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
            values, i = _values(opt, args, i, index.gflags)
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
