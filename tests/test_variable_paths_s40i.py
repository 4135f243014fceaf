"""s40i: two spellings of a `source` path the run identity read blind or wrong.

1. A variable set earlier in the file to a path whose start only the run knows (`LIB="$BENCH_DIR/lib.sh"`, then
   `source "$LIB"`) left the row without a run identity (`sources "$LIB"`, which only the run can read), where the same
   path written inline (`source "$BENCH_DIR/lib.sh"`) reads every tracked file ending in its written names (s39u). The
   variable now carries that written end, and a `source` of it (or of a path under it, or of a variable built on it)
   reads the same tracked files.
2. `$PWD` and `$(pwd)` were the checkout's top wherever they stood, so after `cd "$(dirname "$0")"` (or `cd
   benchmarks`) `source "$PWD/x.sh"` hashed a top-level `x.sh` (or a missing one) and never the file bash sources: an
   edit to that file left the identity as it was, and `ci reuse` would hand the row a stale result. They now follow a
   `cd` as a relative path does (s39): from where it went, or a written end after a `cd` only the run knows.

Real git checkouts and real scripts throughout; each identity is computed as the job's host computes it
(``identity.read_tree``)."""

from __future__ import annotations

import posixpath
import subprocess

import pytest
from conftest import GitRepo
from test_reuse import M_ROW, script
from test_unknown_prefix_s39u import _checkout, _identity

from sweepgate.core import identity, shellwords

SCRIPT = identity.script_candidates(M_ROW)[0]
LAUNCHER = identity.launcher_files(M_ROW["runner"], {})[0]
HELPER = "benchmarks/shared/helper.sh"
BESIDE = posixpath.join(posixpath.dirname(SCRIPT), "beside.sh")


def _hashed(repo: GitRepo) -> list[str]:
    blobs = identity.read_all([M_ROW], {}, identity.read_tree(str(repo.path)))
    return identity.executed_files(M_ROW, {}, blobs)


def _changes_the_identity(repo: GitRepo, path: str) -> None:
    first = _identity(repo)
    assert first is not None
    assert path in _hashed(repo)
    repo.write(path, repo.read(path) + b"# changed\n")
    assert _identity(repo) not in (None, first)


# A variable holding a path whose start only the run knows, as the launchers and scripts spell it
THROUGH_A_VARIABLE = {
    'LIB="$X/shared/helper.sh"; source "$LIB"': 'LIB="$BENCH_ROOT/shared/helper.sh"\nsource "$LIB"\n',
    'LIB="${X}/shared/helper.sh"; . "${LIB}"': 'LIB="${BENCH_ROOT}/shared/helper.sh"\n. "${LIB}"\n',
    'unquoted, on one line': 'LIB=$BENCH_ROOT/shared/helper.sh; source $LIB\n',
    'local in a function': 'load() {\n  local lib="$BENCH_ROOT/shared/helper.sh"\n  source "$lib"\n}\nload\n',
    'D="$X/shared"; F="$D/helper.sh"; source "$F"': 'D="$BENCH_ROOT/shared"\nF="$D/helper.sh"\nsource "$F"\n',
    'D="$X/benchmarks"; source "$D/shared/helper.sh"': 'D="$BENCH_ROOT/benchmarks"\nsource "$D/shared/helper.sh"\n',
    'a default': 'LIB="${BENCH_ROOT:-/opt/bench}/shared/helper.sh"\nsource "$LIB"\n',
    'dirname of it': 'LIB="$BENCH_ROOT/shared/other.sh"\nsource "$(dirname "$LIB")/helper.sh"\n',
    'cd to it': 'D="$BENCH_ROOT/shared"\ncd "$D" || exit 1\nsource ./helper.sh\n',
    'srun ... bash -c with it': 'LIB="$BENCH_ROOT/shared/helper.sh"\nsrun bash -c "source $LIB && run"\n',
}


@pytest.mark.parametrize("where", [LAUNCHER, SCRIPT])
@pytest.mark.parametrize("how", THROUGH_A_VARIABLE)
def test_a_source_through_a_variable_with_an_unknown_start_reads_the_tracked_files_ending_so(tmp_path, how, where):
    """Where the row had no identity, it has one, and it hashes the tracked file the written end names: an edit to it
    changes the identity."""
    text = "#!/usr/bin/env bash\n" + THROUGH_A_VARIABLE[how]
    if where == SCRIPT:
        text += 'source "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"\n'
    repo = _checkout(tmp_path, {where: text, HELPER: "H=1\n"})
    _changes_the_identity(repo, HELPER)


