"""s48e: the command `ssh` gives another host, quoted (`ssh node 'bash /ws/shared/x.sh'`), was read nowhere.

`ssh node bash /ws/shared/x.sh` was read (s44b: its words run elsewhere, the absolute path a written end), but the same
command in quotes, as one mostly writes it (`ssh node 'cd /ws && bash shared/x.sh'`, `ssh -p 22 u@node "…"`), was one
word of ssh's: the file it runs, and what that sources, were in no identity, and the row kept one; an `eval` of code
only the run knows there left it too. The words after ssh's options and host are now read as a command string run in
a folder only the run knows (the remote login shell's home: a relative path there is a written end).
"""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity


@pytest.mark.parametrize("line", [
    "ssh node 'bash /ws/shared/x.sh'\n",
    'ssh -p 22 -i "$KEY" -o BatchMode=yes ci@node "bash /ws/shared/x.sh"\n',
    "ssh node 'cd /ws/shared && bash x.sh'\n",
])
def test_a_file_an_ssh_command_string_runs_is_part_of_the_identity(tmp_path, line):
    repo = _built(tmp_path, line, XY)
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, XY_READ)


def test_an_eval_of_code_only_the_run_knows_in_an_ssh_string_leaves_no_identity(tmp_path):
    repo = _built(tmp_path, "ssh node 'F=shared/x.sh; eval \"$DETECT\"; bash \"$F\"'\n", XY)
    assert _identity(repo) is None
