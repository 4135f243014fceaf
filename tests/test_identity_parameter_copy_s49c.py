"""s49c: a function whose body copies a positional parameter into a variable and runs that (`run_it() { local
script="$1"; timeout 600 bash "$script"; }`, the way InferenceX's helpers take their arguments) was no function that
runs a parameter: the rule that makes each word of a call a file run (s43n) saw only `bash "$1"` itself, so `run_it
shared/x.sh` hashed x.sh as a word naming a file, as data, and what it sources (shared/y.sh) was in no identity: an
edit to y.sh kept the row's identity and `ci reuse` could hand back a stale result. A variable the body sets from a
positional parameter (`local`, `declare`, a plain assignment) and runs is now read as that parameter, in the file
itself and from a file it sources."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import _built, _each_edit_changes_the_identity_or_none, _run
from test_unknown_prefix_s39u import _identity

XY = {"shared/x.sh": "echo read:shared/x.sh\nsource shared/y.sh\n", "shared/y.sh": None}
BODIES = ['run_it() {\n    local script="$1"\n    timeout 600 bash "$script"\n}\n',
          'run_it() {\n    local cfg=$2 script=$1\n    bash "${script}" "$cfg"\n}\n',
          'function run_it {\n    declare -r script="${1}"\n    bash "$script"\n}\n',
          'run_it() { s="$1"; shift; bash "$s" "$@"; }\n']


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("sourced", [False, True])
def test_a_function_running_a_copy_of_its_parameter_runs_the_file_its_call_names(tmp_path, body, sourced):
    files = {**XY, "shared/lib.sh": body} if sourced else dict(XY)
    lines = ("source shared/lib.sh\n" if sourced else body) + "run_it shared/x.sh c.json\n"
    repo = _built(tmp_path, lines, files)
    assert {"shared/x.sh", "shared/y.sh"} <= set(_run(repo)), _run(repo)  # real bash runs x.sh, which sources y.sh
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, ["shared/x.sh", "shared/y.sh"])


def test_a_variable_set_otherwise_runs_no_word_of_the_call(tmp_path):
    """Guard: a body that runs a variable it set to a file written out (`local script=shared/x.sh`) runs that file,
    not a word of its call: `run_it shared/z.sh` leaves z.sh a word naming a file (data), not a script run."""
    repo = _built(tmp_path, 'run_it() {\n    local script=shared/x.sh\n    bash "$script"\n}\nrun_it shared/z.sh\n',
                  {**XY, "shared/z.sh": "source shared/w.sh\n", "shared/w.sh": None})
    first = _identity(repo)
    assert first is not None
    repo.write("shared/w.sh", repo.read("shared/w.sh") + b"\n# changed\n")
    assert _identity(repo) == first
