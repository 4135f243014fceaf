"""s41s: a runner label typo is offered a listed label holding it only as whole parts, named once.

`unknown_runner` offered first any listed label that held the given text anywhere: `runner: x` was asked
`did you mean 'cluster:mi355x-amds'?` and `runner: s` `cluster:b300-nv`. A listed label now comes first only
where the given text is a whole run of its dash/colon-separated parts, of 3 characters or more (`gb300-nv` in
`cluster:gb300-nv`); else the closest-spelt labels are offered, as before. The fix named its first label twice
(`did you mean 'cluster:b300-nv'? Use a listed label (close to it: cluster:b300-nv)`); it now says each once.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.core import plan  # noqa: E402

LABELS = ["b300", "cluster:b300-nv", "cluster:gb300-nv", "cluster:mi355x-amds", "gb300", "h200"]
WHERE = ("configs/nvidia-master.yaml", 5, 3)


def _hint(label: str, labels=LABELS) -> str:
    return plan.unknown_runner(label, labels, WHERE).hint


@pytest.mark.parametrize("given", ["x", "s", "nv", "300", "b300-n"])
def test_text_that_is_not_whole_parts_of_a_listed_label_is_not_offered_it(given):
    hint = _hint(given)
    assert not hint.startswith(("did you mean 'cluster:mi355x-amds'", "did you mean 'cluster:b300-nv'",
                                "did you mean 'cluster:gb300-nv'")), hint


@pytest.mark.parametrize("given, first", [("gb300-nv", "cluster:gb300-nv"), ("mi355x-amds", "cluster:mi355x-amds"),
                                          ("mi355x", "cluster:mi355x-amds")])
def test_whole_parts_of_a_listed_label_offer_it_first(given, first):
    assert _hint(given).startswith(f"did you mean '{first}'"), _hint(given)


def test_the_fix_names_each_label_once():
    hint = _hint("gb300-nv")
    assert hint.startswith("did you mean 'cluster:gb300-nv' (or gb300"), hint
    assert hint.count("cluster:gb300-nv") == 1, hint
    one = _hint("cluster:b300-nvv", ["cluster:b300-nv", "cluster:mi355x-amds"])
    assert one.startswith("did you mean 'cluster:b300-nv'? Use a listed label, or add the runner"), one
    assert one.count("cluster:b300-nv") == 1, one
