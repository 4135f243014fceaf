"""s41k: run identities that were wrong (a file bash reads for the job left out of the hash, so `ci reuse` handed back
stale results), found by a read-only probe running real bash. Each case runs the launcher with real bash from the
checkout's top (``_read_by_bash``: every file of the case says when bash or python reads it), then edits each file
read and checks that the identity changes (``_stale``), in a real git repository.

E. `$0` in a SOURCED file was taken for that file, but bash gives the script it runs: `source shared/h.sh`, h.sh
   doing `source "$(dirname "$0")/y.sh"` reads the launcher's folder's y.sh.
B. A file run through a wrapper (`timeout 600 python3 utils/t.py`, `env`, `nohup`, `srun`, `docker run ... bash x.sh`,
   `xargs`, a function), with an option taking an argument (`bash -o pipefail x.sh`, `python3 -W ignore t.py`) or on
   standard input (`bash < x.sh`, `cat x.sh | bash`, `python3 - < t.py`) was not hashed: only an interpreter where a
   command begins, with options of no argument, was read.
J. `GITHUB_WORKSPACE` set in another file (a file sourced, or the one running this one), then `bash
   "$GITHUB_WORKSPACE/x.sh"`: whether the workspace was moved was asked of the running file alone, so the top's x.sh
   was hashed and not the b/x.sh bash runs.
K. `export PATH="$GITHUB_WORKSPACE/tools:$PATH"`, then `source env.sh` (bash's `source` looks along PATH first) or
   `run.sh`: tools/env.sh, tools/run.sh were not hashed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_unknown_prefix_s39u import LAUNCHER, _checkout, _identity  # noqa: E402

LOG = "READ_LOG"


def _marked(path: str, text: str) -> str:
    """``text`` saying, when bash (or python, for a .py) reads it, that ``path`` was read."""
    if path.endswith(".py"):
        return f"import os; open(os.environ['{LOG}'], 'a').write('{path}\\n')\n" + text
    return f'echo "{path}" >> "${LOG}"\n' + text


def _read_by_bash(repo, tmp_path: Path, bin_files: dict[str, str] = {}) -> list[str]:
    """The case's files real bash (and what it runs) reads running the launcher from the top, the workspace there;
    ``bin_files``: stand-in commands (`srun`, `docker`) on the PATH."""
    log, bin_dir = tmp_path / "read.log", tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, text in bin_files.items():
        (bin_dir / name).write_text(text)
        os.chmod(bin_dir / name, 0o755)
    log.write_text("")
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "GITHUB_WORKSPACE": str(repo.path), LOG: str(log),
           "HOME": str(tmp_path)}
    subprocess.run(["bash", LAUNCHER], cwd=repo.path, env=env, capture_output=True, text=True, timeout=60)
    return list(dict.fromkeys(log.read_text().split()))


def _stale(tmp_path: Path, files: dict[str, str], bin_files: dict[str, str] = {}, executable: list[str] = ()
           ) -> list[str]:
    """The files of ``files`` real bash reads for the job whose edit keeps the row's identity (after asserting it has
    one and that bash read one of them at least); ``executable``: files of them to mark so."""
    repo = _checkout(tmp_path, {path: text if path == LAUNCHER or text.startswith("#!") else _marked(path, text)
                                for path, text in files.items()})
    for path in executable:
        text = files[path]
        (repo.path / path).write_text(text.replace("\n", "\n" + _marked(path, ""), 1))
        os.chmod(repo.path / path, 0o755)
        repo.git("add", path)
        repo.git("commit", "-q", "-m", "x")
    read = [path for path in _read_by_bash(repo, tmp_path, bin_files) if path != LAUNCHER]
    assert read, "bash read none of the case's files"
    first = _identity(repo)
    assert first is not None
    stale = []
    for path in read:
        before = repo.read(path)
        repo.commit({path: before.decode() + "# edited\n"}, "edit")
        if _identity(repo) == first:
            stale.append(path)
        repo.commit({path: before.decode()}, "back")
    return stale


BESIDE_BOTH = {"benchmarks/runners/y.sh": "true\n", "shared/y.sh": "true\n"}

# --- E: `$0` in a sourced file is the running script -------------------------------------------------------------

DOLLAR0_IN_SOURCED = {
    "dirname": 'source "$(dirname "$0")/y.sh"\n',
    "%/*": 'source "${0%/*}/y.sh"\n',
    "cd && pwd": 'D="$(cd "$(dirname "$0")" && pwd)"\nsource "$D/y.sh"\n',
    "SCRIPT_DIR": 'SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)\nsource "$SCRIPT_DIR/y.sh"\n',
    "realpath": 'source "$(dirname "$(realpath "$0")")/y.sh"\n',
    "in a function": 'ld() { source "$(dirname "$0")/y.sh"; }\nld\n',
    "cd there": 'cd "$(dirname "$0")"\nsource ./y.sh\n',
    "cd there, a bare name": 'cd "$(dirname "$0")" || exit 1\nsource y.sh\n',
}


@pytest.mark.parametrize("how", DOLLAR0_IN_SOURCED)
def test_dollar0_in_a_sourced_file_is_the_running_script(tmp_path, how):
    files = {LAUNCHER: "#!/usr/bin/env bash\nsource shared/h.sh\n", "shared/h.sh": DOLLAR0_IN_SOURCED[how],
             **BESIDE_BOTH}
    assert _stale(tmp_path, files) == []


def test_dollar0_in_a_sourced_file_names_a_file_run_beside_the_running_script(tmp_path):
    files = {LAUNCHER: "#!/usr/bin/env bash\nsource shared/h.sh\n", "shared/h.sh": 'python3 "$(dirname "$0")/t.py"\n',
             "benchmarks/runners/t.py": "print(1)\n", "shared/t.py": "print(2)\n"}
    assert _stale(tmp_path, files) == []


def test_dollar0_in_a_file_sourced_by_a_file_run_is_that_file(tmp_path):
    files = {LAUNCHER: "#!/usr/bin/env bash\nbash shared/r.sh\n", "shared/r.sh": "source b/h.sh\n",
             "b/h.sh": 'source "$(dirname "$0")/y.sh"\n', "b/y.sh": "true\n", **BESIDE_BOTH}
    assert _stale(tmp_path, files) == []


def test_bash_source_in_a_sourced_file_still_reads_beside_it(tmp_path):
    """The guard: `${BASH_SOURCE[0]}` in a sourced file is that file."""
    files = {LAUNCHER: "#!/usr/bin/env bash\nsource shared/h.sh\n",
             "shared/h.sh": 'source "$(dirname "${BASH_SOURCE[0]}")/y.sh"\n', **BESIDE_BOTH}
    assert _stale(tmp_path, files) == []


# --- B: a file run through a wrapper, with an option's argument, or on standard input -----------------------------

SRUN = '#!/bin/bash\nwhile [[ $1 == -* ]]; do shift; done\nexec "$@"\n'
# docker run [options] IMAGE CMD...: runs CMD on the host in the folder -w names, mapped back through -v
DOCKER = r"""#!/bin/bash
[ "$1" = run ] && shift
declare -A M; W=/
while [[ $1 == -* ]]; do
  case $1 in -v) M[${2#*:}]=${2%%:*}; shift 2;; -w) W=$2; shift 2;; *) shift;; esac
done
shift
D=${M[$W]:-$W}
cd "$D" && exec "$@"
"""
RUN_THROUGH = {
    "exec": "exec bash x.sh\n",
    "env VAR=1": "env VAR=1 bash x.sh\n",
    "env -i": 'env -i READ_LOG="$READ_LOG" bash x.sh\n',
    "timeout": "timeout 600 python3 utils/t.py\n",
    "nohup": "nohup bash x.sh\n",
    "nice": "nice -n 5 bash x.sh\n",
    "command": "command bash x.sh\n",
    "srun": "srun --nodes=1 bash x.sh\n",
    "docker": 'docker run --rm -v "$GITHUB_WORKSPACE:/ws" -w /ws img bash x.sh\n',
    "xargs": "echo x.sh | xargs bash\n",
    "a function": 'run() { "$@"; }\nrun bash x.sh\n',
    "bash -o pipefail": "bash -o pipefail x.sh\n",
    "bash --norc": "bash --norc x.sh\n",
    "python3 -W ignore": "python3 -W ignore utils/t.py\n",
    "python3 -X dev": "python3 -X dev utils/t.py\n",
    "bash < x.sh": "bash < x.sh\n",
    "bash -s <": "bash -s < x.sh\n",
    "cat | bash": "cat x.sh | bash\n",
    "python3 - <": "python3 - < utils/t.py\n",
    "timeout with a variable": 'S=x.sh\ntimeout 60 bash "$S"\n',
    "workspace through a wrapper": 'nohup bash "$GITHUB_WORKSPACE/x.sh"\n',
}


@pytest.mark.parametrize("how", RUN_THROUGH)
def test_a_file_run_through_a_wrapper_or_on_standard_input_is_hashed(tmp_path, how):
    files = {LAUNCHER: "#!/usr/bin/env bash\n" + RUN_THROUGH[how], "x.sh": "true\n", "utils/t.py": "pass\n"}
    assert _stale(tmp_path, files, {"srun": SRUN, "docker": DOCKER}) == []


def test_what_a_file_run_through_a_wrapper_sources_is_hashed_too(tmp_path):
    files = {LAUNCHER: "#!/usr/bin/env bash\ntimeout 60 bash -o pipefail x.sh\n", "x.sh": "source shared/y.sh\n",
             "shared/y.sh": "true\n"}
    assert _stale(tmp_path, files) == []


# --- J: the workspace's variable set in another file --------------------------------------------------------------

WORKSPACE_MOVED = {
    "in a file sourced": {LAUNCHER: 'source shared/env.sh\nbash "$GITHUB_WORKSPACE/x.sh"\n',
                          "shared/env.sh": 'GITHUB_WORKSPACE="$GITHUB_WORKSPACE/b"\n'},
    "exported, run in a file sourced": {LAUNCHER: 'export GITHUB_WORKSPACE="$GITHUB_WORKSPACE/b"\nsource shared/h.sh\n',
                                        "shared/h.sh": 'python3 "$GITHUB_WORKSPACE/x.py"\n'},
    "for a file run": {LAUNCHER: 'GITHUB_WORKSPACE="$GITHUB_WORKSPACE/b" bash shared/r.sh\n',
                       "shared/r.sh": 'bash "$GITHUB_WORKSPACE/x.sh"\n'},
    "in a file sourced, its run file sourcing": {LAUNCHER: 'source shared/env.sh\nbash "$GITHUB_WORKSPACE/x.sh"\n',
                                                 "shared/env.sh": 'GITHUB_WORKSPACE="$GITHUB_WORKSPACE/b"\n',
                                                 "b/x.sh": 'source "$GITHUB_WORKSPACE/y.sh"\n'},
}


@pytest.mark.parametrize("how", WORKSPACE_MOVED)
def test_a_file_run_from_a_workspace_another_file_moved_is_hashed(tmp_path, how):
    files = {"x.sh": "true\n", "b/x.sh": "true\n", "x.py": "pass\n", "b/x.py": "pass\n", "b/y.sh": "true\n",
             **WORKSPACE_MOVED[how]}
    files[LAUNCHER] = "#!/usr/bin/env bash\n" + files[LAUNCHER]
    assert _stale(tmp_path, files) == []


# --- K: a bare name sourced or run through a PATH a file of the job changed ---------------------------------------

PATH_MOVED = {
    "source": 'export PATH="$GITHUB_WORKSPACE/tools:$PATH"\nsource env.sh\n',
    ". quoted": 'PATH="$GITHUB_WORKSPACE/tools:$PATH"\n. "env.sh"\n',
    "a script run": 'export PATH="$GITHUB_WORKSPACE/tools:$PATH"\nrun.sh\n',
    "a command of no extension": 'export PATH="$GITHUB_WORKSPACE/tools:$PATH"\ntune\n',
    "through a wrapper": 'export PATH="$GITHUB_WORKSPACE/tools:$PATH"\ntimeout 60 tune\n',
    "set in a file sourced": 'source shared/env.sh\nsource lib.sh\n',
    "set in the file that runs it": 'PATH="$PWD/tools:$PATH" bash shared/r.sh\n',
}


@pytest.mark.parametrize("how", PATH_MOVED)
def test_a_bare_name_through_a_path_a_file_of_the_job_changed_is_hashed(tmp_path, how):
    files = {LAUNCHER: "#!/usr/bin/env bash\n" + PATH_MOVED[how], "env.sh": "true\n", "tools/env.sh": "true\n",
             "tools/run.sh": "#!/bin/bash\ntrue\n", "tools/tune": "#!/bin/bash\ntrue\n", "tools/lib.sh": "true\n",
             "lib.sh": "true\n", "shared/env.sh": 'PATH="$PWD/tools:$PATH"\n', "shared/r.sh": "source lib.sh\n"}
    assert _stale(tmp_path, files, executable=["tools/run.sh", "tools/tune"]) == []
