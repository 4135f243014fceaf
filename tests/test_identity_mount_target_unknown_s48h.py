"""s48h review of s48e's renamed mounts: a mount of a folder of the checkout whose target is a variable.

s48e reads a written end (`cat /workspace/bar/c.json` in a file a container runs) through each mount of the checkout's
folders the container commands write (`-v "$PWD/shared:/workspace/bar"`: shared/c.json). A mount whose target is not
written out (`-v "$PWD/shared:$T"`, `--container-mounts=$GITHUB_WORKSPACE/shared:${MOUNT_DEST}`, as Slurm scripts often
spell it) was left out of the container's mounts, so nothing was read through it: shared/c.json was in no identity and
the row kept one. Such a mount's folder may be anywhere in the container: a written end is now read through it at each
of its starts (every file of that folder the end's last names may be; reading one the run does not costs a reuse).
"""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity

C = {"shared/x.sh": "cat /workspace/bar/c.json\n", "shared/c.json": "{}\n"}


@pytest.mark.parametrize("lines", [
    'T=/workspace/bar\ndocker run --rm -v "$PWD/shared:$T" img bash "$T/x.sh"\n',
    'docker run --rm -v "$PWD:/ws" -v "$PWD/shared:$DEST" img bash /ws/shared/x.sh\n',
    'srun --container-mounts=$GITHUB_WORKSPACE:/ws,$GITHUB_WORKSPACE/shared:${MOUNT_DEST} bash /ws/shared/x.sh\n',
    'docker run --rm -v "$PWD:/ws" --mount type=bind,source="$PWD/shared",target="$DEST" img bash /ws/shared/x.sh\n',
])
def test_a_file_read_through_a_mount_whose_target_is_a_variable_is_part_of_the_identity(tmp_path, lines):
    repo = _built(tmp_path, lines, C)
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, ["shared/x.sh", "shared/c.json"])


def test_a_mount_whose_target_is_a_variable_reads_nothing_the_path_cannot_be(tmp_path):
    """Guard: a file of the mounted folder whose name the path does not end in stays out."""
    repo = _built(tmp_path, 'docker run --rm -v "$PWD:/ws" -v "$PWD/shared:$DEST" img bash /ws/shared/x.sh\n',
                  {**C, "shared/d.json": "{}\n"})
    first = _identity(repo)
    assert first is not None
    repo.write("shared/d.json", b'{"changed": 1}\n')
    assert _identity(repo) == first
