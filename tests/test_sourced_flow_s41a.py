"""s41a: run identities that were wrong because what bash runs was read in the wrong place (a stale result reused).

1. What a sourced file sets did not reach the file that sources it: after `source "$GITHUB_WORKSPACE/env.sh"` (or
   `source env.sh`) where env.sh sets `D=b/shared`, `cd benchmarks` or defines a function that does, `bash "$D/x.sh"`,
   `bash ./x.sh` were read with D as it was before (or not at all), though a sourced file runs in the same shell. A
   sourced file's variables now hold after its `source` (``shellwords.Reading.left``, ``recipes.started``), and a file
   run by a path whose start only the run knows but whose end is written reads every tracked file ending so
   (``Reading.ran_tails``), as a `source` of it does.
2. `D="$GITHUB_WORKSPACE/shared"; bash "$D/x.sh"` (and `python3`, `bash "$S"`, `"$D/x.sh"` run by its own word, `cd
   "$GITHUB_WORKSPACE/shared"; bash x.sh`): the file run was hashed only for a `source`.
3. `[ -d a ] && cd a; ./x.py` (or `python3 x.py`): neither candidate was hashed.
4. `cd missing` (a folder the checkout does not hold) was taken to succeed: bash goes on where it was (no `set -e`),
   so `python3 x.py` runs the top's x.py. A `cd` to such a folder now leaves the working folder either (mostly one
   only the run knows: every tracked file ending in the names is hashed).

Each case runs its launcher under real bash in a real git checkout (every way its condition goes); every file bash runs
there is hashed by the identity (an edit to it changes the identity) or the row has none."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import GitRepo
from test_conditional_flow_s40p import LAUNCHER, _seen_or_blind
from test_unknown_prefix_s39u import _checkout, _identity
from test_variable_paths_s40i import _hashed


def _ran(repo: GitRepo, env: dict[str, str]) -> list[str]:
    """What real bash runs or sources (each file prints `ran:<its path>`) when the launcher runs from the checkout's
    top, the checkout the workspace (``env`` besides)."""
    out = subprocess.run(["bash", LAUNCHER], cwd=repo.path, capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "GITHUB_WORKSPACE": str(repo.path), **env}).stdout
    return [line.split(":", 1)[1] for line in out.splitlines() if line.startswith("ran:")]


def _repo(tmp_path, launcher: str, files: dict[str, str]) -> GitRepo:
    """A checkout of the launcher (``launcher``'s lines) and ``files`` (path -> its text, or None: a shell file that
    prints its path; `.py`: a Python one), each executable in the working tree."""
    texts = {path: text if text is not None else
             f"#!/usr/bin/env python3\nprint('ran:{path}')\n" if path.endswith(".py") else
             f"#!/usr/bin/env bash\necho ran:{path}\n" for path, text in files.items()}
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + launcher, **texts})
    for path in texts:
        os.chmod(repo.path / path, 0o755)
    return repo


SHARED = {"shared/x.sh": None, "x.sh": None}
MOVED = {"benchmarks/x.sh": None, "x.sh": None, "benchmarks/shared/x.sh": None, "shared/x.sh": None}
OVERRIDDEN = {"a/shared/x.sh": None, "b/shared/x.sh": None}
# each: the launcher, its files (``_repo``), the environments bash runs it with (one per way its condition goes)
WRONG_BEFORE = {
    # 1: what a sourced file sets
    'source "$GITHUB_WORKSPACE/env.sh" (D=shared); bash "$D/x.sh"': (
        'source "$GITHUB_WORKSPACE/env.sh"\nbash "$D/x.sh"\n', {"env.sh": "D=shared\n", **SHARED}, [{}]),
    "source env.sh (D=shared); bash $D/x.sh": ('source env.sh\nbash "$D/x.sh"\n', {"env.sh": "D=shared\n", **SHARED},
                                               [{}]),
    'source "$GITHUB_WORKSPACE/env.sh" (cd benchmarks); bash ./x.sh': (
        'source "$GITHUB_WORKSPACE/env.sh"\nbash ./x.sh\n', {"env.sh": "cd benchmarks\n", **MOVED}, [{}]),
    'source "$GITHUB_WORKSPACE/env.sh" (cd benchmarks); bash shared/x.sh': (
        'source "$GITHUB_WORKSPACE/env.sh"\nbash shared/x.sh\n', {"env.sh": "cd benchmarks\n", **MOVED}, [{}]),
    'source "$GITHUB_WORKSPACE/env.sh" (go() { cd benchmarks; }); go; bash shared/x.sh': (
        'source "$GITHUB_WORKSPACE/env.sh"\ngo\nbash shared/x.sh\n', {"env.sh": "go() { cd benchmarks; }\n", **MOVED},
        [{}]),
    "D=a/shared; source env.sh (D=b/shared); source $D/x.sh": (
        'D=a/shared\nsource env.sh\nsource "$D/x.sh"\n', {"env.sh": "D=b/shared\n", **OVERRIDDEN}, [{}]),
    "D=a/shared; source env.sh (D=b/shared); bash $D/x.sh": (
        'D=a/shared\nsource env.sh\nbash "$D/x.sh"\n', {"env.sh": "D=b/shared\n", **OVERRIDDEN}, [{}]),
    'D=a/shared; source "$GITHUB_WORKSPACE/env.sh" (D=b/shared); source $D/x.sh': (
        'D=a/shared\nsource "$GITHUB_WORKSPACE/env.sh"\nsource "$D/x.sh"\n', {"env.sh": "D=b/shared\n", **OVERRIDDEN},
        [{}]),
    "D=a/shared; source env.sh (setd() { D=b/shared; }); setd; source $D/x.sh": (
        'D=a/shared\nsource env.sh\nsetd\nsource "$D/x.sh"\n', {"env.sh": "setd() { D=b/shared; }\n", **OVERRIDDEN},
        [{}]),
    "source env.sh (S=b/shared/x.sh); bash $S": ('source env.sh\nbash "$S"\n', {"env.sh": "S=b/shared/x.sh\n",
                                                                                **OVERRIDDEN}, [{}]),
    'source benchmarks/env.sh (D="$(dirname "${BASH_SOURCE[0]}")/shared"); bash $D/x.sh': (
        'source benchmarks/env.sh\nbash "$D/x.sh"\n',
        {"benchmarks/env.sh": 'D="$(dirname "${BASH_SOURCE[0]}")/shared"\n', **MOVED}, [{}]),
    "source h.sh (D=./a; source env.sh (D=./b); cd $D); source ./x.sh": (
        'source h.sh\nsource ./x.sh\n', {"h.sh": 'D=./a\nsource env.sh\ncd "$D"\n', "env.sh": "D=./b\n",
                                          "a/x.sh": None, "b/x.sh": None}, [{}]),
    "D=shared; source env.sh (D=other); python3 $D/x.py": (
        'D=shared\nsource "$GITHUB_WORKSPACE/env.sh"\npython3 "$D/x.py"\n',
        {"env.sh": "D=other\n", "shared/x.py": None, "other/x.py": None}, [{}]),
    # a `cd` out of the checkout (s40ff took it for one that leaves no file of the checkout to run): where no
    # /workspace is (the host), the `cd` fails and bash runs the top's; where the checkout is mounted there, that too
    "cd /workspace; python3 shared/tool.py": ('cd /workspace\npython3 shared/tool.py\n', {"shared/tool.py": None},
                                              [{}]),
    # 2: a variable built from the workspace's
    'D="$GITHUB_WORKSPACE/shared"; bash "$D/x.sh"': ('D="$GITHUB_WORKSPACE/shared"\nbash "$D/x.sh"\n', SHARED, [{}]),
    "D=${GITHUB_WORKSPACE}/shared; python3 $D/x.py": ('D=${GITHUB_WORKSPACE}/shared\npython3 "$D/x.py"\n',
                                                      {"shared/x.py": None}, [{}]),
    'S="$GITHUB_WORKSPACE/shared/x.sh"; bash "$S"': ('S="$GITHUB_WORKSPACE/shared/x.sh"\nbash "$S"\n', SHARED, [{}]),
    'cd "$GITHUB_WORKSPACE/shared"; bash x.sh': ('cd "$GITHUB_WORKSPACE/shared"\nbash x.sh\n', SHARED, [{}]),
    'D="$GITHUB_WORKSPACE/shared"; "$D/x.sh"': ('D="$GITHUB_WORKSPACE/shared"\n"$D/x.sh" --flag\n', SHARED, [{}]),
    # 3: a conditional cd
    "[ -d a ] && cd a; ./x.py": ('[ -d a ] && cd a\n./x.py\n', {"a/x.py": None, "x.py": None}, [{}]),
    "[ -d a ] && cd a; python3 x.py": ('[ -d a ] && cd a\npython3 x.py\n', {"a/x.py": None, "x.py": None}, [{}]),
    "[ -n X ] && cd a; python3 x.py": ('[ -n "$X" ] && cd a\npython3 x.py\n', {"a/x.py": None, "x.py": None},
                                       [{}, {"X": "1"}]),
    "if …; then cd a; fi; ./tools/x.py": ('if [ -n "$X" ]; then cd a; fi\n./tools/x.py\n',
                                          {"a/tools/x.py": None, "tools/x.py": None}, [{}, {"X": "1"}]),
    # 4: a cd to a folder the checkout does not hold
    "cd missing; python3 x.py; source y.sh": ('cd missing\npython3 x.py\nsource y.sh\n', {"x.py": None, "y.sh": None},
                                              [{}]),
    "cd missing || true; python3 x.py": ('cd missing 2>/dev/null || true\npython3 x.py\nsource y.sh\n',
                                         {"x.py": None, "y.sh": None}, [{}]),
    "source env.sh (cd missing); python3 x.py": ('source env.sh\npython3 x.py\n', {"env.sh": "cd missing\n",
                                                                                   "x.py": None}, [{}]),
    # what a sourced file's computed writer (s41b) may set: any variable, after its `source` too
    "D=a/shared; source env.sh (export $(cat .env)); source $D/x.sh": (
        'D=a/shared\nsource env.sh\nsource "$D/x.sh"\n', {"env.sh": "export $(cat .env)\n", ".env": "D=b/shared\n",
                                                           **OVERRIDDEN}, [{}]),
    "D=a/shared; source env.sh (eval \"$(cat .env)\"); bash $D/x.sh": (
        'D=a/shared\nsource env.sh\nbash "$D/x.sh"\n', {"env.sh": 'eval "$(cat .env)"\n', ".env": "D=b/shared\n",
                                                         **OVERRIDDEN}, [{}]),
    "source env.sh (eval \"$(cat .env)\", a cd); bash x.sh": (
        'source env.sh\nbash x.sh\n', {"env.sh": 'eval "$(cat .env)"\n', ".env": "cd b\n", "x.sh": None, "b/x.sh": None},
        [{}]),
}


@pytest.mark.parametrize("how", WRONG_BEFORE)
def test_every_file_bash_runs_is_hashed_or_the_row_has_no_identity(tmp_path, how):
    launcher, files, envs = WRONG_BEFORE[how]
    repo = _repo(tmp_path, launcher, files)
    ran = {path for env in envs for path in _ran(repo, env)}
    assert ran - {"env.sh", "benchmarks/env.sh"}, how
    missed = [path for path in sorted(ran) if not _seen_or_blind(repo, path)]
    assert not missed, (how, ran, _hashed(repo))


# where the reading knows the one file (an identity, the file bash runs hashed, its neighbour not)
STILL_PLACED = {
    "source env.sh (D=b/shared); source $D/x.sh": ('D=a/shared\nsource env.sh\nsource "$D/x.sh"\n',
                                                  {"env.sh": "D=b/shared\n", **OVERRIDDEN}, "b/shared/x.sh"),
    "source env.sh (S=b/shared/x.sh); source $S": ('source env.sh\nsource "$S"\n',
                                                  {"env.sh": "S=b/shared/x.sh\n", **OVERRIDDEN}, "b/shared/x.sh"),
    "source env.sh (a function's local D); source $D/x.sh": (
        'D=a/shared\nsource env.sh\nsource "$D/x.sh"\n', {"env.sh": "f() { local E=b; }\n", **OVERRIDDEN},
        "a/shared/x.sh"),
    "cd missing || exit 1; python3 x.py": ('cd missing || exit 1\npython3 x.py\n', {"x.py": None}, None),
    "set -e; cd missing; python3 x.py": ('set -e\ncd missing\npython3 x.py\n', {"x.py": None}, None),
}


@pytest.mark.parametrize("how", STILL_PLACED)
def test_a_value_a_sourced_file_surely_leaves_is_read_as_that_file(tmp_path, how):
    """The value a sourced file leaves is followed, not lost: the row keeps its identity and hashes the file bash
    runs, not the one of the value before the `source`. A `cd` to a missing folder guarded by `|| exit` or `set -e`
    runs nothing after it: the row keeps its identity."""
    launcher, files, sourced = STILL_PLACED[how]
    repo = _repo(tmp_path, launcher, files)
    assert _ran(repo, {}) == ([sourced] if sourced else []), how
    assert _identity(repo) is not None, how
    if sourced:
        other = next(path for path in files if path.endswith("/x.sh") and path != sourced)
        assert sourced in _hashed(repo) and other not in _hashed(repo), (how, _hashed(repo))
        assert _seen_or_blind(repo, sourced)


def test_a_cd_to_a_folder_the_run_makes_keeps_the_identity(tmp_path):
    """`mkdir -p out; cd out; source ../y.sh; bash ../x.sh`: bash reads the top's y.sh and x.sh, both hashed (a cd to a
    folder the checkout does not hold reads the names after it as written ends), and the row keeps its identity."""
    repo = _repo(tmp_path, "mkdir -p out\ncd out\nsource ../y.sh\nbash ../x.sh\n", {"x.sh": None, "y.sh": None})
    assert _ran(repo, {}) == ["y.sh", "x.sh"]
    assert _identity(repo) is not None
    assert all(_seen_or_blind(repo, path) for path in ("x.sh", "y.sh"))
