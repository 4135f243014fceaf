"""One measurement stored once: a file whose run id is its content's hash stored under another name
(``Copied``) or another run (``SameBytes``), one run read from its own file and from a list of runs (``Alike``),
a grown file kept under its first run, and the records added whose figures or bytes another run's stored record
holds (``Echo``)."""

from __future__ import annotations

import json
import re
from typing import NamedTuple

import sqlalchemy as sa

from sweepgate.core.errors import Diagnostic, SweepgateError
from sweepgate.results import record as R
from sweepgate.results import store_schema
from sweepgate.results.store_failures import damaged
from sweepgate.results.store_immutable import _canonical, _stored_keys
from sweepgate.results.store_schema import ALIKE_BY, KEY, _chunks, _is_record, column, results

SAME_BYTES_RULE = "same-bytes"  # the title of a result file that repeats one stored or ingested already


class Copied(SweepgateError):
    """``add(..., sole=True)``: records whose run the store holds under another file's name. Their run
    id is their file's content hash, so the file is a copy (other name, same bytes) of one stored
    before; stored too, its run would hold one measurement twice, as if repeated. ``names``: the
    stored result file names of the run (``summary.json#1``, one run of a file of several), ``file``
    the name of the file they were read from (``file_of``)."""

    def __init__(self, rec: dict, names: list[str]):
        self.record, self.names, self.file = rec, names, file_of(names[0])
        super().__init__([Diagnostic(f"{R.RUN_ID} {rec.get(R.RUN_ID)}", 0, 0, SAME_BYTES_RULE,
                                     f"already stored as {names[0]!r}", "")])


_ONE_OF_SEVERAL = re.compile(r"#\d+$")  # a result name's ``#N``: one run (a list's entry, a JSONL line) of a file


def file_of(name: str) -> str:
    """The name of the file a result name is of: ``summary.json`` of ``summary.json#2``."""
    return _ONE_OF_SEVERAL.sub("", name)


class Alike(NamedTuple):
    """One measurement that two hashed runs' files hold (``add(..., sole=True)``, ``_one_measurement``):
    ``record`` is not kept (an added record not stored, or a stored one whose row is deleted: ``replaced``),
    ``kept`` is the record that holds it (added, or stored before)."""

    record: dict
    kept: dict
    replaced: bool


def _check_sole(conn, rows: list[dict]) -> set[tuple]:
    """Raise ``Copied`` when the runs of ``rows``, which are to be their runs' only rows, have rows of another
    file; return the keys stored of those runs. Rows of the file itself are no copy: a summary.json stored
    whole (``summary.json#1``, ``#2``) that a later ingest reads for one of its runs alone (its other run's
    run=N.json turned up; s30: that was said to be a copy of summary.json#1 under another name)."""
    stored = {tuple(r) for r in _stored_keys(conn, [row[column(R.RUN_ID)] for row in rows])}
    files = {file_of(row[column(R.RESULT_FILENAME)]) for row in rows}
    if others := sorted(key[2] for key in stored if file_of(key[2]) not in files):
        raise Copied(rows[0]["record"], others)
    return stored


# What a record says of where it was read from, not of what was measured: its run id, file name, line, and the
# file's SHA-256 (one run read from its own file and from a list of runs, a sweep's summary.json, differs in these).
PROVENANCE = (R.RUN_ID, R.RESULT_FILENAME, R.SOURCE_LINE, R.OUTPUT_SHA256,
              R.REQUEST_SPAN)  # absent from what an older sweepgate stored of the same output


def _measurement(rec: dict) -> str:
    """``rec`` but for where it was read from (PROVENANCE) and its figures (``R.METRICS``, which ``_same_figures``
    compares): the same, field for field, for one run read from its own file and from a list of runs."""
    return _canonical({k: v for k, v in rec.items() if k not in (*PROVENANCE, R.METRICS)})


