"""`results ingest --jsonl FILE` gathers records across ingests: each call appends what FILE does
not hold yet, so a baseline can be built run by run and feeds `compare --baseline-jsonl`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT, cli, job, run_cli, vllm_output, write_job
from sweepgate.results import record as R


def _ingest(capsys, tmp_path, folder, jsonl):
    return run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--jsonl", str(jsonl),
                   str(folder))



def test_with_jsonl_the_ingested_line_is_still_stdout_s_last(tmp_path, capsys):
    """docs19: CONTRACTS §8 has tools read `ingested N results (M new) into <db>` as stdout's last
    line; with --jsonl, "appended N records to FILE" came after it."""
    jsonl = tmp_path / "main.jsonl"
    write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="900"))
    rc, out, err = _ingest(capsys, tmp_path, tmp_path / "run", jsonl)
    lines = out.splitlines()
    assert rc == 0 and lines[-1].startswith("ingested 1 results (1 new) into "), out
    assert f"appended 1 record to {jsonl}" in lines[:-1], out

def _runs(jsonl) -> list[str]:
    return [json.loads(line)[R.RUN_ID] for line in jsonl.read_text().splitlines()]


def test_ingests_append_and_an_ingest_repeated_adds_nothing(tmp_path, capsys):
    """Review: five `ingest --jsonl main.jsonl runs/900N` calls left only the last run's lines, and
    `compare --baseline-jsonl main.jsonl` then judged every point insufficient-data."""
    jsonl = tmp_path / "main.jsonl"
    for n in range(3):
        sidecar = job(run_id=str(900 + n), finished=f"2026-01-0{n + 1}T12:00:00+00:00")
        write_job(tmp_path / f"run{n}", "res", vllm_output(4, output_throughput=409.6 + n), sidecar)
        rc, out, err = _ingest(capsys, tmp_path, tmp_path / f"run{n}", jsonl)
        assert rc == 0 and f"appended 1 record to {jsonl}" in out, err
    assert _runs(jsonl) == ["900", "901", "902"]
    rc, out, _ = _ingest(capsys, tmp_path, tmp_path / "run1", jsonl)
    assert rc == 0 and "appended 0 records" in out and "(1 already there)" in out
    assert _runs(jsonl) == ["900", "901", "902"]
    pr = job(run_id="777", ref="refs/pull/7/merge", finished="2026-02-01T12:00:00+00:00")
    write_job(tmp_path / "pr", "res", vllm_output(4, output_throughput=410.0), pr)
    assert _ingest(capsys, tmp_path, tmp_path / "pr", tmp_path / "pr.jsonl")[0] == 0
    rc, out, err = run_cli(capsys, "results", "compare", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--run", "777",
                           "--baseline-jsonl", str(jsonl), "--json")
    assert rc == 0, err
    assert {p["baseline"]["n"] for p in json.loads(out)["points"]} == {3}


def test_a_show_json_array_is_not_offered_as_a_baseline(tmp_path, capsys):
    """New user: a JSONL file of something else was told "write rows with `sweepgate results show
    --json`", whose JSON array --baseline-jsonl and --jsonl then refused as "not JSON ... at column 2"
    (and which holds only each point's newest record: no baseline of N runs)."""
    write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="5"))
    assert _ingest(capsys, tmp_path, tmp_path / "run", tmp_path / "ok.jsonl")[0] == 0
    rc, shown, _ = run_cli(capsys, "results", "show", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--json")
    array = tmp_path / "shown.jsonl"
    array.write_text(shown, encoding="utf-8")
    for argv in (["results", "compare", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--run", "5",
                  "--baseline-jsonl", str(array)],
                 ["results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--jsonl", str(array),
                  str(tmp_path / "run")]):
        rc, _, err = run_cli(capsys, *argv)
        assert rc == 1 and err.splitlines() == [
            f"{array}:1: a JSON array (as `results show --json` prints), not JSON lines; pass the file "
            "`sweepgate results ingest --jsonl FILE` wrote (one record a line, every run's), or the collect "
            "job's JSONL"], err
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"run-id": "1"}\n', encoding="utf-8")
    rc, _, err = _ingest(capsys, tmp_path, tmp_path / "run", notes)
    assert rc == 1 and "results show --json" not in err and "ingest --jsonl FILE" in err, err


def test_a_jsonl_file_that_is_not_records_is_refused_before_anything_is_stored(tmp_path, capsys):
    jsonl = tmp_path / "notes.jsonl"
    jsonl.write_text('{"run-id": "1"}\nnot json\n', encoding="utf-8")
    write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="5"))
    rc, _, err = _ingest(capsys, tmp_path, tmp_path / "run", jsonl)
    assert rc == 1 and err.startswith(f"{jsonl}:1: not a normalized result record"), err
    assert jsonl.read_text() == '{"run-id": "1"}\nnot json\n'
    rc, _, err = run_cli(capsys, "results", "show", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--run", "5")
    assert rc == 1  # nothing stored


def _one_line(tmp_path, run_id: str) -> str:
    """A record line as another ingest of run ``run_id`` appends it."""
    other = tmp_path / "other.jsonl"
    write_job(tmp_path / f"other{run_id}", "res", vllm_output(4), job(run_id=run_id))
    assert cli.main(["results", "ingest", "--db", f"sqlite:///{tmp_path / 'other.db'}", "--jsonl", str(other),
                     str(tmp_path / f"other{run_id}")]) == 0
    return other.read_text().splitlines()[-1] + "\n"


def test_lines_another_ingest_appends_meanwhile_are_kept(tmp_path, capsys, monkeypatch):
    """Hunt (D17): four parallel ingests of 100 records into one --jsonl each said "appended 100
    records" and the file held 100 lines: each rewrote FILE as it had read it before storing. FILE is
    read again under an exclusive lock and the new lines appended, so another ingest's stay."""
    from sweepgate.results import ingest

    jsonl = tmp_path / "main.jsonl"
    jsonl.write_text(_one_line(tmp_path, "900"))
    theirs = _one_line(tmp_path, "901")
    real = ingest.ingest

    def meanwhile(*args, **kwargs):  # another ingest appends while this one stores
        with jsonl.open("a") as fh:
            fh.write(theirs)
        return real(*args, **kwargs)

    monkeypatch.setattr(ingest, "ingest", meanwhile)
    write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="902"))
    rc, out, err = _ingest(capsys, tmp_path, tmp_path / "run", jsonl)
    assert rc == 0 and f"appended 1 record to {jsonl}" in out, err
    assert _runs(jsonl) == ["900", "901", "902"]


def test_parallel_ingests_into_one_jsonl_keep_every_line(tmp_path):
    """D17 as found: real processes at once, every record of each ends in FILE."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    jsonl = tmp_path / "all.jsonl"
    for k in range(4):
        for i in range(20):
            write_job(tmp_path / f"set{k}", f"res{i:02d}", vllm_output(4), job(run_id=f"{k}{i:02d}"))
    procs = [subprocess.Popen([sys.executable, "-m", "sweepgate", "results", "ingest", "--db",
                               f"sqlite:///{tmp_path / f'{k}.db'}", "--jsonl", str(jsonl), str(tmp_path / f"set{k}")],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and "appended 20 records" in out, err
    assert sorted(_runs(jsonl)) == sorted(f"{k}{i:02d}" for k in range(4) for i in range(20))


def test_an_unwritable_jsonl_is_refused_before_anything_is_stored(tmp_path, capsys, monkeypatch):
    """Hunt (D18): a read-only --jsonl was refused only after 4 records were stored (exit 1)."""
    jsonl = tmp_path / "ro.jsonl"
    jsonl.write_text("")
    real = os.open

    def read_only(path, flags, *args):  # as a non-root user meets a chmod-444 file (root writes it all the same)
        if os.fspath(path) == str(jsonl) and flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, flags, *args)

    monkeypatch.setattr(os, "open", read_only)
    write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="5"))
    rc, out, err = _ingest(capsys, tmp_path, tmp_path / "run", jsonl)
    assert (rc, out) == (1, ""), err
    assert err == (f"{jsonl}: cannot write to it: Permission denied; pass --jsonl a writable file (or a new one "
                   "in a writable folder)\n")
    assert not (tmp_path / "r.db").exists()  # nothing stored


def test_a_jsonl_given_as_a_symbolic_link_is_written_through_to_its_target(tmp_path, capsys):
    """Hunt (D18): --jsonl link.jsonl replaced the link by a file; its target got nothing."""
    target, link = tmp_path / "target.jsonl", tmp_path / "link.jsonl"
    target.write_text(_one_line(tmp_path, "900"))
    link.symlink_to(target.name)
    write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="901"))
    rc, out, err = _ingest(capsys, tmp_path, tmp_path / "run", link)
    assert rc == 0, err
    assert link.is_symlink() and _runs(target) == ["900", "901"]


def test_an_output_that_arrives_after_its_sidecar_is_appended_beside_its_placeholder(tmp_path, capsys):
    """New user (newuser27): with the sidecars copied before the outputs, --jsonl held each job as the
    failure its sidecar alone made, and the output ingested later was "already there" (same run,
    attempt and file name), so a baseline gathered from FILE had no figure of the job. Now the
    output's record is appended (a failed record takes no place in a baseline); neither line twice."""
    jsonl = tmp_path / "main.jsonl"
    out = write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="900"))
    held = out.read_bytes()
    out.unlink()
    assert _ingest(capsys, tmp_path, tmp_path / "run", jsonl)[0] == 0
    out.write_bytes(held)
    rc, text, err = _ingest(capsys, tmp_path, tmp_path / "run", jsonl)
    assert rc == 0 and f"appended 1 record to {jsonl}" in text, (text, err)
    for again in (True, False):  # the same ingest again, with and without the output: nothing added
        if not again:
            out.unlink()
        rc, text, err = _ingest(capsys, tmp_path, tmp_path / "run", jsonl)
        assert rc == 0 and "appended 0 records" in text, (text, err)
    lines = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert [(r[R.STATUS], bool(r[R.METRICS])) for r in lines] == [("failure", False), ("success", True)]


@pytest.mark.parametrize("order", ["sidecar-first", "output-first"])
def test_a_placeholder_and_its_output_in_one_ingest_leave_one_line(tmp_path, capsys, order):
    """review27: a partial copy of a job (its sidecar alone) and a whole one, ingested in one call,
    left the store with the output's record but FILE with both lines, the placeholder's even after
    the output's; ingested in two calls, the placeholder was not appended. FILE now holds what the
    store holds: the output's line alone."""
    jsonl = tmp_path / "main.jsonl"
    write_job(tmp_path / "part", "res", None, job(run_id="900"))
    write_job(tmp_path / "whole", "res", vllm_output(4), job(run_id="900"))
    folders = [tmp_path / "part", tmp_path / "whole"]
    rc, text, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--jsonl",
                            str(jsonl), *map(str, folders if order == "sidecar-first" else folders[::-1]))
    assert rc == 0, err
    lines = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert [(r[R.STATUS], r[R.SOURCE_FORMAT]) for r in lines] == [("success", "vllm-serving")], lines


def _ingest_proc(tmp_path, db: str, jsonl, folder) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    return subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db", db, "--jsonl", str(jsonl),
                           str(folder)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**env, "PYTHONPATH": str(ROOT / "utils")})


def test_a_store_that_cannot_be_opened_leaves_no_jsonl_behind(tmp_path):
    """msgs28: with no PostgreSQL server at the --db URL, `ingest --jsonl new.jsonl` was refused in its one
    line but left new.jsonl behind, empty (it was opened, so created, before the store was reached, to
    refuse a FILE that cannot be written before anything is stored). A new FILE is made only with the
    records it is to hold; one that was there keeps its bytes."""
    import socket

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="5"))
    old = tmp_path / "old.jsonl"
    old.write_text(_one_line(tmp_path, "900"))
    before = old.read_bytes()
    for jsonl in (tmp_path / "new.jsonl", old):
        proc = _ingest_proc(tmp_path, f"postgresql://u:p@127.0.0.1:{port}/db", jsonl, tmp_path / "run")
        (line,) = proc.stderr.strip().splitlines()
        assert (proc.returncode, proc.stdout) == (1, "") and "no PostgreSQL server listens" in line, proc
    assert not (tmp_path / "new.jsonl").exists(), "an empty FILE left behind"
    assert old.read_bytes() == before
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no temporary file either


def test_a_new_jsonl_on_a_full_disk_is_not_left_empty(tmp_path):
    """msgs28: a new --jsonl FILE whose records could not be written (a full disk) was cut back to nothing
    and left there, empty; it is not made at all now (an existing one is cut back to what it held, as
    before). The store keeps the records: the same ingest run again, with room, writes them."""
    from helpers import tmpfs

    write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="5"))
    db = f"sqlite:///{tmp_path / 'r.db'}"
    with tmpfs(tmp_path / "disk", "size=64k") as disk:
        with open(disk / "filler", "wb", buffering=0) as filler:  # the disk full to its last byte
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError:
                pass
        jsonl = disk / "new.jsonl"
        proc = _ingest_proc(tmp_path, db, jsonl, tmp_path / "run")
        assert proc.returncode == 1 and proc.stdout.splitlines()[-1].startswith("ingested 1 results (1 new)"), proc
        (line,) = proc.stderr.strip().splitlines()
        assert line.startswith(f"{jsonl}: cannot write to it: No space left on device"), line
        assert sorted(p.name for p in disk.iterdir()) == ["filler"], "FILE (or a temporary one) left behind"
        (disk / "filler").unlink()
        proc = _ingest_proc(tmp_path, db, jsonl, tmp_path / "run")
        assert proc.returncode == 0 and "appended 1 record to" in proc.stdout, proc
        assert _runs(jsonl) == ["5"]


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_a_new_jsonl_takes_the_mode_the_umask_gives(tmp_path, umask):
    """A new FILE is made through a temporary file (msgs28), whose mode is 0600: it takes 0644 less
    the umask, as when it was opened with O_CREAT."""
    write_job(tmp_path / "run", "res", vllm_output(4), job(run_id="5"))
    jsonl = tmp_path / "new.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    proc = subprocess.run(["bash", "-c", f'umask {umask:03o}; exec "$@"', "-", sys.executable, "-m", "sweepgate",
                           "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--jsonl", str(jsonl),
                           str(tmp_path / "run")], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**env, "PYTHONPATH": str(ROOT / "utils")})
    assert proc.returncode == 0, proc.stderr
    assert jsonl.stat().st_mode & 0o777 == 0o644 & ~umask and _runs(jsonl) == ["5"]


def test_an_ingest_whose_every_file_is_refused_makes_no_new_jsonl(tmp_path):
    """review28: `ingest --jsonl new.jsonl` of a folder whose only file is refused (unknown JSON output)
    stored nothing and exited 1, yet made new.jsonl, empty ("appended 0 records"): a new FILE is made
    only with its records (cf4d002). One that was there is left as it was; and `--allow-empty` of an
    empty folder, which succeeds, still makes the empty FILE a reused run's collect job uploads."""
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "r.json").write_text('{"x": 1}\n')
    db = f"sqlite:///{tmp_path / 'r.db'}"
    proc = _ingest_proc(tmp_path, db, tmp_path / "new.jsonl", tmp_path / "bad")
    assert proc.returncode == 1 and "unknown JSON output" in proc.stderr, proc
    assert proc.stdout.splitlines() == ["ingested 0 results (0 new) into " + db + "; nothing stored"], proc.stdout
    assert not (tmp_path / "new.jsonl").exists(), "an empty FILE made by a failed ingest"
    old = tmp_path / "old.jsonl"
    old.write_text("")
    proc = _ingest_proc(tmp_path, db, old, tmp_path / "bad")
    assert proc.returncode == 1 and old.read_bytes() == b"", proc
    (tmp_path / "empty").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db", db, "--allow-empty",
                           "--jsonl", "reused.jsonl", "empty"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={**env, "PYTHONPATH": str(ROOT / "utils")})
    assert proc.returncode == 0 and (tmp_path / "reused.jsonl").read_bytes() == b"", proc
