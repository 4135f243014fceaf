"""Check: JSON Schema plus semantic rules, collecting every problem as a diagnostic.

The schemas are the JSON files in ``configs/schema/``; the rules here are the
cross-field ones a schema cannot say well (topology, scopes, DRAM). Nothing
here stops at the first problem.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Iterator

from sweepgate.core import fields as F
from sweepgate.core import metrics as METRICS
from sweepgate.core.errors import Diagnostic, SweepgateError, os_failure
from sweepgate.core.load import MasterDoc, Revision, YamlDoc, at_value, load_doc, parse_yaml, refuse_linked_input

from sweepgate.core.schemas import SCHEMA_FILES, schema_bytes  # noqa: F401 - re-exported


@functools.lru_cache(maxsize=None)
def validator(name: str):
    import jsonschema

    schema = json.loads(schema_bytes(name))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@functools.lru_cache(maxsize=None)
def fast_validator(name: str):
    """A yes/no validator compiled from the same JSON schema (fastjsonschema).

    It only answers "valid?" on the hot path; every diagnostic still comes from
    jsonschema, which stays the authority (see ``schema_diagnostics``). The code
    generated ahead of time (``core.validators``) is used when it is current;
    otherwise it is compiled here, once per process, and never kept in the cache: code
    read back from there would run whatever whoever wrote the cache put in it (a cache
    restored by actions/cache, a workspace's .git a benchmark container could write).
    """
    raw = schema_bytes(name)
    validate = _generated_validator(name, raw)
    if validate is not None:
        return _yes_no(validate)
    from sweepgate.core import validators

    namespace: dict = {}  # the module `python -m sweepgate.core.validators` would commit for this schema
    exec(compile(validators.source(name, raw), f"<schema {name}>", "exec"), namespace)  # noqa: S102 - from our schema
    return _yes_no(namespace["validate"])


def _generated_validator(name: str, raw: bytes):
    """The validator committed in ``core.validators`` for this schema, if it is current."""
    from sweepgate.core import validators

    if name not in validators.GENERATED:
        return None
    import importlib

    module = importlib.import_module(f"sweepgate.core.validators.{name}")
    return module.validate if module.SCHEMA_SHA1 == validators.schema_sha1(raw) else None


def _yes_no(validate):
    def is_valid(data) -> bool:
        try:
            validate(data)
            return True
        except Exception:  # noqa: BLE001 - invalid or odd input: jsonschema explains it
            return False

    return is_valid


# --------------------------------------------------------------------------- schema errors -> diagnostics

def _path_text(path: Iterable) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _slip_of(key, allowed: list[str]) -> str | None:
    """The allowed name ``key`` is a slip of, if any."""
    import difflib

    close = difflib.get_close_matches(str(key), allowed, 1, 0.75)
    return close[0] if close else None


def _unknown_hint(key, allowed: list[str], missing: frozenset = frozenset()) -> str:
    """The fix for one unknown field: the allowed name it is a slip of (a rename, when that name
    is a required field the block lacks), else the allowed names."""
    close = _slip_of(key, allowed)
    if close in missing:
        return f"rename it to '{close}', a required field (allowed here: {', '.join(allowed)})"
    if close:
        return f"did you mean '{close}'? (allowed here: {', '.join(allowed)})"
    return "remove it or fix the spelling" + (f"; allowed here: {', '.join(allowed)}" if allowed else "")


def _missing_required(errors: list) -> dict[tuple, frozenset]:
    """path -> the required fields missing there (jsonschema says each in its own error)."""
    out: dict[tuple, set] = {}
    for e in errors:
        if e.validator == "required" and isinstance(e.instance, dict):
            out.setdefault(tuple(e.absolute_path), set()).update(
                r for r in e.validator_value if isinstance(r, str) and r not in e.instance)
    return {path: frozenset(names) for path, names in out.items()}


def _renamed(errors: list, missing: dict[tuple, frozenset]) -> set[tuple]:
    """(path, required field) of each missing field an unknown field at the same place is a slip of:
    said once, as the unknown field's rename (not also as "'description' is a required property")."""
    out = set()
    for e in errors:
        if e.validator == "additionalProperties" and isinstance(e.instance, dict):
            allowed = sorted((e.schema.get("properties") or {}).keys())
            here = missing.get(tuple(e.absolute_path), frozenset())
            out |= {(tuple(e.absolute_path), c) for k in e.instance if k not in allowed
                    if (c := _slip_of(k, allowed)) in here}
    return out


def _hint(error, fills: dict[str, str] | None = None) -> str:
    kw = error.validator
    if kw == "additionalProperties":
        allowed = sorted((error.schema.get("properties") or {}).keys())
        extra = [k for k in (error.instance or {}) if k not in allowed] if isinstance(error.instance, dict) else []
        return _unknown_hint(extra[0] if extra else "", allowed)
    if kw == "required":
        missing = next((r for r in error.validator_value if isinstance(r, str) and isinstance(error.instance, dict)
                        and r not in error.instance and error.message.startswith(repr(r))), None)
        return (fills or {}).get(missing) or "add the missing field"
    if kw in ("enum", "const"):
        options = error.validator_value if kw == "enum" else [error.validator_value]
        return "use one of: " + ", ".join(json.dumps(o) for o in options)
    if kw == "type":
        if error.validator_value == "boolean":
            return "write true or false, unquoted"
        if quoted := _quoted_number(error):
            return f"write {quoted}, not {json.dumps(error.instance)}"
        if mapping := _mapping_hint(error):
            return mapping
        if listed := _list_hint(error):
            return listed
        return f"use a value of type {error.validator_value}"
    if kw == "pattern":
        desc = error.schema.get("description") or ""
        return desc or f"match the pattern {error.validator_value}"
    if kw in ("minimum", "exclusiveMinimum", "maximum", "minItems", "minLength", "uniqueItems"):
        return error.schema.get("description") or "fix the value's range"
    return "fix the value to match the schema"


NUMBER_TEXT = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")
PLAIN_FLOW = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@/+-]*")  # characters a flow mapping's plain value may hold


