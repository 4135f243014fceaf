"""Property tests of the expansion: schema-valid rows, unique jobs, trim, fingerprints, determinism."""

from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import conftest  # noqa: F401  (puts utils/ on sys.path)
from sweepgate.core import fields as F
from sweepgate.core.check import config_problems, fast_validator, schema_problems, validator
from sweepgate.core.expand import expand_config, fingerprint, finalize, trim_conc

RUNNERS = {
    "labels": {"cluster:b300-nv": ["b300-nv_00"], "cluster:mi355x-amds": ["mi355x-amds_00"]},
    "hardware": {"cluster:b300-nv": {"available-cpu-dram-mib": 2964436, "gpus-per-node": 8},
                 "cluster:mi355x-amds": {"available-cpu-dram-mib": 3095781, "gpus-per-node": 8}},
}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

concs = st.lists(st.integers(1, 512), min_size=1, max_size=5, unique=True)
spec = st.sampled_from(["none", "mtp", "draft_model"])
tp = st.sampled_from([1, 2, 4, 8])


@st.composite
def conc_fields(draw) -> dict:
    if draw(st.booleans()):
        return {F.CONC_LIST: draw(concs)}
    start = draw(st.integers(1, 64))
    return {F.CONC_START: start, F.CONC_END: start * draw(st.integers(1, 16))}


@st.composite
def single_point(draw) -> dict:
    t = draw(tp)
    return {F.TP: t, F.EP: draw(st.sampled_from([1, t])), F.DP_ATTN: draw(st.booleans()),
            F.SPEC_DECODING: draw(spec), **draw(conc_fields())}


@st.composite
def worker(draw) -> dict:
    return {F.NUM_WORKER: draw(st.integers(1, 3)), F.TP: draw(tp), F.EP: draw(st.sampled_from([1, 8])),
            F.DP_ATTN: draw(st.booleans())}


@st.composite
def agentic_point(draw, multinode: bool) -> dict:
    kv = draw(st.sampled_from(["none", "dram"]))
    point = {F.SPEC_DECODING: draw(spec), F.KV_OFFLOADING: kv, F.CONC_LIST: draw(concs)}
    if kv == "dram":
        backend = {"name": draw(st.sampled_from(["lmcache", "vllm-simple", "mooncake"]))}
        if draw(st.booleans()):
            backend["version"] = draw(st.sampled_from(["0.5.4rc2", "1.0.0"]))
        point[F.KV_OFFLOAD_BACKEND] = backend
    if multinode:
        point[F.PREFILL] = draw(worker())
        point[F.DECODE] = draw(worker())
    else:
        point[F.TP] = draw(tp)
    return point


