"""s34a: one output stored as two runs, recognised by its bytes, said once per file, counted once by compare.

- An output ingested with `--row ... --run-id 101` and then without `--row` (its run id its content's hash), or the
  other way round, was stored a second time under the other run without a word. Each stored row now keeps its
  output file's SHA-256 (revision 0006, `output_sha256`; old rows NULL): a later ingest of the same bytes without
  `--row` is not stored (one warning naming run 101), and one with `--row` is stored with one warning naming the
  earlier run.
- A JSONL output stored again under a new run id warned once per line; it warns once for the file, counting them.
- `results compare` counted main runs that hold one output as that many runs (a baseline of no spread); they count
  once, and the report and `--json` say which runs they were.

Real processes of the entry point (or the CLI in process), real SQLite and PostgreSQL stores.
"""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from helpers import ROW, run_cli, show_json, sweepgate_at, vllm_output
from test_alike_index_s31 import stored_by_an_older_sweepgate
from test_store_edges19 import _head
from sweepgate.results import ingest

MAIN = "refs/heads/main"


def _ingest(tmp_path, name: str, run: str | None = None, ref: str = MAIN, db: str | None = None):
    by_hand = ["--row", "row.json", "--run-id", run, "--ref", ref] if run else []
    return sweepgate_at(tmp_path, "results", "ingest", "--db", db or f"sqlite:///{tmp_path / 'r.db'}", *by_hand, name)


def _files(tmp_path, **outputs) -> None:
    (tmp_path / "row.json").write_text(json.dumps(ROW), encoding="utf-8")
    for name, text in outputs.items():
        (tmp_path / name.replace("_", ".")).write_text(text, encoding="utf-8")


def _runs(capsys, db: str) -> list[str]:
    return sorted(str(rec["run-id"]) for rec in show_json(capsys, db))


def test_an_output_stored_with_row_is_not_stored_again_without_it(tmp_path, capsys):
    _files(tmp_path, out_json=json.dumps(vllm_output(4)))
    assert _ingest(tmp_path, "out.json", "101").returncode == 0
    proc = _ingest(tmp_path, "out.json")
    assert proc.returncode == 0 and "ingested 0 results (0 new)" in proc.stdout, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        "out.json: warning: the same bytes as run 101's result 'out.json', stored before; not stored again as a run "
        "of its own (one output under two runs would count as two measurements); nothing to do: it is stored as run "
        "101's"], proc.stderr
    assert _runs(capsys, f"sqlite:///{tmp_path / 'r.db'}") == ["101"]  # was also local-…, a run of no ref


def test_an_output_stored_without_row_and_then_with_it_is_stored_and_said(tmp_path, capsys):
    _files(tmp_path, out_json=json.dumps(vllm_output(4)))
    assert _ingest(tmp_path, "out.json").returncode == 0
    again = _ingest(tmp_path, "out.json")  # its own run's re-ingest: no word
    assert again.returncode == 0 and again.stderr == "" and "(0 new)" in again.stdout, again.stderr
    proc = _ingest(tmp_path, "out.json", "101")
    assert proc.returncode == 0 and "ingested 1 results (1 new)" in proc.stdout, proc.stderr
    [line] = proc.stderr.splitlines()
    assert line.startswith("out.json: warning: the same bytes as run local-") and "stored all the same as run " \
        "101's 'out.json'" in line and line.endswith("stored without --row, is on no ref and no baseline"), line
    runs = _runs(capsys, f"sqlite:///{tmp_path / 'r.db'}")
    assert runs[0] == "101" and runs[1].startswith("local-") and len(runs) == 2