def _mapping_hint(error) -> str | None:
    """For a plain value where the schema takes a mapping of one required field (`kv-offload-backend:
    native`), the mapping to write, that value under that field, and the fields it takes; None otherwise."""
    required, fields = error.schema.get("required") or [], sorted((error.schema.get("properties") or {}).keys())
    if (error.validator_value != "object" or len(required) != 1 or isinstance(error.instance, bool)
            or not isinstance(error.instance, (str, int, float))):
        return None
    value = _flow_value(error.instance)
    return f"write it as a mapping, {{{required[0]}: {value}}}" + (f" (its fields: {', '.join(fields)})" if fields else "")


def _list_hint(error) -> str | None:
    """For a plain value where the schema takes a list (`config-keys: KEY`, `conc-list: 4`), the list to write,
    in either of YAML's forms (s47h: "use a value of type array" named neither YAML's word nor the form)."""
    if error.validator_value != "array" or isinstance(error.instance, bool) \
            or not isinstance(error.instance, (str, int, float)):
        return None
    return f"write it as a list, [{_flow_value(error.instance, as_text=False)}], or one '- ITEM' line an item under it"


def _flow_value(instance, as_text: bool = True) -> str:
    """``instance`` as a YAML flow collection's item: plain where it reads back as the same text, else
    JSON-quoted (text YAML would read as a number, a boolean or null, or holding a space or a comma).
    ``as_text`` False: a number stays a number (a list's item keeps the value given)."""
    from sweepgate.core.fastyaml import retyped
    value = str(instance)
    if (as_text or isinstance(instance, str)) and (not PLAIN_FLOW.fullmatch(value) or retyped(value)):
        return json.dumps(value)
    return value


def _quoted_number(error) -> str | None:
    """The number a text value holds where the schema wants a number (``tp: "8"``: quotes make it text),
    as it is written without them; None for any other value or type."""
    wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    text = error.instance.strip() if isinstance(error.instance, str) else ""
    if not NUMBER_TEXT.fullmatch(text) or not {"integer", "number"} & set(wanted):
        return None
    return text if "number" in wanted or "." not in text else None


def _yaml_slip(error) -> tuple[str, str] | None:
    """(message, fix) for a text value that YAML read as something else: an empty value (a ' #'
    starts a comment) or a mapping (an unquoted ': ' inside the text); None for other errors."""
    if error.validator != "type" or "string" not in (error.validator_value if isinstance(
            error.validator_value, list) else [error.validator_value]):
        return None
    if error.instance is None and error.absolute_path and isinstance(error.absolute_path[-1], int):
        return ("has no text", "write it after the '- ', in quotes (\"...\") if it starts with '#' (YAML reads "
                "an unquoted '#' there as the start of a comment)")
    if error.instance is None:
        return ("has no value", "write the value after the colon; quote it (\"...\") if it starts with '#', "
                "which YAML reads as the start of a comment")
    if isinstance(error.instance, dict) and len(error.instance) == 1:
        key = next(iter(error.instance))
        return (f"is a mapping ('{key}: ...'), not text: YAML read the ': ' in it as a key and a value",
                "put the whole text in quotes (\"...\")")
    return None


