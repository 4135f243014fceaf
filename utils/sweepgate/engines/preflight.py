"""Check the commands a rehearsal recorded against the manifests of the row's engines.

Each problem is reported at the script line that writes the flag (the row's
script first, then the shell library it sources).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from sweepgate.core import fields, pythoncall
from sweepgate.core.errors import Diagnostic, SweepgateError
from sweepgate.core.repopaths import from_here
from sweepgate.core.scriptlines import first_command, runs_module, script_lines
from sweepgate.engines import manifest as M
from sweepgate.engines.argcheck import check_argv
from sweepgate.engines.names import ENGINES, PROGRAM_ALIASES

# `python3 -m MODULE` servers and clients (any interpreter, its own options before -m: ``pythoncall.called_module``)
# -> the engine whose manifest checks them (SGLang's have none: their calls are named in a note, never passed over
# in silence)
PYTHON_MODULES = {fields.VLLM_SERVER_MODULE: "vllm", fields.SGLANG_SERVER_MODULE: "sglang",
                  fields.SGLANG_ROUTER_MODULE: "sglang-router", fields.SGLANG_CLIENT_MODULE: "sglang-bench"}


def engine_call(call: dict) -> tuple[str, list[str]] | None:
    """(engine, argv after the command words) of a recorded shim call that a manifest can check."""
    tool, argv = call.get("tool"), list(call.get("argv") or [])
    program = PROGRAM_ALIASES.get(tool, tool)
    for engine, (_, command) in ENGINES.items():  # its program, then its subcommand words
        words = command.split()
        if program == words[0] and argv[:len(words) - 1] == words[1:]:
            return engine, argv[len(words) - 1:]
    if (module := pythoncall.called_module(tool, argv)) and module[0] in PYTHON_MODULES:
        return PYTHON_MODULES[module[0]], module[1]
    return None


def versions_for(row: dict, calls: list[dict], root: Path | None = None) -> dict[str, str]:
    """engine -> version: the image's engines, then what the job pip-installed."""
    versions = M.image_engines(str(row.get(fields.IMAGE, "")), root)
    for call in calls:
        if call.get("tool") == "pip":
            versions.update(M.pins_in(call.get("argv") or []))
    return versions


def pinned_help(row: dict, root: Path | None = None) -> dict[str, list[str]]:
    """command -> every flag of the version the row's image pins, for each engine with a manifest:
    what the stand-ins' ``--help`` lists, so a script's feature test sees the real version's options."""
    out: dict[str, list[str]] = {}
    for engine, version in versions_for(row, [], root).items():
        try:
            manifest = M.load(engine, version, root)
        except SweepgateError:  # check_row reports it; the stand-in lists what its --help always did
            continue
        if manifest:
            out[manifest["command"]] = sorted({f for opt in manifest["options"] for f in opt["flags"]})
    return out


def locate(root: Path, script: Path, flag: str, value: str | None = None) -> tuple[str, int]:
    """Where ``flag`` is written: the script first, then the library; (path, line) relative to root.
    With the ``value`` it was refused for, the line that writes both (an `else` branch's, not the
    `if` branch's valid one; for an empty value, an empty `--flag=` or a variable's expansion after the
    flag, ``_EXPANDED``), else the first that writes the flag."""
    return _located(root, script, flag, value)[:2]


# A flag's value written as one variable's expansion: `--flag "$X"`, `--flag=${X}`, `--flag "${X:-}"` (an empty
# default); the name as ``name`` (or ``braced``). What an empty value the parser refused was written as.
_EXPANDED = (r"(?:=|\s+)(?P<quote>\"?)\$(?:(?P<name>[A-Za-z_]\w*)|\{(?P<braced>[A-Za-z_]\w*)(?::?-)?\})(?P=quote)"
             r"(?=[\s)]|$)")


def _located(root: Path, script: Path, flag: str, value: str | None) -> tuple[str, int, str]:
    """``locate``'s (path, line), and the text of that line ("" at no line)."""
    pattern = re.compile(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])")
    first = None
    for rel, number, text in script_lines(root, script):
        if pattern.search(text):
            wrote = (re.escape(flag) + r"(?:=(?=[\s\"')]|$)|" + _EXPANDED + ")" if value == ""  # an empty --flag=
                     else r"(?<![\w.-])" + re.escape(value or "") + r"(?![\w.-])")
            if value is None or re.search(wrote, text):
                return rel, number, text
            first = first or (rel, number, text)
    return first or (str(script.relative_to(root)), 0, "")


