"""s43d: files a job reads that its run identity did not see, so an edit to one kept the identity and `ci reuse` handed
back a stale result.

1. A tracked file a program opens because a word of its command names it: `python3 x.py --config shared/c.json`,
   `--some-flag=shared/c.json`, `vllm serve m --config cfg.yaml`, `--chat-template "$GITHUB_WORKSPACE/t.jinja"`,
   `CFG=shared/c.json python3 x.py`. Only words of reader commands (`cat`, `cp`, ...) and paths spelled from the
   script's folder were hashed. Every word of a command (an option's value after its `=`, an assignment's value) that
   names a tracked file, read as the other paths are (from the working folder there, the script's folder, the
   workspace), is now hashed as data; one that names nothing tracked hashes nothing, and one only the run knows is
   passed over, as `cat "$X"` is.
2. A file named by a list the job reads at run time (`while read -r f; do bash "$f"; done < list.txt`, `mapfile -t L <
   list.txt; for f in "${L[@]}"; do bash "$f"; done`, `for f in $(cat list.txt)`, `cat list.txt | xargs -n1 bash`)
   was run with the row keeping its identity. Which files such a list names only the run knows: the row now has no
   identity (a blind spot, said on the `ci reuse` line), as a `source` of such a variable already had.
3. A script piped to a shell or given as its command string by a reader (`cat shared/x | bash`, `bash -c "$(cat
   shared/x)"`, `eval "$(cat shared/x)"`) was hashed as data only when its name has no script extension: what it
   sources in turn was not. It is read as the shell it is, from the working folder there.

Each case runs the launcher with real bash in a real git checkout (what bash, or the program it runs, reads says so on
its output), and an edit to each such file must change the identity."""

from __future__ import annotations

import pytest
from conftest import GitRepo
from test_identity_reads_s42b import LAUNCHER, _each_read_is_hashed, _run, _says
from test_reuse import M_ROW
from test_unknown_prefix_s39u import _checkout, _identity

from sweepgate.core import identity

# A program that opens each file its arguments name (an option's value after `=` too) and the file $CFG names, as
# `vllm serve --config`, `--chat-template` do, and prints what it read
OPENER = ("import os, sys\n"
          "words = [w.split('=', 1)[1] if w.startswith('-') and '=' in w else w for w in sys.argv[1:]]\n"
          "for w in words + [os.environ.get('CFG', '')]:\n"
          "    if w and os.path.isfile(w):\n"
          "        print(open(w).read())\n")
RUNS = {"shared/open.py": OPENER}

# --- 1: a file a word of a command names ------------------------------------------------------------------------

ARGUMENTS = {
    "--config shared/c.json": ("python3 shared/open.py --config shared/c.json\n", {"shared/c.json": None},
                               ["shared/c.json"]),
    "--some-flag=shared/c.json": ("python3 shared/open.py --some-flag=shared/c.json\n", {"shared/c.json": None},
                                  ["shared/c.json"]),
    "a bare name: --config cfg.yaml": ("python3 shared/open.py serve m --config cfg.yaml\n", {"cfg.yaml": None},
                                       ["cfg.yaml"]),
    "--chat-template $GITHUB_WORKSPACE/t.jinja": (
        'python3 shared/open.py serve m --chat-template "$GITHUB_WORKSPACE/t.jinja"\n', {"t.jinja": None},
        ["t.jinja"]),
    '"--config=$GITHUB_WORKSPACE/..."': ('python3 shared/open.py "--config=$GITHUB_WORKSPACE/shared/c.json"\n',
                                         {"shared/c.json": None}, ["shared/c.json"]),
    "CFG=shared/c.json python3": ("CFG=shared/c.json python3 shared/open.py\n", {"shared/c.json": None},
                                  ["shared/c.json"]),
    "export CFG=...": ("export CFG=shared/c.json\npython3 shared/open.py\n", {"shared/c.json": None},
                       ["shared/c.json"]),
    "cd b; --config c.yaml": ("cd b\npython3 ../shared/open.py --config c.yaml\n",
                              {"b/c.yaml": None, "c.yaml": "other\n"}, ["b/c.yaml"]),
    "through a wrapper": ("timeout 60 python3 shared/open.py --config=cfg.yaml\n", {"cfg.yaml": None},
                          ["cfg.yaml"]),
    "a variable set to a path": ('C=shared/c.json\npython3 shared/open.py --config "$C"\n', {"shared/c.json": None},
                                 ["shared/c.json"]),
    "a glob": ("python3 shared/open.py shared/*.json\n", {"shared/a.json": None, "shared/b.json": None},
               ["shared/a.json", "shared/b.json"]),
}


