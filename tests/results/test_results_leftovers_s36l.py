"""s36l: results leftovers.

- A walk took any file whose first bytes are a zip's (or a compressor's) for an archive of results, whatever its
  name: a torch checkpoint (``checkpoint.pt``), a spreadsheet (``report.xlsx``) or an OCI layer blob
  (``layer.blob``, gzip bytes) beside results was warned of as an archive to unpack, and a folder holding only
  such files was told to unzip them. Bytes are trusted only where the name has no extension or an archive's or
  compressor's one; other files are what their names say.
- A job's output ingested after a PR run's ``ci reuse`` copy of it (which keeps its ``output-sha256``) was warned of
  as "the same bytes as run <PR>'s": a copy of its own copy. The copies of a file's own rows are passed over.

Hand-made folders ingested through the CLI into SQLite.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zipfile

from helpers import job, no_ref_said, run_cli, vllm_output, write_job


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
    assert no_ref_said(err).splitlines() == [
        f"{runs / 'artifact'}: warning: a gzip-compressed tar archive of 1 .json/.jsonl/.csv file, not ingested; "
        "extract it (tar -xzf FILE -C DIR) and ingest DIR too"], err


# 2. a job's output whose `ci reuse` copy the store holds already

def test_an_original_ingested_after_its_ci_reuse_copy_is_no_copy_of_it(tmp_path, capsys):
    """A PR run's ``ci reuse`` copy of main run 900's result keeps its ``output-sha256``; 900's own output,
    ingested after it (a store filled in that order), is the original, not "the same bytes as run 901's"."""
    from sweepgate.results import record as R
    from sweepgate.results import store

    write_job(tmp_path / "a", "c4", vllm_output(4), job(run_id="900"))
    scratch = f"sqlite:///{tmp_path / 'scratch.db'}"
    assert run_cli(capsys, "results", "ingest", "--db", scratch, str(tmp_path / "a"))[0] == 0
    (rec,) = store.open_store(scratch).records()
    copy_ = {**rec, R.REUSED_FROM: {R.RUN_ID: "900", R.ATTEMPT: rec[R.ATTEMPT], R.RESULT_FILENAME: "c4"},
             R.RUN_ID: "901", R.REF: "refs/pull/7/merge"}
    assert copy_[R.OUTPUT_SHA256] and store.open_store(_db(tmp_path)).add([copy_]) == 1
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(tmp_path / "a"))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert err == "", err
    # another job's output of those bytes is still told, naming the original (a job's own before a copy)
    second = write_job(tmp_path / "b", "c4", vllm_output(4), job(run_id="902"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(tmp_path / "b"))
    assert rc == 0 and err.startswith(f"{second}: warning: the same bytes as run 900's result 'c4'"), (out, err)


# 3. a concurrency cap above the requests of a run none of whose requests completed

def test_a_wholly_failed_run_is_not_warned_of_an_unfilled_cap(tmp_path, capsys):
    """20 requests at a cap of 64, all failed: the run measured nothing at any concurrency (stored as is, its
    figures zero); a cap above what it sent is no news. One that completed some still is warned of."""
    zero = {k: 0.0 for k in vllm_output() if k.endswith("_ms") or k.endswith("throughput")}
    failed = tmp_path / "failed.json"
    failed.write_text(json.dumps(vllm_output(64, num_prompts=20, completed=0, failed=20, total_input_tokens=0,
                                             total_output_tokens=0, **zero)))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(failed))
    assert rc == 0 and "ingested 1 results (1 new)" in out and no_ref_said(err) == "", (out, err)
    some = tmp_path / "some.json"
    some.write_text(json.dumps(vllm_output(64, num_prompts=20, completed=18, failed=2, request_throughput=0.18)))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(some))
    assert rc == 0 and "max_concurrency: a cap of 64 requests in flight, but the run sent 20 (18 completed, 2 failed)" \
        in err, (out, err)
