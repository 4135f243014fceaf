"""`sweepgate full-sweep` / `sweepgate test-config` (utils/generate_sweep_configs.py).

Both read the master configs in the working tree and print a JSON list of rows.
"""

from __future__ import annotations

import argparse
import json
import sys

from sweepgate.commands.argtypes import add_config_arguments, int_between, not_empty
from sweepgate.commands.argtypes import combination
from sweepgate.core import fields as F


def _seq_len_names() -> list[str]:
    return list(F.SEQ_LEN_NAMES.values())


def add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    add_config_arguments(parser)
    evals = parser.add_mutually_exclusive_group()
    evals.add_argument("--no-evals", action="store_true", help="throughput rows only; mark no evals")
    evals.add_argument("--evals-only", action="store_true", help="only the rows selected for evals")
    parser.add_argument("--all-evals", action="store_true", help="select every 8k1k and agentic row for evals")
    parser.add_argument("--runner-node-filter", default=None, type=not_empty,
                        help="expand each config onto the runner names containing this substring")
    parser.add_argument("--scenario-type", nargs="+", choices=list(F.SCENARIO_TYPES), default=None, metavar="TYPE",
                        help=f"only these scenarios: {', '.join(F.SCENARIO_TYPES)} (default: every one)")
    parser.add_argument("--seq-lens", nargs="+", choices=_seq_len_names(), default=None,
                        help="only these fixed-seq-len input/output lengths (default: every one)")
    if command == "test-config":
        parser.add_argument("--config-keys", type=not_empty, nargs="+", required=True,
                            help="config keys or '*' wildcards to expand")
        parser.add_argument("--conc", nargs="+", type=int_between(1), default=None,
                            help="keep only these concurrencies")
        return
    parser.add_argument("--model-prefix", type=not_empty, nargs="+", default=None,
                        help="config keys starting with these")
    parser.add_argument("--precision", type=not_empty, nargs="+", default=None,
                        help="configs of these precisions (fp4, fp8, ...)")
    parser.add_argument("--framework", type=not_empty, nargs="+", default=None,
                        help="configs of these frameworks (vllm, sglang, ...)")
    parser.add_argument("--runner-type", type=not_empty, nargs="+", default=None, help="runner labels to include")
    parser.add_argument("--step-size", type=int_between(2), default=F.CONC_STEP,
                        help="conc-start..conc-end multiplier (2 or more)")
    parser.add_argument("--min-conc", type=int_between(1), default=None, help="drop concurrencies below this")
    parser.add_argument("--max-conc", type=int_between(1), default=None,
                        help="drop concurrencies above this (a fixed-seq-len recipe with none left runs at it)")
    parser.add_argument("--max-tp", type=int_between(1), default=None,
                        help="drop single-node fixed-seq-len recipes of a larger tp")
    parser.add_argument("--max-ep", type=int_between(1), default=None,
                        help="run single-node fixed-seq-len recipes of a larger ep at this ep")
    parser.add_argument("--single-node", action="store_true", help="single-node rows only")
    parser.add_argument("--multi-node", action="store_true", help="multi-node rows only")


def _check_full_sweep_flags(args, labels: dict) -> None:
    unknown = sorted(set(args.runner_type or []) - set(labels))
    if unknown:
        from sweepgate.core.sweep import flag_value_error

        raise flag_value_error(f"unknown runner type(s): {', '.join(unknown)}",
                               f"use labels from {F.RUNNERS_FILE}: {', '.join(sorted(labels))}", "--runner-type",
                               F.UNKNOWN_RUNNER_RULE)


def _full_sweep_wants(args, key: str, config: dict) -> bool:
    """The full-sweep filters on model prefix, precision, framework and runner type."""
    if args.model_prefix and not any(key.startswith(p) for p in args.model_prefix):
        return False
    if args.precision and config[F.PRECISION] not in args.precision:
        return False
    if args.framework and config[F.FRAMEWORK] not in args.framework:
        return False
    return not (args.runner_type and config[F.RUNNER] not in args.runner_type)


SHOWN_VALUES = 8  # of the values a filter could have matched, named in its warning
FILTER_RULE = "sweep-filter"  # the title of a filter's warning that it matches nothing