def schema_problems(data, name: str, prefix: tuple = (), fills: dict[str, str] | None = None
                    ) -> list[tuple[tuple, str, str, str]]:
    """Every schema violation as (path, rule, message, hint); ``fills``: a missing required field's fix, the line to
    add (``pr-link`` -> its caller's link of this repository, which the schema cannot know), by the field's name."""
    out = []
    # A changelog problem is reported at the entry's own line: its list index adds nothing.
    shown = (lambda p: p[len(prefix) + 1:]) if name == "changelog" else (lambda p: p)
    errors = list(validator(name).iter_errors(data))
    typed = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    missing = _missing_required(errors)
    renamed = _renamed(errors, missing)
    for error in errors:
        if error.validator in ("const", "enum") and tuple(error.absolute_path) in typed:
            continue  # the wrong type at the same place already says it, and better
        if error.validator == "required" and {(tuple(error.absolute_path), r) for r in error.validator_value
                                              if r not in error.instance} <= renamed:
            continue  # the misspelt field's line says it: rename it
        path = prefix + tuple(error.absolute_path)
        if error.validator == "additionalProperties":
            extra = sorted(set(error.instance) - set((error.schema.get("properties") or {}).keys()))
            allowed = sorted((error.schema.get("properties") or {}).keys())
            here = missing.get(tuple(error.absolute_path), frozenset())
            for key in extra:
                out.append((path + (key,), f"schema-{name}", f"{_path_text(shown(path + (key,)))}: unknown field "
                            f"'{key}'", _unknown_hint(key, allowed, here)))
            continue
        if "propertyNames" in error.relative_schema_path:  # a key's own name: at that key's line
            parent = _path_text(shown(path))
            out.append((path + (error.instance,), f"schema-{name}",
                        f"{parent + ': ' if parent else ''}key {error.instance!r} is not a valid name",
                        error.schema.get("description") or "rename it"))
            continue
        where = _path_text(shown(path)) or ("entry" if name == "changelog" else "(top level)")
        refused = error.validator_value.get("description") if error.validator == "not" and isinstance(
            error.validator_value, dict) else None
        if refused:  # a value the schema refuses by name (envSetting's variables): say why, not the regex
            allowed = error.schema.get("description")
            out.append((at_value(path), f"schema-{name}", f"{where}: {error.instance!r} {refused}",
                        f"remove it ({allowed})" if allowed else "remove it"))
            continue
        message, hint = _yaml_slip(error) or (error.message, _hint(error, fills))
        out.append((at_value(path), f"schema-{name}", f"{where}: {message}", hint))  # a scalar: at its value
    return list(dict.fromkeys(out))  # once each: a config's if/then/else repeats its type and required fields


def schema_diagnostics(doc: YamlDoc, data, name: str, prefix: tuple = (),
                       fills: dict[str, str] | None = None) -> list[Diagnostic]:
    return [doc.diag(*problem) for problem in schema_problems(data, name, prefix, fills)]


# --------------------------------------------------------------------------- master configs

def _points(config: dict) -> Iterator[tuple[tuple, str, dict, dict]]:
    """(path, scenario, scenario-block, point) for every search-space point of a config."""
    scenarios = config.get(F.SCENARIOS)
    if not isinstance(scenarios, dict):  # the schema names what it is instead
        return
    for scenario in F.SCENARIO_TYPES:
        blocks = scenarios.get(scenario) or []
        if not isinstance(blocks, list):
            continue
        for b, block in enumerate(blocks):
            if not isinstance(block, dict):
                continue
            points = block.get(F.SEARCH_SPACE)
            for p, point in enumerate(points if isinstance(points, list) else []):
                if isinstance(point, dict):
                    yield (F.SCENARIOS, scenario, b, F.SEARCH_SPACE, p), scenario, block, point


def _conc_rules(point: dict) -> Iterator[tuple[str, str, str]]:
    has_range = F.CONC_START in point or F.CONC_END in point
    has_list = F.CONC_LIST in point
    if has_range and has_list:
        yield "conc", f"both {F.CONC_LIST} and {F.CONC_START}/{F.CONC_END} are set", "keep either the list or the range"
    elif not has_range and not has_list:
        yield "conc", f"no concurrency: set {F.CONC_LIST} or {F.CONC_START} and {F.CONC_END}", \
            f"add e.g. '{F.CONC_LIST}: [4, 8, 16]'"
    elif has_range and (F.CONC_START not in point or F.CONC_END not in point):
        yield "conc", f"{F.CONC_START} and {F.CONC_END} must be given together", "add the missing bound"
    elif has_range and _int(point[F.CONC_START]) and _int(point[F.CONC_END]) and point[F.CONC_START] > point[F.CONC_END]:
        yield "conc", f"{F.CONC_START} ({point[F.CONC_START]}) is above {F.CONC_END} ({point[F.CONC_END]})", \
            "swap the bounds"


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _dcp_rule(obj: dict) -> Iterator[tuple[str, str, str]]:
    tp, dcp = obj.get(F.TP), obj.get(F.DCP_SIZE, 1)
    if _int(tp) and _int(dcp) and dcp > 0 and tp % dcp != 0:
        yield "dcp-divides-tp", f"tp ({tp}) is not divisible by {F.DCP_SIZE} ({dcp})", \
            f"choose a {F.DCP_SIZE} that divides tp"


