"""s48e: the two identity gaps s47f left, and the absolute glob beside them, each a real git checkout whose launcher's
lines are read as the job's: an edit to a file the job runs or reads must change the row's identity, or the row must
have none (a blind row is never reused; a stale one would be).

- A file run inside a container that mounts a folder of the checkout under another name (`-v "$PWD/shared:/workspace/
  bar"`) spelling the container's absolute path (`cat /workspace/bar/c.json`, `bash /workspace/bar/y.sh` in shared/
  x.sh): the reading of x.sh does not know the mount, and its written end (every tracked file ending in
  workspace/bar/c.json, or that it ends in) is no file of the checkout: shared/c.json was in no identity. Each
  container command's mounts of the checkout's folders are now gathered for the row (``Reading.mounted``), and a
  written end is also read through each (``identity._through_mounts``).
- A tracked folder named by an absolute path read as data or a command's word (`python3 t.py /workspace/shared/cfg`
  in a file a container runs, `docker exec srv … /workspace/shared/cfg`): only files were matched, so no file of
  shared/cfg was in the identity; each tracked folder it may be is now read whole (``Tracked.folders_along``).
- A file sourced, run or read by an absolute path with a glob (`bash /workspace/shared/cfg/*.sh`, `source
  /workspace/lib/*.sh`, `for f in /workspace/shared/cfg/*.json`) was taken for one outside the checkout and read
  nowhere, though the same path without the glob is a written end since s45d; it is now one, kept absolute.
"""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity

SUB = '-v "$PWD/shared:/workspace/bar"'
MOUNTED = 'docker run --rm -v "$GITHUB_WORKSPACE":/workspace -w /workspace img bash shared/x.sh\n'
C = {"shared/c.json": "{}\n"}
CFG = {"shared/cfg/a.json": "{}\n", "shared/cfg/b.json": "{}\n"}
# name -> (the launcher's lines, the checkout's files, the files an edit to which must change the identity)
CASES = {
    # renamed mounts: the file the container runs spells the container's absolute path
    "renamed: x.sh cats /workspace/bar/c.json (-w /workspace, bash bar/x.sh)": (
        f"docker run --rm {SUB} -w /workspace img bash bar/x.sh\n",
        {"shared/x.sh": "cat /workspace/bar/c.json\n", **C}, ["shared/c.json"]),
    "renamed: x.sh names /workspace/bar/c.json (--config)": (
        f"docker run --rm {SUB} img bash /workspace/bar/x.sh\n",
        {"shared/x.sh": "python3 -c 1 --config /workspace/bar/c.json\n", **C}, ["shared/x.sh", "shared/c.json"]),
    "renamed: x.sh runs /workspace/bar/y.sh": (
        f"docker run --rm {SUB} img bash /workspace/bar/x.sh\n",
        {"shared/x.sh": "bash /workspace/bar/y.sh\n", "shared/y.sh": "echo\n"}, ["shared/x.sh", "shared/y.sh"]),
    "renamed: x.sh sources /workspace/bar/y.sh": (
        f"docker run --rm {SUB} img bash /workspace/bar/x.sh\n",
        {"shared/x.sh": "source /workspace/bar/y.sh\n", "shared/y.sh": "echo\n"}, ["shared/y.sh"]),
    "renamed: srun --container-mounts=…/shared:/ws/bar, x.sh cats /ws/bar/c.json": (
        "srun --container-mounts=$GITHUB_WORKSPACE/shared:/ws/bar --container-workdir=/ws bash bar/x.sh\n",
        {"shared/x.sh": "cat /ws/bar/c.json\n", **C}, ["shared/c.json"]),
    "renamed: mounted by docker run -d, run by docker exec": (
        'docker run -d --name s -v "$GITHUB_WORKSPACE/shared:/opt/bar" img\ndocker exec s bash /opt/bar/x.sh\n',
        {"shared/x.sh": "cat /opt/bar/c.json\n", **C}, ["shared/x.sh", "shared/c.json"]),
    "renamed: x.sh names the folder /workspace/bar/cfg": (
        f"docker run --rm {SUB} img bash /workspace/bar/x.sh\n",
        {"shared/x.sh": "python3 -c 1 /workspace/bar/cfg\n", **CFG}, ["shared/cfg/a.json", "shared/cfg/b.json"]),
    "renamed: x.sh cats /workspace/bar/cfg/*.json": (
        f"docker run --rm {SUB} img bash /workspace/bar/x.sh\n",
        {"shared/x.sh": "cat /workspace/bar/cfg/*.json\n", **CFG}, ["shared/cfg/a.json"]),
    # a tracked folder named by an absolute path
    "folder: x.sh names /workspace/shared/cfg": (
        MOUNTED, {"shared/x.sh": "python3 /workspace/shared/t.py /workspace/shared/cfg\n", "shared/t.py": "1\n",
                  **CFG}, ["shared/cfg/a.json", "shared/cfg/b.json"]),
    "folder: docker exec (no mount written) names /workspace/shared/cfg": (
        "docker exec srv python3 /workspace/shared/t.py /workspace/shared/cfg\n", {"shared/t.py": "1\n", **CFG},
        ["shared/cfg/a.json"]),
    # an absolute path with a glob
    "glob: x.sh loops over /workspace/shared/cfg/*.json": (
        MOUNTED, {"shared/x.sh": "for f in /workspace/shared/cfg/*.json; do cat \"$f\"; done\n", **CFG},
        ["shared/cfg/a.json", "shared/cfg/b.json"]),
    "glob: x.sh runs each /workspace/shared/cfg/*.sh": (
        MOUNTED, {"shared/x.sh": "for f in /workspace/shared/cfg/*.sh; do bash \"$f\"; done\n",
                  "shared/cfg/a.sh": "echo\n"}, ["shared/cfg/a.sh"]),
    "glob: docker exec bash -c 'source /workspace/shared/cfg/*.sh'": (
        "docker exec srv bash -c 'source /workspace/shared/cfg/*.sh'\n", {"shared/cfg/a.sh": "echo\n"},
        ["shared/cfg/a.sh"]),
}


@pytest.mark.parametrize("case", CASES)
def test_an_edit_to_a_file_the_container_reads_changes_the_identity(tmp_path, case):
    lines, files, read = CASES[case]
    repo = _built(tmp_path, lines, files)
    assert _identity(repo) is not None  # each keeps an identity: no blind spot stands in for the fix
    _each_edit_changes_the_identity_or_none(repo, read)


@pytest.mark.parametrize("line", [
    # a mount's target whose names the path does not start with: shared/ is not /workspace/baz
    f"docker run --rm {SUB.replace('bar', 'baz')} img bash -c 'cat /workspace/bar/c.json'\n",
    # the host's pseudo file systems hold no checkout, with a glob too
    "cat /proc/*/status /dev/shm/*.json\n",
])
def test_a_path_no_mount_or_file_of_the_checkout_may_be_adds_nothing(tmp_path, line):
    repo = _built(tmp_path, line, C)
    first = _identity(repo)
    assert first is not None
    repo.write("shared/c.json", b'{"changed": 1}\n')
    assert _identity(repo) == first
