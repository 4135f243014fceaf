"""Placement: how a multi-node (prefill/decode) row maps onto a runner pool's Slurm nodes.

One function, ``place``, does the node arithmetic that the check, the job
environment (``sweepgate ci row-env``), the launchers and the rehearsal share:
each worker replica gets whole nodes of its own (exclusive allocation, one Slurm
task per node), the router runs on the first node, and nothing is packed.

The hardware facts come from ``configs/runners.yaml`` ``hardware[label]``:
``gpus-per-node`` (required for multi-node rows), and optionally ``nodes`` (the
pool's Slurm node count) and ``scale-up-gpus`` (GPUs one NVLink/xGMI domain
joins; a tensor-parallel group without attention data-parallelism must stay
inside it). A fact a pool does not declare is not checked.
"""

from __future__ import annotations

from collections import namedtuple

from sweepgate.core import fields as F

ROLES = (F.PREFILL, F.DECODE)


class PlacementError(ValueError):
    """A row that cannot be placed: (role or None, message, hint)."""

    def __init__(self, role: str | None, message: str, hint: str):
        super().__init__(message)
        self.role, self.message, self.hint = role, message, hint


# A namedtuple, not a dataclass: dataclasses import inspect, about 8 ms on every command.
_PlacementFields = namedtuple("_PlacementFields", ["gpus_per_node", "prefill_workers", "prefill_nodes_per_worker",
                                                   "decode_workers", "decode_nodes_per_worker"])


class Placement(_PlacementFields):
    """Nodes of one multi-node job (immutable). ``tasks`` is one Slurm task per node."""

    __slots__ = ()

    @property
    def prefill_nodes(self) -> int:
        return self.prefill_workers * self.prefill_nodes_per_worker

    @property
    def decode_nodes(self) -> int:
        return self.decode_workers * self.decode_nodes_per_worker

    @property
    def nodes(self) -> int:
        return self.prefill_nodes + self.decode_nodes

    @property
    def tasks(self) -> int:
        return self.nodes

    def env(self) -> dict[str, str]:
        """The launcher's view (CONTRACTS section 6, multi-node extension)."""
        return {
            "SWEEPGATE_NODES": str(self.nodes),
            "SWEEPGATE_GPUS_PER_NODE": str(self.gpus_per_node),
            "SWEEPGATE_TASKS": str(self.tasks),
            "PREFILL_NODES_PER_WORKER": str(self.prefill_nodes_per_worker),
            "DECODE_NODES_PER_WORKER": str(self.decode_nodes_per_worker),
            "PREFILL_NODES": str(self.prefill_nodes),
            "DECODE_NODES": str(self.decode_nodes),
        }


def hardware_of(runners: dict, runner: str) -> dict | None:
    """The hardware facts of a runner label or of a runner name listed under a label."""
    hardware = (runners or {}).get(F.HARDWARE) or {}
    if runner in hardware:
        return hardware[runner]
    for label, names in ((runners or {}).get(F.LABELS) or {}).items():
        if isinstance(names, list) and runner in names and label in hardware:
            return hardware[label]
    return None


def row_facts(row: dict, runners: dict | None) -> dict:
    """The hardware facts of a matrix row's runner; {} when the runners file states none."""
    return hardware_of(runners or {}, str(row.get(F.RUNNER))) or {}


def places_nodes(row: dict, runners: dict | None) -> bool:
    """Whether a row's runner states gpus-per-node, so that a multi-node row is placed on whole nodes
    (``place``). Without it nothing is placed: the check leaves such runners alone, a job gets no
    SWEEPGATE_NODES, and a plan counts the row by its workers' GPUs (a lower bound)."""
    return F.GPUS_PER_NODE in row_facts(row, runners)


def _worker_gpus(worker: dict) -> int:
    """GPUs of one worker replica: tp*pp*pcp, or ep when expert parallelism is wider.

    With attention data-parallelism a worker's expert-parallel group spans
    tp * dp GPUs, so ep above tp*pp*pcp (real configs use tp 8, ep 16) means
    the worker holds ep GPUs.
    """
    return max(F.tp_pp_pcp(worker), worker.get(F.EP, 1))


