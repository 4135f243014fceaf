"""A fast rehearsal that records the commands a row's script runs (for `sweepgate preflight`).

The script runs as in `sweepgate rehearse`, with its stand-ins told to send
almost no load (SWEEPGATE_REHEARSE_FAST), a one-second agentic duration and the
library's polls shortened (SWEEPGATE_POLL_S); what matters is the argv of every
server, client and install it ran, and those are the same as in a rehearsal.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sweepgate.core.signals import Held, remove_folder
from sweepgate.rehearsal import runner
from sweepgate.rehearsal.progress import CallTail
from sweepgate.rehearsal.standin import FAST_ENV, HELP_ENV

FAST_DURATION_S = 1
# benchmark_lib's short polling waits (readiness, a client's watch on its server, cleanup):
# the stand-ins start, answer and stop in milliseconds, so 0.2 s polls would be most of a row.
FAST_POLL_ENV, FAST_POLL_S = "SWEEPGATE_POLL_S", "0.02"


@dataclass
class Recording:
    script: Path                 # the row's benchmark script
    calls: list[dict]            # {"tool", "argv", ...} per shim call, in order
    rc: int
    timed_out: bool
    leftovers: list[str] = field(default_factory=list)
    output_tail: str = ""
    unreadable: str | None = None  # why the shims' call log could not be read (the script replaced it)
    stopped_at: list = field(default_factory=list)  # where bash was as the timeout stopped it (linetrap.Stack)
    subshells: dict = field(default_factory=dict)   # PID -> where each subshell alive then started
    refused: list = field(default_factory=list)  # the script's writes outside the work dir: it was not run


def _this_python_first(shim_dir: Path, env: dict) -> None:
    """The library's inline Python (the agentic result writer) runs on this interpreter: a
    `python3` found on PATH may be a version manager's shim that costs a tenth of a second. Where the
    rehearsal's python3 shim is there (it stands in for a client module), it runs this one for the rest."""
    link = shim_dir / "python3"
    if link.exists():
        env[runner.THIS_PYTHON_ENV] = sys.executable
    else:
        link.symlink_to(sys.executable)


def record_row(row: dict, root: Path, timeout: int, keep: Path | None = None,
               help_flags: dict[str, list[str]] | None = None, progress=None) -> Recording:
    """Run ``row``'s script fast, in a scratch directory (``keep`` to keep it), and return what it ran.
    ``help_flags`` (command -> the pinned version's flags) is what the stand-ins' ``--help`` lists;
    ``progress`` (``rehearsal.progress.Progress``) is told each command as the script runs it; ``timeout``
    (seconds) has no default here: preflight's --timeout states the one."""
    runner_name = runner.runner_for(row, root)
    script = runner.resolve_script(root, row, runner.gpu_family(runner_name))
    if outside := runner.writes_outside(root, row, script, keep):  # as rehearse refuses it: nothing run
        return Recording(script, [], 0, False, refused=outside)
    work = keep
    try:
        if work is None:
            with Held():  # named before a signal acts: the finally below then removes it
                work = Path(tempfile.mkdtemp(prefix="sweepgate-preflight-"))
        env, paths = runner.prepare(work, row, runner_name, FAST_DURATION_S, root)
        env[FAST_ENV] = "1"
        env[FAST_POLL_ENV] = FAST_POLL_S
        if help_flags:
            (work / "standin-help.json").write_text(json.dumps(help_flags), encoding="utf-8")
            env[HELP_ENV] = str(work / "standin-help.json")
        _this_python_first(paths["shims"], env)
        tail = CallTail(paths["log"])
        poll = (lambda: [progress.command(c) for c in tail.new_calls()]) if progress else None
        run = runner.run_script(script, root, env, paths["out"], timeout, poll=poll, log=paths["log"], trap=paths,
                                cwd=paths["workspace"])
        for call in tail.new_calls() if progress else ():  # what the last poll did not see, as rehearse_row does
            progress.command(call)
        calls, unreadable = runner._logged_calls(paths["log"])  # as rehearse reads it: no internal error
        leftovers = run.left + runner.reap_leftovers(calls)
        output = runner._tail(paths["out"], 15) if run.rc or run.timed_out else ""
        return Recording(script, calls, run.rc, run.timed_out, leftovers, output, unreadable, run.stopped_at,
                         run.subshells)
    finally:
        if keep is None and work is not None:
            remove_folder(work, "the rehearsal's scratch folder")  # whole, even after a Ctrl-C
