"""s39v: since s39u a `source` whose path starts where only the run knows (`source "$GITHUB_WORKSPACE/sub/env.sh"`)
hashes the tracked files that end in its written names, and none ending so leaves the identity as it was. A file
inside a submodule is no tracked file of the checkout (git lists the submodule as one entry, its commit), so a bump
of the submodule (what the job then sources) left the identity as it was on the GPU host and in `ci reuse` alike,
and reuse handed the row the old commit's results. Each submodule's commit is now part of the identity of a row
with such a `source`, read alike from the host's checkout (`git ls-files`) and from the revision (`git ls-tree`).
Real git repositories; the gitlinks are real index entries (mode 160000)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_unknown_prefix_s39u import LAUNCHER, M_ROW, _checkout, identity  # noqa: E402

from sweepgate.core.load import Git  # noqa: E402

ONE, TWO = "1" * 40, "2" * 40


def _gitlink(repo, path: str, commit: str) -> None:
    """Record ``path`` as a submodule at ``commit`` (its folder there, empty: not initialized) and commit."""
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{commit},{path}")
    (repo.path / path).mkdir(parents=True, exist_ok=True)
    repo.git("commit", "-q", "-m", f"{path} at {commit[:4]}")


def _both(repo) -> tuple[str | None, str | None]:
    """The row's identity on the host (its checkout) and in `ci reuse` (the revision HEAD)."""
    host = identity.identities([M_ROW], {}, identity.read_tree(str(repo.path)))[0]
    git = Git(repo.path)
    try:
        return host, identity.identities([M_ROW], {}, identity.read_git(git, "HEAD"))[0]
    finally:
        git.close()


def _bump_changes_the_identity(tmp_path, launcher: str) -> None:
    """The row's identity, host's and `ci reuse`'s alike, before and after vendor/tools moves from ONE to TWO."""
    repo = _checkout(tmp_path, {LAUNCHER: launcher})
    _gitlink(repo, "vendor/tools", ONE)
    host, reuse = _both(repo)
    assert host is not None and host == reuse
    _gitlink(repo, "vendor/tools", TWO)
    bumped_host, bumped_reuse = _both(repo)
    assert bumped_host == bumped_reuse
    assert bumped_reuse != reuse


def test_a_submodule_bump_changes_the_identity_of_a_row_that_sources_with_an_unknown_start(tmp_path):
    _bump_changes_the_identity(tmp_path, 'source "$GITHUB_WORKSPACE/vendor/tools/env.sh"\n')


def test_a_row_without_such_a_source_keeps_its_identity_beside_a_submodule(tmp_path):
    """A launcher whose sources all start where the checkout knows: the submodule is none of its files."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/bash\nsource benchmarks/runners/launch_common.sh\n"})
    _gitlink(repo, "vendor/tools", ONE)
    host, reuse = _both(repo)
    _gitlink(repo, "vendor/tools", TWO)
    assert _both(repo) == (host, reuse) and host == reuse and host is not None


def test_a_submodule_bump_changes_the_identity_of_a_row_that_sources_a_file_inside_it_by_its_path(tmp_path):
    """`source vendor/tools/env.sh` from the checkout's top: git tracks no such file (it is the submodule's), so it was
    hashed as missing at every commit of the submodule."""
    _bump_changes_the_identity(tmp_path, "#!/usr/bin/bash\nsource vendor/tools/env.sh\n")


def test_a_checked_out_submodule_is_read_on_the_host_as_in_ci_reuse(tmp_path):
    """A real submodule, checked out (`actions/checkout` with `submodules: true`): the host read the file inside it
    from disk where `ci reuse` finds no such file in the revision's tree, so the two identities of one commit
    differed and the job's results were never reused. Both read it as git tracks it: the submodule's commit."""
    from conftest import GitRepo

    sub = GitRepo(tmp_path / "tools")
    sub.path.mkdir()
    sub.git("init", "-q", "-b", "main")
    sub.commit({"env.sh": "T=1\n"}, "tools")
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/bash\nsource vendor/tools/env.sh\n"
                                          'source "$GITHUB_WORKSPACE/vendor/tools/env.sh"\n'})
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.path), "vendor/tools")
    repo.git("commit", "-q", "-m", "submodule")
    assert (repo.path / "vendor/tools/env.sh").exists()
    host, reuse = _both(repo)
    assert host is not None and host == reuse


def test_the_plan_s_recipe_files_see_a_submodule_bump_the_identity_sees(tmp_path):
    """Before-stop read (s39): ``identity.recipe_files`` (what the plan hashes) built its tracked files without the
    revision's submodules, so a PR that moved vendor/tools changed the row's run identity while the plan listed no
    changed file and warned of nothing unlisted."""
    repo = _checkout(tmp_path, {LAUNCHER: 'source "$GITHUB_WORKSPACE/vendor/tools/env.sh"\n'})

    def recipes() -> tuple[list[str], bytes | None]:
        _gitlink(repo, "vendor/tools", next(commits))
        git = Git(repo.path)
        try:
            blobs, files = identity.recipe_files([M_ROW], {}, git, "HEAD")
        finally:
            git.close()
        return files[0], blobs.get("vendor/tools")

    commits = iter((ONE, TWO))
    (files, one), (_, two) = recipes(), recipes()
    assert "vendor/tools" in files and one != two
