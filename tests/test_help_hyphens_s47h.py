"""--help wraps its text only at spaces (s47h): argparse's textwrap broke words at their hyphens, so `plan
--help` at 110 columns showed `(default: perf-` / `changelog.yaml, from the root)`, at 100 `--pr-` / `number`,
`rehearse --help` at 80 `dp-` / `attn`: other words on screen, broken flags and paths when copied."""

from __future__ import annotations

import re

import pytest

from sweepgate import cli
from test_new_user import _command_parsers

SPLIT_AT_HYPHEN = re.compile(r"[A-Za-z0-9]-$")  # a line ending inside a hyphenated word


@pytest.mark.parametrize("command", sorted(cli.COMMANDS))
def test_no_help_line_ends_inside_a_hyphenated_word(command, monkeypatch):
    top = cli.build_parser([command])
    split = []
    for columns in (80, 100, 110, 130):
        monkeypatch.setenv("COLUMNS", str(columns))
        for name, parser in _command_parsers(top._subparsers._group_actions[0].choices[command], command):
            for line in parser.format_help().splitlines():
                if SPLIT_AT_HYPHEN.search(line):
                    split.append(f"{columns} {name}: {line.strip()}")
    assert not split, split


def test_a_description_keeps_an_installed_path_whole(monkeypatch):
    """The top-level description names contracts.md where sweepgate is installed: `.../site-packages/...`
    (a wheel's venv) split at `site-` at a narrow terminal."""
    import argparse

    monkeypatch.setenv("COLUMNS", "60")
    path = "/home/someone/.venvs/sweepgate/lib/python3.11/site-packages/sweepgate/docs/contracts.md"
    parser = argparse.ArgumentParser(prog="sweepgate", description=f"Input and output formats: {path} (cited as "
                                     "CONTRACTS §N).", formatter_class=cli._formatter)
    text = parser.format_help()
    assert path in text.split(), text
