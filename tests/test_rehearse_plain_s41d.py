"""`sweepgate rehearse` under NO_COLOR, or with its progress piped, writes plain text (s41d): on a terminal with
NO_COLOR set its status line was still rich's spinner, drawn with cursor-control codes (hide the cursor, move up,
erase the line) many times a second. Now NO_COLOR, like a pipe, gets one plain line per step and per command; a
terminal without it keeps the live status line. Real runs: the CLI on a pseudo-terminal (pty) and on pipes."""

from __future__ import annotations

import json
import re

import pytest
from test_terminal import ESCAPE, on_a_terminal, piped

from sweepgate.commands import example


def _args(example_fleet, work) -> list[str]:
    row = json.loads(piped(example_fleet, "test-config", "--config-keys", example.SEED_KEY).stdout)[0]
    return ["rehearse", "--config-keys", example.SEED_KEY, "--exp-name", row["exp-name"], "--conc", str(row["conc"]),
            "--work-dir", str(work)]


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_no_color_on_a_terminal_gets_plain_lines_for_each_step_and_command(example_fleet, tmp_path, env):
    """A terminal that cannot move its cursor (TERM=dumb: an editor's shell buffer) got no progress at all: rich
    draws no status there, and kept it to an empty line. It gets the plain lines too."""
    out = on_a_terminal(example_fleet, *_args(example_fleet, tmp_path / "w"), **env)
    assert "rehearse: OK" in out and ESCAPE not in out and "\x1b" not in out, repr(out[:1500])
    lines = out.replace("\r\n", "\n").splitlines()
    for step in ("rehearse: step 1/3: ", "rehearse: step 2/3: running ", "rehearse: step 3/3: "):
        assert len([line for line in lines if line.startswith(step)]) == 1, out
    assert [line for line in lines if line.startswith("rehearse:   $ vllm serve ")], out


def test_piped_progress_is_plain_and_a_terminal_without_no_color_keeps_its_status_line(example_fleet, tmp_path):
    proc = piped(example_fleet, *_args(example_fleet, tmp_path / "p"))
    assert proc.returncode == 0 and "\x1b" not in proc.stdout + proc.stderr, proc.stderr
    assert "rehearse: step 2/3: running " in proc.stderr and "rehearse:   $ vllm serve " in proc.stderr, proc.stderr
    assert ESCAPE in on_a_terminal(example_fleet, *_args(example_fleet, tmp_path / "t"))


def test_the_status_line_is_one_line_of_the_terminal_and_takes_brackets_as_text(tmp_path):
    """On a terminal the status line was the step's whole text and the command cut at 160 characters, wrapped
    over up to four lines of an 80-column terminal and redrawn so; and it was read as rich markup: a command
    holding `[/INST]` (a chat template's stop word) stopped the rehearsal with "internal error: MarkupError".
    It is now one line, the step's number and the command cut to the terminal's width, and its text is text."""
    from test_rehearse import FSL_ROWS, _bench_with_script, write_rows

    repo, _ = _bench_with_script(tmp_path, 'hf download "mistral/[/INST]" --revision "[bold]main"\nsleep 1\n'
                                 f'hf download {"deepseek-ai/DeepSeek-R1-0528 " * 6}\nsleep 1\n')
    out = on_a_terminal(repo, "rehearse", "--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir",
                        str(tmp_path / "w"), columns=80, returncode=1)
    assert "internal error" not in out and "rehearse: FAILED" in out, out  # it wrote no result: a plain failure
    assert out.count("\x1b[1A") == 1, repr(out)  # a line up only as it is put away: the status is one line
    assert "rehearse: step 2/3: $ hf download 'mistral/[/INST]' --revision '[bold]main'" in out, repr(out)


def test_a_command_s_control_characters_are_written_as_escapes_in_a_plain_line():
    """A command's argument holding a newline or an escape code (a multi-line JSON, a coloured prompt) went
    to the log as it was: a line of its own, or a recoloured terminal. It is one line, its controls as escapes."""
    import io

    from sweepgate.rehearsal.progress import Progress

    out = io.StringIO()
    with Progress(out) as progress:
        progress.command({"tool": "vllm", "argv": ["serve", "m", "--extra", '{"a":\n 1}', "\x1b[31mred"]})
    assert out.getvalue().count("\n") == 1 and "\x1b" not in out.getvalue(), repr(out.getvalue())
    assert "\\n" in out.getvalue(), repr(out.getvalue())


def test_preflight_shows_the_row_and_command_it_runs_on_a_terminal_only(example_fleet, tmp_path):
    """preflight said a row only once it was done: a multi-node row's ~25 s went by with nothing on the screen.
    On a terminal a status line says the row being rehearsed and its command; piped or under NO_COLOR nothing
    is added (each row's line is the log's)."""
    key = "dsr1-fp8-b300-vllm"
    row = "preflight: dsr1_1k1k cluster:b300-nv tp8 conc 4"
    tty = on_a_terminal(example_fleet, "preflight", "--config-keys", key)
    # a command of the row in its status line (which one a refresh of the live line catches depends on the
    # machine's speed: a fast `vllm serve` may be replaced by the client's command before it is drawn)
    assert f"{row} (1/" in tty and re.search(rf"{re.escape(row)} \(1/5\): \$ (vllm|python3?) ", tty), repr(tty[:3000])
    # its key's line once its rows are done (s51b)
    done = f"preflight: {key}: 5 rows (dsr1_1k1k, dsr1_8k1k on cluster:b300-nv, tp 4–8, conc 4–32, 2 eval): "
    assert done in tty, tty
    plain = on_a_terminal(example_fleet, "preflight", "--config-keys", key, NO_COLOR="1")
    assert "\x1b" not in plain and "$ " not in plain and done in plain, plain
    proc = piped(example_fleet, "preflight", "--config-keys", key)
    assert proc.returncode == 0 and "$ " not in proc.stdout + proc.stderr and "\x1b" not in proc.stderr, proc.stderr
