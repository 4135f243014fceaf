"""`sweepgate rehearse`: run one matrix row's benchmark script without a GPU.

The real script runs unmodified. Shims put first on PATH stand in for the
tools it calls (`vllm`, `lmcache`, `mooncake_master`, `aiperf`, `pip`, `hf`);
the servers among them are standin.py, a standard-library OpenAI-compatible
server. The rehearsal passes when the script exits 0, writes
RESULT_DIR/RESULT_FILENAME.json, leaves none of the processes it started
running, and called its KV-offload backend the way the row says.
"""

from __future__ import annotations

import difflib
import errno
import json
import os
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sweepgate.core import fields, jobfile, jsontext, pythoncall, scriptlines
from sweepgate.core.errors import Diagnostic, SweepgateError, emit, fail, is_a_folder, json_message, os_reason
from sweepgate.core.jobenv import check_row
from sweepgate.core.recipes import gpu_family, library_copy, library_problem, script_candidates
from sweepgate.core.rowkeys import worktree_row_key
from sweepgate.core.signals import Held, Stopping, remove_folder
from sweepgate.core.textmode import not_utf8
from sweepgate.rehearsal import calllog, confine, linetrap, multinode
from sweepgate.rehearsal.calllog import read_calls
from sweepgate.rehearsal.problem import Problem
from sweepgate.rehearsal.progress import CallTail, Progress
from sweepgate.rehearsal.standin import ENGINE_SHIMS, LIGHT_SHIMS, LOG_ENV, SHIM_ALIASES, option_value, start_time

FAKESERVER = Path(__file__).with_name("standin.py")
SHIMS = (*ENGINE_SHIMS, *SHIM_ALIASES, *LIGHT_SHIMS)  # what standin.shim answers, each a program on PATH
DURATION_ENV = "SWEEPGATE_REHEARSE_DURATION"
# The interpreter a python3 shim runs for any call but a client it stands in for, when set (preflight: this
# one, as a version manager's python3 on PATH costs a tenth of a second a call); else the next on PATH.
THIS_PYTHON_ENV = "SWEEPGATE_REHEARSE_PYTHON3"
DEFAULT_DURATION_S = 10
EXP_NAME_FLAG = "--exp-name"  # where an exp-name no config holds is said (``select_row``), as the flag is declared
DEFAULT_TIMEOUT_S = 600
TRACE_TURNS = (
    {"session_id": "s0", "input_length": 512, "output_length": 32},
    {"session_id": "s0", "input_length": 640, "output_length": 32},
    {"session_id": "s1", "input_length": 384, "output_length": 48},
)


# --- finding the row -------------------------------------------------------------

def load_rows(args, root: Path) -> tuple[list[dict], str]:
    """All candidate rows, and where they came from (for messages). Rows from the configs are
    ``KeyedRow``s: they know their config key, which the job sidecar records; rows of a list or a
    matrix in --row-json are ``PlacedRow``s: they know their line."""
    if args.row_json:
        path = Path(args.row_json)
        text, data = _read_row_file(path)
        rows = data if isinstance(data, list) else [data]
        if not all(isinstance(r, dict) for r in rows):
            raise fail(str(path), 0, "rows must be JSON objects", "write one row object or a list of rows")
        if len(rows) == 1 and fields.EXP_NAME not in rows[0]:
            from sweepgate.core.sweep import matrix_rows

            rows = matrix_rows(rows[0]) or rows  # a whole matrix (`sweepgate matrix` output)
        one = isinstance(data, dict) and rows[0] is data  # the file is the row: its line 1 is the row's
        places = {} if one else jsontext.object_places(text, data)
        return [PlacedRow(r, places[id(r)]) if id(r) in places else r for r in rows], str(path)
    from sweepgate.core.sweep import worktree_keyed_rows, worktree_revision

    rev = worktree_revision(root)
    keyed = worktree_keyed_rows(root, args.config_keys or None, unnamed_fix="or name the rehearsed row's config "
                                "with --config-keys KEY, which expands that config alone", rev=rev)
    rows = [KeyedRow(row, key, rev.where(key)) for key, row in keyed]
    return rows, f"{fields.CONFIG_DIR}/{fields.MASTER_GLOB}"  # where no row stands (none at all)


def _read_row_file(path: Path) -> tuple[str, object]:
    """--row-json's text and what it holds."""
    try:
        text = path.read_text(encoding="utf-8")
        if not text.strip():  # `sweepgate test-config ... > row.json` whose test-config failed
            raise fail(str(path), 1, *jsontext.EMPTY_ROW_FILE)
        return text, jsontext.loads(text)
    except OSError as exc:
        raise fail(str(path), 0, f"cannot read row file: {os_reason(exc)}",
                   "pass an existing JSON file to --row-json") from None
    except UnicodeDecodeError as exc:
        raise fail(str(path), 0, not_utf8(exc.start),
                   "pass a JSON file: one row object or a list of rows") from None
    except json.JSONDecodeError as exc:
        raise fail(str(path), exc.lineno, f"not JSON: {json_message(exc)}",
                   "write one row object or a list of rows", col=exc.colno) from None
    except RecursionError:
        raise fail(str(path), 0, jsontext.NESTED_TOO_DEEPLY, "write one row object or a list of rows") from None


class PlacedRow(dict):
    """A row of a list (or a matrix) in a JSON file that remembers its (line, column) there."""

    def __init__(self, row: dict, place: tuple[int, int]):
        super().__init__(row)
        self.place = place


def at_its_place(exc: SweepgateError, row: dict, source: str) -> SweepgateError:
    """``exc`` with its diagnostics about ``source`` moved to the row's own line (a ``PlacedRow``)."""
    place = getattr(row, "place", None)
    for d in exc.diagnostics if place else []:
        if d.file == source:
            d.line, d.col = place
    return exc


class KeyedRow(dict):
    """A matrix row that remembers its master-config key (not a row field: the row stays as dispatched), and
    ``where`` that config is (``expand.Where``: its master config and key line)."""

    def __init__(self, row: dict, config_key: str, where=None):
        super().__init__(row)
        self.config_key, self.where = config_key, where


def config_key_of(row: dict) -> str | None:
    return getattr(row, "config_key", None)


def config_place(row: dict) -> tuple[str, int] | None:
    """(master config, line of the config's key) of a ``KeyedRow``, where `plan` and `preflight` say a
    config's problems; None for a row of --row-json."""
    where = getattr(row, "where", None)
    return (where.file, where.line) if where is not None and where.file else None


def _about(rows: list[dict], source: str, given: str | None = None) -> tuple[str, tuple[str, int]]:
    """Whom a refusal of ``rows`` names, as the user named them, and where it stands: the exp-name
    ``given`` (--exp-name), else the config key of rows all of one config (--config-keys), else "" (the
    rows of --row-json, or of several configs); at the key line of the config of the first row, in its
    master file (of several configs, the one that holds the row named first), else (--row-json) at ``source``."""
    keys = {config_key_of(r) for r in rows}
    key = keys.pop() if len(keys) == 1 else None
    at = config_place(rows[0]) if rows else None
    who = f"exp-name {given!r}" if given else f"config key {key!r}" if key else ""
    return who, at or (source, 0)


def _closest(word: str, names: list[str], cutoff: float = 0.6) -> list[str]:
    """Every name of ``names`` as close to ``word`` as the closest (difflib's ratio, at least ``cutoff``):
    `epp` is as near `ep` as `pp`, and naming one would hide the other."""
    ratios = {name: difflib.SequenceMatcher(None, word, name).ratio() for name in names}
    best = max(ratios.values(), default=0)
    return [name for name, ratio in ratios.items() if ratio == best] if best >= cutoff else []


def _concs(rows: list[dict]) -> list[str]:
    """The rows' concurrencies, in numeric order."""
    values = {v for r in rows for v in fields.row_concs(r) if not isinstance(v, (list, dict))}
    return [str(v) for v in sorted(values, key=lambda v: (not isinstance(v, int), v if isinstance(v, int) else 0,
                                                          str(v)))]


def select_row(rows: list[dict], source: str, exp_name: str | None, conc: int | None,
               where: list[str] | None = None) -> dict:
    """The one row the flags name. A refusal names them as given (``_about``: an --exp-name, else the one
    config key the rows come from, else the exp-name they share) and stands at that config's key line when
    the rows are all of one config, else at ``source``."""
    given = exp_name
    rows, exp_name = (rows, exp_name) if exp_name or len(rows) < 2 else _implied(rows, conc, where, source)
    if not exp_name:
        if len(rows) != 1:
            raise _unchosen(rows, source, conc)
        # one row is the choice; --conc and --where still hold it to what they say (a row without an
        # exp-name is refused for it as soon as it is taken: required_fields)
        if not isinstance(exp_name := rows[0].get(fields.EXP_NAME), str):
            return rows[0]
    matches = [r for r in rows if r.get(fields.EXP_NAME) == exp_name]
    if not matches:
        known = sorted({str(r.get(fields.EXP_NAME)) for r in rows if r.get(fields.EXP_NAME) is not None})
        near = difflib.get_close_matches(exp_name, known, n=3, cutoff=0.8)
        shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
        # no config holds it: said at the one config the rows are of, else of the flag (a glob is no place)
        one = len({config_key_of(r) for r in rows}) == 1 or not (rows and config_place(rows[0]))
        raise fail(*(_about(rows, source)[1] if one else (EXP_NAME_FLAG, 0)), f"no row has exp-name {exp_name!r}",
                   f"did you mean {', '.join(near)}?" if near
                   else f"pick one of: {shown}" if known else "the source holds no rows")
    who, at = _about(matches, source, given)
    has = "has" if who and not given else "matches"  # a config key given has rows; an exp-name matches them
    who = who or f"exp-name {exp_name!r}"
    if conc is not None:
        named = matches
        matches = _filtered(matches, conc)
        if not matches:
            raise fail(*at, f"{who} has no row with conc {conc}", f"pick --conc from: {', '.join(_concs(named))}")
    for condition in where or []:
        refused = _where_refusal(matches, condition, at, f" of {who}")
        if refused:
            raise refused
        matches = _filtered(matches, where=[condition])
    if len(matches) > 1:
        concs, asked, shown = _needed(matches, conc)
        if concs or asked:  # all that is still to choose, in one line: not --conc, then --where once it is given
            differ = "; ".join(f"{n} {', '.join(v[:6])}" for n, v in shown[:3])
            raise fail(*at, f"{who} {has} {len(matches)} rows" + (f" (conc {', '.join(concs)})" if concs else "")
                       + (f" that differ in {differ}" if asked else ""),
                       f"choose one with {_choosing(concs, asked)}" + (_keys_named(matches) if asked else ""))
    return matches[0]


def _needed(rows: list[dict], conc: int | None) -> tuple[list[str], list[tuple[str, list[str]]],
                                                       list[tuple[str, list[str]]]]:
    """Everything that still tells ``rows`` (of one exp-name) apart, at once: (their concurrencies, when --conc is
    not given and they have several; the fields --where must name to leave one row at a concurrency, each with its
    values; every field the rows of a concurrency differ in, those asked for first). A field asked for is the one
    shortest to write (a runner label before its image, tp before max-model-len; as short: row order), then, of
    rows still alike in it, the next, until each is one row; rows alike in every field are one choice (the first)."""
    concs = _concs(rows) if conc is None else []
    concs = concs if len(concs) > 1 else []
    groups = [rows]
    if concs:
        values = dict.fromkeys(v for r in rows for v in fields.row_concs(r) if not isinstance(v, (list, dict)))
        groups = [[r for r in rows if v in fields.row_concs(r)] for v in values]
    shown = _differing_within(groups, ())
    asked: list[tuple[str, list[str]]] = []
    while ambiguous := [g for g in groups if len(g) > 1]:
        differ = _differing_within(ambiguous, {name for name, _ in asked})
        if not differ:
            break
        name, values = min(differ, key=lambda d: sum(map(len, d[1])))
        asked.append((name, values))
        groups = [[r for r in g if _text(r.get(name)) == value] for g in ambiguous for value in values]
    first = [d for d in shown if d[0] in {name for name, _ in asked}]
    return concs, asked, first + [d for d in shown if d not in first]