def _nodes_per_worker(role: str, worker: dict, facts: dict) -> int:
    gpn = facts[F.GPUS_PER_NODE]
    gpus = _worker_gpus(worker)
    tp = worker[F.TP]
    shape = f"max(tp*pp*pcp, ep)={gpus}"
    if gpus > gpn and gpus % gpn:
        raise PlacementError(role, f"{role} worker {shape} does not fill whole {gpn}-GPU nodes",
                             f"use a multiple of {F.GPUS_PER_NODE}={gpn}")
    if gpus < gpn and gpn % gpus:
        raise PlacementError(role, f"{role} worker {shape} does not divide a {gpn}-GPU node",
                             f"use a divisor of {F.GPUS_PER_NODE}={gpn}")
    scale_up = facts.get(F.SCALE_UP_GPUS)
    if scale_up and tp > scale_up and not worker.get(F.DP_ATTN, False):
        raise PlacementError(role, f"{role} worker tp={tp} spans {-(-tp // gpn)} nodes, but a tensor-parallel "
                             f"group must stay within scale-up-gpus={scale_up}",
                             f"use tp <= {scale_up}, or dp-attn with ep for wide expert parallelism")
    return max(1, -(-gpus // gpn))


def place(prefill: dict, decode: dict, facts: dict) -> Placement:
    """Place one prefill/decode topology on nodes described by ``facts``; PlacementError when it cannot be."""
    if not facts or F.GPUS_PER_NODE not in facts:
        raise PlacementError(None, f"multi-node rows need the runner's {F.GPUS_PER_NODE}",
                             F.add_hardware(None, [F.GPUS_PER_NODE]))
    workers = {role: int(w.get(F.NUM_WORKER, 1)) for role, w in ((F.PREFILL, prefill), (F.DECODE, decode))}
    if not any(workers.values()):
        raise PlacementError(None, "prefill and decode both have num-worker 0", "give at least one worker")
    per = {role: _nodes_per_worker(role, w, facts) if workers[role] else 0
           for role, w in ((F.PREFILL, prefill), (F.DECODE, decode))}
    placement = Placement(facts[F.GPUS_PER_NODE], workers[F.PREFILL], per[F.PREFILL],
                          workers[F.DECODE], per[F.DECODE])
    pool = facts.get(F.POOL_NODES)
    if pool and placement.nodes > pool:
        raise PlacementError(None, f"needs {placement.nodes} nodes ({placement.prefill_nodes} prefill + "
                             f"{placement.decode_nodes} decode) but the pool has nodes={pool}",
                             "use fewer or smaller workers, or raise nodes in the runner's hardware")
    return placement


def runners_at(root: str = ".") -> dict:
    """configs/runners.yaml of the checkout at ``root``, parsed ({} when there is none)."""
    import os

    from sweepgate.core.load import parse_yaml

    path = os.path.join(root, F.RUNNERS_FILE)
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        data = parse_yaml(f.read(), F.RUNNERS_FILE)
    return data if isinstance(data, dict) else {}


def runner_labels(runners: dict) -> set[str]:
    """The runner labels a configs/runners.yaml lists (its ``labels`` mapping's keys)."""
    labels = runners.get(F.LABELS) if isinstance(runners, dict) else None
    return set(labels) if isinstance(labels, dict) else set()


def place_row(row: dict, runners: dict) -> Placement:
    """``place`` for a matrix row, with the facts of its runner."""
    return place(row[F.PREFILL], row[F.DECODE], row_facts(row, runners))


def search_points(config: dict):
    """(path, point) of every search-space entry of every scenario block, as written."""
    for scenario, blocks in (config.get(F.SCENARIOS) or {}).items():
        for b, block in enumerate(blocks if isinstance(blocks, list) else []):
            points = block.get(F.SEARCH_SPACE) if isinstance(block, dict) else None
            for p, point in enumerate(points if isinstance(points, list) else []):
                yield (F.SCENARIOS, scenario, b, F.SEARCH_SPACE, p), point


def config_problems(config: dict, runners: dict) -> list[tuple[tuple, str, str, str]]:
    """(path, rule, message, hint) for every point of a multi-node config its runner pool cannot hold.

    A runner without hardware facts is not checked here (the reference's own
    fleet has such runners); everything else that cannot be placed is refused.
    """
    if not isinstance(config, dict) or config.get(F.MULTINODE) is not True:
        return []
    facts = hardware_of(runners, str(config.get(F.RUNNER)))
    if not facts or F.GPUS_PER_NODE not in facts:
        return []
    out = []
    for path, point in search_points(config):
        if not isinstance(point, dict) or not all(isinstance(point.get(r), dict) for r in ROLES):
            continue
        try:
            place(point[F.PREFILL], point[F.DECODE], facts)
        except PlacementError as exc:
            out.append((path + ((exc.role,) if exc.role else ()), "placement",
                        f"cannot be placed on '{config[F.RUNNER]}': {exc.message}", exc.hint))
        except (KeyError, TypeError):
            continue  # a schema problem; the schema check reports it
    return out


def max_worker_gpus() -> int:
    """The most GPUs one worker may hold: the schema's bound on one parallel size."""
    from sweepgate.core.schemas import schema_maximum

    return schema_maximum("parallelSize")


def worker_total_problems(config: dict, runners: dict) -> list[tuple[tuple, str, str, str]]:
    """(path, rule, message, hint) for every worker whose tp*pp*pcp exceeds ``max_worker_gpus``."""
    if not isinstance(config, dict):
        return []
    limit, out = max_worker_gpus(), []
    for path, point in search_points(config):
        for sub, worker in ([((), point)] + [((r,), point.get(r)) for r in ROLES]
                            if isinstance(point, dict) else []):
            if not isinstance(worker, dict) or F.TP not in worker:
                continue
            total = F.tp_pp_pcp(worker)
            if isinstance(total, int) and total > limit:
                out.append((path + sub, "worker-gpus", f"tp*pp*pcp={total} GPUs in one worker is "
                            f"more than {limit}", f"use tp*pp*pcp-size of at most {limit}"))
    return out


def single_node_problems(config: dict, runners: dict) -> list[tuple[tuple, str, str, str]]:
    """(path, rule, message, hint) for every single-node point wider than one node of its runner.

    A point holds ``_worker_gpus`` GPUs (the same count a multi-node worker
    holds); on a single-node runner they must all fit one node. A runner
    without ``gpus-per-node`` is not checked.
    """
    if not isinstance(config, dict) or config.get(F.MULTINODE) is True:
        return []
    facts = hardware_of(runners, str(config.get(F.RUNNER)))
    gpn = (facts or {}).get(F.GPUS_PER_NODE)
    if not gpn:
        return []
    out = []
    for path, point in search_points(config):
        try:
            gpus = _worker_gpus(point)
        except (KeyError, TypeError, AttributeError):
            continue  # a schema problem; the schema check reports it
        if gpus > gpn:
            out.append((path, F.TOPOLOGY_RULE,
                        f"max(tp*pp*pcp, ep)={gpus} needs more than the {gpn} GPUs of one "
                        f"'{config[F.RUNNER]}' node", "lower tp, ep, pp or pcp-size so the point "
                        f"fits {F.GPUS_PER_NODE}={gpn}, or make the config multinode"))
    return out
