"""s43a: a symbolic link in a walked results folder was followed wherever it pointed (/etc/passwd, a result file of
another folder) and read. Now a link out of the folder given is refused, one line each, before anything is read or
stored; a link to a file inside the folder is read as that file. Real links, the real command, real result files."""

from __future__ import annotations

import os
import shutil

import pytest

from helpers import no_ref_said, run_cli  # helpers puts utils/ on sys.path
from test_sidecar_identity_s43a import OTHER, _folder_with_real, _job_folder, _rows


@pytest.mark.parametrize("target", ["/etc/passwd", "outside"])
def test_a_link_out_of_the_folder_is_refused_before_anything_is_read(db, tmp_path, capsys, target):
    folder = _folder_with_real(tmp_path)
    if target == "outside":  # a real result, of another folder
        (tmp_path / "elsewhere").mkdir()
        target = str(shutil.copy(OTHER, tmp_path / "elsewhere" / "other.json"))
    (folder / "sub").mkdir()
    os.symlink(target, folder / "sub" / "res.json")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    link = folder / "sub" / "res.json"
    assert rc == 1 and err.splitlines() == [
        f"{link}: a symbolic link to {target}, outside the folder given ({folder}); nothing is ingested; copy the "
        "file itself into the folder (cp -L), or remove the link"], err
    assert "root:" not in out + err
    assert _rows(db) == 0 and not os.path.exists(db.removeprefix("sqlite:///"))


def test_a_sidecar_linked_from_outside_is_refused_and_its_output_not_read(db, tmp_path, capsys):
    folder, side = _job_folder(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    os.replace(side, tmp_path / "elsewhere" / "res.job.json")
    os.symlink(tmp_path / "elsewhere" / "res.job.json", side)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 1 and len(err.splitlines()) == 1 and err.startswith(f"{side}: a symbolic link to "), err
    assert _rows(db) == 0


def test_links_inside_the_folder_are_read_as_their_files(db, tmp_path, capsys):
    """A link to a file of the folder given (here from a subfolder) is that file: stored once. The folder given may
    itself be a link: what is inside is judged by where it leads."""
    folder = _folder_with_real(tmp_path)
    (folder / "sub").mkdir()
    os.symlink("../real.json", folder / "sub" / "alias.json")
    os.symlink(folder, tmp_path / "linked")
    for given in (folder, tmp_path / "linked"):
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(given))
        assert (rc, no_ref_said(err, out)) == (0, "") and "ingested 1 results" in out, err
    assert _rows(db) == 1


