"""s40m: the run identity's reading of a checkout's tracked files (``identity.tail_files``, for a `source` whose path
starts where only the run knows) met four troubles a read-only review found:

1. A GPU host without git (actions/checkout downloads a tarball then) stopped `ci row-env --tools` with an internal
   error (FileNotFoundError: 'git') for every row with such a `source`. A folder git cannot be asked about and that
   holds no `.git` is no checkout (the documented walk); one that holds a `.git` gives no identity, said in one line.
2. Any other failure of `git ls-files` (a checkout owned by another user: "dubious ownership") was taken for "no
   checkout": the walk hashed untracked files (a venv, a stray copy) and lost the submodules, so the host's identity
   differed from `ci reuse`'s and the job was never reused, silently. Only "not a git repository" walks; dubious
   ownership is passed over (`-c safe.directory`: the command only lists files); any other failure gives no
   identity, said in one line.
3. A `source` through a tracked symbolic link to a folder (`bench -> benchmarks`) matched no tracked file, so the
   identity ignored edits of the file it reads and reuse handed back stale results; the link is followed.
4. Every submodule was hashed for any such `source`, one of a venv too, so bumping an unrelated submodule changed the
   identity; a `source` from `$GITHUB_WORKSPACE` now hashes only the submodules its names go through.

Real git repositories, real files, a real PATH without git."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "results"))

from test_submodule_identity_s39v import ONE, TWO, _both, _gitlink  # noqa: E402
from test_unknown_prefix_s39u import HELPER, LAUNCHER, M_ROW, VENV_LAUNCHER, _checkout, identity  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TAIL = 'source "$GITHUB_WORKSPACE/benchmarks/shared/helper.sh"\n'


# --- 1, 2: git missing or failing on the host -------------------------------------------------------------------

def _fleet(tmp_path: Path, name: str, *, git: bool) -> Path:
    """The shipped benchmarks/ and configs/ with ROW's script, its launcher also sourcing a helper from
    `$GITHUB_WORKSPACE` (and a venv); committed to a repository when ``git``, else as a tarball leaves them."""
    from helpers import ROW

    work = tmp_path / name
    for part in ("benchmarks", "configs"):
        shutil.copytree(ROOT / part, work / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(work / "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh",
                work / identity.script_candidates(ROW)[0])
    launcher = work / identity.launcher_files(ROW["runner"], {})[0]
    launcher.write_text(launcher.read_text() + '\nsource "$GITHUB_WORKSPACE/.venv/bin/activate"\n' + TAIL)
    (work / HELPER).parent.mkdir(parents=True, exist_ok=True)
    (work / HELPER).write_text("H=1\n")
    if git:
        env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@e", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
        for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "fleet")):
            subprocess.run(["git", "-C", str(work), *args], check=True, env=env, capture_output=True)
    return work


def _row_env(work: Path, path: str, **extra: str) -> tuple[int, str | None, str]:
    """`ci row-env --tools .` in ``work`` with PATH ``path``: its exit code, SWEEPGATE_RUN_IDENTITY (None: it took
    none, `none`) and stderr."""
    from helpers import ROW

    env = {"PATH": path, "PYTHONPATH": str(ROOT / "utils"), "ROW": json.dumps(ROW), "RUNNER_NAME": "b300-nv_00",
           **extra}
    proc = subprocess.run([sys.executable, "-P", "-m", "sweepgate", "ci", "row-env", "--tools", ".", "--output", "-"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=120)
    found = [line.split("=", 1)[1] for line in proc.stdout.splitlines() if line.startswith("SWEEPGATE_RUN_IDENTITY=")]
    from sweepgate.core.fields import NO_RUN_IDENTITY

    assert len(found) == (proc.returncode == 0), proc.stdout  # written whenever row-env writes: `none` when it took none
    return proc.returncode, None if not found or found[0] == NO_RUN_IDENTITY else found[0], proc.stderr


def test_a_host_without_git_takes_the_identity_of_the_checkout_from_a_tarball(tmp_path):
    """actions/checkout downloads a tarball where git is missing: no `.git`, so no checkout, every file under the
    folder listed (the walk); the identity is the one a git checkout of the same files takes (and `ci reuse`)."""
    no_git = tmp_path / "bin"
    no_git.mkdir()  # a PATH with no git on it
    rc, tarball, err = _row_env(_fleet(tmp_path, "tarball", git=False), str(no_git))
    assert rc == 0, err
    assert "Traceback" not in err and "internal error" not in err
    rc, checkout, err = _row_env(_fleet(tmp_path, "checkout", git=True), "/usr/bin:/bin")
    assert rc == 0, err
    assert tarball is not None and tarball == checkout


def test_a_checkout_on_a_host_without_git_has_no_identity_and_says_so(tmp_path):
    """A `.git` there but no git to ask which files it tracks: the walk would hash untracked files (a venv) and
    lose the submodules, an identity `ci reuse` never takes. No identity, one line saying why; the job runs."""
    no_git = tmp_path / "bin"
    no_git.mkdir()
    rc, found, err = _row_env(_fleet(tmp_path, "checkout", git=True), str(no_git))
    assert rc == 0, err
    assert found is None
    said = [line for line in err.splitlines() if "run identity" in line]
    assert len(said) == 1 and "git" in said[0] and "Traceback" not in err, err


def test_a_checkout_owned_by_another_user_takes_the_identity_ci_reuse_takes(tmp_path, monkeypatch):
    """"dubious ownership" (git's own test switch makes every repository another user's, as a chown would): the
    walk hashed the untracked venv and stray copy of the helper and lost the submodule, so the host's identity
    was not `ci reuse`'s. The listing passes the ownership check over (it only lists files)."""
    repo = _checkout(tmp_path, {LAUNCHER: VENV_LAUNCHER + TAIL + 'source "$GITHUB_WORKSPACE/vendor/tools/env.sh"\n',
                                HELPER: "H=1\n"})
    _gitlink(repo, "vendor/tools", ONE)
    host, reuse = _both(repo)
    assert host is not None and host == reuse
    repo.write(".venv/bin/activate", "V=1\n")  # what `uv venv` makes
    repo.write("old/benchmarks/shared/helper.sh", "stale\n")  # a stray copy, never committed
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    assert subprocess.run(["git", "-C", str(repo.path), "ls-files"], capture_output=True).returncode != 0
    assert identity.identities([M_ROW], {}, identity.read_tree(str(repo.path)))[0] == reuse


