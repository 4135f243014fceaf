"""s40w: run identities that were wrong (a file bash sources left out, so `ci reuse` handed back stale results),
found by two read-only reviews. Each case runs the launcher's text with real bash in a workspace laid out as the job's
(``_sourced``: which file it sources), then checks that a change of that file (an edit, or a bump of the submodule
holding it) changes the identity, on the host and in `ci reuse` alike, in a real git repository.

1. A `source` counted as starting at `$GITHUB_WORKSPACE` when the variable was spelled anywhere on its line (a `[ -f ]`
   test, another `source`, a comment), so only the submodules its names go through were hashed.
2. A tracked link leaving the checkout (`tools -> /ws/repo/vendor/tools`, `tools -> ../repo/vendor/tools`) was taken
   to read no file of the repository, so a bump of the submodule it leads back into kept the identity.
3. With the checkout below the workspace (actions/checkout's `path: repo`), `"$GITHUB_WORKSPACE/repo/x/y.sh"` matched
   no tracked file (none ends in repo/x/y.sh), so an edit of x/y.sh kept the identity.
4. A variable set by `read`, `printf -v`, `mapfile`, `eval "X=…"` (in a function too) kept its earlier value, so
   `source "$X"` hashed the earlier value's file; and `cd a || cd b` ran `cd b` from a.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "results"))

from test_identity_git_links_s40m import _bump  # noqa: E402
from test_submodule_identity_s39v import _both  # noqa: E402
from test_unknown_prefix_s39u import HELPER, LAUNCHER, M_ROW, _checkout, identity  # noqa: E402

TOOLS = "vendor/tools"


def _sourced(tmp_path: Path, launcher: str, files: dict[str, str], checkout: str = "", links: dict[str, str] = {},
             **env: str) -> list[str]:
    """What real bash sources running ``launcher`` in a workspace holding ``files`` (each echoes its own path) and
    symbolic ``links`` (path -> target), the checkout at ``checkout`` under it (actions/checkout's `path:`), the
    working folder the checkout's top; ``env`` values and link targets may name `{ws}`, the workspace."""
    ws = tmp_path / "bash-ws"
    for path, _ in files.items():
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text(f"echo sourced:{path}\n")
    for path, target in links.items():
        os.symlink(target.format(ws=ws), ws / path)
    top = ws / checkout
    top.mkdir(parents=True, exist_ok=True)
    run_env = {"PATH": os.environ["PATH"], "GITHUB_WORKSPACE": str(ws),
               **{k: v.format(ws=ws) for k, v in env.items()}}
    proc = subprocess.run(["bash", "-c", launcher], cwd=top, env=run_env, capture_output=True, text=True, timeout=60)
    return [line.split(":", 1)[1] for line in proc.stdout.splitlines() if line.startswith("sourced:")]


def _bump_changes_the_identity(tmp_path: Path, launcher: str, submodule: str = TOOLS, links: dict[str, str] = {}
                               ) -> bool:
    """s40m's _bump of a launcher made of ``launcher``'s lines."""
    return _bump(tmp_path, "#!/usr/bin/bash\n" + launcher, submodule, links)


# --- 1: the source command's own word says where its path starts ------------------------------------------------

WORKSPACE_NAMED_BESIDE = [
    '[ -f "$GITHUB_WORKSPACE/env.sh" ] && source "$GITHUB_WORKSPACE/env.sh" || source "$TOOLS/env.sh"\n',
    'source "$TOOLS/env.sh"  # was "$GITHUB_WORKSPACE/env.sh"\n',
    '[ -f "$GITHUB_WORKSPACE/env.sh" ] || source "$TOOLS/env.sh"\n',
    'if [ -f "$GITHUB_WORKSPACE/env.sh" ]; then source "$GITHUB_WORKSPACE/env.sh"; else source "$TOOLS/env.sh"; fi\n',
]


def test_a_source_beside_the_workspace_s_name_reads_from_a_start_that_may_be_inside_any_submodule(tmp_path):
    """`$GITHUB_WORKSPACE/env.sh` spelled in a test, a comment or another `source` on the line: bash sources
    vendor/tools/env.sh through `$TOOLS`, so a bump of vendor/tools is a change."""
    for n, launcher in enumerate(WORKSPACE_NAMED_BESIDE):
        os.makedirs(tmp_path / str(n))
        assert _sourced(tmp_path / str(n), launcher, {f"{TOOLS}/env.sh": ""},
                        TOOLS="{ws}/" + TOOLS) == [f"{TOOLS}/env.sh"], launcher
        assert _bump_changes_the_identity(tmp_path / str(n), launcher), launcher


def test_a_source_from_the_workspace_still_keeps_an_unrelated_submodule_out(tmp_path):
    """The guard: the `source` whose own word is `$GITHUB_WORKSPACE/…` (a test of the same path before it) still
    hashes only the submodules its names go through."""
    launcher = '[ -f "$GITHUB_WORKSPACE/env.sh" ] && source "$GITHUB_WORKSPACE/env.sh"\n'
    assert _sourced(tmp_path, launcher, {"env.sh": ""}) == ["env.sh"]
    assert not _bump_changes_the_identity(tmp_path, launcher, "third_party/unrelated")


# --- 2: a tracked link leaving the checkout may lead back into it -------------------------------------------------

def test_a_source_through_a_link_out_of_the_checkout_sees_a_bump_of_the_submodule_it_leads_back_into(tmp_path):
    """`tools -> <the checkout>/vendor/tools` (absolute) or `tools -> ../<the checkout>/vendor/tools`: bash sources
    vendor/tools/env.sh; the folder such a link leads to is one only the run knows, so every submodule is hashed."""
    launcher = 'source "$GITHUB_WORKSPACE/tools/env.sh"\n'
    for n, (bash_link, repo_link) in enumerate([("{ws}/" + TOOLS, "{repo}/" + TOOLS),
                                                ("../bash-ws/" + TOOLS, "../repo/" + TOOLS)]):
        os.makedirs(tmp_path / str(n))
        assert _sourced(tmp_path / str(n), launcher, {f"{TOOLS}/env.sh": ""},
                        links={"tools": bash_link}) == [f"{TOOLS}/env.sh"]
        assert _bump_changes_the_identity(tmp_path / str(n), launcher, links={"tools": repo_link}), repo_link


def test_a_source_by_its_path_through_a_link_out_of_the_checkout_sees_the_tracked_file_it_leads_back_to(tmp_path):
    """`source bench/shared/helper.sh`, `bench -> <the checkout>/benchmarks` (absolute): bash reads the tracked
    benchmarks/shared/helper.sh, so an edit of it is a change."""
    assert _sourced(tmp_path, "source bench/shared/helper.sh\n", {HELPER: ""},
                    links={"bench": "{ws}/benchmarks"}) == ["benchmarks/shared/helper.sh"]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/bash\nsource bench/shared/helper.sh\n", HELPER: "H=1\n"})
    os.symlink(f"{repo.path}/benchmarks", repo.path / "bench")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "link")
    before = _both(repo)
    repo.commit({HELPER: "H=2\n"}, "edit")
    after = _both(repo)
    assert before[0] is not None and before[0] == before[1] and after[0] == after[1] and after != before


