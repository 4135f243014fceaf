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
        # _parser.error(): the subcommand's usage line; its argument_problems, said with its missing flags (cli)
        p.set_defaults(_results_module=mod, _parser=p, _argument_problems=getattr(mod, "argument_problems", None))


def run(args) -> int:
    """The subcommand, its every line to stdout and stderr written with a result's control characters as
    escapes (``report.printable_streams``): a run id, a ref, a config key or a file name is somebody else's text."""
    from sweepgate.core.report import printable_streams

    with printable_streams():
        return args._results_module.run(args)
