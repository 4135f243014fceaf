"""Options of a gflags binary (Mooncake's ``mooncake_master``), read from its ``--helpfull``.

``--helpfull`` prints every flag with its type and exits; nothing is started.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import tempfile
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


# How long ``--helpfull`` may take: it prints and exits, in well under a second
HELPFULL_TIMEOUT_S = 60


def _helpfull(binary: str, timeout: float) -> tuple[str, int]:
    """(its output as text, exit status) of ``binary --helpfull``, run in a session of its own so that
    a binary that hangs, or leaves something running, goes with everything it started. The output goes
    to a file (a pipe would wait for whatever it left running); bytes that are not UTF-8 are replaced."""
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen([binary, "--helpfull"], stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            raise fail(binary, 0, f"cannot run: {exc.strerror}", "install mooncake-transfer-engine") from None
        try:
            status = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise fail(binary, 0, f"--helpfull did not finish within {timeout:g}s (stopped)",
                       "run it by hand to see what it waits for: it should print its flags and exit") from None
        finally:  # a timeout, Ctrl-C or SIGTERM, or what it left running: nothing of it stays
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        out.seek(0)
        return out.read().decode("utf-8", errors="replace"), status


def mooncake_master_options(stubs: list[str], timeout: float = HELPFULL_TIMEOUT_S) -> tuple[list[dict], list[dict], dict]:
    binary = str(resources.files("mooncake") / "mooncake_master")
    text, status = _helpfull(binary, timeout)
    options = parse_helpfull(text)
    if not options:
        tail = text.strip().splitlines()[-1:] or ["no output"]
        raise fail(binary, 0, f"--helpfull listed no flags ({tail[0]}; exit status {status})",
                   "make its shared libraries loadable (see configs/engines/README.md)")
    return options, [], {"parser": "gflags", "allow_abbrev": False, "underscores_as_dashes": False}
