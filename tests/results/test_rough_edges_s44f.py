"""s44f: results' rough edges.

- `results compare --baseline-jsonl FILE` read FILE whole whatever its size, where ingest refuses a file over
  jsonio.MAX_INPUT_BYTES by its size: it is now refused the same way, one line, unread (a sparse file stands for
  a big one).
- A job's sidecar beside a result file named on the command line (or the sidecar named) was read through a
  symbolic link wherever it led, where a folder's walk refuses a link out of the folder: it is refused the same
  way, the folder being the named file's own.
"""

from __future__ import annotations

import os
import shutil

import pytest

from helpers import job, run_cli, vllm_output, write_job


def test_a_baseline_jsonl_over_the_cap_is_refused_by_its_size_as_ingest_refuses_one(tmp_path, capsys, monkeypatch):
    from sweepgate.results.jsonio import MAX_INPUT_BYTES

    monkeypatch.chdir(tmp_path)
    db = f"sqlite:///{tmp_path / 'ci.db'}"
    write_job(tmp_path / "in", "res_c4", vllm_output(4), job(run_id="200", ref="refs/pull/7/head"))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    big = tmp_path / "main.jsonl"
    with open(big, "wb") as f:
        f.truncate(MAX_INPUT_BYTES + 1)  # sparse: no gigabytes written
    refusal = (f"{big}: {MAX_INPUT_BYTES + 1:,} bytes, over the {MAX_INPUT_BYTES >> 20:,} MiB a file ingest reads "
               "may hold; check that it is the file meant: real ones are a few MB")
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--baseline-jsonl", str(big))
    assert rc == 1 and out == "" and err.splitlines() == [refusal], err


# --------------------------------------------------------------------------- a linked sidecar beside a named file

SAMPLES = "res.gpu_metrics.csv"  # the job's GPU samples beside its output (formats/gpu_metrics.paths_beside)


@pytest.mark.parametrize("given, linked", [("res.json", "res.job.json"), ("res.job.json", "res.json"),
                                           ("res.json", SAMPLES)])
def test_a_file_linked_from_outside_beside_a_named_file_is_refused_as_in_a_folder(db, tmp_path, capsys, given,
                                                                                  linked):
    """The job's files read beside the one named (its sidecar, its output, its GPU samples), one a link to a copy
    outside the folder: refused before anything is read, as a walk of the folder refuses it."""
    from test_sidecar_identity_s43a import _job_folder, _rows

    folder, _ = _job_folder(tmp_path)
    if linked == SAMPLES:
        (folder / SAMPLES).write_text("timestamp, index, power.draw [W]\n", encoding="utf-8")
    beside, target = folder / linked, tmp_path / "elsewhere" / linked
    target.parent.mkdir()
    os.replace(beside, target)
    os.symlink(target, beside)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 1 and err.splitlines() == [
        f"{beside}: a symbolic link to {target}, outside the folder given ({folder}); nothing is ingested; copy the "
        "file itself into the folder (cp -L), or remove the link"], err
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder / given))
    assert rc == 1 and err.splitlines() == [
        f"{beside}: a symbolic link to {target}, outside the folder of the file given ({folder / given}); nothing "
        "is ingested; copy the file itself into the folder (cp -L), or remove the link"], err
    assert _rows(db) == 0


@pytest.mark.parametrize("named", ["res.json", "res.job.json"])
def test_a_named_file_that_is_a_link_is_read_where_it_leads(db, tmp_path, capsys, named):
    """The file named is the user's choice, a link or not: its job's files beside the link are read."""
    from test_sidecar_identity_s43a import _job_folder, _rows

    folder, _ = _job_folder(tmp_path)
    target = tmp_path / "elsewhere" / named
    target.parent.mkdir()
    os.replace(folder / named, target)
    os.symlink(target, folder / named)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder / named))
    assert (rc, err) == (0, ""), err
    assert _rows(db) == 1


# --------------------------------------------------------------------------- an AIPerf statistic that is no number

def test_an_aiperf_statistic_that_is_no_number_is_refused_as_every_export_value_is(db, tmp_path, capsys):
    """aiperf._stat was measurement.number written again, with its own hint ("an unsupported AIPerf version"):
    one reader now, the export's hint as its other refusals give it."""
    from helpers import ROOT
    from sweepgate.results.measurement import edited_or_unsupported

    real = ROOT / "tests/data/results-real/aiperf/aiperf0.10_qwen3.6-nvfp4_rtx5090_agent_c16.json"
    text = real.read_text(encoding="utf-8")
    assert text.count('"avg": 2.156207775934887') == 1
    export = tmp_path / "profile_export_aiperf.json"
    export.write_text(text.replace('"avg": 2.156207775934887', '"avg": "2.16"'), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(export))
    (line,) = err.splitlines()
    assert rc == 1 and line.startswith(f"{export}:") and line.endswith(
        f": request_throughput.avg: expected a number, got '2.16'; {edited_or_unsupported('export')}"), err