def test_a_checkout_git_cannot_list_has_no_identity_and_says_so(tmp_path):
    """Any other failure of `git ls-files` (here a damaged index) is no "not a checkout" either: no identity, one
    line with git's reason; the job runs."""
    work = _fleet(tmp_path, "checkout", git=True)
    (work / ".git/index").write_bytes(b"DIRC garbage")
    rc, found, err = _row_env(work, "/usr/bin:/bin")
    assert rc == 0, err
    assert found is None
    said = [line for line in err.splitlines() if "run identity" in line]
    assert len(said) == 1 and "index" in said[0] and "Traceback" not in err, err


def test_a_row_without_such_a_source_needs_no_git_at_all(tmp_path):
    """No `source` from a place only the run knows: the tracked files are never listed, so a host without git (and
    a checkout) keeps the identity it had."""
    from helpers import ROW

    work = _fleet(tmp_path, "checkout", git=True)
    launcher = work / identity.launcher_files(ROW["runner"], {})[0]
    launcher.write_text(launcher.read_text().replace(TAIL, "").replace(
        '\nsource "$GITHUB_WORKSPACE/.venv/bin/activate"\n', "\n"))
    # the shipped lib/args.sh sets variables it is given the names of (`printf -v "$name"`), so every variable is
    # unknown after it is sourced and benchmark_lib.sh's next `source "${SWEEPGATE_BENCHMARK_DIR}/lib/..."` is read
    # as any tracked file ending so (s41b), which lists the tracked files: here a part with no such writer
    args = work / "benchmarks/lib/args.sh"
    assert 'printf -v "${_sg_var}"' in args.read_text()
    args.write_text("#!/usr/bin/env bash\nsg_args() { :; }\n")
    subprocess.run(["git", "-C", str(work), "commit", "-qam", "no computed writer"], check=True)
    rc, with_git, err = _row_env(work, "/usr/bin:/bin")
    assert rc == 0 and with_git is not None, err
    no_git = tmp_path / "bin"
    no_git.mkdir()
    assert _row_env(work, str(no_git))[:2] == (0, with_git)


