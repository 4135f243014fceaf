"""s41j: a file a launcher runs (not sources) was read as if it started at the checkout's top, or dropped.

Since s40ff a file run by a path from the working folder is hashed (``Reading.ran``). But bash runs it from the working
folder at the run, and the run identity read it from the top: `cd b; bash x.sh` with x.sh's `source y.sh` hashed y.sh,
where bash reads b/y.sh, so an edit to b/y.sh kept the identity (stale reuse); so did `cd "$(dirname "$0")"; bash
./x.sh`, the common way. A file run where only the run knows the working folder (`cd "$GITHUB_WORKSPACE"; python3
utils/t.py`, a command string or a function after a `cd`) was dropped, and so was one run through a tracked link to a
folder (`bash bench/x.sh`, bench -> shared) or inside a submodule (`python3 vendor/tools/t.py`), where a `source` of the
same path is followed. A file run now starts where the run is, and is followed as a file sourced there is.

Each case runs real bash in a real git checkout: every file bash reads is then hashed (an edit, or a bump of the
submodule holding it, changes the identity)."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import GitRepo
from test_reuse import M_ROW
from test_unknown_prefix_s39u import _checkout, _identity

from sweepgate.core import identity, shellwords

LAUNCHER = identity.launcher_files(M_ROW["runner"], {})[0]
HERE = os.path.dirname(LAUNCHER)


def _says(path: str) -> str:
    return f"print('read:{path}')\n" if path.endswith(".py") else f"echo read:{path}\n"


def _read_by_bash(repo: GitRepo) -> list[str]:
    """The files bash reads when the launcher runs from the checkout's top, the workspace being the checkout."""
    out = subprocess.run(["bash", LAUNCHER], cwd=repo.path, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "GITHUB_WORKSPACE": str(repo.path)}).stdout
    return [line.split(":", 1)[1] for line in out.splitlines() if line.startswith("read:")]


def _each_edit_changes_the_identity(repo: GitRepo, paths: list[str]) -> None:
    """An edit to any of the files bash reads changes the row's run identity (none is left out of the hash)."""
    for path in paths:
        first = _identity(repo)
        assert first is not None
        repo.write(path, repo.read(path) + b"# changed\n")
        assert _identity(repo) not in (None, first), path