def _same_figures(old: dict, new: dict) -> bool:
    """Whether two records' figures (``R.METRICS``) are one measurement's: every figure both hold the same, and at
    least one held by both (or neither holds any). A figure one holds alone is one the sweepgate that read the
    other did not read or derive (s43b's peaks, an SGLang line's summed total): a record an older version stored
    and the same output read by a newer one are one measurement, as ``_changes`` has it for one key. Two runs
    measured apart never agree on every figure both hold (throughputs and latency statistics to the last digit),
    so this merges no two measurements (docs/contracts.md)."""
    old_m, new_m = (json.loads(_canonical(rec.get(R.METRICS) or {})) for rec in (old, new))
    shared = old_m.keys() & new_m.keys()
    return all(old_m[m] == new_m[m] for m in shared) and (bool(shared) or old_m == new_m)


def _same_measurement(old: dict, new: dict) -> bool:
    """Whether two records are one measurement, wherever each was read from (``_measurement``, ``_same_figures``)."""
    return _measurement(old) == _measurement(new) and _same_figures(old, new)


def _of_several(rec: dict) -> bool:
    """Whether ``rec`` is one run of a file of several (``summary.json#2``), not read from a file of its own."""
    return bool(rec.get(R.SOURCE_LINE))


def _stored_alike(conn, rows: list[dict], url: str, by: tuple[str, ...] = ALIKE_BY,
                  alike=None) -> list[dict[tuple, dict]]:
    """Of each of ``rows``, the stored records of other runs than those of ``rows`` that hold its measurement, by
    key: the same ``alike`` (``_measurement``; ``_whichever_job`` for ``_echoes``) and the same figures
    (``_same_figures``); looked up by ``by`` (ALIKE_BY: output throughput, model, the client's time; or the first of
    them: through their index), then compared. IN_CHUNK rows a statement, which leaves out those rows' runs; the
    other rows' runs are left out as they are read (in one statement, so many runs would be values without
    bound)."""
    alike = alike or _measurement
    key_cols = [results.c[column(f)] for f in KEY]
    runs = {row[column(R.RUN_ID)] for row in rows}
    found: dict[str, dict[tuple, dict]] = {}  # stored records by ``alike``, then key
    for part in _chunks(rows, once=False):
        where = [results.c.run_id.notin_({row[column(R.RUN_ID)] for row in part})]
        for field in by:
            values, col = {row[column(field)] for row in part}, results.c[column(field)]
            where.append(sa.or_(col.in_(values - {None}), col.is_(None)) if None in values else col.in_(values))
        try:
            stored = [(tuple(r[:len(KEY)]), r.record) for r in conn.execute(sa.select(*key_cols, results.c.record)
                                                                              .where(*where))]
        except ValueError as exc:  # a record column that is no JSON (SQLite keeps it as text)
            raise damaged(url, f"not JSON: {exc}") from None
        for key, old in stored:
            if _is_record(old) and key[0] not in runs:
                found.setdefault(alike(old), {})[key] = old
    return [{key: old for key, old in found.get(alike(row["record"]), {}).items() if _same_figures(old, row["record"])}
            for row in rows]


# What ``_echoes`` looks stored rows up by: the output throughput and model (ALIKE_BY's first two, through its
# index); not the time, which is the job's where a sidecar gives one, not the client's.
ECHO_BY = ALIKE_BY[:2]


class Echo(NamedTuple):
    """A record added whose figures a stored record of another run holds, every one the same (``add(...,
    echoes=...)``): one output stored under two runs' ids, as separate runs never measure. ``same_bytes``: the
    stored one was read from a file of the same bytes (``R.OUTPUT_SHA256``), not only of the same figures."""

    record: dict
    stored: dict
    same_bytes: bool = False


class SameBytes(SweepgateError):
    """``add(..., sole=True)``: the output file of records whose run id is its content's hash is stored under
    another run already (``stored``: that run's record of the file's first measurement), ingested then with
    ``--row`` or under its job: stored again, one output would be two runs' measurements. Nothing is stored."""

    def __init__(self, rec: dict, stored: dict):
        self.record, self.stored = rec, stored
        super().__init__([Diagnostic(f"{R.RUN_ID} {rec.get(R.RUN_ID)}", 0, 0, SAME_BYTES_RULE,
                                     f"already stored as run {stored.get(R.RUN_ID)}'s", "")])


