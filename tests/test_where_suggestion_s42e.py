"""s42e: rows of one exp-name told apart by --where are offered the field that is shortest to say.

`rehearse --exp-name dsr1_1k1k --conc 4` on the example fleet (a B300 and an MI355X config share the exp-name)
was told `choose one with --where image=rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103`: the first field the rows differ
in, in row order, where `--where runner=cluster:b300-nv` says the same choice in the words the user picks rows by
(README's own `--where runner=...`). The fix names the differing field whose values are the shortest to write
(a runner label before its image, tp before max-model-len); fields as short keep row order (tp before ep).
"""

from __future__ import annotations

import pytest
from test_rehearse import FSL_ROWS

from sweepgate.core.errors import SweepgateError
from sweepgate.rehearsal import runner

B300 = {**FSL_ROWS[0], "image": "vllm/vllm-openai:v0.11.0", "runner": "cluster:b300-nv"}
MI355X = {**FSL_ROWS[0], "image": "rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103", "runner": "cluster:mi355x-amds"}


def _hint(rows: list[dict]) -> str:
    with pytest.raises(SweepgateError) as info:
        runner.select_row(rows, "rows.json", "dsr1_1k1k", FSL_ROWS[0]["conc"])
    return info.value.diagnostics[0].hint


def test_a_runner_label_is_offered_before_its_image():
    assert _hint([MI355X, B300]) == "choose one with --where runner=cluster:b300-nv"
    row = runner.select_row([MI355X, B300], "rows.json", "dsr1_1k1k", FSL_ROWS[0]["conc"], ["runner=cluster:b300-nv"])
    assert row["image"] == B300["image"]  # the choice it offers is the one it takes


def _first(name: str, value, **rest) -> dict:
    """B300's row with ``name`` its first field (the order `_differing` reads fields in), ``rest`` set."""
    return {name: value, **{k: v for k, v in B300.items() if k != name}, **rest}


def test_the_shortest_field_is_offered_and_ties_keep_row_order():
    assert _hint([_first("max-model-len", 2304, tp=4), _first("max-model-len", 4352, tp=8)]) == \
        "choose one with --where tp=4"
    assert _hint([{**B300, "tp": 4, "ep": 1}, {**B300, "tp": 8, "ep": 4}]) == "choose one with --where tp=4"
