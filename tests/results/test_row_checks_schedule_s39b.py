"""Review s39b: in_flight_unlike_row (s38w) holds an export that states no concurrency and no request rate
to its row's conc by the requests it held in flight. A real AIPerf 0.10 export of a trace replayed on its
own timestamps (``phases: [{type: fixed_schedule}]``: no concurrency, no rate; the trace's arrivals set what
is in flight, 144 on average here) was said, under any row, to be not that row's conc, its hint naming
`test-config --conc` though no conc is this run's. A run that states a fixed schedule (AIPerf 0.10+'s
phase type, earlier AIPerf's ``input.fixed_schedule``) is no more held to a conc than a rate's run."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT
from test_row_checks_aiperf_s38w import _ingest

TRACE = ROOT / "tests" / "data" / "results-real" / "aiperf" / "aiperf0.10_schema1.3_fixed_schedule_mooncake_trace_trimmed.json"


@pytest.mark.parametrize("conc", [1, 16, 512])
def test_a_trace_replayed_on_its_schedule_is_held_to_no_conc(tmp_path, capsys, monkeypatch, conc):
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, TRACE, isl=9283, osl=128, conc=conc)
    assert rc == 0 and "in flight" not in err, err


def test_an_earlier_aiperf_s_fixed_schedule_is_read_too(tmp_path, capsys, monkeypatch):
    """AIPerf before 0.10 kept the switch in input_config.input (``--fixed-schedule``)."""
    doc = json.loads(TRACE.read_text())
    doc["input_config"].pop("phases")
    doc["input_config"]["input"] = {"fixed_schedule": True, "file": "trace.jsonl"}
    (output := tmp_path / "profile_export_aiperf.json").write_text(json.dumps(doc, indent=2))
    (own := tmp_path / "own").mkdir()
    rc, out, err, db = _ingest(own, capsys, monkeypatch, output, isl=9283, osl=128, conc=1)
    assert rc == 0 and "in flight" not in err, err
    doc["input_config"]["input"]["fixed_schedule"] = False  # a run of no stated load: held to the row, as before
    output.write_text(json.dumps(doc, indent=2))
    (other := tmp_path / "other").mkdir()
    rc, out, err, db = _ingest(other, capsys, monkeypatch, output, isl=9283, osl=128, conc=1)
    assert rc == 0 and "averaged 144 in flight" in err, err