def _first_stored(olds) -> dict:
    """Of stored records of one measurement, the one to name: a job's own before a ``ci reuse`` copy of it, then
    the first run's (``_stored_order``)."""
    return min(olds, key=lambda old: (bool(old.get(R.REUSED_FROM)),
                                      *_stored_order(old.get(R.RUN_ID), old.get(R.RESULT_FILENAME))))


def _stored_order(run_id, result_filename) -> tuple:
    """The order ``_first_stored`` takes a measurement's records in, but for ``ci reuse`` copies: by run
    (``R.run_order``), then result name."""
    return (R.run_order(run_id), str(result_filename))


class _Scan:
    """How far ``_Outputs.first`` has looked at a digest's records, and what it found: of each line (None: of any),
    the first that is its job's own and the first ``ci reuse`` copy."""

    def __init__(self):
        self.done = 0
        self.own: dict[int | None, dict] = {}
        self.copies: dict[int | None, dict] = {}


class _Outputs:
    """The stored records read from an output of the same bytes as one of ``rows`` (``R.OUTPUT_SHA256``, through
    ``ix_results_output``) of runs not in ``apart``; of those, not the rows of a file of ``mine`` (``_file_key``s),
    told by their key before any record is read, nor the ``ci reuse`` copies of the rows' own (``R.measured_by``:
    the original, ingested after a PR copied it, is no copy of the PR's). Rows stored before revision 0006 have
    no SHA-256 and are never found. What is asked of them is the one ``_first_stored`` names of a measurement
    (``first``): its records are read in that order (by run, then result name) and no further than the first that
    is its job's own, so the ``ci reuse`` copies of that job are not read (each was fetched and JSON-decoded, as
    many as the runs that reused it). IN_CHUNK digests a statement; records in pages that grow to IN_CHUNK."""

    def __init__(self, conn, rows: list[dict], url: str, apart=frozenset(), mine=frozenset()):
        self.conn, self.url = conn, url
        self.files = {_file_key(row["record"]) for row in rows}
        digests = sorted({row[column(R.OUTPUT_SHA256)] for row in rows} - {None})
        key_cols = [results.c[column(f)] for f in KEY]
        keyed = [r for part in _chunks(digests) for r in conn.execute(
            sa.select(results.c.id, results.c.output_sha256, *key_cols).where(results.c.output_sha256.in_(part)))
                 if r.run_id not in apart and _file_key({}, tuple(r[2:])) not in mine]
        self.ids = sorted(r.id for r in keyed)  # as stored
        self.named: dict[str, list[int]] = {}  # of each digest, as ``_first_stored`` orders them but for copies
        for r in sorted(keyed, key=lambda r: (*_stored_order(r.run_id, r.result_filename), r.id)):
            self.named.setdefault(r.output_sha256, []).append(r.id)
        self.read: dict[int, dict | None] = {}  # row id -> its record, None when it is passed over
        self.scans: dict[str, _Scan] = {}

    def _record(self, ids: list[int], at: int) -> dict | None:
        """The record of row ``ids[at]`` (None: passed over), read with the next of ``ids`` not read yet, as many
        as were read before (up to IN_CHUNK): the first look-up reads one row."""
        if ids[at] not in self.read:
            page = [i for i in ids[at:] if i not in self.read][:min(store_schema.IN_CHUNK,
                                                                    max(1, len(self.read)))]
            query = sa.select(results.c.id, results.c.record).where(results.c.id.in_(page))
            try:
                found = dict(tuple(r) for r in self.conn.execute(query))
            except ValueError as exc:  # a record column that is no JSON (SQLite keeps it as text)
                raise damaged(self.url, f"not JSON: {exc}") from None
            for i in page:
                old = found.get(i)
                self.read[i] = old if _is_record(old) and _file_key(old, R.measured_by(old)) not in self.files else None
        return self.read[ids[at]]

    def first(self, digest: str, line: int | None = None) -> dict | None:
        """``_first_stored`` of the records of ``digest`` (of its run on ``line``, ``R.output_measured``, when
        given); None when there are none. The records are looked at once, whatever is asked, in that order."""
        ids, scan = self.named.get(digest, []), self.scans.setdefault(digest, _Scan())
        while line not in scan.own and scan.done < len(ids):
            old = self._record(ids, scan.done)
            scan.done += 1
            if old is not None and old.get(R.OUTPUT_SHA256) == digest:
                for group in (None, R.output_measured(old)[1]):  # a job's own before any copy, then the first
                    (scan.copies if old.get(R.REUSED_FROM) else scan.own).setdefault(group, old)
        return scan.own.get(line) or scan.copies.get(line)

    def first_measured(self) -> dict | None:
        """``first`` of the measurement (``R.output_measured``) of the first row stored of all, None when none is."""
        for at in range(len(self.ids)):
            old = self._record(self.ids, at)
            if old is not None and (found := R.output_measured(old)) is not None:
                return self.first(*found)
        return None


