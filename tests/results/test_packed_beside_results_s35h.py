"""s35h: a folder holding results and, beside them, a compressed result (``b.json.gz``) or an archive of
results (``runs.tar.gz``) stored the results and said nothing of the rest: such files were named only when
the folder held no other result. Each is named now in one warning line; lm-eval's compressed samples logs
(``samples_<task>_<time>.jsonl.gz``, answers and no result) are counted with the files passed over."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import shutil
import tarfile

from helpers import SAMPLES, no_ref_said, run_cli, vllm_output


def _db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


def _results_folder(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    return runs


def test_a_compressed_result_beside_results_is_named(tmp_path, capsys):
    runs = _results_folder(tmp_path)
    (runs / "b.json.gz").write_bytes(gzip.compress(json.dumps(vllm_output(conc=8)).encode()))
    (runs / "c.jsonl.xz").write_bytes(lzma.compress(json.dumps(vllm_output(conc=16)).encode()))
    (runs / "server.log.gz").write_bytes(gzip.compress(b"started\n"))  # a log: no result, not named
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and out.splitlines()[-1].startswith("ingested 1 results (1 new)"), (out, err)
    assert no_ref_said(err).splitlines() == [
        f"{runs / 'b.json.gz'}: warning: gzip-compressed, a result file not ingested; "
        "gunzip it (gunzip -k FILE) and ingest the folder again",
        f"{runs / 'c.jsonl.xz'}: warning: xz-compressed, a result file not ingested; "
        "decompress it (xz -dk FILE) and ingest the folder again"], err


def test_a_compressed_result_beside_its_decompressed_copy_is_not_named(tmp_path, capsys):
    runs = _results_folder(tmp_path)
    (runs / "a.json.bz2").write_bytes(bz2.compress((runs / "a.json").read_bytes()))  # bunzip2 -k left both
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and no_ref_said(err) == "", (out, err)


def _tar_gz(path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_a_tar_archive_of_results_beside_results_is_named_one_of_logs_is_not(tmp_path, capsys):
    runs = _results_folder(tmp_path)
    _tar_gz(runs / "more.tar.gz", {"x/b.json": json.dumps(vllm_output(conc=8)).encode(), "x/c.json": b"{}"})
    _tar_gz(runs / "logs.tar.gz", {"logs/server.log": b"started\n"})
    _tar_gz(runs / "copy.tgz", {"a.json": (runs / "a.json").read_bytes()})  # unpacked beside it already
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and out.splitlines()[-1].startswith("ingested 1 results (1 new)"), (out, err)
    assert no_ref_said(err).splitlines() == [
        f"{runs / 'more.tar.gz'}: warning: a gzip-compressed tar archive of 2 .json/.jsonl/.csv files, not "
        "ingested; extract it (tar -xzf FILE -C DIR) and ingest DIR too"], err


def _samples_line(doc_id: int) -> str:
    return json.dumps({"doc_id": doc_id, "doc": {"question": "q"}, "target": "4", "arguments": [["q", {}]],
                       "resps": [["4"]], "filtered_resps": ["4"], "exact_match": 1.0})


def test_lm_eval_compressed_samples_logs_are_counted_not_warned_of(tmp_path, capsys):
    """lm-eval's output folder: results_<time>.json beside samples_<task>_<time>.jsonl.gz (answers, no
    result). They are counted on one line, listed with --verbose, not a warning each."""
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(SAMPLES / "lm_eval" / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json",
                runs / "results_2025-01-01T00-00-00.json")
    for task in ("gsm8k", "arc_easy"):
        text = "\n".join(_samples_line(i) for i in range(3)) + "\n"
        (runs / f"samples_{task}_2025-01-01T00-00-00.jsonl.gz").write_bytes(gzip.compress(text.encode()))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and no_ref_said(err) == "", (out, err)
    assert any(line.startswith("skipped 2 compressed lm-eval samples logs ") for line in out.splitlines()), out
    rc, out, err = run_cli(capsys, "results", "ingest", "--verbose", "--db", _db(tmp_path), str(runs))
    assert f"skipped {runs / 'samples_arc_easy_2025-01-01T00-00-00.jsonl.gz'}" in out.splitlines(), out


def test_a_compressed_file_named_like_a_samples_log_that_is_none_is_named(tmp_path, capsys):
    """The name alone does not make a samples log: its content is looked at where it can be decompressed."""
    runs = _results_folder(tmp_path)
    (runs / "samples_run_2.jsonl.gz").write_bytes(gzip.compress(json.dumps(vllm_output(conc=8)).encode()))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and no_ref_said(err).splitlines() == [
        f"{runs / 'samples_run_2.jsonl.gz'}: warning: gzip-compressed, a result file not ingested; "
        "gunzip it (gunzip -k FILE) and ingest the folder again"], (out, err)


def test_an_archive_that_cannot_be_looked_into_is_named(tmp_path, capsys):
    runs = _results_folder(tmp_path)
    (runs / "more.7z").write_bytes(b"7z\xbc\xaf\x27\x1c" + bytes(32))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and no_ref_said(err).splitlines() == [
        f"{runs / 'more.7z'}: warning: a 7z archive, not looked into (it may hold results), not ingested; "
        "extract it (7z x FILE -oDIR) and ingest DIR too if it holds results"], (out, err)


def test_in_a_folder_of_jobs_sidecars_compressed_files_are_counted_with_the_helper_outputs(tmp_path, capsys):
    """There only outputs paired with a sidecar are results; the rest, compressed or not, are counted."""
    from helpers import job, write_job

    runs = tmp_path / "runs"
    write_job(runs, "r1", vllm_output(), job())
    (runs / "part_c8.json.gz").write_bytes(gzip.compress(json.dumps(vllm_output(conc=8)).encode()))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and err == "", (out, err)
    assert "skipped 1 file with no job sidecar (helper outputs)" in out.splitlines(), out
