"""s39v, review of s39k's job names: a job's name (`fixed-seq-len <name> (<runner>)` in the Actions UI) added only
tp/pp/dcp/pcp/ep/dpa/spec to tell apart rows of one exp-name on one runner label. InferenceX's exp-names hold the
model prefix and sequence lengths alone (`dsr1_8k1k`), so an fp4 and an fp8 config of one model on one runner pool
(or an sglang and a vllm one) at the same tp and conc were two jobs of one name, and so were two multi-node rows
whose workers differ (their parallelism is in prefill/decode, not at the row's top). Now no two jobs of a kind on
one runner label share a name."""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_fanout import chunks_of, fixed_row, matrix, multinode_row  # noqa: E402

from sweepgate.workflow import fanout  # noqa: E402


def _names(m: dict) -> list[tuple[str, str, str]]:
    outputs = fanout.split(m)
    return [(kind, ref["runner"], ref["name"]) for kind in fanout.FANOUT for chunk in chunks_of(outputs, kind)
            for ref in chunk]


def _dups(names):
    return [name for name, n in collections.Counter(names).items() if n > 1]


def test_two_precisions_or_engines_of_one_model_on_one_runner_are_two_names():
    base = {**fixed_row(0, "cluster:b200-nv"), "exp-name": "dsr1_8k1k", "conc": 4, "tp": 8}
    rows = [{**base, "precision": "fp4"}, {**base, "precision": "fp8"},
            {**base, "precision": "fp8", "framework": "vllm"}]
    names = _names({**matrix(), "single_node": {"8k1k": rows}})
    assert len(names) == 3 and not _dups(names), names



def test_multinode_rows_that_differ_in_their_workers_are_two_names():
    one, two = multinode_row(0), multinode_row(0)
    two["decode"] = {**two["decode"], "tp": 16, "num-worker": 1}
    m = {**matrix(), "multi_node": {"8k1k": [one, two]}}
    names = _names(m)
    assert len(names) == 2 and not _dups(names), names


def test_rows_that_differ_in_nothing_a_name_says_still_get_two_names():
    """Rows of one exp-name, runner, tp and conc that differ elsewhere only (an image under test beside the old)."""
    base = {**fixed_row(0, "cluster:b200-nv"), "exp-name": "dsr1_8k1k", "conc": 4}
    rows = [{**base, "image": "lmsysorg/sglang:v0.5.5"}, {**base, "image": "lmsysorg/sglang:v0.5.6"}]
    names = _names({**matrix(), "single_node": {"8k1k": rows}})
    assert len(names) == 2 and not _dups(names), names
