"""s30: what a warning of a copy says of a `vllm bench sweep` summary.json stored before.

A file without a sidecar is stored under a run id of its content's hash, and a file of other name and the
same bytes is a copy, warned of and not stored (ingest28). Two things were wrong for a summary.json, a file
whose runs are stored as ``summary.json#1``, ``summary.json#2``:

- the same summary.json, stored whole by an earlier version (before b90528b read a summary missing a run's
  file whole), and read again for its runs without a file of their own (``summary.json#2`` alone) was
  said to be 'the same bytes as result summary.json#1 ..., a copy under another name': it is the same file,
  under its own name, read for fewer of its runs, and no copy;
- a real copy under another name was said to have the bytes of one of its entries (``result 'summary.json#1'``);
  it has those of the file, summary.json, which the warning now names, with the results it was stored as.

The files are the real point of a vLLM 0.25.1 sweep (tests/data/results-real/SOURCES.tsv).
"""

from __future__ import annotations

import shutil

from helpers import ROOT, ingested_verbose, run_cli, show_json

from sweepgate.results import ingest, store

REAL = ROOT / "tests" / "data" / "results-real" / "vllm"
POINT = "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8"
RUN0, SUMMARY = "vllm0.25.1_bench_sweep_run0_opt125m_c2.json", "vllm0.25.1_bench_sweep_summary_2runs_c2.json"


def test_a_summary_stored_whole_and_read_again_for_fewer_runs_is_no_copy(tmp_path, capsys):
    point = tmp_path / "experiment" / POINT
    point.mkdir(parents=True)
    shutil.copyfile(REAL / RUN0, point / "run=0.json")
    shutil.copyfile(REAL / SUMMARY, point / "summary.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(db) as st:  # as the earlier version stored the folder: every record of both files
        for name in ("run=0.json", "summary.json"):
            st.add(ingest.records_of(point / name))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "experiment"))
    assert (rc, err) == (0, ""), err  # was: "... the same bytes as result 'summary.json#1' ..., a copy ..."
    assert out.splitlines()[-1].startswith("ingested 2 results (0 new)"), out  # was 1: summary.json#2 not counted


def test_a_copy_of_a_summary_is_named_as_the_file_it_copies(tmp_path, capsys):
    point = tmp_path / POINT
    point.mkdir()
    shutil.copyfile(REAL / SUMMARY, point / "summary.json")
    db, _ = ingested_verbose(capsys, tmp_path, point)
    run = show_json(capsys, db)[0]["run-id"]
    copy = tmp_path / "later" / "summary (1).json"
    copy.parent.mkdir()
    shutil.copyfile(point / "summary.json", copy)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(copy))
    assert rc == 0 and out.splitlines()[-1].endswith("; nothing stored"), (out, err)
    assert err.splitlines() == [f"{copy}: warning: the same bytes as 'summary.json' of run {run} (stored before, "
                                "as its results summary.json#1 and summary.json#2), a copy under another name; not "
                                "stored twice (in one run it would count as a second measurement); nothing to do; "
                                "remove the copy to silence this"], err
