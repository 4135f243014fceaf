"""A benchmark whose last line has no line break cannot keep the job's commands stopped (s44g).

The Benchmark step closes its stop-commands region with ``echo "::TOKEN::"``. The runner reads a step's
output line by line, so when the launcher's last output had no line break (a script ending in
``printf 'done'``, an engine killed mid-line) the closing command landed on the end of that line,
``done::TOKEN::``: no command to the runner, so the region never closed. The runner keeps that state for
the rest of the job (one ``ActionCommandManager`` per job), so every later step's commands, the job
sidecar's ``::error`` annotations among them, were read as plain text. The step now ends the line first.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess

import pytest

from test_benchmark_step_commands_s42a import FAKE_RUNNER, STEPS, _run_step, runner_reads
from test_workflows import load

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


# What a step after the job's last annotation prints that the benchmark chose: a submodule path its container
# planted in a checkout, as actions/checkout's post step prints it (`git submodule foreach` says `Entering
# '<path>'`), and a file name under logs/ with a line break in it.
PLANTED = ["Entering 'x ##[error]planted'", "Entering 'a", "::add-mask::main'", "logs/b##[stop-commands]t.log"]
LAST_WORDS = "Read no workflow command for the rest of the job"


@pytest.mark.parametrize("name", sorted({where.split(":")[0] for where in STEPS}))
def test_what_the_job_prints_after_its_sidecar_is_read_as_no_command(name, tmp_path):
    """After the job sidecar (the last step whose annotations are sweepgate's) a step opens a stop-commands
    region, whatever became of the steps before it (`always()`), and before the uploads; its token is drawn at
    run time, 128 random bits, and differs between runs. Run as the runner runs it, with the planted names
    printed after it (the uploads and the post steps), the runner reads its one command and none of theirs."""
    job = load(name)["jobs"]["benchmark"]
    names = [s.get("name", "") for s in job["steps"]]
    assert LAST_WORDS in names, names
    step = job["steps"][names.index(LAST_WORDS)]
    assert names.index("Job sidecar") < names.index(LAST_WORDS) < names.index("Upload result"), names
    assert step.get("if") == "always()" and "${{" not in step["run"], step
    tokens = set()
    for attempt in range(2):
        script = tmp_path / f"step-{attempt}.sh"
        script.write_text(step["run"])
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=tmp_path,
                              env={"PATH": os.environ["PATH"]}, capture_output=True, text=True)
        assert proc.returncode == 0 and proc.stderr == "", proc.stdout + proc.stderr
        read, skipped = runner_reads(proc.stdout + "\n".join(PLANTED) + "\n")
        assert len(read) == 1 and read[0].startswith("::stop-commands::"), read
        token = read[0].split("::", 2)[2]
        assert re.fullmatch(r"[0-9a-f]{32}", token), token
        assert all(line in skipped for line in PLANTED), skipped
        tokens.add(token)
    assert len(tokens) == 2, tokens
    # nothing in the steps after it ends the region (none prints a command at all)
    assert not any("::" in s.get("run", "") for s in job["steps"][names.index(LAST_WORDS) + 1:])