# --- 3: the workspace above the checkout --------------------------------------------------------------------------

def test_a_source_from_a_workspace_above_the_checkout_sees_an_edit_of_the_file_it_reads(tmp_path):
    """actions/checkout's `path: repo`: bash sources <workspace>/repo/benchmarks/shared/helper.sh, the checkout's
    benchmarks/shared/helper.sh; also through a tracked link (`bench -> benchmarks`)."""
    for n, (launcher, links) in enumerate([('source "$GITHUB_WORKSPACE/repo/benchmarks/shared/helper.sh"\n', {}),
                                           ('source "$GITHUB_WORKSPACE/repo/bench/shared/helper.sh"\n',
                                            {"bench": "benchmarks"})]):
        os.makedirs(tmp_path / str(n))
        assert _sourced(tmp_path / str(n), launcher, {"repo/" + HELPER: ""}, "repo",
                        links={"repo/" + link: target for link, target in links.items()}) == ["repo/" + HELPER]
        repo = _checkout(tmp_path / str(n), {LAUNCHER: "#!/usr/bin/bash\n" + launcher, HELPER: "H=1\n"})
        for link, target in links.items():
            os.symlink(target, repo.path / link)
        repo.git("add", "-A")
        repo.git("commit", "-q", "-m", "links", "--allow-empty")
        before = _both(repo)
        repo.commit({HELPER: "H=2\n"}, "edit")
        after = _both(repo)
        assert before[0] is not None and before[0] == before[1] and after[0] == after[1] and after != before, launcher


# --- 4: what sets a variable or the working folder besides an assignment -----------------------------------------