def _empty_from(root: Path, script: Path, row: dict, flag: str, text: str) -> tuple[str, str] | None:
    """(what the empty value ``flag`` was refused for came from, its fix) when ``text``, the line that writes
    the flag, writes its value as one variable's expansion (``_EXPANDED``): ``$X is empty: the job environment
    does not set it`` for a variable neither the job environment (CONTRACTS section 6) nor the script sets;
    ``$X is empty`` for one the script sets. None when the value is not written so, or when the job
    environment sets the variable to a value (the empty one came from elsewhere)."""
    found = re.search(re.escape(flag) + _EXPANDED, text)
    if not found:
        return None
    name = found["name"] or found["braced"]
    try:
        job = fields.row_env(row, "runner") if row else {}  # the runner's name is no matter here
    except (KeyError, AttributeError):  # a row without the fields a job's file is named by: none is named
        job = {}
    if job.get(name):
        return None
    if name in job:
        return f"${name} is empty in the job environment", f"give the row's field a value, or give ${name} a " \
            f'default here ("${{{name}:-VALUE}}")'
    sets = re.compile(r"(?<![\w$.-])" + re.escape(name) + r"\+?=")
    if any(sets.search(line) for _, _, line in script_lines(root, script)):
        return f"${name} is empty", f"give ${name} a value the parser accepts before this line"
    return (f"${name} is empty: the job environment does not set it",
            f'set ${name} in the script before this line, or give it a default here ("${{{name}:-VALUE}}")')


def _hint(manifest: dict, flag: str, what: str, root: Path | None = None) -> str:
    if what != "unknown":
        value = re.match(r"value '(.*)' is not valid JSON", what)
        if value and re.search(r"[{,]\s*[A-Za-z_][\w.-]*\s*:", value.group(1)):
            return ("its keys lost their double quotes: bash removes quotes it is not told to keep; "
                    "put the JSON in single quotes in the script ('{\"method\": \"mtp\"}')")
        return "pass a value the parser accepts"
    engine, version = manifest["engine"], manifest["version"]
    having = [v for v in M.versions_of(engine, root) if v != version and flag in M.flags_of(engine, v, root)]
    if having:
        return (f"{manifest['package']} {', '.join(having)} has it: pass it only when the installed "
                f"version supports it, or pin that version")
    near = _nearest_flag(manifest, flag)
    if near:
        return f"did you mean {near}? (the nearest flag {manifest['package']} {version} has); fix or remove it"
    return "remove it or check its spelling against the manifest"


def _nearest_flag(manifest: dict, flag: str) -> str | None:
    """The manifest's long flag spelt most like ``flag`` (a typo: `--speculative-confg`), else None."""
    import difflib

    if not flag.startswith("--"):
        return None
    known = sorted({f for opt in manifest["options"] for f in opt["flags"] if f.startswith("--")})
    found = difflib.get_close_matches(flag, known, n=1, cutoff=0.85)
    return found[0] if found else None


def check_row(row: dict, calls: list[dict], root: Path, script: Path,
              config_at: ConfigPlace | None = None) -> list[Diagnostic]:
    """Every flag problem (errors) and every engine without a manifest (warnings) in one row's calls.
    ``config_at`` says where the row's config writes a field (``_origin``)."""
    versions, out, missing = versions_for(row, calls, root), [], set()
    for call in calls:
        found = engine_call(call)
        if not found:
            continue
        engine, args = found
        version = versions.get(engine)
        try:
            manifest = M.load(engine, version, root) if version else None
        except SweepgateError as exc:  # a manifest that cannot be read: said at its file, the rest still checked
            out.extend(d for d in exc.diagnostics if d not in out)
            continue
        if manifest is None:
            missing.add((engine, version))
            continue
        for flag, what in check_argv(manifest, args):
            out.append(_diagnostic(root, script, manifest, flag, what, row))
    for engine, version in sorted(missing, key=str):
        out.append(_missing(row, calls, script, root, engine, version, config_at))
    return per_image(out, root)


