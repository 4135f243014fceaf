"""s48i: a file run or sourced by a path under the home folder (`~/…`, `$HOME/…`, `${HOME}/…`) was taken for one
outside the checkout, read nowhere, and the row kept an identity that misses it: a runner's checkout often lies under
the home folder (`~/actions-runner/_work/repo/repo`), so `bash ~/ws/shared/x.sh` may run the checkout's shared/x.sh
and what it sources. Such a path is now a written end, as an absolute path is: every tracked file it ends in, or that
ends in it (reading one the run does not costs a reuse at most)."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity


@pytest.mark.parametrize("line", [
    "bash ~/ws/shared/x.sh\n",
    "bash $HOME/ws/shared/x.sh\n",
    'bash "${HOME}/ws/shared/x.sh"\n',
    "source ~/ws/shared/x.sh\n",
    '. "$HOME"/ws/shared/x.sh\n',
    "for f in ~/ws/shared/x*.sh; do bash \"$f\"; done\n",
    'docker run -v ~/ws:/ws img bash /ws/shared/x.sh\n',
])
def test_a_file_run_from_the_home_folder_is_part_of_the_identity(tmp_path, line):
    repo = _built(tmp_path, line, XY)
    _each_edit_changes_the_identity_or_none(repo, XY_READ)


def test_a_home_file_no_tracked_file_ends_in_keeps_the_identity(tmp_path):
    """Guard: `source ~/.bashrc`, `bash $HOME/bin/setup.sh` name no tracked file: the row keeps its identity."""
    repo = _built(tmp_path, "source ~/.bashrc\nbash \"$HOME/bin/setup.sh\"\n", XY)
    first = _identity(repo)
    assert first is not None
    repo.write("shared/x.sh", repo.read("shared/x.sh") + b"\n# changed\n")
    assert _identity(repo) == first