OTHER = "shared/other.sh"
WRITERS = [
    'LIB="$X/shared/helper.sh"\nread -r LIB <<< "$X/shared/other.sh"\nsource "$LIB"\n',
    'LIB=shared/helper.sh\nread -r LIB <<< "shared/other.sh"\nsource "$LIB"\n',
    'LIB="$X/shared/helper.sh"\nprintf -v LIB "%s/shared/other.sh" "$X"\nsource "$LIB"\n',
    'LIB="$X/shared/helper.sh"\nmapfile -t LIB <<< "$X/shared/other.sh"\nsource "$LIB"\n',
    'LIB="$X/shared/helper.sh"\neval "LIB=\\"$X/shared/other.sh\\""\nsource "$LIB"\n',
    'LIB="$X/shared/helper.sh"\npick() { printf -v LIB "%s/shared/other.sh" "$X"; }\npick\nsource "$LIB"\n',
    'cd nowhere 2>/dev/null || { cd benchmarks; source shared/helper.sh; }\n',
]


def test_a_file_sourced_after_a_command_sets_its_variable_or_folder_is_never_left_out(tmp_path):
    """Real bash sources the file the last writer named (shared/other.sh; benchmarks/shared/helper.sh after `cd
    nowhere || cd benchmarks`): the row either has no identity (the value is one only the run knows) or hashes it,
    never the earlier value's file alone."""
    files = {HELPER: "", "shared/helper.sh": "", OTHER: ""}
    for n, launcher in enumerate(WRITERS):
        os.makedirs(tmp_path / str(n))
        sourced = _sourced(tmp_path / str(n), launcher, files, X="{ws}")
        assert len(sourced) == 1, (launcher, sourced)
        repo = _checkout(tmp_path / str(n), {LAUNCHER: "#!/usr/bin/bash\n" + launcher,
                                             **{path: f"echo {path}\n" for path in files}})
        ids, _ = identity.identities_and_blind([M_ROW], {}, identity.read_tree(str(repo.path)))
        read = identity.read_tree(str(repo.path))
        hashed = identity.executed_files(M_ROW, {}, identity.read_all([M_ROW], {}, read), identity._tracked(read, {}))
        assert ids[0] is None or sourced[0] in hashed, (launcher, sourced, hashed)


def test_a_cd_or_exit_keeps_the_folder_it_went_to(tmp_path):
    """The guard: `cd x || exit 1` then a relative `source`: bash sources from x, and so does the reading (an identity,
    the file hashed)."""
    launcher = "cd benchmarks || exit 1\nsource shared/helper.sh\n"
    assert _sourced(tmp_path, launcher, {HELPER: "", "shared/helper.sh": ""}) == [HELPER]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/bash\n" + launcher, "shared/helper.sh": "S=1\n",
                                HELPER: "H=1\n"})
    read = identity.read_tree(str(repo.path))
    hashed = identity.executed_files(M_ROW, {}, identity.read_all([M_ROW], {}, read), identity._tracked(read, {}))
    assert identity.identities([M_ROW], {}, identity.read_tree(str(repo.path)))[0] is not None
    assert HELPER in hashed and "shared/helper.sh" not in hashed


# --- a file reached through a tracked link is read from the folder of the `source` that reaches it ----------------

def test_a_file_reached_through_a_link_reads_its_own_sources_from_the_folder_it_is_sourced_in(tmp_path):
    """`cd sub; source "$GITHUB_WORKSPACE/bench/h.sh"`, `bench -> benchmarks`, h.sh running `source x.sh`: bash reads
    sub/x.sh (a sourced file runs in the caller's folder), so an edit of sub/x.sh is a change (or the row has none)."""
    launcher = 'cd sub\nsource "$GITHUB_WORKSPACE/bench/h.sh"\n'
    ws = tmp_path / "bash-ws"
    for path, text in {"benchmarks/h.sh": "source x.sh\n", "sub/x.sh": "echo sourced:sub/x.sh\n",
                       "x.sh": "echo sourced:x.sh\n"}.items():
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text(text)
    os.symlink("benchmarks", ws / "bench")
    proc = subprocess.run(["bash", "-c", launcher], cwd=ws, capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], "GITHUB_WORKSPACE": str(ws)})
    assert proc.stdout.split() == ["sourced:sub/x.sh"], proc.stdout + proc.stderr

    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/bash\n" + launcher, "benchmarks/h.sh": "source x.sh\n",
                                "sub/x.sh": "X=1\n", "x.sh": "X=1\n"})
    os.symlink("benchmarks", repo.path / "bench")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "link")
    before = _both(repo)
    repo.commit({"sub/x.sh": "X=2\n"}, "edit")
    after = _both(repo)
    assert before[0] == before[1] and after[0] == after[1]
    assert before[0] is None or after != before, "sub/x.sh, which bash sources, is no part of the identity"
