"""s49c: a function defined in a file the launcher sources, whose body runs one of its parameters (`run_it() { bash
"$1"; }` in shared/lib.sh), and called later in the launcher with a script (`run_it shared/x.sh`) was no file run: the
rule that makes each word of such a call a file run (s43n) read only the functions the same file defines, so x.sh was
hashed as a word naming a file, as data, and what it sources (shared/y.sh) was in no identity: an edit to y.sh kept
the row's identity and `ci reuse` could hand back a stale result. A file sourced now hands the functions it defines
that run a parameter to the file that sources it, as it hands its variables."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import _built, _each_edit_changes_the_identity_or_none, _run
from test_unknown_prefix_s39u import _identity

XY = {"shared/x.sh": "echo read:shared/x.sh\nsource shared/y.sh\n", "shared/y.sh": None}
READ = ["shared/lib.sh", "shared/x.sh", "shared/y.sh"]


@pytest.mark.parametrize("lib", [
    'run_it() { bash "$1"; }\n',
    'function run_it { echo read:shared/lib.sh; "$@"; }\n',
])
def test_a_function_a_sourced_file_defines_runs_the_file_its_call_names(tmp_path, lib):
    call = "run_it bash shared/x.sh\n" if '"$@"' in lib else "run_it shared/x.sh\n"
    repo = _built(tmp_path, "source shared/lib.sh\n" + call, {"shared/lib.sh": "echo read:shared/lib.sh\n" + lib, **XY})
    assert set(READ) <= set(_run(repo)), _run(repo)  # real bash reads them all
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, READ)


def test_a_call_before_the_source_runs_nothing(tmp_path):
    """Guard: bash runs a function only once it is defined; a word of a command of that name before the `source`
    is no file run (the row keeps its identity, hashing x.sh as a word that names it)."""
    repo = _built(tmp_path, "run_it shared/x.sh || true\nsource shared/lib.sh\n",
                  {"shared/lib.sh": 'run_it() { bash "$1"; }\n', **XY})
    first = _identity(repo)
    assert first is not None
    repo.write("shared/y.sh", repo.read("shared/y.sh") + b"\n# changed\n")
    assert _identity(repo) == first
