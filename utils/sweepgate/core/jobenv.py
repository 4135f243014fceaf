"""A matrix row's job environment: the variables a benchmark job (or its rehearsal) runs with.

``sweepgate ci row-env`` writes it for a real job and ``sweepgate rehearse`` builds
it for a local run; multi-node rows also get their workers' settings and their
placement on the runner pool (``core.placement``).
"""

from __future__ import annotations

import json
import math
import re

from sweepgate.core import fields
from sweepgate.core.errors import Diagnostic, SweepgateError, fail
from sweepgate.core.schemas import schema_definition, schema_maximum

JOB_ENV_NAMES_VAR = "SWEEPGATE_JOB_ENV_NAMES"  # which names row-env set; launchers pass them on


def _multinode_env(row: dict) -> dict[str, str]:
    """Extra variables for a multi-node row: PREFILL_*/DECODE_*, CONC_LIST, ROUTER_*."""
    env: dict[str, str] = {}
    for side in (fields.PREFILL, fields.DECODE):
        for key, value in (row.get(side) or {}).items():
            name = fields.ROW_ENV.get(key, key.upper().replace("-", "_"))
            env[f"{side.upper()}_{name}"] = value if isinstance(value, str) else (
                json.dumps(value, separators=(",", ":")) if isinstance(value, (list, dict))
                else fields.env_value(value))
    conc = row.get(fields.CONC)
    if isinstance(conc, list):
        env[fields.ROW_ENV[fields.CONC]] = " ".join(map(str, conc))
    router = row.get(fields.ROUTER) or {}
    env["ROUTER"] = str(router.get("name", ""))
    env["ROUTER_VERSION"] = str(router.get("version", ""))
    env["KV_P2P_TRANSFER"] = fields.env_value(row.get(fields.KV_P2P_TRANSFER, ""))
    env[fields.ROW_ENV[fields.DISAGG]] = fields.env_value(row.get(fields.DISAGG, False))
    env["MULTINODE"] = "true"
    return env


def placement_env(row: dict, runners: dict | None, source: str) -> dict[str, str]:
    """SWEEPGATE_NODES and the rest of a multi-node row's node arithmetic (core.placement).

    Nothing when the runner has no gpus-per-node in ``runners`` (as the check, which
    leaves such runners alone); the launcher then names the missing SWEEPGATE_NODES.
    """
    from sweepgate.core.placement import PlacementError, place_row, places_nodes

    if not places_nodes(row, runners):
        return {}
    try:
        return place_row(row, runners or {}).env()
    except PlacementError as exc:
        raise fail(source, 0, f"row on {row.get(fields.RUNNER)!r} cannot be placed: {exc.message}",
                   exc.hint) from None


def hardware_env(row: dict, runners: dict | None) -> dict[str, str]:
    """The runner's hardware facts a job reads (fields.HARDWARE_ENV); nothing for a runner without them."""
    from sweepgate.core.placement import row_facts

    facts = row_facts(row, runners)
    return {name: ",".join(map(str, facts[fact])) if isinstance(facts[fact], list) else str(facts[fact])
            for fact, name in fields.HARDWARE_ENV.items() if fact in facts}


ROW_NEEDS = (fields.EXP_NAME, fields.RUNNER, fields.PRECISION, fields.FRAMEWORK, fields.IMAGE)
# A job's files are named after its row (fields.result_filename): the uploads take RESULT_DIR/<name>.json
# by exact path and the artifact name bmk_<name>, which GitHub refuses with '/', '\\' or ':' in it. The
# master schema's safeString lets precision, framework and model-prefix hold '/' and ':' (images need
# them), so a name must be checked as one: one file name of these characters, never a path.
FILE_NAME = re.compile(r"[A-Za-z0-9._+=,@#-]+")
# ... and within a file name's 255 bytes: the name here (with a 6-letter runner name) leaves room for
# the runner's real name and the longest file written from it (the sidecar's `.NAME.job.json.XXXXXXXX.tmp`).
FILE_NAME_MAX = 200
# With the runner's real name, at the job: a file name's 255 bytes less the longest file written from it
# (the sidecar's temp file adds 23: `.` + `.job.json` + `.XXXXXXXX.tmp`).
JOB_FILE_NAME_MAX = 255 - 23
# Whole numbers a record is derived from (GPUs, topology, the point), each with the master
# schema's bounds ($defs), so an absurd value is refused here, never met as an overflow later.
PARALLEL_FIELDS = (fields.TP, fields.PP, fields.DCP_SIZE, fields.PCP_SIZE, fields.EP)
LENGTH_FIELDS = (fields.ISL, fields.OSL)
# Text a job hands to a shell (`hf download "$MODEL"`, the image to pull): the master schema's safeString,
# which is what the matrix copies them from.
TEXT_FIELDS = (fields.IMAGE, fields.MODEL)


