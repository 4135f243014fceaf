"""s42g: run identities that hashed more than the job runs (a reuse lost, never a stale one), and one blind line's verb.

A. `# export GITHUB_WORKSPACE=…` (a comment) or `${GITHUB_WORKSPACE:-$PWD}` (it only reads it) was taken for a file
   of the job moving the workspace: every tracked file ending as a file run from `$GITHUB_WORKSPACE/` was hashed (b/x.sh
   for `bash "$GITHUB_WORKSPACE/x.sh"`).
B. A PATH assignment in a comment, or one that puts only an absolute folder written out on PATH
   (`export PATH=/usr/local/cuda/bin:$PATH`), hashed every tracked file named as any name alone in the job's files
   (tools/tune for `tune`) and every submodule. Now a folder on PATH reads the files of that name in folders ending
   as it does (any for `.` or a folder of which no name is written), and an absolute one only those the checkout would
   hold mounted along it (`tune`, `bin/tune`, `cuda/bin/tune`, ...).
C. `sudo bash x.sh`, `xargs -n1 bash x.sh`, `mpirun -np 8 python3 t.py` were read as run where only the run knows the
   working folder (every tracked file ending so): they run on this host in the same folder, as `timeout` does, unless
   an option moves it (`sudo -i`, `sudo -D`, `mpirun -wdir`).
D. A file run through a variable whose value only the run knows there (`D=a/x.sh; if …; then D="$1"; fi; bash "$D"`)
   was said as `sources "$D"` on the blind line: it says `runs "$D"` now.

Each stale check runs real bash (``_stale``: every file bash reads for the job, edited, changes the identity)."""

from __future__ import annotations

import pytest
from conftest import GitRepo
from test_reuse import M_ROW
from test_run_identity_s41k import _stale
from test_unknown_prefix_s39u import LAUNCHER, _checkout, _identity

from sweepgate.core import identity


# a stand-in for `sudo` and `mpirun` that runs the command here, in the same folder, as they do
SAME_FOLDER = '#!/bin/bash\nwhile [[ $1 == -* ]]; do [[ $1 == -np || $1 == -u ]] && shift; shift; done\nexec "$@"\n'
FILES = {"x.sh": "true\n", "b/x.sh": "true\n", "tools/tune": "#!/bin/bash\ntrue\n", "tune": "#!/bin/bash\ntrue\n"}
# the launcher's lines, and a file of ``FILES`` the job never reads whose edit was a change
WIDER = {
    # A: the workspace named in a comment or only read
    "GITHUB_WORKSPACE in a comment": (
        '# export GITHUB_WORKSPACE=/ws to run it by hand\nbash "$GITHUB_WORKSPACE/x.sh"\n', "b/x.sh"),
    "GITHUB_WORKSPACE in a comment after a command": (
        'bash "$GITHUB_WORKSPACE/x.sh"  # GITHUB_WORKSPACE is the top\n', "b/x.sh"),
    "a default for GITHUB_WORKSPACE": ('W="${GITHUB_WORKSPACE:-$PWD}"\nbash "$GITHUB_WORKSPACE/x.sh"\n', "b/x.sh"),
    "GITHUB_WORKSPACE's length and folder": (
        'echo "${#GITHUB_WORKSPACE} ${GITHUB_WORKSPACE%/*}"\nbash "$GITHUB_WORKSPACE/x.sh"\n', "b/x.sh"),
    # B: PATH set in a comment or to a folder outside the checkout
    "PATH in a comment": ('# export PATH="$GITHUB_WORKSPACE/tools:$PATH" for a local tune\ntune || bash x.sh\n',
                          "tools/tune"),
    "CUDA on PATH": ("export PATH=/usr/local/cuda/bin:$PATH\ntune || bash x.sh\n", "tools/tune"),
    "CUDA on PATH, quoted, braced": ('export PATH="/usr/local/cuda/bin${PATH:+:${PATH}}"\ntune || bash x.sh\n',
                                     "tools/tune"),
    "a folder appended to PATH": ("PATH+=:/opt/tools/bin\ntune || bash x.sh\n", "tools/tune"),
    # C: sudo, xargs, mpirun run the file here
    "sudo": ("cd b\nsudo bash x.sh\n", "x.sh"),
    "sudo -u": ("cd b\nsudo -u root bash x.sh\n", "x.sh"),
    "xargs -n1": ("cd b\necho 1 | xargs -n1 bash x.sh\n", "x.sh"),
    "mpirun -np 8": ("cd b\nmpirun -np 8 bash x.sh\n", "x.sh"),
}


@pytest.mark.parametrize("how", WIDER)
def test_an_edit_to_a_file_the_job_never_reads_keeps_its_identity(tmp_path, how):
    """The row has an identity, and an edit to a file the job never reads keeps it: its results are reused."""
    lines, unread = WIDER[how]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines, **FILES})
    first = _identity(repo)
    assert first is not None
    repo.write(unread, repo.read(unread) + b"# changed\n")
    assert _identity(repo) == first


