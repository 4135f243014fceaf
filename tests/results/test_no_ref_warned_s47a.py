"""s47a: outputs ingested with no sidecar and no --row are stored on no ref (a content-hash run), which no baseline
of `results compare` takes and no PR's run is matched to; the ingest said nothing of it (exit 0, empty stderr), so a
maintainer who forgot the sidecar lost the run's value without a word. It now says so in one warning line on stderr
(an annotation under GitHub Actions), counting the results and naming the fix; exit 0, or 3 with --fail-on-no-ref.
An ingest whose outputs have a ref (--row, or a sidecar) says nothing of it, nor does one that stores nothing new.
Real files, real SQLite, the command in-process."""

from __future__ import annotations

import json
import shutil

from helpers import NO_REF_LINE, ROW, SAMPLES, job, run_cli, show_json, vllm_output, write_job

JSONL = SAMPLES / "sglang" / "sglang0.5.5_qwen2.5-3b_1gpu_in128_out128_c8.jsonl"
FIX = "pass --row FILE --run-id ID --ref REF (docs/contracts.md §8)"  # the why and each fix in full: there (s51c)


def _ingest(capsys, tmp_path, *argv):
    return run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", *map(str, argv))


def _lines(path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def test_an_output_stored_on_no_ref_is_said_in_one_warning_line(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    out = tmp_path / JSONL.name
    shutil.copy(JSONL, out)
    rc, stdout, err = _ingest(capsys, tmp_path, out)
    n = _lines(JSONL)
    assert rc == 0 and stdout.splitlines()[-1].startswith(f"ingested {n} results ({n} new)"), (stdout, err)
    assert err.splitlines() == [
        f"{out}: warning: {n} result{'s' if n > 1 else ''} stored on no ref (no .job.json); {FIX}"], err
    assert NO_REF_LINE.fullmatch(err)  # the tests' helper knows the line
    assert {r["ref"] for r in show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}")} == {None}  # stored as before


def test_several_outputs_on_no_ref_are_one_line_at_the_first(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    for conc in (4, 8, 16):
        (runs / f"c{conc}.json").write_text(json.dumps(vllm_output(conc)), encoding="utf-8")
    rc, _, err = _ingest(capsys, tmp_path, runs)
    assert rc == 0 and err.splitlines() == [
        f"{runs / 'c16.json'}: warning: 3 results of 3 outputs stored on no ref (no .job.json); {FIX}"], err


def test_under_github_actions_it_is_a_warning_annotation_too(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    (tmp_path / "c4.json").write_text(json.dumps(vllm_output(4)), encoding="utf-8")
    rc, _, err = _ingest(capsys, tmp_path, "c4.json")
    line, annotation = err.splitlines()
    assert rc == 0 and line.startswith("c4.json: warning: 1 result stored on no ref ("), err
    assert annotation == "::warning file=c4.json::" + line.removeprefix("c4.json: warning: "), err


def test_fail_on_no_ref_exits_3_with_the_results_stored(tmp_path, capsys):
    (tmp_path / "c4.json").write_text(json.dumps(vllm_output(4)), encoding="utf-8")
    rc, stdout, err = _ingest(capsys, tmp_path, "--fail-on-no-ref", tmp_path / "c4.json")
    assert rc == 3 and "ingested 1 results (1 new)" in stdout and NO_REF_LINE.fullmatch(err), (stdout, err)
    assert len(show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}")) == 1
    rc, stdout, err = _ingest(capsys, tmp_path, "--fail-on-no-ref", tmp_path / "c4.json")  # nothing stored now
    assert (rc, err) == (0, "") and "(0 new)" in stdout, (stdout, err)


def test_outputs_with_a_ref_say_nothing_of_it(tmp_path, capsys):
    (tmp_path / "row.json").write_text(json.dumps(ROW), encoding="utf-8")
    (tmp_path / "c4.json").write_text(json.dumps(vllm_output(4)), encoding="utf-8")
    rc, stdout, err = _ingest(capsys, tmp_path, "--fail-on-no-ref", "--row", tmp_path / "row.json", "--run-id", "7",
                              "--ref", "refs/heads/main", tmp_path / "c4.json")
    assert (rc, err) == (0, "") and "(1 new)" in stdout, (stdout, err)
    write_job(tmp_path / "job", "res", vllm_output(8), job(run_id="8", row=dict(ROW, conc=8)))
    rc, stdout, err = _ingest(capsys, tmp_path, "--fail-on-no-ref", tmp_path / "job")
    assert (rc, err) == (0, "") and "(1 new)" in stdout, (stdout, err)


def test_an_output_ingested_again_stores_and_says_nothing(tmp_path, capsys):
    (tmp_path / "c4.json").write_text(json.dumps(vllm_output(4)), encoding="utf-8")
    rc, _, err = _ingest(capsys, tmp_path, tmp_path / "c4.json")
    assert rc == 0 and NO_REF_LINE.fullmatch(err), err
    rc, stdout, err = _ingest(capsys, tmp_path, tmp_path / "c4.json")
    assert (rc, err) == (0, "") and "ingested 1 results (0 new)" in stdout, (stdout, err)