def max_model_len_bound() -> int:
    """The largest max-model-len a matrix row can carry: isl + osl + the margin (core.expand), each
    length at most the master schema's posInt."""
    return 2 * schema_maximum("posInt") + fields.MAX_MODEL_LEN_MARGIN


def _shown(value) -> str:
    """A row value as it reads in the row (JSON), cut short."""
    try:
        text = json.dumps(value, default=str)
    except RecursionError:
        return "(nested too deeply to show)"
    return text if len(text) <= 40 else text[:37] + "..."


def _whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _not_finite(value) -> str | None:
    """Where a NaN or infinity first sits in ``value`` ('max-model-len', 'prefill.tp', 'conc[1]'),
    or None (walked without recursion: a row may nest deeply)."""
    stack = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return where
        if isinstance(item, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(item))))
    return None


def _check_numbers(obj: dict, names, low: int, high: int, where: str, source: str, hint: str) -> None:
    for name in names:
        if name in obj and not _whole(obj[name], low, high):
            raise fail(source, 1, f"row's {where}{name} {_shown(obj[name])} is not a whole number from "
                       f"{low} to {high}", hint)


def _check_text(row: dict, source: str, hint: str) -> None:
    safe = schema_definition("safeString")
    for name in TEXT_FIELDS:
        if name in row and not (isinstance(row[name], str) and re.match(safe["pattern"], row[name])):
            allowed = safe["description"].split(": ", 1)[-1].rstrip(".")
            raise fail(source, 1, f"row's {name} {_shown(row[name])} is not text a job can hand to a shell "
                       f"({allowed})", hint)


def _check_workers(row: dict, source: str, hint: str) -> None:
    """A multi-node row's prefill and decode: objects of whole numbers (num-worker, tp, ...)."""
    for side in (fields.PREFILL, fields.DECODE):
        worker = row.get(side)
        if not isinstance(worker, dict):
            raise fail(source, 1, f"row's {side} {_shown(worker)} is not an object (a multi-node row has "
                       f"{fields.PREFILL} and {fields.DECODE} workers)", hint)
        _check_numbers(worker, (fields.NUM_WORKER,), 0, schema_maximum("parallelSize"), f"{side}.", source, hint)
        _check_numbers(worker, PARALLEL_FIELDS, 1, schema_maximum("parallelSize"), f"{side}.", source, hint)


def _check_settings(settings, where: str, source: str) -> None:
    """A worker's additional-settings as the master schema's envSetting holds each one: NAME=VALUE, and
    no variable that changes which code programs load, or how a shell, git, the Actions runner or
    sweepgate runs. The job environment carries them to the benchmark, so a row that never went through
    the check (a hand-written --row, an edited matrix artifact) is refused before anything is written."""
    if settings is None:  # none given (the matrix drops a null list)
        return
    rule = schema_definition("envSetting")
    fix = f"fix the config's {fields.ADDITIONAL_SETTINGS} and pass the row the matrix gives"
    if not isinstance(settings, list):
        raise fail(source, 1, f"row's {where} {_shown(settings)} is not a list of NAME=VALUE texts", fix)
    for i, setting in enumerate(settings):
        # re.search, as both schema validators apply a pattern
        if not (isinstance(setting, str) and re.search(rule["pattern"], setting)):
            raise fail(source, 1, f"row's {where}[{i}] {_shown(setting)} is not NAME=VALUE", rule["description"])
        if re.search(rule["not"]["pattern"], setting):
            raise fail(source, 1, f"row's {where}[{i}] {_shown(setting)} {rule['not']['description']}",
                       f"remove it from the config's {fields.ADDITIONAL_SETTINGS} (docs/security.md, Config settings)")


