"""`sweepgate results show [--run ID | --key KEY] [--json]`: stored results, one line per point."""

from __future__ import annotations

import sys


def add_arguments(parser) -> None:
    from sweepgate.commands.results import add_db_argument

    add_db_argument(parser)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--run", metavar="ID", help="the results of one run (its newest attempt per point)")
    which.add_argument("--key", metavar="KEY", help="the newest result of each point of one config key")
    parser.add_argument("--json", action="store_true", help="print the records as JSON")


def run(args) -> int:
    from sweepgate.results import show, store

    with store.open_store(args.db, must_exist=True) as st:
        if args.run:
            records, title = st.run_results(args.run), f"run {args.run}"
            if not records:
                from sweepgate.commands.results import unknown_run

                raise unknown_run(args.run, store.display_url(st.url))
        else:
            records, title = st.latest_per_point(args.key), (f"config key {args.key}" if args.key else "all points")
            if args.key and not records:
                from sweepgate.core.errors import fail

                raise fail("--key", 0, f"config key {args.key!r} has no results in {store.display_url(st.url)}",
                           "check --key (a master-config key, e.g. from `results show`) and --db")
    records = show.one_per_point(records)
    if args.json:
        print(show.as_json(records))
    else:
        from sweepgate.core.report import count

        show.table(records, sys.stdout, f"{title}: {count(len(records), 'point')}")
    return 0
