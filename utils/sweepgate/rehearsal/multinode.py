"""Rehearsal of a multi-node (disaggregated) row: its job environment and what its servers must look like.

The script runs as on the cluster, minus Slurm: benchmarks/multi_node/disagg_lib.sh
puts every task on this host (one port each), SERVER_STANDIN runs a stand-in
server per prefill/decode worker, and the router stand-in starts only once every
worker it is given answers. ``check_calls`` then holds the recorded commands to
the row: one server per worker in its role, and one router that knows them all.
"""

from __future__ import annotations

from pathlib import Path

from sweepgate.core import fields, pythoncall
from sweepgate.core.scriptlines import runs_module
from sweepgate.core.jobenv import JOB_ENV_NAMES_VAR, job_env
from sweepgate.core.placement import runners_at
from sweepgate.core.recipes import DISAGG_LIB, runs_multinode  # DISAGG_LIB starts the workers (fixes say so)
from sweepgate.rehearsal.problem import Problem
from sweepgate.rehearsal.standin import option_value

SERVER_MODULE, ROUTER_MODULE = fields.SGLANG_SERVER_MODULE, fields.SGLANG_ROUTER_MODULE


def wrong_port(what: str, argv: list[str], env: dict) -> str | None:
    """The problem when a server or router ``argv`` does not listen on the job's $PORT, with its fix: the
    rehearsal gives each run a free port (and a launcher sharing a host its own), so a script that sets
    its port must keep one already set."""
    port = option_value(argv, "--port")
    if port == env["PORT"]:
        return None
    return (f"{what} --port is {port}, expected $PORT={env['PORT']}; listen on \"$PORT\", which the rehearsal sets "
            "to a free port (a script's own default only when it is unset: PORT=${PORT:-8888})")


def is_multinode(row: dict) -> bool:
    return runs_multinode(row)


def env_for(row: dict, runner_name: str, result_dir: Path, root: Path | None = None) -> dict[str, str]:
    """The job environment `sweepgate ci row-env` would give this row, placed on its runner pool
    (``configs/runners.yaml`` of ``root``, default: the repository of the current directory)."""
    from sweepgate.core.load import repo_root

    env = job_env(row, runner_name, str(result_dir), source="row", runners=runners_at(str(root or repo_root())))
    env.pop(JOB_ENV_NAMES_VAR, None)
    return env


def _modules(calls: list[dict], module: str) -> list[list[str]]:
    """The arguments of each call that runs ``module`` with an interpreter (``pythoncall.called_module``)."""
    return [found[1] for c in calls
            if (found := pythoncall.called_module(c.get("tool"), c.get("argv") or [])) and found[0] == module]


def check_calls(row: dict, env: dict, calls: list[dict]) -> list[str]:
    """What the row says about its workers and router, checked against what the script ran: each problem
    at the line that starts the workers, or the router."""
    workers, router = runs_module([SERVER_MODULE]), runs_module([ROUTER_MODULE])
    problems = []
    servers = _modules(calls, SERVER_MODULE)
    routers = _modules(calls, ROUTER_MODULE)
    for role in (fields.PREFILL, fields.DECODE):
        worker = row[role]
        mine = [a for a in servers if option_value(a, "--disaggregation-mode") == role]
        if len(mine) != worker[fields.NUM_WORKER]:
            problems.append(Problem(f"expected {worker[fields.NUM_WORKER]} {role} server(s), saw {len(mine)}; start "
                                    f"one per worker, ${role.upper()}_NUM_WORKER of them ({DISAGG_LIB} does)",
                                    finds=workers))
        wrong = [a for a in mine if option_value(a, "--tp-size") != str(worker[fields.TP])]
        if wrong:
            problems.append(Problem(f"{role} server --tp-size is not the row's tp {worker[fields.TP]}; pass "
                                    f"--tp-size \"${role.upper()}_TP\"", finds=workers))
    if len(routers) != 1:
        return problems + [Problem(f"expected one router, saw {len(routers)}; start one, as disagg_head.sh does",
                                   finds=router)]
    ports = {option_value(a, "--port") for a in servers}
    told = {url.rsplit(":", 1)[-1] for i, url in enumerate(routers[0][1:], 1)
            if routers[0][i - 1] in ("--prefill", "--decode")}
    if told != ports:
        problems.append(Problem(f"the router was given worker ports {sorted(told)}, the workers serve {sorted(ports)}; "
                                "give it each worker's address (--prefill, --decode), as disagg_head.sh does",
                                finds=router))
    if wrong := wrong_port("router", routers[0], env):
        problems.append(Problem(wrong, finds=router))
    return problems
