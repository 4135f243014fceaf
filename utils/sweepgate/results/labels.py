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


# A commit hash in an image's tag (``nightly-cb8104839c14…``: 40 hex digits) or its digest (``@sha256:…``: 64), and
# how many of its first digits `results show`'s image column writes of it, as `docker images` names an image by 12.
LONG_HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{16,}(?![0-9A-Za-z])")
SHORT_HEX = 12


def short_hex(text: str) -> str:
    """``text`` with each long hex run (LONG_HEX) cut to its first SHORT_HEX digits: how every table and legend
    writes a digest or a commit (`results show`'s image column, compare's recipe change); ``--json`` keeps it whole."""
    return LONG_HEX.sub(lambda hexes: hexes[0][:SHORT_HEX], text)


def image_parts(image: str) -> tuple[str, str | None, str | None]:
    """An image reference as its repository, tag and digest: ``lmsysorg/sglang:v0.5.14@sha256:5027…`` ->
    (``lmsysorg/sglang``, ``v0.5.14``, ``sha256:5027…``); a registry's port (``host:5000/img``) is no tag, nor is
    anything before an enroot registry's ``#`` (``nvcr.io#nvidia/…``). None for a part it has not."""
    name, _, digest = image.partition("@")
    repo, colon, tag = name.rpartition(":")
    if not colon or "/" in tag or "#" in tag:
        return name, None, digest or None
    return repo, tag, digest or None


def image_labels(images) -> dict[str, str]:
    """Each of ``images`` (the lines of one table) named by what tells it from the others, for `results show`'s image
    column: its tag (``v0.12.0``); with its repository's last part where the repositories differ
    (``sglang:v0.5.14-cu130``; the whole repository where two share that last part), and where an image has no tag;
    with its digest where two are alike but for theirs (``v0.5.14-cu130@sha256:5027e95bf6ec``); a long hex run (a digest, a
    commit in a tag) cut to its first SHORT_HEX digits. Where that would name two images alike, each is written
    whole. The store and ``--json`` keep the image whole."""
    images = sorted(set(images))
    parts = {image: image_parts(image) for image in images}
    repos = {repo for repo, _, _ in parts.values()}
    last = {repo: re.split(r"[/#]", repo)[-1] for repo in repos}
    show_repo = len(repos) > 1 or any(tag is None and digest is None for _, tag, digest in parts.values())
    whole_repo = len(set(last.values())) < len(repos)
    show_digest = len({(repo, tag) for repo, tag, _ in parts.values()}) < len(images)  # a tag pinned twice

    said = {}
    for image, (repo, tag, digest) in parts.items():
        text = (repo if whole_repo else last[repo]) if show_repo or tag is None else ""
        text += (":" if text else "") + tag if tag is not None else ""
        said[image] = short_hex(text + (f"@{digest}" if show_digest and digest else ""))
    return said if len(set(said.values())) == len(said) else {image: image for image in images}
