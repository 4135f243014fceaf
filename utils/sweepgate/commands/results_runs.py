"""The refusal of a ``--run`` the store holds nothing of, one for `results show` and `results compare`.

Its own module, not commands/results.py's: that one imports every results subcommand, and a
subcommand importing it back made an import circle.
"""

from __future__ import annotations

SHOWN_RUNS = 5  # the newest runs of a PR a refusal of its number as --run names


def _pr_number(run_id: str) -> tuple[int, str] | None:
    """``run_id`` read as a pull request: (its number, how it is written: ``ref``, ``pull/42`` or
    ``refs/pull/42/merge``; ``address``, ``https://github.com/O/R/pull/42``; else ``number``), else
    None. A bare number is ``argtypes.pull_request``'s (``42``, ``#42``); never an error of its own (a run id of thousands
    of digits is too long for ``int``)."""
    import argparse
    import re

    from sweepgate.commands.argtypes import pull_request

    ref = re.fullmatch(r"(https?://[^\s]+/|refs/)?pull/([1-9][0-9]{0,18})(?:/[^/\s]*)?", run_id.strip())
    if ref:
        return int(ref.group(2)), "address" if (ref.group(1) or "").startswith("http") else "ref"
    try:
        return pull_request(run_id), "number"
    except (argparse.ArgumentTypeError, ValueError):
        return None


def unknown_run(run_id: str, where: str, st=None):
    """The one refusal of a --run the store holds nothing of (show and compare); a PR's number, ref
    or address given for its run's id names the runs ``st`` (the open store) holds of that PR."""
    from sweepgate.core.errors import fail

    number, form = _pr_number(run_id) or (None, "number")
    runs = st.runs_of_pr(number) if st is not None and number is not None else []
    as_ref = form != "number"
    what = f"a pull request's {form}, not a run's id" if as_ref else ""
    if runs:
        listed = ", ".join(runs[-SHOWN_RUNS:]) + (f" and {len(runs) - SHOWN_RUNS} older" if len(runs) > SHOWN_RUNS
                                                    else "")
        return fail("--run", 0, f"run {run_id!r} has no results in {where} ({what + '; ' if what else ''}runs "
                    f"stored for PR {number}: {listed})",
                    f"pass --run RUN_ID, the id of the PR's workflow run, not the PR's {form}")
    if as_ref:
        return fail("--run", 0, f"run {run_id!r} has no results in {where} ({what}; none is stored for PR {number})",
                    f"pass --run RUN_ID, the id of PR {number}'s workflow run (the number in its "
                    "…/actions/runs/RUN_ID address), after ingesting it (`sweepgate results ingest`)")
    return fail("--run", 0, f"run {run_id!r} has no results in {where}{_stored_runs(st)}",
                "check --run and --db, or ingest the run first (`sweepgate results ingest`)")


def _stored_runs(st) -> str:
    """The newest runs ``st`` holds, each run's ref after the last of its runs in a row (`` (newest runs
    stored: 200 on refs/pull/7/head; 105, 104 on refs/heads/main and 3 older)``), for a --run of none of
    them: a mistyped or mis-copied run id reads at once against the ones that are there. "" without a store
    or runs."""
    runs = st.runs() if st is not None else []
    if not runs:
        return ""
    groups: list[tuple[str | None, list[str]]] = []  # (ref, its runs), newest first
    for run, ref in runs[:SHOWN_RUNS]:
        if groups and groups[-1][0] == ref:
            groups[-1][1].append(run)
        else:
            groups.append((ref, [run]))
    older = f" and {len(runs) - SHOWN_RUNS} older" if len(runs) > SHOWN_RUNS else ""
    listed = "; ".join(", ".join(ids) + (f" on {ref}" if ref else "") for ref, ids in groups)  # no ref: by hand
    return f" (newest runs stored: {listed}{older})"
