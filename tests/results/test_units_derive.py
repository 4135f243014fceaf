"""Units (one conversion to ms) and the derived values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import ROW  # noqa: F401
from sweepgate.results import derive, units
from sweepgate.results import record as R

PER_MS = {"ns": 1e6, "us": 1e3, "ms": 1.0, "s": 1e-3, "sec": 1e-3}


@given(st.floats(min_value=0, max_value=1e9, allow_nan=False), st.sampled_from(sorted(PER_MS)))
def test_units_round_trip(ms, unit):
    assert units.to_ms(ms * PER_MS[unit], unit) == pytest.approx(ms, rel=1e-12, abs=1e-12)


def test_unknown_unit_is_named():
    with pytest.raises(ValueError, match="'minutes'"):
        units.to_ms(1, "minutes")
    assert units.to_ms(None, "ms") is None


def test_gpus_single_and_multi_node():
    assert derive.gpus({"tp": 4, "pp": 2, "pcp-size": 2}) == 16
    multi = {"prefill": {"num-worker": 2, "tp": 4, "pp": 1, "pcp-size": 1},
             "decode": {"num-worker": 1, "tp": 8, "pp": 1, "pcp-size": 1}}
    assert derive.gpus(multi) == 16
    assert derive.topology(multi).startswith("p2x(tp4-") and "_d1x(tp8-" in derive.topology(multi)
    assert derive.gpus(None) is None


def test_derived_metrics():
    m = {R.OUTPUT_THROUGHPUT: 800.0, R.TOTAL_TOKEN_THROUGHPUT: 1600.0, R.COMPLETED: 9, R.FAILED: 1,
         "tpot_p50_ms": 20.0, R.TOTAL_OUTPUT_TOKENS: 1000}
    out = derive.add_derived(m, 8, energy_j=500.0)
    assert out[R.OUTPUT_TPUT_PER_GPU] == 100 and out[R.TPUT_PER_GPU] == 200 and out[R.INPUT_TPUT_PER_GPU] == 100
    assert out[R.INTERACTIVITY] == 50 and out[R.SUCCESS_RATE] == 0.9
    assert out[R.ENERGY_PER_OUTPUT_TOKEN_J] == 0.5
    assert derive.success_rate({R.COMPLETED: 0, R.FAILED: 0}) == 0.0
    assert derive.is_failed_run({R.COMPLETED: 0, R.OUTPUT_THROUGHPUT: 0.0}, [])
    assert not derive.is_failed_run(m, [])
    assert derive.hardware("cluster:mi355x-amds") == "mi355x" and derive.hardware("b300-nv_01") == "b300"


def test_schema_names_match_record():
    import json

    from sweepgate.core.schemas import schema_bytes

    schema = json.loads(schema_bytes("result"))
    metrics = set(schema["properties"][R.METRICS]["properties"])
    assert set(R.LATENCY_METRICS) <= metrics and set(R.DIRECTION) <= metrics
    assert set(R.POINT_IDENTITY) <= set(schema["properties"])


def test_derived_metrics_names_every_value_add_derived_computes():
    from sweepgate.results import derive
    from sweepgate.results import record as R

    assert set(derive.add_derived({}, 8)) == set(R.DERIVED_METRICS)


def test_a_run_of_one_token_per_request_has_no_per_token_latency_whatever_its_client_wrote():
    """Hunt 14: TPOT and ITL do not exist where each completed request produced one token; a client's
    figure there (0, or an export's rounding) is dropped, TTFT and E2EL kept; two tokens a request keep it."""
    m = {R.COMPLETED: 10, R.TOTAL_OUTPUT_TOKENS: 10, "tpot_p50_ms": 0.01, "itl_mean_ms": 0.02, "ttft_p50_ms": 5.0,
         "e2el_p50_ms": 5.0}
    assert derive.measured(m) == {R.COMPLETED: 10, R.TOTAL_OUTPUT_TOKENS: 10, "ttft_p50_ms": 5.0, "e2el_p50_ms": 5.0}
    assert derive.measured({**m, R.TOTAL_OUTPUT_TOKENS: 20}) == {**m, R.TOTAL_OUTPUT_TOKENS: 20}