def _component_rule(value, name: str) -> Iterator[tuple[str, str, str]]:
    if isinstance(value, dict) and isinstance(value.get("version"), str) and value["version"].startswith("image:"):
        yield "component-version", f"{name}.version '{value['version']}' is an image reference", \
            "give the component's own release, package version or source commit"


def config_rules(key: str, config: dict) -> Iterator[tuple[tuple, str, str, str]]:
    """Semantic rules of one master config: (path, rule, message, hint)."""
    if not isinstance(config, dict):
        return
    points = list(_points(config))
    yield from _config_level_rules(config, points)
    multinode = config.get(F.MULTINODE) is True
    for path, scenario, block, point in points:
        yield from _point_rules(path, scenario, block, point, multinode)


def _config_level_rules(config: dict, points: list) -> Iterator[tuple[tuple, str, str, str]]:
    """Rules on the config as a whole: scenarios, runner, and components declared twice."""
    scenarios = config.get(F.SCENARIOS)
    if isinstance(scenarios, dict) and not any(scenarios.get(s) for s in F.SCENARIO_TYPES):
        yield (F.SCENARIOS,), "scenario-required", "no scenario has any entries", \
            f"add a '{F.FIXED_SEQ_LEN}' or '{F.AGENTIC_CODING}' block"
    if isinstance(scenarios, dict) and scenarios.get(F.AGENTIC_CODING):
        runner = config.get(F.RUNNER)
        if isinstance(runner, str) and not runner.startswith(F.CLUSTER_PREFIX):
            yield (F.RUNNER,), "agentic-cluster-runner", \
                f"agentic configs must run on one exact fleet, but runner is '{runner}'", \
                f"use a '{F.CLUSTER_PREFIX}<name>' runner label"
    for rule, msg, hint in _component_rule(config.get(F.ROUTER), F.ROUTER):
        yield (F.ROUTER,), rule, msg, hint
    for field_name in (F.ROUTER, F.KV_P2P_TRANSFER):
        if config.get(field_name) is not None and any(p.get(field_name) is not None for *_, p in points):
            yield (field_name,), "component-scope", \
                f"{field_name} is declared at the top level and in search-space entries", \
                "declare it in one place only"
    if isinstance(config.get(F.RESULTS), dict):
        yield from _results_rules(config[F.RESULTS])
    if config.get(F.DISAGG) is True and config.get(F.KV_P2P_TRANSFER) is None and (
            not points or any(p.get(F.KV_P2P_TRANSFER) is None for *_, p in points)):
        yield (F.DISAGG,), "disagg-transfer", \
            f"disagg: true needs {F.KV_P2P_TRANSFER} at the top level or in every search-space entry", \
            f"add e.g. '{F.KV_P2P_TRANSFER}: nixl' next to 'disagg: true'"


THRESHOLD_RULE = "results-threshold"  # the title of a results threshold compare cannot judge by


def _results_rules(results: dict) -> Iterator[tuple[tuple, str, str, str]]:
    """A config's ``results`` thresholds: each names a metric compare judges, and none on a
    higher-is-better figure is 1 or more (no drop can reach 100 %: the check would be off)."""
    thresholds = results.get(F.RESULTS_THRESHOLDS)
    for metric, value in (thresholds.items() if isinstance(thresholds, dict) else ()):
        path = (F.RESULTS, F.RESULTS_THRESHOLDS, metric)
        if metric not in METRICS.COMPARED_METRICS:
            yield path, THRESHOLD_RULE, *_unjudged(str(metric))
        elif METRICS.DIRECTION[metric] == METRICS.HIGHER_IS_BETTER and _number(value) and value >= 1:
            yield path, THRESHOLD_RULE, *_unreachable(f"{metric} threshold", value)
    overall = results.get(F.RESULTS_THRESHOLD)
    if _number(overall) and overall >= 1:
        yield (F.RESULTS, F.RESULTS_THRESHOLD), THRESHOLD_RULE, *_unreachable("threshold", overall)


def _unjudged(metric: str) -> tuple[str, str]:
    """Why a threshold on ``metric`` would do nothing, and what to write: a figure results keep but
    compare never judges (a p90, a spread), or a name no result has (with the nearest judged one)."""
    judged = ", ".join(METRICS.COMPARED_METRICS)
    stat = METRICS.latency_stat(metric)  # ttft_p90_ms, ttft_std_ms, and ttft_p99_99_ms, ttft_max_ms
    if stat or metric in METRICS.DIRECTION:
        spread = stat is not None and stat[1] in METRICS.UNDIRECTED_STATS
        what = "a spread, neither better nor worse," if spread else "a figure results keep but"
        return f"'{metric}' is {what} never judged by results compare: a threshold on it does nothing", \
            f"set thresholds on the metrics compare judges: {judged}"
    import difflib  # only for a misspelt name: not on the gate's path otherwise

    near = difflib.get_close_matches(metric, METRICS.COMPARED_METRICS, n=1)
    return f"unknown metric '{metric}'", (f"did you mean '{near[0]}'? " if near else "") + \
        f"the metrics compare judges: {judged}"


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _unreachable(what: str, value: float) -> tuple[str, str]:
    return (f"{what} {value:g} means no throughput drop could ever count as a regression",
            f"write a fraction below 1 ({METRICS.fraction_example(value)})")