def _differing_within(groups: list[list[dict]], named) -> list[tuple[str, list[str]]]:
    """``_differing`` of each group of rows (those of one concurrency), merged in row order, conc and the fields
    ``named`` left out."""
    merged: dict[str, set[str]] = {}
    for group in groups:
        for name, values in _differing(group):
            if name != fields.CONC and name not in named:
                merged.setdefault(name, set()).update(values)
    return [(name, sorted(values)) for name, values in merged.items()]


def _choosing(concs: list[str], asked: list[tuple[str, list[str]]], every: bool = False) -> str:
    """The flags that pick one row: ``--conc N`` where there are ``concs`` to choose from, then a --where for each
    field ``asked`` (with its first value, or ``every`` one: ``--where tp=4 or tp=8``)."""
    flags = ["--conc N"] if concs else []
    flags += [f"--where {' or '.join(f'{name}={v}' for v in values) if every else f'{name}={values[0]}'}"
              for name, values in asked]
    return " and ".join(flags)


def _keys_named(rows: list[dict]) -> str:
    """``, or --config-keys with one of A, B`` where the rows come from several config keys (the first six)."""
    keys = sorted({k for r in rows if (k := config_key_of(r))})
    more = f" ({len(keys) - 6} more)" if len(keys) > 6 else ""
    return f", or --config-keys with one of {', '.join(keys[:6])}{more}" if len(keys) > 1 else ""


def _filtered(rows: list[dict], conc: int | None = None, where: list[str] | None = None) -> list[dict]:
    """The rows at ``conc`` (any, when None) whose fields are as each ``NAME=VALUE`` of ``where`` says (as
    ``_text`` spells a value): what --conc and --where keep, with --exp-name or without (``_implied``)."""
    conditions = [condition.partition("=") for condition in where or []]
    return [r for r in rows if (conc is None or conc in fields.row_concs(r))
            and all(_text(r.get(name)) == wanted for name, _, wanted in conditions)]


def _where_refusal(rows: list[dict], condition: str, at: tuple[str, int], whose: str = "") -> SweepgateError | None:
    """Why ``NAME=VALUE`` of --where keeps none of ``rows`` (``whose``: ` of exp-name 'X'` when they are
    one exp-name's, ` of config key 'K'` one config's), said at ``at``: a field none of them has (a mistyped
    field: every row "has" it as null), with the nearest ones, or a value none has, with the values they
    have; None when it keeps some."""
    name, _, wanted = condition.partition("=")
    owner = "its" if whose else "their"
    if not any(name in r for r in rows):
        named = sorted({k for r in rows for k in r})
        near = _closest(name, named)
        return fail(*at, f"no row{whose} has a field {name!r}",
                    (f"did you mean {' or '.join(near)}? " if near else "") + f"({owner} fields: {', '.join(named)})")
    if not _filtered(rows, where=[condition]):
        seen = sorted({_text(r.get(name)) for r in rows})
        return fail(*at, f"no row{whose} has {name}={wanted}",
                    f"{'its' if whose else 'the'} rows have {name} " + ", ".join(seen[:8]))
    return None


def _implied(rows: list[dict], conc: int | None, where: list[str] | None,
             source: str) -> tuple[list[dict], str | None]:
    """No --exp-name: the rows at ``conc`` whose fields are as ``where`` says, when some are (else all), and
    their exp-name where they have one: that name is the choice, --conc and --where choose among its rows.
    A --conc or --where none of the rows of several exp-names meets is refused for what it names (a --where by
    ``_where_refusal``): falling back to every row would ask for --exp-name instead."""
    kept = _filtered(rows, conc, where)
    at_conc = _filtered(rows, conc)
    who, at = _about(rows, source)
    if not at_conc and len({r.get(fields.EXP_NAME) for r in rows}) > 1:  # no --exp-name would help: said as
        # select_row says it of one exp-name's rows (s41e: a --conc none had read as "pass --exp-name NAME")
        raise fail(*at, f"{who} has no row with conc {conc}" if who else f"no row has conc {conc}",
                   f"pick --conc from: {', '.join(_concs(rows))}")
    at_conc = at_conc or rows
    if not kept and len({r.get(fields.EXP_NAME) for r in at_conc}) > 1:
        for condition in where or []:
            refused = _where_refusal(at_conc, condition, at, f" of {who}" if who else "")
            if refused:
                raise refused
            at_conc = _filtered(at_conc, where=[condition])
    rows = kept or rows
    names = {r.get(fields.EXP_NAME) for r in rows}
    name = names.pop() if len(names) == 1 else None
    return rows, name if isinstance(name, str) else None


def _unchosen(rows: list[dict], source: str, conc: int | None = None) -> SweepgateError:
    """No --exp-name, and not one row to take: what the source holds, and the flag that chooses. With --conc
    (``conc``, the rows all at it) and a few exp-names, the flags that pick one row of each (``_picks``)."""
    if not rows:
        return fail(source, 0, "holds no rows", "write one row object or a list of rows")
    names = list(dict.fromkeys(str(r[fields.EXP_NAME]) for r in rows if r.get(fields.EXP_NAME) is not None))
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    at = _about(rows, source)[1]  # one config's rows at its line
    picks = _picks(rows, names, conc) if conc is not None and 1 < len(names) <= _PICKS_NAMED else None
    return fail(*at, f"no row chosen: {len(rows)} rows" + (f" (exp-name {shown})" if names else ""),
                f"pass {picks}" if picks else
                f"pass --exp-name {names[0] if len(names) == 1 else 'NAME'}{_then(rows, names, conc)}")


def _then(rows: list[dict], names: list[str], conc: int | None) -> str:
    """What an --exp-name of ``names`` may still need, said with it (not once it is given): ``(and --conc N when it
    repeats)``, with the fields --where must name where the rows of an exp-name differ in them too."""
    needs_conc, fields_asked = False, {}
    for name in names:
        concs, asked, _ = _needed([r for r in rows if str(r.get(fields.EXP_NAME)) == name], conc)
        needs_conc = needs_conc or bool(concs)
        fields_asked.update(dict.fromkeys(field for field, _ in asked))
    if not fields_asked:
        return " (and --conc N when it repeats)" if needs_conc or conc is None else ""
    flags = (["--conc N"] if needs_conc else []) + [f"--where {field}=VALUE" for field in fields_asked]
    return f" (and {' and '.join(flags)} where its rows need them)"


_PICKS_NAMED = 4  # exp-names whose picks a refusal spells out (s43e); of more, --exp-name NAME


def _picks(rows: list[dict], names: list[str], conc: int | None) -> str:
    """``--exp-name A, or --exp-name B with --where tp=4 or tp=8``: for each exp-name of ``names``, everything
    that picks one of its ``rows`` (those --conc and --where left; ``_needed``), said at once."""
    said = []
    for name in names:
        concs, asked, _ = _needed([r for r in rows if str(r.get(fields.EXP_NAME)) == name], conc)
        said.append(f"--exp-name {name}" + (f" with {_choosing(concs, asked, every=True)}" if concs or asked else ""))
    return ", or ".join(said)


def _text(value) -> str:
    """A row value as --where spells it (JSON's true/false/null, numbers and strings as written)."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


# Fields that tell rows of one exp-name apart without being what a user picks a row by.
_NOT_CHOSEN_BY = {fields.EXP_NAME, fields.RECIPE_FINGERPRINT}


def _differing(rows: list[dict]) -> list[tuple[str, list[str]]]:
    """(field, its values) for each field whose value differs between the rows, in row order."""
    names = [n for n in dict.fromkeys(k for r in rows for k in r) if n not in _NOT_CHOSEN_BY]
    out = []
    for name in names:
        values = sorted({_text(r.get(name)) for r in rows})
        if len(values) > 1:
            out.append((name, values))
    return out


# --- resolving the script (CONTRACTS section 7) ---------------------------------------

def runner_label(row: dict) -> str:
    runner = str(row.get(fields.RUNNER) or "")
    return runner[len(fields.CLUSTER_PREFIX):] if runner.startswith(fields.CLUSTER_PREFIX) else runner


def default_runner_name(row: dict, runners: dict | None = None) -> str:
    """The machine a rehearsal plays: the first runner ``runners`` (configs/runners.yaml) lists under the
    row's label, a name `ci row-env` takes for it; without one, ``<label>_00``."""
    labels = runners.get(fields.LABELS) if isinstance(runners, dict) else None
    names = labels.get(str(row.get(fields.RUNNER) or "")) if isinstance(labels, dict) else None
    if isinstance(names, list) and names and isinstance(names[0], str):
        return names[0]
    label = runner_label(row)
    return label if "_" in label else f"{label}_00"


def unknown_label(row: dict, root: Path, source: str) -> Diagnostic | None:
    """`plan`'s unknown-runner warning for a row whose runner label the repository's configs/runners.yaml
    does not list (when it lists any): the rehearsal runs all the same (as ``<label>_00``), but `ci split
    --runners` would refuse the sweep. At the `runner:` line of the row's config (a ``KeyedRow``), the row's
    place in ``source`` (a ``PlacedRow``), else ``source``; None for a listed label."""
    from sweepgate.core.placement import runner_labels, runners_at
    from sweepgate.core.plan import unknown_runner

    labels = runner_labels(runners_at(str(root)))
    label = str(row.get(fields.RUNNER))
    if not labels or label in labels:
        return None
    where: tuple[str, int, int] = (source, *getattr(row, "place", (0, 0)))
    if config_place(row):
        where = (row.where.file, *row.where.at(fields.RUNNER))
    return unknown_runner(label, labels, where)


def runner_for(row: dict, root: Path, named: str | None = None) -> str:
    """The runner name a rehearsal of ``row`` runs as: ``named`` (``--runner-name``), refused as `ci row-env`
    refuses it when the row's pool in the repository's configs/runners.yaml lists others (the fix: pass one of
    them), else the default."""
    from sweepgate.core.jobenv import check_pool
    from sweepgate.core.placement import runners_at

    runners = runners_at(str(root))
    if named:
        check_pool(row, named, runners, "--runner-name", chosen=True)
        return named
    return default_runner_name(row, runners)


def resolve_script(root: Path, row: dict, gpu: str) -> Path:
    """The row's benchmark script (CONTRACTS section 7). None there is refused as `preflight` refuses it: at
    the block of the row's config (a ``KeyedRow``; else at the path looked for), the paths of the fix from the
    current folder (``repopaths.from_here``), as every fix names them."""
    from sweepgate.core.repopaths import from_here

    candidates = script_candidates(row, gpu)
    for rel in candidates:
        if (root / rel).is_file():
            if not (root / fields.BENCHMARK_LIB).is_file():  # said at the line that sources it, not by bash
                from sweepgate.core.identity import read_tree

                if problem := library_problem([rel], read_tree(str(root)), root=str(root)):
                    raise SweepgateError([problem])
            return root / rel
    at = config_place(row)
    if folders := [rel for rel in candidates if (root / rel).is_dir()]:  # said as what it is, as preflight says it
        raise fail(*(at or (folders[0], 0)), f"the benchmark script for exp-name {row.get(fields.EXP_NAME)!r} "
                   f"{is_a_folder()}", "put the script in the folder's place "
                   + (f"({from_here(root, folders[0])}) " if at else "") + "(CONTRACTS section 7)")
    raise fail(*(at or (candidates[0], 0)), f"no benchmark script for exp-name {row.get(fields.EXP_NAME)!r}",
               f"create {from_here(root, candidates[0])} (or {from_here(root, candidates[1])})"
               + ("" if (root / fields.BENCHMARK_LIB).is_file() else f"; {library_copy(str(root))}"))


