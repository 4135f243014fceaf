"""The fix of several history lines deleted at once speaks of them, not of one line (s47h's pre-commit walk:
an emptied changelog was told "history lines 1-6371 deleted, starting with '- config-keys:'; restore it byte
for byte")."""

from __future__ import annotations

from conftest import CHANGELOG
from test_gate import entry, gate, repo  # noqa: F401  (fixtures)

HINT = "byte for byte; the changelog is append-only (add a new entry at the end instead)"


def test_several_deleted_lines_are_told_to_restore_them(gate):
    first_entry = CHANGELOG.split("\n\n")[0] + "\n\n"
    result = gate(CHANGELOG.replace(first_entry, "") + "\n" + entry())
    assert result.rc == 1
    said = [s for s in result.err.splitlines() if "deleted" in s]
    assert len(said) == 1 and "history lines 1-6 deleted" in said[0], result.err
    assert said[0].endswith(f"; restore them {HINT}"), said


def test_one_deleted_line_is_told_to_restore_it(gate):
    result = gate(CHANGELOG.replace('    - "Initial Kimi-K3 agentic recipe"\n', "") + "\n" + entry())
    assert result.rc == 1
    said = [s for s in result.err.splitlines() if "deleted" in s]
    assert len(said) == 1 and "history line 12 deleted" in said[0], result.err
    assert said[0].endswith(f"; restore it {HINT}"), said
