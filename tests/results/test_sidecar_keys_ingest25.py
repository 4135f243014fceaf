"""A hand-written job sidecar with a misspelt key (`confg-key`, `finshed`) was read as if the key
were absent: the job was stored with that field unknown (no config key: the point matched no
baseline) and nothing said so. Now a key the sidecar format has not (``core.jobfile``'s names) is
refused in one line at its place, naming the nearest known key, exit 1, and nothing is stored."""

from __future__ import annotations

import json

import pytest
from helpers import job, run_cli, vllm_output, write_job  # helpers puts utils/ on sys.path

from sweepgate.core import jobfile


def key_at(path, key: str) -> str:
    """``PATH:LINE:COL`` of the last ``"key":`` in the sidecar (the job object follows the row)."""
    text = path.read_text(encoding="utf-8")
    at = text.rindex(f'"{key}":')
    return f"{path}:{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def ingest_sidecar(tmp_path, capsys, doc: dict) -> tuple[int, str, str, object]:
    folder = tmp_path / "run"
    write_job(folder, "res", vllm_output(), None)
    side = folder / f"res{jobfile.SUFFIX}"
    side.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    db = tmp_path / "r.db"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", str(folder))
    return rc, err, side, db


@pytest.mark.parametrize("wrong, right", [("confg-key", "config-key"), ("finshed", "finished"),
                                          ("runner_name", "runner-name")])
def test_a_misspelt_job_key_is_refused_naming_the_key_meant(tmp_path, capsys, wrong, right):
    doc = job()
    doc["job"][wrong] = doc["job"].pop(right)
    rc, err, side, db = ingest_sidecar(tmp_path, capsys, doc)
    assert rc == 1 and err.splitlines() == [
        f"{key_at(side, wrong)}: unknown key '{wrong}'; did you mean '{right}'?"], err
    assert not db.exists()  # nothing stored, no store made


def test_an_unknown_key_with_no_near_name_lists_the_keys(tmp_path, capsys):
    doc = job()
    doc["job"]["zzz"] = 1
    rc, err, side, db = ingest_sidecar(tmp_path, capsys, doc)
    assert rc == 1 and err.splitlines() == [
        f"{key_at(side, 'zzz')}: unknown key 'zzz'; remove it; the job object holds only "
        + ", ".join(jobfile.JOB_KEYS)], err
    assert not db.exists()


def test_a_job_key_written_beside_the_job_object_is_refused(tmp_path, capsys):
    doc = job()
    doc["rehearsal"] = doc["job"].pop("rehearsal")
    rc, err, side, db = ingest_sidecar(tmp_path, capsys, doc)
    assert rc == 1 and err.splitlines() == [
        f"{key_at(side, 'rehearsal')}: unknown key 'rehearsal'; did you mean 'job.rehearsal'? move it "
        "into the job object"], err
    assert not db.exists()


def test_a_sidecar_with_every_known_key_still_ingests(tmp_path, capsys):
    doc = job(**{"run-identity": "ab" * 32})
    assert set(doc["job"]) == set(jobfile.JOB_KEYS)
    rc, err, _, db = ingest_sidecar(tmp_path, capsys, doc)
    assert (rc, err) == (0, "") and db.exists()


def test_every_unknown_key_of_a_sidecar_is_named_in_its_one_line(tmp_path, capsys):
    """polish26: a sidecar with three misspelt keys named only the first, so fixing it took three runs.
    Still one line for the file, at the first key's place, now naming each key, with the key each
    seems meant for where there is one, and what to do with the others."""
    doc = job()
    doc["job"]["confg-key"] = doc["job"].pop("config-key")
    doc["job"]["zzz"] = 1
    doc["job"]["finshed"] = doc["job"].pop("finished")
    doc["rehearsal"] = doc["job"].pop("rehearsal")
    rc, err, side, db = ingest_sidecar(tmp_path, capsys, doc)
    assert rc == 1 and err.splitlines() == [
        f"{key_at(side, 'confg-key')}: unknown keys 'confg-key', 'zzz', 'finshed' and 'rehearsal'; "
        "did you mean 'config-key' for 'confg-key' and 'finished' for 'finshed'? move 'rehearsal' into the job "
        "object; remove 'zzz' (the job object holds only " + ", ".join(jobfile.JOB_KEYS) + ")"], err
    assert not db.exists()


def test_two_unknown_keys_without_a_near_name_are_both_named(tmp_path, capsys):
    doc = job()
    doc["job"]["aaa"], doc["job"]["zzz"] = 1, 2
    rc, err, side, _db = ingest_sidecar(tmp_path, capsys, doc)
    assert rc == 1 and err.splitlines() == [
        f"{key_at(side, 'aaa')}: unknown keys 'aaa' and 'zzz'; remove 'aaa' and 'zzz' (the job object holds only "
        + ", ".join(jobfile.JOB_KEYS) + ")"], err
