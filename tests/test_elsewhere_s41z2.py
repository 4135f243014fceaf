"""s41z2: a file run in a container or on a node was read from the folder at the line when a `$( )` (or a `|` in it)
stood before the interpreter in its command; and `cd b || bash x.sh` read b/x.sh, where bash runs x.sh from the folder
the failed `cd` left (the top).

``_run_elsewhere`` looked for `srun`/`docker` from where the interpreter's command begins, but took every `(` and `|`
for a command's start, the `(` of `$(` and a `|` inside it too: `cd b; srun --container-name=$(echo "$IMAGE" | sed
…) bash x.sh` (a reference launcher's shape) and `docker run --name=$(…) … bash x.sh` read b/x.sh, and an edit to the
x.sh the container runs (the workspace's) kept the identity. A `$( )` inside a word begins no command now: what it
holds is skipped, and a command starts only at a break outside it (or at the start of the `$( )` holding the
interpreter). After `||` the working folder is either the one before the list or the one its commands left (the right
side runs when they failed), as `if cd b; then :; else bash x.sh; fi` is read; after the list it is as before.

Each case runs real bash in a real git checkout, with stand-ins for docker and srun that run the command where the
real ones would (the container's folder is the workspace)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from test_ran_working_folder_s41j import LAUNCHER, _each_edit_changes_the_identity, _says
from test_unknown_prefix_s39u import _checkout, _identity

# run, its options, the image (docker); its options (srun): then the command, in the workspace
SHIMS = {
    "docker": '#!/bin/sh\nshift\nwhile [ "${1#-}" != "$1" ]; do case "$1" in -w|-v|-e) shift;; esac; shift; done\n'
              'shift\ncd "$GITHUB_WORKSPACE" && exec "$@"\n',
    "srun": '#!/bin/sh\nwhile [ "${1#-}" != "$1" ]; do shift; done\ncd "$GITHUB_WORKSPACE" && exec "$@"\n',
}


def _run(tmp_path, repo_path) -> str:
    shim = tmp_path / "bin"
    shim.mkdir(exist_ok=True)
    for tool, body in SHIMS.items():
        (shim / tool).write_text(body)
        (shim / tool).chmod(0o755)
    return subprocess.run(["bash", LAUNCHER], cwd=repo_path, capture_output=True, text=True,
                          env={"PATH": f"{shim}:/usr/bin:/bin", "GITHUB_WORKSPACE": str(repo_path)}).stdout


CONTAINER = {
    "docker run --name=$(… | …) … bash x.sh": (
        'cd b\ndocker run --rm --name=$(echo a/b | tr / _) -v "$GITHUB_WORKSPACE:/ws" -w /ws img bash x.sh\n'),
    "srun --container-name=$(echo | sed) … bash x.sh": (
        "cd b\nIMAGE=img:1\nsrun --container-name=$(echo \"$IMAGE\" | sed 's/[\\/:@#]/_/g')"
        " --container-workdir=/workspace/ bash x.sh\n"),
    "srun --container-name=$(…) \\-continued lines": (
        'cd b\nsrun --container-name="$(echo img | tr i j)" \\\n  --container-workdir=/workspace/ \\\n'
        '  bash x.sh\n'),
    "srun … \"--name=$(f)\" … docker run … bash x.sh": (
        'f() { echo n; }\ncd b\nsrun --ntasks=1 "--job-name=$(f)" docker run -v "$GITHUB_WORKSPACE:/ws" -w /ws img'
        ' bash x.sh\n'),
}


@pytest.mark.parametrize("case", CONTAINER)
def test_a_substitution_before_the_interpreter_keeps_it_run_elsewhere(tmp_path, case):
    files = {LAUNCHER: "#!/usr/bin/env bash\n" + CONTAINER[case], "x.sh": _says("x.sh"), "b/x.sh": _says("b/x.sh")}
    repo = _checkout(tmp_path, files)
    assert _run(tmp_path, repo.path) == "read:x.sh\n"
    _each_edit_changes_the_identity(repo, ["x.sh"])


def _b_alone(tmp_path, lines: str) -> None:
    """The launcher's ``lines`` run b/x.sh under bash, with x.sh beside it at the top: b/x.sh is hashed, x.sh not."""
    files = {LAUNCHER: "#!/usr/bin/env bash\n" + lines, "x.sh": _says("x.sh"), "b/x.sh": _says("b/x.sh")}
    repo = _checkout(tmp_path, files)
    assert _run(tmp_path, repo.path) == "read:b/x.sh\n"
    _each_edit_changes_the_identity(repo, ["b/x.sh"])
    first = _identity(repo)
    repo.write("x.sh", repo.read("x.sh") + b"# changed\n")
    assert _identity(repo) == first


def test_a_substitution_holding_the_tool_leaves_the_command_after_it_here(tmp_path):
    """`X=$(docker ps | head -1); bash x.sh`: the docker is the substitution's; bash runs b/x.sh, read so."""
    _b_alone(tmp_path, "cd b\nX=$(docker ps 2>/dev/null | head -1); bash x.sh\n")


# each: the line, what bash reads with b there, and with b gone (the cd fails)
OR_AFTER_CD = {
    "cd b || bash x.sh": ("cd b 2>/dev/null || bash x.sh\n", "", "read:x.sh\n", ["x.sh"]),
    "cd b && false || bash x.sh": ("cd b 2>/dev/null && false || bash x.sh\n", "read:b/x.sh\n", "read:x.sh\n",
                                   ["x.sh", "b/x.sh"]),
    "if cd b; then :; else bash x.sh; fi": ("if cd b 2>/dev/null; then :; else bash x.sh; fi\n", "", "read:x.sh\n",
                                            ["x.sh"]),
}


@pytest.mark.parametrize("case", OR_AFTER_CD)
def test_after_a_failed_cd_the_right_of_or_runs_from_where_it_was(tmp_path, case):
    """The right side of `||` runs when the cd failed, from the top (x.sh); it may run after a cd that did not fail
    too (`cd b && false || …`: b/x.sh). Each file it may read is hashed."""
    line, there, gone_reads, read = OR_AFTER_CD[case]
    files = {LAUNCHER: "#!/usr/bin/env bash\n" + line, "x.sh": _says("x.sh"), "b/x.sh": _says("b/x.sh")}
    repo = _checkout(tmp_path, files)
    assert _run(tmp_path, repo.path) == there
    gone = tmp_path / "gone"
    shutil.copytree(repo.path, gone, ignore=shutil.ignore_patterns(".git"))
    shutil.rmtree(gone / "b")
    assert _run(tmp_path, gone) == gone_reads
    _each_edit_changes_the_identity(repo, read)


def test_after_cd_or_exit_the_folder_is_the_cds(tmp_path):
    """`cd b || exit 1; bash x.sh`: past the list the run is in b (or gone), as before: b/x.sh alone."""
    _b_alone(tmp_path, "cd b || exit 1\nbash x.sh\n")