FILTERS = (("--model-prefix", "model_prefix", None), ("--precision", "precision", F.PRECISION),
           ("--framework", "framework", F.FRAMEWORK))  # flag, its argparse name, the config field it reads
# (None: the config key itself, whose start --model-prefix is matched against, as the reference does)


def _unmatched_filters(args, configs) -> list:
    """A warning for each --model-prefix/--precision/--framework value no config has (by
    _full_sweep_wants, that filter alone): an empty sweep from a typo reads as one with nothing to
    run (the output stays the reference's)."""
    from sweepgate.core.errors import Diagnostic

    items, out = list(configs.items()), []
    for flag, name, field in FILTERS:
        for value in getattr(args, name) or []:
            alone = argparse.Namespace(**{n: None for _, n, _ in FILTERS}, runner_type=None)
            setattr(alone, name, [value])
            if any(_full_sweep_wants(alone, key, config) for key, config in items):
                continue
            if field is None:
                known = sorted({key.split("-", 1)[0] for key, _ in items})
                what = "starts no config key"
                hint = "it is matched against the start of each config key; the keys start: "
            else:
                known = sorted({str(config.get(field)) for _, config in items})
                what, hint = "matches no config", "the configs have: "
            here = ", ".join(known[:SHOWN_VALUES]) + (", ..." if len(known) > SHOWN_VALUES else "")
            out.append(Diagnostic(flag, 0, 0, FILTER_RULE, f"warning: {value!r} {what}",
                                  f"check the spelling; {hint}{here}", severity="warning"))
    return out


def sweep_rows(args, rev) -> list[dict]:
    """Rows for a full-sweep or test-config invocation over a checked revision."""
    from sweepgate.core.expand import Filters, expand_config, seq_len_from_name
    from sweepgate.core.sweep import resolve_patterns

    configs, runners = rev.configs, rev.runners.data
    labels = runners.get(F.LABELS) or {}
    seq_lens = {seq_len_from_name(n) for n in args.seq_lens} if args.seq_lens else None
    scenarios = tuple(s for s in F.SCENARIO_TYPES if s in args.scenario_type) if args.scenario_type else None
    test_config = args.command == "test-config"

    if test_config:
        keys = resolve_patterns(args.config_keys, configs)
        flt = Filters(scenario_types=scenarios, seq_lens=seq_lens, conc=set(args.conc) if args.conc else None)
    else:
        _check_full_sweep_flags(args, labels)
        both = not args.single_node and not args.multi_node
        flt = Filters(scenario_types=scenarios, seq_lens=seq_lens, step=args.step_size, min_conc=args.min_conc,
                      max_conc=args.max_conc, max_tp=args.max_tp, max_ep=args.max_ep,
                      single_node=both or args.single_node, multi_node=both or args.multi_node)
        keys = [key for key, config in configs.items() if _full_sweep_wants(args, key, config)]
        unmatched = _unmatched_filters(args, configs)
        if unmatched:
            from sweepgate.core.errors import emit

            emit(unmatched)

    rows: list[dict] = []
    for key in keys:
        config = configs[key]
        flt.runner_values = None
        if args.runner_node_filter:
            label = config[F.RUNNER]
            nodes = list(labels.get(label, []))
            if test_config and args.runner_node_filter in label:
                nodes = [label, *nodes]
            matches = list(dict.fromkeys(n for n in nodes if args.runner_node_filter in n))
            if not matches:
                continue
            flt.runner_values = matches
        rows.extend(expand_config(key, config, runners, flt, rev.where(key)))
    _warn_unmatched_nodes_and_concs(args, keys, lambda: {configs[k][F.RUNNER]: labels.get(configs[k][F.RUNNER])
                                                         for k in keys}, rows, [configs[k] for k in keys])
    return rows


