"""What a benchmark prints on the GPU runner is never read as a workflow command (s42a).

The Benchmark step ran the launcher with its output going straight to the Actions runner, which reads
`::add-mask::`, `::set-output`, `::stop-commands::`, `::error` ... in every line a step prints. The scripts
it runs are a PR's, and an engine echoes PR-chosen values (a config key, a model name, an argument), so a
script's line became a command of the job. sweepgate's own output goes through ``core.runnerlog``, the
launcher's did not. Now the step brackets the launcher between ``::stop-commands::TOKEN`` and ``::TOKEN::``
(GitHub's documented way to stop command processing), with a token it draws at run time.

``runner_reads`` reads a step's output as the runner does, written from the runner's documented rules
(``test_workflow_commands.runner_command`` for one line; a stop-commands region ends only at a command
named by its token), not from the step's code. The step's run block is taken from each workflow file and
run with real bash as the runner runs it (`bash --noprofile --norc -eo pipefail FILE`).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from test_workflow_commands import HOSTILE, runner_command
from test_workflows import NAMES, load, steps

# The lines a PR's benchmark script (or the engine it runs, echoing PR text) prints to become commands,
# and a region of its own that it opens and closes, to end the step's region early.
PRINTED = ["::add-mask::x", "::set-output name=a::b", "::error::x", "::stop-commands::mine", "::mine::",
           "::warning file=a.py::fake", *HOSTILE]
# A run block's command that starts a benchmark launcher or script (every file of benchmarks/ that runs one).
RUNS_A_BENCHMARK = re.compile(r"benchmarks/(?:runners/launch_|single_node/|multi_node/)")
FAKE_RUNNER = "fake-gpu"


def benchmark_steps() -> list[tuple[str, str, dict]]:
    """(workflow, job, step) of every step of every workflow whose run block starts a benchmark."""
    found = []
    for name in NAMES:
        for job, step in steps(load(name)):
            code = "\n".join(line for line in step.get("run", "").splitlines() if not line.strip().startswith("#"))
            if RUNS_A_BENCHMARK.search(code):
                found.append((name, job, step))
    return found


STEPS = {f"{name}:{job}:{step['name']}": step for name, job, step in benchmark_steps()}


def runner_reads(output: str) -> tuple[list[str], list[str]]:
    """(lines the runner takes as commands, lines it skips inside stop-commands regions) of a step's output:
    ``::stop-commands::TOKEN`` stops all command processing until a command named TOKEN."""
    read, skipped, token = [], [], None
    for line in re.split(r"\r\n|\r|\n", output):
        command = runner_command(line)
        if token is not None:
            if command is not None and command.lower() == token.lower():
                token = None
                read.append(line)
            else:
                skipped.append(line)
            continue
        if command is not None:
            read.append(line)
            if command == "stop-commands":
                token = line.split("::", 2)[2]
    return read, skipped


def _launcher(temp: Path, seen: Path) -> None:
    """main's export in runner.temp with a launcher for FAKE_RUNNER that prints PRINTED on stdout and stderr,
    records what it could learn of the step's shell (its environment, its parent's command line and
    environment, the step's script file), and exits with $FAKE_RC."""
    runners = temp / "sweepgate-main" / "benchmarks" / "runners"
    runners.mkdir(parents=True)
    body = "".join(f"printf '%s\\n' {shlex.quote(line)}\nprintf '%s\\n' {shlex.quote(line)} >&2\n" for line in PRINTED)
    (runners / f"launch_{FAKE_RUNNER}.sh").write_text(
        "#!/usr/bin/env bash\n" + body
        + f'{{ env; tr "\\0" "\\n" </proc/$PPID/cmdline; tr "\\0" "\\n" </proc/$PPID/environ; '
          f'cat "$RUNNER_TEMP"/step-*.sh; }} >{shlex.quote(str(seen))} 2>&1\n'
        + 'exit "${FAKE_RC}"\n')


