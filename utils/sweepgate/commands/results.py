"""`sweepgate results SUBCOMMAND`: ingest job outputs, show what is stored (CONTRACTS section 8).

Each subcommand is a module with ``add_arguments(parser)`` and ``run(args) -> int``,
listed in SUBCOMMANDS; adding one (``compare``) is one line here.
"""

from __future__ import annotations

import importlib

# subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "ingest": ("sweepgate.commands.results_ingest", "store job outputs (and their .job.json) as normalized results"),
    "show": ("sweepgate.commands.results_show", "print stored results, one line per point"),
    "sidecar": ("sweepgate.commands.results_sidecar", "write this job's $RESULT_FILENAME.job.json from its environment"),
    "compare": ("sweepgate.commands.results_compare", "judge a run against the last N runs on main, beyond noise"),
    "comment": ("sweepgate.commands.results_comment", "post a compare report as the PR's one results comment"),
}


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="results_command", metavar="SUBCOMMAND", required=True)
    for name, (module, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        mod = importlib.import_module(module)
        mod.add_arguments(p)
        p.set_defaults(_results_module=mod, _parser=p)  # _parser.error(): the subcommand's usage line


def add_db_argument(parser) -> None:
    """``--db URL``, shared by every results subcommand."""
    parser.add_argument("--db", metavar="URL",
                        help="database URL (default: $SWEEPGATE_DB, else sqlite:///<repo>/.sweepgate/results.db; "
                             "postgresql+psycopg://... for PostgreSQL)")


SHOWN_RUNS = 5  # the newest runs of a PR a refusal of its number as --run names


def _pr_number(run_id: str) -> int | None:
    """``run_id`` read as a pull request's number (``argtypes.pull_request``: ``42``, ``#42``), else None;
    never an error of its own (a run id of thousands of digits is too long for ``int``)."""
    import argparse

    from sweepgate.commands.argtypes import pull_request

    try:
        return pull_request(run_id)
    except (argparse.ArgumentTypeError, ValueError):
        return None


def unknown_run(run_id: str, where: str, st=None):
    """The one refusal of a --run the store holds nothing of (show and compare); a PR's number
    given for its run's id names the runs ``st`` (the open store) holds of that PR."""
    from sweepgate.core.errors import fail

    number = _pr_number(run_id)
    runs = st.runs_of_pr(number) if st is not None and number is not None else []
    if runs:
        listed = ", ".join(runs[-SHOWN_RUNS:]) + (f" and {len(runs) - SHOWN_RUNS} older" if len(runs) > SHOWN_RUNS
                                                    else "")
        return fail("--run", 0, f"run {run_id!r} has no results in {where} (runs stored for PR {number}: {listed})",
                    "pass --run RUN_ID, the id of the PR's workflow run, not the PR's number")
    return fail("--run", 0, f"run {run_id!r} has no results in {where}",
                "check --run and --db, or ingest the run first (`sweepgate results ingest`)")


def run(args) -> int:
    return args._results_module.run(args)
