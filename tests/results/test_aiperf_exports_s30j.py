"""s30j: what AIPerf 0.12 and 0.13 changed in profile_export_aiperf.json, read right.

Each export here is a real AIPerf 0.11 export (tests/data/results-real/SOURCES.tsv) made into what a later
version writes for the same run, as that version's released sources say (the wheels' aiperf/..., the same
files under src/aiperf/ in ai-dynamo/aiperf); the values changed are our own."""

from __future__ import annotations

import copy
import json

import pytest

from helpers import ROOT, no_ref_said, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real"
RUN = json.loads((REAL / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16_trimmed.json").read_text(encoding="utf-8"))
# 0.13.0's aiperf/records/records_manager.py: what its record-stall watchdog says when it finalizes a run
# whose records stopped coming after every request was sent
STALLED = ("Record aggregation stalled at 1,870 of 2,143 records for 60s after all credits completed; "
           "finalized with the records received so far")


def _ingested(capsys, tmp_path, doc: dict) -> tuple[str, str, list[dict]]:
    path = tmp_path / "profile_export_aiperf.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert rc == 0, err
    return str(path), no_ref_said(err), show_json(capsys, db)  # stderr but its no-ref line (no sidecar, no --row)


def test_an_aiperf_0_13_run_that_did_not_finish_is_stored_as_failed_with_its_reason(tmp_path, capsys):
    """0.13 states ``is_complete: false`` and why (common/models/export_models.py: "so tooling can reject
    the artifact instead of comparing it against complete runs") when its watchdog finalized a run with
    the records it had: its throughputs are a fraction of the run's. It was stored as a success, a
    regression of the point for compare to flag, or a baseline to judge the next run against."""
    doc = copy.deepcopy(RUN)
    doc.update(schema_version="1.4", aiperf_version="0.13.0", is_complete=False, incomplete_reason=STALLED)
    path, err, (rec,) = _ingested(capsys, tmp_path, doc)
    assert rec["status"] == "failure"
    line = json.dumps(doc, indent=2).splitlines().index('  "is_complete": false,') + 1  # at its key, as refusals are
    assert err.splitlines() == [
        f"{path}:{line}:3: warning: is_complete: false ({STALLED}): AIPerf finished the run without all its records, "
        "so its figures are of a part of it; stored as failed; check the run's log (workers that sent no records) "
        "and rerun the point"]


def test_an_aiperf_0_13_run_that_finished_is_stored_as_it_was(tmp_path, capsys):
    doc = copy.deepcopy(RUN)
    doc.update(schema_version="1.4", aiperf_version="0.13.0", is_complete=True)
    _, err, (rec,) = _ingested(capsys, tmp_path, doc)
    assert (rec["status"], err) == ("success", "")
    assert rec["metrics"]["output_throughput"] == RUN["output_token_throughput"]["avg"]


def _synthetic(isl: dict, osl: dict) -> dict:
    """The run's export as AIPerf 0.11 writes it for a synthetic dataset whose lengths a config file gave
    (config/config.py's one-entry ``datasets``; config/distributions.py's distributions, dumped as models)."""
    doc = copy.deepcopy(RUN)
    doc["input_config"]["datasets"] = [{"name": "main", "type": "synthetic", "entries": 100,
                                        "prompts": {"isl": isl, "osl": osl}}]
    return doc


# config/distributions.py: `isl: 1024` in a config file is a FixedDistribution, dumped as {"value": 1024.0};
# {mean, median} a LogNormalDistribution (a spread unless the two are equal); {mean} alone or {mean, stddev}
# a NormalDistribution (the command line's --isl/--isl-stddev); min/max clamp any of them
LENGTHS = {
    "fixed": ({"value": 1024.0}, {"value": 128.0}, (1024, 128)),
    "fixed, clamped": ({"value": 4096.0, "max": 2048.0}, {"value": 64.0, "min": 128.0}, (2048, 128)),
    "log-normal": ({"mean": 1024.0, "median": 800.0}, {"mean": 128.0, "median": 128.0}, (None, 128)),
    "normal": ({"mean": 1024.0}, {"mean": 128.0, "stddev": 16.0}, (1024, None)),
    "multimodal, empirical": ({"peaks": [{"mean": 512.0, "weight": 60}, {"mean": 2048.0, "weight": 40}]},
                              {"points": [{"value": 128.0, "weight": 1}]}, (None, None)),
}


@pytest.mark.parametrize("case", sorted(LENGTHS))
def test_the_lengths_an_aiperf_synthetic_dataset_fixed_are_read_from_each_distribution(case, tmp_path, capsys):
    """A fixed length ({"value": N}) was not read, so a run of another length than its row's was not
    refused; a log-normal one was read as fixed at its mean, so a spread of lengths was filed under one."""
    isl, osl, want = LENGTHS[case]
    _, err, (rec,) = _ingested(capsys, tmp_path, _synthetic(isl, osl))
    assert (rec["isl"], rec["osl"]) == want, err
