"""Issue 11 item 10: what a user sees at a terminal.

Tables (example, plan, results show) are rich tables built on one console
(core.report.console): styled on a terminal, plain when piped, no colour under
NO_COLOR. The terminal runs are real: the CLI runs on a pseudo-terminal (pty).
"""

from __future__ import annotations

import atexit
import io
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.commands import example  # noqa: E402
from sweepgate.core import report  # noqa: E402

ESCAPE = "\x1b["
COLOUR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|9[0-7]|4[0-9])(?:;[0-9;]*)?m")
REFS = ["--base-ref", "HEAD~1", "--head-ref", "HEAD"]


# `sweepgate example` keeps its charts folder for the user; here it goes under pytest's folder, not /tmp.
SCRATCH = tempfile.mkdtemp(prefix="sweepgate-test-terminal-")
atexit.register(shutil.rmtree, SCRATCH, True)


def _env(**extra: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "TERM": "xterm-256color", "COLUMNS": "250",
           "SWEEPGATE_REHEARSE_DURATION": "2", "TMPDIR": SCRATCH, **extra}
    for name in ("GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR"):
        if name not in extra:
            env.pop(name, None)
    return env


def piped(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=_env(**env),
                          capture_output=True, text=True, timeout=180)


def on_a_terminal(cwd: Path, *args: str, columns: int | None = None, returncode: int = 0, **env: str) -> str:
    """stdout and stderr of the CLI run on a pseudo-terminal, which exits ``returncode``; ``columns``: the
    terminal's width, and no $COLUMNS."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    run_env = _env(**env)
    if columns is not None:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        run_env.pop("COLUMNS")
    proc = subprocess.Popen([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=run_env,
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    try:
        while select.select([master], [], [], 120)[0]:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            out += data
    finally:
        os.close(master)
        assert proc.wait(timeout=60) == returncode, out.decode(errors="replace")[-2000:]
    return out.decode(errors="replace")


@pytest.mark.parametrize("args", [["plan", *REFS], ["example"]])
def test_tables_are_coloured_on_a_terminal_and_plain_when_piped_or_no_color(example_fleet, args, request):
    # the example piped is conftest's one run (TERM a colour terminal's, as here), which test_example reads too
    pipe = request.getfixturevalue("piped_example")[0] if args == ["example"] else piped(example_fleet, *args)
    assert pipe.returncode == 0, pipe.stderr
    assert ESCAPE not in pipe.stdout and ESCAPE not in pipe.stderr
    assert re.search(r"exp-name\s+runner\s+tp", pipe.stdout), pipe.stdout
    tty = on_a_terminal(example_fleet, *args)
    assert COLOUR.search(tty), tty[:1500]
    assert re.search(r"exp-name.*runner", tty)
    no_color = on_a_terminal(example_fleet, *args, NO_COLOR="1")
    assert not COLOUR.search(no_color), no_color[:1500]
    assert re.search(r"exp-name.*runner", no_color)


def test_plan_text_mode_prints_a_table_of_the_rows(example_fleet):
    proc = piped(example_fleet, "plan", *REFS)
    assert proc.returncode == 0, proc.stderr
    assert "7 matrix rows" in proc.stdout
    rows = [line for line in proc.stdout.splitlines() if "kimik3_tp8_conc" in line]
    assert len(rows) == 5 and all("cluster:b300-nv" in r and "lmcache@0.5.4rc2" in r for r in rows), rows


def test_the_console_helper_is_the_one_place():
    """No module builds a rich Console but core.report.console."""
    builders = [p.relative_to(ROOT) for p in (ROOT / "utils" / "sweepgate").rglob("*.py")
                if "Console(" in p.read_text() and p.name != "report.py"]
    assert builders == []


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("stream,no_color,coloured", [(_Tty(), "", True), (_Tty(), "1", False),
                                                       (io.StringIO(), "", False)])
def test_console_styles_only_terminals_and_honours_no_color(monkeypatch, stream, no_color, coloured):
    monkeypatch.setenv("NO_COLOR", no_color) if no_color else monkeypatch.delenv("NO_COLOR", raising=False)
    report.print_table(stream, ["a", "b"], [["1", "2"]], title="t")
    assert bool(COLOUR.search(stream.getvalue())) is coloured, repr(stream.getvalue())


def test_rehearse_reports_its_steps_and_commands_on_stderr_only(example_fleet, tmp_path):
    seed = example.SEED_KEY
    rows = piped(example_fleet, "test-config", "--config-keys", seed)
    import json

    row = json.loads(rows.stdout)[0]
    proc = piped(example_fleet, "rehearse", "--config-keys", seed, "--exp-name", row["exp-name"], "--conc",
                 str(row["conc"]), "--work-dir", str(tmp_path / "w"))
    assert proc.returncode == 0, proc.stderr
    for needle in ("step 1/3", "step 2/3: running benchmarks/single_node/agentic/", "step 3/3",
                   "$ lmcache server", "$ vllm serve", "$ aiperf profile"):
        assert needle in proc.stderr, proc.stderr
    assert "$ " not in proc.stdout and "step " not in proc.stdout and ESCAPE not in proc.stderr
    tty = on_a_terminal(example_fleet, "rehearse", "--config-keys", seed, "--exp-name", row["exp-name"], "--conc",
                        str(row["conc"]), "--work-dir", str(tmp_path / "t"))
    assert "rehearse: OK" in tty and ESCAPE in tty  # the live status line


def test_a_piped_table_wider_than_the_pipe_width_is_printed_whole(monkeypatch):
    """Piped with no COLUMNS, a matrix wider than 240 columns had its cells cut to `…`."""
    import io

    from sweepgate.core import report

    monkeypatch.delenv("COLUMNS", raising=False)
    out = io.StringIO()
    report.print_table(out, ["config", "image"], [["k" * 200, "lmsysorg/sglang:" + "v" * 90]])
    text = out.getvalue()
    assert "…" not in text and "k" * 200 in text and "v" * 90 in text
    monkeypatch.setenv("COLUMNS", "120")
    out = io.StringIO()
    report.print_table(out, ["config", "image"], [["k" * 200, "lmsysorg/sglang:" + "v" * 90]])
    assert max(map(len, out.getvalue().splitlines())) <= 120  # a width asked for is kept


def test_a_table_too_wide_for_the_terminal_becomes_one_block_a_row(monkeypatch):
    """Review: at 120 columns `sweepgate example` dropped the ep column and cut conc to `256…`;
    at 80, `plan` kept only bucket, exp-name, runner and `p…`."""
    import io

    from sweepgate.core import report

    monkeypatch.setenv("COLUMNS", "80")
    rows = [["single_node/agentic", f"kimik3_tp8_conc{c}_kvdram-lmcache_spec-mtp", "cluster:b300-nv", "8", "1",
             str(c), "dram", "lmcache@0.5.4rc2", "1889", "mtp"] for c in (4, 256)]
    header = ["bucket", "exp-name", "runner", "tp", "ep", "conc", "kv", "backend", "dram-gb", "spec"]
    out = io.StringIO()
    report.print_table(out, header, rows, title="2 matrix rows")
    text = out.getvalue()
    assert "…" not in text and all(len(line) <= 80 for line in text.splitlines()), text
    assert text.count("\n- bucket ") == 2 and "conc 256" in text and "ep 1" in text and "spec mtp" in text


def test_a_piped_rehearsal_logs_each_command_whole():
    """Review: piped (a CI log), rehearse's progress cut long commands with `…`."""
    import io

    from sweepgate.rehearsal.progress import Progress

    out = io.StringIO()
    argv = ["serve", "moonshotai/Kimi-K3", *(f"--flag-{i}=value-{i}" for i in range(40))]
    with Progress(out) as progress:
        progress.command({"tool": "vllm", "argv": argv})
    line = out.getvalue().strip()
    assert len(line) > 400 and "…" not in line and line.endswith("--flag-39=value-39"), line