def _read_from_the_working_folder(tmp_path, text: str, files: dict[str, str], read: list[str]) -> None:
    """The launcher's lines run by real bash read exactly ``read``, and each of those files is hashed."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text,
                                **{path: _says(path) + more for path, more in files.items()}})
    assert _read_by_bash(repo) == read
    _each_edit_changes_the_identity(repo, read)


# each: the launcher's lines, the files (path -> what it does after saying it was read), the files bash reads
RUN_FROM_THE_WORKING_FOLDER = {
    "cd b; bash x.sh, x.sh sourcing y.sh": (
        "cd b\nbash x.sh\n", {"b/x.sh": "source y.sh\n", "b/y.sh": "", "y.sh": ""}, ["b/x.sh", "b/y.sh"]),
    'cd "$(dirname "$0")"; bash ./x.sh': (
        'cd "$(dirname "$0")"\nbash ./x.sh\n', {f"{HERE}/x.sh": "source y.sh\n", f"{HERE}/y.sh": "", "y.sh": ""},
        [f"{HERE}/x.sh", f"{HERE}/y.sh"]),
    "(cd b && bash x.sh)": (
        "(cd b && bash x.sh)\n", {"b/x.sh": "source y.sh\n", "b/y.sh": "", "y.sh": ""}, ["b/x.sh", "b/y.sh"]),
    "pushd b; bash x.sh; popd": (
        "pushd b >/dev/null\nbash x.sh\npopd >/dev/null\n", {"b/x.sh": "source y.sh\n", "b/y.sh": "", "y.sh": ""},
        ["b/x.sh", "b/y.sh"]),
    "cd b; ./run.sh": (
        "chmod +x b/run.sh\ncd b\n./run.sh\n", {"b/run.sh": "source y.sh\n", "b/y.sh": "", "y.sh": ""},
        ["b/run.sh", "b/y.sh"]),
    'cd b; bash "$PWD/x.sh"': (
        'cd b\nbash "$PWD/x.sh"\n', {"b/x.sh": "source y.sh\n", "b/y.sh": "", "y.sh": ""}, ["b/x.sh", "b/y.sh"]),
    "cd b/c; bash ../a.sh, from b/c": (
        "cd b/c\nbash ../a.sh\n", {"b/a.sh": "source y.sh\n", "b/c/y.sh": "", "b/y.sh": ""}, ["b/a.sh", "b/c/y.sh"]),
    'bash -c "cd b; bash x.sh"': (
        'bash -c "cd b; bash x.sh"\n', {"b/x.sh": "source y.sh\n", "b/y.sh": "", "y.sh": ""}, ["b/x.sh", "b/y.sh"]),
}


# the working folder only the run knows: every tracked file ending so may be the one run, read from there
RUN_WHERE_ONLY_THE_RUN_KNOWS = {
    'cd "$GITHUB_WORKSPACE"; python3 utils/t.py': (
        'cd "$GITHUB_WORKSPACE"\npython3 utils/t.py\n', {"utils/t.py": ""}, ["utils/t.py"]),
    'cd "$GITHUB_WORKSPACE/b"; bash x.sh': (
        'cd "$GITHUB_WORKSPACE/b"\nbash x.sh\n', {"b/x.sh": "source y.sh\n", "b/y.sh": ""}, ["b/x.sh", "b/y.sh"]),
    'cd b; bash -c "bash x.sh"': (
        'cd b\nbash -c "bash x.sh"\n', {"b/x.sh": "source y.sh\n", "b/y.sh": ""}, ["b/x.sh", "b/y.sh"]),
    "go() { bash x.sh; }; cd b; go": (
        "go() { bash x.sh; }\ncd b\ngo\n", {"b/x.sh": "source y.sh\n", "b/y.sh": ""}, ["b/x.sh", "b/y.sh"]),
}


@pytest.mark.parametrize("how", [*RUN_FROM_THE_WORKING_FOLDER, *RUN_WHERE_ONLY_THE_RUN_KNOWS])
def test_a_file_run_is_read_from_the_working_folder_at_the_run(tmp_path, how):
    _read_from_the_working_folder(tmp_path, *{**RUN_FROM_THE_WORKING_FOLDER, **RUN_WHERE_ONLY_THE_RUN_KNOWS}[how])


def test_a_file_run_through_a_tracked_link_to_a_folder_is_hashed(tmp_path):
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\nbash bench/x.sh\n",
                                "shared/x.sh": _says("shared/x.sh") + "source shared/y.sh\n",
                                "shared/y.sh": _says("shared/y.sh")})
    os.symlink("shared", repo.path / "bench")
    repo.commit(message="bench -> shared")
    assert _read_by_bash(repo) == ["shared/x.sh", "shared/y.sh"]
    _each_edit_changes_the_identity(repo, ["shared/x.sh", "shared/y.sh"])
    first = _identity(repo)
    os.remove(repo.path / "bench")
    os.symlink("benchmarks", repo.path / "bench")  # the link pointed elsewhere: another file runs
    assert _identity(repo) not in (None, first)


def test_a_bump_of_the_submodule_holding_a_file_run_changes_the_identity(tmp_path):
    sub = GitRepo(tmp_path / "tools")
    sub.path.mkdir()
    sub.git("init", "-q", "-b", "main")
    sub.commit({"t.py": _says("vendor/tools/t.py")}, "tools")
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\npython3 vendor/tools/t.py\n"})
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.path), "vendor/tools")
    repo.git("commit", "-q", "-m", "submodule")
    assert _read_by_bash(repo) == ["vendor/tools/t.py"]
    first = _identity(repo)
    assert first is not None
    inside = GitRepo(repo.path / "vendor/tools")
    inside.commit({"t.py": _says("vendor/tools/t.py") + "# changed\n"}, "bump")
    repo.git("add", "vendor/tools")
    repo.git("commit", "-q", "-m", "bump")
    assert _identity(repo) not in (None, first)


def test_a_file_run_that_the_checkout_has_not_still_changes_nothing(tmp_path):
    """Guard: a path naming no file of the checkout, no link or submodule on its way, keeps the identity."""
    (tmp_path / "base").mkdir()
    (tmp_path / "run").mkdir()
    base = _checkout(tmp_path / "base", {})
    repo = _checkout(tmp_path / "run", {LAUNCHER: "#!/usr/bin/env bash\npython3 bench/missing.py\n"
                                                  "cd b\nbash missing/run.sh\n"})
    assert _identity(repo) is not None
    blobs = identity.read_all([M_ROW], {}, identity.read_tree(str(repo.path)))
    base_blobs = identity.read_all([M_ROW], {}, identity.read_tree(str(base.path)))
    assert identity.executed_files(M_ROW, {}, blobs) == identity.executed_files(M_ROW, {}, base_blobs)



# an `if`'s `else`/`elif` runs as after the condition, the `then` branch not run; after the `fi`, either
AFTER_A_CONDITION = {
    "if …; then cd a; else bash x.sh; fi": (
        'if [ -n "$NOPE" ]; then\n  cd a || exit 1\nelse\n  bash x.sh\nfi\n',
        {"x.sh": "source y.sh\n", "y.sh": "", "a/x.sh": "", "a/y.sh": ""}, ["x.sh", "y.sh"]),
    "if …; then cd a; elif …; then source y.sh; fi": (
        'if [ -n "$NOPE" ]; then cd a; elif true; then source y.sh; fi\n', {"y.sh": "", "a/y.sh": ""}, ["y.sh"]),
    "if …; then true; else cd a; fi; source y.sh": (
        'if true; then true; else cd a; fi\nsource y.sh\n', {"y.sh": "", "a/y.sh": ""}, ["y.sh"]),
    "if …; then cd a; else true; fi; source y.sh": (
        'if true; then cd a; else true; fi\nsource y.sh\n', {"y.sh": "", "a/y.sh": ""}, ["a/y.sh"]),
}


@pytest.mark.parametrize("how", AFTER_A_CONDITION)
def test_an_else_branch_runs_where_the_condition_left_the_run(tmp_path, how):
    _read_from_the_working_folder(tmp_path, *AFTER_A_CONDITION[how])


def test_the_reading_of_an_else_branch_is_exact():
    """Reading more than bash runs costs a reuse at most; here it is what bash runs: the `else` from the top."""
    read = shellwords.reading('if [ -n "$X" ]; then\n  cd "$SRT" || exit 1\nelse\n  bash x.sh\n  source y.sh\nfi\n')
    assert [place for _, place in read.ran] == [(shellwords.TOP, "x.sh")] and read.ran_tails == []
    assert [place for _, place in read.sourced] == [(shellwords.TOP, "y.sh")] and read.tails == []


@pytest.mark.parametrize("launcher", ['cd "$GITHUB_WORKSPACE/vendor/tools"\npython3 t.py\n',
                                      'cd "$TOOLS"\npython3 t.py\n', 'python3 "$TOOLS/t.py"\n'])
def test_a_file_run_from_a_start_only_the_run_knows_may_be_in_any_submodule(tmp_path, launcher):
    """As a `source` from such a start: the folder may be inside a submodule, so a bump of it changes the identity
    (a file run was read as from the workspace, a submodule hashed only when the names went through it: stale)."""
    sub = GitRepo(tmp_path / "tools")
    sub.path.mkdir()
    sub.git("init", "-q", "-b", "main")
    sub.commit({"t.py": _says("vendor/tools/t.py")}, "tools")
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + launcher})
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.path), "vendor/tools")
    repo.git("commit", "-q", "-m", "submodule")
    out = subprocess.run(["bash", LAUNCHER], cwd=repo.path, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "GITHUB_WORKSPACE": str(repo.path),
                              "TOOLS": str(repo.path / "vendor/tools")}).stdout
    assert out == "read:vendor/tools/t.py\n"
    first = _identity(repo)
    assert first is not None
    GitRepo(repo.path / "vendor/tools").commit({"t.py": _says("vendor/tools/t.py") + "# changed\n"}, "bump")
    repo.git("add", "vendor/tools")
    repo.git("commit", "-q", "-m", "bump")
    assert _identity(repo) not in (None, first)


# a command that runs the next one in the same working folder, and an interpreter's options that take a value
RUN_THROUGH = ["exec bash x.sh", "env VAR=1 bash x.sh", "env -i bash x.sh", "command bash x.sh",
               "timeout 10 python3 t.py", "timeout -k 5 10s bash x.sh", "nohup bash x.sh 2>/dev/null",
               "nice -n 5 bash x.sh", "time bash x.sh", "exec python3 t.py", "bash -o pipefail x.sh",
               "bash --norc x.sh", "python3 -W ignore t.py", "python3 -X dev t.py", "cd b\nexec bash x.sh"]


@pytest.mark.parametrize("line", RUN_THROUGH)
def test_a_file_run_through_a_command_or_after_options_is_hashed(tmp_path, line):
    ran = ("b/" if line.startswith("cd b") else "") + ("t.py" if "python3" in line else "x.sh")
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + line + "\n", ran: _says(ran)})
    assert _read_by_bash(repo) == [ran]
    _each_edit_changes_the_identity(repo, [ran])


# a file an interpreter reads on its standard input, and one run where only the run knows the working folder
FED_OR_ELSEWHERE = {"bash < x.sh": "x.sh", "cat x.sh | bash": "x.sh", "bash -s < x.sh": "x.sh",
                    "python3 - < t.py": "t.py", "srun --ntasks=1 bash x.sh": "x.sh",
                    "cd b\nsrun --chdir=. bash x.sh": "b/x.sh"}


@pytest.mark.parametrize("line", FED_OR_ELSEWHERE)
def test_a_file_fed_to_an_interpreter_or_run_elsewhere_is_hashed(tmp_path, line):
    ran = FED_OR_ELSEWHERE[line]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + line + "\n", ran: _says(ran)})
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "srun").write_text('#!/bin/sh\nwhile [ "${1#-}" != "$1" ]; do shift; done\nexec "$@"\n')  # a node here
    (shim / "srun").chmod(0o755)
    out = subprocess.run(["bash", LAUNCHER], cwd=repo.path, capture_output=True, text=True,
                         env={"PATH": f"{shim}:/usr/bin:/bin", "GITHUB_WORKSPACE": str(repo.path)}).stdout
    assert out == f"read:{ran}\n"
    _each_edit_changes_the_identity(repo, [ran])


# s41t: a command that runs the interpreter in another working folder (a container's, a node's, `env -C`'s): the file
# bash runs there is read as from a folder only the run knows (every tracked file ending in its names), not the folder
# at the line. The stand-ins run it where the real ones would: docker's `-w /ws` with the workspace at /ws, `env -C b`
ELSEWHERE_SHIMS = {
    "docker": '#!/bin/sh\nshift\nwhile [ "${1#-}" != "$1" ]; do case "$1" in -w|-v|-e) shift;; esac; shift; done\n'
              'shift\ncd "$GITHUB_WORKSPACE" && exec "$@"\n',  # run, its options, the image: /ws is the workspace
}
RUN_IN_ANOTHER_FOLDER = {
    'cd b; docker run -v "$GITHUB_WORKSPACE:/ws" -w /ws img bash x.sh': (
        'cd b\ndocker run -v "$GITHUB_WORKSPACE:/ws" -w /ws img bash x.sh\n', "x.sh"),
    "env -C b bash x.sh": ("env -C b bash x.sh\n", "b/x.sh"),
    "timeout 60 env -C b python3 t.py": ("timeout 60 env -C b python3 t.py\n", "b/t.py"),
}


@pytest.mark.parametrize("case", RUN_IN_ANOTHER_FOLDER)
def test_a_file_run_in_another_working_folder_is_hashed(tmp_path, case):
    lines, ran = RUN_IN_ANOTHER_FOLDER[case]
    name = os.path.basename(ran)
    files = {LAUNCHER: "#!/usr/bin/env bash\n" + lines, ran: _says(ran)}
    files.update({other: _says(other) for other in (name, f"b/{name}") if other != ran})  # where the line stands
    repo = _checkout(tmp_path, files)
    shim = tmp_path / "bin"
    shim.mkdir()
    for tool, body in ELSEWHERE_SHIMS.items():
        (shim / tool).write_text(body)
        (shim / tool).chmod(0o755)
    out = subprocess.run(["bash", LAUNCHER], cwd=repo.path, capture_output=True, text=True,
                         env={"PATH": f"{shim}:/usr/bin:/bin", "GITHUB_WORKSPACE": str(repo.path)}).stdout
    assert out == f"read:{ran}\n"
    _each_edit_changes_the_identity(repo, [ran])
