"""A benchmark whose last line has no line break cannot keep the job's commands stopped (s44g).

The Benchmark step closes its stop-commands region with ``echo "::TOKEN::"``. The runner reads a step's
output line by line, so when the launcher's last output had no line break (a script ending in
``printf 'done'``, an engine killed mid-line) the closing command landed on the end of that line,
``done::TOKEN::``: no command to the runner, so the region never closed. The runner keeps that state for
the rest of the job (one ``ActionCommandManager`` per job), so every later step's commands, the job
sidecar's ``::error`` annotations among them, were read as plain text. The step now ends the line first.
"""

from __future__ import annotations

import shlex

import pytest

from test_benchmark_step_commands_s42a import FAKE_RUNNER, STEPS, _run_step, runner_reads

UNENDED = ["done", "::add-mask::x"]


def _launcher_ending_mid_line(tmp_path, last: str) -> None:
    """main's export in runner.temp whose launcher prints one whole line, then ``last`` with no line break."""
    temp = tmp_path / "runner temp"
    runners = temp / "sweepgate-main" / "benchmarks" / "runners"
    runners.mkdir(parents=True)
    (tmp_path / "work").mkdir()
    (runners / f"launch_{FAKE_RUNNER}.sh").write_text(
        "#!/usr/bin/env bash\nprintf 'a whole line\\n'\n"
        f"printf '%s' {shlex.quote(last)}\n: >{shlex.quote(str(tmp_path / 'seen'))}\n" + 'exit "${FAKE_RC}"\n')


@pytest.mark.parametrize("last", UNENDED)
@pytest.mark.parametrize("where", sorted(STEPS))
def test_a_launcher_s_unended_last_line_does_not_keep_the_region_open(where, last, tmp_path):
    """The region closes (the runner reads the step's token as a command) whatever the launcher's last line
    lacked, so a command the next step writes is read; the launcher's text is still inside the region."""
    _launcher_ending_mid_line(tmp_path, last)
    proc, _ = _run_step(STEPS[where], tmp_path, 0, 0)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = "::error::written by the next step"
    read, skipped = runner_reads(proc.stdout + after + "\n")
    token = read[0].split("::", 2)[2]
    assert read == [f"::stop-commands::{token}", f"::{token}::", after], read
    assert last in skipped and "a whole line" in skipped, skipped