@pytest.mark.parametrize("case", ARGUMENTS)
def test_a_tracked_file_a_command_s_word_names_is_hashed(tmp_path, case):
    lines, files, read = ARGUMENTS[case]
    _each_read_is_hashed(tmp_path, lines, {**RUNS, **files}, read)


def test_words_that_name_nothing_tracked_hash_nothing(tmp_path):
    """Words that name no tracked file (an option, a model name, a number, an output, a path only the run knows, a glob
    whose folder only the run knows, the checkout's top, a variable's value naming a folder, mostly one a script
    builds paths on; s45d: not one a program it runs is given in its environment, `export D=shared/models`,
    `MODELS=shared/models python3 x.py`, which test_identity_stale_s45d reads whole) add nothing and take no identity away (s44c: a tracked folder a command's word names is read
    whole, below)."""
    lines = ('python3 shared/open.py serve m --tp 8 --out "$OUT/r.json" --cfg "$CFG_DIR/x.yaml" "$TMP"/*.log\n'
             'python3 shared/open.py --dir . --root "$GITHUB_WORKSPACE" --models-dir models\n'
             'D=shared/models\nlocal_dir=shared/models; python3 shared/open.py\n'
             'for c in $(seq 1 3); do python3 shared/open.py --conc "$c"; done\n')
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines, **RUNS, "shared/models/m.txt": "x\n",
                                "unrelated.txt": "x\n"})
    blobs = identity.read_all([M_ROW], {}, identity.read_tree(str(repo.path)))
    files = identity.executed_files(M_ROW, {}, blobs, identity.Tracked(lambda: repo.git("ls-files").split()))
    assert files == [identity.script_candidates(M_ROW)[0], *identity.support_files(M_ROW, {}), "shared/open.py"]
    first = _identity(repo)
    assert first is not None
    repo.write("shared/models/m.txt", "y\n")
    repo.write("unrelated.txt", "y\n")
    assert _identity(repo) == first


@pytest.mark.parametrize("lines", ["python3 shared/open.py --dir shared/models\n",
                                   "python3 shared/open.py --models=shared/models/\n",
                                   "cd shared && python3 open.py models\n"])
