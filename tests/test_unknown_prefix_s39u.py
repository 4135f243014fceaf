"""s39u: s39m left a row without a run identity (so `ci reuse` off) for every `source` whose path starts where only the
run knows: a launcher doing what InferenceX's runners/launch_b300-nv.sh does (`uv venv "$GITHUB_WORKSPACE/.venv"`,
then `source "$GITHUB_WORKSPACE/.venv/bin/activate"`) kept every row of its runner from reuse (28 of the example
fleet's 51), and so did `cd /workspace` (or `cd "$GITHUB_WORKSPACE"`, `pushd "$X"; popd`, `cd "$X"; cd -`, a
`bash -c "cd /workspace && ..."`) before `source benchmarks/benchmark_lib.sh`.

Now such a `source` reads each of the checkout's tracked files whose path ends in the names it writes
(``identity.tail_files``): all of them are hashed; none (a venv's `bin/activate`) leaves the identity as it was. A
`source` of which nothing is written (`source "$f"`, `<(...)`, `/dev/stdin`) still leaves the row without one.
Real git checkouts throughout; `ci reuse` reads a revision (``identity.read_git``) as the job's host reads its checkout
(``identity.read_tree``)."""

from __future__ import annotations

import pytest
from conftest import GitRepo
from test_reuse import M_ROW, script, with_support

from sweepgate.core import identity
from sweepgate.core.load import Git

SCRIPT = identity.script_candidates(M_ROW)[0]
LAUNCHER = identity.launcher_files(M_ROW["runner"], {})[0]
HELPER = "benchmarks/shared/helper.sh"
# what the reviewer's launcher (InferenceX's launch_b300-nv.sh, trimmed) does on a multi-node job
VENV_LAUNCHER = ('#!/usr/bin/bash\nif [[ "$IS_MULTINODE" == "true" ]]; then\n'
                 'git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"\ncd "$SRT_REPO_DIR" || exit 1\n'
                 'uv venv "$GITHUB_WORKSPACE/.venv"\nsource "$GITHUB_WORKSPACE/.venv/bin/activate"\n'
                 'uv pip install -e .\nelse\n  bash "benchmarks/single_node/x.sh"\nfi\n')


def _checkout(tmp_path, files: dict[str, str]) -> GitRepo:
    """A git checkout of M_ROW's script, support files and ``files``, all committed."""
    repo = GitRepo(tmp_path / "repo")
    repo.path.mkdir()
    repo.git("init", "-q", "-b", "main")
    tree = {path: blob.decode() for path, blob in with_support({SCRIPT: script("x").encode()}).items()}
    tree.update(files)
    repo.commit(tree, "fleet")
    return repo


def _identity(repo: GitRepo) -> str | None:
    ids, blind = identity.identities_and_blind([M_ROW], {}, identity.read_tree(str(repo.path)))
    assert (ids[0] is None) == bool(blind), blind
    return ids[0]


def test_a_launcher_that_sources_a_venv_it_made_keeps_the_rows_identity(tmp_path):
    """The reviewer's launcher: no tracked file ends in .venv/bin/activate, so the row has its identity, and the venv
    `uv venv` leaves in the workspace (untracked) does not change it."""
    repo = _checkout(tmp_path, {LAUNCHER: VENV_LAUNCHER})
    first = _identity(repo)
    assert first is not None
    blobs = identity.read_all([M_ROW], {}, identity.read_tree(str(repo.path)))
    assert identity.executed_files(M_ROW, {}, blobs) == [SCRIPT, *identity.support_files(M_ROW, {})]
    repo.write(".venv/bin/activate", "export VIRTUAL_ENV=x\n")  # what `uv venv` makes, never tracked
    assert _identity(repo) == first


def test_a_tracked_file_ending_in_the_written_names_is_part_of_the_identity(tmp_path):
    """A checkout that tracks a file ending in .venv/bin/activate: the launcher may source it, so an edit to it changes
    the identity; one that ends so only within a name (x.venv/bin/activate) is none of them."""
    repo = _checkout(tmp_path, {LAUNCHER: VENV_LAUNCHER, "tools/.venv/bin/activate": "A=1\n",
                                "tools/x.venv/bin/activate": "B=1\n"})
    first = _identity(repo)
    assert first is not None
    repo.write("tools/x.venv/bin/activate", "B=2\n")
    assert _identity(repo) == first
    repo.write("tools/.venv/bin/activate", "A=2\n")
    assert _identity(repo) not in (None, first)


