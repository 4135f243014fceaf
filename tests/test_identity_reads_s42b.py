"""s42b: files a job really reads or runs that its run identity left out, so an edit to one kept the identity and
`ci reuse` handed back a stale result.

1. A tracked file read as data (not run): the word after a `<` (`while read l; do …; done < params.txt`, `$(< v.txt)`,
   `python3 gen.py < in.txt`) and the files a reader command names (`export $(cat .env)`, `cat cfg.json | head`,
   `grep -v '^#' .env`, `cp -rT "$GITHUB_WORKSPACE/shared/recipes" "$T/r"`: a folder, every tracked file in it):
   only paths with a `/` beside the script were hashed. Each is now read from the working
   folder the run is in there (the folders a `source` or a run is read from), hashed as it is and never read as
   shell; a word that names no tracked file hashes nothing.
2. A loop's variable: `for f in a.sh b.sh; do bash "$f"; done` hashed neither file, and `for f in "$D"/*.sh; do
   source "$f"; done` left the row with no identity. Each word of the loop's list is read where the variable
   stands; a glob there is every tracked file it matches.
3. An interpreter's options: those after its script's word were taken for its own when that word was quoted
   (`python3 -u "$D/t.py" --n 1` read `1` as the script), and python's `-O` was read as taking an argument, as
   bash's does (`python3 -O tools/bench --n 1` read `--n 1`).
   `source .env` (a dot file by its name alone) left the row with no identity: it is the working folder's `.env`.
4. A script fed on standard input by a path with a variable (`bash < "$D/x.sh"`), or with no script extension
   (`bash < xx`), was not hashed.

Each case runs the launcher with real bash in a real git checkout: what bash reads says so on its output, and an
edit to each such file must change the identity."""

from __future__ import annotations

import subprocess

import pytest
from conftest import GitRepo
from test_reuse import M_ROW
from test_unknown_prefix_s39u import _checkout, _identity

from sweepgate.core import identity

LAUNCHER = identity.launcher_files(M_ROW["runner"], {})[0]


def _says(path: str) -> str:
    """A file's text that says it was read: a script prints it, a data file's content is the line itself."""
    if path.endswith(".py"):
        return f"print('read:{path}')\n"
    if path.endswith(".sh"):
        return f"echo read:{path}\n"
    return f"read:{path}\n"


def _run(repo: GitRepo) -> list[str]:
    """What the launcher, run by real bash from the checkout's top, read (each `read:PATH` on its output)."""
    out = subprocess.run(["bash", LAUNCHER], cwd=repo.path, capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "GITHUB_WORKSPACE": str(repo.path), "HOME": str(repo.path)})
    return list(dict.fromkeys(word.split(":", 1)[1] for word in out.stdout.split() if word.startswith("read:")))


