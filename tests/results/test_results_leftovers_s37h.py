"""s37h: results leftovers.

- A folder whose only results were compressed or archived one level down (``nest/sub/c4.json.gz`` and its job's
  sidecar ``nest/sub/c4.job.json``; an artifact's zip in ``nest/dl/``) was refused as holding "no result files
  ... in this folder" and nothing else: the walk goes into subfolders, but the line looked only at the folder's
  own files. It names them by their paths from the folder given, with the same fixes.

Real ingests through the CLI into SQLite.
"""

from __future__ import annotations

import gzip
import json
import zipfile

from helpers import job, run_cli, vllm_output, write_job


def _db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


def test_a_jobs_compressed_output_and_sidecar_in_a_subfolder_are_named(tmp_path, capsys):
    nest = tmp_path / "nest"
    write_job(nest / "sub", "c4", None, job(run_id="900"))
    (nest / "sub" / "c4.json.gz").write_bytes(gzip.compress(json.dumps(vllm_output(4)).encode()))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(nest))
    assert rc == 1 and err.splitlines() == [
        f"{nest}: no result files (.json, .jsonl, .csv) in this folder, only 1 gzipped result file "
        "(sub/c4.json.gz), and 1 job sidecar (sub/c4.job.json) whose output it is; gunzip each (gunzip -k FILE) "
        "and ingest the folder"], (out, err)
    (nest / "sub" / "c4.json").write_bytes(gzip.decompress((nest / "sub" / "c4.json.gz").read_bytes()))  # the fix
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(nest))
    assert rc == 0 and "ingested 1 results (1 new)" in out and err == "", (out, err)


def test_archives_at_several_depths_are_named_by_their_paths_from_the_folder(tmp_path, capsys):
    nest = tmp_path / "nest"
    (nest / "dl" / "deeper").mkdir(parents=True)
    for zipped in (nest / "dl" / "deeper" / "b.zip", nest / "a.zip"):
        with zipfile.ZipFile(zipped, "w") as z:
            z.writestr("c4.json", json.dumps(vllm_output(4)))
    (nest / "dl" / "c8.json.xz").write_bytes(b"\xfd7zXZ\x00\x00")  # an xz stream's magic bytes
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(nest))
    assert rc == 1 and err.splitlines() == [
        f"{nest}: no result files (.json, .jsonl, .csv) in this folder, only 2 zip archives (a.zip, "
        "dl/deeper/b.zip) and 1 xz-compressed result file (dl/c8.json.xz); unzip each zip archive "
        "(unzip FILE -d DIR), decompress each xz-compressed result file (xz -dk FILE) and ingest the folders"], (out, err)

