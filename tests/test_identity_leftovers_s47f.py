"""s47f: the job-identity leftovers the s46 closing notes named, each a real git checkout whose launcher's lines are
read as the job's: an edit to a file the job runs or reads must change the row's identity, or the row must have none
(a blind row is never reused: a re-run, never a wrong reuse)."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity

RUN = {"tools/run": "#!/bin/bash\nbash shared/x.sh\n", **XY}


# a batch script with no script's ending, after an option that takes no value: the option was read as taking the
# script's word as its value (as `-o logs/%j.out`), so tools/run and what it runs were in no identity
@pytest.mark.parametrize("line", ["sbatch --parsable tools/run\n",
                                  "sbatch -N 2 --wait tools/run arg\n",
                                  "srun -l --exclusive tools/run\n",
                                  "sbatch -o logs/%j.out --parsable tools/run\n"])
def test_a_batch_script_after_an_option_that_takes_no_value_is_part_of_the_identity(tmp_path, line):
    repo = _built(tmp_path, line, RUN)
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, ["tools/run", *XY_READ])


SUB = '-v "$PWD/shared:/workspace/bar"'
DATA = {"shared/t.py": "print(1)\n", "shared/c.json": "{}\n"}
# a folder of the checkout mounted into a container under another name: the container's relative path (bar/x.sh) is
# the checkout's shared/x.sh, which was read as a path from the host's folder or from one only the run knows (every
# tracked file ending in bar/x.sh: none), so the file run was in no identity
RENAMED = {
    "-w /workspace; bash bar/x.sh": (f"docker run --rm {SUB} -w /workspace img bash bar/x.sh\n", XY, XY_READ),
    "no -w; bash bar/x.sh": (f"docker run --rm {SUB} img bash bar/x.sh\n", XY, ["shared/x.sh"]),
    "-w /workspace; bash -c 'bash bar/x.sh'": (
        f"docker run --rm {SUB} -w /workspace img bash -c 'bash bar/x.sh'\n", XY, ["shared/x.sh"]),
    "srun --container-mounts=…/shared:/ws/bar --container-workdir=/ws bash bar/x.sh": (
        "srun --container-mounts=$GITHUB_WORKSPACE/shared:/ws/bar --container-workdir=/ws bash bar/x.sh\n", XY,
        ["shared/x.sh"]),
    "python3 bar/t.py --config bar/c.json": (
        f"docker run --rm {SUB} -w /workspace img python3 bar/t.py --config bar/c.json\n", DATA,
        ["shared/t.py", "shared/c.json"]),
}


@pytest.mark.parametrize("case", RENAMED)
def test_a_folder_mounted_under_another_name_is_part_of_the_identity(tmp_path, case):
    lines, files, read = RENAMED[case]
    repo = _built(tmp_path, lines, files)
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, read)


def test_a_name_that_only_looks_like_a_renamed_mount_adds_nothing(tmp_path):
    """`bar/x.sh` where the container mounts shared at /workspace/baz: no mount's target ends in bar, so the
    checkout's shared/x.sh is no file of the run, and an edit to it keeps the identity."""
    repo = _built(tmp_path, 'docker run --rm -v "$PWD/shared:/workspace/baz" img bash bar/x.sh\n', XY)
    first = _identity(repo)
    assert first is not None
    repo.write("shared/x.sh", repo.read("shared/x.sh") + b"\n# changed\n")
    assert _identity(repo) == first
