"""Committed flag manifests (package data; configs/engines links here) and which an image pins.

``manifests/images.json`` maps a container image to the engine versions inside it;
tools a job installs itself (LMCache, Mooncake, AIPerf, lm-eval) get their version
from the job's own `pip install NAME==VERSION`. A repository that installs sweepgate adds
its own images and manifests in its ``configs/engines/`` (``root``): they are read first,
and the package's fill in the rest.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from sweepgate.core.fields import CONFIG_DIR

# pip distribution -> engine whose manifest checks it
DISTRIBUTIONS = {"lmcache": "lmcache", "mooncake-transfer-engine": "mooncake",
                 "mooncake-transfer-engine-non-cuda": "mooncake", "aiperf": "aiperf",
                 "lm-eval": "lm-eval", "lm_eval": "lm-eval"}
_PIN = re.compile(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([^\s;]+)$")


def _folder():
    return resources.files("sweepgate.engines") / "manifests"


@lru_cache(maxsize=None)
def _folders(root=None) -> tuple:
    """The repository's ``configs/engines`` (when it has one of its own), then the package's."""
    package = _folder()
    if root is not None:
        own = Path(root) / CONFIG_DIR / "engines"
        if own.is_dir() and own.resolve() != Path(str(package)).resolve():
            return own, package
    return (package,)


@lru_cache(maxsize=None)
def images(root=None) -> dict[str, dict[str, str]]:
    """Image -> engine versions: the package's, with the repository's own entries over them."""
    out: dict[str, dict[str, str]] = {}
    for folder in reversed(_folders(root)):
        path = folder / "images.json"
        if path.is_file():
            out.update(json.loads(path.read_text(encoding="utf-8"))["images"])
    return out


def image_engines(image: str, root=None) -> dict[str, str]:
    """The engine versions of ``image``: its own entry, else the entry of the same image without its
    digest (``repo:tag@sha256:...`` is the tag's build, pinned)."""
    known = images(root)
    if image in known:
        return dict(known[image])
    return dict(known.get(image.split("@", 1)[0], {})) if "@" in image else {}


def manifest_name(engine: str, version: str) -> str:
    return f"{engine}-{version}.json"


@lru_cache(maxsize=None)
def load(engine: str, version: str, root=None) -> dict | None:
    """The committed manifest of ``engine`` at ``version`` (the repository's first), or None."""
    for folder in _folders(root):
        path = folder / manifest_name(engine, version)
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
    return None


def versions_of(engine: str, root=None) -> list[str]:
    """Every committed version of ``engine``."""
    prefix = f"{engine}-"
    out = set()
    for folder in _folders(root):
        for entry in folder.iterdir():
            name = entry.name
            if name.startswith(prefix) and name.endswith(".json") and name[len(prefix):-5][:1].isdigit():
                out.add(name[len(prefix):-5])
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


def flags_of(engine: str, version: str, root=None) -> set[str]:
    """Every flag the manifest of ``engine`` at ``version`` knows (empty when there is none)."""
    found = load(engine, version, root)
    return {flag for opt in found["options"] for flag in opt["flags"]} if found else set()
