"""s47f: the job-identity leftovers the s46 closing notes named, each a real git checkout whose launcher's lines are
read as the job's: an edit to a file the job runs or reads must change the row's identity, or the row must have none
(a blind row is never reused: a re-run, never a wrong reuse)."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_identity_reads_s42b import LAUNCHER
from test_submodule_identity_s39v import ONE, TWO, _both, _gitlink
from test_unknown_prefix_s39u import _checkout, _identity

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


MOUNTED = 'docker run --rm -v "$GITHUB_WORKSPACE":/workspace -w /workspace img bash shared/x.sh\n'
C = {"shared/c.json": "{}\n"}
# an absolute path a file reads as data, where no mount the text writes says what it is: x.sh runs in a container
# that mounts the checkout at /workspace, which reading x.sh does not know; the file was taken for the image's own
# and not hashed (a path run so was: s45d), so an edit to the data the run reads kept the row reusable
ABSOLUTE_DATA = {
    "x.sh: python3 t.py --config /workspace/shared/c.json": (
        MOUNTED, {"shared/x.sh": "python3 -c 1 --config /workspace/shared/c.json\n", **C}),
    "x.sh: cat /workspace/shared/c.json": (MOUNTED, {"shared/x.sh": "cat /workspace/shared/c.json\n", **C}),
    "x.sh: jq . < /workspace/shared/c.json": (MOUNTED, {"shared/x.sh": "jq . < /workspace/shared/c.json\n", **C}),
    "docker exec srv cat /workspace/shared/c.json (no mount written)": (
        "docker exec srv cat /workspace/shared/c.json\n", C),
    'docker run -v "$REPO":/ws (a source only the run knows) cat /ws/shared/c.json': (
        'docker run --rm -v "$REPO":/ws img cat /ws/shared/c.json\n', C),
}


@pytest.mark.parametrize("case", ABSOLUTE_DATA)
def test_an_absolute_path_read_as_data_is_part_of_the_identity(tmp_path, case):
    lines, files = ABSOLUTE_DATA[case]
    repo = _built(tmp_path, lines, files)
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, ["shared/c.json"])


@pytest.mark.parametrize("line", ["cat /tmp/sweepgate-s47f/c.json < /dev/null\n",
                                  'docker run --rm -v "$GITHUB_WORKSPACE":/workspace img cat /data/shared/c.json\n'])
def test_an_absolute_data_path_no_checkout_file_may_be_adds_nothing(tmp_path, line):
    """A path read as data that ends in no tracked file's names (the host's /tmp), or one in a container whose mounts
    the command writes and none holds it (/data: the image's): an edit to shared/c.json keeps the identity."""
    repo = _built(tmp_path, line, C)
    first = _identity(repo)
    assert first is not None
    repo.write("shared/c.json", b"{\"changed\": 1}\n")
    assert _identity(repo) == first


@pytest.mark.parametrize("line, bumped", [("cat /workspace/vendor/tools/c.json\n", True),
                                          ("cat /tmp/sweepgate-s47f/c.json\n", False)])
def test_an_absolute_data_path_brings_a_submodule_only_through_its_names(tmp_path, line, bumped):
    """A submodule (git tracks none of its files) may hold the file an absolute path reads as data only where the
    path's names go through it: a bump of vendor/tools changes the identity for /workspace/vendor/tools/c.json, the
    host's and `ci reuse`'s alike, and not for the host's /tmp/…/c.json (mostly the run's own file)."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + line})
    _gitlink(repo, "vendor/tools", ONE)
    host, reuse = _both(repo)
    assert host is not None and host == reuse
    _gitlink(repo, "vendor/tools", TWO)
    after_host, after_reuse = _both(repo)
    assert after_host == after_reuse and (after_host != host) == bumped


# InferenceX's job.slurm sets the code each node runs to find docker, then runs it in the node's shell
# (`eval "$DOCKER_CMD_DETECT"`) before the container's command, which runs the file by a variable set outside the
# string. The code is written in job.slurm itself, so the eval sets DOCKER_CMD alone: the row keeps an identity
# (before s47f it had none, a re-run every time); where only the run knows the code, it still has none (s45d's JOBS)
DETECT = ("export DOCKER_CMD_DETECT='if docker ps &>/dev/null 2>&1; then DOCKER_CMD=docker; "
          "else DOCKER_CMD=\"sudo docker\"; fi'\n")
SET_AT = 'RUN_FILE="x.sh"\n'


def _job(detect: str) -> dict[str, str]:
    from test_identity_stale_s45d import JOB_SLURM, SUBMIT

    assert SET_AT in JOB_SLURM and 'eval \\"\\$DOCKER_CMD_DETECT\\"' in JOB_SLURM
    return {"shared/submit.sh": SUBMIT, "shared/job.slurm": JOB_SLURM.replace(SET_AT, SET_AT + detect), **XY}


def test_an_eval_of_code_the_job_file_writes_keeps_the_identity(tmp_path):
    repo = _built(tmp_path, "cd shared\nbash submit.sh\n", _job(DETECT))
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, ["shared/job.slurm", "shared/submit.sh", *XY_READ])


@pytest.mark.parametrize("detect", [
    # the code sets the run file's variable: which file runs is the run's to say
    "export DOCKER_CMD_DETECT='RUN_FILE_FULL=$(pick_one)'\n",
    # set on a condition: the environment's code may run instead
    "if [ -z \"${DOCKER_CMD_DETECT:-}\" ]; then export DOCKER_CMD_DETECT='DOCKER_CMD=docker'; fi\n",
    # set twice: which one the eval runs is the run's to say
    DETECT + "[ -n \"$X\" ] && DOCKER_CMD_DETECT='RUN_FILE_FULL=/elsewhere/z.sh'\n",
    # set to code built from what only the run knows
    "export DOCKER_CMD_DETECT=\"DOCKER_CMD=$ENGINE_CMD\"\n",
    # set again by a file it sources after
    DETECT + "source ./env.sh\n",
])
def test_an_eval_of_code_only_the_run_knows_leaves_no_identity(tmp_path, detect):
    env = {"shared/env.sh": "DOCKER_CMD_DETECT='RUN_FILE_FULL=/elsewhere/z.sh'\n"}
    repo = _built(tmp_path, "cd shared\nbash submit.sh\n", {**_job(detect), **env})
    assert _identity(repo) is None