# --- the rehearsal ----------------------------------------------------------------

EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST_PORT = 10000
PORT_SPAN = 64  # a multi-node rehearsal puts its tasks on PORT+1, PORT+2, ... (disagg_lib.sh)


def _ephemeral_low() -> int:
    try:
        return int(EPHEMERAL_RANGE_FILE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int) -> list[int]:
    """COUNT loopback ports, free right now, spaced PORT_SPAN apart with the PORT_SPAN ports above
    each free too, all below the kernel's ephemeral range: a client connection's local port (the
    load generator's, a health check's) is taken from that range and so can never occupy one of
    them, or PORT+N of a multi-node task, before its server binds."""
    import random

    rng, top = random.SystemRandom(), _ephemeral_low() - PORT_SPAN * (count + 1)
    for _ in range(200):
        base = rng.randrange(LOWEST_PORT, max(top, LOWEST_PORT + 1))
        ports = [base + i * PORT_SPAN for i in range(count)]
        if all(_bindable(p + k) for p in ports for k in range(PORT_SPAN)):
            return ports
    raise fail("rehearse", 0, "no free block of loopback ports below the ephemeral range",
               "stop other servers on 127.0.0.1, or try again")


STANDIN = "server-standin"  # what SERVER_STANDIN points at: runs a server command's stand-in
# `python3 -m MODULE` (or `python`, `python3.N`, with the interpreter's own options before -m: core/pythoncall.py) of
# a benchmark client or an engine's server a script runs itself: the stand-in answers it (s45c: InferenceX's SGLang
# scripts start `python3 -m sglang.launch_server ... &` themselves, which ran the real interpreter, "No module named
# 'sglang'", where `vllm serve ... &` was stood in and said left running); any other call of these names runs the
# interpreter found after the shims on PATH (the library's `python3 -`, a script's own). A name gets a shim only when
# PATH has it as the shims are written: a `python` shim on a machine with only python3 would tell `command -v python`
# it is there.
CLIENT_MODULES = (fields.SGLANG_CLIENT_MODULE, fields.SGLANG_SERVER_MODULE, fields.SGLANG_ROUTER_MODULE,
                  fields.VLLM_SERVER_MODULE)


def _shebang() -> str:
    """The shims' first line: bash (found on PATH as they are written, by its real path: older kernels cut a first
    line at 127 bytes) in privileged mode, `-p`, which reads no `$BASH_ENV` (the job's own, put back for the script)
    and takes no `$SHELLOPTS` from the environment (a script's `export SHELLOPTS` after `set -x`): the program a
    shim stands in for does neither, so `$(python3 -c ...)` holds what python3 printed alone and a traced script's
    stderr no line of a shim. (A `-p` after `/usr/bin/env bash` would reach env as one word with `bash`.) The
    program a shim runs is given the environment the shim was, not privileged bash's: ``_exec_as_given``."""
    return f"#!{os.path.realpath(shutil.which('bash') or '/bin/bash')} -p\n"


def _exec_as_given() -> str:
    """Bash defining ``_sg_exec PROGRAM ARGS``: exec PROGRAM with the environment the shim was given. A privileged
    bash hands on one it changed (SHELLOPTS, when exported, with its own value, `privileged` among its options,
    which a bash the program starts takes: no job BASH_ENV read, the script's errexit, xtrace, pipefail and nounset
    gone; BASHOPTS and PS4 its own), so the environment is read back from /proc/$$/environ (what the shim was
    exec'd with) and handed over by `env -i`. Without /proc, or for a PROGRAM path env would read as an assignment
    (an `=` in it), the program is run as bash leaves it."""
    env = shlex.quote(os.path.realpath(shutil.which("env") or "/usr/bin/env"))
    return (
        "_sg_exec() {\n"
        "  local _sg_given=() _sg_kept=() _sg_v\n"
        "  if [[ $1 != *=* ]] && { mapfile -d '' _sg_given < /proc/$$/environ; } 2>/dev/null; then\n"
        '    for _sg_v in "${_sg_given[@]}"; do [[ $_sg_v == *=* ]] && _sg_kept+=("$_sg_v"); done\n'
        f'    exec {env} -i -- "${{_sg_kept[@]}}" "$@"\n'
        "  fi\n"
        '  exec "$@"\n'
        "}\n"
    )


def write_shims(shim_dir: Path) -> None:
    # standin.py is standard library only: -I -S leave out the environment, the user's and the
    # venv's site-packages (and their .pth files), a cost every one of a row's shim calls paid.
    shim_dir.mkdir(parents=True, exist_ok=True)
    for name in SHIMS:
        path = shim_dir / name
        path.write_text(
            _shebang()
            + f"# sweepgate rehearse: stands in for `{name}`.\n"
            f"exec {shlex.quote(sys.executable)} -I -S {shlex.quote(str(FAKESERVER))} shim {name} \"$@\"\n",
            encoding="utf-8",
        )
        path.chmod(0o755)
    # SERVER_STANDIN: benchmark_lib's start_background_process runs this with the real
    # server argv (`vllm serve ...`, `lmcache server ...`); it serves the stand-in instead.
    standin = shim_dir / STANDIN
    standin.write_text(
        _shebang()
        + "# sweepgate rehearse: SERVER_STANDIN, given a real server command (an interpreter's: -m MODULE ARGS, its own\n"
        "# options dropped, as its python shim hands the stand-in a client's).\n"
        "tool=\"${1##*/}\"\n"
        "shift\n"
        f"_sg_python={shlex.quote('^' + pythoncall.NAME + '$')}\n"
        'if [[ $tool =~ $_sg_python ]]; then\n'
        '  _sg_args=("$@")\n'
        + pythoncall.bash_module()
        + '  [[ -n $_sg_module ]] && set -- -m "$_sg_module" "${_sg_args[@]:_sg_next}"\n'
        "fi\n"
        f"exec {shlex.quote(sys.executable)} -I -S {shlex.quote(str(FAKESERVER))} shim \"${{tool}}\" \"$@\"\n",
        encoding="utf-8",
    )
    standin.chmod(0o755)
    for name in python_names(shim_dir, os.environ.get("PATH", "")):
        _write_python_shim(shim_dir, name)


def python_names(shim_dir: Path, search_path: str) -> list[str]:
    """The interpreters' names (``pythoncall.NAME``: python3, python, python3.N) an executable file on
    ``search_path`` has, the shim folder left out."""
    found = set()
    for folder in search_path.split(os.pathsep):
        folder = Path(folder or ".")
        try:
            if shim_dir.exists() and folder.exists() and folder.samefile(shim_dir):
                continue
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if pythoncall.is_interpreter(name) and name not in found:
                path = folder / name
                if path.is_file() and os.access(path, os.X_OK):
                    found.add(name)
    return sorted(found)


def _write_python_shim(shim_dir: Path, name: str) -> None:
    """``name``: the stand-in for `name [its own options] -m CLIENT_MODULE ...`, else the next ``name`` on PATH
    (127 when none). The options before -m are read as ``pythoncall.module_call`` reads them."""
    modules = "|".join(shlex.quote(m) for m in CLIENT_MODULES)
    path = shim_dir / name
    path.write_text(
        _shebang()
        + f"# sweepgate rehearse: stands in for `{name} -m` of {', '.join(CLIENT_MODULES)}; any other call runs the\n"
        f"# {name} after this folder on PATH.\n"
        "_sg_args=(\"$@\")\n"
        + _exec_as_given()
        + pythoncall.bash_module()
        + f'case "$_sg_module" in {modules}) exec {shlex.quote(sys.executable)} -I -S '
        f'{shlex.quote(str(FAKESERVER))} shim {name} -m "$_sg_module" "${{_sg_args[@]:_sg_next}}" ;; esac\n'
        + (f'[[ -n "${{{THIS_PYTHON_ENV}:-}}" ]] && _sg_exec "${THIS_PYTHON_ENV}" "$@"\n' if name == "python3" else "")
        + 'IFS=: read -r -a _sweepgate_dirs <<< "$PATH"\n'
        'for _sweepgate_dir in "${_sweepgate_dirs[@]}"; do\n'
        '  _sweepgate_dir="${_sweepgate_dir:-.}"\n'
        f'  [[ "$_sweepgate_dir" -ef {shlex.quote(str(shim_dir.resolve()))} ]] && continue\n'
        f'  [[ -f "$_sweepgate_dir/{name}" && -x "$_sweepgate_dir/{name}" ]] && _sg_exec "$_sweepgate_dir/{name}" "$@"\n'
        "done\n"
        f'echo "{name}: command not found" >&2\n'
        "exit 127\n",
        encoding="utf-8",
    )
    path.chmod(0o755)


def write_trace(path: Path) -> None:
    path.write_text("".join(json.dumps(t) + "\n" for t in TRACE_TURNS), encoding="utf-8")


# What to do about a row a job could not run (``core.jobenv.check_row``): a hand-edited --row-json.
ROW_HINT = "rehearse a row sweepgate wrote (sweepgate matrix, full-sweep or test-config), not one edited by hand"


def required_fields(row: dict, source: str) -> None:
    missing = [f for f in (fields.EXP_NAME, fields.MODEL_PREFIX, fields.PRECISION, fields.FRAMEWORK,
                           fields.RUNNER, fields.CONC) if f not in row]
    if missing:
        raise fail(source, 0, f"row lacks {', '.join(missing)}", "rehearse a single-node matrix row")


def dram_within_host(row: dict, root: Path, source: str) -> None:
    """A row's KV-offload DRAM budget must fit its runner's host DRAM (when the runner's facts are known)."""
    from sweepgate.core.expand import host_dram_gb
    from sweepgate.core.placement import hardware_of, runners_at

    budget = row.get(fields.TOTAL_CPU_DRAM_GB)
    facts = hardware_of(runners_at(str(root)), str(row.get(fields.RUNNER))) or {}
    if not isinstance(budget, int) or isinstance(budget, bool) or fields.AVAILABLE_CPU_DRAM_MIB not in facts:
        return
    host = host_dram_gb(facts)
    if budget > host:
        raise fail(source, 0, f"{fields.TOTAL_CPU_DRAM_GB}={budget} is above the {host} GB of host DRAM of "
                   f"'{row[fields.RUNNER]}' ({fields.RUNNERS_FILE})",
                   "use the row sweepgate generated, or lower the budget to fit the node")


def runtime_refused(row: dict, root: Path) -> Diagnostic | None:
    """`ci row-env`'s refusal of a row whose KV-offload arm installs its backend on a runner label stating no
    accelerator-runtime in the repository's configs/runners.yaml (``jobenv.runtime_refusal``: at the label's
    entry there, where `plan` warns of it): its job never runs the script, and a rehearsal's arm would stop
    it at the arm. None for any other row (the file is read whole, to place it, only for such a row)."""
    from sweepgate.core.check import checked_runners_doc
    from sweepgate.core.jobenv import hardware_env, lacks_runtime, runtime_refusal
    from sweepgate.core.placement import runners_at

    if not fields.runtime_backend(row):  # no backend to install, nothing to refuse: the runners file is not read
        return None
    env = hardware_env(row, runners_at(str(root)))
    return runtime_refusal(row, env, checked_runners_doc(str(root))) if lacks_runtime(row, env) else None


@dataclass(frozen=True)
class Runnable:
    """What a rehearsal of a row runs, once ``runnable`` has found it may: the runner name and the script."""

    runner_name: str
    script: Path


