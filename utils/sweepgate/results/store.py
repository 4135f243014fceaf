"""The results store: SQLAlchemy Core over SQLite (default) or PostgreSQL.

API for other commands (``results show``, ``results compare``); every query
returns plain record dicts (``record.py`` names, ``result.schema.json``)::

    with open_store(url) as st:          # url None -> SWEEPGATE_DB -> sqlite:///<repo>/.sweepgate/results.db
        st.add(records)                  # one transaction; returns how many were new
        st.add(records, behind=kept)     # kept: the placeholders not stored, their job's output stored
        st.add(records, sole=True, alike=done)  # a content-hash run: copies refused, a run stored once (Alike)
        st.run_results("123456")         # every record of a run (all attempts)
        st.unmark_carried("123456", 2)   # a re-run attempt that finished: what it carries leaves the cancelled mark
        st.last_runs("refs/heads/main", point, n=5)  # newest first, one per run
        st.history(point)                # oldest first
        st.latest_per_point(config_key=None)

A ``point`` is a dict over ``record.POINT_IDENTITY`` (POINT plus the recipe
identity); keys it omits are not matched. Rows are unique on (run-id, attempt,
result-filename): adding a record twice keeps one row, also when two processes add
it at once (``add`` starts over when it loses that race); a retried attempt is a
new row. Stored results are immutable: a *different* record under a stored key
raises ``Immutable`` and the transaction stores nothing. The schema is migrated
with Alembic (shipped in the package) on open, by one opener at a time.

This module is the API (``Store``, ``open_store``, ``Deferred``); the names other
modules import from it (``StoreError``, ``display_url``, ``Immutable``, ``Echo`` ...)
stay importable here. Its parts are modules of one role each, lower ones never
importing higher ones: ``store_url`` (the address), ``store_failures`` (a database
failure in one line), ``store_schema`` (the table and its migrations), ``store_file``
(the SQLite file a --db names), ``store_open`` (the engine, a new store made whole),
``store_query`` (the SQL reads are built of), ``store_immutable`` (a stored result
never changes) and ``store_dedup`` (one measurement stored once).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import time
from pathlib import Path

import sqlalchemy as sa

from sweepgate.results import record as R
from sweepgate.results.store_dedup import (SAME_BYTES_RULE, Alike, Copied, Echo, SameBytes, _copies, _echoes, _sole,
                                           file_of)
from sweepgate.results.store_failures import (ADD_ATTEMPTS, _detail, _lost_race, _retry_busy, _sqlite_busy, _waited_out,
                                              damaged, database_error)
from sweepgate.results.store_file import (PG_FOREIGN_HINT, SQLITE_FOREIGN_HINT, check_sqlite_target, foreign_message,
                                          missing_sqlite, store_named)
from sweepgate.results.store_immutable import (Immutable, Provided, _eval_partners, _fills, _given_by_sidecar,
                                               _given_now, _keep_given, _measurement_partners, _one_ref_per_run,
                                               _same, _stored_by_key, _stored_keys, point_file_name)
from sweepgate.results.store_open import _create_sqlite, _engine, _new_sqlite_file, _not_a_store, _remove_dead_parts
from sweepgate.results.store_query import (_before, _by_code_point, _first_of_each, _happened, _kind, _latest_group,
                                           _latest_groups, _measured, _order_newest, _point_filter, _real_only,
                                           _records_of, _run_point, _runs_of_each, _succeeded, _time_order,
                                           _without_zone)
from sweepgate.results.store_schema import (INGESTED_AT, INTEGER_FIELDS, KEY, METRIC_FIELDS, RUN_LOCK, STRING_FIELDS,
                                            ForeignDatabase, NotAStore, SchemaNotUpgraded, SchemaTooNew, VersionLost,
                                            _chunks, _is_record, _migrate, column, metadata, results, version_lost)
from sweepgate.results.store_url import StoreError, _check_url, default_url, display_url, resolve_url, url_fail

# The longest an ingest's closing ANALYZE (``_analyze``) waits for a lock another holds; it then leaves the statistics.
ANALYZE_LOCK_WAIT = "1s"


def _write_lock(conn: sa.Connection, runs=()) -> None:
    """SQLite: take the writer lock before the transaction's first read. A transaction that reads
    (the stored keys) and then writes cannot wait for the lock once another writer has committed
    after its read: SQLite refuses it at once ("database is locked"), whatever the busy timeout.
    PostgreSQL: take a lock of each of ``runs`` (the run ids the transaction writes), held until it ends. Each
    statement there reads what was committed when it began, so two writers of one run each decided on rows read
    before the other committed: one wrote its ref over the one the other had just filled in (``Provided``), and
    two outputs of one run were both stored, on two refs (``_one_ref_per_run``; s49b). A unique-key clash of
    other writers is retried (``_lost_race``), as is a deadlock, which the runs' one order avoids. Marking a run's
    records cancelled, or un-marking what a re-run carries, takes its run's lock too: without it a mark read the run
    before a writer of it committed and left that writer's rows as they were (s50a)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif conn.dialect.name == "postgresql" and runs:
        keys = sorted({int.from_bytes(hashlib.sha256(str(run).encode()).digest()[:4], "big", signed=True)
                       for run in runs})
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:space, :key)"),
                     [{"space": RUN_LOCK, "key": key} for key in keys])


