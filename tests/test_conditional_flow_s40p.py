"""s40p: a `cd` or an assignment the run may not make gave a wrong run identity.

The reading (``core.shellwords``) took every `cd` and every assignment as made, wherever it stood: after `if [ -n "$X"
]; then cd b; fi` (or `[ -n "$X" ] && cd b`, a `cd` in a function never called, in a pipeline, in the background)
`source x.sh` was read as `b/x.sh` alone, and after `LIB=a.sh; [ -n "$X" ] && LIB=b.sh` `source "$LIB"` as `b.sh`
alone: bash may source the other, which the identity never hashed, and `ci reuse` would hand the row a stale result.
So did a loop whose body sources a variable it sets again (its second round sources the new value), and a function
called after a `cd` or an assignment made after its definition. The reading now follows where commands may not run
(``core.shellflow``): after such a region a `cd` or an assignment it made holds either way, so a relative path reads
every tracked file ending in its names (as after a `cd` only the run knows), and a variable with two values is one
only the run knows (the row has no identity, as for a variable from the environment).

And a file the script runs by a path beside it after a `cd` to its folder (`cd "$(dirname "$0")"; python3
"$PWD/client.py"`, `python3 ./client.py`) was not hashed at all: it is now, as `"$(dirname "$0")/client.py"` is.

Each case runs under real bash in a real git checkout, once for each way the condition goes; every file bash sources
there is then either hashed by the identity (an edit to it changes the identity) or the row has none."""

from __future__ import annotations

import posixpath
import subprocess

import pytest
from conftest import GitRepo
from test_reuse import M_ROW
from test_unknown_prefix_s39u import _checkout, _identity
from test_variable_paths_s40i import _hashed

from sweepgate.core import identity, shellwords

SCRIPT = identity.script_candidates(M_ROW)[0]
LAUNCHER = identity.launcher_files(M_ROW["runner"], {})[0]
BESIDE = posixpath.dirname(LAUNCHER)
CANDIDATES = ("x.sh", "b/x.sh", "a.sh", "b.sh", "y.sh", "b/y.sh", "b/a.sh", "c/x.sh", "b/c/x.sh")