def _point_rules(path: tuple, scenario: str, block: dict, point: dict,
                 multinode: bool) -> list[tuple[tuple, str, str, str]]:
    """Rules on one search-space point, in the order they are reported."""
    problems = [(path, rule, msg, hint) for rule, msg, hint in _conc_rules(point)]
    for name in (F.ROUTER, F.KV_OFFLOAD_BACKEND):
        problems += [(path + (name,), rule, msg, hint) for rule, msg, hint in _component_rule(point.get(name), name)]
    if not multinode and point.get(F.KV_P2P_TRANSFER) is not None:
        problems.append((path + (F.KV_P2P_TRANSFER,), "component-scope",
                         f"{F.KV_P2P_TRANSFER} is only valid on multinode configs", "remove it"))
    workers = [r for r in (F.PREFILL, F.DECODE) if isinstance(point.get(r), dict)]
    for role in workers:
        problems += [(path + (role,), rule, f"{role}: {msg}", hint) for rule, msg, hint in _dcp_rule(point[role])]
    if len(workers) == 2 and bool(point[F.PREFILL].get(F.HARDWARE)) != bool(point[F.DECODE].get(F.HARDWARE)):
        problems.append((path, "worker-hardware", "hardware is set on only one of prefill and decode",
                         "set hardware on both workers or on neither"))
    if scenario == F.AGENTIC_CODING:
        problems += _agentic_topology_rules(path, point, workers, multinode)
        problems += _kv_offload_rules(path, block, point)
    elif not multinode:
        problems += [(path, r, m, h) for r, m, h in _dcp_rule(point)]
    return problems


def _agentic_topology_rules(path: tuple, point: dict, workers: list[str],
                            multinode: bool) -> list[tuple[tuple, str, str, str]]:
    """Agentic points: workers on multinode configs, tp and an offloading choice on single-node ones."""
    problems = []
    if multinode:
        if F.TP in point or len(workers) != 2:
            problems.append((path, "topology", "multinode agentic points need prefill and decode, not tp",
                             "describe the workers under prefill and decode"))
        explicit = [f for f in (F.PP, F.DCP_SIZE, F.PCP_SIZE) if f in point]
        if explicit:
            problems.append((path + (explicit[0],), "topology",
                             f"multinode agentic points cannot set {', '.join(explicit)}",
                             "set them on the prefill/decode workers instead"))
        return problems
    if F.TP not in point or F.PREFILL in point or F.DECODE in point:
        problems.append((path, "topology", "single-node agentic points need tp and no prefill/decode",
                         "give tp (and ep, dp-attn) on the point"))
    if F.KV_OFFLOADING not in point:
        problems.append((path, "kv-offloading-required",
                         f"single-node agentic points must set {F.KV_OFFLOADING}",
                         f"add '{F.KV_OFFLOADING}: none' or '{F.KV_OFFLOADING}: dram'"))
    problems.extend((path, r, m, h) for r, m, h in _dcp_rule(point))
    return problems


def _kv_offload_rules(path: tuple, block: dict, point: dict) -> list[tuple[tuple, str, str, str]]:
    """An offload backend needs dram offloading, and dram offloading needs a backend and a DRAM share."""
    problems = []
    kv = point.get(F.KV_OFFLOADING)
    backend = point.get(F.KV_OFFLOAD_BACKEND)
    if backend is not None and kv in (None, "none"):
        problems.append((path + (F.KV_OFFLOAD_BACKEND,), "kv-offload-backend",
                         f"{F.KV_OFFLOAD_BACKEND} is set but {F.KV_OFFLOADING} is {kv or 'unset'}",
                         f"set '{F.KV_OFFLOADING}: dram' or remove the backend"))
    if kv == "dram":
        if backend is None:
            problems.append((path, "kv-offload-backend",
                             f"{F.KV_OFFLOADING}: dram needs a {F.KV_OFFLOAD_BACKEND}",
                             f"add '{F.KV_OFFLOAD_BACKEND}: {{name: vllm-simple}}' "
                                     f"(benchmark_lib's backends: {', '.join(F.KV_OFFLOAD_BACKENDS)})"))
        if block.get(F.DRAM_UTILIZATION) is None:
            problems.append((path[:3], "dram-utilization",
                             f"{F.KV_OFFLOADING}: dram needs {F.DRAM_UTILIZATION} on its scenario block",
                             f"add '{F.DRAM_UTILIZATION}: 0.8' (a fraction of the node's host DRAM)"))
    return problems


