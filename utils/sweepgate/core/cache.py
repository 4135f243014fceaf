"""A content-addressed cache of parse and check results, kept inside the git directory.

Three small stores, all keyed by hashes of exact content and salted with
sweepgate's version and a fingerprint of its own rules (``SALTED_FILES``), so a
hit is always the answer the slow path would give:

* ``docs``: for each master config file, the split of its recent versions into
  top-level blocks (config key, sha1 of the block text, first line, offsets);
* ``blocks``: the parsed value of those blocks (sha1 -> value), read only when
  many values are wanted at once (a whole sweep), never for a one-key change;
* ``verdicts``: content hash -> the problems found in it ([] when it passed).

Stores are written atomically (temp file + rename) and only when they changed.
A read-only or missing git directory disables the cache, as does
``SWEEPGATE_NO_CACHE=1``. Data is plain (dict/list/str/int/float/bool/None)
and written by sweepgate itself, so ``marshal`` is fast here; the cache holds data
only, never code that sweepgate runs (a schema's validator that is not committed is
compiled in the process, ``core.check.fast_validator``).
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
import sys

from sweepgate import __version__

MAX_BLOCKS = 20_000  # parsed values per file; older blocks are dropped first
MAX_DOCS = 4  # whole-file indexes kept per file
MAX_VERDICTS = 100_000


# The code that decides what the cache holds: core.check and every module of ours it imports (the YAML
# readers pyyaml and jsontext among them), with the validators generated from the schemas
# (validators.GENERATED). A module left out here could change a parse or a verdict and leave the old ones
# answering (tests/test_cache.py follows check's imports and fails on one that is missing).
SALTED_FILES = ("load.py", "fastyaml.py", "check.py", "cache.py", "schemas.py", "placement.py", "fields.py",
                "metrics.py", "yamlsafe.py", "pyyaml.py", "jsontext.py", "errors.py", "expand.py", "runnerlog.py",
                "worktop.py", "yamlindent.py", "textmode.py", "upstream.py", "validators/__init__.py")


def salted_files() -> list[str]:
    """The files ``rules_salt`` hashes, relative to this folder."""
    from sweepgate.core.validators import GENERATED

    return [*SALTED_FILES, *(f"validators/{name}.py" for name in GENERATED)]


# The libraries beside PyYAML whose version the cached answers depend on, (module, distribution): jsonschema
# words every cached refusal, and resolves a schema's $ref with referencing and knows its dialect from
# jsonschema-specifications; fastjsonschema compiles the yes/no validator whose yes is kept as a pass where no
# generated one is current (core.check.fast_validator); rapidyaml builds the cached block values
# (core.fastyaml). rpds-py, referencing's containers, decides nothing.
SALTED_LIBRARIES = (("jsonschema", "jsonschema"), ("referencing", "referencing"),
                    ("jsonschema_specifications", "jsonschema-specifications"), ("fastjsonschema", "fastjsonschema"),
                    ("ryml", "rapidyaml"))


def _spec_of(module: str):
    """``module``'s import spec, found as ``import`` would find it but without running it (the finders of
    ``sys.meta_path``; ``importlib.util`` alone costs milliseconds to import); None when it is not there."""
    loaded = sys.modules.get(module)
    if loaded is not None:
        return getattr(loaded, "__spec__", None)
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(module, None) if find is not None else None
        if spec is not None:
            return spec
    return None


def _normal(name: str) -> str:
    """A distribution's name as its metadata folder spells it, for comparing (PEP 503, ``-`` as ``_``)."""
    return name.replace("-", "_").replace(".", "_").lower()


@functools.lru_cache(maxsize=None)
def _metadata_folders(folder: str) -> tuple[str, ...]:
    """The ``*.dist-info`` and ``*.egg-info`` names in ``folder`` (site-packages: listed once a run)."""
    try:
        return tuple(entry for entry in os.listdir(folder) if entry.endswith((".dist-info", ".egg-info")))
    except OSError:
        return ()


