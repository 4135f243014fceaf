"""s51e: ways a launcher runs a tracked script as a command, not through an interpreter's word, that kept a row's
identity while a file the script sources changed (`ci reuse` could hand back a stale result): the script was hashed
as a word naming a file, as data, and what it sources (shared/y.sh) was in no identity.

- a function whose body runs a positional parameter as the command itself (`run() { "$1"; }`, `"$@"`, `$1`, `exec
  "$1"`, `"${@:2}"`, a copy `cmd="$1"; $cmd`, an array copy `a=("$@"); "${a[@]}"`): only a parameter an interpreter
  was given counted (`bash "$1"`);
- a function that hands a parameter to such a function (`wrap() { run_it "$@"; }`), or one that runs its parameters
  as a command called with such a function's name and a script (`retry() { "$@"; }; retry run_it shared/x.sh`), in
  the file or in one it sources;
- an alias (`alias b=./shared/x.sh` under `shopt -s expand_aliases`, then `b`; `alias py=python3`, then `py x.py`);
- a program that runs its words as a command (`timeout 60 ./shared/x.sh`, `nohup`, `exec`, `env A=1`, `command`,
  `stdbuf -oL`, `setsid`, `nice -n 5`, `timeout 9 "$S"` with S set to the path): only a path as the command's own
  word was one;
- an array whose elements run as a command (`cmd=(./shared/x.sh --fast); "${cmd[@]}"`), a loop's variable as the
  command (`for f in shared/x*.sh; do "$f"; done`), a parameter a function gives `trap` or `eval`.

And a function that runs a path it builds from its parameter (`local s="benchmarks/$1"; bash "$s"`, or a copy changed
after: `s="benchmarks/$s"`) had its call's word read as the file run (`run x.sh`: x.sh from the top, which the body
never runs), so the identity held a file the job does not run and missed benchmarks/x.sh: such a variable is now one
only the run knows, and the row has no identity.

Each case runs under real bash in a real git checkout (its output says which files it read), then each file read is
edited: the row's identity changes (or the row has none: never stale)."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import _built, _each_edit_changes_the_identity_or_none, _run
from test_unknown_prefix_s39u import _identity

# x.sh (a script run as a command: it has its `#!` line and its mode) sources y.sh
XY = {"shared/x.sh": "#!/usr/bin/env bash\necho read:shared/x.sh\nsource shared/y.sh\n", "shared/y.sh": None}
RUN_IT = 'run_it() { bash "$1"; }\n'

CASES = {
    'run() { "$1"; }': ('run() { "$1"; }\nrun ./shared/x.sh\n', XY),
    'run() { "$@"; }': ('run() { "$@"; }\nrun ./shared/x.sh\n', XY),
    'run() { $1; }': ('run() { $1; }\nrun shared/x.sh\n', XY),
    'run() { exec "$1"; }': ('run() { exec "$1"; }\nrun ./shared/x.sh\n', XY),
    'function run { "$@" 2>&1 | tee log; }': ('function run { "$@" 2>&1 | tee /dev/null; }\nrun ./shared/x.sh\n', XY),
    'run() ( "$@" )': ('run() ( "$@" )\nrun ./shared/x.sh\n', XY),
    'if ! "$@"; then': ('run() {\n  if ! "$@"; then\n    echo failed\n  fi\n}\nrun ./shared/x.sh\n', XY),
    'retry() { local n=$1; "${@:2}"; }': ('retry() { local n=$1; "${@:2}"; }\nretry 3 ./shared/x.sh\n', XY),
    'local cmd="$1"; $cmd': ('run() { local cmd="$1"; $cmd; }\nrun ./shared/x.sh\n', XY),
    'local -a a=("$@"); "${a[@]}"': ('run() { local -a a=("$@"); "${a[@]}"; }\nrun ./shared/x.sh\n', XY),
    'retry() { "$@"; }; retry run_it x.sh': (RUN_IT + 'retry() { "$@"; }\nretry run_it shared/x.sh\n', XY),
    'retry with a loop; retry run_it x.sh': (
        RUN_IT + 'retry() {\n  for i in 1 2 3; do\n    "$@" && return 0\n    sleep 0\n  done\n}\n'
        'retry run_it shared/x.sh\n', XY),
    'wrap() { run_it "$@"; }': (RUN_IT + 'wrap() { run_it "$@"; }\nwrap shared/x.sh\n', XY),
    'wrap() { local f="$1"; run_it "$f"; }': (RUN_IT + 'wrap() { local f="$1"; run_it "$f"; }\nwrap shared/x.sh\n', XY),
    'source lib.sh (retry() { "$@"; }); retry ./x.sh': (
        'source shared/lib.sh\nretry ./shared/x.sh\n', {**XY, "shared/lib.sh": 'retry() { timeout 600 "$@"; }\n'}),
    'source lib.sh (run_it); wrap() { run_it "$@"; }': (
        'source shared/lib.sh\nwrap() { run_it "$@"; }\nwrap shared/x.sh\n', {**XY, "shared/lib.sh": RUN_IT}),
    "alias b=./shared/x.sh": ("shopt -s expand_aliases\nalias b=./shared/x.sh\nb\n", XY),
    "alias b='timeout 60 ./shared/x.sh --fast'": (
        "shopt -s expand_aliases\nalias b='timeout 60 ./shared/x.sh --fast'\nb\n", XY),
    "alias py=python3; py shared/x.py": (
        "shopt -s expand_aliases\nalias py=python3\npy shared/x.py\n",
        {"shared/x.py": "import m\n", "shared/m.py": None}),
    "source lib.sh (alias b=...); b": (
        "source shared/lib.sh\nb\n", {**XY, "shared/lib.sh": "shopt -s expand_aliases\nalias b=./shared/x.sh\n"}),
    "timeout 60 ./shared/x.sh": ("timeout 60 ./shared/x.sh\n", XY),
    "timeout -s KILL 60 ./shared/x.sh": ("timeout -s KILL 60 ./shared/x.sh\n", XY),
    "nohup ./shared/x.sh": ("nohup ./shared/x.sh > /dev/null 2>&1\ncat nohup.out 2>/dev/null\nnohup ./shared/x.sh\n",
                            XY),
    "exec ./shared/x.sh": ("exec ./shared/x.sh\n", XY),
    "env A=1 ./shared/x.sh": ("env A=1 ./shared/x.sh\n", XY),
    "command ./shared/x.sh": ("command ./shared/x.sh\n", XY),
    "stdbuf -oL ./shared/x.sh | tee": ("stdbuf -oL ./shared/x.sh | tee /dev/null\n", XY),
    "setsid -w ./shared/x.sh": ("setsid -w ./shared/x.sh\n", XY),
    "nice -n 5 ./shared/x.sh": ("nice -n 5 ./shared/x.sh\n", XY),
    'S=./shared/x.sh; timeout 9 "$S"': ('S=./shared/x.sh\ntimeout 9 "$S"\n', XY),
    # an array whose elements run as a command, a loop's variable as the command, a trap or eval of a parameter
    'cmd=(./shared/x.sh --fast); "${cmd[@]}"': ('cmd=(./shared/x.sh --fast)\n"${cmd[@]}"\n', XY),
    'local -a cmd=(...) over lines; timeout 60 "${cmd[@]}"': (
        'f() {\n  local -a cmd=(\n    ./shared/x.sh  # the client\n    --fast\n  )\n'
        '  timeout 60 "${cmd[@]}"\n}\nf\n', XY),
    'for f in shared/x*.sh; do "$f"; done': ('for f in shared/x*.sh; do "$f"; done\n', XY),
    'on_exit() { trap "$1" EXIT; }': ('on_exit() { trap "$1" EXIT; }\non_exit ./shared/x.sh\n', XY),
    'run() { eval "$1"; }': ('run() { eval "$1"; }\nrun ./shared/x.sh\n', XY),
}


def _executable(repo):
    """The scripts of ``repo`` with the mode a script run as a command has, committed."""
    for path in repo.path.rglob("*.sh"):
        path.chmod(0o755)
    repo.git("add", "-A")
    repo.git("commit", "-q", "--allow-empty", "-m", "modes")
    return repo


@pytest.mark.parametrize("case", CASES)
def test_an_edit_to_a_file_the_command_runs_changes_the_identity(tmp_path, case):
    lines, files = CASES[case]
    repo = _executable(_built(tmp_path, lines, files))
    read = _run(repo)
    assert {"shared/y.sh", "shared/m.py"} & set(read), read  # real bash runs the script (and what it sources)
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, read)


GUARDS = {
    # a function that gives its parameters to a program that reads them (InferenceX's helpers: `amd-smi "$@"`)
    'sidecar() { local out="$1"; shift; cat "$@" > "$out"; }': (
        'sidecar() { local out="$1"; shift; cat "$@" > "$out"; }\nsidecar /dev/null shared/x.sh\n'),
    # an alias's name as an argument, and a program that runs no command
    "alias b=true; echo b shared/x.sh; ls shared/x.sh": (
        "alias b=true\necho b shared/x.sh\nls shared/x.sh > /dev/null\n"),
}


@pytest.mark.parametrize("case", GUARDS)
def test_a_script_only_read_keeps_what_it_sources_out(tmp_path, case):
    """Guard: a script named as a word of a command that only reads it (or prints it) runs nothing: an edit to what
    it would source keeps the row's identity (it is data, not a file run)."""
    repo = _executable(_built(tmp_path, GUARDS[case], XY))
    assert "shared/y.sh" not in _run(repo)
    first = _identity(repo)
    assert first is not None
    repo.write("shared/y.sh", repo.read("shared/y.sh") + b"\n# changed\n")
    assert _identity(repo) == first


# A function that runs a path it builds from its parameter (a6ccb3e0 read `run x.sh` as x.sh run from the top, a file
# the body never runs, and kept the identity: x.sh at the top is another file than benchmarks/x.sh)
BUILT = {"benchmarks/x.sh": "echo read:benchmarks/x.sh\nsource shared/y.sh\n", "shared/y.sh": None,
         "x.sh": "echo not-run\n"}
FROM_PARAMETER = {
    'local s="$1"; s="benchmarks/$s"; bash "$s"': 'run() { local s="$1"; s="benchmarks/$s"; bash "$s"; }\nrun x.sh\n',
    'local s="benchmarks/$1"; bash "$s"': 'run() { local s="benchmarks/$1"; bash "$s"; }\nrun x.sh\n',
}


@pytest.mark.parametrize("case", FROM_PARAMETER)
def test_a_path_a_function_builds_from_its_parameter_is_none_the_call_spells(tmp_path, case):
    """The row has no identity (the file run is one only the run knows), or an edit to each file read changes it."""
    repo = _built(tmp_path, FROM_PARAMETER[case], BUILT)
    read = _run(repo)
    assert read == ["benchmarks/x.sh", "shared/y.sh"], read
    _each_edit_changes_the_identity_or_none(repo, read)