def config_problems(key: str, config) -> list[tuple[tuple, str, str, str]]:
    """Every schema and rule problem of one config, as (path, rule, message, hint)."""
    rules = [((key, *path), rule, f"{key}: {msg}", hint) for path, rule, msg, hint in config_rules(key, config)]
    if not rules and fast_validator("master")({key: config}):
        return []
    return schema_problems({key: config}, "master") + rules


NOT_A_MAPPING = "a master config file must be a mapping of config keys"
MAPPING_HINT = "write 'config-key: {image: ..., ...}' entries"
SCHEMA_MASTER_RULE = "schema-master"  # the title of a master config that is no mapping of config keys
WRONG_FILE_RULE = "wrong-file"  # the title of a runners file given as a master config, or the other way


def _is_empty(doc) -> bool:
    """A master config file that holds no YAML value (blank, comments only, ``~``): no mapping, so
    refused as the reference refuses it; ``{}`` is a mapping, of no config keys."""
    if isinstance(doc, MasterDoc):
        return not doc.keys() and parse_yaml(doc.text, doc.path) is None
    return doc.data is None


def check_masters(rev: Revision) -> list[Diagnostic]:
    """Schema and semantic diagnostics for every master config; fills rev.configs/rev.owner.

    Files and blocks whose exact text passed before (same rules) are neither parsed nor checked again.
    """
    diags: list[Diagnostic] = []
    for doc in rev.masters:
        if _is_runners_file(doc):
            diags.append(doc.diag((), WRONG_FILE_RULE, "this is a runners file (only 'labels' and 'hardware'), "
                                  "not a master config of config keys", f"pass the master configs, e.g. "
                                  f"{F.CONFIG_DIR}/{F.MASTER_GLOB}; {F.RUNNERS_FILE} goes to --runner-config"))
            continue
        if _is_empty(doc):
            diags.append(doc.diag((), SCHEMA_MASTER_RULE, f"{NOT_A_MAPPING}, and this one is empty",
                                  f"{MAPPING_HINT}, or leave the file out"))
            continue
        if isinstance(doc, MasterDoc) and not any(key in rev.owner for key in doc.keys()):
            rev.owner.update(dict.fromkeys(doc.keys(), doc))
            rev.configs.add_all(doc.keys(), doc)
            problems = _remembered(rev.cache, f"file:{doc.blob}" if doc.blob else None,
                                   lambda doc=doc: list(_verdicts(rev, doc, _cached_verdicts(rev, doc, doc.keys()))))
            diags.extend(doc.diag(*problem) for problem in problems)
            continue
        if isinstance(doc, MasterDoc):
            items = [(key, None) for key in doc.keys()]
        else:
            data = doc.data
            if not isinstance(data, dict):
                diags.append(doc.diag((), SCHEMA_MASTER_RULE, NOT_A_MAPPING, MAPPING_HINT))
                continue
            items = list(data.items())
        owned = []
        for key, config in items:
            if key in rev.owner:  # at both copies, each naming the other: whichever a PR added is annotated
                first = rev.owner[key]
                diags.append(doc.diag((key,), F.DUPLICATE_KEY_RULE,
                                      f"config key '{key}' is also defined in {first.path}:{first.locate((key,))[0]}",
                                      "rename one of them; config keys are global"))
                diags.append(first.diag((key,), F.DUPLICATE_KEY_RULE,
                                        f"config key '{key}' is also defined in {doc.path}:{doc.locate((key,))[0]}",
                                        "rename one of them; config keys are global"))
                continue
            rev.owner[key] = doc
            rev.configs.add(key, doc, config)
            owned.append(key)
        diags.extend(doc.diag(*problem) for problem in _verdicts(rev, doc, _cached_verdicts(rev, doc, owned)))
    return diags


def _remembered(cache, key: str | None, compute) -> list:
    """The problems recorded under ``key``, or ``compute()``'s, recorded."""
    found = cache.verdict(key) if (cache and key) else None
    if found is None:
        found = compute()
        if cache and key:
            cache.record(key, found)
    return found


def _cached_verdicts(rev: Revision, doc, keys) -> dict:
    """Config key -> its block's recorded problems, or None when its text was never checked."""
    cache, blocks = rev.cache, doc.blocks or {}
    return {key: cache.verdict(blocks[key]) if (cache and key in blocks) else None for key in keys}


def _verdicts(rev: Revision, doc, verdicts: dict) -> Iterator[tuple]:
    """The problems of one file's configs, in order: cached ones as they are, the others checked
    (their blocks parsed in one batch) and recorded."""
    if isinstance(doc, MasterDoc):
        doc.load([key for key, found in verdicts.items() if found is None])
    blocks = doc.blocks or {}
    for key, problems in verdicts.items():
        yield from problems if problems is not None else _remembered(
            rev.cache, blocks.get(key), lambda: config_problems(key, rev.configs[key]))


def _not_a_runners_mapping(doc: YamlDoc) -> list[Diagnostic]:
    if isinstance(doc.data, dict):
        return []
    return [doc.diag((), "schema-runners", "runners file must be a mapping with 'labels'",
                     "add 'labels:' mapping runner labels to node names")]


