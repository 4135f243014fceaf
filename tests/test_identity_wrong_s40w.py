"""s40w: run identities that were wrong (a file bash sources left out, so `ci reuse` handed back stale results),
found by two read-only reviews. Each case runs the launcher's text with real bash in a workspace laid out as the job's
(``_sourced``: which file it sources), then checks that a change of that file (an edit, or a bump of the submodule
holding it) changes the identity, on the host and in `ci reuse` alike, in a real git repository.

1. A `source` counted as starting at `$GITHUB_WORKSPACE` when the variable was spelled anywhere on its line (a `[ -f ]`
   test, another `source`, a comment), so only the submodules its names go through were hashed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "results"))

from test_submodule_identity_s39v import ONE, TWO, _both, _gitlink  # noqa: E402
from test_unknown_prefix_s39u import HELPER, LAUNCHER, _checkout  # noqa: E402

TOOLS = "vendor/tools"


def _sourced(tmp_path: Path, launcher: str, files: dict[str, str], checkout: str = "", **env: str) -> list[str]:
    """What real bash sources running ``launcher`` in a workspace holding ``files`` (each echoes its own path), the
    checkout at ``checkout`` under it (actions/checkout's `path:`), the working folder the checkout's top; ``env``
    values may name `{ws}`, the workspace."""
    ws = tmp_path / "bash-ws"
    for path, _ in files.items():
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text(f"echo sourced:{path}\n")
    top = ws / checkout
    top.mkdir(parents=True, exist_ok=True)
    run_env = {"PATH": os.environ["PATH"], "GITHUB_WORKSPACE": str(ws),
               **{k: v.format(ws=ws) for k, v in env.items()}}
    proc = subprocess.run(["bash", "-c", launcher], cwd=top, env=run_env, capture_output=True, text=True, timeout=60)
    return [line.split(":", 1)[1] for line in proc.stdout.splitlines() if line.startswith("sourced:")]


def _bump_changes_the_identity(tmp_path: Path, launcher: str, submodule: str = TOOLS) -> bool:
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/bash\n" + launcher, HELPER: "H=1\n"})
    _gitlink(repo, submodule, ONE)
    host, reuse = _both(repo)
    assert host is not None and host == reuse
    _gitlink(repo, submodule, TWO)
    bumped_host, bumped_reuse = _both(repo)
    assert bumped_host == bumped_reuse
    return bumped_reuse != reuse


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
