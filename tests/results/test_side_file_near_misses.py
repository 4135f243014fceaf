"""Review of the eval side files and AIPerf multi-run aggregates (review20): what merely resembles a
file that goes beside a result must never be passed over in silence.

- An InferenceX agentic aggregate whose statistics block is missing has meta_env.json's identity keys
  and none of its measurements: it was refused as an aggregate (ingest the AIPerf export it was built
  from); it read as an eval's side file, "skipped", exit 0 in a folder with results.
- A JSONL file of results with one line that is no result (an AIPerf aggregate or per-request record
  appended to it) was "skipped 1 file ...", exit 0: every result in it lost without a word."""

from __future__ import annotations

import json
import shutil

from helpers import ROOT, SAMPLES, run_cli
from test_aiperf_multi_run import AGGREGATE

AGENTIC = SAMPLES / "inferencex" / "agentic_v3_kimik2.7_fp4_mi355x_tp4_conc1.json"
SGLANG = SAMPLES / "sglang" / "sglang_2024-12_llama3.1-405b_h200x8_online.jsonl"
RECORD = ROOT / "tests/data/results-real/aiperf/aiperf-records_llamacpp_llama3.2-3b-gguf_c1_success_then_timeout_2lines_trimmed.jsonl"


def test_an_agentic_aggregate_without_its_statistics_is_refused_not_skipped_as_an_eval_side_file(tmp_path, capsys):
    folder = tmp_path / "run"
    folder.mkdir()
    doc = json.loads(AGENTIC.read_text(encoding="utf-8"))
    doc.pop("request_metrics")
    (folder / "agentic.json").write_text(json.dumps(doc), encoding="utf-8")
    shutil.copy(SGLANG, folder / "sglang.jsonl")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(folder))
    assert rc == 1 and "agentic.json:1:1: format: an InferenceX agentic aggregate" in err, (out, err)
    assert "skipped" not in out, out


def test_a_jsonl_of_results_with_a_line_that_is_none_is_refused_at_that_line_not_passed_over(tmp_path, capsys):
    lines = SGLANG.read_text(encoding="utf-8").splitlines()
    extras = {"aggregate": json.dumps(AGGREGATE), "record": RECORD.read_text(encoding="utf-8").splitlines()[0]}
    for name, extra in extras.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join([*lines, extra]) + "\n", encoding="utf-8")
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
        assert rc == 1 and "skipped" not in out, (name, out, err)
        (line,) = err.strip().splitlines()
        assert line.startswith(f"{path}:{len(lines) + 1}:1: format: not a result"), (name, line)  # where its object starts
        assert "the file's other lines are results" in line, (name, line)


def test_a_file_of_such_lines_alone_is_still_passed_over(tmp_path, capsys):
    path = tmp_path / "records.jsonl"
    shutil.copy(RECORD, path)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
    assert (rc, err) == (0, "") and out.startswith("skipped 1 file with no result"), (out, err)


def test_a_report_like_document_that_states_a_result_format_or_holds_scores_is_never_passed_over(tmp_path, capsys):
    """An adapter's next result format may keep its native report's keys (verifier, task, model,
    completed) beside its scores: it must read as unknown (exit 1), not as a side file skipped."""
    report = {"verifier": "minimax-provider-verifier", "task": "minimax_m3_smoke", "model": "MiniMaxAI/MiniMax-M3",
              "completed": 40}
    for name, doc in {"v2.json": dict(report, result_format="inferencex-eval-v2"),
                      "scores.json": dict(report, results={"minimax_m3_smoke": {"score,none": 0.9}}),
                      "case.jsonl": {"data_index": 3, "status": "ok", "result_format": "inferencex-eval-v2"}}.items():
        path = tmp_path / name
        path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
        assert rc == 1 and err.count("\n") == 1 and "skipped" not in out, (name, out, err)
