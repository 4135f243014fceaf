"""The SQL the results store's reads are built of: a point's filter, the order of rows in time as
``record`` orders records (by code point whatever the database's collation), a run's past, and the newest rows
or runs of each group (a point, its eval records apart) that a baseline reads."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from sweepgate.results import record as R
from sweepgate.results.store_schema import column, results


def _point_filter(point: dict) -> list:
    clauses = []
    for field in R.POINT_IDENTITY:
        if field in point:
            col = results.c[column(field)]
            clauses.append(col.is_(None) if point[field] is None else col == point[field])
    return clauses


def _run_point(rec: dict) -> tuple:
    """One attempt's measurements of one point (throughput or eval scores) in one run."""
    return R.point_values(rec), rec.get(R.CLIENT) == R.EVAL_CLIENT, rec.get(R.RUN_ID), rec.get(R.ATTEMPT)


def _kind():
    """Eval scores (R.EVAL_CLIENT) or throughput figures: a job can leave both at one point, and
    neither may hide the other in a newest-per-point or per-run query."""
    return sa.case((results.c.client == R.EVAL_CLIENT, 1), else_=0)


class _by_code_point(FunctionElement):
    """Text that orders (ORDER BY, <, MAX) by its characters' code points, as Python orders str, whatever
    the database's own collation: ``_happened`` and ``_run_order`` must order rows as ``R.happened`` and
    ``R.run_order`` do (a store and --baseline-jsonl files pick the same baseline runs). A PostgreSQL
    database takes its default collation from the server's locale, and a linguistic one (en_US.UTF-8, ICU's
    und) puts ``10:00:00.5+00:00`` before ``10:00:00+00:00`` (``.`` before ``+``) and ``run_b`` before
    ``run-a``: there it is ``COLLATE "C"``. SQLite's default, BINARY, orders UTF-8 by code point already."""
    name = "by_code_point"
    inherit_cache = True
    type = sa.String()


@compiles(_by_code_point)
def _as_written(element, compiler, **kw) -> str:
    return compiler.process(element.clauses, **kw)


@compiles(_by_code_point, "postgresql")
def _collate_c(element, compiler, **kw) -> str:
    return f'({compiler.process(element.clauses, **kw)} COLLATE "C")'


def _happened():
    """When a row happened, ``R.happened`` in SQL: finished, else started, else NO_TIME, which orders before
    every time (a record without one is history filled in by hand: never placed by when it was ingested,
    which the --jsonl files compare reads as a baseline do not carry); by code point, as Python compares."""
    return _by_code_point(sa.func.coalesce(*(sa.func.nullif(results.c[column(f)], "") for f in R.HAPPENED),
                                          R.NO_TIME))


def _run_order() -> tuple:
    """``R.run_order`` in SQL: run ids of ASCII digits first, as numbers (without leading zeros, the
    shorter one is the smaller), then any other, as text (by code point); the id itself last."""
    run = results.c.run_id
    digits = sa.and_(run != "", sa.func.ltrim(run, "0123456789") == "")
    number = sa.func.ltrim(run, "0")
    return (sa.case((digits, 0), else_=1), sa.case((digits, sa.func.length(number)), else_=0),
            _by_code_point(sa.case((digits, number), else_=run)), _by_code_point(run))


def _before(past: R.Past):
    """``R.before`` in SQL: the rows that happened before the run whose ``past`` it is (before its time, or at
    that time in a run that ``_run_order`` puts before its run); of a time alone, before it."""
    if isinstance(past, str):
        return _happened() < past
    when, run = past
    number = run.lstrip("0")
    values = (0, len(number), number, run) if run.isascii() and run.isdigit() else (1, 0, run, run)
    below = sa.false()
    for part, value in reversed(list(zip(_run_order(), values))):  # the first part that differs decides
        below = sa.or_(part < value, sa.and_(part == value, below))
    return sa.or_(_happened() < when, sa.and_(_happened() == when, below))


def _without_zone():
    """The rows whose time (``_happened``) was written without its zone: every other is stored in UTC
    (``R.stored_time``: ``+00:00``) or is none (NO_TIME); text that is no time is told apart in Python."""
    return sa.and_(_happened() != R.NO_TIME, sa.not_(_happened().like("%+00:00")))