def test_every_tracked_file_ending_in_the_variables_names_is_hashed(tmp_path):
    """As for the path written inline: two tracked files end in shared/helper.sh, both are hashed; one that ends so
    only within a name (xshared/helper.sh) is not."""
    other = "tools/shared/helper.sh"
    repo = _checkout(tmp_path, {LAUNCHER: 'LIB="$SITE/shared/helper.sh"\nsource "$LIB"\n', HELPER: "H=1\n",
                                other: "O=1\n", "tools/xshared/helper.sh": "N=1\n"})
    hashed = _hashed(repo)
    assert HELPER in hashed and other in hashed and "tools/xshared/helper.sh" not in hashed
    _changes_the_identity(repo, other)


def test_a_variable_and_the_inline_path_read_alike():
    """What ``shellwords.reading`` makes of `source "$V"` is what it makes of the path `V` holds written inline."""
    for value, rest in [('"$X/lib.sh"', ""), ('"$X/a"', "/b/lib.sh"), ('"${X:-/opt}/a/lib.sh"', ""),
                        ('"$X/a/../lib.sh"', ""), ('"$X/a"', "/../../lib.sh")]:
        inline = shellwords.reading(f'source {value[:-1]}{rest}"\n')
        through = shellwords.reading(f'V={value}\nsource "$V{rest}"\n')
        assert ([t[:2] for t in through.tails], through.unseen, through.sourced) == (
            [(t[0] + len(f"V={value}\n"), t[1]) for t in inline.tails], [], []), (value, rest)


@pytest.mark.parametrize("line", ['V="$X"\nsource "$V"\n', 'V="$X/"\nsource "$V"\n', 'V="$X/a/.."\nsource "$V"\n',
                                  'V="$X/lib.sh"\nV+=.bak\nsource "$V"\n', 'V="$X/$Y"\nsource "$V"\n',
                                  'V="$X/lib.sh"\nsource "$V-$Y"\n', 'V="$(cat list)"\nsource "$V"\n'])
def test_a_variable_of_which_no_name_is_written_still_leaves_the_row_without_one(tmp_path, line):
    repo = _checkout(tmp_path, {LAUNCHER: line, "lib.sh": "X=1\n"})
    assert _identity(repo) is None


# `$PWD` / `$(pwd)` after a `cd`
AFTER_A_CD = {
    'cd "$(dirname "$0")"; source "$PWD/beside.sh"': (SCRIPT, 'cd "$(dirname "$0")"\nsource "$PWD/beside.sh"\n',
                                                       BESIDE),
    'cd "$(dirname "$0")" && . "$(pwd)/beside.sh"': (SCRIPT, 'cd "$(dirname "$0")" && . "$(pwd)/beside.sh"\n',
                                                      BESIDE),
    'cd "${BASH_SOURCE%/*}"; source "${PWD}/beside.sh"': (
        SCRIPT, 'cd "${BASH_SOURCE[0]%/*}"\nsource "${PWD}/beside.sh"\n', BESIDE),
    'cd benchmarks && source "$(pwd)/shared/helper.sh"': (
        LAUNCHER, 'cd benchmarks && source "$(pwd)/shared/helper.sh"\n', HELPER),
    'cd benchmarks; HERE=$(pwd); cd ..; source "$HERE/shared/helper.sh"': (
        LAUNCHER, 'cd benchmarks\nHERE=$(pwd)\ncd ..\nsource "$HERE/shared/helper.sh"\n', HELPER),
    'cd benchmarks/shared; L="$PWD/helper.sh"; cd /; source "$L"': (
        LAUNCHER, 'cd benchmarks/shared\nL="$PWD/helper.sh"\ncd /\nsource "$L"\n', HELPER),
    'cd "$X"; source "$PWD/shared/helper.sh"': (LAUNCHER, 'cd "$WORK"\nsource "$PWD/shared/helper.sh"\n', HELPER),
    'pushd benchmarks; popd; source "$(pwd)/shared/helper.sh"': (
        LAUNCHER, 'pushd benchmarks\npopd\nsource "$(pwd)/benchmarks/shared/helper.sh"\n', HELPER),
}


@pytest.mark.parametrize("how", AFTER_A_CD)
def test_pwd_after_a_cd_is_where_the_cd_went(tmp_path, how):
    """The file bash sources is hashed (a top-level file of the same name, which it does not source, is not needed):
    an edit to it changes the identity."""
    where, text, sourced = AFTER_A_CD[how]
    if where == SCRIPT:
        text = script("x") + text
    repo = _checkout(tmp_path, {where: "#!/usr/bin/env bash\n" + text, sourced: "H=1\n",
                                posixpath.basename(sourced): "TOP=1\n"})
    _changes_the_identity(repo, sourced)