def _distinct(points: list[dict]) -> list[dict]:
    seen, out = set(), []
    for p in points:
        key = json.dumps({k: v for k, v in p.items() if k not in (F.CONC_LIST, F.CONC_START, F.CONC_END)},
                         sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


@st.composite
def configs(draw) -> dict:
    multinode = draw(st.booleans())
    runner = draw(st.sampled_from(["cluster:b300-nv", "cluster:mi355x-amds"]))
    config = {F.IMAGE: "vllm/vllm-openai:v0.11.0", F.MODEL: "org/model", F.MODEL_PREFIX: "m",
              F.RUNNER: runner, F.PRECISION: draw(st.sampled_from(["fp4", "fp8"])), F.FRAMEWORK: "vllm",
              F.MULTINODE: multinode, F.SCENARIOS: {}}
    if multinode:
        config[F.DISAGG] = True
        config[F.KV_P2P_TRANSFER] = "nixl"
    scenarios = config[F.SCENARIOS]
    if draw(st.booleans()):
        seq = []
        for isl, osl in draw(st.lists(st.sampled_from([(1024, 1024), (8192, 1024), (1024, 8192)]),
                                      min_size=1, max_size=2, unique=True)):
            make = st.builds(lambda w1, w2, c, s: {F.PREFILL: w1, F.DECODE: w2, F.SPEC_DECODING: s, **c},
                             worker(), worker(), conc_fields(), spec) if multinode else single_point()
            seq.append({F.ISL: isl, F.OSL: osl, F.SEARCH_SPACE: _distinct(draw(st.lists(make, min_size=1, max_size=3)))})
        scenarios[F.FIXED_SEQ_LEN] = seq
    if draw(st.booleans()) or not scenarios:
        points = _distinct(draw(st.lists(agentic_point(multinode), min_size=1, max_size=3)))
        scenarios[F.AGENTIC_CODING] = [{F.DRAM_UTILIZATION: draw(st.sampled_from([0.5, 0.63, 0.8])),
                                        F.SEARCH_SPACE: points}]
    return config


def rows_of(config: dict) -> list[dict]:
    return list(expand_config("key", copy.deepcopy(config), RUNNERS))


def published(rows: list[dict]) -> list[dict]:
    out = []
    for row in copy.deepcopy(rows):
        row[F.RECIPE_FINGERPRINT] = fingerprint(row)
        out.append(finalize(row))
    return out


@SETTINGS
@given(configs())
def test_generated_configs_pass_the_checks_and_rows_validate_against_the_row_schema(config):
    assert config_problems("key", config) == []
    row_validator = validator("row")
    for row in published(rows_of(config)):
        errors = [e.message for e in row_validator.iter_errors(row)]
        assert errors == [], (row, errors)


@SETTINGS
@given(configs())
def test_every_job_has_a_unique_name(config):
    rows = published(rows_of(config))
    names = [F.result_filename(row, "runner_00") for row in rows]
    assert len(names) == len(set(names))
    # exp-name with the recipe and its concurrency identifies one job
    ids = [(r[F.EXP_NAME], r[F.RECIPE_FINGERPRINT], json.dumps(r[F.CONC])) for r in rows]
    assert len(ids) == len(set(ids))


@SETTINGS
@given(configs())
def test_trim_conc_keeps_exactly_the_lowest_concurrency_of_each_recipe(config):
    """Single-node: one row per recipe, at its lowest concurrency, where it stood. Multi-node (the
    reference's rule): every row stays, in order, its conc list cut to its lowest value."""
    rows = rows_of(config)
    lowest: dict[str, int] = {}
    for row in rows:
        if F.PREFILL not in row:
            lowest[fingerprint(row)] = min(lowest.get(fingerprint(row), row[F.CONC]), row[F.CONC])
    trimmed = trim_conc(copy.deepcopy(rows))
    single = [r for r in trimmed if F.PREFILL not in r]
    assert {fingerprint(r): r[F.CONC] for r in single} == lowest and len(single) == len(lowest)
    multi, trimmed_multi = [r for r in rows if F.PREFILL in r], [r for r in trimmed if F.PREFILL in r]
    assert [fingerprint(r) for r in trimmed_multi] == [fingerprint(r) for r in multi]
    assert [r[F.CONC] for r in trimmed_multi] == [[min(r[F.CONC])] if isinstance(r[F.CONC], list) else r[F.CONC]
                                                  for r in multi]
    assert [r for r in trimmed if r in single] == [r for r in rows if r in single]  # order kept


@SETTINGS
@given(configs(), st.integers(1, 4096), st.text(min_size=1, max_size=20))
def test_fingerprint_ignores_conc_and_exp_name_but_nothing_else(config, conc, name):
    for row in rows_of(config)[:3]:
        fp = fingerprint(row)
        assert fingerprint({**row, F.CONC: conc, F.EXP_NAME: name}) == fp
        assert fingerprint({**row, F.IMAGE: row[F.IMAGE] + "-other"}) != fp
        assert fingerprint({**row, F.RUNNER: "elsewhere"}) != fp


@SETTINGS
@given(configs())
def test_expansion_is_deterministic(config):
    assert json.dumps(published(rows_of(config))) == json.dumps(published(rows_of(config)))


MUTATIONS = [
    lambda c: c.update({"extra-field": 1}),
    lambda c: c.update({F.IMAGE: "img; rm -rf /"}),
    lambda c: c.update({F.MODEL: "$(id)"}),
    lambda c: c.update({F.MULTINODE: "yes"}),
    lambda c: c.pop(F.RUNNER),
    lambda c: c[F.SCENARIOS].update({"other": []}),
    lambda c: c.update({F.ROUTER: {"name": "r"}}),
    lambda c: c.update({F.PRECISION: 8}),
    lambda c: None,
]


@SETTINGS
@given(configs(), st.sampled_from(range(len(MUTATIONS))))
def test_compiled_fast_path_agrees_with_jsonschema(config, which):
    MUTATIONS[which](config)
    data = {"key": config}
    assert fast_validator("master")(data) == (schema_problems(data, "master") == [])
