"""A fast rehearsal that records the commands a row's script runs (for `sweepgate preflight`).

The script runs as in `sweepgate rehearse`, with its stand-ins told to send
almost no load (SWEEPGATE_REHEARSE_FAST) and a one-second agentic duration;
what matters is the argv of every server, client and install it ran.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sweepgate.rehearsal import runner
from sweepgate.rehearsal.standin import FAST_ENV

FAST_DURATION_S = 1


@dataclass
class Recording:
    script: Path                 # the row's benchmark script
    calls: list[dict]            # {"tool", "argv", ...} per shim call, in order
    rc: int
    timed_out: bool
    leftovers: list[str] = field(default_factory=list)
    output_tail: str = ""


def record_row(row: dict, root: Path, timeout: int = 120, keep: Path | None = None) -> Recording:
    """Run ``row``'s script fast, in a scratch directory (``keep`` to keep it), and return what it ran."""
    runner_name = runner.default_runner_name(row)
    script = runner.resolve_script(root, row, runner.gpu_family(runner_name))
    work = keep or Path(tempfile.mkdtemp(prefix="sweepgate-preflight-"))
    try:
        env, paths = runner.prepare(work, row, runner_name, FAST_DURATION_S)
        env[FAST_ENV] = "1"
        rc, timed_out = runner.run_script(script, root, env, paths["out"], timeout)
        calls = runner.read_calls(paths["log"])
        leftovers = runner.reap_leftovers(calls)
        tail = runner._tail(paths["out"], 15) if rc or timed_out else ""
        return Recording(script, calls, rc, timed_out, leftovers, tail)
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
