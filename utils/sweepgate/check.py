"""Check: JSON Schema plus semantic rules, collecting every problem as a diagnostic.

The schemas are the JSON files in ``configs/schema/``; the rules here are the
cross-field ones a schema cannot say well (topology, scopes, DRAM). Nothing
here stops at the first problem.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Iterable, Iterator

from sweepgate import fields as F
from sweepgate.errors import Diagnostic, SweepgateError
from sweepgate.load import Revision, YamlDoc

SCHEMA_FILES = {
    "master": "master-config.schema.json",
    "runners": "runners.schema.json",
    "changelog": "perf-changelog.schema.json",
    "row": "matrix-row.schema.json",
}


def schema_dir() -> Path:
    """configs/schema of the sweepgate checkout this package was installed from."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / F.SCHEMA_DIR
        if (candidate / SCHEMA_FILES["master"]).is_file():
            return candidate
    raise SweepgateError(Diagnostic(F.SCHEMA_DIR, 0, 0, "install", "sweepgate's JSON schemas are missing",
                                    "install sweepgate from its checkout (pip install -e .)"))


@functools.lru_cache(maxsize=None)
def validator(name: str):
    import jsonschema

    schema = json.loads((schema_dir() / SCHEMA_FILES[name]).read_text())
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


# --------------------------------------------------------------------------- schema errors -> diagnostics

def _path_text(path: Iterable) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _hint(error) -> str:
    kw = error.validator
    if kw == "additionalProperties":
        allowed = sorted((error.schema.get("properties") or {}).keys())
        return "remove it or fix the spelling" + (f"; allowed here: {', '.join(allowed)}" if allowed else "")
    if kw == "required":
        return "add the missing field"
    if kw in ("enum", "const"):
        options = error.validator_value if kw == "enum" else [error.validator_value]
        return "use one of: " + ", ".join(json.dumps(o) for o in options)
    if kw == "type":
        return f"use a value of type {error.validator_value}"
    if kw == "pattern":
        desc = error.schema.get("description") or ""
        return desc or f"match the pattern {error.validator_value}"
    if kw == "propertyNames":
        return "use letters, digits, '.', '_' and '-' only"
    if kw in ("minimum", "exclusiveMinimum", "maximum", "minItems", "minLength", "uniqueItems"):
        return "fix the value's range"
    return "fix the value to match the schema"


def schema_diagnostics(doc: YamlDoc, data, name: str, prefix: tuple = ()) -> list[Diagnostic]:
    out = []
    for error in validator(name).iter_errors(data):
        path = prefix + tuple(error.absolute_path)
        if error.validator == "additionalProperties":
            extra = sorted(set(error.instance) - set((error.schema.get("properties") or {}).keys()))
            for key in extra:
                out.append(doc.diag(path + (key,), f"schema-{name}",
                                    f"{_path_text(path + (key,))}: unknown field '{key}'", _hint(error)))
            continue
        if error.validator == "propertyNames":
            path = path + (error.instance,)
        where = _path_text(path) or "(top level)"
        out.append(doc.diag(path, f"schema-{name}", f"{where}: {error.message}", _hint(error)))
    return out


# --------------------------------------------------------------------------- master configs