def _job_name(rec: dict) -> str:
    """The job a record is of, within its run's attempt: its result file's name (a job's eval scores, a record of
    their own under ``<name>-eval``, are the same job's; so are the measurements of its output of several, ``X#N``:
    R.job_of_measurement)."""
    from sweepgate.core.jobfile import EVAL_SUFFIX

    name = str(rec[R.RESULT_FILENAME])
    return (R.job_of_measurement(name) or name).removesuffix(EVAL_SUFFIX)


def _whole_success(recs: list[dict]) -> bool:
    """Whether a job's records say it succeeded whole: every one a success (a job that failed in part, its
    throughput stored and its eval cut short, is no measurement of its row)."""
    return all(r.get(R.STATUS) == R.SUCCESS for r in recs)


class Store:
    """An open results database (use ``open_store``)."""

    def __init__(self, url: str, *, must_exist: bool = False):
        self.url = url
        self.reading = must_exist  # opened by a command that only reads
        self.engine = _engine(url, must_exist)

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.engine.dispose()

    def _row(self, rec: dict, ingested_at: str) -> dict:
        row = {column(f): rec.get(f) for f in (*KEY, *STRING_FIELDS, *INTEGER_FIELDS, R.REHEARSAL)}
        row.update({column(f): rec[R.METRICS].get(f) for f in METRIC_FIELDS})
        row[column(R.REQUEST_RATE)] = R.rate_key(rec.get(R.REQUEST_RATE))
        row[column(R.OUTPUT_SHA256)] = rec.get(R.OUTPUT_SHA256)
        row[column(R.RUN_CANCELLED)] = bool(rec.get(R.RUN_CANCELLED))
        row.update({INGESTED_AT: ingested_at, "record": rec})
        return row

    def _insert(self, conn, rows: list[dict], keep_stored: bool, behind: list, before: list,
                provided: list) -> int:
        """Insert the rows whose (run-id, attempt, result-filename) is not stored yet; the records of
        placeholders kept out behind their job's stored output go to ``behind``, and those of rows stored
        before as they are (a re-ingest) to ``before``; a stored row the re-ingest gives a ref or commit it was
        stored without is updated (``Provided``, to ``provided``; its record is in ``before`` too: no new result).

        A SELECT of the keys and a plain INSERT: both are cached compiled statements
        (ON CONFLICT constructs are not), and both work on every dialect."""
        found = _stored_keys(conn, [row[column(R.RUN_ID)] for row in rows], results.c.ref)
        stored = {tuple(r[:len(KEY)]) for r in found}
        if not keep_stored:
            _one_ref_per_run(rows, found)
        new, seen, again = [], {}, []
        for row in rows:
            key = tuple(row[column(f)] for f in KEY)
            if key in stored:
                again.append(row)
            elif key in seen:
                if not keep_stored:
                    _same(seen[key]["record"], row["record"])
            else:
                seen[key] = row
                new.append(row)
        filled = self._check_unchanged(conn, again, behind, provided) if again and not keep_stored else []
        crossed, kept_out, twins = _eval_partners(conn, new, self.url) if new and not keep_stored else ([], [], [])
        placed = {id(r) for r in (*kept_out, *twins, *(r for r, _ in crossed))}
        if rest := [row for row in new if id(row) not in placed and not keep_stored]:  # an output of several lines
            more_crossed, more_kept = _measurement_partners(conn, rest, self.url)
            crossed, kept_out = crossed + more_crossed, kept_out + more_kept
        behind.extend(row["record"] for row in kept_out)
        given = {tuple(g.stored[f] for f in KEY) for g in provided}
        provided.extend(g for g in _given_by_sidecar(conn, behind, self.url)  # the job's ref from its sidecar alone
                        if tuple(g.stored[f] for f in KEY) not in given)
        before.extend(row["record"] for row in again if not any(row is r for r in filled)
                      and not any(row["record"] is rec for rec in behind))
        new = [row for row in new if not any(row is r for r in (*kept_out, *twins, *(r for r, _ in crossed)))]
        if new:
            conn.execute(results.insert(), new)
        # a job's output in place of the record its sidecar alone made (``_fills``), under its own name
        for row, key in [(row, tuple(row[column(f)] for f in KEY)) for row in filled] + crossed:
            conn.execute(results.update().where(*(results.c[column(f)] == v for f, v in zip(KEY, key)))
                         .values(row))
        for given in provided:  # in this transaction: the file's rows all written, or none
            conn.execute(results.update().where(*(results.c[column(f)] == given.stored[f] for f in KEY))
                         .values({**{column(f): given.record[f] for f in given.fields}, "record": given.record}))
        return len(new) + len(filled) + len(crossed)

    def _check_unchanged(self, conn, rows: list[dict], behind: list, provided: list) -> list[dict]:
        """Raise ``Immutable`` for the first row whose record differs from the stored one; return the
        rows that fill a stored placeholder (``_fills``), and put in ``behind`` the records of
        placeholders whose job's output is the stored row, and in ``provided`` a ``Provided`` for each stored
        row the record gives a ref or commit it was stored without (``_given_now``). Only a re-ingest pays for
        reading them back."""
        stored = _stored_by_key(conn, [tuple(row[column(f)] for f in KEY) for row in rows], self.url)
        filled = []
        for row in rows:
            old = stored[tuple(row[column(f)] for f in KEY)]
            if not _is_record(old):
                raise damaged(self.url, f"not a result record: {json.dumps(old)[:60]}")
            if _fills(old, row["record"]):
                _keep_given(row, old)
                filled.append(row)
            elif _fills(row["record"], old):  # a placeholder of a job stored whole: the output is kept
                behind.append(row["record"])
            else:
                _same(old, row["record"])
                if fields := _given_now(old, row["record"]):
                    provided.append(Provided(old, row["record"], fields))
                for field in _given_now(row["record"], old):  # a ref the store holds, the file's job no longer
                    row["record"][field] = old[field]  # names: the record as stored (what --jsonl appends)
        return filled

    def add(self, records: list[dict], *, keep_stored: bool = False, sole: bool = False, before_commit=None,
            behind: list | None = None, alike: list | None = None, stored: list | None = None,
            earlier: list[str] | None = None, echoes: list | None = None, copies: list | None = None,
            provided: list | None = None) -> int:
        """Store ``records`` in one transaction (all or none); returns how many were new. A record
        that differs from the one stored under its key raises ``Immutable`` (nothing is stored),
        or with ``keep_stored`` is skipped (records derived again, such as ``ci reuse``'s). With
        ``sole`` (the records are all their run's: its id is their file's content hash), a run the
        store holds other rows of raises ``Copied``, nothing stored.
        ``before_commit()`` is called once the rows are written, just before they are committed.
        ``behind``, when given, receives the placeholders (a job's sidecar alone) not stored because
        the store holds their job's output (``_fills``, ``_eval_partners``): no new row, and no re-ingest
        of a stored one either. With ``sole``, a measurement another hashed run holds is stored once
        (``_one_measurement``), in this same transaction; ``alike``, when given, receives what was done
        (``Alike``: records not stored, stored ones replaced), and a row that takes the place of a stored
        one is not new. ``stored``, when given, receives the records the store held already as they are (an
        output ingested again: nothing of it new). ``earlier`` (with ``sole``): the run ids the records' file had
        before it grew by appended lines, its own first (``_continued_run``): the records are stored under the
        run the store holds of it, their ``run-id`` set to it. ``echoes``, when given (without ``sole``), receives an
        ``Echo`` for each record newly stored whose figures another run's stored record holds (``_echoes``);
        ``copies``, one for each whose output's bytes another file's stored record was read from (``_copies``);
        ``provided``, a ``Provided`` for each stored record given the ref or commit it was stored without (the
        row updated in this transaction; its record is one of ``stored`` too)."""
        stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        rows = [self._row(rec, stamp) for rec in records]
        for attempt in range(1, ADD_ATTEMPTS + 1):  # the last raises what stopped it
            started = time.monotonic()
            try:
                with self.engine.begin() as conn:
                    _write_lock(conn, [row[column(R.RUN_ID)] for row in rows])
                    done: list = []  # of this transaction only (one that lost a race starts over), as ``kept``
                    todo, taking = rows, 0
                    if sole:
                        todo, done, taking = _sole(conn, rows, earlier or [], self.url)
                    kept, again, given = [], [], []  # as ``done``: placeholders behind, rows stored, Provided
                    new = self._insert(conn, todo, keep_stored, kept, again, given) - taking if todo else 0
                    echoed = _echoes(conn, todo, again, self.url) if echoes is not None and not sole else []
                    copied = _copies(conn, todo, again, self.url) if copies is not None and todo else []
                    if before_commit is not None:
                        before_commit()
                for asked, found in ((behind, kept), (stored, again), (alike, done), (echoes, echoed),
                                     (copies, copied), (provided, given)):
                    if asked is not None:  # what the caller asked to be told of
                        asked.extend(found)
                return new
            except sa.exc.SQLAlchemyError as exc:
                if attempt == ADD_ATTEMPTS or not _lost_race(exc) or (_sqlite_busy(exc) and _waited_out(started)):
                    raise database_error(self.url, exc) from None
                if _sqlite_busy(exc):
                    time.sleep(0.05 * 2 ** attempt)

    def _records(self, query) -> list[dict]:
        return self._read(lambda conn: [r.record for r in conn.execute(query)])

    def _newest(self, wheres: list[list]) -> list[dict]:
        """The records of the rows that one of ``wheres`` (lists of conditions, each read in a statement of its own:
        IN lists of IN_CHUNK values at most, ``_chunks``) matches, each row once, newest first (``_order_newest``:
        the rows of several statements are placed by the values it orders by, read with them)."""
        if len(wheres) == 1:
            return self._records(sa.select(results.c.record).where(*wheres[0]).order_by(*_order_newest()))
        order = [part.label(f"order_{at}") for at, part in enumerate(_time_order())]  # its last: the row's id

        def read(conn) -> list:
            rows = {}
            for where in wheres:
                rows.update((r[len(order) - 1], r) for r in conn.execute(sa.select(*order, results.c.record)
                                                                         .where(*where)))
            return [r.record for r in sorted(rows.values(), key=lambda r: tuple(r[:len(order)]), reverse=True)]
        return self._read(read)

    def _read(self, fetch) -> list[dict]:
        """``fetch(conn)``'s records, each checked to be one (else the store is ``damaged``), as dicts."""
        try:
            with self.engine.connect() as conn:
                records = fetch(conn)
        except sa.exc.SQLAlchemyError as exc:
            raise database_error(self.url, exc, reading=True) from None
        except ValueError as exc:  # a record column that is no JSON (SQLite keeps it as text)
            raise damaged(self.url, f"not JSON: {exc}") from None
        for rec in records:
            if not _is_record(rec):
                raise damaged(self.url, f"not a result record: {json.dumps(rec)[:60]}")
        return [dict(rec) for rec in records]

    def run_results(self, run_id: str, attempt: int | None = None) -> list[dict]:
        """Every record of run ``run_id`` (one attempt, or all), by config key, hardware, conc."""
        query = sa.select(results.c.record).where(results.c.run_id == str(run_id))
        if attempt is not None:
            query = query.where(results.c.attempt == attempt)
        return self._records(query.order_by(_by_code_point(results.c.config_key), _by_code_point(results.c.hardware),
                                            results.c.conc, results.c.attempt, results.c.id))

    def last_runs(self, ref: str, point: dict, n: int = 5, *, include_rehearsals: bool = False) -> list[dict]:
        """The newest record of ``point`` from each of the last ``n`` runs on ``ref``, newest first
        (and, apart, the newest eval record: a job's eval scores never hide its throughput)."""
        return self._last_runs(ref, _point_filter(point), [_kind()], n, include_rehearsals)

    # Added for `results compare` (issue 13): last_runs for thousands of points in one query.
    def last_runs_of_points(self, ref: str, points: list[dict], n: int = 5, *, include_rehearsals: bool = False,
                            before: R.Past | None = None, after: R.Past | None = None,
                            succeeded: bool = False) -> list[dict]:
        """Every record of each point in ``points`` (dicts over all of POINT_IDENTITY) from the newest
        attempt of each of its last ``n`` runs on ``ref`` (a run can measure a point more than once:
        compare takes their median), newest first; with ``before`` (a run's ``R.Past``), only the
        records that happened before it (the baseline of a run on ``ref`` itself is its past); with
        ``after`` (a run's ``R.Past``), only those that did not, of each point's FIRST ``n`` runs
        from then rather than its last (the runs nearest a PR run that came before any run of the
        point on ``ref``: a baseline later runs do not move); with ``succeeded``, only jobs that
        succeeded (a failed run takes no place among the ``n``)."""
        wanted = {tuple(p.get(f) for f in R.POINT_IDENTITY) for p in points}
        keys = {p.get(R.CONFIG_KEY) for p in points}  # None: stored without a config key (a --row ingest)
        by = [*(results.c[column(f)] for f in R.POINT_IDENTITY), _kind()]
        rest = ([_before(before)] if before else []) + ([sa.not_(_before(after))] if after else []) + (
            _succeeded() if succeeded else [])
        # IN_CHUNK config keys a look-up (the rows without one with the first): a key's points are its own groups
        of_keys = [results.c.config_key.in_(part) for part in _chunks(sorted(str(k) for k in keys if k is not None))]
        if None in keys:
            of_keys[:1] = [sa.or_(*of_keys[:1], results.c.config_key.is_(None))]
        chosen, wheres = set(), []
        for of_key in of_keys:
            found = [rec for rec in self._last_runs(ref, [of_key, *rest], by, n, include_rehearsals,
                                                    oldest=bool(after)) if R.point_values(rec) in wanted]
            chosen |= {_run_point(rec) for rec in found}
            wheres += [[results.c.ref == ref, results.c.run_id.in_(part), of_key, *rest]
                       for part in _chunks(sorted({rec[R.RUN_ID] for rec in found}))]
        if not chosen:
            return []
        return [rec for rec in self._newest(wheres) if _run_point(rec) in chosen]

    def _last_runs(self, ref: str, where: list, by: list, n: int, include_rehearsals: bool,
                   oldest: bool = False) -> list[dict]:
        """Per ``by`` group of the rows on ``ref`` matching ``where``: the newest record of each
        of its last ``n`` runs (``oldest``: of its first ``n``); all groups together, newest first."""
        where = [results.c.ref == ref, *where, *_real_only(include_rehearsals)]
        return self._records(_records_of(_runs_of_each(where, by, n, oldest=oldest)))

    def reusable(self, identities: list[str], since: str | None = None,
                 pr: int | None = None) -> dict[str, list[dict]]:
        """For each run identity, the newest non-rehearsal job's records (every record of that job: an output
        can hold several, and a job's eval scores are a record of their own) when every one of them is a success,
        measured (not itself reused) and finished at or after ``since`` (ISO 8601) when given. A job that failed
        in part (its throughput stored, its eval cut short) is no measurement of the row: an older job wholly
        successful is taken instead, else none. With ``pr``, only jobs stored under that pull request's refs
        (``refs/pull/N/…``; a PR's own earlier sweeps), never another PR's or a branch's. Identities without one
        are absent."""
        where = [*_real_only(False)] + (
            [] if since is None else
            [_by_code_point(sa.func.coalesce(results.c.finished, results.c.ingested_at)) >= since]) + (
            [] if pr is None else [results.c.ref.like(f"refs/pull/{int(pr)}/%")])  # not refs/pull/70/… for 7
        wheres = [[results.c.run_identity.in_(part), *where] for part in _chunks(sorted(set(identities)))]
        jobs: dict[str, dict[tuple, list[dict]]] = {}  # identity -> its jobs, newest first -> their records
        for rec in self._newest(wheres) if wheres else []:
            if rec.get(R.REUSED_FROM):
                continue
            job = (rec[R.RUN_ID], rec[R.ATTEMPT], _job_name(rec))
            jobs.setdefault(rec[R.RUN_IDENTITY], {}).setdefault(job, []).append(rec)
        out: dict[str, list[dict]] = {}
        for identity, its_jobs in jobs.items():
            whole = next((recs for recs in its_jobs.values() if _whole_success(recs)), None)
            if whole is not None:
                out[identity] = whole
        return out

    def mark_copies_cancelled(self, run_id: str, attempt: int) -> int:
        """Mark the results ``ci reuse`` recorded against run ``run_id``'s ``attempt`` (R.REUSED_FROM) as of a run
        cancelled before it finished (R.RUN_CANCELLED, the record and its column), in one transaction; return how
        many were marked now. The copies were stored by the run's setup job, before the cancel, and are that run's
        records: none of a cancelled run is in a baseline (``store_query._whole_runs``)."""
        query = sa.select(results.c.id, results.c.record).where(
            results.c.run_id == run_id, results.c.attempt == attempt, results.c.run_cancelled.is_(False))
        try:
            with self.engine.begin() as conn:
                _write_lock(conn, [run_id])
                marks = [{"row_id": row.id, "marked": {**row.record, R.RUN_CANCELLED: True}}
                         for row in conn.execute(query) if _is_record(row.record) and row.record.get(R.REUSED_FROM)]
                if marks:
                    conn.execute(results.update().where(results.c.id == sa.bindparam("row_id")).values(
                        run_cancelled=True, record=sa.bindparam("marked")), marks)
        except sa.exc.SQLAlchemyError as exc:
            raise database_error(self.url, exc) from None
        return len(marks)

    def unmark_carried(self, run_id: str, attempt: int) -> int:
        """Attempt ``attempt`` of run ``run_id`` finished (it was not cancelled): un-mark the records of the run's
        earlier attempts stored as of a cancelled run (R.RUN_CANCELLED, the record and its column) that it carries,
        in one transaction; return how many were un-marked now. GitHub's *Re-run failed jobs* runs again only the jobs
        that failed or were cancelled (and those that need them); a job that succeeded keeps its earlier attempt's
        result, and so does the setup job, whose `ci reuse` copies were recorded against that attempt. A job's
        records are carried when they are their row's newest (no later attempt up to ``attempt`` stored a record of
        its result file: that one ran it again) and every one of them is a success (``_whole_success``): never
        one of a job that failed or was cancelled."""
        query = sa.select(results.c.id, results.c.run_cancelled, results.c.record).where(
            results.c.run_id == run_id, results.c.attempt <= attempt)
        try:
            with self.engine.begin() as conn:
                _write_lock(conn, [run_id])
                jobs: dict[tuple, list] = {}  # (attempt, job's result file) -> its rows
                for row in conn.execute(query):
                    if _is_record(row.record):
                        jobs.setdefault((row.record[R.ATTEMPT], _job_name(row.record)), []).append(row)
                newest: dict[str, int] = {}
                for at, name in jobs:
                    newest[name] = max(at, newest.get(name, at))
                marks = [{"row_id": row.id, "unmarked": {k: v for k, v in row.record.items() if k != R.RUN_CANCELLED}}
                         for (at, name), rows in jobs.items()
                         if at < attempt and at == newest[name] and _whole_success([r.record for r in rows])
                         for row in rows if row.run_cancelled]
                if marks:
                    conn.execute(results.update().where(results.c.id == sa.bindparam("row_id")).values(
                        run_cancelled=False, record=sa.bindparam("unmarked")), marks)
        except sa.exc.SQLAlchemyError as exc:
            raise database_error(self.url, exc) from None
        return len(marks)

    def refs(self) -> list[str]:
        """Every ref the store holds results of, sorted."""
        try:
            with self.engine.connect() as conn:
                return sorted(r for (r,) in conn.execute(sa.select(results.c.ref).distinct()) if r is not None)
        except sa.exc.SQLAlchemyError as exc:
            raise database_error(self.url, exc, reading=True) from None

    def runs_of_pr(self, number: int) -> list[str]:
        """The runs stored under a ref of pull request ``number`` (refs/pull/N/head, /merge), oldest first: by
        their last time, runs of one time by run id (``R.run_order``, as compare places them: "9" before "10")."""
        from sweepgate.core.jobfile import pr_number_of

        query = sa.select(results.c.run_id, results.c.ref, sa.func.max(_happened())).where(
            results.c.ref.like(f"refs/pull/{int(number)}/%")).group_by(results.c.run_id, results.c.ref)
        try:
            with self.engine.connect() as conn:
                found = [(str(when or ""), run) for run, ref, when in conn.execute(query) if pr_number_of(ref) == number]
        except sa.exc.SQLAlchemyError as exc:
            raise database_error(self.url, exc, reading=True) from None
        return list(dict.fromkeys(run for _, run in sorted(found, key=lambda f: (f[0], R.run_order(f[1])))))

    def runs(self) -> list[tuple[str, str | None]]:
        """Every run stored, (run id, ref or None), newest first, as ``runs_of_pr`` orders a PR's: by their last
        time, runs of one time by run id."""
        query = sa.select(results.c.run_id, results.c.ref, sa.func.max(_happened())).group_by(
            results.c.run_id, results.c.ref)
        try:
            with self.engine.connect() as conn:
                found = [(str(when or ""), str(run), ref) for run, ref, when in conn.execute(query)]
        except sa.exc.SQLAlchemyError as exc:
            raise database_error(self.url, exc, reading=True) from None
        return [(run, ref) for _, run, ref in sorted(found, key=lambda f: (f[0], R.run_order(f[1])), reverse=True)]

    def runs_on_no_ref(self) -> list[str]:
        """The runs stored on no ref but a rehearsal's (on no ref by design), sorted: content-hash runs (outputs
        ingested with no sidecar and no --row) and jobs whose sidecar names no ref. No baseline takes them."""
        query = sa.select(results.c.run_id).where(results.c.ref.is_(None), results.c.rehearsal.isnot(True)).distinct()
        try:
            with self.engine.connect() as conn:
                return sorted(str(run) for (run,) in conn.execute(query))
        except sa.exc.SQLAlchemyError as exc:
            raise database_error(self.url, exc, reading=True) from None

    def history(self, point: dict) -> list[dict]:
        """Every record of ``point`` on every ref, oldest first."""
        query = sa.select(results.c.record).where(*_point_filter(point))
        return list(reversed(self._records(query.order_by(*_order_newest()))))

    def records(self, *, config_key: str | None = None, ref: str | None = None) -> list[dict]:
        """Every record (optionally of one config key / ref), newest first."""
        query = sa.select(results.c.record)
        if config_key is not None:
            query = query.where(results.c.config_key == config_key)
        if ref is not None:
            query = query.where(results.c.ref == ref)
        return self._records(query.order_by(*_order_newest()))

    def records_of_keys(self, config_keys: list[str], ref: str, *, since: str | None = None, runs=(),
                        before: R.Past | None = None, succeeded: bool = False,
                        include_rehearsals: bool = False) -> list[dict]:
        """Every record of ``config_keys`` on ``ref`` that happened at or after ``since`` or is of one of
        ``runs`` (none when neither is given), newest first; with ``before``, ``succeeded`` and
        ``include_rehearsals`` as ``last_runs_of_points`` reads them. What main's latest picture of a key
        is read from (``compare.picture_reach``): whole runs, and the runs that may overlap them."""
        at_since = [_happened() >= since] if since is not None else []
        eithers = [sa.or_(*at_since, results.c.run_id.in_(part)) for part in _chunks(sorted({str(r) for r in runs}))] \
            or at_since  # IN_CHUNK runs a statement, each with the rows since then
        if not eithers or not config_keys:
            return []
        return self._newest([[results.c.ref == ref, results.c.config_key.in_(part), either,
                              *_measured(before, succeeded, include_rehearsals)]
                             for part in _chunks(sorted(set(config_keys))) for either in eithers])

    def latest_per_point(self, config_key: str | None = None, ref: str | None = None, *,
                         before: R.Past | None = None, succeeded: bool = False,
                         include_rehearsals: bool = True) -> list[dict]:
        """The newest record of each point (POINT_IDENTITY plus the result's own name), newest first,
        of one config key when given; of one ref when given, else of each ref (a PR's run does not
        hide main's figure of the same point); a point's newest eval record too, when it has one.
        With ``before`` (a run's ``R.Past``), the newest of those that happened before it; with
        ``succeeded``, of the jobs that succeeded (a failed job measured nothing); without
        ``include_rehearsals``, of real measurements (a newer rehearsal hides no older figure)."""
        of_key = [] if config_key is None else [results.c.config_key == config_key]
        return self._latest(of_key, ref, before, succeeded, include_rehearsals)

    def latest_per_point_of_keys(self, config_keys: list[str], ref: str, *, before: R.Past | None = None,
                                 succeeded: bool = False, include_rehearsals: bool = True) -> list[dict]:
        """``latest_per_point`` of each of ``config_keys`` on ``ref``, IN_CHUNK keys a statement (a point is of one
        key: each is found as in a statement of its own key), as those of each key in turn would be read: the keys
        in their order, each one's records newest first."""
        keys = list(dict.fromkeys(config_keys))
        found = [rec for part in _chunks(keys)
                 for rec in self._latest([results.c.config_key.in_(part)], ref, before, succeeded, include_rehearsals)]
        at = {key: n for n, key in enumerate(keys)}
        return sorted(found, key=lambda rec: at.get(str(rec.get(R.CONFIG_KEY)), len(keys)))  # stable: newest first

    def latest_of_models(self, pairs: list[tuple], ref: str, *, before: R.Past | None = None,
                         succeeded: bool = False, include_rehearsals: bool = True) -> list[dict]:
        """``latest_per_point`` on ``ref`` of every recipe of each (model, hardware) of ``pairs``, newest first: what
        a chart of recipes ``ref`` never measured shows of the nearest one it did (``charts.contexts``)."""
        return [rec for model, hardware in sorted(set(pairs), key=str)
                for rec in self._latest([results.c.model == model, results.c.hardware == hardware], ref, before,
                                        succeeded, include_rehearsals)]

    def _latest(self, where: list, ref: str | None, before: R.Past | None, succeeded: bool,
                include_rehearsals: bool) -> list[dict]:
        """``latest_per_point`` of the rows ``where`` matches."""
        where, by = _latest_groups(where, ref, before, succeeded, include_rehearsals)
        return self._records(_records_of(_first_of_each(where, by)))

    def unordered_latest(self, latest: list[dict], config_key: str | None = None, ref: str | None = None, *,
                         include_rehearsals: bool = True) -> list[tuple[dict, dict]]:
        """Of ``latest`` (what ``latest_per_point`` gave with these arguments, or some of it), each record taken
        as its point's newest over another of the point whose order against it is not known (``R.unordered``:
        a time without its zone against one with a zone within ``R.ZONE_SPAN`` of it): (the one taken, the
        nearest such other). Only the rows whose time was written without its zone are looked through (few
        stores hold any), and those with a zone near a newest without one."""
        where, by = _latest_groups([] if config_key is None else [results.c.config_key == config_key], ref, None,
                                   False, include_rehearsals)
        group = lambda rec: _latest_group(rec, ref is None)  # noqa: E731
        taken = {group(rec): rec for rec in latest}
        naive = [rec for rec in self._records(_records_of(_first_of_each([*where, _without_zone()], by)))
                 if R.zoned(R.happened(rec)) is False and group(rec) in taken]
        pairs = [(taken[group(rec)], rec) for rec in naive if R.unordered(taken[group(rec)], rec)]
        newest_naive = [rec for rec in naive if R.happened(taken[group(rec)]) == R.happened(rec)]
        if newest_naive:  # the newest is without a zone: the newest with one below it, when it is near
            try:  # text: a time with a zone is stored in UTC, ordered among these by its reading
                reach = [_happened() >= (min(R.moment(R.happened(r)) for r in newest_naive) - R.ZONE_SPAN).isoformat()]
            except OverflowError:  # near year 1
                reach = []
            near = [*where, _happened().like("%+00:00"), *reach]
            others = {group(rec): rec for rec in self._records(_records_of(_first_of_each(near, by)))}
            pairs += [(taken[group(rec)], others[group(rec)]) for rec in newest_naive
                      if group(rec) in others and R.unordered(taken[group(rec)], others[group(rec)])]
        order = {id(rec): n for n, rec in enumerate(latest)}
        return sorted(pairs, key=lambda pair: order[id(pair[0])])  # in the order of ``latest``


