"""review29: what a review of the new-user29 change found (each seen failing before its fix)."""

from __future__ import annotations

import io
import json
import tarfile

from helpers import job, sweepgate_at, vllm_output, write_job


def _tar(path, members: dict[str, bytes]) -> None:
    """An uncompressed tar archive (``tar -cf``) of ``members``: ASCII names and JSON text, so its every
    byte is valid UTF-8 (the headers' padding is NULs)."""
    with tarfile.open(path, "w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_an_uncompressed_tar_given_as_a_text_file_is_named_as_one(tmp_path):
    """`compare --baseline-jsonl main.tar` (main's results.jsonl copied as `tar -cf`) said "main.tar:1:1: not
    JSON: Expecting value ...; each line must be one normalized result record", though README and contracts
    say a tar archive given as that file is refused as one with the command that extracts it: a tar of text
    files is valid UTF-8 (NUL padding), so it was read as text and never looked at. The .tgz of the same file
    was named, and so was the .tar ingested as a result (its bytes are checked before they are decoded).
    ``--row row.tar`` read alike."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = write_job(tmp_path / "42", "res", vllm_output(4), job(run_id="42", ref="refs/pull/7/head"))
    jsonl = tmp_path / "results.jsonl"
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", db, "--jsonl", str(jsonl), str(path))
    assert proc.returncode == 0, proc.stderr
    _tar(tmp_path / "main.tar", {"results.jsonl": jsonl.read_bytes()})
    (tmp_path / "main.tar").read_bytes().decode("utf-8")  # what let it through: valid UTF-8
    proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "42", "--baseline-jsonl", "main.tar")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        "main.tar:1: a tar archive, not the file itself; extract it (tar -xf FILE -C DIR) and pass the files "
        "it holds"], proc.stderr
    _tar(tmp_path / "row.tar", {"row.json": json.dumps(job()["row"]).encode()})
    (tmp_path / "out.json").write_text(json.dumps(vllm_output(4)), encoding="utf-8")
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", db, "--row", "row.tar", "--run-id", "7",
                        "--ref", "refs/heads/main", "out.json")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        "row.tar:1: a tar archive, not the file itself; extract it (tar -xf FILE -C DIR) and pass the files "
        "it holds"], proc.stderr


def test_a_text_file_with_a_nul_that_is_no_archive_reads_as_before(tmp_path):
    """Only an archive's head is refused as one: a JSONL baseline with a stray NUL (no tar header at byte
    257) is still refused for what is wrong in it, at its line."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = write_job(tmp_path / "42", "res", vllm_output(4), job(run_id="42", ref="refs/pull/7/head"))
    assert sweepgate_at(tmp_path, "results", "ingest", "--db", db, str(path)).returncode == 0
    (tmp_path / "main.jsonl").write_text("\x00\n", encoding="utf-8")
    proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "42", "--baseline-jsonl", "main.jsonl")
    (line,) = proc.stderr.splitlines()
    assert proc.returncode == 1 and line.startswith("main.jsonl:1:") and "archive" not in line, line