def installed(module: str, distribution: str) -> str:
    """Which release of ``distribution`` provides ``module`` here, cheaply (``importlib.metadata`` takes
    175-660 ms a run): NAME-VERSION of its ``*.dist-info`` (or ``*.egg-info``) folders beside the module, found with one ``os.listdir`` and without importing it; where none is there (an
    editable install) the version ``importlib.metadata`` reads; ``absent`` when the module is not there."""
    spec = _spec_of(module)
    if spec is None:
        return "absent"
    located = list(spec.submodule_search_locations or ()) or ([spec.origin] if spec.origin else [])
    folder, wanted = os.path.dirname(located[0].rstrip(os.sep)) if located else "", _normal(distribution)
    stems = (entry.rsplit(".", 1)[0] for entry in _metadata_folders(folder))
    names = sorted(stem for stem in stems if "-" in stem and _normal(stem.split("-", 1)[0]) == wanted)  # NAME-VERSION
    if names:
        return " ".join(names)
    from importlib import metadata

    try:
        return f"{distribution} {metadata.version(distribution)}"
    except metadata.PackageNotFoundError:
        return f"{distribution} of unknown version at {folder}"


@functools.lru_cache(maxsize=None)
def rules_salt() -> str:
    """Changes whenever sweepgate's version, its schemas, the code that parses and checks configs, the
    PyYAML that reads them (the authority on a block's value: ``core.fastyaml``) or the release of a
    ``SALTED_LIBRARIES`` library changes."""
    from sweepgate.core.pyyaml import yaml

    libraries = " ".join(installed(module, distribution) for module, distribution in SALTED_LIBRARIES)
    h = hashlib.sha1(f"{__version__} PyYAML {yaml.__version__} libyaml {yaml.__with_libyaml__} "
                     f"{libraries}".encode())
    here = os.path.dirname(os.path.abspath(__file__))
    for name in salted_files():
        with open(os.path.join(here, name), "rb") as f:
            h.update(f.read())
    try:
        from sweepgate.core.schemas import SCHEMA_FILES, schema_bytes

        for name in SCHEMA_FILES:
            h.update(schema_bytes(name))
    except Exception:  # noqa: BLE001 - a missing schema is reported by check, not here
        pass
    return h.hexdigest()[:16]