class Deferred:
    """The store an ingest writes to, opened (created, migrated) at its first ``add``: an ingest
    whose every input is refused leaves no new database behind. The URL is checked at once."""

    def __init__(self, url: str | None = None, root: Path | None = None):
        self.url = resolve_url(url, root)
        _check_url(self.url)
        check_sqlite_target(self.url)
        self._store: Store | None = None

    def add(self, records: list[dict], **kwargs) -> int:
        if self._store is None:
            self._store = open_store(self.url)
        return self._store.add(records, **kwargs)

    @property
    def opened(self) -> bool:
        return self._store is not None

    @property
    def store(self) -> Store | None:
        """The store, once an ``add`` opened it."""
        return self._store

    def __enter__(self) -> "Deferred":
        return self

    def analyze(self) -> None:
        """Once the ingest is through: the planner's statistics of the PostgreSQL store it opened (``_analyze``),
        also when it stored nothing new: it may finish an ingest stopped before it analyzed (Ctrl-C)."""
        if self._store is not None:
            _analyze(self._store.engine)
            self._store.engine.dispose()

    def __exit__(self, *exc) -> None:
        if self._store is not None:
            self._store.engine.dispose()


def _analyze(engine: sa.Engine) -> None:
    """PostgreSQL: gather the planner's statistics of the results table, which an ingest has just grown. Its
    autovacuum does so within a minute or so; a `results show` or `compare` run before that (the next step of
    the job that ingested) was planned without them, and a fresh store's newest-per-point query over 2,000 jobs'
    rows ran for minutes, not a second (s39o). Statistics only make reading faster: a role that may not analyze
    the table (PostgreSQL then warns and goes on), or a failure, leaves them as they were; so does the table's
    lock held by another (a VACUUM, a CREATE INDEX CONCURRENTLY, another ingest's ANALYZE, an anti-wraparound
    autovacuum, for as long as it runs), which ANALYZE would wait for: the ingest never exited (s40l). It skips
    the table then (SKIP_LOCKED, PostgreSQL 12+), and waits ANALYZE_LOCK_WAIT at most for any lock (older
    servers: the table's too)."""
    if engine.dialect.name != "postgresql":
        return
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{ANALYZE_LOCK_WAIT}'")
            skip = " (SKIP_LOCKED)" if (conn.dialect.server_version_info or (0,)) >= (12,) else ""
            conn.exec_driver_sql(f"ANALYZE{skip} {results.name}")
    except sa.exc.SQLAlchemyError:
        pass


