"""New-user review (nu32): a results store that is a symbolic link into a folder that is not there (a
share that is not mounted: `.sweepgate/results.db -> /mnt/share/results.db`) was refused as `the
store's folder REPO/.sweepgate cannot be written; ... make the folder writable for this user`: the
link's own folder, which is writable, was checked and blamed, never the target's. Now the target's
folder is checked before anything is read, and the link is named with where it points. A link to a
new file in a folder that is there still makes the store there. Real processes, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import ROW, vllm_output

ROOT = Path(__file__).resolve().parents[2]


def ingest(cwd: Path, db: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    env["PYTHONPATH"] = str(ROOT / "utils")
    return subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db", db, "--row", "row.json",
                           "--run-id", "7", "--ref", "refs/heads/main", "out.json"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def inputs(folder: Path) -> None:
    (folder / "row.json").write_text(json.dumps(ROW))
    (folder / "out.json").write_text(json.dumps(vllm_output(ROW["conc"])))


def test_a_store_linked_into_a_missing_folder_names_the_link_and_that_folder(tmp_path):
    inputs(tmp_path)
    share = tmp_path / "share-not-mounted"
    (tmp_path / "results.db").symlink_to(share / "results.db")
    r = ingest(tmp_path, "sqlite:///results.db")
    assert "Traceback" not in r.stderr and r.returncode == 1, r.stderr
    assert r.stderr == (f"results.db (a link to {share}/results.db): the store's folder {share} does not exist; "
                        f"create it (mkdir -p {share}), or pass a --db URL in an existing folder\n"), r.stderr
    assert "cannot be written" not in r.stderr and r.stdout == ""
    assert not share.exists()


def test_a_store_linked_to_a_new_file_in_a_folder_that_is_there_is_made_there(tmp_path):
    inputs(tmp_path)
    share = tmp_path / "share"
    share.mkdir()
    (tmp_path / "results.db").symlink_to(share / "results.db")
    r = ingest(tmp_path, "sqlite:///results.db")
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "ingested 1 results (1 new) into sqlite:///results.db", \
        r.stdout + r.stderr
    assert (share / "results.db").is_file()