def content_key(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha1(data).hexdigest()


class Cache:
    def __init__(self, directory: str | None):
        self.dir = None if os.environ.get("SWEEPGATE_NO_CACHE") else directory
        self._blocks: dict[str, dict] = {}
        self._blocks_dirty: set[str] = set()
        self._doc_indexes: dict[str, dict] = {}
        self._docs_dirty: set[str] = set()
        self._verdicts: dict | None = None
        self._verdicts_dirty = False

    @classmethod
    def for_git_dir(cls, git_dir: str | None) -> "Cache":
        """The cache of the repository whose git directory is ``git_dir``; off (no directory) without one or
        under ``SWEEPGATE_NO_CACHE``, where the salt, which names only the directory, is never worked out (it
        reads and hashes every salted file and looks up each salted library: about 9M instructions a run)."""
        if git_dir is None or os.environ.get("SWEEPGATE_NO_CACHE"):
            return cls(None)
        return cls(os.path.join(git_dir, "sweepgate-cache", rules_salt()))

    # -- files ------------------------------------------------------------------------

    def _read(self, name: str):
        if self.dir is None:
            return None
        try:
            with open(os.path.join(self.dir, name), "rb") as f:
                return marshal.loads(f.read())
        except (OSError, ValueError, EOFError, TypeError):
            return None

    def _write(self, name: str, value) -> None:
        try:
            data = marshal.dumps(value)
        except ValueError:
            return  # not plain data: nothing to cache
        self.write_blob(name, data)

    def write_blob(self, name: str, data: bytes) -> None:
        if self.dir is None:
            return
        tmp = None
        try:
            os.makedirs(self.dir, exist_ok=True)
            tmp = os.path.join(self.dir, f".tmp-{name}-{os.getpid()}")  # named before it exists: removed below
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, os.path.join(self.dir, name))
        except BaseException as exc:  # a full disk, a Ctrl-C mid-write: no part left in the git directory
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass  # never made, or renamed into place already
            if not isinstance(exc, OSError):
                raise
            self.dir = None

    # -- parsed blocks ------------------------------------------------------------------

    def _values(self, path: str) -> dict:
        """{block hash: marshalled value} for one file (read only when many values are wanted)."""
        if path not in self._blocks:
            found = self._read(f"blocks-{content_key(path)[:16]}")
            self._blocks[path] = found if isinstance(found, dict) else {}
        return self._blocks[path]

    def _docs(self, path: str) -> dict:
        """{file blob: [(config key, block hash, first line, start, end)]} of recent versions of one file."""
        if path not in self._doc_indexes:
            found = self._read(f"docs-{content_key(path)[:16]}")
            self._doc_indexes[path] = found if isinstance(found, dict) else {}
        return self._doc_indexes[path]

    def block(self, path: str, key: str):
        """The parsed value of one top-level block, or None."""
        if self.dir is None:
            return None
        raw = self._values(path).get(key)
        if raw is None:
            return None
        try:
            return marshal.loads(raw)
        except (ValueError, EOFError, TypeError):
            return None

    def add_block(self, path: str, key: str, value) -> None:
        if self.dir is None:
            return
        try:
            raw = marshal.dumps(value)
        except ValueError:
            return
        self._values(path)[key] = raw
        self._blocks_dirty.add(path)

    def doc_index(self, path: str, blob: str) -> list | None:
        """[(config key, block hash, first line, start, end)] of a whole file version seen before."""
        if self.dir is None or not blob:
            return None
        return self._docs(path).get(blob)

    def block_keys(self, path: str) -> dict[str, str]:
        """{block hash: its config key} over the versions of ``path`` seen before."""
        if self.dir is None:
            return {}
        return {entry[1]: entry[0] for index in self._docs(path).values() for entry in index}

    def set_doc_index(self, path: str, blob: str, index: list) -> None:
        if self.dir is None or not blob:
            return
        docs = self._docs(path)
        docs.pop(blob, None)
        docs[blob] = index
        while len(docs) > MAX_DOCS:
            del docs[next(iter(docs))]
        self._docs_dirty.add(path)

    # -- verdicts ----------------------------------------------------------------------

    def _verdict_map(self) -> dict:
        if self._verdicts is None:
            found = self._read("verdicts")
            self._verdicts = found if isinstance(found, dict) else {}
        return self._verdicts

    def verdict(self, key: str) -> list | None:
        """The problems recorded for this content ([] when it passed), or None if unknown."""
        if self.dir is None:
            return None
        found = self._verdict_map().get(key)
        return [tuple(p) for p in found] if found else found

    def record(self, key: str, problems: list) -> None:
        if self.dir is None:
            return
        self._verdict_map()[key] = problems
        self._verdicts_dirty = True

    # -- persistence -------------------------------------------------------------------

    def flush(self, keep: dict[str, set[str]] | None = None) -> None:
        """Write what changed. ``keep`` names, per file, the block hashes in use now."""
        for path in self._docs_dirty:
            self._write(f"docs-{content_key(path)[:16]}", self._doc_indexes[path])
        self._docs_dirty.clear()
        for path in self._blocks_dirty:
            blocks = self._blocks[path]
            if len(blocks) > MAX_BLOCKS:
                in_use = (keep or {}).get(path, set())
                extra = [k for k in blocks if k not in in_use]
                for k in extra[: len(blocks) - MAX_BLOCKS]:
                    del blocks[k]
            self._write(f"blocks-{content_key(path)[:16]}", blocks)
        self._blocks_dirty.clear()
        if self._verdicts_dirty and self._verdicts is not None:
            if len(self._verdicts) > MAX_VERDICTS:
                self._verdicts = {}
            self._write("verdicts", self._verdicts)
            self._verdicts_dirty = False
