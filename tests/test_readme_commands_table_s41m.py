"""README's *Commands* table is read in one screen (s41m): one row per command, its synopsis and one short clause
with a link to the details. Its cells had grown to 400-1,500 characters (rehearse's and preflight's whole
behaviour), so a new user could not scan it; those facts live in docs/contracts.md now. Each synopsis names the
command's own flags, as its parser (its `--help`) spells them, and every command and action has a row.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from sweepgate import cli

ROOT = Path(__file__).resolve().parents[1]
LONGEST_CLAUSE = 200  # characters of a row's "what it does", its links read as their text


def _rows() -> list[tuple[str, str]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Commands", 1)[1].split("\n\n", 2)[1]
    lines = table.splitlines()
    assert lines[0] == "| command | what it does |", lines[0]
    rows = []
    for line in lines[2:]:
        cells = re.split(r"(?<!\\) \| ", line.strip().strip("|").strip())
        assert len(cells) == 2, line
        rows.append((cells[0].replace("\\|", "|"), cells[1]))
    return rows


def _parser(path: list[str]) -> argparse.ArgumentParser:
    parser = cli.build_parser([path[0]]) if path else cli.build_parser([])
    for word in path:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[word]
    return parser


def _actions(parser: argparse.ArgumentParser) -> list[str]:
    return [name for a in parser._actions if isinstance(a, argparse._SubParsersAction) for name in a.choices]


def _synopses(cell: str) -> list[tuple[list[list[str]], list[str]]]:
    """(command paths, flags) of each `sweepgate ...` synopsis in a row's first cell."""
    found = []
    for code in re.findall(r"`(sweepgate[^`]*)`", cell):
        words = code.split()[1:]
        path: list[list[str]] = []
        for word in words:
            if word.startswith(("-", "[")) or not re.fullmatch(r"[a-z][a-z|-]*", word):
                break
            path.append(word.split("|"))
        paths = [[]]
        for choices in path:
            paths = [[*p, c] for p in paths for c in choices]
        found.append((paths, re.findall(r"(?<![\w-])--[a-z][a-z-]*", code)))
    return found


def test_each_row_is_one_short_clause_with_a_link():
    rows = _rows()
    long = {command: n for command, said in rows
            if (n := len(re.sub(r"\[([^]]*)\]\([^)]*\)", r"\1", said))) > LONGEST_CLAUSE}
    assert not long, f"characters past one short clause; move the details to their section: {long}"
    unlinked = [command for command, said in rows if "](" not in said]
    assert not unlinked, f"no link to where the details are: {unlinked}"


def test_each_synopsis_names_the_command_s_own_flags():
    checked = 0
    for command, _ in _rows():
        for paths, flags in _synopses(command):
            for path in paths:
                known = {s for a in _parser(path)._actions for s in a.option_strings}
                unknown = [f for f in flags if f not in known]
                assert not unknown, f"sweepgate {' '.join(path)}: {unknown} not in its --help ({command})"
                checked += 1
    assert checked >= 20, checked


def test_every_command_and_action_has_a_row():
    named = {" ".join(p) for command, _ in _rows() for paths, _ in _synopses(command) for p in paths}
    wanted = set()
    for name in cli.COMMANDS:
        actions = _actions(_parser([name]))
        wanted |= {f"{name} {a}" for a in actions} if actions else {name}
    assert not wanted - named, sorted(wanted - named)


def _block_flags() -> dict[str, set[str]]:
    """The flags the README's code blocks pass to each command (`sweepgate results ingest --row ...`), by command."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    used: dict[str, set[str]] = {}
    for block in re.findall(r"(?m)^ *```[a-z]*\n(.*?)\n *```$", readme, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for call in re.findall(r"\bsweepgate ((?:[a-z][a-z-]* ){1,2})((?:[^;|&#]*))", line):
                words = call[0].split()
                path = " ".join(words[:2] if words[0] in ("results", "ci", "changelog", "engines") else words[:1])
                used.setdefault(path, set()).update(re.findall(r"(?<![\w-])--[a-z][a-z-]*", call[1]))
    return used


def test_each_flag_the_readme_s_blocks_use_is_in_the_command_s_synopsis():
    """s50g: the README's by-hand blocks pass `results ingest --config-key KEY` to every output (main's and the PR's
    runs need the same), but the Commands table's synopsis of `results ingest` did not name it, so a reader who
    went by the table left it out and the PR's points matched main's by model alone."""
    synopsis = {" ".join(p): set(flags) for command, _ in _rows() for paths, flags in _synopses(command)
                for p in paths}
    used = _block_flags()
    ingest = used.get("results ingest", set())
    assert {"--row", "--run-id", "--ref", "--config-key"} <= ingest, used
    missing = sorted(ingest - synopsis["results ingest"])
    assert not missing, f"flags the README's blocks pass to results ingest that its synopsis leaves out: {missing}"