def _ran(repo: GitRepo, env: dict[str, str]) -> list[str]:
    """What bash itself sources (or runs) when the launcher runs from the checkout's top with ``env``."""
    out = subprocess.run(["bash", LAUNCHER], cwd=repo.path, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", **env}).stdout
    return [line.split(":", 1)[1] for line in out.splitlines() if line.startswith("ran:")]


def _seen_or_blind(repo: GitRepo, path: str) -> bool:
    """Whether the identity hashes ``path`` (an edit to it changes the identity), or the row has none; False when the
    identity stays as it was: a wrong identity."""
    first = _identity(repo)
    if first is None:
        return True
    before = repo.read(path)
    repo.write(path, before + b"# changed\n")
    try:
        return _identity(repo) != first
    finally:
        repo.write(path, before)


# each: the launcher's text, the environments bash runs it with (one per way its condition goes)
WRONG_BEFORE = {
    "if …; then cd b; fi; source x.sh": ('if [ -n "$X" ]; then cd b; fi\nsource x.sh\n', [{}, {"X": "1"}]),
    'if …; then cd b; fi; source "$PWD/x.sh"': ('if [ -n "$X" ]; then cd b; fi\nsource "$PWD/x.sh"\n',
                                                 [{}, {"X": "1"}]),
    "[ -n X ] && cd b; source x.sh": ('[ -n "$X" ] && cd b\nsource x.sh\n', [{}, {"X": "1"}]),
    "[ -z X ] || cd b; . ./x.sh": ('[ -z "$X" ] || cd b\n. ./x.sh\n', [{}, {"X": "1"}]),
    "case: cd b; source x.sh": ('case "$X" in\n  1) cd b ;;\n  *) : ;;\nesac\nsource x.sh\n', [{}, {"X": "1"}]),
    "a loop that may not run: cd b; source x.sh": ('for d in $X; do cd b; done\nsource x.sh\n', [{}, {"X": "1"}]),
    "a function never called: cd b; source x.sh": ('go_b() {\n  cd b\n}\nsource x.sh\n', [{}]),
    "a function called on a condition": ('go_b() { cd b; }\n[ -n "$X" ] && go_b\nsource x.sh\n', [{}, {"X": "1"}]),
    "a function's source, called after a cd": ('load() { source x.sh; }\ncd b\nload\n', [{}]),
    "cd b | cat; source x.sh": ('cd b | cat\nsource x.sh\n', [{}]),
    "cd b & wait; source x.sh": ('cd b &\nwait\nsource x.sh\n', [{}]),
    "LIB=a.sh; [ -n X ] && LIB=b.sh; source $LIB": ('LIB=a.sh\n[ -n "$X" ] && LIB=b.sh\nsource "$LIB"\n',
                                                    [{}, {"X": "1"}]),
    "LIB=a.sh; if …; then LIB=b.sh; fi; source $LIB": ('LIB=a.sh\nif [ -n "$X" ]; then\n  LIB=b.sh\nfi\n'
                                                       'source "$LIB"\n', [{}, {"X": "1"}]),
    "LIB=a.sh; f() { LIB=b.sh; } never called": ('LIB=a.sh\nuse_b() { LIB=b.sh; }\nsource "$LIB"\n', [{}]),
    "a function sources $LIB, set again after it": ('LIB=a.sh\nload() { source "$LIB"; }\nLIB=b.sh\nload\n', [{}]),
    "a loop sources $LIB, then sets it": ('LIB=a.sh\nfor i in 1 2; do\n  source "$LIB"\n  LIB=b.sh\ndone\n', [{}]),
    "a function sets LIB, called after LIB is set again": ('LIB=a.sh\nuse_b() { LIB=b.sh; }\nLIB=x.sh\nuse_b\n'
                                                           'source "$LIB"\n', [{}]),
    "a function cds, called after a cd": ('go_b() { cd b; }\ncd "$(dirname "$0")/../.."\ngo_b\nsource x.sh\n', [{}]),
    "LIB=a.sh; cd b; source $LIB": ('LIB=a.sh\ncd b\nsource "$LIB"\n', [{}]),
    "D=./c; cd b; source $D/x.sh": ('D=./c\ncd b\nsource "$D/x.sh"\n', [{}]),
    "D=.; [ -n X ] && D=b; source $D/x.sh": ('D=.\n[ -n "$X" ] && D=b\nsource "$D/x.sh"\n', [{}, {"X": "1"}]),
}


@pytest.mark.parametrize("how", WRONG_BEFORE)
def test_every_file_bash_may_source_is_hashed_or_the_row_has_no_identity(tmp_path, how):
    text, envs = WRONG_BEFORE[how]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text,
                                **{path: f"echo ran:{path}\n" for path in CANDIDATES}})
    ran = {path for env in envs for path in _ran(repo, env)}
    assert ran, how
    missed = [path for path in sorted(ran) if not _seen_or_blind(repo, path)]
    assert not missed, (how, ran, _hashed(repo))


# where the reading still knows the one place (no identity lost, no more files than needed)
STILL_PLACED = {
    "cd b || exit 1; source x.sh": ('cd b || exit 1\nsource x.sh\n', "b/x.sh"),
    "cd b && source x.sh": ('cd b && source x.sh\n', "b/x.sh"),
    "if …; then cd b; source x.sh; fi": ('if [ -d b ]; then\n  cd b\n  source x.sh\nfi\n', "b/x.sh"),
    "(cd b; source y.sh); source x.sh": ('(cd b; source y.sh)\nsource x.sh\n', "x.sh"),
    "{ cd b; }; source x.sh": ('{ cd b; }\nsource x.sh\n', "b/x.sh"),
    "cd b 2>&1; source x.sh": ('cd b 2>&1 >/dev/null\nsource x.sh\n', "b/x.sh"),
    "[[ -n X && -d b ]]; cd b; source x.sh": ('[[ -n "$X" && -d b ]]\ncd b\nsource x.sh\n', "b/x.sh"),
    "f() { cd to a place; source x.sh; }": ('load() {\n  cd "$(dirname "$0")/../../b"\n  source x.sh\n}\nload\n',
                                            "b/x.sh"),
    "LIB=a.sh; if …; then :; fi; source $LIB": ('LIB=a.sh\nif [ -n "$X" ]; then echo; fi\nsource "$LIB"\n', "a.sh"),
    "LIB=a.sh; f() { local L=b.sh; }; source $LIB": ('LIB=a.sh\nf() { local L=b.sh; }\nsource "$LIB"\n', "a.sh"),
}