def _each_read_is_hashed(tmp_path, lines: str, files: dict[str, str | None], read: list[str]) -> GitRepo:
    """The launcher's ``lines`` run by real bash read exactly ``read`` of ``files`` (path -> its text, None: one that
    says it was read), and an edit to each of those changes the row's identity."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines,
                                **{path: _says(path) if text is None else text for path, text in files.items()}})
    assert _run(repo) == read
    for path in read:
        first = _identity(repo)
        assert first is not None
        repo.write(path, repo.read(path) + b"\n# changed\n")
        assert _identity(repo) not in (None, first), path
    return repo


# --- 1: a tracked file read as data -------------------------------------------------------------------------------

READ_AS_DATA = {
    "export $(cat .env)": ('export $(cat .env)\necho "$X"\n', {".env": "X=read:.env\n"}, [".env"]),
    "while read; done < params.txt": ('while read -r l; do echo "$l"; done < params.txt\n', {"params.txt": None},
                                      ["params.txt"]),
    "cat cfg.json | head": ("cat cfg.json | head -1\n", {"cfg.json": None}, ["cfg.json"]),
    "python3 gen.py < in.txt": ("python3 gen.py < in.txt\n",
                                {"gen.py": "import sys\nprint(sys.stdin.read())\n", "in.txt": None}, ["in.txt"]),
    "$(< v.txt)": ('X=$(< v.txt)\necho "$X"\n', {"v.txt": None}, ["v.txt"]),
    "grep -v '^#' .env | xargs": ("export $(grep -v '^#' .env | xargs)\necho \"$X\"\n", {".env": "X=read:.env\n"},
                                  [".env"]),
    "< a/b.txt": ('read -r l < a/b.txt\necho "$l"\n', {"a/b.txt": None}, ["a/b.txt"]),
    "cd b; cat c.txt": ("cd b\ncat c.txt\n", {"b/c.txt": None, "c.txt": "other\n"}, ["b/c.txt"]),
    "cd $(dirname $0); cat c.txt": ('cd "$(dirname "$0")"\ncat c.txt\n',
                                    {"benchmarks/runners/c.txt": None, "c.txt": "other\n"},
                                    ["benchmarks/runners/c.txt"]),
    "cat in a file run": ("bash shared/r.sh\n", {"shared/r.sh": "cd shared\ncat p.txt\n", "shared/p.txt": None},
                          ["shared/p.txt"]),
    "cat after a cd only the run knows": ('cd "${WORK:-b}"\ncat c.txt\n', {"b/c.txt": None}, ["b/c.txt"]),
    "cat $D/c.txt": ('D=./b\ncat "$D/c.txt"\n', {"b/c.txt": None}, ["b/c.txt"]),
    "source .env (a dot file by its name)": ('source .env\necho "$X"\n', {".env": "X=read:.env\n"}, [".env"]),
    "cd b; . .env": ('cd b\n. .env\necho "$X"\n', {"b/.env": "X=read:b/.env\n", ".env": "X=top\n"}, ["b/.env"]),
    "cp -rT a folder, then read": ('T=$(mktemp -d)\ncp -rT "$GITHUB_WORKSPACE/shared/recipes" "$T/r"\n'
                                   'cat "$T"/r/a.yaml "$T"/r/deep/b.yaml\n',
                                   {"shared/recipes/a.yaml": None, "shared/recipes/deep/b.yaml": None},
                                   ["shared/recipes/a.yaml", "shared/recipes/deep/b.yaml"]),
}


@pytest.mark.parametrize("case", READ_AS_DATA)
def test_a_tracked_file_read_as_data_is_hashed(tmp_path, case):
    _each_read_is_hashed(tmp_path, *READ_AS_DATA[case])


def test_a_file_read_as_data_is_not_read_as_shell(tmp_path):
    """`cat notes.txt` where notes.txt holds shell text (`source "$X"`): hashed, never read as a script (its `source`
    of a file only the run knows would leave the row with no identity), nor is what it names hashed."""
    repo = _each_read_is_hashed(tmp_path, "cat notes.txt\n",
                                {"notes.txt": 'read:notes.txt\nsource "$X"\nbash other.sh\n', "other.sh": None},
                                ["notes.txt"])
    blobs = identity.read_all([M_ROW], {}, identity.read_tree(str(repo.path)))
    files = identity.executed_files(M_ROW, {}, blobs, identity.Tracked(lambda: repo.git("ls-files").split()))
    assert "notes.txt" in files and "other.sh" not in files


def test_a_word_that_names_no_tracked_file_hashes_nothing(tmp_path):
    """`cat "$RESULT"/out.json`, `head -n 5 log.txt`, `jq .a.b cfg.json` with no such files: nothing more is hashed,
    and the tracked files are not all listed into the identity."""
    lines = 'cat "$RESULT"/out.json\nhead -n 5 log.txt\njq .a.b cfg.json\nsort < made.txt\n'
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines, "unrelated.txt": "x\n"})
    blobs = identity.read_all([M_ROW], {}, identity.read_tree(str(repo.path)))
    files = identity.executed_files(M_ROW, {}, blobs, identity.Tracked(lambda: repo.git("ls-files").split()))
    assert files == [identity.script_candidates(M_ROW)[0], *identity.support_files(M_ROW, {})]


# --- 2: a loop's variable -----------------------------------------------------------------------------------------

LOOPS = {
    "for f in a.sh b.sh; bash": ('for f in a.sh b.sh; do bash "$f"; done\n', {"a.sh": None, "b.sh": None},
                                 ["a.sh", "b.sh"]),
    "for f in a.sh b.sh; source": ('for f in a.sh b.sh\ndo\n  source "$f"\ndone\n', {"a.sh": None, "b.sh": None},
                                   ["a.sh", "b.sh"]),
    "for d in a b; bash $d/run.sh": ('for d in a b; do bash "$d/run.sh"; done\n',
                                     {"a/run.sh": None, "b/run.sh": None}, ["a/run.sh", "b/run.sh"]),
    "for f in $D/*.sh; source": ('D="$(dirname "$0")/../../shared"\nfor f in "$D"/*.sh; do source "$f"; done\n',
                                 {"shared/a.sh": None, "shared/b.sh": None, "shared/c.txt": "not run\n"},
                                 ["shared/a.sh", "shared/b.sh"]),
    "for f in $GITHUB_WORKSPACE/shared/*.sh; source": (
        'for f in "$GITHUB_WORKSPACE"/shared/*.sh; do source "$f"; done\n',
        {"shared/a.sh": None, "shared/b.sh": None}, ["shared/a.sh", "shared/b.sh"]),
    "for d in a b; for f in $d/*.sh": ('for d in a b; do for f in "$d"/*.sh; do bash "$f"; done; done\n',
                                       {"a/x.sh": None, "b/y.sh": None}, ["a/x.sh", "b/y.sh"]),
    "for f in shared/*.sh; bash": ('for f in shared/*.sh; do bash "$f"; done\n',
                                   {"shared/a.sh": None, "shared/b.sh": None}, ["shared/a.sh", "shared/b.sh"]),
    "for f in $(dirname $0)/x-*.sh": ('for f in "$(dirname "$0")"/x-*.sh; do bash "$f"; done\n',
                                      {"benchmarks/runners/x-1.sh": None, "benchmarks/runners/x-2.sh": None},
                                      ["benchmarks/runners/x-1.sh", "benchmarks/runners/x-2.sh"]),
    "for p in a.txt; cat $p": ('for p in a.txt; do cat "$p"; done\n', {"a.txt": None}, ["a.txt"]),
}


@pytest.mark.parametrize("case", LOOPS)
def test_the_files_a_loops_list_names_are_hashed(tmp_path, case):
    _each_read_is_hashed(tmp_path, *LOOPS[case])


def test_a_glob_whose_folder_only_the_run_knows_leaves_the_row_without_an_identity(tmp_path):
    """`D=shared` (a name alone: no place) then `for f in "$D"/*.sh; do source "$f"; done`: which files it sources only
    the run knows, said as a blind spot, as a `source "$D"` is; never a stale identity."""
    repo = _checkout(tmp_path, {LAUNCHER: '#!/usr/bin/env bash\nD=shared\nfor f in "$D"/*.sh; do source "$f"; done\n',
                                "shared/a.sh": _says("shared/a.sh")})
    assert _run(repo) == ["shared/a.sh"]
    assert _identity(repo) is None


def test_a_glob_in_a_loop_s_list_matches_files_added_later(tmp_path):
    """A file the glob matches that is added later is a change: bash would run it too."""
    repo = _each_read_is_hashed(tmp_path, 'for f in shared/*.sh; do bash "$f"; done\n', {"shared/a.sh": None},
                                ["shared/a.sh"])
    first = _identity(repo)
    repo.commit({"shared/b.sh": _says("shared/b.sh")}, "add")
    assert _run(repo) == ["shared/a.sh", "shared/b.sh"]
    assert _identity(repo) not in (None, first)


# --- 3: an interpreter's options ----------------------------------------------------------------------------------

OPTIONS = {
    "python3 -O tools/bench --n 1": ("python3 -O tools/bench --n 1\n", {"tools/bench": "print('read:tools/bench')\n"},
                                     ["tools/bench"]),
    "python3 -u $D/t.py --n 1": ('D=shared\npython3 -u "$D/t.py" --n 1\n', {"shared/t.py": None}, ["shared/t.py"]),
    "python3 $D/t.py --n 1": ('D=shared\npython3 "$D/t.py" --n 1\n', {"shared/t.py": None}, ["shared/t.py"]),
    "python3 -X dev $D/t.py -q": ('D=shared\npython3 -X dev "$D/t.py" -q\n', {"shared/t.py": None}, ["shared/t.py"]),
    "python3 -B -s -E tools/bench -v": ("python3 -B -s -E tools/bench -v\n",
                                        {"tools/bench": "print('read:tools/bench')\n"}, ["tools/bench"]),
    "python3 -uW ignore tools/bench": ("python3 -uW ignore tools/bench --x\n",
                                       {"tools/bench": "print('read:tools/bench')\n"}, ["tools/bench"]),
    "bash -x $S -e": ('S=shared/x.sh\nbash -x "$S" -e 2>/dev/null\n', {"shared/x.sh": None}, ["shared/x.sh"]),
    "bash -e tools/run --flag": ("bash -e tools/run --flag\n", {"tools/run": "echo read:tools/run\n"},
                                 ["tools/run"]),
    "bash -O extglob tools/run --flag": ("bash -O extglob tools/run --flag\n",
                                         {"tools/run": "echo read:tools/run\n"}, ["tools/run"]),
    "bash -eo pipefail tools/run -x": ("bash -eo pipefail tools/run -x\n", {"tools/run": "echo read:tools/run\n"},
                                       ["tools/run"]),
}


@pytest.mark.parametrize("case", OPTIONS)
def test_an_option_of_no_argument_leaves_the_script_s_word_the_script(tmp_path, case):
    _each_read_is_hashed(tmp_path, *OPTIONS[case])


# --- 4: a script on standard input --------------------------------------------------------------------------------

STDIN = {
    'bash < "$D/x.sh"': ('D=shared\nbash < "$D/x.sh"\n', {"shared/x.sh": "source y.sh\n" + _says("shared/x.sh"),
                                                           "y.sh": None}, ["y.sh", "shared/x.sh"]),
    "bash < xx": ("bash < xx\n", {"xx": "echo read:xx\n"}, ["xx"]),
    "bash -s < $D/x.sh": ('D=shared\nbash -s < "$D/x.sh"\n', {"shared/x.sh": None}, ["shared/x.sh"]),
    "python3 - < $D/t.py": ('D=shared\npython3 - < "$D/t.py"\n', {"shared/t.py": None}, ["shared/t.py"]),
}


@pytest.mark.parametrize("case", STDIN)
def test_a_script_fed_on_standard_input_is_hashed_and_read(tmp_path, case):
    """The script is hashed, and what it sources too (read as the shell it is)."""
    _each_read_is_hashed(tmp_path, *STDIN[case])