def test_pwd_reads_where_bash_is(tmp_path):
    """Each `$PWD`/`$(pwd)` spelling above, run by bash in the checkout, sources the file the reading places it at."""
    for how, (where, text, sourced) in AFTER_A_CD.items():
        if "$X" in how or "pushd" in how:
            continue
        root = tmp_path / how.replace("/", "_").replace(" ", "_")[:40]
        for path, body in {where: text + 'echo "sourced:$SOURCED"\n', sourced: f"SOURCED={sourced}\n",
                           posixpath.basename(sourced): "SOURCED=top\n"}.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(body)
        out = subprocess.run(["bash", where], cwd=root, capture_output=True, text=True, check=True).stdout
        assert f"sourced:{sourced}" in out, (how, out)
        read = shellwords.reading(text)
        placed = [posixpath.normpath(posixpath.join(posixpath.dirname(where), path)) if anchor == shellwords.FOLDER
                  else path for _, (anchor, path) in read.sourced]
        assert placed == [sourced], (how, read)


# A command string run after a `cd`: the shell it starts is where the `cd` went (`bash -c`, `eval`), or where `srun`,
# `docker run -w` put it, which the text does not say
IN_A_STRING_AFTER_A_CD = {
    'cd benchmarks; bash -c "source shared/helper.sh"': 'cd benchmarks\nbash -c "source shared/helper.sh"\n',
    "cd benchmarks; bash -c 'source \"$(pwd)/shared/helper.sh\"'":
        "cd benchmarks\nbash -c 'source \"$(pwd)/shared/helper.sh\"'\n",
    'cd benchmarks; eval "source \\"$PWD/shared/helper.sh\\""':
        'cd benchmarks\neval "source \\"\\$PWD/shared/helper.sh\\""\n',
    '(cd benchmarks && bash -c ". shared/helper.sh")': '(cd benchmarks && bash -c ". shared/helper.sh")\n',
    'cd benchmarks; bash <<EOF': 'cd benchmarks\nbash <<\'EOF\'\nsource shared/helper.sh\nEOF\n',
}


@pytest.mark.parametrize("how", IN_A_STRING_AFTER_A_CD)
def test_a_command_string_after_a_cd_reads_from_where_it_went(tmp_path, how):
    """The helper bash sources from the folder the `cd` went to is hashed (so is any tracked file ending so: the shell
    may run elsewhere); before, the string was read from the checkout's top, a top-level shared/helper.sh."""
    text = IN_A_STRING_AFTER_A_CD[how]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text, HELPER: "echo sourced:helper\n",
                                "shared/helper.sh": "echo sourced:top\n"})
    out = subprocess.run(["bash", LAUNCHER], cwd=repo.path, capture_output=True, text=True).stdout
    assert out == "sourced:helper\n", out  # bash itself: the file it sources
    _changes_the_identity(repo, HELPER)


def test_a_command_string_with_no_cd_before_it_is_still_read_from_the_top():
    read = shellwords.reading('bash -c "source benchmarks/x.sh"\n(cd b)\nbash -c "source y.sh"\ncd b; cd ..\n'
                              'bash -c ". z.sh"\n')
    assert [place for _, place in read.sourced] == [(shellwords.TOP, "benchmarks/x.sh"), (shellwords.TOP, "y.sh"),
                                                    (shellwords.TOP, "z.sh")]
    assert read.tails == [] and read.unseen == []


@pytest.mark.parametrize("text", [
    'if [ -n "$X" ]; then LIB="$(dirname "$0")/shared/helper.sh"; else LIB="$X/shared/other.sh"; fi\nsource "$LIB"\n',
    'LIB=shared/helper.sh\n[ -n "$X" ] && LIB="$X/shared/other.sh"\nsource "$LIB"\n',
])
def test_a_variable_set_again_to_a_path_only_the_run_knows_still_leaves_the_row_without_one(tmp_path, text):
    """Which of its values a variable set twice holds is the run's to say (a branch, a condition): read as its last
    value, `$X/shared/other.sh`, it would leave out the file of the first, which the run may source instead; so the
    row stays without an identity, as before."""
    repo = _checkout(tmp_path, {LAUNCHER: text, HELPER: "H=1\n", "benchmarks/runners/shared/helper.sh": "H=1\n",
                                "shared/helper.sh": "H=1\n", "shared/other.sh": "O=1\n"})
    assert _identity(repo) is None
