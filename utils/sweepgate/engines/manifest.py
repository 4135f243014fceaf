"""Committed flag manifests (package data; configs/engines links here) and which an image pins.

``manifests/images.json`` maps a container image to the engine versions inside it;
tools a job installs itself (LMCache, Mooncake, AIPerf, lm-eval) get their version
from the job's own `pip install NAME==VERSION`. A repository that installs sweepgate adds
its own images and manifests in its ``configs/engines/`` (``root``): they are read first,
and the package's fill in the rest.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from sweepgate.core.errors import fail, json_message, os_failure
from sweepgate.core import jsontext
from sweepgate.core.fields import CONFIG_DIR
from sweepgate.core.textmode import not_utf8
from sweepgate.engines.names import ENGINES


def normalized(dist: str) -> str:
    """A pip distribution's name as pip compares names: lower case, each run of '-', '_', '.' one '-'."""
    return re.sub(r"[-_.]+", "-", dist).lower()


# pip distribution (``normalized``) -> the engine whose manifest checks what a job's pin of it installs; one that
# provides several engines (vllm: serve and bench serve) is not taken from a pin: the image's entry names each
_PROVIDERS = [normalized(dist) for dist, _ in ENGINES.values()]
DISTRIBUTIONS = {normalized(dist): engine for engine, (dist, _) in ENGINES.items()
                 if _PROVIDERS.count(normalized(dist)) == 1}
# A version as a manifest's file name holds it (ENGINE-VERSION.json): one file name, never a path
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]*")
# NAME==VERSION in a pip command line; a "version" that is no file name ('1/../x') pins nothing
_PIN = re.compile(rf"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==({_VERSION.pattern})$")


def _folder():
    return resources.files("sweepgate.engines") / "manifests"


@lru_cache(maxsize=None)
def _folders(root=None) -> tuple:
    """The repository's ``configs/engines`` (when it has one of its own), then the package's."""
    package = _folder()
    if root is not None:
        own = Path(root) / CONFIG_DIR / "engines"
        if own.is_dir() and not _same_file(own, package):
            return own, package
    return (package,)


def _same_file(a, b) -> bool:
    """Whether two paths name one file, links followed; a link that loops names only itself (Python
    3.11's ``Path.resolve`` raises RuntimeError on it: read, it is refused at its name)."""
    return os.path.realpath(str(a)) == os.path.realpath(str(b))


def _present(path) -> bool:
    """Whether anything stands at ``path``: a file, a folder or a link, a broken or looping one too, so
    that one that cannot be read is refused at its name (``_read``), never passed over as missing. The
    package's own files (no file-system path in a zipped install) by ``is_file``."""
    return os.path.lexists(path) if isinstance(path, Path) else path.is_file()


def _shown(folder, name: str, root=None) -> str:
    """A manifest's name in a message: from the repository's top when it is the repository's own
    (``configs/engines/NAME``, a link to the package's folder too), else its full path."""
    path = Path(str(folder / name))
    if root is not None:
        own = Path(root) / CONFIG_DIR / "engines" / name
        if _same_file(own, path):
            return f"{CONFIG_DIR}/engines/{name}"
    return str(path)


def _read(folder, name: str, root, hint: str) -> tuple[object, str, str]:
    """(decoded JSON, text, name to show) of one manifest file; bad JSON is one line at its place."""
    shown = _shown(folder, name, root)
    try:
        text = (folder / name).read_text(encoding="utf-8")
        return jsontext.loads(text), text, shown
    except json.JSONDecodeError as exc:
        raise fail(shown, exc.lineno, f"not valid JSON: {json_message(exc)}", hint, col=exc.colno) from None
    except UnicodeDecodeError as exc:
        raise fail(shown, 0, not_utf8(exc.start, exc.reason), hint) from None
    except RecursionError:
        raise fail(shown, 0, jsontext.NESTED_TOO_DEEPLY, hint) from None
    except OSError as exc:
        raise os_failure(shown, "cannot read it", exc, hint) from None