@pytest.mark.parametrize("how", WIDER)
def test_an_edit_to_a_file_the_job_reads_still_changes_its_identity(tmp_path, how):
    files = {LAUNCHER: "#!/usr/bin/env bash\n" + WIDER[how][0], **FILES}
    assert _stale(tmp_path, files, {"sudo": SAME_FOLDER, "mpirun": SAME_FOLDER}) == []


@pytest.mark.parametrize("lines", [
    'GITHUB_WORKSPACE="$GITHUB_WORKSPACE/b"  # a comment\nbash "$GITHUB_WORKSPACE/x.sh"\n',
    "bash <<'EOF'\n# a heredoc's first line\nGITHUB_WORKSPACE=\"$GITHUB_WORKSPACE/b\"\nbash \"$GITHUB_WORKSPACE/x.sh\"\nEOF\n"])
def test_a_workspace_moved_beside_a_comment_still_moves_it(tmp_path, lines):
    assert _stale(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines, **FILES}) == []


def test_a_path_outside_the_checkout_keeps_submodules_out(tmp_path):
    """A submodule's bump is no change of a job whose PATH gains only /usr/local/cuda/bin."""
    sub = GitRepo(tmp_path / "sub")
    sub.path.mkdir()
    sub.git("init", "-q", "-b", "main")
    sub.commit({"t.py": "pass\n"}, "s")
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + WIDER["CUDA on PATH"][0], **FILES})
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.path), "vendor/tools")
    repo.git("commit", "-q", "-m", "sub")
    first = _identity(repo)
    assert first is not None
    inner = GitRepo(repo.path / "vendor/tools")
    inner.commit({"t.py": "pass  # bumped\n"}, "bump")
    repo.git("add", "vendor/tools")
    repo.git("commit", "-q", "-m", "bump")
    assert _identity(repo) == first


PATH_INSIDE = {
    "in a heredoc given to bash, after a comment": ("bash <<'EOF'\n# tools first\nexport PATH=\"$PWD/tools:$PATH\"\n"
                                                   "tune\nEOF\n"),
    "the workspace's folder after CUDA's": 'export PATH="/usr/local/cuda/bin:$GITHUB_WORKSPACE/tools:$PATH"\ntune\n',
    "a relative folder": 'PATH="tools:$PATH"\ntune\n',
    "before a comment": 'PATH="$PWD/tools:$PATH"  # tools first\ntune\n',
    "the checkout's absolute path written out": 'PATH="{repo}/tools:$PATH"\ntune\n',
}


@pytest.mark.parametrize("how", PATH_INSIDE)
def test_a_path_into_the_checkout_still_hashes_the_file_run(tmp_path, how):
    lines = PATH_INSIDE[how].replace("{repo}", str(tmp_path / "repo"))  # (``_checkout``'s folder)
    assert _stale(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines, **FILES}, executable=["tools/tune"]) == []


@pytest.mark.parametrize("lines", ["cd b\nsudo -i bash x.sh\n", "cd b\nsudo -D /x bash x.sh\n",
                                   "cd b\nsudo --login bash x.sh\n", "cd b\nsudo -R /r bash x.sh\n",
                                   "cd b\nmpirun -wdir /x -np 2 bash x.sh\n", "cd b\nsudo docker run img bash x.sh\n"])
def test_an_option_that_moves_the_folder_keeps_it_run_elsewhere(tmp_path, lines):
    """Where it starts only the run knows: every tracked x.sh is hashed, the top's too."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines, "x.sh": "true\n", "b/x.sh": "true\n"})
    for path in ("x.sh", "b/x.sh"):
        first = _identity(repo)
        repo.write(path, repo.read(path) + b"# changed\n")
        assert _identity(repo) not in (None, first), path


# --- D: the blind line of a file run says it runs it -------------------------------------------------------------

def test_a_file_run_through_a_lost_value_is_said_as_run(tmp_path):
    lines = 'D=a/x.sh\nif [ -n "$1" ]; then D="$1"; fi\nbash "$D"\nS=a/y.sh\n[ -n "$2" ] && S="$2"\nsource "$S"\n'
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines, "a/x.sh": "true\n", "a/y.sh": "true\n"})
    ids, blind = identity.identities_and_blind([M_ROW], {}, identity.read_tree(str(repo.path)))
    assert ids == [None]
    assert sorted(identity.blind_lines(blind)) == [
        f"1 job not reused, no run identity: {LAUNCHER}:{line}: {does}, {identity.UNSEEN_WHY}"
        for line, does in ((4, 'runs "$D"'), (7, 'sources "$S"'))]
