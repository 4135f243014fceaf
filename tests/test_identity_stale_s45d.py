"""s45d: the stale cases s44b left (``test_identity_probe_s43j``'s MOUNTED_UNSEEN and what the brief named beside it):
an edit to a file the job reads kept the row's identity, so `ci reuse` could hand back a result of code that no longer
runs. Each case is a real git checkout; those real bash can run here (no container, no Slurm) are run first, and what
they read says so on their output. Then each file read is edited: the row's identity must change, or the row must have
none (a blind row is never reused)."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_identity_reads_s42b import LAUNCHER, _run
from test_submodule_identity_s39v import ONE, TWO, _both, _gitlink
from test_unknown_prefix_s39u import _checkout, _identity

WS = "$GITHUB_WORKSPACE"
DOCKER = f'docker run --rm -v "{WS}":/workspace -w /workspace img bash shared/x.sh\n'
SRUN = f"srun --container-mounts={WS}:/workspace/ --container-workdir=/workspace/ bash shared/x.sh\n"
Y = {"shared/y.sh": None}

# a path in the container's own spelling inside a file the container runs: reading x.sh nothing says it runs in one
INSIDE = {
    "docker run -v …:/workspace bash shared/x.sh; x.sh: bash /workspace/shared/y.sh": (
        DOCKER, {"shared/x.sh": "bash /workspace/shared/y.sh\n", **Y}),
    "docker run …; x.sh: source /workspace/shared/y.sh": (
        DOCKER, {"shared/x.sh": "source /workspace/shared/y.sh\n", **Y}),
    "srun --container-mounts=…; x.sh: /workspace/shared/y.sh (run by its path)": (
        SRUN, {"shared/x.sh": "/workspace/shared/y.sh --port 8000\n", **Y}),
    "srun --container-mounts=…; x.sh: python3 /workspace/shared/y.py": (
        SRUN, {"shared/x.sh": "python3 /workspace/shared/y.py\n", "shared/y.py": None}),
    "docker run …; x.sh: bash -c 'source /workspace/shared/y.sh && serve'": (
        DOCKER, {"shared/x.sh": "bash -c 'source /workspace/shared/y.sh && serve'\n", **Y}),
}


@pytest.mark.parametrize("case", INSIDE)
def test_a_container_path_in_a_file_the_container_runs_is_part_of_the_identity(tmp_path, case):
    lines, files = INSIDE[case]
    repo = _built(tmp_path, lines, files)
    assert _identity(repo) is not None  # never blind for it
    _each_edit_changes_the_identity_or_none(repo, [path for path in files if path != "shared/x.sh"])


def test_a_host_path_that_ends_in_no_tracked_file_keeps_the_identity(tmp_path):
    """The image's own file (`bash /opt/tools/y.sh`): no tracked file ends in opt/tools/y.sh or is its end, so an edit
    to the checkout's shared/y.sh is no change of the run."""
    repo = _built(tmp_path, DOCKER, {"shared/x.sh": "bash /opt/tools/y.sh\n", **Y})
    first = _identity(repo)
    assert first is not None
    repo.write("shared/y.sh", repo.read("shared/y.sh") + b"\n# changed\n")
    assert _identity(repo) == first


# InferenceX's multi-node job.slurm (benchmarks/multi_node/amd_utils/job.slurm), trimmed: the mount and the file the
# container runs are set through variables set to absolute paths, and the run file's path is built from two of them
# (`RUN_FILE_FULL="$WS_PATH/${RUN_FILE}"`) and run as a command's own word inside two command strings
JOB_SLURM = ('#!/bin/bash\nDI_REPO_DIR=$(cd "$(pwd)/.." && pwd)\nDOCKER_MOUNT_PATH="/workspace"\n'
             'WS_PATH="${DOCKER_MOUNT_PATH}/shared"\nRUN_FILE="x.sh"\nexport RUN_FILE_FULL="$WS_PATH/${RUN_FILE}"\n'
             'srun --nodelist="$NODES" --kill-on-bad-exit=1 bash -lc "\nset -euo pipefail\n'
             'eval \\"\\$DOCKER_CMD_DETECT\\"\n'
             '\\$DOCKER_CMD run --rm \\\\\n    -v ${DI_REPO_DIR}:${DOCKER_MOUNT_PATH} \\\\\n    img bash -lc \'\n'
             '        set -o pipefail\n        \'"$RUN_FILE_FULL"\' 2>&1 | tee /run_logs/server.log\n    \'\n"\n')
# its submit.sh: sbatch runs job.slurm by its path beside submit.sh, from an array
SUBMIT = ('#!/bin/bash\nsbatch_cmd=(\n    sbatch\n    --parsable\n    -N "$NUM_NODES"\n'
          '    "$(dirname "$0")/job.slurm"\n)\nJOB_ID=$("${sbatch_cmd[@]}")\necho "$JOB_ID"\n')
