"""s32b: results behaviours the last closing note left alone.

- A re-ingest of an output stored before said its warnings again, though it stored nothing: they are said when
  its results are first stored, and counted on one line after (``--verbose`` says them again). A grown JSONL's
  new lines are warned of, its old ones not. A job whose output is missing is warned of on every ingest: that
  is of the files at hand, not of a stored measurement.
- An output that is valid JSON holding nothing (``[]``, ``{}``, a list of ``{}``, JSONL lines of ``{}``) read
  "unknown JSON output", as if it were another tool's: it is refused as holding no results (exit 1), and beside
  its job's sidecar it is the job's failure, as an empty file is.
- A JSONL that grows (SGLang's bench_serving, `vllm bench serve --append-result`) changed its content-hash run
  id with each line, so its later lines landed in a run apart from its first ones: they are stored under the run
  its first ingest gave it, and a file stored under its own hash before keeps that run.

The outputs are the real samples (tests/data/results-samples), lines of them, or lines of them scaled.
"""

from __future__ import annotations

import json

import pytest
from helpers import SAMPLES, SGLANG_RUNS, job, no_ref_said, run_cli, show_json, vllm_output, write_job

from sweepgate.results import ingest, store

SHORT = SAMPLES / "sglang" / "sglang0.5.9_glm5_over_context_short_outputs_c1_trimmed.jsonl"
NOT_REPEATED = "not repeated: 1 warning of a file whose results were stored before (said when they were first stored"


def _ingest(capsys, db: str, *argv, bare: bool = False) -> tuple[int, list[str], list[str]]:
    """(exit code, stdout's lines, stderr's lines) of `results ingest`; ``bare``: of outputs with no sidecar and no
    --row, stderr's lines but the one that says the results it stored new are on no ref."""
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *argv)
    return rc, out.splitlines(), (no_ref_said(err, out, "--verbose" in argv) if bare else err).splitlines()


def _scaled(line: str, scale: float) -> str:
    """Another run of the same setup: ``line``'s figures times ``scale``."""
    doc = json.loads(line)
    doc.update({k: v * scale for k, v in doc.items() if isinstance(v, float) and ("throughput" in k or k == "duration")})
    return json.dumps(doc)


