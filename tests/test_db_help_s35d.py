"""`ci reuse --help` said its store defaults to `.sweepgate/results.db`, which reads as the current folder's,
while it opens the repository's (`sqlite:///<repo>/.sweepgate/results.db`), as every `results` command says
and does (s35d). One `--db` flag, declared once, for every command that opens the store."""
from __future__ import annotations

import re

from test_cli_leftovers_s33h import sweepgate


def _db_help(command: list[str], cwd) -> str:
    text = sweepgate([*command, "--help"], cwd).stdout
    return " ".join(re.search(r"\n  --db [A-Z]+ +(.*?)\n  --", text, re.S).group(1).split())


def test_every_command_that_opens_the_store_says_the_same_default(tmp_path):
    helps = {name: _db_help(command, tmp_path) for name, command in {
        "ingest": ["results", "ingest"], "show": ["results", "show"], "compare": ["results", "compare"],
        "reuse": ["ci", "reuse"]}.items()}
    assert "else sqlite:///<repo>/.sweepgate/results.db" in helps["reuse"], helps
    assert len(set(helps.values())) == 1, helps