def runnable(root: Path, row: dict, runner_name: str | None = None, work: Path | str | None = None) -> Runnable:
    """The runner name (``runner_for``: ``runner_name``, --runner-name, held to the row's pool) and the script
    (``resolve_script``) a rehearsal of ``row`` runs. Raises SweepgateError for a row it must not run, before any
    work dir is made or anything run: a name the pool refuses, a missing script (first, as preflight says it), or
    a row `ci row-env` refuses (``runtime_refused``), a script that writes where the rehearsal cannot keep it
    (``writes_outside``; ``work``, the work dir when it is known already, is inside). `rehearse` and
    ``rehearse_row`` both decide here."""
    runner_name = runner_for(row, root, runner_name)
    script = resolve_script(root, row, gpu_family(runner_name))
    if (refused := runtime_refused(row, root)) is not None:
        raise SweepgateError([refused])
    if outside := writes_outside(root, row, script, work):
        raise SweepgateError(outside)
    return Runnable(runner_name, script)


def writes_outside(root: Path, row: dict, script: Path, work: Path | str | None = None) -> list[Diagnostic]:
    """Each write of ``script`` to an absolute path outside the work dir ``work`` (any, when it is not known yet),
    which the rehearsal could not keep inside it (``confine.outside_writes``), said with what the job's container
    mounts there: the script is not run."""
    return confine.outside_writes(root, script, confine.container_mounts(root, row), work)


def rehearsal_duration(args) -> int:
    if args.duration is not None:
        value = args.duration
    else:
        raw = os.environ.get(DURATION_ENV, str(DEFAULT_DURATION_S))
        try:
            value = int(raw)
        except ValueError:
            raise fail(DURATION_ENV, 0, f"{DURATION_ENV}={raw!r} is not a number of seconds",
                       "set it to a positive integer") from None
    if value < 1:
        raise fail("--duration", 0, f"duration {value} is not positive", "use at least 1 second")
    return value


def build_env(row: dict, runner_name: str, result_dir: Path, shim_dir: Path, log: Path,
              trace: Path, duration: int, root: Path | None = None) -> dict[str, str]:
    from sweepgate.core.jobenv import hardware_env
    from sweepgate.core.load import repo_root
    from sweepgate.core.placement import runners_at

    env = {k: v for k, v in os.environ.items() if k not in fields.HARDWARE_ENV.values()}
    env.update(fields.row_env(row, runner_name, str(result_dir)))
    root = Path(root or repo_root())
    env.update(hardware_env(row, runners_at(str(root))))
    if multinode.is_multinode(row):
        env.update(multinode.env_for(row, runner_name, result_dir, root))
        env.pop("SLURM_JOB_ID", None)  # a rehearsal runs every task here, never through srun
    if row.get(fields.SCENARIO_TYPE) == fields.AGENTIC_CODING:
        env[fields.ROW_ENV[fields.DURATION]] = str(duration)
    env["PATH"] = f"{shim_dir}{os.pathsep}{env.get('PATH', '')}"
    names = ("PORT", "LMCACHE_PORT", "LMCACHE_HTTP_PORT", "MOONCAKE_MASTER_PORT", "MOONCAKE_METRICS_PORT")
    for name, port in zip(names, free_ports(len(names))):
        env[name] = str(port)
    env[LOG_ENV] = str(log)
    env["SERVER_STANDIN"] = str(shim_dir / STANDIN)
    env["AGENTIC_TRACE_FILE"] = str(trace)
    env[fields.ROW_ENV[fields.SERVER_READY_TIMEOUT]] = "60"
    env["LMCACHE_READY_TIMEOUT"] = "60"
    env["MOONCAKE_READY_TIMEOUT"] = "60"
    env.pop("MODEL_PATH", None)
    env.pop("BENCH_SERVING_SCRIPT", None)
    return env


def _wait(proc: subprocess.Popen, timeout: float, poll=None, hurry=None) -> None:
    """Wait until the script has exited, up to ``timeout`` (else TimeoutExpired; at once when ``hurry()``
    turns true), calling ``poll()`` about five times a second meanwhile. It is left unreaped
    (``_exited``): until ``proc.wait()`` its PID, and so the ids of its process group and session,
    cannot be given to another process, and stopping what is left of them cannot reach a stranger."""
    deadline = time.monotonic() + timeout
    next_poll = time.monotonic() + 0.2
    while not _exited(proc):
        now = time.monotonic()
        if poll is not None and now >= next_poll:
            poll()
            next_poll = now + 0.2
        if now >= deadline or (hurry is not None and hurry()):
            raise subprocess.TimeoutExpired(proc.args, timeout)
        time.sleep(0.02)


def _exited(proc: subprocess.Popen) -> bool:
    """Whether the script has exited, without reaping it (where ``os.waitid`` is missing, reaped)."""
    if proc.returncode is not None:
        return True
    if not hasattr(os, "waitid"):
        return proc.poll() is not None
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


# A timed-out script gets a tenth of its timeout (from 1 s up to this) after TERM to stop what it
# started, then KILL: `--timeout N` is about N seconds, whatever the script does with TERM.
STOP_GRACE_MIN_S = 1
STOP_GRACE_MAX_S = 10
CTRL_C_GRACE_S = 15


def stop_grace(timeout: float) -> float:
    return min(float(STOP_GRACE_MAX_S), max(float(STOP_GRACE_MIN_S), timeout / 10))


@dataclass
class ScriptRun:
    """How the script ended: its exit status (negative: the signal that killed it), whether its timeout
    stopped it, and the processes of its session it left running (stopped since); where the rehearsal's
    DEBUG trap (``linetrap``) saw the script's own shell as its timeout stopped it, and where each subshell
    alive as it ended started (PID -> call stack)."""

    rc: int
    timed_out: bool
    left: list[str]
    stopped_at: linetrap.Stack = field(default_factory=list)
    subshells: dict[int, linetrap.Stack] = field(default_factory=dict)