def open_store(url: str | None = None, root: Path | None = None, *, must_exist: bool = False) -> Store:
    """Open (creating and migrating as needed) the store at ``url`` (see ``resolve_url``). With
    ``must_exist`` (a command that only reads), a SQLite file that is not there is refused, not
    created empty: a mistyped --db would otherwise read as "no results"."""
    url = resolve_url(url, root)
    try:
        store = Store(url, must_exist=must_exist)
    except NotAStore:
        raise _not_a_store(url) from None
    try:
        if not must_exist:
            _remove_dead_parts(store.engine.url)
        made = _new_sqlite_file(store.engine.url)
        if made is not None:
            _create_sqlite(made)
        _retry_busy(lambda: _migrate(store.engine, create=not must_exist))
    except BaseException as exc:
        store.engine.dispose()
        said = _open_failure(store, exc)
        if said is None:
            raise
        raise said from None
    return store


def _open_failure(store: Store, exc: BaseException) -> StoreError | None:
    """What ``open_store`` says of a failure to open, create or migrate ``store`` (None: raised as it is)."""
    shown = display_url(store.url)
    if isinstance(exc, NotAStore):
        return _not_a_store(store.url)
    if isinstance(exc, ForeignDatabase):
        return url_fail(shown, foreign_message(exc.names), SQLITE_FOREIGN_HINT
                    if store.engine.dialect.name == "sqlite" else PG_FOREIGN_HINT)
    if isinstance(exc, SchemaNotUpgraded):
        return url_fail(shown, f"the store's schema (revision {exc.current}) is older than this "
                    f"sweepgate's ({exc.head}) and could not be upgraded: {_detail(exc.exc)}",
                    "run any `sweepgate results` command on it once with write access (its owner, a copy you "
                    "can write) to upgrade it, or read it with the sweepgate that wrote it; nothing was changed")
    if isinstance(exc, VersionLost):
        return version_lost(store.url, exc)
    if isinstance(exc, SchemaTooNew):
        return url_fail(shown, f"the store's schema (revision {exc.current}) is newer than this "
                    f"sweepgate's ({exc.head})", "upgrade sweepgate (pip install -U) to the version that wrote "
                    "it; nothing was changed")
    if isinstance(exc, (sa.exc.SQLAlchemyError, OSError)):
        return database_error(store.url, exc, reading=store.reading)
    return None
