"""Review s39b: in_flight_unlike_row (s38w) held a CSV's requests in flight, its request throughput times its
mean request latency, to its row's conc. Both figures are of the completed requests alone, and a request that
failed held its slot for a time no figure of the CSV states: a real conc-1 AIPerf run against llama.cpp whose
10 of 20 requests timed out (the timeouts holding its one slot for most of its 191 s) measures 0.03 in flight,
and was stored with its own row under the warning that its figures are not a conc-1 run's. A run with failed
requests is now held to its row on the side its completed requests bound alone: more in flight than four times
the row's conc (they cannot be fewer than that)."""

from __future__ import annotations

from helpers import ROOT
from test_row_checks_aiperf_s38w import _ingest

TIMEOUTS = ROOT / "tests" / "data" / "results-real" / "aiperf" / "aiperf0.8.0_llamacpp_llama3.2-3b_c1_10of20_timeouts.csv"


def test_a_run_whose_requests_timed_out_is_not_said_to_be_another_rows(tmp_path, capsys, monkeypatch):
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, TIMEOUTS, isl=10, osl=16, conc=1)
    assert rc == 0 and "in flight" not in err, err


CONNREFUSED = TIMEOUTS.with_name("aiperf0.8.0_smoke_mock_c100k_500kreq_18586_connrefused_sum_column.csv")


def test_a_run_with_failed_requests_still_warns_of_a_row_far_under_its_in_flight(tmp_path, capsys, monkeypatch):
    """The completed requests' own in-flight figure is the least the run held: a row's conc four times under it
    is still no row of this run (a real conc-100000 run whose 18,586 of 500,000 requests were refused)."""
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, CONNREFUSED, isl=128, osl=128, conc=4096)
    assert rc == 0 and "averaged 60473 in flight" in err and "says conc 4096;" in err, err
    (own := tmp_path / "own").mkdir()
    rc, out, err, db = _ingest(own, capsys, monkeypatch, CONNREFUSED, isl=128, osl=128, conc=100000)
    assert rc == 0 and "in flight" not in err, err
