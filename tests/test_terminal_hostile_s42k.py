"""s42k: a result's strings in `results show` and `results compare` print as written, on a terminal and piped:
rich markup in a config key is no style or link, and its escape sequences and control characters (an OSC 8 link,
a screen clear, a carriage return, a bell) are written as escapes (``\\x1b``), never sent to the terminal.
`results compare`'s table put a config key in a rich Text, which drops a bell and a carriage return but keeps
ESC: `a\\x1b[2Jb` cleared the reader's screen and `\\x1b]8;;http://evil\\x1b\\\\` made a link. Real ingest of a
job's sidecar that states such a key; the CLI run on a pseudo-terminal and through a pipe."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "results"))

from helpers import ROW, job, vllm_output, write_job  # noqa: E402
from sweepgate.core.errors import printable  # noqa: E402
from test_terminal import on_a_terminal, piped  # noqa: E402

MARKUP = "[bold red]x[/]-[link=http://evil]y[/link]"
CONTROLS = "a\x1b]8;;http://evil\x1b\\z\x1b]8;;\x1b\\-\x1b[2J\x1b[31mred\r\x07b"
# rich's own styles on a terminal: SGR only (ESC [ ... m); anything else that starts with ESC, a bell or a lone
# carriage return came from the data
NOT_OURS = re.compile(r"\x1b(?!\[[0-9;]*m)|\x07|\r(?!\n)")


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    """A store holding two main runs and a PR run (21) of two config keys, MARKUP and CONTROLS, each
    ingested with its sidecar as the workflow writes it."""
    where = tmp_path_factory.mktemp("hostile")
    for i, key in enumerate((MARKUP, CONTROLS)):
        for run, ref, day in (("11", "refs/heads/main", 1), ("12", "refs/heads/main", 2), ("21", "refs/pull/7/merge", 5)):
            side = job(run_id=run, ref=ref, row=dict(ROW), finished=f"2026-01-0{day}T12:00:00+00:00", **{"config-key": key})
            out = vllm_output(date=f"2026010{day}-120000", output_throughput=409.6 + day + len(key))
            write_job(where / "in" / f"{i}-{run}", f"res{i}", out, side)
    proc = piped(where, "results", "ingest", "--db", f"sqlite:///{where / 'r.db'}", str(where / "in"))
    assert proc.returncode == 0, proc.stderr
    return where


COMMANDS = [["results", "show"], ["results", "compare", "--run", "21"], ["results", "compare", "--run", "21", "--all"]]


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_result_s_markup_and_control_characters_print_as_written_when_piped(stored, argv):
    proc = piped(stored, *argv, "--db", f"sqlite:///{stored / 'r.db'}", COLUMNS="400")
    assert proc.returncode == 0, proc.stderr
    for text in (proc.stdout, proc.stderr):
        assert "\x1b" not in text and "\x07" not in text and "\r" not in text, repr(text)
    assert MARKUP in proc.stdout and printable(CONTROLS) in proc.stdout, proc.stdout


@pytest.mark.parametrize("columns", [400, 90, 50])  # one row a verdict; a block a point; `header value` pairs
@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_result_s_markup_and_control_characters_print_as_written_on_a_terminal(stored, argv, columns):
    out = on_a_terminal(stored, *argv, "--db", f"sqlite:///{stored / 'r.db'}", columns=columns)
    assert not NOT_OURS.search(out), repr(out)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    if columns == 400:  # narrower, a long key is folded over lines
        assert MARKUP in plain and printable(CONTROLS) in plain, repr(plain)
    assert "http://evil" in plain and "[link=" in plain, repr(plain)


def test_the_json_keeps_the_key_as_stored(stored):
    """What is escaped is the terminal's text: `--json` gives the key as the sidecar stated it."""
    proc = piped(stored, "results", "show", "--json", "--db", f"sqlite:///{stored / 'r.db'}")
    assert proc.returncode == 0, proc.stderr
    assert {r["config-key"] for r in json.loads(proc.stdout)} == {MARKUP, CONTROLS}
