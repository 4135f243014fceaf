"""ingest28: one output under two file names, without a sidecar, is one measurement.

Without a sidecar or --row, an output's run id is its content's hash, so the same bytes under
two names (a copy, ``res.json`` and ``res (1).json``) were stored as two results of one run:
two measurements of its point, as if repeated, which narrows its noise falsely. The second is
now a copy: warned of, naming both files, and not stored, in one ingest or a later one, as the
same file ingested again is not. Different outputs, and jobs with sidecars, are stored as before.
"""

from __future__ import annotations

import json
import shutil

from sweepgate.results import record as R

from .helpers import ROW, SAMPLES, job, no_ref_said, run_cli, show_json, vllm_output, write_job

SAMPLE = SAMPLES / "vllm" / "ifx_benchserving_gptoss120b_disagg_1p1d_16gpu_1k1k_conc128.json"


def _ingest(capsys, db, *paths, extra=()):
    return run_cli(capsys, "results", "ingest", "--db", db, *extra, *map(str, paths))


def _stored(capsys, db) -> list[tuple]:
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--json")
    assert rc == 0, err
    return sorted((r[R.RUN_ID], r[R.RESULT_FILENAME]) for r in json.loads(out))


def _copies(tmp_path, *names):
    folder = tmp_path / "in"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copyfile(SAMPLE, folder / name)
    return folder


def test_a_copy_in_one_ingest_is_warned_of_and_not_stored(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    folder = _copies(tmp_path, "a.json", "b.json")
    rc, out, err = _ingest(capsys, db, folder)
    assert rc == 0 and out.splitlines()[-1] == f"ingested 1 results (1 new) into {db}", (out, err)
    assert no_ref_said(err).splitlines() == [f"{folder / 'b.json'}: warning: the same bytes as {folder / 'a.json'}, a copy "
                                "under another name; not stored twice (in one run it would count as a second "
                                "measurement); nothing to do; remove the copy to silence this"], err
    (run, name), = _stored(capsys, db)
    assert run.startswith("local-") and name == "a.json"


def test_a_copy_in_a_later_ingest_is_warned_of_and_not_stored(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    folder = _copies(tmp_path, "a.json")
    assert _ingest(capsys, db, folder)[0] == 0
    (run, _), = _stored(capsys, db)
    copy = tmp_path / "later" / "c.json"
    copy.parent.mkdir()
    shutil.copyfile(SAMPLE, copy)
    rc, out, err = _ingest(capsys, db, copy)
    assert rc == 0 and out.splitlines()[-1] == f"ingested 0 results (0 new) into {db}; nothing stored", (out, err)
    assert err.startswith(f"{copy}: warning: the same bytes as result 'a.json' of run {run} (stored before), "
                          "a copy under another name; not stored twice"), err
    assert _stored(capsys, db) == [(run, "a.json")]
    rc, out, err = _ingest(capsys, db, folder)  # the same file again: a no-op, as it was
    assert (rc, err) == (0, "") and "ingested 1 results (0 new)" in out, (out, err)


def test_different_outputs_and_jsonl_lines_are_unaffected(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    folder = tmp_path / "in"
    write_job(folder, "a", vllm_output(4), None)
    write_job(folder, "b", vllm_output(4, output_throughput=400.0), None)
    lines = "\n".join(json.dumps(vllm_output(4, output_throughput=v)) for v in (380.0, 390.0)) + "\n"
    (folder / "s.jsonl").write_text(lines, encoding="utf-8")
    rc, out, err = _ingest(capsys, db, folder)
    assert (rc, no_ref_said(err)) == (0, "") and "ingested 4 results (4 new)" in out, (out, err)
    rc, out, err = _ingest(capsys, db, folder)
    assert (rc, err) == (0, "") and "ingested 4 results (0 new)" in out, (out, err)


def test_a_copy_with_row_in_one_ingest_is_not_stored_twice(tmp_path, capsys):
    """--row gives both files one run id: the copy would be a second measurement of the run too."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    row = tmp_path / "row.json"
    row.write_text(json.dumps(ROW), encoding="utf-8")
    folder = tmp_path / "in"
    write_job(folder, "a", vllm_output(4), None)
    shutil.copyfile(folder / "a.json", folder / "b.json")
    rc, out, err = _ingest(capsys, db, folder / "a.json", folder / "b.json",
                           extra=("--row", str(row), "--run-id", "101", "--ref", "refs/heads/main"))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert err.startswith(f"{folder / 'b.json'}: warning: the same bytes as {folder / 'a.json'}"), err
    assert _stored(capsys, db) == [("101", "a.json")]


def test_jobs_outputs_are_stored_under_their_jobs_and_a_loose_copy_of_one_is_not(tmp_path, capsys):
    """A sidecar names the job an output is of: two jobs' outputs alike are stored under their jobs (with a
    warning, s35a); a file without a sidecar read after one that copies it is not stored."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    first = write_job(tmp_path / "run", "c4", vllm_output(4), job(run_id="900"))
    second = write_job(tmp_path / "run", "c4b", vllm_output(4), job(run_id="900", row=dict(ROW, tp=4)))
    loose = tmp_path / "loose" / "copy.json"
    loose.parent.mkdir()
    shutil.copyfile(first, loose)
    rc, out, err = _ingest(capsys, db, tmp_path / "run", loose)
    assert rc == 0 and "ingested 2 results (2 new)" in out, (out, err)
    lines = err.splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"{second}: warning: the same bytes as {first}; stored under "), err
    assert lines[1:] == [
        f"{loose}: warning: the same bytes as {first}, a copy under another name; not stored twice (in one run "
        "it would count as a second measurement); nothing to do; remove the copy to silence this"], err
    assert _stored(capsys, db) == [("900", "c4"), ("900", "c4b")]
