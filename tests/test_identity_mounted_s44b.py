"""s44b: a file of the checkout a launcher runs inside a container by its path there. The command that starts the
container mounts the workspace (`docker run -v "$GITHUB_WORKSPACE":/workspace -w /workspace img bash
/workspace/shared/x.sh`, `srun --container-mounts=$GITHUB_WORKSPACE:/workspace/ --container-workdir=/workspace/ bash
benchmarks/…`, as InferenceX's launchers and multi-node helpers do): a path under the mount's target is the checkout's
file, and the container starts in the folder `-w`/`--workdir`/`--container-workdir` names, from where what that file
sources is read. Before, an absolute path was taken for the image's own file, so an edit to the file (or to what it
sources) kept the row's identity and `ci reuse` could hand back a stale result.

No container runs here: each launcher is read as the run identity reads it, in a real git checkout, and each file
the container would run from the mount is edited."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity

# x.sh sources y.sh by a path from the folder it starts in (the container's working folder)
HERE = {"shared/x.sh": "echo read:shared/x.sh\nsource y.sh\n", "shared/y.sh": "echo read:shared/y.sh\n"}
# the same names elsewhere in the checkout: a mount the launcher writes says which is run, so an edit to these is none
ELSEWHERE = {"vendor/shared/x.sh": "echo other\n", "vendor/shared/y.sh": "echo other\n", "vendor/y.sh": "echo other\n"}
WS = "$GITHUB_WORKSPACE"

# name -> (the launcher's lines, its files, the files the container runs from the mount): each mount's spelling, and
# a working folder the options name, so that exactly those files are the run's
EXACT = {
    "docker run -v $GITHUB_WORKSPACE:/workspace/ -w /workspace/ (InferenceX)": (
        f"docker run --rm -v {WS}:/workspace/ -w /workspace/ img bash /workspace/shared/x.sh\n", XY, XY_READ),
    'docker run -v "$GITHUB_WORKSPACE":/workspace:ro -w /workspace': (
        f'docker run -v "{WS}":/workspace:ro -w /workspace img bash /workspace/shared/x.sh\n', XY, XY_READ),
    "docker run --volume=…:/workspace --workdir=/workspace": (
        f'docker run --volume="{WS}":/workspace --workdir=/workspace img bash /workspace/shared/x.sh\n', XY, XY_READ),
    'docker run --volume "$PWD":/workspace --workdir /workspace': (
        'docker run --volume "$PWD":/workspace --workdir /workspace img bash /workspace/shared/x.sh\n', XY, XY_READ),
    'docker run --mount type=bind,source="$(pwd)",target=/workspace,readonly': (
        'docker run --mount type=bind,source="$(pwd)",target=/workspace,readonly -w /workspace img '
        'bash /workspace/shared/x.sh\n', XY, XY_READ),
    "docker run -v .:/workspace": ("docker run -v .:/workspace -w /workspace img bash /workspace/shared/x.sh\n", XY,
                                   XY_READ),
    "docker run over lines joined by \\": (
        'docker run --rm \\\n  -v "${GITHUB_WORKSPACE}":/workspace \\\n  -w /workspace \\\n  img \\\n'
        '  bash /workspace/shared/x.sh\n', XY, XY_READ),
    "srun --container-mounts=$GITHUB_WORKSPACE:/workspace/,$HF… (InferenceX)": (
        f"srun --jobid=$JOB_ID --container-image=$SQUASH_FILE \\\n"
        f"--container-mounts={WS}:/workspace/,$HF_HUB_CACHE_MOUNT:$HF_HUB_CACHE \\\n"
        "--container-workdir=/workspace/ --no-container-entrypoint --export=ALL \\\nbash /workspace/shared/x.sh\n",
        XY, XY_READ),
    "srun --container-mounts=/mnt/cache:/cache,…:/workspace (the second of a list)": (
        f'srun --container-mounts=/mnt/cache:/cache,"{WS}":/workspace --container-workdir=/workspace '
        "bash /workspace/shared/x.sh\n", XY, XY_READ),
    'srun --container-mounts=… bash -lc "…" (a command string)': (
        f'srun --container-mounts="{WS}":/workspace --container-workdir=/workspace '
        'bash -lc "set -e; bash /workspace/shared/x.sh"\n', XY, XY_READ),
    "podman run -v …:/workspace:Z -w /workspace sh -c '…'": (
        f'podman run -v "{WS}:/workspace:Z" -w /workspace img sh -c \'bash /workspace/shared/x.sh\'\n', XY,
        XY_READ),
    'cd shared; docker run -v "$PWD":/ws -w /ws … bash /ws/x.sh': (
        'cd shared\ndocker run -v "$PWD":/ws -w /ws img bash /ws/x.sh\n', HERE, ["shared/x.sh", "shared/y.sh"]),
    "docker run -w /ws/shared … bash x.sh (a relative path from the working folder)": (
        f'docker run -v "{WS}":/ws -w /ws/shared img bash x.sh\n', HERE, ["shared/x.sh", "shared/y.sh"]),
    "srun --container-workdir=/workspace/ bash shared/x.sh (InferenceX, a relative path)": (
        f"srun --container-mounts={WS}:/workspace/ --container-workdir=/workspace/ bash shared/x.sh\n", XY, XY_READ),
    "srun --container-mounts=… bash -c 'source /workspace/shared/x.sh' (a source in the container)": (
        f'srun --container-mounts="{WS}":/workspace --container-workdir=/workspace '
        "bash -c 'source /workspace/shared/x.sh'\n", XY, XY_READ),
    "singularity exec --bind …:/ws --pwd /ws": (
        f'singularity exec --bind "{WS}":/ws --pwd /ws img bash /ws/shared/x.sh\n', XY, XY_READ),
}


@pytest.mark.parametrize("case", EXACT)
def test_a_file_run_from_the_mounted_checkout_is_part_of_the_identity_and_no_other(tmp_path, case):
    """Each file the container runs from the mount is hashed (the row keeps an identity: never blind for it), and the
    same names elsewhere in the checkout are not (the mount says which file it is)."""
    lines, files, read = EXACT[case]
    repo = _built(tmp_path, lines, {**files, **ELSEWHERE})
    first = _identity(repo)
    assert first is not None
    for path in ELSEWHERE:
        repo.write(path, repo.read(path) + b"\n# changed\n")
    assert _identity(repo) == first, "a file of the same name elsewhere in the checkout"
    for path in read:
        before = _identity(repo)
        repo.write(path, repo.read(path) + b"\n# changed\n")
        assert _identity(repo) not in (None, before), path


# the container's path is the checkout's, but where within it only the run knows: every tracked file it may be
WIDE = {
    "docker run -v … with no working folder (what x.sh sources: from the image's)": (
        f'docker run -v "{WS}":/workspace img bash /workspace/shared/x.sh\n', XY, XY_READ),
    'docker run -v "$REPO":/workspace (a variable only the run knows)': (
        'docker run -v "$REPO":/workspace -w /workspace img bash /workspace/shared/x.sh\n', XY, XY_READ),
    "docker exec srv bash /workspace/shared/x.sh (mounted where the container was started)": (
        "docker exec srv bash /workspace/shared/x.sh\n", XY, XY_READ),
    "ssh node bash /ws/shared/x.sh": ("ssh node bash /ws/shared/x.sh\n", XY, XY_READ),
    "ssh node bash -c 'source /ws/shared/x.sh'": ("ssh node bash -c 'source /ws/shared/x.sh'\n", XY, XY_READ),
    "GITHUB_WORKSPACE moved; docker run -v $GITHUB_WORKSPACE:/workspace … bash /workspace/shared/x.sh": (
        f'export GITHUB_WORKSPACE="{WS}/sub"\ndocker run -v "{WS}":/workspace img bash /workspace/shared/x.sh\n',
        {"sub/shared/x.sh": "echo\n"}, ["sub/shared/x.sh"]),
    "GITHUB_WORKSPACE moved; srun --container-workdir=/workspace bash shared/x.sh": (
        f'export GITHUB_WORKSPACE="{WS}/sub"\nsrun --container-mounts={WS}:/workspace --container-workdir=/workspace '
        'bash shared/x.sh\n', {"sub/shared/x.sh": "echo\n"}, ["sub/shared/x.sh"]),
    "docker run … python3 /workspace/x.py imports a sibling module": (
        f'docker run -v "{WS}":/workspace -w /workspace img python3 /workspace/utils/bench_serving/'
        'benchmark_serving.py\n',
        {"utils/bench_serving/benchmark_serving.py": "import backend_request_func\n",
         "utils/bench_serving/backend_request_func.py": "print('read')\n"},
        ["utils/bench_serving/benchmark_serving.py", "utils/bench_serving/backend_request_func.py"]),
    "docker run … python3 /workspace/r.py --config /workspace/shared/c.json": (
        f'docker run -v "{WS}":/workspace -w /workspace img python3 /workspace/shared/r.py '
        "--config /workspace/shared/c.json\n",
        {"shared/r.py": "import sys\n", "shared/c.json": "{}\n"}, ["shared/r.py", "shared/c.json"]),
    "docker run … bash -c 'cat /workspace/shared/c.txt' (read as data)": (
        f'docker run -v "{WS}":/workspace -w /workspace img bash -c \'cat /workspace/shared/c.txt\'\n',
        {"shared/c.txt": "x\n"}, ["shared/c.txt"]),
}


@pytest.mark.parametrize("case", WIDE)
def test_an_edit_to_a_file_a_container_runs_from_the_checkout_changes_the_identity(tmp_path, case):
    """The row keeps an identity (a blind row is never reused), and an edit to each file the container reads from
    the checkout changes it."""
    lines, files, read = WIDE[case]
    repo = _built(tmp_path, lines, files)
    assert _identity(repo) is not None
    for path in read:
        before = _identity(repo)
        repo.write(path, repo.read(path) + b"\n# changed\n")
        assert _identity(repo) not in (None, before), path


@pytest.mark.parametrize("lines", [
    "docker run -v /data/models:/workspace -w /workspace img bash /workspace/shared/x.sh\n",
    "docker run -v models:/workspace img bash /workspace/shared/x.sh\n",  # a named volume
    "docker run --mount type=volume,source=m,target=/workspace img bash /workspace/shared/x.sh\n",
    f'docker run -v "{WS}":/workspace img cat /opt/shared/x.sh\n',  # the image's, read as data
])
def test_a_path_under_a_mount_of_no_folder_of_the_checkout_is_none_of_its_files(tmp_path, lines):
    """A mount of the host's own folder or a named volume holds no file of the checkout: the row keeps its identity,
    and an edit to the checkout's shared/x.sh does not change it (nothing to re-measure)."""
    repo = _built(tmp_path, lines, XY)
    first = _identity(repo)
    assert first is not None
    repo.write("shared/x.sh", repo.read("shared/x.sh") + b"\n# changed\n")
    assert _identity(repo) == first



def test_each_container_command_mounts_reads_is_one_that_runs_elsewhere():
    """A container's mounts are read only in a command that runs elsewhere (``shellwords._ELSEWHERE``): a tool of
    ``mounts.TOOLS`` it does not find would never be read."""
    from sweepgate.core import mounts, shellwords  # noqa: PLC0415

    assert [tool for tool in mounts.TOOLS if not shellwords._ELSEWHERE.search(f"{tool} run x")] == []
