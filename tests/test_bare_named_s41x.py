"""s41x: a tracked file a script reads by its name alone (`export $(cat .env)`, `eval "$(cat .env)"`, `cat
chat_template.jinja`, `python3 x.py --config cfg.yaml`) was not hashed: only paths with a `/` were
(``shellwords.Reading.named``), so editing `.env` from `D=shared` to `D=b` changed which file bash sources next but
not the run identity (a stale reuse). Now a word of the code that is the exact name of a tracked file in the working
folder there (every tracked file of that name where only the run knows the folder) is hashed; a word that names no
tracked file (`vllm`, `serve`) hashes nothing. Real git, real bash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_unknown_prefix_s39u import LAUNCHER, _checkout, _identity  # noqa: E402
from sweepgate.core import identity  # noqa: E402
from test_reuse import M_ROW  # noqa: E402

LOG = "READ_LOG"
Y = {path: f'echo "{path}" >> "${LOG}"\n' for path in ("shared/y.sh", "b/y.sh")}


def _sourced_by_bash(repo, tmp_path: Path) -> list[str]:
    """The y.sh files real bash sources running the launcher from the checkout's top, the workspace there."""
    log = tmp_path / "read.log"
    log.write_text("")
    env = {"PATH": os.environ["PATH"], "GITHUB_WORKSPACE": str(repo.path), LOG: str(log), "HOME": str(tmp_path),
           "WORK": "b"}
    subprocess.run(["bash", LAUNCHER], cwd=repo.path, env=env, capture_output=True, text=True, timeout=60)
    return log.read_text().split()


@pytest.mark.parametrize("launcher", [
    'export $(cat .env)\nsource "$D/y.sh"\n',
    'eval "$(cat .env)"\nsource "$D/y.sh"\n',
    'export $(grep -v "^#" .env | xargs)\nsource "$D/y.sh"\n',
])
def test_editing_an_env_file_read_by_its_name_changes_the_identity(tmp_path, launcher):
    """`.env` says which y.sh bash sources: D=shared, then D=b, as real bash shows; the identity changes with it."""
    repo = _checkout(tmp_path, {LAUNCHER: launcher, ".env": "D=shared\n", **Y})
    assert _sourced_by_bash(repo, tmp_path) == ["shared/y.sh"]
    first = _identity(repo)
    assert first is not None
    repo.commit({".env": "D=b\n"}, "edit")
    assert _sourced_by_bash(repo, tmp_path) == ["b/y.sh"]
    assert _identity(repo) != first


def test_an_env_file_read_before_a_cd_only_the_run_knows(tmp_path):
    """`export $(grep -v "^#" .env | xargs)`, then `cd "$WORK"; source y.sh`: `.env` is hashed (the top's)."""
    repo = _checkout(tmp_path, {LAUNCHER: 'export $(grep -v "^#" .env | xargs)\ncd "$WORK"\nsource y.sh\n',
                                ".env": "X=1\n", **Y})
    assert _sourced_by_bash(repo, tmp_path) == ["b/y.sh"]
    first = _identity(repo)
    repo.commit({".env": "X=2\n"}, "edit")
    assert _identity(repo) != first


@pytest.mark.parametrize("launcher, name", [
    ("cat chat_template.jinja > /dev/null\n", "chat_template.jinja"),
    ('python3 x.py --config cfg.yaml\n', "cfg.yaml"),
    ('python3 x.py --config="cfg.yaml"\n', "cfg.yaml"),
    ('cd benchmarks\ncat chat_template.jinja\n', "benchmarks/chat_template.jinja"),
    ('cd "$WORK"\ncat chat_template.jinja\n', "b/chat_template.jinja"),  # only the run knows the folder: every one
])
def test_a_tracked_file_named_by_its_name_alone_is_hashed(tmp_path, launcher, name):
    files = {LAUNCHER: launcher, "x.py": "import sys\n", name: "{{ x }}\n"}
    repo = _checkout(tmp_path, files)
    first = _identity(repo)
    assert first is not None
    repo.commit({name: "{{ y }}\n"}, "edit")
    assert _identity(repo) != first


def test_a_word_that_names_no_tracked_file_hashes_nothing(tmp_path):
    """`vllm serve model`, and after a `cd` only the run knows too: no file more is hashed; nor is a name in a
    comment or a heredoc's body, though a tracked file has it."""
    launcher = ('vllm serve model --port 8000\n# cat notes.txt\ncat <<EOF > /dev/null\nnotes.txt\nEOF\n'
                'cd "$WORK"\nvllm serve model\n')
    repo = _checkout(tmp_path, {LAUNCHER: launcher, "notes.txt": "a\n"})
    blobs = identity.read_all([M_ROW], {}, identity.read_tree(str(repo.path)))
    files = identity.executed_files(M_ROW, {}, blobs, identity.Tracked(lambda: repo.git("ls-files").split()))
    assert "notes.txt" not in files
    assert [f for f in files if f.rsplit("/", 1)[-1] in ("vllm", "serve", "model", "8000")] == []