def _line_of(text: str, key: str | None) -> int:
    """The line of ``key`` (``core.jsontext.key_place``) in a JSON text, else where the document starts."""
    from sweepgate.core.jsontext import key_place

    return key_place(text, key)[0]


def _json_kind(value) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return {dict: "an object", list: "an array", str: "a string"}.get(type(value), "a number")


_IMAGES_HINT = "write it as {\"images\": {IMAGE: {ENGINE: VERSION}}} (configs/engines/README.md)"


def _images_problem(data) -> tuple[str, str | None] | None:
    """What an images.json holds that is not image -> {engine: version} (and the key it is at), or None."""
    table = data.get("images") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        return (f"holds {_json_kind(data)}, not an object" if not isinstance(data, dict) else
                "has no 'images' object" if table is None else f"'images' is {_json_kind(table)}, not an object",
                "images")
    for image, engines in table.items():
        if not isinstance(engines, dict):
            return f"image {image!r} maps to {_json_kind(engines)}, not an object of engine versions", image
        for engine, version in engines.items():
            if not isinstance(version, str):
                return f"image {image!r}: the {engine} version is {_json_kind(version)}, not a string", image
            if not _VERSION.fullmatch(version):
                return (f"image {image!r}: the {engine} version {version!r} is not a version (one word of letters, "
                        "digits and . + - _, as the manifest's file name ENGINE-VERSION.json holds it)", image)
    return None


def _image_lists(root=None) -> tuple[tuple[str, str, dict], ...]:
    """(name to show, text, 'images' object) of each images.json: the package's, then the repository's.
    Read each time (``images`` keeps what it makes of them; ``image_place`` reads them for a warning)."""
    out = []
    for folder in reversed(_folders(root)):
        if _present(folder / "images.json"):
            data, text, shown = _read(folder, "images.json", root, _IMAGES_HINT)
            problem = _images_problem(data)
            if problem:
                raise fail(shown, _line_of(text, problem[1]), problem[0], _IMAGES_HINT)
            out.append((shown, text, data["images"]))
    return tuple(out)


@lru_cache(maxsize=None)
def images(root=None) -> dict[str, dict[str, str]]:
    """Image -> engine versions: the package's, with the repository's own entries over them."""
    out: dict[str, dict[str, str]] = {}
    for _, _, table in _image_lists(root):
        out.update(table)
    return out


def _entry_of(image: str, known: dict) -> str | None:
    """The entry ``image`` is listed under: its own, else the same image's without its digest
    (``repo:tag@sha256:...`` is the tag's build, pinned); None when neither is listed."""
    if image in known:
        return image
    bare = image.split("@", 1)[0]
    return bare if "@" in image and bare in known else None


def image_engines(image: str, root=None) -> dict[str, str]:
    """The engine versions of ``image`` (its entry, ``_entry_of``)."""
    known = images(root)
    entry = _entry_of(image, known)
    return dict(known[entry]) if entry else {}


def image_place(image: str, engine: str, root=None) -> tuple[str, int, int] | None:
    """(images.json as shown, line, col) of the entry that lists ``image``: of its ``engine`` key when
    it has one, else of the image's key; None when no images.json lists the image (or, read again, no
    longer does: edited while preflight ran)."""
    entry = _entry_of(image, images(root))
    found = next((f for f in reversed(_image_lists(root)) if entry in f[2]), None) if entry else None
    if found is None:
        return None
    shown, text, table = found
    return (shown, *jsontext.key_place(text, f"images.{entry}" + (f".{engine}" if engine in table[entry] else "")))


def manifest_name(engine: str, version: str) -> str:
    return f"{engine}-{version}.json"


# What the checks read of a manifest (``sweepgate engines capture`` writes more): these must be there
_TEXT_FIELDS = ("engine", "package", "version", "command")
_OPTION_FIELDS = ("flags", "nargs", "takes_value")
# argparse's nargs words (a count is the other spelling): optional, any, at least one, the rest, a sub-parser's
_NARGS_WORDS = ("?", "*", "+", "...", "A...")