# --- 3: tracked symbolic links to folders --------------------------------------------------------------------------

def _edit_is_seen(tmp_path, launcher: str, links: dict[str, str], edit: str = HELPER) -> None:
    """The row's identity, the host's and `ci reuse`'s alike, changes when ``edit`` does (``links``: tracked links)."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/bash\n" + launcher, HELPER: "H=1\n"})
    for link, target in links.items():
        os.symlink(target, repo.path / link)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "links")
    host, reuse = _both(repo)
    assert host is not None and host == reuse
    repo.commit({edit: "H=2\n"}, "edit")
    edited_host, edited_reuse = _both(repo)
    assert edited_host == edited_reuse
    assert edited_reuse != reuse


def test_a_source_from_an_unknown_start_through_a_linked_folder_sees_the_file_it_reads(tmp_path):
    """`bench -> benchmarks`: no tracked file ends in bench/shared/helper.sh, so it was "no file of the repository"
    and an edit of benchmarks/shared/helper.sh kept the identity (reuse handed back the old results)."""
    _edit_is_seen(tmp_path, 'source "$GITHUB_WORKSPACE/bench/shared/helper.sh"\n', {"bench": "benchmarks"})


def test_a_source_by_its_path_through_a_linked_folder_sees_the_file_it_reads(tmp_path):
    """`source bench/shared/helper.sh` from the top: git tracks no such path (it is through a link), so it was
    hashed as missing whatever benchmarks/shared/helper.sh held."""
    _edit_is_seen(tmp_path, "source bench/shared/helper.sh\n", {"bench": "benchmarks"})


def test_a_source_through_links_to_linked_folders_sees_the_file_it_reads(tmp_path):
    """A link to a folder through another link (`b -> tools/shared`, `tools -> benchmarks`), both ways of writing
    the path."""
    links = {"tools": "benchmarks", "b": "tools/shared"}
    os.makedirs(tmp_path / "a")
    _edit_is_seen(tmp_path / "a", 'source "$GITHUB_WORKSPACE/b/helper.sh"\n', links)
    _edit_is_seen(tmp_path, "source b/helper.sh\n", links)


def test_retargeting_a_linked_folder_changes_the_identity(tmp_path):
    """The link is part of what the job reads: pointed elsewhere (a folder outside the checkout), the identity moves."""
    repo = _checkout(tmp_path, {LAUNCHER: '#!/usr/bin/bash\nsource "$GITHUB_WORKSPACE/bench/shared/helper.sh"\n',
                                HELPER: "H=1\n"})
    os.symlink("benchmarks", repo.path / "bench")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "link")
    before = _both(repo)
    (repo.path / "bench").unlink()
    os.symlink("/opt/elsewhere", repo.path / "bench")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "relink")
    after = _both(repo)
    assert after[0] == after[1] and after[0] is not None and after != before


# --- 4: which submodules a `source` from an unknown start may read -----------------------------------------------

def _bump(tmp_path, launcher: str, submodule: str, links: dict[str, str] | None = None) -> bool:
    """Whether moving ``submodule`` from ONE to TWO changes the row's identity (the host's and `ci reuse`'s agree);
    ``links``: tracked symbolic links (path -> target; `{repo}`: the checkout's own folder)."""
    repo = _checkout(tmp_path, {LAUNCHER: launcher, HELPER: "H=1\n"})
    for path, target in (links or {}).items():
        os.symlink(target.format(repo=repo.path), repo.path / path)
    if links:
        repo.git("add", "-A")
        repo.git("commit", "-q", "-m", "links")
    _gitlink(repo, submodule, ONE)
    host, reuse = _both(repo)
    assert host is not None and host == reuse
    _gitlink(repo, submodule, TWO)
    bumped_host, bumped_reuse = _both(repo)
    assert bumped_host == bumped_reuse
    return bumped_reuse != reuse


def test_an_unrelated_submodule_bump_keeps_the_identity_of_a_row_that_sources_a_venv(tmp_path):
    """`source "$GITHUB_WORKSPACE/.venv/bin/activate"`: the workspace is the checkout's top or a folder above it, so
    the venv is in third_party/unrelated only if its names went through it; they do not."""
    assert not _bump(tmp_path, VENV_LAUNCHER, "third_party/unrelated")


def test_an_unrelated_submodule_bump_keeps_the_identity_of_a_row_that_sources_a_tracked_helper(tmp_path):
    assert not _bump(tmp_path, "#!/usr/bin/bash\n" + TAIL, "third_party/unrelated")


def test_a_bump_of_the_submodule_the_names_go_through_changes_the_identity(tmp_path):
    os.makedirs(tmp_path / "a")
    assert _bump(tmp_path / "a", 'source "$GITHUB_WORKSPACE/vendor/tools/env.sh"\n', "vendor/tools")
    # the workspace above the checkout (actions/checkout's `path:`): the names go through it after the checkout's own
    assert _bump(tmp_path, 'source "${GITHUB_WORKSPACE}/repo/vendor/tools/env.sh"\n', "vendor/tools")


def test_a_bump_changes_the_identity_of_a_source_whose_start_may_be_inside_the_submodule(tmp_path):
    """`$TOOLS/env.sh`, `cd "$WORK"; source env.sh`, the workspace's variable set by the launcher: the start may be any
    folder, inside any submodule too, so each submodule stays part of the identity (a bump is a change)."""
    for n, launcher in enumerate(('source "$TOOLS/env.sh"\n', 'cd "$WORK"\nsource env.sh\n',
                                  'source "$GITHUB_WORKSPACE/.venv/bin/activate"\nsource "$TOOLS/bin/activate"\n',
                                  'source "$GITHUB_WORKSPACE/.venv/bin/activate"; source "$T/.venv/bin/activate"\n',
                                  'GITHUB_WORKSPACE="$GITHUB_WORKSPACE/third_party/unrelated"\n' + TAIL,
                                  ': "${GITHUB_WORKSPACE:=/x}"\n' + TAIL)):
        os.makedirs(tmp_path / str(n))
        assert _bump(tmp_path / str(n), "#!/usr/bin/bash\n" + launcher, "third_party/unrelated"), launcher


def test_a_bump_changes_the_identity_when_a_helper_sets_the_workspace_s_variable(tmp_path):
    """The launcher's helper, read after the launcher's own sources, moves `$GITHUB_WORKSPACE` (into the submodule): the
    launcher's venv may then be the submodule's, so each submodule stays part of the identity."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/bash\n" + TAIL + 'source "$GITHUB_WORKSPACE/.venv/bin/activate"\n',
                                HELPER: 'GITHUB_WORKSPACE="$GITHUB_WORKSPACE/third_party/unrelated"\n'})
    _gitlink(repo, "third_party/unrelated", ONE)
    before = _both(repo)
    _gitlink(repo, "third_party/unrelated", TWO)
    after = _both(repo)
    assert before[0] == before[1] and after[0] == after[1] and before != after
