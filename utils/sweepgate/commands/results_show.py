"""`sweepgate results show [--run ID | --key KEY] [--json]`: stored results, one line per point."""

from __future__ import annotations

import sys

from sweepgate.commands import argtypes


def add_arguments(parser) -> None:
    from sweepgate.commands.argtypes import not_empty

    argtypes.add_db_argument(parser)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--run", metavar="ID", type=not_empty, help="the results of one run (its newest attempt per point)")
    which.add_argument("--key", metavar="KEY", type=not_empty, help="the newest result of each point of one config key, or of "
                                                    "the keys a wildcard matches ('dsr1-*', quoted)")
    parser.add_argument("--ref", metavar="REF", type=not_empty,
                        help="only results measured on this git ref (refs/heads/main; refs/pull/42/head for a PR); "
                             "with --key or alone, not with --run")
    parser.add_argument("--json", action="store_true", help="print the records as JSON")


def argument_problems(args) -> list[str]:
    """Flags that cannot go together (cli.argument_problems)."""
    if args.run and args.ref:
        return [argtypes.combination("--ref", "not allowed with argument --run (a run has one ref already)",
                                     "pass --run or --ref, not both")]
    return []


def run(args) -> int:
    from sweepgate.results import show, store

    with store.open_store(args.db, must_exist=True) as st:
        if args.run:
            records, title = st.run_results(args.run), f"run {args.run}"
            if not records:
                from sweepgate.commands.results_runs import unknown_run

                raise unknown_run(args.run, store.display_url(st.url), st)
        else:
            from sweepgate.results import record as R

            if args.ref:
                from sweepgate.results.store_adapter import stored_ref

                args.ref = stored_ref(args.ref, st.refs())
            records = _of_keys(st, args.key, args.ref)
            shown_ref = R.short_ref(args.ref) if args.ref else None  # as the table's ref column writes it
            title = " on ".join(filter(None, (f"config key {args.key}" if args.key else "all points", shown_ref)))
            if (args.key or args.ref) and not records:
                raise _nothing(args, st)
            _say_unordered(st, records, args)
    records = show.one_per_point(records)
    if args.json:
        print(show.as_json(records))
    else:
        show.table(records, sys.stdout, f"{title}: {_how_many(records)}", ref_column=not (args.run or args.ref))
    return 0


def _say_unordered(st, latest: list[dict], args) -> None:
    """One warning line when a point's newest result was taken over another whose order against it is not
    known (``R.unordered``: a time written without its zone near one with a zone), naming both."""
    from sweepgate.core.errors import Diagnostic, emit
    from sweepgate.results import record as R
    from sweepgate.results import show, store

    key = args.key if args.key and not any(c in args.key for c in GLOB) else None
    pairs = sorted(st.unordered_latest(latest, key, args.ref), key=lambda pair: show.sort_key(pair[0]))  # as listed
    if pairs:
        said = [(R.said_record(new), "was shown as newer than", R.said_record(old)) for new, old in pairs]
        emit([Diagnostic(store.display_url(st.url), rule=R.UNORDERED_RULE, severity="warning", in_file=False,
                         message=R.unordered_line(said, "point"), hint=R.UNORDERED_HINT)])


def _how_many(records: list[dict]) -> str:
    """'12 points', '6 points, 1 eval score' (a job's eval line holds scores at a point, counted by its
    scores, in compare's words: not a point more; an eval-only run's '2 eval scores', as compare counts
    0 points, new-user28), or '12 points on 2 refs (20 lines)' when a point measured on main and on a PR
    has a line for each (its scores, too, counted once); a line of no ref (a rehearsal's) is no ref more,
    `(21 lines, 1 of them with no ref)`."""
    from sweepgate.core.report import count
    from sweepgate.results import record as R
    from sweepgate.results.show import eval_scores, line_point, point_key

    points = {line_point(r) for r in records if not eval_scores(r)}
    scores = {score for r in records for score in eval_scores(r)}
    said = ", ".join(filter(None, (count(len(points), "point") if points or not scores else "",
                                   count(len(scores), "eval score") if scores else "")))
    if len({point_key(r) for r in records}) == len(records):
        return said
    refs = {r[R.REF] for r in records if r.get(R.REF)}
    bare = sum(1 for r in records if not r.get(R.REF))  # a rehearsal's line, an output's ingested alone: no ref
    where = f" on {count(len(refs), 'ref')}" if refs else ""
    return f"{said}{where} ({count(len(records), 'line')}{f', {bare} of them with no ref' if bare else ''})"


