"""`sweepgate rehearse` under NO_COLOR, or with its progress piped, writes plain text (s41d): on a terminal with
NO_COLOR set its status line was still rich's spinner, drawn with cursor-control codes (hide the cursor, move up,
erase the line) many times a second. Now NO_COLOR, like a pipe, gets one plain line per step and per command; a
terminal without it keeps the live status line. Real runs: the CLI on a pseudo-terminal (pty) and on pipes."""

from __future__ import annotations

import json

from test_terminal import ESCAPE, fleet, on_a_terminal, piped  # noqa: F401 - fleet: a fixture

from sweepgate.commands import example


def _args(fleet, work) -> list[str]:
    row = json.loads(piped(fleet, "test-config", "--config-keys", example.SEED_KEY).stdout)[0]
    return ["rehearse", "--config-keys", example.SEED_KEY, "--exp-name", row["exp-name"], "--conc", str(row["conc"]),
            "--work-dir", str(work)]


def test_no_color_on_a_terminal_gets_plain_lines_for_each_step_and_command(fleet, tmp_path):
    out = on_a_terminal(fleet, *_args(fleet, tmp_path / "w"), NO_COLOR="1")
    assert "rehearse: OK" in out and ESCAPE not in out and "\x1b" not in out, repr(out[:1500])
    lines = out.replace("\r\n", "\n").splitlines()
    for step in ("rehearse: step 1/3: ", "rehearse: step 2/3: running ", "rehearse: step 3/3: "):
        assert len([line for line in lines if line.startswith(step)]) == 1, out
    assert [line for line in lines if line.startswith("rehearse:   $ vllm serve ")], out


def test_piped_progress_is_plain_and_a_terminal_without_no_color_keeps_its_status_line(fleet, tmp_path):
    proc = piped(fleet, *_args(fleet, tmp_path / "p"))
    assert proc.returncode == 0 and "\x1b" not in proc.stdout + proc.stderr, proc.stderr
    assert "rehearse: step 2/3: running " in proc.stderr and "rehearse:   $ vllm serve " in proc.stderr, proc.stderr
    assert ESCAPE in on_a_terminal(fleet, *_args(fleet, tmp_path / "t"))
