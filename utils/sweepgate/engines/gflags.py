"""Options of a gflags binary (Mooncake's ``mooncake_master``), read from its ``--helpfull``.

``--helpfull`` prints every flag with its type and exits; nothing is started.
"""

from __future__ import annotations

import re
import subprocess
from importlib import resources

from sweepgate.core.errors import fail

# "-name (description) type: T default: D", possibly wrapped over several lines
_FLAG = re.compile(r"^\s{4}-(\w+) \((.*?)\)\s+type: (\w+)", re.S | re.M)
_KINDS = {"int32": "int", "int64": "int", "uint32": "int", "uint64": "int",
          "double": "float", "bool": "bool", "string": "str"}


def parse_helpfull(text: str) -> list[dict]:
    """One option per gflags flag; ``-f``, ``--f`` and ``--f=v`` all name it, bools also ``--nof``."""
    options = []
    for name, _desc, type_name in _FLAG.findall(text):
        is_bool = type_name == "bool"
        flags = [f"--{name}", f"-{name}"] + ([f"--no{name}", f"-no{name}"] if is_bool else [])
        options.append({"flags": flags, "dest": name, "type": type_name, "kind": _KINDS.get(type_name, "other"),
                        "choices": None, "nargs": "?" if is_bool else 1, "takes_value": not is_bool})
    return options


def mooncake_master_options(stubs: list[str]) -> tuple[list[dict], list[dict], dict]:
    binary = resources.files("mooncake") / "mooncake_master"
    try:
        proc = subprocess.run([str(binary), "--helpfull"], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        raise fail(str(binary), 0, f"cannot run: {exc.strerror}", "install mooncake-transfer-engine") from None
    options = parse_helpfull(proc.stdout + proc.stderr)
    if not options:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise fail(str(binary), 0, f"--helpfull listed no flags ({tail[0]})",
                   "make its shared libraries loadable (see configs/engines/README.md)")
    return options, [], {"parser": "gflags", "allow_abbrev": False, "underscores_as_dashes": False}
