"""The JSON Schemas sweepgate ships, read as package data.

The files live in the package (``sweepgate/schemas/``) so that an installed
wheel carries them; the repository's ``configs/schema`` is a symlink to the
same folder for editors and ``yaml-language-server`` lines.
"""

from __future__ import annotations

import functools
from importlib import resources

SCHEMA_FILES = {
    "master": "master-config.schema.json",
    "runners": "runners.schema.json",
    "changelog": "perf-changelog.schema.json",
    "row": "matrix-row.schema.json",
    "result": "result.schema.json",
}


@functools.lru_cache(maxsize=None)
def schema_bytes(name: str) -> bytes:
    """The bytes of one shipped schema, by its short name or file name."""
    filename = SCHEMA_FILES.get(name, name)
    return resources.files("sweepgate").joinpath("schemas", filename).read_bytes()