def _diagnostic(root: Path, script: Path, manifest: dict, flag: str, what: str,
                row: dict | None = None) -> Diagnostic:
    refused = re.match(r"value '(.*?)' ", what)
    path, line, text = _located(root, script, flag, refused.group(1) if refused else None)
    who = f"{manifest['package']} {manifest['version']}"
    hint = _hint(manifest, flag, what, root)
    if refused and refused.group(1) == "" and (empty := _empty_from(root, script, row, flag, text)):
        what, hint = f"value '' ({empty[0]}){what[refused.end() - 1:]}", empty[1]
    if what == "unknown":
        message = f"{who} has no option {flag} (`{manifest['command']}`)"
    else:
        message = f"{who} `{manifest['command']}` {flag}: {what}"
    return Diagnostic(path, line, 0, "engine-flag", message, hint)


def _missing(row: dict, calls: list[dict], script: Path, root: Path, engine: str, version: str | None,
             config_at: ConfigPlace | None = None) -> Diagnostic:
    image = row.get(fields.IMAGE, "")
    if engine not in ENGINES and not (version and M.load(engine, version, root)):
        # no manifest can be made for it (yet): said, but not a warning --fail-on-warning could never clear
        path, line = _runs(root, script, engine)
        return Diagnostic(path, line, 0, "engine-unchecked",
                          f"{engine} commands are not checked: sweepgate cannot capture a {engine} manifest yet",
                          "nothing to fix here; the rehearsal ran them, and a flag their parser refuses "
                          "fails the job at start-up", severity="info")
    place = _origin(row, calls, script, root, engine, version, config_at)
    if version is None:
        return _unlisted(image, [engine], place, root)
    # a version the job pip-installs is the same on every image: one warning, not one per image
    message = (f"no manifest for {engine} {version} ("
               + ("the job's pip install pins it)" if _pinned(calls, engine, version)
                  else f"installed on image {image})"))
    make, folder = _capture_folder(root)
    hint = f"capture it: {make + ' && ' if make else ''}{_capture(engine, version, folder)}"
    return Diagnostic(*place, "engine-manifest", message, hint, severity="warning")


class UnlistedImage(Diagnostic):
    """``_missing``'s warning of an image no images.json entry gives the version of ``engines`` in: one for each
    image and place, naming every such engine (``per_image``; s37c: `vllm` and `vllm-bench`, which one image runs,
    were two warnings at one line)."""

    __slots__ = ("image", "engines")


def _unlisted(image: str, engines: list[str], place: tuple[str, int, int], root: Path) -> UnlistedImage:
    """The warning at ``place`` that ``image`` has no manifest of ``engines`` (no images.json entry says their
    versions): the entry to add there, and the capture of each."""
    import json

    one = len(engines) == 1
    make, folder = _capture_folder(root)
    entry = json.dumps({"images": {image: dict.fromkeys(engines, "VERSION")}})  # the image and engines named
    versions = f"VERSION the {engines[0]} release" if one else "each VERSION the release of its engine"
    manifests = "that version's manifest" if one else "their manifests"
    captures = " && ".join(_capture(engine, None, folder) for engine in engines)
    hint = (f"{make + ', then ' if make else ''}add the image to {folder}/images.json "
            f"('{entry}', {versions} the image installs) and capture {manifests}: {captures}")
    said = UnlistedImage(*place, "engine-manifest", f"image {image} has no {' or '.join(engines)} manifest", hint,
                         severity="warning")
    said.image, said.engines = image, tuple(engines)
    return said


def per_image(diagnostics: list[Diagnostic], root: Path) -> list[Diagnostic]:
    """``diagnostics`` with every ``UnlistedImage`` warning of one image at one place made one, naming each engine
    (of every row: one row may run `vllm serve` alone, another `vllm bench serve` too), after the others."""
    groups: dict[tuple, dict[str, None]] = {}
    for d in diagnostics:
        if isinstance(d, UnlistedImage):
            groups.setdefault((d.file, d.line, d.col, d.image), {}).update(dict.fromkeys(d.engines))
    return [d for d in diagnostics if not isinstance(d, UnlistedImage)] + [
        _unlisted(image, sorted(engines), (path, line, col), root)
        for (path, line, col, image), engines in groups.items()]