def check_row(row, source: str, hint: str = "pass the whole matrix row: toJSON(matrix.row)",
              for_a_job: bool = False) -> None:
    """Refuse what is not one whole matrix row (an object with ROW_NEEDS) or carries a value a job
    or its record cannot be derived from (parallelism, lengths, concurrency, workers, runner).
    ``for_a_job`` (a job is about to run it: row-env, the split): a conc list only on a multi-node
    row (a record's row may list the concurrencies its one output file holds), and each worker's
    additional-settings as the master schema's envSetting (``_check_settings``)."""
    if not isinstance(row, dict):
        raise fail(source, 1, "row is not a JSON object", hint)
    missing = [f for f in ROW_NEEDS if f not in row]
    if missing:
        raise fail(source, 1, f"row has no {', '.join(repr(m) for m in missing)}", hint)
    where = _not_finite(row)
    if where is not None:
        raise fail(source, 1, f"row's {where} holds NaN or Infinity", hint)
    if not isinstance(row[fields.RUNNER], str):
        raise fail(source, 1, f"row's runner {_shown(row[fields.RUNNER])} is not a string", hint)
    concs = fields.row_concs(row)  # a multi-node row lists its concurrencies
    if fields.CONC in row and not (concs and all(_whole(c, 1, schema_maximum("concValue")) for c in concs)):
        raise fail(source, 1, f"row's conc {_shown(row[fields.CONC])} is not a positive whole number (or a list "
                   f"of them) of at most {schema_maximum('concValue')}", hint)
    from sweepgate.core.recipes import runs_multinode

    if for_a_job and isinstance(row.get(fields.CONC), list) and not runs_multinode(row):  # CONC="[1, 2]"
        raise fail(source, 1, f"row's conc {_shown(row[fields.CONC])} is a list, which only a multi-node "
                   "row carries", hint)
    _check_numbers(row, PARALLEL_FIELDS, 1, schema_maximum("parallelSize"), "", source, hint)
    _check_numbers(row, LENGTH_FIELDS, 1, schema_maximum("posInt"), "", source, hint)
    _check_numbers(row, (fields.MAX_MODEL_LEN,), 1, max_model_len_bound(), "", source, hint)
    _check_text(row, source, hint)
    if fields.PREFILL in row or fields.DECODE in row:
        _check_workers(row, source, hint)
        if for_a_job:  # what the job environment carries to the benchmark (a record keeps its row as it ran)
            known = schema_definition("worker")["properties"]  # each becomes a variable, PREFILL_<FIELD>
            for side in (fields.PREFILL, fields.DECODE):
                if unknown := [k for k in row[side] if k not in known]:
                    raise fail(source, 1, f"row's {side} has {_shown(unknown[0])}, no worker field (the fields: "
                               f"{', '.join(sorted(known))})", hint)
                _check_settings(row[side].get(fields.ADDITIONAL_SETTINGS), f"{side}.{fields.ADDITIONAL_SETTINGS}",
                                source)
    if for_a_job:
        _check_file_name(fields.result_filename(row, "runner"), source)


def _check_file_name(name: str, source: str) -> None:
    """A job's file name (``fields.result_filename``) must be one file name (FILE_NAME, FILE_NAME_MAX)."""
    what = "row's job file name (exp-name, precision, framework, spec-decoding)"
    bad = sorted({c for c in name if not FILE_NAME.fullmatch(c)})
    if bad:
        raise fail(source, 1, f"{what} holds {' '.join(map(repr, bad))}, so its result upload would fail or "
                   "leave RESULT_DIR", "use letters, digits and . _ - in the config's model-prefix, precision and framework")
    if len(name.encode()) > FILE_NAME_MAX:
        raise fail(source, 1, f"{what} is {len(name.encode())} bytes long, over {FILE_NAME_MAX}, so the job could "
                   "not write its result file", "shorten the config's model-prefix, precision or framework")


def check_pool(row: dict, runner_name: str, runners: dict | None, source: str = fields.RUNNER_NAME_ENV,
               whose: str = "", *, chosen: bool = False) -> None:
    """Refuse a job taken by a runner that configs/runners.yaml does not list under the row's label
    (when it lists any): the hardware facts exported, the launcher hashed into the run identity and
    the results stored would all be those of the pool, not of the machine that ran it. ``source``:
    where the name came from (``--runner-name`` when passed). ``whose`` names the file's checkout in
    the hint ("main's "). ``chosen``: the name is one the caller picks to play (``rehearse
    --runner-name``), so the fix is to pick a listed one, not to list the machine."""
    label = str(row.get(fields.RUNNER) or "")
    names = ((runners or {}).get(fields.LABELS) or {}).get(label) if isinstance(runners, dict) else None
    if isinstance(names, list) and names and runner_name and runner_name not in map(str, names):
        listed = ", ".join(map(str, names))
        raise fail(source, 0, f"runner {runner_name!r} took a row for {label!r}, whose pool in "
                   f"{fields.RUNNERS_FILE} is {listed}; its results would be stored as that hardware's",
                   f"pass one of the listed names ({listed})" if chosen else
                   f"add {runner_name} under labels.{label} in {whose}{fields.RUNNERS_FILE}, "
                   "or take the label off the runner", rule=fields.UNKNOWN_RUNNER_RULE)


