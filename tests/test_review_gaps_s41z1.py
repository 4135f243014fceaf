"""s41z1: two stale-identity gaps a review of this session's merges found.

1. After a computed writer (`export $(cat .env)`), a variable that had a known value before is one only the run
   knows; `bash "$D"` (a path with no written end) was then dropped, while `source "$D"` there made the row blind:
   an edit of the file bash runs kept the identity.
2. `$0` in a sourced file is the running script's path, not the sourced file's: a folder spelled with it (`D="$(dirname
   "$0")/lib"`, `cd "$(dirname "$0")"`, `SCRIPT_DIR="$(cd "$(dirname "$0")" && pwd)"`) was placed beside the sourced
   file, so the identity hashed files bash never reads and missed those it does.

Each case runs under real bash in a real git checkout; every file bash sources or runs there is then either hashed by
the identity (an edit to it changes the identity) or the row has none."""

from __future__ import annotations

import posixpath

import pytest
from test_conditional_flow_s40p import LAUNCHER, _ran, _seen_or_blind
from test_unknown_prefix_s39u import _checkout, _identity
from test_variable_paths_s40i import _hashed

BESIDE = posixpath.dirname(LAUNCHER)


def _beside(path: str) -> str:
    return posixpath.join(BESIDE, path) if BESIDE else path


RUN_AFTER_A_COMPUTED_WRITER = {
    'D=x.sh; export $(cat .env); bash "$D"': ('D=x.sh\nexport $(cat .env)\nbash "$D"\n',
                                              {".env": "D=b.sh\n"}),
    'D=x.sh; source h.sh (export $(cat .env)); bash "$D"': ('D=x.sh\nsource h.sh\nbash "$D"\n',
                                                           {"h.sh": "export $(cat .env)\n", ".env": "D=b.sh\n"}),
    'D=x.sh; export $(cat .env); bash "${D}"': ('D=x.sh\nexport $(cat .env)\nbash "${D}"\n',
                                                {".env": "D=b.sh\n"}),
    'D=x.sh; export $(cat .env); python3 "$D" (bash runs it)': ('D=x.sh\nexport $(cat .env)\nbash $D\n',
                                                               {".env": "D=b.sh\n"}),
}


@pytest.mark.parametrize("how", RUN_AFTER_A_COMPUTED_WRITER)
def test_a_file_run_through_a_variable_a_computed_writer_cleared_is_hashed_or_the_row_is_blind(tmp_path, how):
    text, data = RUN_AFTER_A_COMPUTED_WRITER[how]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text, **data,
                                **{path: f"echo ran:{path}\n" for path in ("x.sh", "b.sh")}})
    ran = _ran(repo, {})
    assert ran == ["b.sh"], (how, ran)  # bash runs the value .env gave D
    assert _seen_or_blind(repo, "b.sh"), (how, _hashed(repo))


def test_a_file_run_through_a_variable_before_any_computed_writer_keeps_the_identity(tmp_path):
    """`D=x.sh; bash "$D"; export $(cat .env)`: the run is before the writer, D known there; x.sh hashed."""
    repo = _checkout(tmp_path, {LAUNCHER: '#!/usr/bin/env bash\nD=x.sh\nbash "$D"\nexport $(cat .env)\n',
                                ".env": "D=b.sh\n", "x.sh": "echo ran:x.sh\n", "b.sh": "echo ran:b.sh\n"})
    assert _ran(repo, {}) == ["x.sh"]
    assert _identity(repo) is not None and "x.sh" in _hashed(repo)


def test_a_function_parameter_run_keeps_the_identity(tmp_path):
    """A launch_common-style function `run() { local script=$1; bash "${script}"; }` after a computed writer: the
    parameter never had a value the reading knew, so the row keeps its identity (as before)."""
    text = ('export $(cat .env)\nrun() {\n  local script="$1"\n  bash "${script}"\n}\nrun x.sh\n')
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text, ".env": "A=1\n",
                                "x.sh": "echo ran:x.sh\n"})
    assert _ran(repo, {}) == ["x.sh"]
    assert _identity(repo) is not None


DOLLAR0_IN_A_SOURCED_FILE = {
    'D="$(dirname "$0")/lib" in a shared file; source "$D/y.sh"': (
        'source shared/h.sh\nsource "$D/y.sh"\n',
        {"shared/h.sh": 'D="$(dirname "$0")/lib"\n'}, "lib/y.sh"),
    'cd "$(dirname "$0")" in a shared file; bash x.sh': (
        'source shared/h2.sh\nbash x.sh\n', {"shared/h2.sh": 'cd "$(dirname "$0")"\n'}, "x.sh"),
    'SCRIPT_DIR="$(cd "$(dirname "$0")" && pwd)" in a shared file; bash "$SCRIPT_DIR/x.sh"': (
        'source shared/h3.sh\nbash "$SCRIPT_DIR/x.sh"\n',
        {"shared/h3.sh": 'SCRIPT_DIR="$(cd "$(dirname "$0")" && pwd)"\n'}, "x.sh"),
}


@pytest.mark.parametrize("how", DOLLAR0_IN_A_SOURCED_FILE)
def test_dollar0_in_a_sourced_file_is_the_running_scripts_folder(tmp_path, how):
    text, helpers, read = DOLLAR0_IN_A_SOURCED_FILE[how]
    beside, shared = _beside(read), posixpath.join("shared", read)
    files = {posixpath.join(BESIDE, path) if path.startswith("shared/") and BESIDE else path: body
             for path, body in helpers.items()}
    text = text.replace("shared/", posixpath.join(BESIDE, "shared/") if BESIDE else "shared/")
    shared = _beside(shared)
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text, **files,
                                beside: f"echo ran:{beside}\n", shared: f"echo ran:{shared}\n"})
    ran = _ran(repo, {})
    assert ran == [beside], (how, ran)  # bash reads the one beside the running script
    assert _seen_or_blind(repo, beside), (how, _hashed(repo))


def test_bash_source_in_a_sourced_file_stays_beside_it(tmp_path):
    """`D="$(dirname "${BASH_SOURCE[0]}")/lib"` in a shared file is beside that file: shared/lib/y.sh hashed, the row
    keeps its identity (only a file that spells `$0` leaves its folders unknown)."""
    shared = _beside("shared/h.sh")
    read = _beside("shared/lib/y.sh")
    repo = _checkout(tmp_path, {LAUNCHER: f'#!/usr/bin/env bash\nsource {shared}\nsource "$D/y.sh"\n',
                                shared: 'D="$(dirname "${BASH_SOURCE[0]}")/lib"\n', read: f"echo ran:{read}\n"})
    assert _ran(repo, {}) == [read]
    assert _identity(repo) is not None and read in _hashed(repo)