def _of_keys(st, key: str | None, ref: str | None) -> list[dict]:
    """The newest result of each point of ``key`` (shell-style wildcards: ``*``, ``?``, ``[...]``)."""
    if not key or not any(c in key for c in GLOB):
        return st.latest_per_point(key, ref)
    from fnmatch import fnmatchcase

    from sweepgate.results.record import CONFIG_KEY

    return [r for r in st.latest_per_point(None, ref)
            if r.get(CONFIG_KEY) is not None and fnmatchcase(r[CONFIG_KEY], key)]  # outputs without a job have no key


def _nothing(args, st):
    """--key/--ref matched no result: say which, and the refs there are when --ref was given."""
    from sweepgate.core.errors import fail
    from sweepgate.results import store

    where, refs = store.display_url(st.url), st.refs()
    if args.ref and args.ref not in refs:
        known, near = ", ".join(refs[:5]) or "none", _near_ref(args.ref, refs)
        return fail("--ref", 0, f"no results measured on {args.ref!r} in {where} (refs there: {known})",
                    f"pass --ref {near}" if near else "pass a full ref as the job sidecars name it, e.g. refs/heads/main")
    what = f"config key {args.key!r}" + (f" on {args.ref!r}" if args.ref else "")
    if args.key and any(c in args.key for c in GLOB):  # a wildcard: the pattern it was nearly, as --config-keys says it
        from sweepgate.core.keypatterns import near_wildcard

        return fail("--key", 0, f"{what} has no results in {where}",
                    near_wildcard(args.key, _stored_keys(st, args.ref), glob=True, check=CHECK_KEY))
    near = _near_keys(st, args.key, args.ref)
    if near:  # a typo, or a key's suffix left off (`-mtp`): name the stored keys it is nearly
        every = f", or --key '{args.key}*' for every key it starts" if near[0].startswith(args.key) else ""
        return fail("--key", 0, f"{what} has no results in {where}, which holds {', '.join(near)}",
                    f"pass --key {near[0]}{every}")
    return fail("--key", 0, f"{what} has no results in {where}", CHECK_KEY)


GLOB = "*?["  # --key's shell-style wildcards
CHECK_KEY = "check --key (a master-config key, e.g. from `results show`), --ref and --db"


def _near_ref(ref: str, refs: list[str]) -> str | None:
    """The stored ref ``ref`` was nearly: those it is the start of (``pull/6`` for ``refs/pull/6/merge``, the
    ref a PR's sidecars name; up to three, ``A or --ref B`` when a PR has runs of both its refs), else one
    spelt nearly so (``refs/heads/mian``)."""
    import difflib
    import re

    start = "refs/" + ref.strip("/").removeprefix("refs/") + "/"
    under = [r for r in refs if r.startswith(start) or r.startswith("refs/heads/" + start[5:])]
    if under:
        return " or --ref ".join(under[:3])
    want = ref.removeprefix("refs/heads/").removeprefix("refs/")
    short = {s: r for r in refs if re.findall(r"\d+", s := r.removeprefix("refs/heads/").removeprefix("refs/"))
             == re.findall(r"\d+", want)}  # main, pull/6/merge; never another PR's number
    close = difflib.get_close_matches(want, short, n=1, cutoff=0.7)
    return short[close[0]] if close else None


def _near_keys(st, key: str, ref: str | None) -> list[str]:
    """Up to three stored config keys spelt nearly as ``key`` or starting with it."""
    import difflib

    stored = _stored_keys(st, ref)
    longer = [k for k in stored if k.startswith(key)]
    return (longer or difflib.get_close_matches(key, stored, 3, 0.8))[:3]


def _stored_keys(st, ref: str | None) -> list[str]:
    """The config keys of the stored results (on ``ref``), sorted."""
    from sweepgate.results.record import CONFIG_KEY

    return sorted({str(r[CONFIG_KEY]) for r in st.latest_per_point(None, ref) if r.get(CONFIG_KEY) is not None})