NO_EVAL = JOB_SLURM.replace('eval \\"\\$DOCKER_CMD_DETECT\\"\n', "")
LINES = NO_EVAL.split("\n", 1)[1].replace("/..", "")
# name -> (the launcher's lines, its files, the files the container runs, whether the row keeps an identity): job.slurm
# runs `eval "$DOCKER_CMD_DETECT"` (code only the run knows, which may set any variable) in the command string before
# the container's, so there the run file's variable is one only the run knows, and the row has none (its outer shell
# expands it first, which the reading does not follow: blind, never stale); without it, the row keeps one
JOBS = {
    "the launcher: cd shared; bash submit.sh; sbatch job.slurm (with the eval)": (
        "cd shared\nbash submit.sh\n", {"shared/submit.sh": SUBMIT, "shared/job.slurm": JOB_SLURM, **XY},
        ["shared/job.slurm", *XY_READ], False),
    "the launcher: cd shared; bash submit.sh; sbatch job.slurm (no eval)": (
        "cd shared\nbash submit.sh\n", {"shared/submit.sh": SUBMIT, "shared/job.slurm": NO_EVAL, **XY},
        ["shared/job.slurm", *XY_READ], True),
    "the launcher holds job.slurm's lines (no eval)": (LINES, XY, XY_READ, True),
    "with docker written out (no eval)": (LINES.replace("\\$DOCKER_CMD", "docker"), XY, XY_READ, True),
}


@pytest.mark.parametrize("case", JOBS)
def test_a_run_file_set_through_variables_of_absolute_paths_is_part_of_the_identity(tmp_path, case):
    lines, files, read, kept = JOBS[case]
    repo = _built(tmp_path, lines, files)
    assert (_identity(repo) is not None) == kept
    _each_edit_changes_the_identity_or_none(repo, read)


@pytest.mark.parametrize("lines", [
    "DOCKER_CMD=docker\n$DOCKER_CMD run --rm img true\nbash shared/x.sh\n",
    'PY="${PY:-python3}"\n$PY shared/t.py\nbash shared/x.sh\n',
    'MAYBE_EXEC=exec\n$MAYBE_EXEC bash shared/x.sh\n',
])
def test_a_command_named_through_a_variable_is_no_file_and_no_blind_spot(tmp_path, lines):
    """A variable alone as a command's word is run as a path only when the text set it to one: a command's name
    (`DOCKER_CMD=docker`, a default) is looked up on PATH, and the row keeps its identity."""
    repo = _built(tmp_path, lines, {**XY, "shared/t.py": None})
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, XY_READ)


FIXED = "/tmp/sweepgate-probe-s45d"  # a folder outside the checkout, written out
# `tar -C DIR`: the files it packs are DIR's (a copy of them may run where it is unpacked)
TAR = {
    "tar -C shared -czf F.tgz .; tar -xzf F.tgz -C F; bash F/y.sh": (
        f"rm -rf {FIXED}; mkdir -p {FIXED}\ntar -C shared -czf {FIXED}.tgz .\ntar -xzf {FIXED}.tgz -C {FIXED}\n"
        f"bash {FIXED}/y.sh\n"),
    "tar -cf F.tar -C shared y.sh; …": (
        f"rm -rf {FIXED}; mkdir -p {FIXED}\ntar -cf {FIXED}.tar -C shared y.sh\ntar -xf {FIXED}.tar -C {FIXED}\n"
        f"bash {FIXED}/y.sh\n"),
    "tar --directory=shared -cf - . | tar -xf - -C F": (
        f"rm -rf {FIXED}; mkdir -p {FIXED}\ntar --directory=shared -cf - . | tar -xf - -C {FIXED}\n"
        f"bash {FIXED}/y.sh\n"),
    "tar --directory shared -cf F.tar .": (
        f"rm -rf {FIXED}; mkdir -p {FIXED}\ntar --directory shared -cf {FIXED}.tar .\ntar -xf {FIXED}.tar -C {FIXED}\n"
        f"bash {FIXED}/y.sh\n"),
}


@pytest.mark.parametrize("case", TAR)
def test_a_file_tar_packs_from_a_folder_it_moves_to_is_part_of_the_identity(tmp_path, case):
    repo = _built(tmp_path, TAR[case], Y)
    assert "shared/y.sh" in _run(repo), _run(repo)
    _each_edit_changes_the_identity_or_none(repo, ["shared/y.sh"])