@pytest.mark.parametrize("how", STILL_PLACED)
def test_a_cd_or_an_assignment_that_surely_holds_is_read_as_before(tmp_path, how):
    text, sourced = STILL_PLACED[how]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text,
                                **{path: f"echo ran:{path}\n" for path in CANDIDATES}})
    assert sourced in _ran(repo, {})
    read = shellwords.reading(text)
    placed = [posixpath.normpath(posixpath.join(BESIDE, path)) if anchor == shellwords.FOLDER else path
              for _, (anchor, path) in read.sourced]
    assert placed[-1:] == [sourced] and not read.tails, read
    assert not read.unseen
    assert _seen_or_blind(repo, sourced) and _identity(repo) is not None


RUN_BESIDE = {
    'cd "$(dirname "$0")"; python3 "$PWD/client.py"': 'cd "$(dirname "$0")"\npython3 "$PWD/client.py"\n',
    'cd "$(dirname "$0")" && python3 "$(pwd)/client.py"': 'cd "$(dirname "$0")" && python3 "$(pwd)/client.py"\n',
    'cd "$(dirname "$0")"; python3 ./client.py': 'cd "$(dirname "$0")" || exit 1\npython3 ./client.py --x 1\n',
    'cd "$(dirname "$0")/.."; python3 runners/client.py': 'cd "$(dirname "$0")/.."\npython3 runners/client.py\n',
}


@pytest.mark.parametrize("how", RUN_BESIDE)
def test_a_file_run_by_a_relative_path_after_a_cd_to_the_scripts_folder_is_hashed(tmp_path, how):
    client = f"{BESIDE}/client.py"
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + RUN_BESIDE[how],
                                client: f"print('ran:{client}')\n", "client.py": "print('ran:client.py')\n"})
    assert _ran(repo, {}) == [client]
    assert client in _hashed(repo)
    assert _identity(repo) is not None and _seen_or_blind(repo, client)


@pytest.mark.parametrize("text", ['cd "$(dirname "$0")"\n[ -n "$X" ] && cd sub\npython3 ./client.py\n',
                                  'cd "$(dirname "$0")"\nif [ -n "$X" ]; then cd sub; fi\npython3 "$PWD/client.py"\n'])
def test_a_file_run_after_a_cd_the_run_may_not_make_is_hashed_from_either_folder(tmp_path, text):
    """Bash runs the client beside the script or the one under sub/, as the condition goes: both are hashed."""
    clients = [f"{BESIDE}/client.py", f"{BESIDE}/sub/client.py"]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text,
                                **{client: f"print('ran:{client}')\n" for client in clients}})
    assert [_ran(repo, env) for env in ({}, {"X": "1"})] == [[client] for client in clients]
    assert set(clients) <= set(_hashed(repo))
    assert all(_seen_or_blind(repo, client) for client in clients) and _identity(repo) is not None


def test_a_relative_path_after_no_cd_or_a_cd_elsewhere_names_nothing_beside_the_script():
    """From the checkout's top, or after a `cd` elsewhere, a relative path names no file beside the script (named from
    the top, such a file is not followed, as before); after one to the script's folder the run may not make, it names
    the one beside it."""
    for text in ('python3 ./client.py\n', 'cd b\npython3 ./client.py\n',
                 '(cd "$(dirname "$0")")\npython3 "$PWD/client.py"\n'):
        assert shellwords.reading(text).named == [], text
    text = '[ -n "$X" ] && cd "$(dirname "$0")"\npython3 ./client.py\n'
    assert [place for _, place in shellwords.reading(text).named] == [(shellwords.FOLDER, "client.py")]
