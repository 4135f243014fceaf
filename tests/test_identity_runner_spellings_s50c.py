"""s50c: spellings of s43n's and s49c's functions that run a parameter, and of a call's last word, that kept a row's
identity while a file the job reads changed (`ci reuse` could hand back a stale result):

- a body that runs its parameter with a default or a check (`bash "${1:?need a script}"`, `local script="${1:-}"`,
  the way a `set -u` script takes its arguments) was no function that runs a parameter, so `run_it shared/x.sh`
  hashed x.sh as a word naming a file, as data, and what x.sh sources (shared/y.sh) was in no identity;
- the last word of a command substitution or a subshell (`out=$(run_it shared/x.sh)`, `$(python3 r.py cfg.txt)`,
  `(python3 r.py cfg.txt)`) was taken for a `case` item's pattern, for a `)` follows it, and was no word of its
  command at all: neither x.sh nor cfg.txt was in the identity;
- a call in the body of a function defined before the one that runs a parameter (`main() { run_it shared/x.sh; }`,
  then `run_it() { bash "$1"; }` or `source shared/lib.sh`, then `main`, as a script with its `main` on top is
  written) was no call: the rule read only the text after the definition;
- a call of a function a file sourced defines, with a variable the text set to a path (`S=shared/x.sh`, `run_it
  "$S"`), was read as a word that names no file (only a word that spells a path or a script's name was one, s49c);
- a body that runs each of its parameters in a loop (`for s in "$@"; do bash "$s"; done`, `for s; do …`) was no
  function that runs a parameter."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import _built, _each_edit_changes_the_identity_or_none, _run
from test_unknown_prefix_s39u import _identity

XY = {"shared/x.sh": "echo read:shared/x.sh\nsource shared/y.sh\n", "shared/y.sh": None}
R = {"shared/r.py": "import sys\nprint(open(sys.argv[1]).read())\n", "shared/cfg.txt": None}

CASES = {
    'bash "${1:?need a script}"': ('run_it() { bash "${1:?need a script}"; }\nrun_it shared/x.sh\n', XY),
    'bash "${1-}"': ('run_it() { bash "${1-}"; }\nrun_it shared/x.sh\n', XY),
    'local s=${1-}': ('run_it() { local s=${1-}; bash "$s"; }\nrun_it shared/x.sh\n', XY),
    'local script="${1:-}" (sourced)': ('source shared/lib.sh\nrun_it shared/x.sh\n',
                                        {**XY, "shared/lib.sh": 'run_it() {\n  local script="${1:-}"\n'
                                                                '  bash "$script"\n}\n'}),
    "out=$(run_it shared/x.sh)": ('run_it() { bash "$1"; }\nout=$(run_it shared/x.sh)\necho "$out"\n', XY),
    '"$(run_it shared/x.sh)"': ('run_it() { bash "$1"; }\necho "$(run_it shared/x.sh)"\n', XY),
    "out=$(python3 r.py cfg.txt)": ('out=$(python3 shared/r.py shared/cfg.txt)\necho "$out"\n', R),
    "(python3 r.py cfg.txt)": ("(python3 shared/r.py shared/cfg.txt)\n", R),
    "main() { run_it x; }; run_it() { ...; }; main": ('main() {\n  run_it shared/x.sh\n}\nrun_it() { bash "$1"; }\n'
                                                    'main "$@"\n', XY),
    "main() { run_it x; }; source lib.sh; main": ('main() { run_it shared/x.sh; }\nsource shared/lib.sh\nmain\n',
                                                 {**XY, "shared/lib.sh": 'run_it() { bash "$1"; }\n'}),
    'source lib.sh; S=shared/x.sh; run_it "$S"': ('source shared/lib.sh\nS=shared/x.sh\nrun_it "$S"\n',
                                                  {**XY, "shared/lib.sh": 'run_it() { bash "$1"; }\n'}),
    'for s in "$@"; do bash "$s"; done': ('run_all() { for s in "$@"; do bash "$s"; done; }\nrun_all shared/x.sh\n', XY),
    'for s; do bash "$s"; done': ('run_all() {\n  for s; do\n    bash "$s"\n  done\n}\nrun_all shared/x.sh\n', XY),
}


@pytest.mark.parametrize("case", CASES)
def test_an_edit_to_a_file_the_call_runs_or_reads_changes_the_identity(tmp_path, case):
    lines, files = CASES[case]
    repo = _built(tmp_path, lines, files)
    read = _run(repo)
    assert read and set(read) >= {p for p in files if p.endswith((".txt", "y.sh"))}, read  # real bash reads them
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, read)


def test_a_case_items_pattern_is_still_no_word_of_a_command(tmp_path):
    """Guard: a `case` item's pattern after `in` (`shared/x.sh)`) runs and reads nothing: x.sh is no file of the
    row's (an edit to what it sources keeps the identity)."""
    repo = _built(tmp_path, 'case "$PATH" in shared/x.sh) echo no ;; *) echo yes ;; esac\n', XY)
    first = _identity(repo)
    assert first is not None
    repo.write("shared/y.sh", repo.read("shared/y.sh") + b"\n# changed\n")
    assert _identity(repo) == first