RUNNER_FIELDS = {F.LABELS, F.HARDWARE}  # a runners file's top level (its schema's)


def _is_runners_file(doc) -> bool:
    """A runners file given where a master config goes: its keys are the runners file's, labels too."""
    keys = doc.keys() if isinstance(doc, MasterDoc) else (list(doc.data) if isinstance(doc.data, dict) else [])
    return F.LABELS in keys and set(keys) <= RUNNER_FIELDS


def _is_master_config(data: dict) -> bool:
    """A master config given as the runners file: no labels, and config recipes (image, model)."""
    return F.LABELS not in data and any(isinstance(v, dict) and (F.IMAGE in v or F.MODEL in v)
                                        for v in data.values())


def check_runners(rev: Revision) -> list[Diagnostic]:
    doc = rev.runners
    if not isinstance(doc.data, dict):
        return _not_a_runners_mapping(doc)
    if _is_master_config(doc.data):
        return [doc.diag((), WRONG_FILE_RULE, "this is a master config (config recipes, no 'labels'), not a "
                         "runners file", f"pass the runners file as --runner-config, e.g. {F.RUNNERS_FILE}")]
    cache, key = rev.cache, f"runners:{doc.blob}"
    if cache and doc.blob and cache.verdict(key) == []:
        return []
    if fast_validator("runners")(doc.data):
        diags = []
    else:
        diags = schema_diagnostics(doc, doc.data, "runners")
    if not diags and cache and doc.blob:
        cache.record(key, [])
    return diags


def require_runners_file(root: str, flag: str, fix: str) -> None:
    """Refuse a checkout passed as ``flag`` (``--tools``, ``--runners``) whose configs/runners.yaml is no
    file: none there (``FLAG: no configs/runners.yaml in this folder``, at ``root``), or what stands in its
    place said as what it is, at it (``os_reason``'s words: a folder, a symbolic link to nothing or in a
    loop, a FIFO); nothing is read. The fix is ``fix`` (the checkout to pass) even for a link: the file is
    read as git stores it (``checked_runners``), where a link is only the name it points to."""
    import errno
    import stat

    from sweepgate.core.errors import fail, link_trouble, os_reason
    from sweepgate.core.worktop import not_a_file, shown_path

    path = os.path.join(root, F.RUNNERS_FILE)
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise not_a_file(path, mode)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR) and link_trouble(path) is None:
            raise fail(root, 0, f"{flag}: no {F.RUNNERS_FILE} in this folder", fix) from None
        raise fail(shown_path(root, F.RUNNERS_FILE), 0, f"{flag}: {os_reason(exc)}", fix) from None


def checked_runners(root: str, unreadable=None) -> dict:
    """configs/runners.yaml of the checkout at ``root`` ({} when there is none), as ``checked_runners_doc``
    reads and checks it."""
    doc = checked_runners_doc(root, unreadable)
    return doc.data if doc is not None else {}


def checked_runners_doc(root: str, unreadable=None):
    """The document (``load.YamlDoc``) of configs/runners.yaml of the checkout at ``root``, parsed and held
    to its schema (None when there is none), so a problem can be said at its line: a job's environment and
    the fan-out guard read it, so a `gpus-per-node` of 0, "8" or true, or `hardware` as a list, is refused at
    its line, never met as an internal error later.
    Read as git stores it (``worktop.stored_bytes``): a symbolic link there is the name it points to,
    so `ci row-env` on the GPU host never quotes a host file an approved commit links to; such a link is
    refused as the link it is (``load.linked_input``, the name it points to only: the host's files are
    not looked at, nor said to be there or not), never parsed as the text of its name. One that is
    there but cannot be read (this user may not, a folder in its place) is refused, never read as none
    (the job would lose its hardware facts, and take the identity of a checkout without them): in one line
    at it, or as ``unreadable(root, path, OSError)`` makes it (the run identity's ``identity.unreadable``).
    A configs folder that is a symbolic link is refused alike, never read as no runners file (the pool
    check and the hardware facts would be skipped); a problem is said at the checkout's file
    (``main/configs/runners.yaml`` for ``--tools main``)."""
    from sweepgate.core.worktop import READABLE_FIX, shown_path, stored_bytes

    def shown(rel: str) -> str:
        return shown_path(root, rel)

    # its bytes would be the name it points to; what it points at is never looked at
    refuse_linked_input(root, F.RUNNERS_FILE, shown, follow=False)
    try:
        data = stored_bytes(root, F.RUNNERS_FILE, strict=True)
    except OSError as exc:
        if unreadable is not None:
            raise unreadable(root, F.RUNNERS_FILE, exc) from None
        raise os_failure(shown(F.RUNNERS_FILE), "cannot read it", exc, READABLE_FIX) from None
    if data is None:
        return None
    doc = load_doc(shown(F.RUNNERS_FILE), data)
    # a valid file is told by the generated validator alone: jsonschema, which only words refusals, is
    # not imported (a GPU host's python3 has PyYAML and no more, docs/security.md)
    diags = _not_a_runners_mapping(doc) or ([] if fast_validator("runners")(doc.data)
                                            else _runners_refused(doc))
    if diags:
        raise SweepgateError(diags)
    return doc