def test_a_jsonl_stored_again_under_another_run_warns_once_for_the_file(tmp_path):
    lines = [json.dumps(vllm_output(4, output_throughput=400.0 + i)) for i in range(5)]
    _files(tmp_path, runs_jsonl="\n".join(lines) + "\n")
    assert _ingest(tmp_path, "runs.jsonl", "201").stderr == ""
    proc = _ingest(tmp_path, "runs.jsonl", "202")
    assert proc.returncode == 0 and "ingested 5 results (5 new)" in proc.stdout, proc.stderr
    assert proc.stderr.splitlines() == [  # was one line per JSONL line
        "runs.jsonl:1: warning: the same bytes as run 201's results of 'runs.jsonl', stored before: one output stored "
        "as two runs, which no two runs measure; stored all the same as run 202's 5 results (lines 1-5); `results "
        "compare` counts the output once; ingest each run's own output (its job's $RESULT_FILENAME.json), not run "
        "201's again"], proc.stderr


def test_rows_stored_before_their_bytes_were_kept_are_still_told_by_their_figures(tmp_path, capsys):
    """A store an older sweepgate made (revision 0005, no SHA-256): upgraded, its rows keep NULL and still work."""
    db = f"sqlite:///{tmp_path / 'old.db'}"
    lines = [json.dumps(vllm_output(4, output_throughput=400.0 + i)) for i in range(3)]
    _files(tmp_path, runs_jsonl="\n".join(lines) + "\n")
    given = ingest.Given(row=ROW, run_id="201", ref=MAIN)
    stored_by_an_older_sweepgate(db, ingest.records_of(tmp_path / "runs.jsonl", given), "0005")
    proc = _ingest(tmp_path, "runs.jsonl", "202", db=db)
    assert proc.returncode == 0 and "(3 new)" in proc.stdout, proc.stderr
    assert proc.stderr.splitlines() == [
        "runs.jsonl:1: warning: every figure the same as run 201's results of 'runs.jsonl', stored before: one "
        "output stored as two runs, which no two runs measure; stored all the same as run 202's 3 results (lines "
        "1-3); ingest each run's own output (its job's $RESULT_FILENAME.json), not run 201's again"], proc.stderr
    engine = sa.create_engine(db)
    with engine.connect() as conn:
        kept = dict(conn.execute(sa.text("SELECT run_id, COUNT(output_sha256) FROM results GROUP BY run_id")).all())
    engine.dispose()
    assert kept == {"201": 0, "202": 3}


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, env) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else f"sqlite:///{env / 'r.db'}"


def test_an_older_store_gets_the_column_and_the_check_works_there(backend, tmp_path, capsys):
    _files(tmp_path, out_json=json.dumps(vllm_output(4)))
    given = ingest.Given(row=ROW, run_id="101", ref=MAIN)
    stored_by_an_older_sweepgate(backend, ingest.records_of(tmp_path / "out.json", given), "0005")
    assert run_cli(capsys, "results", "ingest", "--db", backend, "--row", str(tmp_path / "row.json"), "--run-id",
                   "102", "--ref", MAIN, str(tmp_path / "out.json"))[0] == 0  # upgrades it; told by its figures
    engine = sa.create_engine(backend)
    with engine.connect() as conn:
        revision = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        indexes = {ix["name"]: ix["column_names"] for ix in sa.inspect(conn).get_indexes("results")}
        shas = dict(conn.execute(sa.text("SELECT run_id, output_sha256 FROM results")).all())
    engine.dispose()
    assert revision == _head() == "0007" and indexes["ix_results_output"] == ["output_sha256"]  # 0007: s47c
    assert shas["101"] is None and len(shas["102"]) == 64
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", backend, str(tmp_path / "out.json"))
    assert rc == 0 and "(0 new)" in out and "the same bytes as run 102's result 'out.json'" in err, err
    assert _runs(capsys, backend) == ["101", "102"]


