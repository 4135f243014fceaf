"""s48i: a file copied to another host and run there. `scp x.sh node:/tmp && ssh node 'bash /tmp/x.sh'` (and
`ssh node 'cat > /tmp/x.sh' < x.sh`, or the file given to ssh's standard input, which the remote login shell runs)
left what x.sh sources out of the identity: scp was no copy command, and a file fed to ssh was read as data alone, so
the row kept an identity an edit to shared/y.sh did not change. A file scp copies is now read as a copy that may run
(as `cp`'s, from a working folder only the run knows), and one fed to an ssh command as a script run there."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity


@pytest.mark.parametrize("line", [
    "scp shared/x.sh node:/tmp && ssh node 'bash /tmp/x.sh'\n",
    "scp -P 2222 -o BatchMode=yes shared/x.sh ci@node:/tmp/x.sh\nssh node bash /tmp/x.sh\n",
    "rsync -a shared/x.sh node:/tmp/ && ssh node 'bash /tmp/x.sh'\n",
    "ssh node 'cat > /tmp/x.sh' < shared/x.sh\nssh node 'bash /tmp/x.sh'\n",
    "ssh node < shared/x.sh\n",
    "ssh -T node 'bash -s' < shared/x.sh\n",
])
def test_a_file_copied_to_another_host_and_run_there_is_part_of_the_identity(tmp_path, line):
    repo = _built(tmp_path, line, XY)
    _each_edit_changes_the_identity_or_none(repo, XY_READ)


def test_a_file_scp_fetches_from_another_host_keeps_the_identity(tmp_path):
    """Guard: `scp node:/tmp/out.json results/` copies no file of the checkout: the row keeps its identity."""
    assert _identity(_built(tmp_path, "scp node:/tmp/out.json results/\n", XY)) is not None