def _capture_folder(root: Path) -> tuple[str, str]:
    """(the `mkdir -p` that makes the repository's engines folder, "" where it has one; that folder, as
    ``repopaths.from_here`` names it, as every path of the fix is named): `engines capture --out`'s folder
    must exist."""
    folder = from_here(root, f"{fields.CONFIG_DIR}/engines")  # --out is from the current folder, as the fix is run
    return ("" if (root / fields.CONFIG_DIR / "engines").is_dir() else f"mkdir -p {folder}"), folder


def _capture(engine: str, version: str | None, folder: str) -> str:
    return f"sweepgate engines capture --engine {engine} --out {folder}/{engine}-{version or 'VERSION'}.json"


# What says where the row's config writes a field (fields.IMAGE, fields.KV_OFFLOAD_BACKEND's version):
# (file, line, col), or None when no config writes it as the row has it
ConfigPlace = Callable[[dict, str], "tuple[str, int, int] | None"]


def _pinned(calls: list[dict], engine: str, version: str | None) -> list[str]:
    """The distribution, as written, of each `pip install NAME==VERSION` of ``engine`` at ``version`` the job
    ran (a pin of another version does not install it)."""
    return [dist for call in calls if call.get("tool") == "pip"
            for dist, e, pinned in M.pins(call.get("argv") or []) if e == engine and pinned == version]


def _runs(root: Path, script: Path, engine: str) -> tuple[str, int]:
    """Where the script runs ``engine``'s `python3 -m MODULE`: its own line, else its line that calls into the
    library where the library runs it (``first_command``); else the script."""
    modules = [m for m, e in PYTHON_MODULES.items() if e == engine]
    return ((first_command(root, script, (runs_module(modules),)) if modules else None)
            or (str(script.relative_to(root)), 0))


def _origin(row: dict, calls: list[dict], script: Path, root: Path, engine: str, version: str | None,
            config_at: ConfigPlace | None) -> tuple[str, int, int]:
    """Where ``engine``'s version came from: the line a job's `pip install NAME==VERSION` takes it
    from (the config's KV-offload backend, or the script's pin); else the image's images.json entry;
    else the config's image line. The script itself when none of them is found."""
    pinned = _pinned(calls, engine, version)
    place = None
    if version is not None and pinned:
        backend = row.get(fields.KV_OFFLOAD_BACKEND)
        if (config_at and isinstance(backend, dict) and backend.get("name") == engine
                and str(backend.get("version")) == version):
            place = config_at(row, fields.KV_OFFLOAD_BACKEND)
        place = place or _pin_place(root, script, pinned, version)
    else:
        image = str(row.get(fields.IMAGE, ""))
        place = M.image_place(image, engine, root) or (config_at(row, fields.IMAGE) if config_at else None)
    return place or (str(script.relative_to(root)), 0, 0)


def _pin_place(root: Path, script: Path, dists: list[str], version: str) -> tuple[str, int, int] | None:
    """The line that writes ``version`` for `pip install DIST==...`: that line when it writes the version
    itself, else the line that sets the variable it reads (`readonly _SG_LM_EVAL_VERSION="0.4.9.1"`),
    else that pip line; else the first line that writes the version. None when no line does."""
    word = r"(?<![\w.-])" + re.escape(version) + r"(?![\w.-])"
    lines = list(script_lines(root, script))
    for dist in dists:
        pin = re.compile(r"(?<![\w.-])" + re.escape(dist) + r"(?:\[[^\]]*\])?==(\S*)")
        for rel, number, text in lines:
            found = pin.search(text)
            if not found:
                continue
            if re.search(word, found.group(1)):
                return rel, number, found.start() + 1
            var = re.match(r"\$\{?(\w+)", found.group(1))
            sets = re.compile(r"(?<![\w$])" + re.escape(var.group(1)) + r"=") if var else None
            return next(((r, n, m.start() + 1) for r, n, t in lines
                         if sets and (m := sets.search(t)) and re.search(word, t[m.end():])),
                        (rel, number, found.start() + 1))
    return next(((rel, number, m.start() + 1) for rel, number, text in lines if (m := re.search(word, text))), None)
