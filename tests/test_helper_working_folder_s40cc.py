"""s40cc: a helper sourced after a `cd` read its own relative paths from the checkout's top.

With `cd b; source ./h.sh` (or `cd "$(dirname "$0")"; source ./lib.sh`) where the helper itself runs `source x.sh`
or `source "$PWD/x.sh"`, bash sources b/x.sh (a sourced file runs in the same shell: its working folder is still b),
but the identity read the helper's relative paths from the top and hashed x.sh: an edit of b/x.sh kept the identity
and `ci reuse` handed back a stale result. The working folder at the `source` now starts the helper's reading; where
only the run knows it (a `cd` the run may not make, a folder from the environment), the helper's relative paths are
written ends (every tracked file ending so is hashed) or the row has no identity.

Each case runs under real bash in a real git checkout, once for each way its condition goes; every file bash sources
there is then either hashed by the identity (an edit to it changes the identity) or the row has none."""

from __future__ import annotations

import pytest
from test_conditional_flow_s40p import BESIDE, LAUNCHER, _ran, _seen_or_blind
from test_unknown_prefix_s39u import _checkout, _identity
from test_variable_paths_s40i import _hashed

CANDIDATES = ("x.sh", "b/x.sh", "b/c/x.sh", "c/x.sh", f"{BESIDE}/x.sh", "y.sh", "b/y.sh")

# each: the launcher's text, its helpers' texts, the environments bash runs it with (one per way a condition goes)
CASES = {
    "cd b; source ./h.sh; h.sh: source x.sh": ("cd b\nsource ./h.sh\n", {"b/h.sh": "source x.sh\n"}, [{}]),
    'cd b; source ./h.sh; h.sh: source "$PWD/x.sh"': ("cd b\nsource ./h.sh\n",
                                                      {"b/h.sh": 'source "$PWD/x.sh"\n'}, [{}]),
    "cd b && . h.sh; h.sh: . ./x.sh": ("cd b && . h.sh\n", {"b/h.sh": ". ./x.sh\n"}, [{}]),
    "cd b; source ./h.sh; h.sh: cd c; source x.sh": ("cd b\nsource ./h.sh\n",
                                                     {"b/h.sh": "cd c\nsource x.sh\n"}, [{}]),
    'cd "$(dirname "$0")"; source ./lib.sh; lib.sh: source x.sh': (
        'cd "$(dirname "$0")"\nsource ./lib.sh\n', {f"{BESIDE}/lib.sh": "source x.sh\n"}, [{}]),
    "cd b; source ../h.sh; h.sh at the top: source x.sh": ("cd b\nsource ../h.sh\n", {"h.sh": "source x.sh\n"}, [{}]),
    "cd b; source ./h.sh; h.sh: source ./g.sh; g.sh: source x.sh": (
        "cd b\nsource ./h.sh\n", {"b/h.sh": "source ./g.sh\n", "b/g.sh": "source x.sh\n"}, [{}]),
    "[ -n X ] && cd b; source h.sh (both): source x.sh": (
        '[ -n "$X" ] && cd b\nsource h.sh\n', {"h.sh": "source x.sh\n", "b/h.sh": "source x.sh\n"},
        [{}, {"X": "1"}]),
    'cd "$X"; source h.sh: source x.sh': ('cd "${X:-.}"\nsource h.sh\n',
                                          {"h.sh": "source x.sh\n", "b/h.sh": "source x.sh\n"}, [{}, {"X": "b"}]),
    "source b/h.sh from the top: source x.sh": ("source b/h.sh\n", {"b/h.sh": "source x.sh\n"}, [{}]),
}


def _each_file_bash_sources_is_hashed_or_the_row_blind(tmp_path, how: str, case: tuple) -> None:
    """Run the launcher ``case`` makes under bash (once per environment) and hold its identity to every file it read."""
    text, helpers, envs = case
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text,
                                **{path: f"echo ran:{path}\n" for path in CANDIDATES},
                                **{path: f"echo ran:{path}\n{body}" for path, body in helpers.items()}})
    ran = {path for env in envs for path in _ran(repo, env)}
    assert ran - set(helpers), how
    missed = [path for path in sorted(ran) if not _seen_or_blind(repo, path)]
    assert not missed, (how, ran, _hashed(repo))


@pytest.mark.parametrize("how", CASES)
def test_a_helper_reads_its_relative_paths_from_the_folder_it_is_sourced_in(tmp_path, how):
    _each_file_bash_sources_is_hashed_or_the_row_blind(tmp_path, how, CASES[how])