def _points(config: dict) -> Iterator[tuple[tuple, str, dict, dict]]:
    """(path, scenario, scenario-block, point) for every search-space point of a config."""
    scenarios = config.get(F.SCENARIOS) or {}
    for scenario in F.SCENARIO_TYPES:
        blocks = scenarios.get(scenario) or []
        if not isinstance(blocks, list):
            continue
        for b, block in enumerate(blocks):
            if not isinstance(block, dict):
                continue
            for p, point in enumerate(block.get(F.SEARCH_SPACE) or []):
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
    multinode = config.get(F.MULTINODE) is True
    disagg = config.get(F.DISAGG) is True
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

    points = list(_points(config))
    for field_name in (F.ROUTER, F.KV_P2P_TRANSFER):
        if config.get(field_name) is not None and any(p.get(field_name) is not None for *_, p in points):
            yield (field_name,), "component-scope", \
                f"{field_name} is declared at the top level and in search-space entries", \
                "declare it in one place only"
    if disagg and config.get(F.KV_P2P_TRANSFER) is None and (
            not points or any(p.get(F.KV_P2P_TRANSFER) is None for *_, p in points)):
        yield (F.DISAGG,), "disagg-transfer", \
            f"disagg: true needs {F.KV_P2P_TRANSFER} at the top level or in every search-space entry", \
            f"add e.g. '{F.KV_P2P_TRANSFER}: nixl' next to 'disagg: true'"

    for path, scenario, block, point in points:
        problems: list[tuple[tuple, str, str, str]] = []
        for rule, msg, hint in _conc_rules(point):
            problems.append((path, rule, msg, hint))
        for rule, msg, hint in _component_rule(point.get(F.ROUTER), F.ROUTER):
            problems.append((path + (F.ROUTER,), rule, msg, hint))
        for rule, msg, hint in _component_rule(point.get(F.KV_OFFLOAD_BACKEND), F.KV_OFFLOAD_BACKEND):
            problems.append((path + (F.KV_OFFLOAD_BACKEND,), rule, msg, hint))
        if not multinode and point.get(F.KV_P2P_TRANSFER) is not None:
            problems.append((path + (F.KV_P2P_TRANSFER,), "component-scope",
                             f"{F.KV_P2P_TRANSFER} is only valid on multinode configs", "remove it"))
        workers = [r for r in (F.PREFILL, F.DECODE) if isinstance(point.get(r), dict)]
        for role in workers:
            for rule, msg, hint in _dcp_rule(point[role]):
                problems.append((path + (role,), rule, f"{role}: {msg}", hint))
        if len(workers) == 2 and bool(point[F.PREFILL].get(F.HARDWARE)) != bool(point[F.DECODE].get(F.HARDWARE)):
            problems.append((path, "worker-hardware", "hardware is set on only one of prefill and decode",
                             "set hardware on both workers or on neither"))
        if scenario == F.AGENTIC_CODING:
            has_tp = F.TP in point
            has_workers = F.PREFILL in point or F.DECODE in point
            if multinode:
                if has_tp or len(workers) != 2:
                    problems.append((path, "topology", "multinode agentic points need prefill and decode, not tp",
                                     "describe the workers under prefill and decode"))
                explicit = [f for f in (F.PP, F.DCP_SIZE, F.PCP_SIZE) if f in point]
                if explicit:
                    problems.append((path + (explicit[0],), "topology",
                                     f"multinode agentic points cannot set {', '.join(explicit)}",
                                     "set them on the prefill/decode workers instead"))
            else:
                if not has_tp or has_workers:
                    problems.append((path, "topology", "single-node agentic points need tp and no prefill/decode",
                                     "give tp (and ep, dp-attn) on the point"))
                if F.KV_OFFLOADING not in point:
                    problems.append((path, "kv-offloading-required",
                                     f"single-node agentic points must set {F.KV_OFFLOADING}",
                                     f"add '{F.KV_OFFLOADING}: none' or '{F.KV_OFFLOADING}: dram'"))
                problems.extend((path, r, m, h) for r, m, h in _dcp_rule(point))
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
                                     f"add '{F.KV_OFFLOAD_BACKEND}: {{name: vllm-simple}}' (or lmcache, mooncake, ...)"))
                if block.get(F.DRAM_UTILIZATION) is None:
                    problems.append((path[:3], "dram-utilization",
                                     f"{F.KV_OFFLOADING}: dram needs {F.DRAM_UTILIZATION} on its scenario block",
                                     f"add '{F.DRAM_UTILIZATION}: 0.8' (a fraction of the node's host DRAM)"))
        elif not multinode:
            problems.extend((path, r, m, h) for r, m, h in _dcp_rule(point))
        yield from problems


def check_masters(rev: Revision) -> list[Diagnostic]:
    """Schema and semantic diagnostics for every master config; fills rev.configs/rev.owner."""
    diags: list[Diagnostic] = []
    for doc in rev.masters:
        data = doc.data
        if data is None:
            data = {}
        if not isinstance(data, dict):
            diags.append(doc.diag((), "schema-master", "a master config file must be a mapping of config keys",
                                  "write 'config-key: {image: ..., ...}' entries"))
            continue
        diags.extend(schema_diagnostics(doc, data, "master"))
        for key, config in data.items():
            if key in rev.owner:
                diags.append(doc.diag((key,), "duplicate-key",
                                      f"config key '{key}' is also defined in {rev.owner[key].path}",
                                      "rename one of them; config keys are global"))
                continue
            rev.owner[key] = doc
            rev.configs[key] = config
            for path, rule, msg, hint in config_rules(key, config):
                diags.append(doc.diag((key, *path), rule, f"{key}: {msg}", hint))
    return diags


def check_runners(rev: Revision) -> list[Diagnostic]:
    doc = rev.runners
    if not isinstance(doc.data, dict):
        return [doc.diag((), "schema-runners", "runners file must be a mapping with 'labels'",
                         "add 'labels:' mapping runner labels to node names")]
    return schema_diagnostics(doc, doc.data, "runners")


def check_revision(rev: Revision) -> None:
    """Raise one SweepgateError carrying every config and runner problem."""
    diags = check_masters(rev) + check_runners(rev)
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
            yield (F.APPEND_ONLY,), "append-only-mixed", \
                f"append-only cannot be combined with {', '.join(mixed)}", \
                "split the eval request into its own entry and PR"


def check_entries(doc: YamlDoc, entries, offset: tuple = ()) -> list[Diagnostic]:
    """Schema + rules for a list of changelog entries; paths are located through ``doc``."""
    if not isinstance(entries, list):
        return [doc.diag(offset, "schema-changelog", "changelog entries must be a YAML list",
                         "start each entry with '- config-keys:'")]
    diags = schema_diagnostics(doc, entries, "changelog", offset)
    for i, entry in enumerate(entries):
        for path, rule, msg, hint in entry_rules(entry):
            diags.append(doc.diag(offset + (i, *path), rule, msg, hint))
    return diags