# Where a host without jsonschema (README's host install: sweepgate and PyYAML alone) sends its reader.
WHERE_SAID_FIX = ("see each problem at its line with `sweepgate plan` from a full install of sweepgate "
                  "on this commit, and correct them there")


def _runners_refused(doc) -> list[Diagnostic]:
    """What the schema refuses in configs/runners.yaml: jsonschema's errors at their lines; on a host whose
    python3 has no jsonschema (the generated validator said no), one line at the file saying so."""
    try:
        return schema_diagnostics(doc, doc.data, "runners")
    except ModuleNotFoundError as exc:
        if exc.name != "jsonschema":
            raise
        return [Diagnostic(doc.path, 1, 0, "", "does not follow its schema (this python3 has no jsonschema "
                           "to say where: a GPU host's install holds sweepgate and PyYAML alone)",
                           WHERE_SAID_FIX)]


def check_placement(rev: Revision) -> list[Diagnostic]:
    """Configs the runner cannot hold (multi-node pool, single-node node), at the point's (or worker's) line.

    A verdict is cached per block text and runners file version.
    """
    from sweepgate.core.placement import config_problems as placement_problems
    from sweepgate.core.placement import single_node_problems, worker_total_problems

    runners = rev.runners.data if isinstance(rev.runners.data, dict) else {}
    cache, runners_blob = rev.cache, rev.runners.blob

    def problems(config) -> list:  # an oversized worker is reported once, not also as unplaceable
        return worker_total_problems(config, runners) or (placement_problems(config, runners)
                                                          + single_node_problems(config, runners))

    def block_problems(key: str, doc) -> list:
        block = (doc.blocks or {}).get(key)
        return _remembered(cache, f"placement:{block}:{runners_blob}" if (block and runners_blob) else None,
                           lambda: [((key, *path), rule, f"{key}: {msg}", hint)
                                    for path, rule, msg, hint in problems(rev.configs[key])])

    by_doc: dict[int, tuple] = {}
    for key, doc in rev.owner.items():
        by_doc.setdefault(id(doc), (doc, []))[1].append(key)
    diags = []
    for doc, keys in by_doc.values():
        whole = isinstance(doc, MasterDoc) and doc.blob and runners_blob and len(keys) == len(doc.blocks)
        found = _remembered(cache, f"placement-file:{doc.blob}:{runners_blob}" if whole else None,
                            lambda doc=doc, keys=keys: [p for key in keys for p in block_problems(key, doc)])
        diags.extend(doc.diag(*problem) for problem in found)
    return diags


def check_revision(rev: Revision) -> None:
    """Raise one SweepgateError carrying every config and runner problem."""
    diags = check_masters(rev) + check_runners(rev)
    if not diags:
        diags = check_placement(rev)
    if rev.cache is not None:
        rev.cache.flush({doc.path: set((doc.blocks or {}).values()) for doc in rev.masters})
    if diags:
        raise SweepgateError(sorted(diags))


# --------------------------------------------------------------------------- changelog entries

def entry_rules(entry: dict) -> Iterator[tuple[tuple, str, str, str]]:
    if not isinstance(entry, dict):
        return
    if entry.get(F.APPEND_ONLY) is True:
        mixed = [f for f in (F.EVALS_ONLY, F.ALL_EVALS) if entry.get(f) is True]
        if entry.get(F.EVAL_MIN_PREFILL_EP) is not None:
            mixed.append(F.EVAL_MIN_PREFILL_EP)
        if mixed:
            yield (F.APPEND_ONLY,), F.APPEND_ONLY_MIXED_RULE, \
                f"append-only cannot be combined with {', '.join(mixed)}", \
                "split the eval request into its own entry and PR"


def check_entries(doc: YamlDoc, entries, offset: tuple = (), fills: dict[str, str] | None = None) -> list[Diagnostic]:
    """Schema + rules for a list of changelog entries; paths are located through ``doc`` (``fills``: as
    ``schema_problems``)."""
    if not isinstance(entries, list):
        return [doc.diag(offset, F.SCHEMA_CHANGELOG_RULE, "changelog entries must be a YAML list",
                         "start each entry with '- config-keys:'")]
    if fast_validator("changelog")(entries):
        diags = []
    else:
        diags = schema_diagnostics(doc, entries, "changelog", offset, fills)
    for i, entry in enumerate(entries):
        for path, rule, msg, hint in entry_rules(entry):
            diags.append(doc.diag(offset + (i, *path), rule, msg, hint))
    return diags