def _unmatched_seq_lens(args, keys: list, chosen: list[dict]) -> list:
    """A warning for each --seq-lens value no fixed-seq-len scenario of the ``chosen`` configs has
    (review newuser27: `test-config --seq-lens 1k1k` of an 8k1k-only key printed `[]` alone, and with
    --conc blamed a concurrency the key sweeps)."""
    from sweepgate.core.errors import Diagnostic
    from sweepgate.core.expand import seq_len_name

    if not (keys and args.seq_lens) or (args.scenario_type and F.FIXED_SEQ_LEN not in args.scenario_type):
        return []
    swept = {seq_len_name(s[F.ISL], s[F.OSL]) for config in chosen
             for s in (config.get(F.SCENARIOS) or {}).get(F.FIXED_SEQ_LEN) or []}
    of = ", ".join(args.config_keys) if args.command == "test-config" else "the configs selected"
    return [Diagnostic("--seq-lens", 0, 0, FILTER_RULE, f"warning: no row of {of} has seq-len {name}",
                       f"pick the lengths the configs sweep: {', '.join(sorted(swept)) or 'none'}",
                       severity="warning") for name in dict.fromkeys(args.seq_lens) if name not in swept]


def _warn_unmatched_nodes_and_concs(args, keys: list, labels, rows: list[dict], chosen: list[dict]) -> None:
    """A warning when --runner-node-filter matches no runner name of the keys' labels (``labels()``:
    label -> its runner names, made only then), a --seq-lens value none of the ``chosen`` configs
    sweeps, or a test-config --conc value no row of the keys has (not said when the seq-lens left no
    row to have it): an empty sweep from a typo reads as one with nothing to run (as _unmatched_filters)."""
    from sweepgate.core.errors import Diagnostic, emit

    lengths = _unmatched_seq_lens(args, keys, chosen)
    out = list(lengths)
    if keys and args.runner_node_filter and not rows:
        names = sorted({str(n) for nodes in labels().values() if isinstance(nodes, list) for n in nodes})
        here = ", ".join(names[:SHOWN_VALUES]) + (", ..." if len(names) > SHOWN_VALUES else "")
        out.append(Diagnostic("--runner-node-filter", 0, 0, FILTER_RULE,
                              f"warning: {args.runner_node_filter!r} is in no runner name of these configs",
                              f"check the spelling; {F.RUNNERS_FILE} names for them: {here or 'none'}",
                              severity="warning"))
    if keys and getattr(args, "conc", None) and not (lengths and len(lengths) == len(set(args.seq_lens))):
        missing = [c for c in args.conc if not any(c in F.row_concs(r) for r in rows)]
        if missing:
            out.append(Diagnostic("--conc", 0, 0, FILTER_RULE, f"warning: no row of "
                                  f"{', '.join(args.config_keys)} has conc {', '.join(map(str, missing))}",
                                  "pick concurrencies the configs sweep (full-sweep lists them)", severity="warning"))
    if out:
        emit(out)


def apply_evals(rows: list[dict], args) -> list[dict]:
    """The generator's eval flags: mark, expand, and filter to eval rows."""
    from sweepgate.core.expand import mark_all_evals, mark_evals

    if not args.no_evals:
        rows = mark_evals(rows, include_agentic=args.evals_only or args.all_evals)
        if args.all_evals:
            rows = mark_all_evals(rows)
    if args.evals_only or args.all_evals:
        rows = [r for r in rows if r.get(F.RUN_EVAL)]
        for row in rows:
            row[F.EVAL_ONLY] = True
    return rows


def argument_problems(args) -> list[str]:
    """Flags that cannot go together (cli.argument_problems)."""
    problems = []
    low, high = getattr(args, "min_conc", None), getattr(args, "max_conc", None)  # full-sweep's
    if low is not None and high is not None and low > high:
        problems.append(f"argument --min-conc: {low} is above --max-conc {high}; swap the bounds")
    if args.no_evals and args.all_evals:
        problems.append(combination("--all-evals", "not allowed with argument --no-evals", "drop one of them"))
    return problems


def run(args) -> int:
    from sweepgate.core.check import check_revision
    from sweepgate.core.load import load_revision, open_repo

    git = open_repo()
    rev = load_revision(git, "WORKTREE", args.config_files, args.runner_config, worktree=True)
    check_revision(rev)
    rows = apply_evals(sweep_rows(args, rev), args)
    sys.stdout.write(json.dumps(rows) + "\n")
    return 0
