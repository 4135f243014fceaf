"""s48i: a container tool named through a variable (`$DOCKER run`, `"${DOCKER:-docker}" run`, `$CONTAINER_RUNTIME
exec`, `sudo $DOCKER run`) was no command that starts a container: its mounts were never read, so a path of the
container's it runs (`bash /workspace/bar/x.sh` under `-v "$GITHUB_WORKSPACE/shared":/workspace/bar`) was read as a
written end no tracked file has, and the row kept an identity an edit to shared/x.sh (or what it sources) did not
change. A lone expansion followed by `run`, `exec` or `create`, or whose default names a container tool, now starts one,
read as that tool (docker's options for a subcommand alone); one that says neither but writes a mount of a container
tool's (`$LAUNCH --container-mounts=…`) leaves the row with no identity, as a file only the run knows does."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity

MOUNT = '-v "$GITHUB_WORKSPACE/shared":/workspace/bar'


@pytest.mark.parametrize("line", [
    f"$DOCKER run {MOUNT} img bash /workspace/bar/x.sh\n",
    f'"${{DOCKER:-docker}}" run --rm {MOUNT} img bash /workspace/bar/x.sh\n',
    f"sudo $DOCKER run {MOUNT} img bash -c 'bash /workspace/bar/x.sh'\n",
    f'DOCKER=podman\n"$DOCKER" create --name s {MOUNT} img bash /workspace/bar/x.sh\n',
    f"${{RUNTIME:-podman}} run {MOUNT.replace('-v', '--volume')} img bash /workspace/bar/x.sh\n",
    "${SRUN:-srun} --container-mounts=$GITHUB_WORKSPACE/shared:/ws/bar bash /ws/bar/x.sh\n",
])
def test_a_file_a_container_named_through_a_variable_runs_is_part_of_the_identity(tmp_path, line):
    repo = _built(tmp_path, line, XY)
    _each_edit_changes_the_identity_or_none(repo, XY_READ)


def test_a_relative_path_from_the_folder_a_variable_tools_options_name_is_part_of_the_identity(tmp_path):
    """`-w /workspace/bar` under the mount of shared: `bash x.sh` there runs shared/x.sh, whose `source y.sh` is
    shared/y.sh."""
    repo = _built(tmp_path, f"${{CONTAINER_RUNTIME}} run {MOUNT} -w /workspace/bar img bash x.sh\n",
                  {"shared/x.sh": "source y.sh\n", "shared/y.sh": None})
    _each_edit_changes_the_identity_or_none(repo, ["shared/x.sh", "shared/y.sh"])


@pytest.mark.parametrize("line", [
    "$LAUNCH --container-mounts=$GITHUB_WORKSPACE/shared:/ws/bar bash /ws/bar/x.sh\n",
    '"$RUNTIME" --bind "$PWD/shared:/ws/bar" img bash /ws/bar/x.sh\n',
])
def test_an_unknown_tool_that_writes_a_mount_leaves_the_row_without_an_identity(tmp_path, line):
    """Which tool it is only the run knows, so how it reads its options: never a stale identity, none at all."""
    assert _identity(_built(tmp_path, line, XY)) is None


def test_an_unknown_command_with_options_that_mount_nothing_keeps_the_identity(tmp_path):
    """Guard: `$PY -v shared/x.py`, `$CURL -v http://host:80/x` write no mount: the row keeps its identity."""
    repo = _built(tmp_path, "$PY -v shared/x.py\n$CURL -v http://host:80/x\n", {**XY, "shared/x.py": "print(1)\n"})
    assert _identity(repo) is not None


def test_a_function_named_run_starts_no_container(tmp_path):
    """Guard: `run bash x.sh` (a function's call, no expansion before it) is read as before: the row keeps its
    identity, and an edit to a file of the checkout no command names leaves it."""
    repo = _built(tmp_path, 'run() { "$@"; }\nrun bash shared/x.sh\n', {**XY, "shared/z.sh": "echo z\n"})
    first = _identity(repo)
    assert first is not None
    repo.write("shared/z.sh", "echo changed\n")
    assert _identity(repo) == first