def _latest_groups(where: list, ref: str | None, before: R.Past | None, succeeded: bool,
                   include_rehearsals: bool) -> tuple[list, list]:
    """(the conditions, the groups) of ``Store.latest_per_point``: a group is a point, its eval records apart,
    an output ingested without a job its own point, of each ref unless ``ref`` is given (``_latest_group``)."""
    jobless = results.c.config_key.is_(None)  # outputs ingested without a job: each its own point
    by = [*(results.c[column(f)] for f in R.POINT_IDENTITY), _kind(),
          sa.case((jobless, results.c.result_filename)), sa.case((jobless, results.c.run_id))]
    where = [*where, *_measured(before, succeeded, include_rehearsals)]
    if ref is not None:
        where.append(results.c.ref == ref)
    else:
        by.append(results.c.ref)
    return where, by


def _latest_group(rec: dict, of_each_ref: bool) -> tuple:
    """A record's group of ``_latest_groups``, in Python."""
    jobless = rec.get(R.CONFIG_KEY) is None
    return (R.point_values(rec), rec.get(R.CLIENT) == R.EVAL_CLIENT,
            rec.get(R.RESULT_FILENAME) if jobless else None, rec.get(R.RUN_ID) if jobless else None,
            rec.get(R.REF) if of_each_ref else None)


def _time_order() -> tuple:
    """``R.time_order`` in SQL, oldest first: when it happened, run id, attempt; then the row's id."""
    return (_happened(), *_run_order(), results.c.attempt, results.c.id)


def _order_newest():
    return tuple(part.desc() for part in _time_order())


def _order_oldest():
    return tuple(part.asc() for part in _time_order())


def _measured(before: R.Past | None, succeeded: bool, include_rehearsals: bool) -> list:
    """The conditions of the rows a baseline reads: that happened before ``before`` (a run's past), of
    jobs that succeeded with ``succeeded`` (``compare.measured`` in SQL), real measurements only without
    ``include_rehearsals``."""
    return (([_before(before)] if before is not None else [])
            + (_succeeded() if succeeded else []) + _real_only(include_rehearsals))


def _succeeded() -> list:
    """The conditions of the rows a baseline takes (every baseline read asks ``succeeded``): of jobs that
    succeeded, ``compare.measured`` in SQL, and of runs not cancelled before they finished (``_whole_runs``)."""
    return [results.c.status == R.SUCCESS, *_whole_runs()]


def _whole_runs() -> list:
    """The condition that leaves out the rows of a run cancelled before it finished (R.RUN_CANCELLED): part of a
    sweep, kept for ``ci reuse`` (``Store.reusable`` does not ask this), never a baseline. ``store_adapter.may_judge``
    in SQL, as ``_real_only`` is for rehearsals."""
    return [results.c.run_cancelled.is_(False)]


def _real_only(include_rehearsals: bool) -> list:
    """The condition that leaves rehearsals' rows out, unless ``include_rehearsals`` (the baseline of a rehearsal):
    ``store_adapter.may_judge`` in SQL."""
    return [] if include_rehearsals else [results.c.rehearsal.is_(False)]


def _first_of_each(where: list, partition: list, n: int = 1, *, oldest: bool = False):
    """The ids of the ``n`` newest rows matching ``where`` in each ``partition``
    group (SQL ROW_NUMBER(), by ``_time_order``: a tie on the time goes to the later run, then attempt, as
    compare orders records); with ``oldest``, the ``n`` oldest."""
    rank = sa.func.row_number().over(partition_by=partition or None,
                                     order_by=_order_oldest() if oldest else _order_newest())
    ranked = sa.select(results.c.id, rank.label("rank")).where(*where).subquery()
    return sa.select(ranked.c.id).where(ranked.c.rank <= n).subquery()


def _runs_of_each(where: list, by: list, n: int, *, oldest: bool = False):
    """Per ``by`` group, the newest row of each of its ``n`` newest runs (by their newest row); with
    ``oldest``, of its ``n`` oldest runs (still each by its newest row, as ``compare`` orders runs)."""
    runs = _first_of_each(where, [*by, results.c.run_id])
    return _first_of_each([results.c.id.in_(sa.select(runs.c.id))], by, n, oldest=oldest)


def _records_of(chosen) -> sa.Select:
    """The records of a ``_first_of_each`` selection, newest first."""
    return sa.select(results.c.record).join(chosen, chosen.c.id == results.c.id).order_by(*_order_newest())
