"""A recipe as a person reads it: the one short form the compare table, the PR comment, `results
show` and the charts' legends all print. The stored record and every ``--json`` keep the whole
topology (``tp8-pp1-dcp1-pcp1-ep1-dpafalse``); a label drops only the parts at their defaults, so two
recipes that differ anywhere still read apart (``tp8`` and ``tp8-pp2``)."""

from __future__ import annotations

import re

from sweepgate.core import fields as F
from sweepgate.results import record as R

# One worker's parallelism as derive.topology writes it, and what of it is left out of a label:
# a parallel size at its default and dp-attention off (on reads "dpa").
_WORKER = r"tp\d+-pp\d+-dcp\d+-pcp\d+-ep\d+-dpa(?:true|false)"
WHOLE_TOPOLOGY = re.compile(rf"{_WORKER}|p\d+x\({_WORKER}\)_d\d+x\({_WORKER}\)")
DEFAULT_PARTS = re.compile(rf"-(?:pp|dcp|pcp|ep){F.DEFAULT_PARALLEL}(?=[-)]|$)|-dpafalse")
DPA_ON = ("-dpatrue", "-dpa")
# What a label says of a recipe part that is not set (a chart's legend names it when its series
# differ there; a table's label leaves it out).
ABSENT = ("topology unknown", "no spec decoding", "no KV offload")
NOT_SET = (None, "", "none")
# A chart legend's name of a recipe stored without a config key (``--row`` without ``--config-key``): it read "None".
NO_CONFIG_KEY = "(no config key)"
# A point with no config key whose output names no model either, in compare's tables and `results show`'s model
# column (review s35b: such a point, ingested without its matrix row, read "conc 4" in the table and the PR
# comment, nothing saying what ran; C.rowless_note says why; new user s37d: a blank cell read as the line above's).
NO_KEY_OR_MODEL = "(no config key or model)"
# Above every table of figures measured against a stand-in server (compare's, `results show`'s).
REHEARSAL_NOTE = ("REHEARSAL: these figures come from the stand-in server of `sweepgate rehearse`, "
                  "not from a GPU; they test the pipeline, not performance.")
# A run cell of a result stored from a run cancelled before it finished (record.RUN_CANCELLED), and the line
# above `results show`'s table that says what that means.
CANCELLED_RUN = "run cancelled"
CANCELLED_RUN_NOTE = (f"({CANCELLED_RUN}): stored from a workflow run cancelled before it finished, part of a "
                      "sweep: reused by `ci reuse`, never in a baseline.")


def short_topology(topology: str) -> str:
    """``tp8-pp1-dcp1-pcp1-ep1-dpafalse`` -> ``tp8``; ``tp4-pp1-dcp1-pcp1-ep8-dpatrue`` -> ``tp4-ep8-dpa``;
    each worker of ``p2x(...)_d1x(...)`` alike. A topology not in that form is left as it is (nothing
    of an unknown form is dropped)."""
    if not WHOLE_TOPOLOGY.fullmatch(topology):
        return topology
    return DEFAULT_PARTS.sub("", topology).replace(*DPA_ON)


def _kv(offloading, backend) -> str | None:
    if backend not in NOT_SET:
        return f"{backend} ({offloading})" if offloading not in NOT_SET else str(backend)
    return f"KV offload {offloading}" if offloading not in NOT_SET else None


def recipe_parts(fields: dict) -> tuple[str, str, str]:
    """A point's or series' recipe (``fields`` holds R.RECIPE_IDENTITY) as three words: topology,
    speculative decoding, KV offload; a part not set reads as its ABSENT word."""
    topology, spec = fields.get(R.TOPOLOGY), fields.get(R.SPEC_DECODING)
    words = (short_topology(str(topology)) if topology not in (None, "") else None,
             f"spec {spec}" if spec not in NOT_SET else None,
             _kv(fields.get(R.KV_OFFLOADING), fields.get(R.KV_OFFLOAD_BACKEND)))
    return tuple(word or absent for word, absent in zip(words, ABSENT))


def recipe_label(fields: dict) -> str:
    """The parts of a recipe that are set, in one line: ``tp8 spec mtp lmcache (dram)``; "" for none."""
    return " ".join(word for word, absent in zip(recipe_parts(fields), ABSENT) if word != absent)