def _run_step(step: dict, tmp_path: Path, rc: int, attempt: int) -> tuple[subprocess.CompletedProcess, str]:
    """The step's run block, written to a file in runner.temp and run as the runner runs it; and what the
    launcher it started could see."""
    temp = tmp_path / "runner temp"
    if not temp.exists():
        temp.mkdir()
        (tmp_path / "work").mkdir()
    seen = tmp_path / f"seen{attempt}"
    if not (temp / "sweepgate-main").exists():
        _launcher(temp, tmp_path / "seen")
    script = temp / "step-1.sh"
    script.write_text(step["run"])
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "RUNNER_TEMP": str(temp), "RUNNER_NAME": f"{FAKE_RUNNER}_00",
           "GITHUB_ACTIONS": "true", "HF_TOKEN": "hf_x", "SWEEPGATE_SLURM_TIME": "30", "FAKE_RC": str(rc)}
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=tmp_path / "work",
                          env=env, capture_output=True, text=True)
    (tmp_path / "seen").rename(seen)
    return proc, seen.read_text()


def test_every_workflow_that_runs_a_benchmark_is_found():
    """The steps the tests below hold are the two templates' Benchmark steps (none is missed by the finder)."""
    assert sorted(STEPS) == ["benchmark-multinode-tmpl.yml:benchmark:Benchmark", "benchmark-tmpl.yml:benchmark:Benchmark"]


@pytest.mark.parametrize("where", sorted(STEPS))
def test_a_benchmark_s_output_is_read_as_no_command_under_a_token_drawn_each_run(where, tmp_path):
    """The launcher's lines (stdout and stderr: `::add-mask::x`, `::set-output name=a::b`, `::error::x`, a
    stop-commands region of its own, the hidden forms) all fall inside the step's stop-commands region, which
    ends after them; its exit status is the step's, a failure too. The token differs between two runs of the
    same step with the same inputs, is 128 random bits, and the launcher could not learn it (not in its
    environment, its parent's command line or environment, nor the step's script file)."""
    step = STEPS[where]
    tokens = []
    for attempt, rc in enumerate((3, 0)):
        proc, seen = _run_step(step, tmp_path, rc, attempt)
        assert proc.returncode == rc, proc.stdout + proc.stderr
        assert proc.stderr == "", proc.stderr  # the launcher's stderr joined stdout, in order
        read, skipped = runner_reads(proc.stdout)
        assert len(read) == 2, read  # the step's own stop-commands and the line that ends it, nothing else
        token = read[0].split("::", 2)[2]
        assert read == [f"::stop-commands::{token}", f"::{token}::"], read
        assert re.fullmatch(r"[0-9a-f]{32}", token), token
        for line in PRINTED:
            assert skipped.count(line) == 2, (line, skipped)  # once from stdout, once from stderr
        assert proc.stdout.rstrip("\n").endswith(f"::{token}::")  # nothing after the region
        assert token not in seen, "the launcher could read the token"
        assert token not in step["run"] and token not in where
        tokens.append(token)
    assert tokens[0] != tokens[1], tokens


STOP = re.compile(r'^echo "::stop-commands::\$\{(\w+)\}"$')


@pytest.mark.parametrize("where", sorted(STEPS))
def test_the_step_that_runs_a_benchmark_brackets_it_in_a_stop_commands_region(where):
    """Read from the workflow file: the token is drawn from /dev/urandom in the run block (no `${{ }}`, so
    nothing the runner writes into the step's script file names it) and never exported; the region opens
    before the one command that starts the benchmark, which joins stderr to stdout and cannot end the step
    (`|| rc=$?`), and closes after it, the step then exiting with the benchmark's status."""
    run = STEPS[where]["run"]
    assert "${{" not in run, run
    lines = [line.strip() for line in run.splitlines() if line.strip() and not line.strip().startswith("#")]
    (opened,) = [i for i, line in enumerate(lines) if STOP.match(line)]
    token = STOP.match(lines[opened])[1]
    assert re.fullmatch(rf'{token}="\$\(od -An -N16 -tx1 /dev/urandom\)"', lines[0]), lines[0]
    assert not any(re.search(rf"\b(?:export|declare -x)\b.*\b{token}\b", line) for line in lines), lines
    (started,) = [i for i, line in enumerate(lines) if RUNS_A_BENCHMARK.search(line)]
    assert opened < started and lines[started].endswith(" 2>&1 || rc=$?"), lines
    # s44g: after a line break, so a launcher's unended last line cannot hold the closing command
    assert lines[started - 1] == "rc=0" and lines[started + 1:] == [f'printf \'\\n::%s::\\n\' "${{{token}}}"',
                                                                   'exit "${rc}"'], lines
