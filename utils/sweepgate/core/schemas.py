"""The JSON Schemas sweepgate ships, read as package data.

The files live in the package (``sweepgate/schemas/``) so that an installed
wheel carries them; the repository's ``configs/schema`` is a symlink to the
same folder for editors and ``yaml-language-server`` lines.
"""

from __future__ import annotations

import functools
import os

SCHEMA_FILES = {
    "master": "master-config.schema.json",
    "runners": "runners.schema.json",
    "changelog": "perf-changelog.schema.json",
    "row": "matrix-row.schema.json",
    "result": "result.schema.json",
    "event": "github-event.schema.json",
}


@functools.lru_cache(maxsize=None)
def schema_bytes(name: str) -> bytes:
    """The bytes of one shipped schema, by its short name or file name."""
    filename = SCHEMA_FILES.get(name, name)
    # An installed package (wheel or editable) keeps its data as files beside its
    # modules: read them directly, which spares every command the ~20 ms import of
    # importlib.resources. Only a zipped package needs the resources API.
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schemas", filename)
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return f.read()
    from importlib import resources

    return resources.files("sweepgate").joinpath("schemas", filename).read_bytes()


@functools.lru_cache(maxsize=None)
def schema_maximum(definition: str, name: str = "master") -> int:
    """The ``maximum`` of one ``$defs`` entry of a shipped schema (parallelSize, concValue, ...): the
    bound a check outside the schema holds a value to, read where the schema states it."""
    import json

    return json.loads(schema_bytes(name))["$defs"][definition]["maximum"]


@functools.lru_cache(maxsize=None)
def schema_definition(definition: str, name: str = "master") -> dict:
    """One ``$defs`` entry of a shipped schema (safeString's pattern and description, ...), for a check
    outside the schema that holds a value to the same rule."""
    import json

    return json.loads(schema_bytes(name))["$defs"][definition]


@functools.lru_cache(maxsize=None)
def schema_key_names(name: str = "master") -> dict:
    """The ``propertyNames`` of a shipped schema (the master config's: the pattern a config key must match and
    the description that says it), for a check outside the schema that holds a key to the gate's rule."""
    import json

    return json.loads(schema_bytes(name))["propertyNames"]
