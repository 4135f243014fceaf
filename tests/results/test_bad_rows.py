"""Hostile rows at ingest: one line each, the other files still stored.

A matrix row (``--row FILE`` or a sidecar's "row") with a value the record cannot be derived
from, or an integer the store cannot hold, ended in "internal error" (TypeError, ValueError,
AttributeError, OverflowError) and stopped the batch, the summary never printed (hostile review 11).
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from helpers import ROW, job, no_ref_said, run_cli, vllm_output, write_job
from sweepgate.core import fields as F
from sweepgate.core.errors import SweepgateError
from sweepgate.core.jobenv import check_row
from sweepgate.results import record as R
from sweepgate.results import store

HUGE = 2**63  # past the store's integer columns

MULTINODE = {F.PREFILL: {F.NUM_WORKER: 1, F.TP: 4, F.EP: 4, F.DP_ATTN: False},
             F.DECODE: {F.NUM_WORKER: 1, F.TP: 8, F.EP: 8, F.DP_ATTN: False}, F.CONC: [4]}

BAD_ROWS = {  # row changes -> what the one line says
    "tp null": ({F.TP: None}, "row's tp null is not a whole number from 1 to 1024"),
    "tp text": ({F.TP: "abc"}, "row's tp \"abc\" is not a whole number"),
    "tp list": ({F.TP: [8]}, "row's tp [8] is not a whole number"),
    "tp huge": ({F.TP: HUGE}, f"row's tp {HUGE} is not a whole number"),
    "pp text": ({F.PP: "x"}, "row's pp \"x\" is not a whole number"),
    "isl huge": ({F.ISL: HUGE}, f"row's isl {HUGE} is not a whole number from 1 to 100000000"),
    "conc huge": ({F.CONC: HUGE}, "is not a positive whole number (or a list of them)"),
    "runner number": ({F.RUNNER: 8}, "row's runner 8 is not a string"),
    "runner list": ({F.RUNNER: ["b300"]}, "row's runner [\"b300\"] is not a string"),
    "nan": ({F.MAX_MODEL_LEN: float("nan")}, "row's max-model-len holds NaN or Infinity"),
    "worker inf": (dict(MULTINODE, **{F.DECODE: {F.NUM_WORKER: 1, F.TP: float("inf")}}),
                   "row's decode.tp holds NaN or Infinity"),
    "conc list inf": (dict(MULTINODE, **{F.CONC: [4, float("-inf")]}), "row's conc[1] holds NaN or Infinity"),
    "worker text": (dict(MULTINODE, **{F.PREFILL: {F.NUM_WORKER: "x", F.TP: 4}}),
                    "row's prefill.num-worker \"x\" is not a whole number"),
    "worker tp null": (dict(MULTINODE, **{F.DECODE: {F.NUM_WORKER: 1, F.TP: None}}),
                       "row's decode.tp null is not a whole number"),
    "worker missing": (dict(MULTINODE, **{F.DECODE: None}), "row's decode null is not an object"),
    # Review (rehearse19): these passed `ci row-env` and `rehearse --row-json` (`hf download None`).
    "model null": ({F.MODEL: None}, "row's model null is not text a job can hand to a shell (letters, digits"),
    "model empty": ({F.MODEL: ""}, "row's model \"\" is not text a job can hand to a shell"),
    "model number": ({F.MODEL: 5}, "row's model 5 is not text"),
    "image null": ({F.IMAGE: None}, "row's image null is not text"),
    "max-model-len absurd": ({F.MAX_MODEL_LEN: 10**12}, "row's max-model-len 1000000000000 is not a whole number "
                             "from 1 to 200000256"),
    "max-model-len zero": ({F.MAX_MODEL_LEN: 0}, "row's max-model-len 0 is not a whole number"),
    "max-model-len negative": ({F.MAX_MODEL_LEN: -5}, "row's max-model-len -5 is not a whole number"),
}


def db_of(tmp: pathlib.Path) -> str:
    return f"sqlite:///{tmp / 'r.db'}"


def run_ids(db: str) -> list[str]:
    with store.open_store(db) as st:
        return sorted(r[R.RUN_ID] for r in st.records())


def bad_row(case: str) -> dict:
    return dict(ROW, **BAD_ROWS[case][0])


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_a_bad_row_file_is_one_line(case, tmp_path, capsys):
    out = write_job(tmp_path, "bare", vllm_output(), None)
    (tmp_path / "row.json").write_text(json.dumps(bad_row(case)))  # NaN as Python's json writes it
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), "--row", str(tmp_path / "row.json"),
                         "--run-id", "7", "--ref", "refs/heads/main", str(out))
    (line,) = err.strip().splitlines()
    # one line: the file's (a one-line file), at the key it names (nu30: the column too)
    assert rc == 1 and re.match(rf"{re.escape(str(tmp_path / 'row.json'))}:1:\d+: ", line) \
        and BAD_ROWS[case][1] in line, err
    assert not (tmp_path / "r.db").exists()


HOLDERS = {  # what holds rows but is not one -> what the one line says
    "test-config list": ([ROW, dict(ROW, conc=8)], "a list of 2 rows (as `sweepgate test-config` prints them), "
                                                   "not one row; pass the one row this output ran"),
    "job sidecar": (job(), "a job sidecar (.job.json), not a row; put it beside its output as OUTPUT.job.json"),
}


@pytest.mark.parametrize("case", sorted(HOLDERS))
def test_a_row_file_that_holds_rows_says_what_it_is(case, tmp_path, capsys):
    """New-user run: `--row` given `sweepgate test-config`'s output (a list) was refused as "row is not a
    JSON object", and a job sidecar as "row has no 'exp-name', ...": both hold the row, and say so."""
    out = write_job(tmp_path, "bare", vllm_output(), None)
    (tmp_path / "row.json").write_text(json.dumps(HOLDERS[case][0]))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), "--row", str(tmp_path / "row.json"),
                         "--run-id", "7", "--ref", "refs/heads/main", str(out))
    (line,) = err.strip().splitlines()
    assert rc == 1 and line.startswith(f"{tmp_path / 'row.json'}:1: {HOLDERS[case][1]}"), err
    assert not (tmp_path / "r.db").exists()