def run_script(script: Path, root: Path, env: dict, out_path: Path, timeout: int, poll=None,
               log: Path | None = None, trap: dict[str, Path] | None = None, cwd: Path | None = None) -> ScriptRun:
    """Run the script in its own session; on timeout TERM it (its handler cleans up), then KILL after
    ``stop_grace``. Whatever of its session is left once it has ended is stopped (and named), and so,
    on Linux, is every process it started that outlived it in a session of its own (a ``setsid``, a
    daemon): this process is their subreaper meanwhile (``Subreaper``). On Ctrl-C, also stop what the
    shims logged in ``log`` and the script left running. ``trap``: the files the rehearsal's DEBUG trap
    writes (``linetrap.install``), read for where the script was stopped and where its subshells start. It starts
    in ``cwd`` (``prepare``'s ``workspace``, the checkout as the job sees it), else at ``root``."""
    grace = stop_grace(timeout)
    with open(out_path, "wb") as out, Subreaper() as reaper:
        # A Ctrl-C (SIGTERM, SIGHUP) while the script starts (Popen waits for its exec) waits until there is a
        # process to stop: out of Popen it left the script running on, orphaned in its own session.
        starting = Stopping(())
        try:
            with starting:
                proc = subprocess.Popen(["bash", str(script)], cwd=cwd or root, env=env, stdout=out,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        except BaseException:  # no script to stop (bash missing): the signal held meanwhile acts all the same
            starting.act_on_held()
            raise
        try:
            starting.act_on_held()
            try:
                _wait(proc, timeout, poll)
                timed_out, (count, stack) = False, (0, [])
            except subprocess.TimeoutExpired:  # where it is, read before its TERM handler runs commands
                timed_out, (count, stack) = True, linetrap.stopped_at((trap or {}).get("where"))
            stats = _proc_stats()  # what a leftover's PID was, and which process started it
            started = {pid: rest[19] for pid, rest in stats.items()}
            parents = {pid: int(rest[1]) for pid, rest in stats.items() if rest[1].isdigit()}
            if timed_out:  # the script's shell may wait on a subshell: no command of its own since
                stack = linetrap.waited_on((trap or {}).get("subshells"), started, parents, proc.pid, count,
                                           root) or linetrap.in_command(root, stack)
            if timed_out:
                _stop(proc, grace=grace)
            calls = _calls_to_stop(log)
            left = stop_session(proc.pid, calls)  # before the script is reaped: its session id is still its own
            rc = proc.wait()
            left += reaper.stop_orphans(proc.pid, grace, calls)
        except BaseException:
            # Ctrl-C (the script runs in its own session, so the terminal's SIGINT never reached it),
            # while it runs or while what it left is being stopped
            _interrupted(proc, reaper, grace, log)
            raise
    return ScriptRun(rc, timed_out, left, stack,
                     linetrap.subshells((trap or {}).get("subshells"), started, parents, root))


def _interrupted(proc: subprocess.Popen, reaper: Subreaper, grace: float, log: Path | None) -> None:
    """Stop the script (unless it is reaped already), its session, what it left outside it and what the
    shims logged in ``log``, after a Ctrl-C; a second Ctrl-C does not cut this short, a third hurries it."""
    with Stopping() as stopping:
        try:  # each stage runs whatever the one before raised; a log that cannot be read is the last step
            if proc.returncode is None:  # once reaped, its PID may be another process's
                _stop(proc, grace=CTRL_C_GRACE_S, hurry=stopping.hurried)
                stop_session(proc.pid, [])
                proc.wait()
        finally:
            try:
                reaper.stop_orphans(proc.pid, grace, [], hurry=stopping.hurried)
            finally:
                if log is not None:
                    reap_leftovers(read_calls(log), hurry=stopping.hurried)


def _calls_to_stop(log: Path | None) -> list[dict]:
    """The shim calls in ``log`` (none without one), to name what is stopped by. A log that cannot be read
    names nothing: what the script left is stopped all the same, and the verdict says why it is unnamed."""
    try:
        return read_calls(log) if log is not None else []
    except OSError:
        return []


def _stop(proc: subprocess.Popen, grace: float, hurry=None) -> None:
    """TERM the script (its handler stops what it started), then KILL its process group: whatever
    of it is still there once the script has exited or its grace has run out (or ``hurry()`` turned
    true; a script without a TERM trap dies at once and leaves its foreground command running),
    new forks included (``kill_until_gone``). The script is left unreaped."""
    try:
        os.kill(proc.pid, signal.SIGTERM)
        _wait(proc, grace, hurry=hurry)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        pass
    _signal(proc.pid, signal.SIGKILL)  # the script, should it have left its group
    kill_until_gone(lambda: (session_members(proc.pid, group=True), [proc.pid]))
    _wait(proc, 60)  # a KILLed script is gone within the moment


def how_it_ended(rc: int) -> str:
    """'exited 1', or 'was killed by SIGKILL (signal 9)' for a negative status."""
    if rc >= 0:
        return f"exited {rc}"
    try:
        name = signal.Signals(-rc).name
    except ValueError:
        name = "a signal"
    return f"was killed by {name} (signal {-rc})"


def _proc_stats() -> dict[int, list[str]]:
    """Every process's /proc/PID/stat fields after the command's ')': state, ppid, pgrp, session, ...
    (index 19 is its start time)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        rest = _stat_fields(entry / "stat")
        if rest is not None and len(rest) > 19:
            found[int(entry.name)] = rest
    return found


def _stat_exited(rest: list[str]) -> bool:
    """Whether the process of /proc/PID/stat fields ``rest`` (``_stat_fields``) has exited: a zombie (state Z) of
    one thread. A process whose main thread ended while others run reads Z too (and an empty command line),
    though its threads run on; its thread count (field 17 here) tells it (review s39v)."""
    return rest[0] == "Z" and (len(rest) <= 17 or not rest[17].isdigit() or int(rest[17]) <= 1)


def _stat_fields(path: Path) -> list[str] | None:
    """A /proc/PID/stat's fields after the command's ')', None when it is gone. The command is any bytes a
    process named itself or its file (not UTF-8 in every case): read as bytes, it never stops a scan."""
    try:
        return path.read_bytes().rsplit(b")", 1)[1].decode("ascii", "replace").split()
    except (OSError, IndexError):
        return None


def session_members(sid: int, group: bool = False) -> list[int]:
    """The live (not zombie) processes of session ``sid`` (of process group ``sid`` with ``group``)."""
    return _session_scan(sid, group)[0]


def _session_scan(sid: int, group: bool = False) -> tuple[list[int], list[int]]:
    """``session_members`` and their process groups."""
    column = 2 if group else 3  # after the command's ')': state, ppid, pgrp, session
    live = {pid: rest[2] for pid, rest in _proc_stats().items() if not _stat_exited(rest) and rest[column] == str(sid)}
    return list(live), sorted({int(pgrp) for pgrp in live.values()})


# KILLing what is left goes on, round after round, until nothing is (a process that forks as it is
# stopped: its new children too) or this long has passed (a process stuck in the kernel).
KILL_BOUND_S = 5.0


def kill_until_gone(scan, describe=None, seconds: float = KILL_BOUND_S) -> dict[int, str]:
    """KILL what ``scan()`` finds (its live PIDs, and process groups to KILL whole: a group's KILL
    also reaches a child forked meanwhile) and scan again, until it finds nothing live or ``seconds``
    have passed; {PID: ``describe(PID)``, taken before its KILL} for every process it KILLed (one ``describe``
    gives None, a process already exiting, is KILLed all the same and left out). Each process is KILLed
    through a pidfd where there are pidfds (``signal_found``): never one given its PID after the scanned one
    ended."""
    killed: dict[int, str] = {}
    seen: set[int] = set()

    def note(pids: list[int]) -> None:
        for pid in pids:
            if pid not in seen:
                seen.add(pid)
                if (said := describe(pid) if describe else "") is not None:
                    killed[pid] = said

    deadline = time.monotonic() + seconds
    while signal_found(scan, signal.SIGKILL, note) and time.monotonic() < deadline:
        time.sleep(0.01)
    return killed


def signal_found(scan, sig: int, before=None) -> bool:
    """Send ``sig`` to the process groups and the live processes ``scan()`` finds, calling ``before(PIDs)``
    first; whether it found any live. On Linux each process gets it through a pidfd (``_found``), so that it
    reaches the process scanned or none; elsewhere (no pidfds: ``_pin``) by PID."""
    live, groups, fds = _found(scan)
    try:
        if not live:
            return False
        targets = live if fds is None else [pid for pid in live if pid in fds]
        if before is not None:
            before(targets)
        for pgid in groups:
            try:
                os.killpg(pgid, sig)
            except OSError:
                pass
        for pid in targets:
            if fds is None:
                _signal(pid, sig)
            else:
                _pidfd_signal(fds[pid], sig)
        return True
    finally:
        _close(fds)


def _found(scan) -> tuple[list[int], list[int], dict[int, int] | None]:
    """(PIDs, process groups) ``scan()`` finds live, and {PID: pidfd} of those pinned (None: no pidfds). A PID
    is opened as a pidfd, then ``scan()`` runs again: a process it still finds is the one the scan means, not
    one given that PID after the scanned one ended and was reaped (a stranger is never found by the scan). One
    gone before its pidfd opened is left out; one new in the second scan is pinned in the next round."""
    live, groups = scan()
    pinned = _pin(live) if live else None
    if pinned is None:
        return live, groups, None
    fds, gone = pinned
    try:
        again, groups = scan()
    except BaseException:
        _close(fds)
        raise
    for pid in [pid for pid in fds if pid not in again]:
        os.close(fds.pop(pid))
    return [pid for pid in again if pid not in gone], groups, fds


class Pidfds:
    """Whether this process can pin a process by a pidfd (Linux 5.3 on, Python 3.9 on); turned off for good
    by a kernel without the call or a seccomp filter that refuses it (a container's)."""

    usable = hasattr(os, "pidfd_open") and hasattr(signal, "pidfd_send_signal")
    REFUSED = (errno.ENOSYS, errno.EPERM, errno.EACCES)


def _pin(pids: list[int]) -> tuple[dict[int, int], set[int]] | None:
    """({PID: pidfd} of ``pids``, the PIDs whose process has ended already: reaped, or a zombie its pidfd says
    has exited); None where there are no pidfds, or they could not be opened now (no fd left): then they are
    signalled by PID, as before pidfds."""
    if not Pidfds.usable:
        return None
    fds: dict[int, int] = {}
    gone: set[int] = set()
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            gone.add(pid)
            continue
        except OSError as exc:
            _close(fds)
            Pidfds.usable = exc.errno not in Pidfds.REFUSED
            return None
        fds[pid] = fd
        if _ended(fd):
            os.close(fds.pop(pid))
            gone.add(pid)
    return fds, gone


def _ended(fd: int) -> bool:
    """Whether the process of pidfd ``fd`` has exited (a pidfd is readable from then on)."""
    poll = select.poll()
    poll.register(fd, select.POLLIN)
    return bool(poll.poll(0))


def _pidfd_signal(fd: int, sig: int) -> None:
    """``sig`` to the process of pidfd ``fd``; nothing when it has ended (its PID is never used)."""
    try:
        signal.pidfd_send_signal(fd, sig)
    except OSError:
        pass


def _close(fds: dict[int, int] | None) -> None:
    for fd in (fds or {}).values():
        try:
            os.close(fd)
        except OSError:
            pass


PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37  # <linux/prctl.h>


def _prctl():
    """libc's prctl (Linux), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


class Subreaper:
    """While in use, this process is a child subreaper (Linux): a process the script started that
    outlives its parent (`setsid cmd &` in a script that exits, a daemon's double fork) becomes
    this process's child instead of PID 1's, and ``stop_orphans`` finds it. Sweepgate's own children
    from before (a `git cat-file`) are told apart by PID and start time. Elsewhere it does nothing."""

    def __enter__(self) -> Subreaper:
        import ctypes

        self.prctl, self.was = _prctl(), ctypes.c_int(0)
        if self.prctl is not None and (self.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(self.was), 0, 0, 0) != 0
                                       or self.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0):
            self.prctl = None
        self.before = self._children() if self.prctl is not None else set()
        return self

    def __exit__(self, *exc) -> None:
        if self.prctl is not None:
            self.prctl(PR_SET_CHILD_SUBREAPER, self.was.value, 0, 0, 0)

    @staticmethod
    def _children() -> set[tuple[int, str]]:
        me = str(os.getpid())
        return {(pid, rest[19]) for pid, rest in _proc_stats().items() if rest[1] == me}

    def orphans(self, script_pid: int) -> tuple[list[int], list[int]]:
        """(the live processes descended from the script's orphans, its orphans that are zombies)."""
        live, dead, _ = self._scan(script_pid)
        return live, dead

    def _scan(self, script_pid: int) -> tuple[list[int], list[int], list[int]]:
        """``orphans`` and the process groups its orphans lead: they are this process's unreaped
        children, so a group of theirs cannot be a stranger's."""
        stats = _proc_stats()
        roots = [pid for pid, start in self._children() - self.before if pid != script_pid and pid in stats]
        tree, i = list(roots), 0
        while i < len(tree):
            tree += [pid for pid, rest in stats.items() if rest[1] == str(tree[i]) and pid not in tree]
            i += 1
        live = sorted(pid for pid in tree if pid in stats and not _stat_exited(stats[pid]))
        return (live, [pid for pid in roots if _stat_exited(stats[pid])],
                [pid for pid in roots if stats[pid][2] == str(pid)])

    def stop_orphans(self, script_pid: int, grace: float, calls: list[dict], hurry=None) -> list[str]:
        """TERM every process the script left running outside its session, once; after ``grace`` (or
        once ``hurry()`` turns true) KILL what is left of them, and what they started meanwhile, until
        none is (``kill_until_gone``); reap them and describe each. Nothing without the subreaper."""
        if self.prctl is None:
            return []
        live, dead = self.orphans(script_pid)
        _reap(dead)
        named = {pid: said for pid in live if (said := _command_of(pid, calls)) is not None}
        signal_found(lambda: (self.orphans(script_pid)[0], []), signal.SIGTERM)  # they are no children of ours
        _wait_pids_gone(live, grace, hurry)
        named.update(kill_until_gone(lambda: self._scan(script_pid)[::2], lambda pid: _command_of(pid, calls)))
        _reap(self.orphans(script_pid)[1])  # they are zombie children of this process now
        return list(named.values())


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _reap(pids: list[int]) -> None:
    """Reap these zombie children of ours (they are no ``Popen``'s: nobody else will)."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


def pid_named(command: str, pid: int) -> str:
    """A process as the rehearsal names what a script left running: its command, then its PID."""
    return f"{command} (PID {pid})"


def _command_of(pid: int, calls: list[dict]) -> str | None:
    """A process as the rehearsal names it: the shim call it is, else its command line; None for one that has
    exited (a zombie, or gone) by the time it is named, though a scan a moment before found it live (the
    script's `kill $SERVER; exit` leaves one so): it is not left running. A command line reads empty for a
    moment while a process exits and while it runs a program in its place (execve): it is read again until it
    is one or the other, for at most ``NAMING_S``; then the process's own name stands for it."""
    for c in calls:
        if str(c.get("pid")) == str(pid):  # by its module, an interpreter's (`python3 -m sglang.launch_server`)
            module = pythoncall.called_module(c["tool"], c.get("argv", []))
            return pid_named(f"{c['tool']} {f'-m {module[0]}' if module else ' '.join(c.get('argv', [])[:1])}", pid)
    deadline = time.monotonic() + NAMING_S
    while True:
        state = _stat_fields(Path(f"/proc/{pid}/stat"))
        if state is None or _stat_exited(state):
            return None
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except (FileNotFoundError, ProcessLookupError):
            return None
        except OSError:
            return pid_named("?", pid)
        if command := " ".join(a.decode(errors="replace") for a in argv if a)[:80]:
            return pid_named(command, pid)
        if time.monotonic() >= deadline:
            return pid_named(_own_name(pid), pid)
        time.sleep(0.005)


NAMING_S = 0.5  # how long a process's empty command line is read again (it exits, or runs a program)


def _own_name(pid: int) -> str:
    """The name a process gives itself (/proc/PID/comm), '?' when it cannot be read."""
    try:
        return Path(f"/proc/{pid}/comm").read_text(errors="replace").strip() or "?"
    except OSError:
        return "?"


_PID = re.compile(r" \(PID (\d+)\)$")  # what ``pid_named`` ends a name with


def without_pid(left: str) -> str:
    """A process left running as ``pid_named`` names it, without its PID (`vllm serve`): what the same command
    left by several runs reads as (`preflight` says it once, naming the rows that left it)."""
    return _PID.sub("", left)


def leftover_words(left: str) -> list[str]:
    """The command words of a process left running as ``_command_of`` and ``reap_leftovers`` name it
    (`vllm serve (PID 12)`, `sleep 300 (PID 13)`): what finds the line that started it."""
    return without_pid(left).split()


def leftover_stack(left: str, subshells: dict[int, linetrap.Stack]) -> linetrap.Stack:
    """The call stack of the first command of the subshell a process left running (named as
    ``leftover_words`` reads it) is, or was before it ran a program in its place; empty for another."""
    found = _PID.search(left)
    return subshells.get(int(found[1]), []) if found else []


def left_by_line(root: Path, script: Path, leftovers: list[str],
                 subshells: dict[int, linetrap.Stack]) -> dict[tuple[str, int], list[str]]:
    """What the script left running, by the line that started each (where the subshell it is, or that started
    it, was started: ``leftover_stack``; else its command words against the script's and the library's
    lines), else the script, at no line (0)."""
    out: dict[tuple[str, int], list[str]] = {}
    for left in leftovers:
        at = (linetrap.place(root, script, leftover_stack(left, subshells))
              or scriptlines.command_line(root, script, leftover_words(left)) or (str(script.relative_to(root)), 0))
        out.setdefault(at, []).append(left)
    return out


def stop_session(sid: int, calls: list[dict]) -> list[str]:
    """KILL what is left of the script's session (its background children, in any process group, and
    what they fork as they are killed: ``kill_until_gone``); describe each. The script is unreaped, so
    the session, and a group of it seen in it, is no stranger's."""
    return list(kill_until_gone(lambda: _session_scan(sid), lambda pid: _command_of(pid, calls)).values())


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    rest = _stat_fields(Path(f"/proc/{pid}/stat"))  # a zombie is dead; nobody may be left to reap it
    return not rest or not _stat_exited(rest)


def _wait_pids_gone(pids: list[int], seconds: float, hurry=None) -> None:
    """Wait until none of ``pids`` is alive, up to ``seconds`` (or until ``hurry()`` turns true)."""
    deadline = time.monotonic() + seconds
    while any(pid_alive(pid) for pid in pids) and time.monotonic() < deadline and not (hurry and hurry()):
        time.sleep(0.05)


def _still_the_shim(call: dict) -> bool:
    """Whether the shim process ``call`` logged runs still: its PID is alive, no zombie, and (when the log has
    its start time) started when the shim did, so it is no stranger given the PID after the shim ended."""
    pid = int(call["pid"])
    if not pid_alive(pid):
        return False
    return call.get("start") is None or start_time(pid) == call["start"]


def _signal_shim(call: dict, sig: int) -> None:
    """``sig`` to the shim process ``call`` logged, only while it is that process: a pidfd is opened first,
    then its start time is checked, then the signal goes through the pidfd, so no other process can take the
    PID between the check and the signal. A call logged without its start time (a log of an older sweepgate),
    or where there are no pidfds: checked and signalled by PID."""
    pid = int(call["pid"])
    pinned = _pin([pid]) if call.get("start") is not None else None
    if pinned is None:
        if _still_the_shim(call):
            _signal(pid, sig)
        return
    fds, _ = pinned
    try:
        if pid in fds and _still_the_shim(call):
            _pidfd_signal(fds[pid], sig)
    finally:
        _close(fds)


def _wait_shims_gone(calls: list[dict], seconds: float, hurry=None) -> None:
    """Wait until none of the shim processes ``calls`` logged runs, up to ``seconds`` (or ``hurry()``)."""
    deadline = time.monotonic() + seconds
    while any(_still_the_shim(c) for c in calls) and time.monotonic() < deadline and not (hurry and hurry()):
        time.sleep(0.05)


def reap_leftovers(calls: list[dict], hurry=None) -> list[str]:
    """Stop shim processes the script left running (TERM, a grace, KILL); describe them. A PID the log names
    is signalled only while its process is the shim that logged it (``_signal_shim``)."""
    left = [c for c in calls if isinstance(c.get("pid"), int) and c["pid"] > 0 and _still_the_shim(c)]
    for c in left:
        _signal_shim(c, signal.SIGTERM)
    _wait_shims_gone(left, 5, hurry)
    for c in left:
        _signal_shim(c, signal.SIGKILL)
    _wait_shims_gone(left, 2)  # a KILL is delivered, not awaited: gone means gone when this returns
    return [pid_named(f"{c['tool']} {' '.join(c.get('argv', [])[:1])}", c["pid"]) for c in left]


def names_the_budget(gib: str | None, gb: str) -> bool:
    """A backend's GiB figure is the row's decimal-GB budget, never above it and under it by less than a
    hundredth of a GiB (benchmarks/lib/units.sh rounds it down to hundredths; the exact quotient passes too)."""
    from fractions import Fraction

    try:  # a plain decimal exactly; anything else (1e3, or 1e999999999, never expanded) as the float it reads as
        exact = re.fullmatch(r"[0-9]{1,20}(\.[0-9]{1,40})?", str(gib))
        budget, given = int(gb) * 10**9, (Fraction(str(gib)) if exact else Fraction(float(str(gib)))) * 2**30
    except (TypeError, ValueError, OverflowError):
        return False
    return budget - Fraction(2**30, 100) < given <= budget


SGLANG_SERVER = re.compile(pythoncall.runs_module([fields.SGLANG_SERVER_MODULE])
                           + r"|(?<![\w./-])sglang\s+serve(?![\w-])")
VLLM_SERVE = re.compile(r"(?<![\w./-])vllm\s+serve(?![\w-])")
LMCACHE_SERVER = re.compile(r"(?<![\w./-])lmcache\s+server(?![\w-])")
MOONCAKE_MASTER = re.compile(r"(?<![\w./-])mooncake_master(?![\w-])")


def _starts_sglang(call: dict) -> bool:
    """`python3 -m sglang.launch_server ...` (or `sglang serve ...`), as the stand-in recorded it."""
    argv = call.get("argv") or []
    if call["tool"] == "sglang":
        return argv[:1] == ["serve"]
    return (pythoncall.called_module(call["tool"], argv) or ("",))[0] == fields.SGLANG_SERVER_MODULE


def check_calls(row: dict, env: dict, calls: list[dict]) -> list[str]:
    """What the row says about the backend, checked against what the script ran."""
    problems = []
    backend = (row.get(fields.KV_OFFLOAD_BACKEND) or {})
    name, version = backend.get("name"), backend.get("version")
    framework = str(row.get(fields.FRAMEWORK) or "vllm")
    if framework.startswith("sglang"):
        started = [c["argv"] for c in calls if _starts_sglang(c)]
        if not started:
            problems.append(Problem(f"the script never started the SGLang server (`python3 -m sglang.launch_server`); "
                                    f"{START_IT}", finds=SGLANG_SERVER))
        if started and (wrong := multinode.wrong_port("the SGLang server's", started[0], env)):
            problems.append(Problem(wrong, finds=SGLANG_SERVER))
        return problems  # the KV-offload arms below are vLLM's
    servers = [c["argv"] for c in calls if c["tool"] == "vllm" and c["argv"][:1] == ["serve"]]
    if not servers and framework.startswith("vllm"):
        problems.append(Problem(f"the script never started `vllm serve`; {START_IT}", finds=VLLM_SERVE))
    dram = str(row.get(fields.TOTAL_CPU_DRAM_GB, ""))
    runtime = env.get(fields.HARDWARE_ENV[fields.ACCELERATOR_RUNTIME], "")
    if name in ("lmcache", "mooncake"):
        problems.extend(check_backend_build(name, str(version), runtime, calls))
    problems.extend(_kv_arm_problems(name, dram, servers, calls))
    if servers and (wrong := multinode.wrong_port("vllm serve", servers[0], env)):
        problems.append(Problem(wrong, finds=VLLM_SERVE))
    return problems


def _kv_arm_problems(name: str | None, dram: str, servers: list[list[str]], calls: list[dict]) -> list[str]:
    """What the row's KV-offload arm says about the LMCache server, mooncake_master and vllm serve's flags."""
    problems: list[str] = []

    def lmcache(text: str) -> None:
        problems.append(Problem(text, finds=(LMCACHE_SERVER, SETS_UP_ARM)))

    def vllm(text: str) -> None:
        problems.append(Problem(text, finds=VLLM_SERVE))

    if name == "lmcache":
        lm = [c["argv"] for c in calls if c["tool"] == "lmcache" and c["argv"][:1] == ["server"]]
        if len(lm) != 1:
            lmcache(f"expected one LMCache server per node, saw {len(lm)}; {KV_ARM}")
        for argv in lm:
            if not names_the_budget(option_value(argv, "--l1-size-gb"), dram):
                lmcache(f"LMCache --l1-size-gb is {option_value(argv, '--l1-size-gb')} GiB, "
                        f"not the row's {dram} GB; {KV_ARM}, which converts it (units.sh)")
            if "--shm-name" not in argv or option_value(argv, "--shm-name") != "":
                lmcache(f'LMCache server lacks --shm-name ""; pass it, or {KV_ARM}')
            if option_value(argv, "--chunk-size") is None:
                lmcache(f"LMCache server lacks --chunk-size; pass it, or {KV_ARM}")
        if servers and "LMCacheMPConnector" not in (option_value(servers[0], "--kv-transfer-config") or ""):
            vllm(f"vllm serve lacks the LMCacheMPConnector --kv-transfer-config; pass it, or {KV_ARM}")
    elif name == "mooncake":
        if not any(c["tool"] == "mooncake_master" for c in calls):
            problems.append(Problem(f"the mooncake arm never started mooncake_master; {KV_ARM}",
                                    finds=(MOONCAKE_MASTER, SETS_UP_ARM)))
        if servers and "MooncakeStoreConnector" not in (option_value(servers[0], "--kv-transfer-config") or ""):
            vllm(f"vllm serve lacks the MooncakeStoreConnector --kv-transfer-config; pass it, or {KV_ARM}")
    elif name == "vllm-simple":
        if servers and not names_the_budget(option_value(servers[0], "--kv-offloading-size"), dram):
            vllm(f"vllm serve --kv-offloading-size is not the row's {dram} GB in GiB; {KV_ARM}, "
                 "which converts it (units.sh)")
    elif servers and (option_value(servers[0], "--kv-transfer-config") or option_value(servers[0], "--kv-offloading-size")):
        vllm("KV offloading is none but vllm serve was given an offload connector; drop "
             "--kv-transfer-config and --kv-offloading-size when KV_OFFLOADING is none")
    return problems


# The build each backend installs on each accelerator runtime (benchmarks/lib/kv_offload_arms.sh).
BACKEND_BUILDS = {("lmcache", "cuda"): ("lmcache", "wheel"), ("lmcache", "rocm"): ("lmcache", "hip-source"),
                  ("mooncake", "cuda"): ("mooncake-transfer-engine", "wheel"),
                  ("mooncake", "rocm"): ("mooncake-transfer-engine-non-cuda", "wheel")}


def check_backend_build(name: str, version: str, runtime: str, calls: list[dict]) -> list[str]:
    """The backend was pip-installed at the row's version, as the build for the runner's runtime."""
    package, kind = BACKEND_BUILDS.get((name, runtime), (None, None))
    if package is None:
        return [f"{name} {version}: no known build for accelerator runtime {runtime!r} (configs/runners.yaml); "
                f"set the runner's accelerator-runtime there to one of {', '.join(sorted({r for _, r in BACKEND_BUILDS}))}"]
    pips = [c for c in calls if c["tool"] == "pip" and f"{package}=={version}" in c["argv"]]
    if not pips:
        seen = [" ".join(c["argv"]) for c in calls if c["tool"] == "pip"]
        return [f"{name} was not installed as {package}=={version} for {runtime} (pip calls: {seen or 'none'}); "
                f"{KV_ARM}, which installs it"]
    argv, build_env = pips[-1]["argv"], pips[-1].get("env") or {}
    problems = []
    if "--no-deps" in argv:
        problems.append(f"{package} was installed with --no-deps: its {runtime} dependencies are missing; "
                        "install it without --no-deps")
    source = "--no-binary" in argv and build_env.get("BUILD_WITH_HIP") == "1"
    if kind == "hip-source" and not source:
        problems.append(f"{package} on ROCm must be built from source with BUILD_WITH_HIP=1 (--no-binary); "
                        f"install it with BUILD_WITH_HIP=1 pip install --no-binary {package}, or {KV_ARM}")
    if kind == "wheel" and "--no-binary" in argv:
        problems.append(f"{package} on {runtime} should be the published wheel, not a source build; "
                        "install it without --no-binary")
    return [Problem(p, words=["pip", "install", package]) for p in problems]  # at the line that installs it


def make_work_dir(requested: str | None) -> Path:
    """The rehearsal's work directory: ``requested`` (created if need be) or a fresh temporary one."""
    if not requested:
        return Path(tempfile.mkdtemp(prefix="sweepgate-rehearse-"))
    work = Path(os.path.abspath(requested))  # the script runs from the top; the flag was given here
    try:
        work.mkdir(parents=True, exist_ok=True)
        probe = work / ".sweepgate-write-test"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise fail(str(work), 0, f"cannot use as --work-dir: {_not_a_folder(work) or exc.strerror or exc}",
                   "pass a folder you can write to, or leave --work-dir out for a temporary one") from None
    return work


def _not_a_folder(work: Path) -> str | None:
    """``PATH is a file, not a folder`` for the path or the first folder on its way that is no folder (the
    system says "File exists" or "Not a directory")."""
    for place in (*reversed(work.parents), work):
        if place.exists() and not place.is_dir():
            return f"{place} is a file, not a folder"
    return None


def _problem_diagnostics(root: Path, script: Path, problems: list[str], output: str) -> list[Diagnostic]:
    """A rehearsal's problems (each ``what is wrong; how to fix``) as diagnostics, so a failed rehearsal is
    annotated under GitHub Actions as every other problem is: each at the line it is about (``_place``),
    else at the script (``output``: the script's last lines, for the line bash names)."""
    out = []
    for problem in problems:
        what, _, fix = problem.rpartition("; ")
        if isinstance(problem, Problem) and problem.said and (cause := scriptlines.cause(output)):
            what = f"{what} ({scriptlines.shown(cause)})"  # as preflight says it
        file, line = _place(root, script, problem, output) or (str(script.relative_to(root)), 0)
        out.append(Diagnostic(file, line, 0, confine.REHEARSAL_RULE, what or fix, fix if what else "", in_file=True))
    return out


def _place(root: Path, script: Path, problem: str, output: str) -> tuple[str, int] | None:
    """The line a ``Problem`` is about: the one found already (``at``), else where its call stack is, else the
    file and line bash names in the output's cause (else the last it names there, ``scriptlines.failed_at``), the line that runs its command, the line its patterns find
    (the script's line for the first that finds one, ``scriptlines.first_command``); None for any other
    problem, or when no line is found."""
    if not isinstance(problem, Problem):
        return None
    if problem.at:
        return problem.at
    if problem.stack and (found := linetrap.place(root, script, problem.stack)):
        return found
    if problem.said:
        return scriptlines.failed_at(output, root)
    if problem.words:
        return scriptlines.command_line(root, script, problem.words)
    return scriptlines.first_command(root, script, problem.finds) if problem.finds else None


def _tail(path: Path, lines: int = 30) -> str:
    """The script's last lines, as they can be shown on a terminal (``printable``)."""
    from sweepgate.core.errors import printable

    try:
        text = path.read_bytes().decode(errors="replace").rstrip("\n")  # lines end at \n: a \r is shown, not obeyed
        return "\n".join(printable(line) for line in text.split("\n")[-lines:]) if text else ""
    except OSError:
        return ""


def prepare(work: Path, row: dict, runner_name: str, duration: int,
            root: Path | None = None) -> tuple[dict, dict[str, Path]]:
    """Shims, trace, result directory, HOME, TMPDIR and the folder the script starts in (``workspace``, standing
    for the job's checkout: ``confine``) under ``work``; the job environment and the paths used."""
    from sweepgate.core.load import repo_root

    paths = {"shims": work / "shims", "results": work / "results", "log": work / "calls.jsonl",
             "trace": work / "trace.jsonl", "out": work / "script.log"}
    write_shims(paths["shims"])
    write_trace(paths["trace"])
    _results_folder(paths["results"])
    if paths["log"].exists():
        paths["log"].unlink()
    calllog.forget(paths["log"])
    env = build_env(row, runner_name, paths["results"], paths["shims"], paths["log"], paths["trace"], duration,
                    root)
    confine.confine_env(env, work)  # its HOME and TMPDIR, and the folder it starts in, are the work dir's
    paths["workspace"] = confine.workspace_view(work, Path(root or repo_root()), paths["results"])
    paths.update(linetrap.install(work, env))
    name = env[fields.RESULT_FILENAME_ENV]
    paths["result"] = paths["results"] / f"{name}.json"
    paths["eval"] = jobfile.eval_path_for(paths["results"], name)
    _remove_earlier((paths["result"], paths["eval"], jobfile.path_for(paths["results"], name)))
    return env, paths


LEFT_HINT = "remove it, or pass another --work-dir"


def _results_folder(results: Path) -> None:
    """The work dir's results folder, made; refused in one line when a script of a rehearsal before in
    this --work-dir replaced it (with a file, a dangling link)."""
    try:
        results.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise fail(str(results), 0, "is not a folder (a script of a rehearsal before in this --work-dir replaced "
                   "its RESULT_DIR)", LEFT_HINT) from None
    except OSError as exc:
        raise fail(str(results), 0, f"cannot make the results folder: {exc.strerror or exc}",
                   "pass a --work-dir you can write to") from None


def _remove_earlier(outputs) -> None:
    """Remove a run before's outputs in this --work-dir: they would pass for this one's."""
    for earlier in outputs:
        try:
            earlier.unlink(missing_ok=True)
        except IsADirectoryError:
            raise fail(str(earlier), 0, is_a_folder("an earlier run's output file") + " (a script of a rehearsal "
                       "before in this --work-dir made it)", LEFT_HINT) from None
        except OSError as exc:
            raise fail(str(earlier), 0, f"cannot remove an earlier run's output: {os_reason(exc)}",
                       LEFT_HINT) from None


# How to mend what a rehearsal finds: each problem it prints is `SCRIPT: what is wrong; how to fix`.
IN_TIME = "make the script finish sooner, or pass a longer --timeout"
ENDS_ON_TERM = ("stop what the script starts when it gets SIGTERM (start_background_process, register_cleanup_pid), "
                "and make it finish sooner or pass a longer --timeout")
SAYS_WHY = "its output (the last lines below, script.log in the work dir) says why"
CRLF_FIX = ("the script has CRLF line endings (a Windows editor's), and bash reads each line's carriage return as "
            "part of its last word: save it with LF line endings (dos2unix {})")
STOP_WHAT_IT_STARTS = ("start background work with start_background_process (benchmark_lib.sh), which stops it "
                       "when the script ends")
WRITE_THE_RESULT = "write the client's own output there, unchanged (CONTRACTS section 8; run_benchmark_serving does)"
KEEP_RESULT_DIR = "leave $RESULT_DIR a folder and write the results into it"
START_IT = 'start it in the script, listening on "$PORT" (start_server_and_wait)'
KV_ARM = "set it up with setup_kv_offload_arm (benchmark_lib.sh)"
RUN_EVALS = ("run the evals with run_requested_evals (benchmark_lib.sh): it runs lm_eval, installed at its pin, only "
             "when the row asks")


def _runs(*commands: str) -> re.Pattern:
    """What finds a line that runs one of ``commands`` (regular expressions), not one defining it (`f() {`)."""
    return re.compile(r"(?<![\w./-])(?:" + "|".join(commands) + r")(?![\w-])(?!\s*\(\s*\))")


# Where a script that did not finish stands when bash could not say where it was (the script set a DEBUG
# trap of its own): the line that runs the benchmark client, else the one that waits for the server.
CLIENT_RUNS = _runs("run_benchmark_serving", "run_agentic_trace_replay", r"benchmark_serving\.py",
                    r"vllm\s+bench\s+serve", r"aiperf\s+profile",
                    pythoncall.runs_module([fields.SGLANG_CLIENT_MODULE]))
SERVER_WAITS = _runs("start_server_and_wait", "wait_for_server_ready", "wait_for_ready")
# Where a KV-offload arm's server (LMCache's, mooncake_master) should have started when the script runs none itself:
# its line, else the line that sets the arm up (the library starts each by a name made at run time, which no call names)
SETS_UP_ARM = _runs("setup_kv_offload_arm")
# The line that should have written a result: the client's, passing its file or folder, else one naming it.
NAMES_RESULT = re.compile(r"\$\{?" + fields.RESULT_FILENAME_ENV + r"(?!\w)")
WRITES_RESULT = (re.compile(r"(?<![\w-])--(?:result-filename|save-result|result-dir)(?![\w-])"), NAMES_RESULT)
WRITES_EVAL = (_runs("run_requested_evals", "run_throughput_and_evals", "run_lm_eval", "lm_eval"), NAMES_RESULT)


def ending_problem(run: ScriptRun, timeout: int) -> str | None:
    """How the script's ending fails the rehearsal, in one line; None for an exit 0 in time. A timeout
    stands where bash was when it was stopped (``linetrap``), else at the client's line or the server wait."""
    if run.timed_out:
        if run.rc == -signal.SIGKILL:
            return Problem(f"the script did not finish within {timeout}s and was still running "
                           f"{stop_grace(timeout):g}s after SIGTERM, so it was killed (SIGKILL); {ENDS_ON_TERM}",
                           stack=run.stopped_at, finds=(CLIENT_RUNS, SERVER_WAITS))
        # a TERM that ended it is said once ("stopped with SIGTERM and was killed by SIGTERM" said it twice)
        ended = (f"by SIGTERM (signal {int(signal.SIGTERM)})" if run.rc == -signal.SIGTERM
                 else f"with SIGTERM and {how_it_ended(run.rc)}")
        return Problem(f"the script did not finish within {timeout}s; it was stopped {ended}; {IN_TIME}",
                       stack=run.stopped_at, finds=(CLIENT_RUNS, SERVER_WAITS))
    return Problem(f"the script {how_it_ended(run.rc)}; {SAYS_WHY}", said=True) if run.rc != 0 else None


def verdict(row: dict, env: dict, paths: dict[str, Path], run: ScriptRun, timeout: int, root: Path,
            script: Path) -> list[str]:
    """Every way the finished script fell short of a passing rehearsal (what it left running: a problem for
    each line that started some of it, ``left_by_line``)."""
    calls, unreadable = _logged_calls(paths["log"])
    ending = ending_problem(run, timeout)
    crlf = ending and ending.said and crlf_fix(script)  # bash's words ($'\r': command not found) do not say why
    if crlf:
        ending = Problem(ending.replace(SAYS_WHY, crlf), said=True)
    problems = [p for p in (ending, unreadable) if p]
    leftovers = run.left + reap_leftovers(calls)
    for at, left in left_by_line(root, script, leftovers, run.subshells).items():  # found once, kept (``at``)
        problems.append(Problem(f"the script left running: {', '.join(left)}; {STOP_WHAT_IT_STARTS}", at=at))
    unusable = result_dir_problem(paths["results"])
    if unusable:
        problems.append(f"{unusable}; {KEEP_RESULT_DIR}")
    # a script stopped by its timeout wrote no result because it was stopped: that is its one problem there;
    # one that exited non-zero (or was killed) with no result file has its exit as the cause, said once
    for result_file in [] if unusable or run.timed_out else expected_outputs(row, paths):
        if ending and not result_file.is_file():
            continue
        problem = result_problem(result_file)
        if problem:  # at the line that should have written it
            problems.append(Problem(problem, finds=WRITES_EVAL if result_file == paths["eval"] else WRITES_RESULT))
    if run.rc == 0 and not run.timed_out and not unreadable:
        problems.extend((multinode.check_calls if multinode.is_multinode(row) else check_calls)(row, env, calls))
        problems.extend(check_eval_calls(row, calls))
    return problems


def crlf_fix(script: Path) -> str | None:
    """How to mend ``script``'s CRLF line endings, naming it from the current folder; None when it has none
    (or cannot be read). A failed script's fix in `rehearse` and in `preflight`'s fast rehearsal alike."""
    try:
        crlf = b"\r\n" in script.read_bytes()
    except OSError:
        return None
    return CRLF_FIX.format(os.path.relpath(script)) if crlf else None


def result_problem(result_file: Path) -> str | None:
    """Why ``result_file`` is no client's JSON output (none there, not JSON, not readable); None when it is."""
    if not result_file.is_file():
        return f"no result file {result_file}; {WRITE_THE_RESULT}"
    try:
        jsontext.loads(result_file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        return f"result file is not JSON: {json_message(exc)}; {WRITE_THE_RESULT}"
    except UnicodeDecodeError as exc:
        return f"result file is {not_utf8(exc.start, exc.reason)}, so not JSON; {WRITE_THE_RESULT}"
    except RecursionError:
        return f"result file is {jsontext.NESTED_TOO_DEEPLY} to be a client's JSON; {WRITE_THE_RESULT}"
    except OSError as exc:
        return f"cannot read the result file: {os_reason(exc)}; {WRITE_THE_RESULT}"
    return None


def _logged_calls(log: Path) -> tuple[list[dict], str | None]:
    """The shim calls in ``log``, and why there are none when it cannot be read (the script replaced it)."""
    try:
        return read_calls(log), None
    except OSError as exc:
        return [], (f"cannot read the shims' call log {log}: {os_reason(exc)}, so no shim call can be "
                    f"checked or stopped; {calllog.HINT}")


def result_dir_problem(results: Path) -> str | None:
    """What the script did to RESULT_DIR when it is no longer a folder (a job could upload nothing)."""
    if results.is_dir():
        return None
    if results.is_symlink():
        did = f"replaced it with a symbolic link to {os.readlink(results)}, which is no folder"
    elif results.is_file():
        did = "replaced it with a regular file"
    elif results.exists():
        did = "replaced it with something that is not a folder"
    else:
        did = "removed it"
    return f"RESULT_DIR {results} is not a folder: the script {did}, so no result or job sidecar can be there"


def wants_eval(row: dict) -> bool:
    return bool(row.get(fields.RUN_EVAL) or row.get(fields.EVAL_ONLY))


def expected_outputs(row: dict, paths: dict[str, Path]) -> list[Path]:
    """The throughput result (unless the row is eval-only) and the eval results (when it asks for evals)."""
    out = [] if row.get(fields.EVAL_ONLY) else [paths["result"]]
    return out + ([paths["eval"]] if wants_eval(row) else [])


def check_eval_calls(row: dict, calls: list[dict]) -> list[str]:
    """An eval row installs lm-eval at its pin and runs it; any other row runs no eval."""
    evals = [c for c in calls if c["tool"] == "lm_eval"]
    if not wants_eval(row):
        return [Problem(f"the row asks for no eval but the script ran lm_eval; {RUN_EVALS}", words=["lm_eval"])
                ] if evals else []
    problems = [] if evals else [Problem(f"the row asks for evals but the script never ran lm_eval; {RUN_EVALS}",
                                         words=["run_requested_evals"])]
    if not any(c["tool"] == "pip" and any(a.startswith(("lm-eval==", "lm-eval[")) for a in c["argv"])
               for c in calls):
        problems.append(Problem(f"lm-eval was not pip-installed at a pinned version; {RUN_EVALS}",
                                words=["pip", "install", "lm-eval"]))
    return problems


def write_sidecar(row: dict, env: dict, paths: dict[str, Path], work: Path, started: str, status: str,
                  **job) -> None:
    """The job sidecar a real job leaves (CONTRACTS section 8), marked as a rehearsal. ``job`` may name
    the run id, config key, ref and commit (``core.jobfile.build``'s keywords); the run id defaults to
    ``rehearsal-<work dir>-<started, UTC>`` (``rehearsal-work-20261205T224306Z``): a rehearsal again in the same
    work dir is a run of its own, never a changed copy of the stored one, which ingest refuses."""
    when = started.replace("-", "").replace(":", "").replace("+0000", "Z")  # jobfile.now(): UTC, to the second
    job.setdefault("run_id", f"rehearsal-{work.name}-{when}")
    doc = jobfile.build(row, status=status, runner_name=env.get(fields.RUNNER_NAME_ENV), started=started,
                        finished=jobfile.now(), rehearsal=True, **job)
    jobfile.write(jobfile.path_for(paths["results"], env[fields.RESULT_FILENAME_ENV]), doc)


class Quiet:
    """A progress reporter that shows nothing (for callers with their own report)."""

    def step(self, text: str) -> None:
        pass

    def command(self, call: dict) -> None:
        pass


@dataclass
class Rehearsal:
    """One finished rehearsal: where its outputs are and every way it fell short (none: it passed)."""

    row: dict
    script: Path
    paths: dict[str, Path]
    problems: list[str]
    elapsed: float

    @property
    def outputs(self) -> list[Path]:
        return expected_outputs(self.row, self.paths)


def rehearse_row(root: Path, row: dict, work: Path, *, duration: int = DEFAULT_DURATION_S,
                 timeout: int = DEFAULT_TIMEOUT_S, ready: Runnable | None = None, job: dict | None = None,
                 progress=None) -> Rehearsal:
    """Rehearse one row of the repository at ``root`` in ``work`` and write its sidecar (the in-process
    API; ``job``: sidecar fields, see ``write_sidecar``). Raises SweepgateError for a row it cannot run
    (``runnable``, unless ``ready`` is what it gave for the row already)."""
    progress = progress or Quiet()
    ready = ready or runnable(root, row, work=work)
    runner_name, script = ready.runner_name, ready.script
    started, started_at = time.monotonic(), jobfile.now()
    progress.step("step 1/3: shims, trace and job environment")
    env, paths = prepare(work, row, runner_name, duration, root)
    progress.step(f"step 2/3: running {script.relative_to(root)} (timeout {timeout}s)")
    tail = CallTail(paths["log"])
    run = run_script(script, root, env, paths["out"], timeout,
                     poll=lambda: [progress.command(c) for c in tail.new_calls()], log=paths["log"], trap=paths,
                     cwd=paths["workspace"])
    for call in tail.new_calls():
        progress.command(call)
    progress.step("step 3/3: checking the result, the processes left and the backend calls")
    problems = verdict(row, env, paths, run, timeout, root, script)
    if paths["results"].is_dir():  # else the script did away with it: verdict says so
        try:
            write_sidecar(row, env, paths, work, started_at, jobfile.FAILURE if problems else jobfile.SUCCESS,
                          **(job or {}))
        except SweepgateError as exc:
            said = exc.diagnostics[0]
            problems.append(f"cannot write the job sidecar: {said.message}{f'; {said.hint}' if said.hint else ''}")
    return Rehearsal(row, script, paths, problems, time.monotonic() - started)


def rehearse(args) -> int:
    """Rehearse the row ``args`` names (the flags of ``commands/rehearse``); 0 when it passes."""
    from sweepgate.core.load import repo_root

    root = Path(repo_root())
    rows, source = load_rows(args, root)
    row = select_row(rows, source, args.exp_name, args.conc, args.where)
    config_key = config_key_of(row) or worktree_row_key(root, row)  # a --row-json row names none
    try:
        required_fields(row, source)
        check_row(row, source, ROW_HINT, for_a_job=True)
        dram_within_host(row, root, source)
    except SweepgateError as exc:
        raise at_its_place(exc, row, source) from None
    unknown = unknown_label(row, root, source)
    if unknown:  # a warning, as `plan` says it: the rehearsal runs all the same
        emit([unknown])
    # before the work dir is made: none for a row refused (a --work-dir is inside already, a new one unknown)
    ready = runnable(root, row, args.runner_name, args.work_dir and os.path.abspath(args.work_dir))
    runner_name, script = ready.runner_name, ready.script
    duration = rehearsal_duration(args)
    work = None
    try:
        # Made and named under a hold: a signal the instant the folder exists acts once ``work`` names it,
        # here, where the handler below removes it (it left an empty sweepgate-rehearse-* folder behind).
        with Held():
            work = make_work_dir(args.work_dir)
        print(f"rehearse: {row.get(fields.EXP_NAME)} conc {row.get(fields.CONC)} on {runner_name} "
              f"-> {script.relative_to(root)}")
        print(f"rehearse: work dir {work}", flush=True)
        with Progress() as progress:
            done = rehearse_row(root, row, work, duration=duration, timeout=args.timeout, ready=ready,
                                progress=progress, job={"config_key": config_key})
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: a folder of our own making goes; a --work-dir stays
        if work is not None and not args.work_dir:
            remove_folder(work)
            print(f"rehearse: stopped; removed its work dir {work}", file=sys.stderr, flush=True)
        raise
    if done.problems:
        print(f"rehearse: FAILED after {done.elapsed:.1f}s", file=sys.stderr)
        tail = _tail(done.paths["out"])
        emit(_problem_diagnostics(root, script, done.problems, tail))
        if tail:
            print(f"--- last lines of {done.paths['out']} ---\n{tail}", file=sys.stderr)
    _leave_work_dir(done, work, kept=bool(args.work_dir))
    if done.problems:
        return 1
    print(f"rehearse: {flags_unchecked(config_key)}")
    return 0


def _leave_work_dir(done, work: Path, kept: bool) -> None:
    """A temporary work dir (not ``kept``, a --work-dir) of a failed rehearsal stays for its log, said last; of
    one that passed, it goes (a stand-in's figures, the log of a run that passed: nothing to read)."""
    if done.problems:
        if not kept:
            print(f"rehearse: its work dir {work} is kept for its log; remove it with rm -rf {shlex.quote(str(work))}",
                  file=sys.stderr)
    elif kept:
        print(f"rehearse: OK in {done.elapsed:.1f}s; result {', '.join(map(str, done.outputs))}")
        if (next_steps := _kept_run(done.outputs)):
            print(f"rehearse: {next_steps}")
    else:
        remove_folder(work)
        print(f"rehearse: OK in {done.elapsed:.1f}s; result {', '.join(p.name for p in done.outputs)}, removed with "
              f"its temporary work dir (--work-dir DIR keeps it)")


def _kept_run(outputs: list[Path]) -> str:
    """What the sidecar beside a kept result names it, and the commands that store and show it: ``results ingest``
    of its folder, ``results show --run`` of its run id. s50g: a newcomer who kept a rehearsal's result to ingest
    it could not find the run id `results show --run` and `results compare --run` ask for, which only the
    sidecar held. "" where no output has a readable sidecar."""
    for output in outputs:
        try:
            run_id = json.loads(jobfile.path_for(output.parent, output.stem).read_text(encoding="utf-8"))[
                jobfile.JOB][jobfile.RUN_ID]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        folder = shlex.quote(str(output.parent))
        return (f"its sidecar names run {run_id} (a rehearsal, on no ref): `sweepgate results ingest {folder}` "
                f"stores it, then `sweepgate results show --run {shlex.quote(str(run_id))}` shows it")
    return ""


def flags_unchecked(config_key: str | None) -> str:
    """What a passing rehearsal leaves unchecked, and the command that checks it: the stand-ins take any flag
    (`vllm serve --gpu-memory-utilisation` passes), `preflight` checks them against the manifests."""
    command = f"sweepgate preflight --config-keys {config_key}" if config_key else "sweepgate preflight"
    return (f"the engines' flags were not checked (the stand-ins take any); {command} checks them against the "
            "manifests of the row's versions")
