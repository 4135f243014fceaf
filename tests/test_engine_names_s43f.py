"""s43f: the engines sweepgate keeps manifests of are named in one table (engines/names.py).

capture.ENGINES (what `engines capture` builds), manifest.DISTRIBUTIONS (which engine a job's pip pin sets)
and preflight.engine_call (which recorded call a manifest checks) each spelt the six engines, their
distributions and commands; they are read from one table now, with the same answers.
"""

from __future__ import annotations

import pytest

from sweepgate.engines import manifest
from sweepgate.engines.capture import ENGINES as CAPTURED
from sweepgate.engines.names import ENGINES
from sweepgate.engines.preflight import engine_call

CALLS = [("vllm", ["serve", "m"], ("vllm", ["m"])), ("vllm", ["bench", "serve", "--x"], ("vllm-bench", ["--x"])),
         ("vllm", ["bench", "latency"], None), ("lmcache", ["server", "--p"], ("lmcache", ["--p"])),
         ("lmcache", ["other"], None), ("mooncake_master", ["--a"], ("mooncake", ["--a"])),
         ("aiperf", ["profile", "-m"], ("aiperf", ["-m"])), ("aiperf", ["plot"], None),
         ("lm_eval", ["--model"], ("lm-eval", ["--model"])), ("lm-eval", ["--tasks"], ("lm-eval", ["--tasks"])),
         ("pip", ["install"], None), (None, [], None)]


@pytest.mark.parametrize("tool, argv, expected", CALLS)
def test_a_recorded_call_is_checked_by_the_engine_its_command_names(tool, argv, expected):
    assert engine_call({"tool": tool, "argv": argv}) == expected


def test_every_engine_is_captured_and_its_command_is_its_call():
    assert set(CAPTURED) == set(ENGINES)
    for engine, (dist, command) in ENGINES.items():
        assert CAPTURED[engine][:2] == (dist, command)
        program, *words = command.split()
        assert engine_call({"tool": program, "argv": [*words, "--flag"]}) == (engine, ["--flag"])


@pytest.mark.parametrize("dist, engine", [("lmcache", "lmcache"), ("LMCache", "lmcache"), ("aiperf", "aiperf"),
                                          ("mooncake-transfer-engine", "mooncake"),
                                          ("mooncake-transfer-engine-non-cuda", "mooncake"),
                                          ("lm_eval", "lm-eval"), ("lm-eval", "lm-eval"),
                                          ("vllm", None), ("torch", None)])
def test_a_pip_pin_sets_the_engine_of_its_distribution(dist, engine):
    """vllm provides two engines (serve and bench serve): its pin is left to the image's entry, as before."""
    assert manifest.pinned_engine(dist) == engine
    assert manifest.pins_in(["install", f"{dist}==1.2.3"]) == ({engine: "1.2.3"} if engine else {})