def test_a_tracked_folder_a_word_names_is_read_whole(tmp_path, lines):
    """s44c: a program given a tracked folder may list it and read its files (`python3 r.py shared/cfgs`): each tracked
    file in it is hashed, so an edit to one, or one added, changes the identity; one elsewhere does not."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines, **RUNS, "shared/models/m.txt": "x\n",
                                "unrelated.txt": "x\n"})
    before = _identity(repo)
    repo.write("unrelated.txt", "y\n")
    assert before is not None and _identity(repo) == before
    for path, text in (("shared/models/m.txt", "y\n"), ("shared/models/n.txt", "new\n")):  # an edit, a file added
        repo.write(path, text)
        repo.git("add", path)
        assert _identity(repo) not in (None, before), path
        before = _identity(repo)


# --- 2: files a list read at run time names -----------------------------------------------------------------------

LISTS = {
    "while read; bash": ('while read -r f; do bash "$f"; done < list.txt\n', "a.sh"),
    "mapfile; for in array; bash": ('mapfile -t L < list.txt\nfor f in "${L[@]}"; do bash "$f"; done\n', "a.sh"),
    "mapfile; for in array; source": ('D="$(dirname "$0")"\nmapfile -t L < "$D/../../list.txt"\n'
                                      'for f in "${L[@]}"; do source "$f"; done\n', "a.sh"),
    "readarray; an element": ('readarray -t L < list.txt\nbash "${L[0]}"\n', "a.sh"),
    "read -a; an element": ('read -r -a L < list.txt\nbash "${L[0]}"\n', "a.sh"),
    "for in $(cat list)": ('for f in $(cat list.txt); do bash "$f"; done\n', "a.sh"),
    "for in $(< list); python3": ('for f in $(< list.txt); do python3 "$f"; done\n', "a.py"),
    "f=$(head -1 list)": ('f=$(head -n 1 list.txt)\nbash "$f"\n', "a.sh"),
    "cat list | xargs bash": ("cat list.txt | xargs -n1 bash\n", "a.sh"),
    "xargs -a list bash": ("xargs -a list.txt -n1 bash\n", "a.sh"),
    "while read; ./$f": ('while read -r f; do "./$f"; done < list.txt\n', "a.sh"),
    "cat list | while read; bash": ('cat list.txt | while read -r f; do bash "$f"; done\n', "a.sh"),
}


@pytest.mark.parametrize("case", LISTS)
def test_a_file_a_list_read_at_run_time_names_leaves_the_row_without_an_identity(tmp_path, case):
    """Real bash runs (or reads) the file the list names; which one that is only the run knows, so the row has no
    identity (never one that an edit to that file keeps)."""
    lines, named = LISTS[case]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines, "list.txt": named + "\n",
                                named: _says(named)})
    (repo.path / named).chmod(0o755)
    assert _run(repo) == [named]
    assert _identity(repo) is None


def test_the_blind_line_says_the_file_run_through_the_list(tmp_path):
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + LISTS["while read; bash"][0], "list.txt": "a.sh\n",
                                "a.sh": "true\n"})
    ids, blind = identity.identities_and_blind([M_ROW], {}, identity.read_tree(str(repo.path)))
    assert ids == [None]
    assert identity.blind_lines(blind) == [
        f'1 job not reused, no run identity: {LAUNCHER}:2: runs "$f", {identity.UNSEEN_WHY}']


def test_a_list_s_lines_used_otherwise_keep_the_identity(tmp_path):
    """A list's lines echoed or passed as a program's values (`--conc "$c"`), and files a `find` lists copied (the
    run's own outputs, as InferenceX's launchers collect results), run no file: the row keeps its identity, and the
    list file itself is hashed."""
    lines = ('while read -r l; do echo "$l"; done < params.txt\n'
             'mapfile -t C < params.txt\nfor c in "${C[@]}"; do python3 shared/open.py --conc "$c"; done\n'
             'R=$(find out -name "*.json" 2>/dev/null)\nfor f in $R; do cp "$f" "$GITHUB_WORKSPACE/"; done\n')
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines, **RUNS, "params.txt": "4\n8\n"})
    first = _identity(repo)
    assert first is not None
    repo.write("params.txt", "16\n")
    assert _identity(repo) not in (None, first)


# --- 3: a script piped to a shell ---------------------------------------------------------------------------------

PIPED = {
    "cat shared/x | bash": ("cat shared/x | bash\n", ["y.sh", "shared/x"]),
    "cat $GITHUB_WORKSPACE/shared/x | bash -s": ('cat "$GITHUB_WORKSPACE/shared/x" | bash -s\n', ["y.sh", "shared/x"]),
    "cat $D/x | bash": ('D="$(dirname "$0")/../../shared"\ncat "$D/x" | bash\n', ["y.sh", "shared/x"]),
    'bash -c "$(cat shared/x)"': ('bash -c "$(cat shared/x)"\n', ["y.sh", "shared/x"]),
    'bash -c "$(< shared/x)"': ('bash -c "$(< shared/x)"\n', ["y.sh", "shared/x"]),
    'eval "$(cat shared/x)"': ('eval "$(cat shared/x)"\n', ["y.sh", "shared/x"]),
    'eval "$(< shared/x)"': ('eval "$(< shared/x)"\n', ["y.sh", "shared/x"]),
    "cat shared/x | tr | bash": ("cat shared/x | tr -d '\\r' | bash\n", ["y.sh", "shared/x"]),
}


@pytest.mark.parametrize("case", PIPED)
def test_a_script_a_reader_gives_a_shell_is_read_as_shell(tmp_path, case):
    """shared/x (no script extension) sources y.sh from the working folder, the top: both are hashed."""
    lines, read = PIPED[case]
    _each_read_is_hashed(tmp_path, lines, {"shared/x": "source y.sh\necho read:shared/x\n", "y.sh": None,
                                           "shared/y.sh": "echo read:shared/y.sh\n"}, read)


def test_a_script_piped_to_a_shell_that_moves_reads_from_where_it_went(tmp_path):
    """`cat shared/x | bash` where shared/x runs `cd shared; source y.sh`: shared/y.sh is the one read and hashed."""
    _each_read_is_hashed(tmp_path, "cat shared/x | bash\n",
                         {"shared/x": "cd shared\nsource y.sh\n", "shared/y.sh": None, "y.sh": "echo read:y.sh\n"},
                         ["shared/y.sh"])


def test_a_file_piped_to_a_program_is_still_data(tmp_path):
    """`cat notes | python3 t.py` (the program runs its own file): notes is hashed, never read as shell, so what its
    text would source is no blind spot."""
    repo = _each_read_is_hashed(tmp_path, "cat notes | python3 shared/t.py\n",
                                {"notes": 'read:notes\nsource "$X"\n',
                                 "shared/t.py": "import sys\nprint(sys.stdin.read())\n"}, ["notes"])
    assert _identity(repo) is not None