@pytest.mark.parametrize("where", ["flags", "command"])
def test_ctrl_c_turned_into_another_error_by_python_is_still_an_interrupt(where, monkeypatch, capsys):
    """Ctrl-C while a module made a class reached `__set_name__`, which Python re-raises as a
    RuntimeError caused by the KeyboardInterrupt: it escaped with a traceback (exit 1) while the
    flags were read, and was called an internal error inside a command (found sending SIGINT to
    `results ingest` at 2 ms steps)."""
    from sweepgate import cli

    def wrapped():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling __set_name__ on 'cached_property' instance") from exc

    if where == "flags":
        monkeypatch.setattr(cli, "build_parser", lambda *a, **k: wrapped())
    else:
        monkeypatch.setattr(cli, "_run", lambda args: wrapped())
    assert cli.main(["matrix", "--base-ref", "a", "--head-ref", "b"]) == 130
    err = capsys.readouterr().err
    assert err.strip().endswith(": interrupted") and "internal error" not in err, err


def test_the_console_script_target_imports_nothing_before_main_guards_ctrl_c():
    """A Ctrl-C in the first ~25 ms printed a traceback: `from sweepgate.cli import main` (what the
    console script and the three entry points run before main()) imported argparse and importlib,
    outside main()'s guard. Only sys may be loaded by that import now; the rest loads inside it."""
    import subprocess
    import sys

    code = ("import sys; before = set(sys.modules); import sweepgate.cli; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert set(out) <= {"sweepgate", "sweepgate.cli", "__future__"}, out


def test_help_fits_the_terminal_it_is_printed_on(tmp_path):
    """New user (newuser24): help and usage were wrapped at $COLUMNS or else 100, never the terminal's
    own width, so `sweepgate results compare --help` ran past an 80-column terminal's edge."""
    out = on_a_terminal(tmp_path, "results", "compare", "--help", columns=80)

    def below_usage(text: str) -> list[str]:  # argparse keeps a usage group (`[--a | --b PATH ...]`) on one line
        return text.replace("\r\n", "\n").split("\n\n", 1)[1].splitlines()

    lines = below_usage(out)
    assert len(lines) > 20 and max(map(len, lines)) <= 80, max(lines, key=len)
    assert max(map(len, below_usage(piped(tmp_path, "results", "compare", "--help", COLUMNS="60").stdout))) <= 60
