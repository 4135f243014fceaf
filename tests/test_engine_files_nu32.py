"""New-user review (nu32): a repository's configs/engines/images.json that is a symbolic link looping
on itself stopped `sweepgate preflight` with `internal error: RuntimeError: Symlink loop` (Python
3.11's Path.resolve, naming the file for its message), and one that is a folder, a link to nothing or
a loop was otherwise passed over as if the repository had none: its images silently had no manifest,
and only warnings said so. Each is now one problem at the file, like a manifest that is no JSON.
Real files; preflight as a real process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sweepgate.core.errors import SweepgateError
from sweepgate.engines import manifest as M

ROOT = Path(__file__).resolve().parents[1]


def stand_in(path: Path, kind: str) -> None:
    """Put at ``path`` what a file that cannot be read is: a looping link, a folder, a link to nothing."""
    if kind == "loop":
        path.symlink_to(path.name)
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to("nothing-here.json")


# s31: a loop read "Too many levels of symbolic links" and a link to nothing "No such file or directory", the
# system's words, with the fix for a file's content: each is now said as the link it is, with the link's fix
REASONS = {"loop": "cannot read it: it is a symbolic link in a loop ({name} -> {name}); point the link at the file",
           "folder": "cannot read it: it is a folder, not a file; ",
           "broken": "cannot read it: it is a symbolic link to nothing-here.json, which does not exist; point the "
                     "link at the file (ln -sfn TARGET LINK) or remove it"}


@pytest.mark.parametrize("kind", REASONS)
@pytest.mark.parametrize("name", ["images.json", "vllm-0.11.0.json"])
def test_an_engine_file_that_cannot_be_read_is_one_line_at_it(tmp_path, kind, name):
    own = tmp_path / "configs" / "engines"
    own.mkdir(parents=True)
    if name != "images.json":
        (own / "images.json").write_text('{"images": {"example/vllm:v1": {"vllm": "0.11.0"}}}')
    stand_in(own / name, kind)
    with pytest.raises(SweepgateError) as caught:
        M.images(tmp_path) if name == "images.json" else M.load("vllm", "0.11.0", tmp_path)
    (diag,) = caught.value.diagnostics
    assert diag.render().startswith(f"configs/engines/{name}: {REASONS[kind].format(name=name)}"), diag.render()


def test_preflight_names_a_looping_images_json_instead_of_an_internal_error(tmp_path):
    fleet = tmp_path / "fleet"
    shutil.copytree(ROOT / "configs", fleet / "configs", symlinks=False)
    shutil.copytree(ROOT / "benchmarks", fleet / "benchmarks")
    images = fleet / "configs" / "engines" / "images.json"
    images.unlink()
    stand_in(images, "loop")
    subprocess.run(["git", "init", "-q", str(fleet)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["PYTHONPATH"] = str(ROOT / "utils")
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm"],
                          cwd=fleet / "benchmarks", capture_output=True, text=True, env=env, timeout=180)
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr
    told = [line for line in proc.stderr.splitlines() if line.startswith("configs/engines/images.json")]
    assert len(told) == 1 and told[0].startswith(
        "configs/engines/images.json: cannot read it: it is a symbolic link in a loop (images.json -> images.json)"
    ) and told[0].endswith("; point the link at the file (ln -sfn TARGET LINK) or remove it"), proc.stderr