def test_a_reingest_of_a_stored_output_does_not_say_its_warnings_again(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = _ingest(capsys, db, str(SHORT), bare=True)
    assert rc == 0 and len(err) == 1 and "warning: random_output_len:" in err[0], err
    rc, out, again = _ingest(capsys, db, str(SHORT), bare=True)
    assert rc == 0 and again == [], again  # was the same warning, said again
    assert out[0] == ("not repeated: 2 warnings of a file whose results were stored before (said when they were "
                      "first stored; --verbose repeats them)") and out[-1].startswith(
        "ingested 1 results (0 new)"), out  # its own and that it is on no ref (s48a)
    rc, out, verbose = _ingest(capsys, db, "--verbose", str(SHORT), bare=True)
    assert rc == 0 and verbose == err and not any(line.startswith("not repeated") for line in out), (out, verbose)


def test_a_grown_jsonl_warns_of_its_new_lines_only(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    first = SHORT.read_text(encoding="utf-8")
    grown = tmp_path / "bench.jsonl"
    grown.write_text(first, encoding="utf-8")
    assert _ingest(capsys, db, str(grown), bare=True)[0] == 0
    grown.write_text(first + _scaled(first, 1.01) + "\n", encoding="utf-8")
    rc, out, err = _ingest(capsys, db, str(grown), bare=True)
    assert rc == 0 and len(err) == 1 and err[0].startswith(f"{grown}:2:") and "random_output_len" in err[0], err
    assert any(line.startswith(NOT_REPEATED) for line in out) and " results (1 new) " in out[-1], out


def test_a_job_that_left_no_output_is_warned_of_on_every_ingest(tmp_path, capsys):
    """Its warning is of the files ingested (the output is not among them), not of what was stored."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "res", "job1", None, job())
    for _ in range(2):
        rc, out, err = _ingest(capsys, db, str(tmp_path / "res"))
        assert rc == 0 and len(err) == 1 and "left no result file" in err[0], err
        assert not any(line.startswith("not repeated") for line in out), out


EMPTY = [("[]", "an empty JSON list ([])"), ("{}", "an empty JSON object ({})"),
         ("[{}, {}]", "a JSON list of 2 empty objects"), ("{}\n{}\n", "2 lines of empty JSON objects ({})")]


@pytest.mark.parametrize(("text", "what"), EMPTY)
def test_an_output_of_empty_json_is_refused_as_holding_no_results(tmp_path, capsys, text, what):
    out_file = tmp_path / "requests.jsonl"
    out_file.write_text(text, encoding="utf-8")
    rc, out, err = _ingest(capsys, f"sqlite:///{tmp_path / 'r.db'}", str(out_file))
    assert rc == 1 and len(err) == 1, err
    assert err[0].startswith(f"{out_file}:1:1: format: {what}: the file holds no results (a result is "), err
    assert "unknown JSON output" not in err[0] and not (tmp_path / "r.db").exists()


def test_an_empty_list_a_job_left_as_its_output_is_the_jobs_failure(tmp_path, capsys):
    """As an empty file or a lone null is: the job is stored as failed, and the sweep's other jobs are stored."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "res", "job1", "[]", job())
    write_job(tmp_path / "res", "job2", vllm_output(), job())
    rc, out, err = _ingest(capsys, db, str(tmp_path / "res"))
    assert rc == 0 and len(err) == 1 and "an empty JSON list ([]): the file holds no results" in err[0], err
    assert "the job is stored as failure" in err[0]
    with store.open_store(db) as st:
        stored = st.run_results("1001")
    assert sorted((r["result-filename"], r["status"]) for r in stored) == [("job1", "failure"), ("job2", "success")]


def _lines() -> list[str]:
    return SGLANG_RUNS.read_text(encoding="utf-8").splitlines(keepends=True)


def test_a_grown_jsonl_keeps_the_run_its_first_ingest_gave_it(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    grown = tmp_path / "bench.jsonl"
    lines = _lines()
    for n in (2, 5, 7):
        grown.write_text("".join(lines[:n]), encoding="utf-8")
        rc, out, err = _ingest(capsys, db, str(grown), bare=True)
        assert rc == 0 and err == [], err
    assert out == ["ingested 7 results (2 new) into " + out[-1].split(" into ", 1)[1]], out
    stored = show_json(capsys, db)
    assert sorted(r["result-filename"] for r in stored) == [f"bench.jsonl#{n}" for n in range(1, 8)]
    assert {r["run-id"] for r in stored} == {ingest.sidecar.local_run_id(ingest.Read("".join(lines[:2]).encode()).digest)}


def test_an_appended_vllm_jsonl_and_a_one_line_file_grown_are_one_run(tmp_path, capsys):
    """`vllm bench serve --append-result` writes the newline before each run, none after the last; a file of one
    line is stored whole (no ``#1``), and its line is not stored again when the file has grown."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    runs = [line.rstrip("\n") for line in _lines()[:3]]
    grown = tmp_path / "vllm.jsonl"
    grown.write_text(runs[0], encoding="utf-8")
    assert _ingest(capsys, db, "--jsonl", str(tmp_path / "all.jsonl"), str(grown), bare=True)[0] == 0
    grown.write_text("\n".join(runs), encoding="utf-8")
    rc, out, err = _ingest(capsys, db, "--jsonl", str(tmp_path / "all.jsonl"), str(grown), bare=True)
    assert rc == 0 and err == [] and out[-1].startswith("ingested 3 results (2 new)"), (out, err)
    stored = show_json(capsys, db)
    assert sorted(r["result-filename"] for r in stored) == ["vllm.jsonl", "vllm.jsonl#2", "vllm.jsonl#3"]
    assert len({r["run-id"] for r in stored}) == 1
    assert len((tmp_path / "all.jsonl").read_text(encoding="utf-8").splitlines()) == 3


def test_a_grown_file_stored_under_its_own_hash_before_keeps_its_run(tmp_path, capsys):
    """Stored before this version (its new lines under the grown file's own hash), it is stored as it was."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    grown = tmp_path / "bench.jsonl"
    lines = _lines()
    grown.write_text("".join(lines[:4]), encoding="utf-8")
    assert _ingest(capsys, db, str(grown), bare=True)[0] == 0
    grown.write_text("".join(lines), encoding="utf-8")
    with store.open_store(db) as st:  # as the version before stored it: no earlier runs looked for
        assert st.add(ingest.records_of(grown), sole=True) == 3
    before = show_json(capsys, db)
    rc, out, err = _ingest(capsys, db, str(grown), bare=True)
    assert rc == 0 and err == [] and out[-1].startswith("ingested 3 results (0 new)"), (out, err)
    assert out[0].startswith("skipped 4 runs of files of several runs")  # its first 4 lines, in the other run
    assert show_json(capsys, db) == before and len({r["run-id"] for r in before}) == 2


def test_ingest_help_says_verbose_repeats_the_warnings_said_before(capsys):
    """s32i: --verbose also says again the warnings of results stored before (a210f53), the one way to see
    them after their first ingest, but `results ingest --help` named only the files it lists."""
    with pytest.raises(SystemExit):
        run_cli(capsys, "results", "ingest", "--help")
    said = " ".join(capsys.readouterr().out.split())
    verbose = said[said.index("-v, --verbose"):]
    assert "warnings of results stored before" in verbose, verbose