def _option_problem(opt) -> str | None:
    if not isinstance(opt, dict):
        return f"is {_json_kind(opt)}, not an object"
    missing = [name for name in _OPTION_FIELDS if name not in opt]
    if missing:
        return f"has no {', '.join(repr(m) for m in missing)}"
    if not isinstance(opt["flags"], list) or not all(isinstance(f, str) for f in opt["flags"]):
        return "'flags' is not an array of strings"
    nargs = opt["nargs"]
    if isinstance(nargs, bool) or not (isinstance(nargs, int) and nargs >= 0 or nargs in _NARGS_WORDS):
        shown = repr(nargs) if isinstance(nargs, (int, str)) and not isinstance(nargs, bool) else _json_kind(nargs)
        return f"'nargs' is {shown}, not a count from 0 or one of {', '.join(_NARGS_WORDS)}"
    if not isinstance(opt["takes_value"], bool):
        return f"'takes_value' is {_json_kind(opt['takes_value'])}, not true or false"
    choices = opt.get("choices")
    if choices is not None and not isinstance(choices, list):
        return f"'choices' is {_json_kind(choices)}, not an array or null"
    if choices and not all(isinstance(c, (str, int, float, bool)) for c in choices):
        return "'choices' holds an array or object, not only strings and numbers"
    return None


def _manifest_problem(data) -> tuple[str, str | None] | None:
    """What a manifest lacks that the checks read (and the key it is at), or None."""
    if not isinstance(data, dict):
        return f"holds {_json_kind(data)}, not a manifest object", None
    for name in _TEXT_FIELDS:
        if not isinstance(data.get(name), str):
            return (f"has no '{name}'" if name not in data else
                    f"'{name}' is {_json_kind(data[name])}, not a string"), name
    options = data.get("options")
    if not isinstance(options, list):
        return ("has no 'options'" if options is None else f"'options' is {_json_kind(options)}, not an array"), \
            "options"
    for number, opt in enumerate(options):
        why = _option_problem(opt)
        if why:
            return f"options[{number}] {why}", "options"
    return None


@lru_cache(maxsize=None)
def load(engine: str, version: str, root=None) -> dict | None:
    """The committed manifest of ``engine`` at ``version`` (the repository's first), or None.
    One that is not JSON, or lacks what the checks read, is a SweepgateError at its file."""
    name = manifest_name(engine, version)
    for folder in _folders(root):
        if _present(folder / name):
            hint = f"capture it again: sweepgate engines capture --engine {engine} --out {CONFIG_DIR}/engines/{name}"
            data, text, shown = _read(folder, name, root, hint)
            problem = _manifest_problem(data)
            if problem:
                raise fail(shown, _line_of(text, problem[1]), f"not a flag manifest: {problem[0]}", hint)
            return data
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
    dist = normalized(dist)
    if dist.startswith(ENGINES["mooncake"][0]):  # its builds: mooncake-transfer-engine-non-cuda, ...
        return "mooncake"
    return DISTRIBUTIONS.get(dist)


def pins(argv: list[str]) -> list[tuple[str, str, str]]:
    """(distribution as written, engine, version) of each `NAME==VERSION` in a pip command line."""
    out = []
    for arg in argv:
        match = _PIN.match(arg)
        if match and pinned_engine(match.group(1)):
            out.append((match.group(1), pinned_engine(match.group(1)), match.group(2)))
    return out


def pins_in(argv: list[str]) -> dict[str, str]:
    """engine -> version for each `NAME==VERSION` in a pip command line."""
    return {engine: version for _, engine, version in pins(argv)}


def flags_of(engine: str, version: str, root=None) -> set[str]:
    """Every flag the manifest of ``engine`` at ``version`` knows (empty when there is none)."""
    found = load(engine, version, root)
    return {flag for opt in found["options"] for flag in opt["flags"]} if found else set()