def check_runtime(row: dict, env: dict[str, str], runners_doc) -> None:
    """Refuse a row ``runtime_refusal`` refuses: the arm would stop after the job had taken the GPUs."""
    refused = runtime_refusal(row, env, runners_doc)
    if refused is not None:
        raise SweepgateError([refused])


def lacks_runtime(row: dict, env: dict[str, str]) -> str | None:
    """The backend ``row``'s KV-offload arm installs (``fields.runtime_backend``) when the job gets no accelerator
    runtime (``env`` holds no SWEEPGATE_ACCELERATOR_RUNTIME): the row whoever runs it refuses (`ci row-env`,
    `rehearse`, `preflight`: ``runtime_refusal``); None for any other row."""
    backend = fields.runtime_backend(row)
    return backend if backend and fields.HARDWARE_ENV[fields.ACCELERATOR_RUNTIME] not in env else None


def runtime_refusal(row: dict, env: dict[str, str], runners_doc) -> Diagnostic | None:
    """The one problem of a row ``lacks_runtime`` refuses; None for any other row. Said at the label's hardware
    entry in ``runners_doc`` (the checkout's configs/runners.yaml, ``check.checked_runners_doc``), as `plan` warns
    of it, its labels entry without one, the file at no line when neither is there."""
    backend = lacks_runtime(row, env)
    if backend is None:
        return None
    label = str(row.get(fields.RUNNER))
    entry = fields.runner_entry(runners_doc.data if runners_doc is not None else None, label)
    line, col = runners_doc.locate(entry) if entry else (0, 0)
    return Diagnostic(runners_doc.path if runners_doc is not None else fields.RUNNERS_FILE, line, col,
                      fields.NO_RUNTIME_RULE,
                      f"the row's KV-offload arm installs {backend}, whose build it picks by the runner's "
                      f"{fields.ACCELERATOR_RUNTIME}, and '{label}' states none in {fields.RUNNERS_FILE}",
                      fields.add_hardware(label, [fields.RUNTIME_FACT]) + " of the commit the job runs")


def job_env(row: dict, runner_name: str, result_dir: str, source: str = "ROW",
            runners: dict | None = None, named_at: str = fields.RUNNER_NAME_ENV) -> dict[str, str]:
    """The job environment of one row; ``runners`` (configs/runners.yaml) places multi-node rows.
    ``named_at``: where ``runner_name`` came from (``--runner-name`` when passed), where a bad one is said."""
    check_row(row, source, for_a_job=True)
    if not runner_name:
        raise fail("--runner-name", 0, "RUNNER_NAME is not set", "run on an Actions runner or pass --runner-name NAME")
    if not FILE_NAME.fullmatch(runner_name) or ".." in runner_name:  # a runner no pool lists: never schema-checked
        raise fail(named_at, 0, f"runner name {runner_name!r} is not one file name of letters, digits "
                   "and . _ + = , @ # - (it names the job's result files and its launcher)", "rename the runner "
                   "(letters, digits, '.', '_' and '-', as labels.<label> lists them)")
    if (size := len(fields.result_filename(row, runner_name).encode())) > JOB_FILE_NAME_MAX:
        raise fail(source, 1, f"row's job file name on runner {runner_name!r} is {size} bytes long, over "
                   f"{JOB_FILE_NAME_MAX}, so the job could not write its result file",
                   "give the runner a shorter name, or shorten the config's model-prefix, precision or framework")
    env = fields.row_env(row, runner_name, result_dir)
    env.update(hardware_env(row, runners))
    if fields.PREFILL in row or fields.DECODE in row:
        env.update(_multinode_env(row))
        env.update(placement_env(row, runners, source))
    env[JOB_ENV_NAMES_VAR] = " ".join(env)
    return env