MOVED = {  # a relative `source` after a `cd` to a place only the run knows (or back from one)
    "cd /workspace": "cd /workspace\nsource {}\n",
    'cd "$GITHUB_WORKSPACE"': 'cd "$GITHUB_WORKSPACE"\nsource {}\n',
    'pushd "$X"; popd': 'pushd "$X" >/dev/null\npopd >/dev/null\nsource {}\n',
    'cd "$X"; cd -': 'cd "$X"; cd - >/dev/null\nsource {}\n',
    'srun ... bash -c "cd /workspace && source ..."':
        'srun --container-image=$IMAGE bash -c "cd /workspace && source {} && run_benchmark_serving"\n',
    'a variable from the environment': 'source "$GITHUB_WORKSPACE/{}"\n',
}


@pytest.mark.parametrize("sourced", [identity.F.BENCHMARK_LIB, HELPER])
@pytest.mark.parametrize("how", MOVED)
def test_a_source_after_a_cd_only_the_run_knows_hashes_the_tracked_file_it_names(tmp_path, how, sourced):
    """In the launcher (where the library is no support file of its own for it) or wherever: the file the path names
    from the checkout's top is hashed, and the row keeps an identity."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/bash\n" + MOVED[how].format(sourced), HELPER: "H=1\n"})
    first = _identity(repo)
    assert first is not None
    blobs = identity.read_all([M_ROW], {}, identity.read_tree(str(repo.path)))
    assert sourced in identity.executed_files(M_ROW, {}, blobs)
    repo.write(sourced, repo.read(sourced) + b"# changed\n")
    assert _identity(repo) not in (None, first)


def test_every_tracked_file_ending_so_is_hashed_with_what_it_sources(tmp_path):
    """Two tracked files end in shared/helper.sh: the job may source either, so both are hashed, and what the second
    sources beside itself too; the order is the tracked files', whichever is read first."""
    other = "tools/shared/helper.sh"
    repo = _checkout(tmp_path, {LAUNCHER: 'source "$SITE/shared/helper.sh"\n', HELPER: "H=1\n",
                                other: 'source "$(dirname "${BASH_SOURCE[0]}")/more.sh"\n',
                                "tools/shared/more.sh": "M=1\n"})
    first = _identity(repo)
    for path in (HELPER, other, "tools/shared/more.sh"):
        repo.write(path, repo.read(path) + b"# changed\n")
        assert _identity(repo) not in (None, first), path
        first = _identity(repo)


def test_reuse_reads_a_revision_as_the_host_reads_its_checkout(tmp_path):
    """`ci reuse` lists the files of a revision (`git ls-tree`) where the job's host lists its checkout's (`git
    ls-files`): the same identity for the same commit, the venv the host made notwithstanding."""
    repo = _checkout(tmp_path, {LAUNCHER: VENV_LAUNCHER + 'source "$X/shared/helper.sh"\n', HELPER: "H=1\n"})
    repo.write(".venv/bin/activate", "export VIRTUAL_ENV=x\n")
    git = Git(repo.path)
    try:
        at_reuse = identity.identities([M_ROW], {}, identity.read_git(git, "HEAD"))[0]
    finally:
        git.close()
    assert at_reuse is not None and at_reuse == _identity(repo)


@pytest.mark.parametrize("line", ['source "$f"\n', "source <(cat x.sh)\n", "source /dev/stdin <x.sh\n",
                                  "bash -c 'source \"$0\"' x.sh\n", 'source "$X/"\n'])
def test_a_source_of_which_nothing_is_written_still_leaves_the_row_without_one(tmp_path, line):
    repo = _checkout(tmp_path, {LAUNCHER: line, "x.sh": "X=1\n"})
    assert _identity(repo) is None


def test_a_row_that_sources_nothing_new_keeps_its_identity(tmp_path):
    """No `source` with an unknown start: the files hashed are those s39m hashed, in its order."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/bash\nsource benchmarks/runners/launch_common.sh\n"})
    blobs = identity.read_all([M_ROW], {}, identity.read_tree(str(repo.path)))
    assert identity.executed_files(M_ROW, {}, blobs) == [SCRIPT, *identity.support_files(M_ROW, {})]