def _file_key(rec: dict, key: tuple | None = None) -> tuple:
    """(run id, attempt, the file its result name is of) of ``key``, else of ``rec``'s own (``KEY``)."""
    run, attempt, name = key if key is not None else (rec.get(f) for f in KEY)
    return run, attempt, file_of(name) if isinstance(name, str) else name


def _stored_elsewhere(conn, rows: list[dict], url: str) -> None:
    """Raise ``SameBytes`` when the output of ``rows`` (one hashed file's) is stored under another run."""
    old = _Outputs(conn, rows, url, apart={row[column(R.RUN_ID)] for row in rows}).first_measured()
    if old is not None:
        raise SameBytes(rows[0]["record"], old)


def _whichever_job(rec: dict) -> str:
    """``_stored_alike``'s ``alike`` of ``_echoes``: any record, whichever job it is said to be of (its figures alone
    are compared, ``_same_figures``)."""
    return ""


def _echoes(conn, rows: list[dict], again: list[dict], url: str) -> list[Echo]:
    """Each of ``rows`` newly stored (not among ``again``, the rows stored before) whose output a stored row of
    another run was read from, its bytes the same (``_same_bytes``: ``--run-id 101`` and ``102`` given one output, or
    one ingested without ``--row`` before), else with a throughput whose figures such a row holds (rows stored
    before revision 0006, with no SHA-256); in line order. The stored one named is ``_first_stored``'s."""
    fresh = [row for row in rows if not R.is_placeholder(row["record"])
             and not any(row["record"] is rec for rec in again)]
    if not fresh:
        return []
    bytes_alike = _Outputs(conn, fresh, url, apart={row[column(R.RUN_ID)] for row in fresh})
    out = [Echo(row["record"], old, True) for row in fresh if (at := R.output_measured(row["record"])) is not None
           and (old := bytes_alike.first(*at)) is not None]
    told = {id(echo.record) for echo in out}
    rest = [row for row in fresh if id(row["record"]) not in told and row[column(R.OUTPUT_THROUGHPUT)] is not None]
    stored = _stored_alike(conn, rest, url, ECHO_BY, _whichever_job) if rest else []
    out += [Echo(row["record"], _first_stored(twins.values())) for row, twins in zip(rest, stored) if twins]
    return sorted(out, key=lambda echo: echo.record.get(R.SOURCE_LINE) or 0)


def _copies(conn, rows: list[dict], again: list[dict], url: str) -> list[Echo]:
    """Each of ``rows`` newly stored (not among ``again``) whose output's bytes (``R.OUTPUT_SHA256``, through
    ``ix_results_output``) a stored row of another file holds: of another run, or of this run under another result
    name or attempt (a job's output copied as another job's, ingested apart; one file's rows, a JSONL's lines, are
    not one another's copies). The stored one named is ``_first_stored``'s."""
    fresh = [row for row in rows if not R.is_placeholder(row["record"]) and not any(row["record"] is r for r in again)]
    own = {_file_key(row["record"]) for row in fresh}
    if not own:
        return []
    found = _Outputs(conn, fresh, url, mine=own)  # not the file's own rows (``file_of``'s rule)
    return [Echo(row["record"], old, True) for row in fresh
            if (digest := row[column(R.OUTPUT_SHA256)]) is not None and (old := found.first(digest)) is not None]