def test_compare_counts_main_runs_of_one_output_once_and_says_so(tmp_path, capsys):
    _files(tmp_path, out_json=json.dumps(vllm_output(4)), pr_json=json.dumps(vllm_output(4, output_throughput=401.0)))
    for run in ("101", "102", "103"):
        assert _ingest(tmp_path, "out.json", run).returncode == 0
    assert _ingest(tmp_path, "pr.json", "200", ref="refs/pull/7/head").returncode == 0
    db = f"sqlite:///{tmp_path / 'r.db'}"
    table = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "200")
    note = ("Baseline runs 101, 102 and 103 hold one output (the same bytes) at 1 point: counted once there, as one "
            "measurement, not a spread (ingest each run's own output)")
    assert table.returncode == 0 and note in table.stdout, table.stdout + table.stderr
    assert "(n=1)" in table.stdout and "(n=3)" not in table.stdout, table.stdout  # was [51.2, 51.2] (n=3)
    doc = json.loads(sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "200", "--json").stdout)
    assert [e["runs"] for e in doc["echoed"]] == [["101", "102", "103"]] and doc["echoed"][0]["conc"] == 4
    assert {p["baseline"]["n"] for p in doc["points"]} == {1}
    md = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "200", "--markdown")
    assert f"> **{note}**" in md.stdout, md.stdout


def _three_main_runs(tmp_path, **more) -> list[str]:
    """Main runs 100-102, each of its own output o0..o2.json (``more``: other files to write); their stderr."""
    outs = {f"o{run}_json": json.dumps(vllm_output(4, output_throughput=400.0 + run)) for run in range(3)}
    _files(tmp_path, **outs, **more)
    return [_ingest(tmp_path, f"o{run}.json", f"10{run}").stderr for run in range(3)]


def test_main_runs_of_their_own_outputs_are_no_echo(tmp_path):
    # the PR's own output (401.0 would be run 101's bytes, which compare names as a copy of it)
    assert _three_main_runs(tmp_path, pr_json=json.dumps(vllm_output(4, output_throughput=401.5))) == ["", "", ""]
    assert _ingest(tmp_path, "pr.json", "200", ref="refs/pull/7/head").returncode == 0
    table = sweepgate_at(tmp_path, "results", "compare", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--run", "200")
    assert "(n=3)" in table.stdout and "same bytes" not in table.stdout, table.stdout


def test_a_pr_run_that_holds_a_main_run_s_output_is_said(tmp_path):
    # s34: a PR run ingested from main run 101's output (the same bytes) got the ingest's warning, but compare
    # judged it as a new measurement (a change of 0 against a window holding the very same figure)
    assert _three_main_runs(tmp_path) == ["", "", ""]
    assert _ingest(tmp_path, "o1.json", "200", ref="refs/pull/7/head").returncode == 0
    db = f"sqlite:///{tmp_path / 'r.db'}"
    table = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "200")
    note = ("This run's output at 1 point is the same bytes as baseline run 101's: that is a measurement main "
            "already has, not a new one (ingest the PR job's own output)")
    assert table.returncode == 0 and note in table.stdout, table.stdout + table.stderr
    md = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "200", "--markdown")
    assert f"> **{note}**" in md.stdout, md.stdout
    # a PR run of its own output is not said
    _files(tmp_path, pr_json=json.dumps(vllm_output(4, output_throughput=401.5)))
    assert _ingest(tmp_path, "pr.json", "201", ref="refs/pull/7/head").returncode == 0
    table = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "201")
    assert table.returncode == 0 and "same bytes" not in table.stdout, table.stdout


def test_a_ci_reuse_copy_of_a_main_output_is_not_named_a_copy(tmp_path, capsys):
    # `ci reuse` copies main's record into the PR run on purpose (R.REUSED_FROM): no note; the same record
    # without that mark is one
    from sweepgate.results import compare
    from sweepgate.results import record as R

    assert _three_main_runs(tmp_path) == ["", "", ""]
    base = show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}")
    (main,) = [r for r in base if str(r[R.RUN_ID]) == "101"]
    pr = {**main, R.RUN_ID: "200", R.REF: "refs/pull/7/head"}
    reused = {**pr, R.REUSED_FROM: {R.RUN_ID: "101", R.ATTEMPT: main.get(R.ATTEMPT),
                                    R.RESULT_FILENAME: main.get(R.RESULT_FILENAME)}}
    assert [n for n in compare.compare_records([reused], base, run="200").notes if "same bytes" in n] == []
    (note,) = [n for n in compare.compare_records([pr], base, run="200").notes if "same bytes" in n]
    assert note.startswith("This run's output at 1 point is the same bytes as baseline run 101's"), note
