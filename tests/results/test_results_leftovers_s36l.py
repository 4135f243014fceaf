"""s36l: results leftovers.

- A walk took any file whose first bytes are a zip's (or a compressor's) for an archive of results, whatever its
  name: a torch checkpoint (``checkpoint.pt``), a spreadsheet (``report.xlsx``) or an OCI layer blob
  (``layer.blob``, gzip bytes) beside results was warned of as an archive to unpack, and a folder holding only
  such files was told to unzip them. Bytes are trusted only where the name has no extension or an archive's or
  compressor's one; other files are what their names say.

Hand-made folders ingested through the CLI into SQLite.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zipfile

from helpers import run_cli, vllm_output


def _db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


def _zip(path, names: list[str]) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name in names:
            z.writestr(name, json.dumps({"a": 1}))


def _tar_gz(names: list[str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name in names:
            data = json.dumps(vllm_output(conc=4)).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


# 1. files that are zips or gzip streams inside, named as something else

def test_a_folder_of_zip_format_files_of_other_names_is_not_told_to_unzip_them(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    _zip(runs / "checkpoint.pt", ["archive/data.pkl", "archive/meta.json"])  # torch.save's layout
    _zip(runs / "report.xlsx", ["[Content_Types].xml", "xl/workbook.json"])
    (runs / "server.log").write_text("started\n")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 1, (out, err)
    assert err.splitlines() == [f"{runs}: no result files (.json, .jsonl, .csv) in this folder; "
                                "pass the folder the job outputs were downloaded into"], err


def test_zip_and_gzip_bytes_under_other_names_beside_results_are_not_warned_of(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "c4.json").write_text(json.dumps(vllm_output(conc=4)))
    _zip(runs / "checkpoint.pt", ["archive/data.pkl", "archive/meta.json"])
    _zip(runs / "model.npz", ["w.json"])
    (runs / "layer.blob").write_bytes(_tar_gz(["runs/c8.json", "runs/c16.json"]))  # an OCI layer: a tar.gz
    (runs / "artifact").write_bytes(_tar_gz(["runs/c8.json"]))  # an artifact saved under no extension: by its bytes
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert err.splitlines() == [
        f"{runs / 'artifact'}: warning: a gzip-compressed tar archive of 1 .json/.jsonl/.csv file, not ingested; "
        "extract it (tar -xzf FILE -C DIR) and ingest DIR too"], err

