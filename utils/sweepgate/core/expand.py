"""Expand: master configs -> benchmark matrix rows.

Rows are plain dicts keyed by the reference's field names (see ``fields``).
``expand_keys`` gives the *raw* rows (what the recipe says, with defaults
filled in); ``finalize`` adds the output-only defaults that downstream
workflows expect; ``fingerprint`` hashes a raw row. Inputs are assumed to
have passed ``sweepgate.core.check``.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError


# --------------------------------------------------------------------------- helpers

def seq_len_name(isl: int, osl: int) -> str:
    return F.SEQ_LEN_NAMES.get((isl, osl), f"{isl}_{osl}")


def seq_len_from_name(name: str) -> tuple[int, int]:
    for pair, short in F.SEQ_LEN_NAMES.items():
        if short == name:
            return pair
    raise ValueError(name)


def conc_values(point: dict, step: int = F.CONC_STEP) -> list[int]:
    """The concurrencies a search-space point names: its list, or start..end multiplying by step."""
    if point.get(F.CONC_LIST):
        return list(point[F.CONC_LIST])
    start, end = point[F.CONC_START], point[F.CONC_END]
    values = []
    conc = start
    while conc <= end:
        values.append(conc)
        if conc == end:
            break
        conc = min(conc * step, end)
    return values


def freeze(value):
    """Hashable, order-independent form of a JSON-shaped value."""
    if isinstance(value, dict):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


POINT_FIELDS = frozenset({F.CONC, F.EXP_NAME, F.RECIPE_FINGERPRINT})
HARDWARE_RULE = "runner-hardware"  # the title of a row its runner's hardware facts cannot serve
EVAL_FIELDS = frozenset({F.RUN_EVAL, F.EVAL_ONLY, F.EVAL_CONC, F.EVAL_ALL_CONCS})


def canonical_json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def fingerprint(row: dict) -> str:
    """sha256 of the row without its point-level fields, as canonical JSON."""
    recipe = {k: v for k, v in row.items() if k not in POINT_FIELDS}
    return hashlib.sha256(canonical_json(recipe).encode("utf-8")).hexdigest()


def curve_key(row: dict, ignore: frozenset = POINT_FIELDS) -> tuple:
    return tuple(sorted((k, freeze(v)) for k, v in row.items() if k not in ignore))


def is_multinode_row(row: dict) -> bool:
    return row.get(F.PREFILL) is not None


def is_agentic_row(row: dict) -> bool:
    return row.get(F.SCENARIO_TYPE) == F.AGENTIC_CODING


# --------------------------------------------------------------------------- hardware

class Where:
    """Where a config lives, for diagnostics raised while expanding; located only when needed."""

    def __init__(self, doc=None, key: str | None = None):
        self.doc, self.key = doc, key

    @property
    def file(self) -> str:
        return self.doc.path if self.doc is not None else ""

    @property
    def line(self) -> int:
        return self.doc.locate((self.key,))[0] if self.doc is not None else 0

    def at(self, *path) -> tuple[int, int]:
        """(line, col) of the value at ``path`` in the config (``load.at_value``: its `runner:`'s value, a
        point's tp), else of its nearest located ancestor; the key's line when nothing is located."""
        if self.doc is None:
            return 0, 0
        line, col = self.doc.locate_value((self.key, *path))
        return (line, col) if line else (self.line, 0)


def _hardware(runners: dict, label: str, field: str, where: Where) -> int:
    hardware = runners.get(F.HARDWARE) or {}
    facts = hardware.get(label) or {}
    if field not in facts:
        known = ", ".join(sorted(hardware.keys())) or "none"
        if label not in hardware:  # most often a misspelt runner: say so at the config's runner line
            import difflib

            # a label runners.yaml lists is a pool of its own, its facts missing: no other label is meant
            listed = label in (runners.get(F.LABELS) or {})
            near = [] if listed else difflib.get_close_matches(label, list(hardware), n=1, cutoff=0.8)
            line, col = where.at(F.RUNNER)
            fix = f"did you mean '{near[0]}'? Fix the config's runner, or " if near else ""
            raise SweepgateError(Diagnostic(
                where.file, line, col, HARDWARE_RULE,
                f"runner '{label}' has no hardware entry in {F.RUNNERS_FILE} (its rows need '{field}')",
                f"{fix}{F.add_hardware(label, [field])} (known hardware labels: {known})"))
        raise SweepgateError(Diagnostic(
            where.file, *where.at(F.RUNNER), HARDWARE_RULE,
            f"runner '{label}' has no '{field}' in {F.RUNNERS_FILE} hardware",
            f"{F.add_hardware(label, [field])} (known hardware labels: {known})"))
    return facts[field]


def worker_gpus_on_node(worker: dict, gpus_per_node: int) -> int | None:
    """GPUs one worker replica uses on one node, or None when it does not tile the node."""
    per_replica = F.tp_pp_pcp(worker)
    if per_replica > gpus_per_node:
        return gpus_per_node if per_replica % gpus_per_node == 0 else None
    return per_replica if gpus_per_node % per_replica == 0 else None


def host_dram_gb(facts: dict) -> int:
    """A node's host DRAM in whole decimal GB, from its ``available-cpu-dram-mib`` (the budget's unit)."""
    return facts[F.AVAILABLE_CPU_DRAM_MIB] * 1024 * 1024 // 1_000_000_000


def dram_budget_gb(scenario: dict, point: dict, runner: str, runners: dict, where: Where, at: tuple = ()) -> int:
    """Host-DRAM KV-offload budget in decimal GB for one server node.

    available MiB (capped at 3 TB) x dram-utilization x share of the node's GPUs used. ``at``: the point's
    path in the config, where a point too wide for the node is said (at its tp, or its prefill worker's).
    """
    if point.get(F.KV_OFFLOADING, F.DEFAULT_KV_OFFLOADING) != "dram":
        return 0
    from decimal import Decimal

    available = min(_hardware(runners, runner, F.AVAILABLE_CPU_DRAM_MIB, where),
                    F.MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB)
    gpus_per_node = _hardware(runners, runner, F.GPUS_PER_NODE, where)
    utilization = Decimal(str(scenario[F.DRAM_UTILIZATION]))
    if F.PREFILL in point:
        used = worker_gpus_on_node(point[F.PREFILL], gpus_per_node)
        if used is None:
            w = point[F.PREFILL]
            raise SweepgateError(Diagnostic(
                where.file, *where.at(*at, F.PREFILL, F.TP), F.TOPOLOGY_RULE,
                f"prefill worker tp*pp*pcp={F.tp_pp_pcp(w)} does not tile "
                f"{F.GPUS_PER_NODE}={gpus_per_node} of '{runner}'",
                "use a worker size that divides the node, or a whole multiple of it"))
    else:
        used = F.tp_pp_pcp(point)
        if used > gpus_per_node:
            raise SweepgateError(Diagnostic(
                where.file, *where.at(*at, F.TP), F.TOPOLOGY_RULE,
                f"tp*pp*pcp={used} needs more than the {gpus_per_node} GPUs of one '{runner}' node",
                "lower tp, pp or pcp-size so the point fits one node"))
    budget = Decimal(available) * 1024 * 1024 * utilization * used / gpus_per_node
    return int(budget / 1_000_000_000)


# --------------------------------------------------------------------------- rows

def _with_parallel_defaults(worker: dict) -> dict:
    return {**worker, F.PP: worker.get(F.PP, 1), F.DCP_SIZE: worker.get(F.DCP_SIZE, 1),
            F.PCP_SIZE: worker.get(F.PCP_SIZE, 1)}


def _components(point: dict, config: dict) -> dict:
    out = {}
    for name in (F.ROUTER, F.KV_P2P_TRANSFER):
        value = point.get(name, config.get(name))
        if value is not None:
            out[name] = copy.deepcopy(value)
    return out


def _offload_suffix(kv_offloading: str, backend: dict | None) -> str:
    if kv_offloading == "none":
        return "kvnone"
    return f"kv{kv_offloading}-{backend['name']}"


def _worker_tag(worker: dict, prefix: str) -> str:
    tag = f"{prefix}{worker[F.NUM_WORKER]}x{worker[F.TP]}"
    if worker.get(F.EP, 1) != 1:
        tag += f"ep{worker[F.EP]}"
    if worker.get(F.DP_ATTN, False):
        tag += "dpa"
    return tag


def _identity(config: dict) -> dict:
    ident = {F.IMAGE: config[F.IMAGE], F.MODEL: config[F.MODEL], F.MODEL_PREFIX: config[F.MODEL_PREFIX],
             F.PRECISION: config[F.PRECISION], F.FRAMEWORK: config[F.FRAMEWORK]}
    if F.SERVER_READY_TIMEOUT in config:  # only when the config sets it: other rows stay as they were
        ident[F.SERVER_READY_TIMEOUT] = config[F.SERVER_READY_TIMEOUT]
    return ident


def _single_topology(point: dict) -> dict:
    return {F.TP: point[F.TP], F.PP: point.get(F.PP, 1), F.DCP_SIZE: point.get(F.DCP_SIZE, 1),
            F.PCP_SIZE: point.get(F.PCP_SIZE, 1)}


class Filters:
    """Optional narrowing applied while expanding (generate_sweep_configs flags).

    scenario_types/seq_lens: keep only these; conc: test-config --conc; step:
    conc-start..conc-end multiplier; min/max_conc, max_tp, max_ep: full-sweep
    bounds; single_node/multi_node: node types to emit; runner_values:
    concrete runner names that replace the config's label.
    """

    def __init__(self, scenario_types: tuple[str, ...] | None = None, seq_lens: set | None = None,
                 conc: set[int] | None = None, step: int = F.CONC_STEP, min_conc: int | None = None,
                 max_conc: int | None = None, max_tp: int | None = None, max_ep: int | None = None,
                 single_node: bool = True, multi_node: bool = True, runner_values: list[str] | None = None):
        self.scenario_types, self.seq_lens, self.conc, self.step = scenario_types, seq_lens, conc, step
        self.min_conc, self.max_conc, self.max_tp, self.max_ep = min_conc, max_conc, max_tp, max_ep
        self.single_node, self.multi_node, self.runner_values = single_node, multi_node, runner_values

    def wants(self, scenario: str) -> bool:
        return self.scenario_types is None or scenario in self.scenario_types


def _concs(point: dict, flt: Filters, kind: str) -> list[int] | None:
    """Concurrencies of a point after the sweep filters; None when nothing is left.

    kind is "sn" (single-node fixed-seq-len), "mn" (multi-node fixed-seq-len) or
    "agentic"; the full-sweep --min-conc/--max-conc rules differ between them.
    """
    lo, hi = flt.min_conc, flt.max_conc
    if (lo is not None and lo <= 0) or (hi is not None and hi <= 0 and kind != "agentic"):
        return None
    if kind == "sn" and not point.get(F.CONC_LIST) and (lo is not None or hi is not None):
        start, end = point[F.CONC_START], point[F.CONC_END]
        if lo is not None:
            if end < lo:
                return None
            start = max(start, lo)
        if hi is not None:
            start, end = (hi, hi) if start > hi else (start, min(end, hi))
        values = conc_values({F.CONC_START: start, F.CONC_END: end}, flt.step)
    else:
        values = conc_values(point, flt.step)
        if lo is not None:
            values = [c for c in values if c >= lo]
            if not values:
                return None
        if hi is not None:
            kept = [c for c in values if c <= hi]
            values = kept if (kept or kind == "agentic") else [hi]
    if flt.conc:
        values = [c for c in values if c in flt.conc]
    return values or None


def expand_config(key: str, config: dict, runners: dict, flt: Filters | None = None,
                  where: Where | None = None) -> Iterator[dict]:
    """Raw rows of one config, in recipe order."""
    where = where or Where()
    flt = flt or Filters()
    multinode = bool(config.get(F.MULTINODE, False))
    if multinode and not flt.multi_node or not multinode and not flt.single_node:
        return
    runner_values = flt.runner_values or [config[F.RUNNER]]
    if flt.wants(F.FIXED_SEQ_LEN):
        for seq in config[F.SCENARIOS].get(F.FIXED_SEQ_LEN) or []:
            isl, osl = seq[F.ISL], seq[F.OSL]
            if flt.seq_lens and (isl, osl) not in flt.seq_lens:
                continue
            for point in seq[F.SEARCH_SPACE]:
                concs = _concs(point, flt, "mn" if multinode else "sn")
                if concs is None:
                    continue
                rows = _fixed_mn_rows if multinode else _fixed_sn_rows
                yield from rows(config, point, isl, osl, concs, runner_values, flt)
    if flt.wants(F.AGENTIC_CODING):
        for b, scenario in enumerate(config[F.SCENARIOS].get(F.AGENTIC_CODING) or []):
            for p, point in enumerate(scenario[F.SEARCH_SPACE]):
                at = (F.SCENARIOS, F.AGENTIC_CODING, b, F.SEARCH_SPACE, p)
                budget = dram_budget_gb(scenario, point, config[F.RUNNER], runners, where, at)
                concs = _concs(point, flt, "agentic")
                if concs is None:
                    continue
                rows = _agentic_mn_rows if multinode else _agentic_sn_rows
                yield from rows(config, point, budget, concs, runner_values)


def _fixed_mn_rows(config: dict, point: dict, isl: int, osl: int, concs: list[int],
                   runner_values: list[str], flt: Filters) -> Iterator[dict]:
    """Multi-node fixed-seq-len: one row per runner holding every concurrency."""
    spec = point.get(F.SPEC_DECODING, F.DEFAULT_SPEC_DECODING)
    for runner_value in runner_values:
        row = {**_identity(config), F.RUNNER: runner_value, F.ISL: isl, F.OSL: osl,
               F.SPEC_DECODING: spec,
               F.PREFILL: _with_parallel_defaults(copy.deepcopy(point[F.PREFILL])),
               F.DECODE: _with_parallel_defaults(copy.deepcopy(point[F.DECODE])),
               F.CONC: list(concs), F.MAX_MODEL_LEN: isl + osl + F.MAX_MODEL_LEN_MARGIN,
               F.EXP_NAME: f"{config[F.MODEL_PREFIX]}_{seq_len_name(isl, osl)}",
               F.DISAGG: config.get(F.DISAGG, False), F.RUN_EVAL: False}
        row.update(_components(point, config))
        yield row


def _fixed_sn_rows(config: dict, point: dict, isl: int, osl: int, concs: list[int],
                   runner_values: list[str], flt: Filters) -> Iterator[dict]:
    """Single-node fixed-seq-len: one row per concurrency and runner, within --max-tp/--max-ep."""
    tp, ep = point[F.TP], point.get(F.EP)
    if flt.max_tp is not None and tp > flt.max_tp:
        return
    if flt.max_ep is not None and ep is not None and ep > flt.max_ep:
        ep = flt.max_ep
    spec = point.get(F.SPEC_DECODING, F.DEFAULT_SPEC_DECODING)
    for conc in concs:
        for runner_value in runner_values:
            row = {**_identity(config), F.RUNNER: runner_value, F.ISL: isl, F.OSL: osl,
                   **_single_topology(point), F.CONC: conc,
                   F.MAX_MODEL_LEN: isl + osl + F.MAX_MODEL_LEN_MARGIN,
                   F.EP: ep if ep is not None else 1,
                   F.DP_ATTN: point.get(F.DP_ATTN) if point.get(F.DP_ATTN) is not None else False,
                   F.SPEC_DECODING: spec, F.EXP_NAME: f"{config[F.MODEL_PREFIX]}_{seq_len_name(isl, osl)}",
                   F.DISAGG: config.get(F.DISAGG, False), F.RUN_EVAL: False}
            row.update(_components(point, config))
            yield row


def _agentic_mn_rows(config: dict, point: dict, budget, concs: list[int],
                     runner_values: list[str]) -> Iterator[dict]:
    """Multi-node agentic: one allocation (row) per runner and concurrency."""
    spec, kv, backend = _agentic_settings(point)
    prefill = _with_parallel_defaults(copy.deepcopy(point[F.PREFILL]))
    decode = _with_parallel_defaults(copy.deepcopy(point[F.DECODE]))
    suffix = f"_{_offload_suffix(kv, backend)}" if kv != "none" else ""
    workers = f"{config[F.MODEL_PREFIX]}_{_worker_tag(prefill, 'p')}_{_worker_tag(decode, 'd')}"
    for runner_value in runner_values:
        for conc in concs:
            row = {**_identity(config), F.RUNNER: runner_value, F.SPEC_DECODING: spec,
                   F.PREFILL: copy.deepcopy(prefill), F.DECODE: copy.deepcopy(decode),
                   F.CONC: [conc], F.KV_OFFLOADING: kv, F.TOTAL_CPU_DRAM_GB: budget,
                   F.DURATION: F.DEFAULT_AGENTIC_DURATION_S,
                   F.EXP_NAME: f"{workers}_conc{conc}{suffix}",
                   F.DISAGG: config.get(F.DISAGG, False), F.SCENARIO_TYPE: F.AGENTIC_CODING}
            yield _with_point_components(row, point, config)


def _agentic_sn_rows(config: dict, point: dict, budget, concs: list[int],
                     runner_values: list[str]) -> Iterator[dict]:
    """Single-node agentic: one row per concurrency and runner."""
    spec, kv, backend = _agentic_settings(point)
    tp = point[F.TP]
    ep, dp_attn = point.get(F.EP), point.get(F.DP_ATTN)
    for conc in concs:
        for runner_value in runner_values:
            row = {**_identity(config), F.RUNNER: runner_value, **_single_topology(point),
                   F.EP: ep if ep is not None else 1,
                   F.DP_ATTN: dp_attn if dp_attn is not None else False,
                   F.SPEC_DECODING: spec, F.CONC: conc, F.KV_OFFLOADING: kv,
                   F.TOTAL_CPU_DRAM_GB: budget, F.DURATION: F.DEFAULT_AGENTIC_DURATION_S,
                   F.EXP_NAME: (f"{config[F.MODEL_PREFIX]}_tp{tp}_conc{conc}_{_offload_suffix(kv, backend)}"
                                + (f"_spec-{spec}" if spec != "none" else "")),
                   F.SCENARIO_TYPE: F.AGENTIC_CODING}
            yield _with_point_components(row, point, config)


def _agentic_settings(point: dict) -> tuple:
    """An agentic point's spec-decoding, kv-offloading (defaults filled in) and offload backend."""
    return (point.get(F.SPEC_DECODING, F.DEFAULT_SPEC_DECODING),
            point.get(F.KV_OFFLOADING, F.DEFAULT_KV_OFFLOADING), point.get(F.KV_OFFLOAD_BACKEND))


def _with_point_components(row: dict, point: dict, config: dict) -> dict:
    """The row with the point's offload backend (a copy, when set) and the config's/point's components."""
    if point.get(F.KV_OFFLOAD_BACKEND) is not None:
        row[F.KV_OFFLOAD_BACKEND] = copy.deepcopy(point[F.KV_OFFLOAD_BACKEND])
    row.update(_components(point, config))
    return row


def expand_keys(keys: Iterable[str], configs: dict, runners: dict, flt: Filters | None = None,
                where_of=None) -> list[dict]:
    rows: list[dict] = []
    for key in keys:
        where = where_of(key) if where_of else Where()
        rows.extend(expand_config(key, configs[key], runners, flt, where))
    return rows


# --------------------------------------------------------------------------- evals

def _eligible(row: dict) -> list[int]:
    conc = row[F.CONC]
    values = conc if isinstance(conc, list) else [conc]
    return sorted(c for c in values if c >= F.MIN_EVAL_CONC)


def _is_eval_seq(row: dict) -> bool:
    return (row.get(F.ISL), row.get(F.OSL)) == F.EVAL_SEQ_LEN


def mark_evals(rows: list[dict], include_agentic: bool) -> list[dict]:
    """Default eval selection (the reference's policy), marking run-eval in place.

    Single-node 8k1k: per (model, runner, framework, precision, isl, osl, spec, dp-attn),
    the highest and the median eligible concurrency (>= MIN_EVAL_CONC).
    Multi-node 8k1k and multi-node agentic: per topology, the row holding the highest
    eligible concurrency, recorded as eval-conc. Single-node agentic: per
    (model, runner, framework, precision), the highest concurrency.
    """
    sn, mn, ag_mn, ag_sn = _eval_groups(rows, include_agentic)
    chosen: set[int] = set()
    eval_conc: dict[int, int] = {}
    for members in sn.values():
        concs = sorted({rows[i][F.CONC] for i in members})
        targets = {concs[-1], concs[len(concs) // 2]}
        chosen.update(i for i in members if rows[i][F.CONC] in targets)
    for groups, record in ((mn, True), (ag_mn, True), (ag_sn, False)):
        for members in groups.values():
            best, conc = max(members, key=lambda item: item[1])
            chosen.add(best)
            if record:
                eval_conc[best] = conc
    for i, row in enumerate(rows):
        row[F.RUN_EVAL] = i in chosen
        if i in eval_conc:
            row[F.EVAL_CONC] = eval_conc[i]
    return rows


def _eval_groups(rows: list[dict], include_agentic: bool) -> tuple[dict, dict, dict, dict]:
    """The eval candidates of mark_evals, grouped: single-node 8k1k (row indexes), multi-node 8k1k,
    multi-node agentic and single-node agentic ((row index, its highest eligible concurrency))."""
    sn: dict[tuple, list[int]] = defaultdict(list)
    mn: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    ag_sn: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    ag_mn: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    ignore = POINT_FIELDS | EVAL_FIELDS
    for i, row in enumerate(rows):
        if is_agentic_row(row):
            if not include_agentic:
                continue
            if is_multinode_row(row):
                concs = _eligible(row)
                if concs:
                    ag_mn[curve_key(row, ignore)].append((i, concs[-1]))
            else:
                conc = row[F.CONC]
                ag_sn[(row[F.MODEL], row[F.RUNNER], row[F.FRAMEWORK], row[F.PRECISION])].append(
                    (i, max(conc) if isinstance(conc, list) else conc))
            continue
        if not _is_eval_seq(row) or not _eligible(row):
            continue
        if F.TP in row:
            sn[(row[F.MODEL], row[F.RUNNER], row[F.FRAMEWORK], row[F.PRECISION], row[F.ISL], row[F.OSL],
                row[F.SPEC_DECODING], row[F.DP_ATTN])].append(i)
        elif is_multinode_row(row):
            mn[curve_key(row, ignore)].append((i, _eligible(row)[-1]))
    return sn, mn, ag_mn, ag_sn


def mark_all_evals(rows: list[dict]) -> list[dict]:
    """--all-evals: every 8k1k and agentic row is evaluated; multi-node rows merge per topology."""
    out: list[dict] = []
    merged: dict[tuple, int] = {}
    ignore = POINT_FIELDS | EVAL_FIELDS
    for row in rows:
        agentic = is_agentic_row(row)
        if not agentic and not _is_eval_seq(row):
            out.append(row)
            continue
        if not is_multinode_row(row):
            row[F.RUN_EVAL] = True
            out.append(row)
            continue
        conc = row[F.CONC] if isinstance(row[F.CONC], list) else [row[F.CONC]]
        key = (agentic, curve_key(row, ignore))
        if key in merged:
            existing = out[merged[key]]
            existing[F.CONC] = sorted(set(existing[F.CONC]) | set(conc))
            if agentic:
                existing[F.EVAL_CONC] = max(existing[F.CONC])
            continue
        new = {**row, F.CONC: sorted(set(conc)), F.RUN_EVAL: True}
        if agentic:
            new[F.EVAL_CONC] = max(conc)
        else:
            new[F.EVAL_ALL_CONCS] = True
            new.pop(F.EVAL_CONC, None)
        merged[key] = len(out)
        out.append(new)
    return out


def eval_rows(rows: list[dict], all_evals: bool) -> list[dict]:
    """Rows to evaluate, each marked eval-only (the generator's --evals-only)."""
    rows = mark_evals(rows, include_agentic=True)
    if all_evals:
        rows = mark_all_evals(rows)
    selected = [r for r in rows if r.get(F.RUN_EVAL)]
    for row in selected:
        row[F.EVAL_ONLY] = True
    return selected


# --------------------------------------------------------------------------- output shape

def trim_conc(rows: list[dict]) -> list[dict]:
    """The reference's --trim-conc: a single-node recipe (curve) keeps only its lowest
    concurrency; a multi-node row keeps its place, its conc list cut to its lowest value (rows of
    one multi-node recipe are not merged: an agentic recipe's rows, one per concurrency, all stay).
    Differential on the corpus against the reference at the pinned commit: 84 cases differed
    while multi-node rows were merged like single-node ones."""
    out: list[dict] = []
    kept: dict[tuple, int] = {}  # curve -> index in ``out`` of its lowest concurrency so far
    for row in rows:
        if is_multinode_row(row):
            conc = row[F.CONC]
            out.append({**row, F.CONC: [min(conc)]} if isinstance(conc, list) and len(conc) > 1 else row)
            continue
        key = curve_key(row)
        if key not in kept or row[F.CONC] < out[kept[key]][F.CONC]:
            kept[key] = len(out)
        out.append(row)
    keep = set(kept.values())  # each kept row stays where it was, as the reference's does
    return [row for i, row in enumerate(out) if is_multinode_row(row) or i in keep]


def finalize(row: dict) -> dict:
    """Add the defaults the matrix contract carries on every row of its kind."""
    if is_multinode_row(row):
        for role in (F.PREFILL, F.DECODE):
            worker = row[role]
            if F.ADDITIONAL_SETTINGS not in worker:
                worker[F.ADDITIONAL_SETTINGS] = []
            elif worker[F.ADDITIONAL_SETTINGS] is None:
                del worker[F.ADDITIONAL_SETTINGS]
        if not is_agentic_row(row):
            row.setdefault(F.EVAL_ONLY, False)
            row.setdefault(F.EVAL_ALL_CONCS, False)
    elif not is_agentic_row(row):
        row.setdefault(F.EVAL_ONLY, False)
    return row


def bucket_of(row: dict) -> tuple[str, str]:
    node = F.MULTI_NODE if is_multinode_row(row) else F.SINGLE_NODE
    scenario = "agentic" if is_agentic_row(row) else seq_len_name(row[F.ISL], row[F.OSL])
    return node, scenario


def eval_bucket_of(row: dict) -> str:
    if is_multinode_row(row):
        return F.MULTINODE_AGENTIC_EVALS if is_agentic_row(row) else F.MULTINODE_EVALS
    return F.AGENTIC_EVALS if is_agentic_row(row) else F.EVALS


def empty_buckets() -> dict:
    """A matrix's buckets, none holding a row yet, in the matrix's order (F.BUCKET_KEYS)."""
    return {**{key: {} for key in F.NODE_BUCKETS}, **{key: [] for key in F.EVAL_BUCKETS}}