def _one_measurement(conn, rows: list[dict], stored: set[tuple], url: str) -> tuple[list[dict], list[Alike], int]:
    """(the rows still to insert, what was done, how many of those take the place of a stored row) for
    ``rows`` of a hashed run (``sole``), of which another hashed run holds the same measurement
    (``_same_measurement``): one `vllm bench sweep` run read from its run=N.json in one ingest and from its
    summary.json (``summary.json#N``) in another, which the store held as two runs' rows, the point
    measured once more than it was (s30). A run's own file is kept, under its own name, and a list's entry
    gives way: the stored rows of entries holding the file's run are deleted (``replaced``), and an entry
    whose run a stored file of its own holds, or another list's stored entry, is not stored (nor kept
    stored: its row is deleted too when a file of its own holds the run). ``stored``: the keys of the
    rows' runs already stored."""
    alike = _stored_alike(conn, rows, url)
    kept, done, gone, taking = [], [], set(), 0
    for row, held in zip(rows, alike):
        rec, key = row["record"], tuple(row[column(f)] for f in KEY)
        twins = [(k, old) for k, old in held.items() if k not in gone]
        own = rec if not _of_several(rec) else next((old for _, old in twins if not _of_several(old)), None)
        losing = [(k, old) for k, old in twins if _of_several(old)] if own is not None else []
        if own is not None and own is not rec and key in stored:
            losing.append((key, rec))  # this entry, stored before beside its run's own file
        for k, old in losing:  # a file of its own holds the run: every list's row of it gives way
            conn.execute(results.delete().where(*(results.c[column(f)] == v for f, v in zip(KEY, k))))
            gone.add(k)
            done.append(Alike(old, own, True))
        if own is rec or not twins or (own is None and key in stored):  # stored, or stored again (a no-op)
            kept.append(row)
            taking += bool(losing) and key not in stored
        elif key not in stored:
            done.append(Alike(rec, own or twins[0][1], False))
    return kept, done, taking


def _continued_run(conn, rows: list[dict], earlier: list[str], url: str) -> None:
    """Give one hashed file's ``rows`` (their records too, in place) the run its first ingest gave it, where the
    store holds one: ``earlier`` (``add``'s) are the run ids the file's content had before it grew, its own first,
    then those of its beginnings, longest first; the first the store holds, with rows of this file's name alone, is
    its run. A file that grows by appended lines (SGLang's bench_serving, `vllm bench serve --append-result`)
    changes its hash, so each ingest stored its new lines under a run of their own (s32b); they are one file's
    runs. A file stored under its own hash (ingested as it is before, or grown before this was done) keeps it. A
    one-line file stored whole (named without ``#1``) and grown holds that row's measurement on its first line:
    that row is made the stored one, a re-ingest of it, not stored again as ``#1``."""
    name, own = file_of(rows[0][column(R.RESULT_FILENAME)]), rows[0][column(R.RUN_ID)]
    names: dict[str, set[str]] = {}
    for run, _, held in _stored_keys(conn, earlier):
        names.setdefault(run, set()).add(held)
    run = next((run for run in earlier if run in names), None)
    if run is None or run == own or any(file_of(held) != name for held in names[run]):
        return
    for row in rows:
        row[column(R.RUN_ID)] = row["record"][R.RUN_ID] = run
    if name not in names[run]:
        return
    query = sa.select(results.c.record).where(results.c.run_id == run, results.c.result_filename == name)
    try:
        whole = next((rec for (rec,) in conn.execute(query)), None)
    except ValueError as exc:  # a record column that is no JSON (SQLite keeps it as text)
        raise damaged(url, f"not JSON: {exc}") from None
    same = next((row for row in rows if _is_record(whole) and _same_measurement(whole, row["record"])), None)
    if same is not None:
        same[column(R.RESULT_FILENAME)] = name
        same["record"].clear()
        same["record"].update(whole)


def _sole(conn, rows: list[dict], earlier: list[str], url: str) -> tuple[list[dict], list[Alike], int]:
    """``_one_measurement`` of the rows of one hashed file, under the run it had before it grew
    (``_continued_run``, with ``earlier``)."""
    if earlier:
        _continued_run(conn, rows, earlier, url)
    stored = _check_sole(conn, rows)
    if not stored:  # not this file ingested again, which its own run holds
        _stored_elsewhere(conn, rows, url)
    return _one_measurement(conn, rows, stored, url)