LISTS = "import os, sys\nd = {}\nfor f in sorted(os.listdir(d)):\n    print(open(os.path.join(d, f)).read())\n"
# a folder given only through a variable's value: the shell's own (`cp -r "$D"`) or a program's environment
BY_VALUE = {
    'D=shared; T=$(mktemp -d); cp -r "$D" "$T/s"; bash "$T/s/y.sh"': (
        'D=shared\nT=$(mktemp -d)\ncp -r "$D" "$T/s"\nbash "$T/s/y.sh"\n', Y, ["shared/y.sh"]),
    'D=shared; cp -r "$D" /tmp/F/s; bash /tmp/F/s/y.sh': (
        f'rm -rf {FIXED}; mkdir -p {FIXED}\nD=shared\ncp -r "$D" {FIXED}/s\nbash {FIXED}/s/y.sh\n', Y,
        ["shared/y.sh"]),
    'D=shared; (cd "$D" && bash y.sh)': ('D=shared\n(cd "$D" && bash y.sh)\n', Y, ["shared/y.sh"]),
    "export CFG_DIR=shared/cfgs; python3 r.py (os.environ)": (
        "export CFG_DIR=shared/cfgs\npython3 shared/r.py\n",
        {"shared/r.py": LISTS.format("os.environ['CFG_DIR']"), "shared/cfgs/a.yaml": None}, ["shared/cfgs/a.yaml"]),
    "CFG_DIR=shared/cfgs python3 r.py (a command's environment)": (
        "CFG_DIR=shared/cfgs python3 shared/r.py\n",
        {"shared/r.py": LISTS.format("os.environ['CFG_DIR']"), "shared/cfgs/a.yaml": None}, ["shared/cfgs/a.yaml"]),
    "f() { local -x MODE=fast CFG_DIR=shared/cfgs; python3 r.py; } (the second of a declaration's)": (
        "f() {\n  local -x MODE=fast CFG_DIR=shared/cfgs\n  python3 shared/r.py\n}\nf\n",
        {"shared/r.py": LISTS.format("os.environ['CFG_DIR']"), "shared/cfgs/a.yaml": None}, ["shared/cfgs/a.yaml"]),
    "CFG_DIR=shared/cfgs; export CFG_DIR; python3 r.py": (
        "CFG_DIR=shared/cfgs\nexport CFG_DIR\npython3 shared/r.py\n",
        {"shared/r.py": LISTS.format("os.environ['CFG_DIR']"), "shared/cfgs/a.yaml": None}, ["shared/cfgs/a.yaml"]),
}


@pytest.mark.parametrize("case", BY_VALUE)
def test_a_folder_given_through_a_variables_value_is_part_of_the_identity(tmp_path, case):
    lines, files, read = BY_VALUE[case]
    repo = _built(tmp_path, lines, files)
    assert set(read) <= set(_run(repo)), _run(repo)
    _each_edit_changes_the_identity_or_none(repo, read)


@pytest.mark.parametrize("line", [
    "export TOOLS_DIR=vendor/tools\npython3 shared/r.py\n",  # (r.py reads os.environ["TOOLS_DIR"])
    'D=vendor\nT=$(mktemp -d)\ncp -r "$D" "$T/v"\nbash "$T/v/tools/run.sh"\n',
])
def test_a_submodule_given_through_a_variables_value_brings_its_commit(tmp_path, line):
    """A submodule (git tracks none of its files) named only by a variable's value: a bump of it changes the identity,
    the host's and `ci reuse`'s alike."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + line, "shared/r.py": "print(1)\n"})
    _gitlink(repo, "vendor/tools", ONE)
    host, reuse = _both(repo)
    assert host is not None and host == reuse
    _gitlink(repo, "vendor/tools", TWO)
    bumped_host, bumped_reuse = _both(repo)
    assert bumped_host == bumped_reuse and bumped_host not in (None, host)


# a batch script `sbatch` or `srun` is given by its path, no interpreter before it: hashed as data (a command's word
# naming a file) but what it runs was not followed. (InferenceX's submit.sh names job.slurm beside itself,
# `"$(dirname "$0")/job.slurm"`, which was read as a file run: JOBS above.)
@pytest.mark.parametrize("line", ["sbatch -N 2 --time 01:00:00 shared/job.slurm\n",
                                  "sbatch --parsable -o logs/%j.out shared/job.slurm arg1\n",
                                  "srun -N 1 --ntasks-per-node=1 shared/job.slurm\n"])
def test_what_a_batch_script_sbatch_runs_is_part_of_the_identity(tmp_path, line):
    repo = _built(tmp_path, line, {"shared/job.slurm": "#!/bin/bash\nbash shared/x.sh\n", **XY})
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, ["shared/job.slurm", *XY_READ])