def test_a_one_row_list_is_that_row(tmp_path, capsys):
    """New-user review: `sweepgate test-config` for one concurrency prints a list of one row, and `--row`
    refused it as "a list of 1 row ... not one row", though it can mean no other row: it is stored as
    the row itself is."""
    records = []
    for name, doc in (("list", [ROW]), ("row", ROW)):
        out = write_job(tmp_path / name, "bare", vllm_output(), None)
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
        rc, stdout, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path / name), "--row",
                                  str(tmp_path / f"{name}.json"), "--run-id", "7", "--ref", "refs/heads/main", str(out))
        assert rc == 0 and "ingested 1 results (1 new)" in stdout, err
        with store.open_store(db_of(tmp_path / name)) as st:
            records.append(list(st.records()))
    assert records[0] == records[1] and records[0][0][R.RUN_ID] == "7"


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_a_bad_sidecar_row_is_its_file_s_line_and_the_batch_goes_on(case, tmp_path, capsys):
    write_job(tmp_path / "in", "a", vllm_output(), job(run_id="1"))
    write_job(tmp_path / "in", "b", vllm_output(), job(run_id="2", row=bad_row(case)))
    write_job(tmp_path / "in", "c", vllm_output(mean_ttft_ms=121.0), job(run_id="3"))  # its own bytes (s35a)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path / "in"))
    (line,) = err.strip().splitlines()
    assert rc == 1 and line.startswith(str(tmp_path / "in" / "b.job.json")) and BAD_ROWS[case][1] in line, err
    assert "ingested 2 results (2 new)" in out and run_ids(db_of(tmp_path)) == ["1", "3"]


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_ci_row_env_shares_the_row_check(case):
    with pytest.raises(SweepgateError) as exc:
        check_row(bad_row(case), "ROW")
    assert BAD_ROWS[case][1] in exc.value.diagnostics[0].message


def test_whole_rows_pass_the_check():
    check_row(dict(ROW), "ROW")
    check_row(dict(ROW, **MULTINODE), "ROW")


def test_an_integer_the_store_cannot_hold_is_one_line_and_the_batch_goes_on(tmp_path, capsys):
    """An output's max_concurrency of 2**63 (no row to check it against) or a sidecar's attempt of
    2**63 ended in OverflowError after the files before them were stored, the rest never tried."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name, doc in (("a", vllm_output()), ("b", vllm_output(conc=HUGE)), ("c", vllm_output(conc=8))):
        (folder / f"{name}.json").write_text(json.dumps(doc))
    write_job(tmp_path / "jobs", "d", vllm_output(), job(run_id="4", attempt=HUGE))
    write_job(tmp_path / "jobs", "e", vllm_output(mean_ttft_ms=121.0), job(run_id="5"))  # not a.json's bytes (s35a)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(folder), str(tmp_path / "jobs"))
    lines = no_ref_said(err).strip().splitlines()  # a.json and c.json, with no sidecar, stored on no ref
    assert rc == 1 and len(lines) == 2 and "internal error" not in err, err
    assert lines[0].startswith(f"{folder / 'b.json'}:1:1: conc: {HUGE} is out of range")
    assert lines[1].startswith(f"{tmp_path / 'jobs' / 'd.json'}:1:1: attempt: {HUGE} is out of range")
    assert "ingested 3 results (3 new)" in out


def test_an_absurd_attempt_flag_is_a_usage_error(tmp_path, capsys):
    out = write_job(tmp_path, "bare", vllm_output(), None)
    (tmp_path / "row.json").write_text(json.dumps(ROW))
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), "--row", str(tmp_path / "row.json"),
                "--run-id", "7", "--ref", "refs/heads/main", "--attempt", str(HUGE), str(out))
    assert exc.value.code == 2 and "--attempt" in capsys.readouterr().err

