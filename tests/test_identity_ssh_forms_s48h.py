"""s48h review of s48e's ssh command strings: more of the ways one writes `ssh`, each seen missing the file it runs.

s48e reads the words after ssh's options and host as the command the remote shell runs when the first is quoted. Four
spellings of the same command still left it a word of ssh's, read nowhere, and the row kept an identity that misses
the file run (and what that sources): ssh named by its path (`/usr/bin/ssh`); an option after the host, which OpenSSH
takes as one before it (`ssh node -p 22 '…'`), and `--` there, which ends the options; options bundled with a value
taking one (`-tp 22`); a command whose first word is bare and a later one quoted (`ssh node sudo 'bash …'`: ssh joins
the words with blanks, and the remote shell reads them again).
"""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity


@pytest.mark.parametrize("line", [
    "/usr/bin/ssh node 'bash /ws/shared/x.sh'\n",
    "ssh node -- 'bash /ws/shared/x.sh'\n",
    "ssh node -p 22 -t 'bash /ws/shared/x.sh'\n",
    "ssh -tp 22 node 'bash /ws/shared/x.sh'\n",
    "ssh -t node sudo 'bash /ws/shared/x.sh'\n",
    "ssh node env A=1 \"cd /ws && bash shared/x.sh\"\n",
])
def test_a_file_another_spelling_of_an_ssh_command_runs_is_part_of_the_identity(tmp_path, line):
    repo = _built(tmp_path, line, XY)
    _each_edit_changes_the_identity_or_none(repo, XY_READ)


def test_an_unquoted_ssh_command_is_read_as_before(tmp_path):
    """Guard (passes before and after): s44b's reading of a command with no quote, its words run elsewhere."""
    repo = _built(tmp_path, "ssh node -- bash /ws/shared/x.sh\n", XY)
    _each_edit_changes_the_identity_or_none(repo, XY_READ)


def test_an_ssh_command_that_runs_no_file_of_the_checkout_keeps_the_identity(tmp_path):
    """Guard: options after the host and a quoted command that names no file take nothing from the row."""
    assert _identity(_built(tmp_path, "ssh -o BatchMode=yes node -t 'nvidia-smi -L'\n", XY)) is not None


@pytest.mark.parametrize("lines", [
    "ssh node <<'EOF'\nbash /ws/shared/x.sh\nEOF\n",
    "ssh -T ci@node <<EOF\ncd /ws && bash shared/x.sh\nEOF\n",
])
def test_a_file_a_heredoc_given_to_ssh_runs_is_part_of_the_identity(tmp_path, lines):
    """The remote login shell reads ssh's standard input as its commands: a heredoc there is a script, read as one
    given to a shell is (`bash <<'EOF'`)."""
    repo = _built(tmp_path, lines, XY)
    _each_edit_changes_the_identity_or_none(repo, XY_READ)
