"""`sweepgate rehearse`: run one matrix row's benchmark script on this machine, without a GPU.

Declares the flags and calls ``rehearsal.runner.rehearse``.
"""

from __future__ import annotations

from sweepgate.commands import argtypes
from sweepgate.rehearsal.runner import (DEFAULT_DURATION_S, DEFAULT_TIMEOUT_S, DURATION_ENV, EXP_NAME_FLAG,
                                       STOP_GRACE_MAX_S, STOP_GRACE_MIN_S)


def add_arguments(parser) -> None:
    parser.add_argument(EXP_NAME_FLAG, type=argtypes.not_empty,
                        help="matrix row to rehearse (its exp-name; not needed where the rows, or those "
                             "--conc and --where leave, have one)")
    parser.add_argument("--config-keys", type=argtypes.not_empty, nargs="+", metavar="KEY",
                        help="only look at rows of these master-config keys")
    parser.add_argument("--row-json", type=argtypes.not_empty, metavar="FILE",
                        help="read rows from FILE (a row, a list of rows or a whole `sweepgate matrix` "
                             "output) instead of the configs")
    parser.add_argument("--conc", type=argtypes.int_between(1), help="pick the row with this concurrency "
                        "(fixed-seq-len exp-names repeat across concurrencies)")
    parser.add_argument("--where", action="append", type=argtypes.field_value, metavar="FIELD=VALUE",
                        help="keep only rows whose FIELD is VALUE (e.g. tp=4, dp-attn=true); repeatable")
    parser.add_argument("--runner-name", type=argtypes.not_empty,
                        help="RUNNER_NAME for the job, one its runner label lists in configs/runners.yaml (default: "
                             "the first listed, else <runner label>_00)")
    parser.add_argument("--work-dir", type=argtypes.not_empty, metavar="DIR",
                        help="where shims, logs and results go (default: a new temporary directory)")
    parser.add_argument("--duration", type=argtypes.int_between(1), metavar="SECONDS",
                        help=f"replace the row's agentic duration (default: ${DURATION_ENV} or "
                             f"{DEFAULT_DURATION_S})")
    parser.add_argument("--timeout", type=argtypes.int_between(1), default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                        help="stop the script after this long: TERM, then KILL a tenth of it later (at least "
                             f"{STOP_GRACE_MIN_S} s, at most {STOP_GRACE_MAX_S} s) (default %(default)s)")


def argument_problems(args) -> list[str]:
    """Nothing to choose a row by is a missing flag: argparse's usage line and exit 2, said before the repository
    is looked for, as validate says its missing refs (cli.argument_problems). Several rows of --row-json or of
    --config-keys with no --exp-name are the data's to tell apart: exit 1, with every flag still to pass named."""
    if not (args.exp_name or args.row_json or args.config_keys):
        return ["the following arguments are required: --exp-name (or --config-keys KEY or --row-json FILE "
                "holding the row)"]
    return []


def run(args) -> int:
    from sweepgate.rehearsal.runner import rehearse

    return rehearse(args)
