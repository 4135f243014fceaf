"""s42k: a result's strings in `results show` and `results compare` print as written, on a terminal and piped:
rich markup in a config key is no style or link, and its escape sequences and control characters (an OSC 8 link,
a screen clear, a carriage return, a bell) are written as escapes (``\\x1b``), never sent to the terminal.
`results compare`'s table put a config key in a rich Text, which drops a bell and a carriage return but keeps
ESC: `a\\x1b[2Jb` cleared the reader's screen and `\\x1b]8;;http://evil\\x1b\\\\` made a link. A store's records
of such keys (s43a: ingest refuses them in a sidecar, so they come from a store filled before, or by another tool);
the CLI run on a pseudo-terminal and through a pipe."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "results"))

import synth  # noqa: E402
from sweepgate.core.errors import printable  # noqa: E402
from test_terminal import on_a_terminal, piped  # noqa: E402

MARKUP = "[bold red]x[/]-[link=http://evil]y[/link]"
CONTROLS = "a\x1b]8;;http://evil\x1b\\z\x1b]8;;\x1b\\-\x1b[2J\x1b[31mred\r\x07b"
# rich's own styles on a terminal: SGR only (ESC [ ... m); anything else that starts with ESC, a bell or a lone
# carriage return came from the data
NOT_OURS = re.compile(r"\x1b(?!\[[0-9;]*m)|\x07|\r(?!\n)")


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    """A store holding two main runs and a PR run (21) of one point of each of two config keys, MARKUP and
    CONTROLS, as records."""
    from sweepgate.results import store

    where = tmp_path_factory.mktemp("hostile")
    keys = (MARKUP, CONTROLS)
    with store.open_store(f"sqlite:///{where / 'r.db'}") as st:
        st.add(synth.history(runs=2, keys=keys, concs=(4,)) + synth.pr_run(keys=keys, concs=(4,), run="21"))
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
