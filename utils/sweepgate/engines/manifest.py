"""Committed flag manifests (package data; configs/engines links here) and which an image pins.

``manifests/images.json`` maps a container image to the engine versions inside it;
tools a job installs itself (LMCache, Mooncake, AIPerf, lm-eval) get their version
from the job's own `pip install NAME==VERSION`.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

# pip distribution -> engine whose manifest checks it
DISTRIBUTIONS = {"lmcache": "lmcache", "mooncake-transfer-engine": "mooncake",
                 "mooncake-transfer-engine-non-cuda": "mooncake", "aiperf": "aiperf",
                 "lm-eval": "lm-eval", "lm_eval": "lm-eval"}
_PIN = re.compile(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([^\s;]+)$")


def _folder():
    return resources.files("sweepgate.engines") / "manifests"


@lru_cache(maxsize=None)
def images() -> dict[str, dict[str, str]]:
    return json.loads((_folder() / "images.json").read_text(encoding="utf-8"))["images"]


def manifest_name(engine: str, version: str) -> str:
    return f"{engine}-{version}.json"


@lru_cache(maxsize=None)
def load(engine: str, version: str) -> dict | None:
    """The committed manifest of ``engine`` at ``version``, or None."""
    path = _folder() / manifest_name(engine, version)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def versions_of(engine: str) -> list[str]:
    """Every committed version of ``engine``."""
    prefix = f"{engine}-"
    out = []
    for entry in _folder().iterdir():
        name = entry.name
        if name.startswith(prefix) and name.endswith(".json") and name[len(prefix):-5][:1].isdigit():
            out.append(name[len(prefix):-5])
    return sorted(out)


def pinned_engine(dist: str) -> str | None:
    """The engine a pip distribution name (any CUDA/ROCm variant of Mooncake's too) provides."""
    dist = dist.lower()
    if dist.startswith("mooncake-transfer-engine"):
        return "mooncake"
    return DISTRIBUTIONS.get(dist)


def pins_in(argv: list[str]) -> dict[str, str]:
    """engine -> version for each `NAME==VERSION` in a pip command line."""
    out = {}
    for arg in argv:
        match = _PIN.match(arg)
        if match and pinned_engine(match.group(1)):
            out[pinned_engine(match.group(1))] = match.group(2)
    return out


def flags_of(engine: str, version: str) -> set[str]:
    """Every flag the manifest of ``engine`` at ``version`` knows (empty when there is none)."""
    found = load(engine, version)
    return {flag for opt in found["options"] for flag in opt["flags"]} if found else set()