def test_a_helper_sourced_in_a_known_folder_keeps_the_row_identity(tmp_path):
    """Where the folder at the `source` is known, the helper's files are placed: the row keeps an identity and the
    file bash sources is hashed, the one at the top that bash never reads is not."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\ncd b\nsource ./h.sh\n",
                                "b/h.sh": "echo ran:b/h.sh\nsource x.sh\n",
                                **{path: f"echo ran:{path}\n" for path in CANDIDATES}})
    assert _ran(repo, {}) == ["b/h.sh", "b/x.sh"]
    hashed = _hashed(repo)
    assert _identity(repo) is not None and "b/x.sh" in hashed and "x.sh" not in hashed, hashed


# a helper that moves the working folder: the script goes on from where it left it (bash sources in the same shell)
MOVED_BY_A_HELPER = {
    "source ./h.sh (cd b); source y.sh": ("source ./h.sh\nsource y.sh\n", {"h.sh": "cd b\n"}, [{}]),
    "source ./h.sh (cd b); source x.sh from b: . ./x.sh": ("source ./h.sh\n. ./x.sh\n", {"h.sh": "cd b\n"}, [{}]),
    'source ./h.sh (cd b); source "$PWD/y.sh"': ('source ./h.sh\nsource "$PWD/y.sh"\n', {"h.sh": "cd b\n"}, [{}]),
    "cd b; source ./h.sh (cd c); source x.sh": ("cd b\nsource ./h.sh\nsource x.sh\n", {"b/h.sh": "cd c\n"}, [{}]),
    "source ./h.sh (sources g.sh: cd b); source y.sh": ("source ./h.sh\nsource y.sh\n",
                                                        {"h.sh": "source g.sh\n", "g.sh": "cd b\n"}, [{}]),
    "source ./h.sh (if …: cd b); source y.sh": ("source ./h.sh\nsource y.sh\n",
                                                 {"h.sh": 'if [ -n "$X" ]; then cd b; fi\n'}, [{}, {"X": "1"}]),
    "source ./h.sh (cd $X); source y.sh": ("source ./h.sh\nsource y.sh\n", {"h.sh": 'cd "${X:-.}"\n'},
                                           [{}, {"X": "b"}]),
    "[ -n X ] && source ./h.sh (cd b); source y.sh": ('[ -n "$X" ] && source ./h.sh\nsource y.sh\n',
                                                      {"h.sh": "cd b\n"}, [{}, {"X": "1"}]),
    "f() { source ./h.sh (cd b); }; f; source y.sh": ("f() { source ./h.sh; }\nf\nsource y.sh\n",
                                                      {"h.sh": "cd b\n"}, [{}]),
}


@pytest.mark.parametrize("how", MOVED_BY_A_HELPER)
def test_a_source_after_a_helper_that_moves_the_working_folder_is_read_from_where_it_left_it(tmp_path, how):
    _each_file_bash_sources_is_hashed_or_the_row_blind(tmp_path, how, MOVED_BY_A_HELPER[how])


def test_a_helper_that_moves_to_a_known_folder_keeps_the_row_identity(tmp_path):
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\nsource ./h.sh\nsource y.sh\n",
                                "h.sh": "echo ran:h.sh\ncd b\n",
                                **{path: f"echo ran:{path}\n" for path in CANDIDATES}})
    assert _ran(repo, {}) == ["h.sh", "b/y.sh"]
    hashed = _hashed(repo)
    assert _identity(repo) is not None and "b/y.sh" in hashed and "y.sh" not in hashed, hashed


def test_a_helper_only_the_run_places_that_moves_the_working_folder_leaves_it_unknown_after(tmp_path):
    """`source "$H/h.sh"` reads every tracked file ending in h.sh; one of them runs `cd b`: after it, `source y.sh`
    is read from a folder only the run knows (b/y.sh among the files ending so), not from the top alone."""
    repo = _checkout(tmp_path, {LAUNCHER: '#!/usr/bin/env bash\nsource "${H:-.}/h.sh"\nsource y.sh\n',
                                "h.sh": "echo ran:h.sh\ncd b\n",
                                **{path: f"echo ran:{path}\n" for path in CANDIDATES}})
    assert _ran(repo, {}) == ["h.sh", "b/y.sh"]
    assert _seen_or_blind(repo, "b/y.sh"), _hashed(repo)
