"""Stored results are immutable: a record added again under a stored key is compared with the stored
one (``_changes``: what sweepgate derives, or a newer version reads more of, is no change) and a different one is
refused (``Immutable``, ``OtherRef``), naming what changed; a job's output takes the place of the placeholder its
sidecar alone made (``_fills``, ``_eval_partners``); and a ref or commit the stored record was stored without is
written in when the same output is given one (``_given_now``, ``Provided``)."""

from __future__ import annotations

import json
import re

import sqlalchemy as sa

from sweepgate.core.errors import Diagnostic, SweepgateError
from sweepgate.core.jobfile import JOB
from sweepgate.results import labels
from sweepgate.results import record as R
from sweepgate.results.store_failures import damaged
from sweepgate.results.store_schema import KEY, _chunks, _is_record, column, results

IMMUTABLE_RULE = "results-immutable"  # the title of a stored result a new one would change
SHOWN_CHANGES = 4  # changed fields a refusal names


class Immutable(SweepgateError):
    """A record differs from the one stored under its (run-id, attempt, result-filename): refused,
    nothing of its batch stored. ``at(path)`` is the diagnostic naming the input file."""

    HINT = (f"results are immutable; ingest the rerun under its own attempt or run id: a job's .job.json says "
            f"them ('{R.ATTEMPT}', '{R.RUN_ID}' under '{JOB}'; a workflow's rerun writes its next attempt), an output "
            "without one takes them as --attempt/--run-id with --row")

    def __init__(self, rec: dict, stored: dict):
        self.record, self.stored = rec, stored
        super().__init__(self.at(f"{R.RUN_ID} {rec.get(R.RUN_ID)}"))

    # Another point under the same key is no rerun: two outputs of one run given one file name
    # (by hand, main-101/c4/result.json and main-101/c8/result.json).
    POINT_HINT = ("each output of one run needs a file name of its own: rename this one "
                  "(after its point, e.g. {eg}) and ingest it again")

    def at(self, path: str) -> Diagnostic:
        rec = self.record
        key = " ".join(f"{f} {rec.get(f)!r}" for f in KEY)
        changed = _changes(self.stored, rec)
        point = _other_point(self.stored, rec, changed)
        if point:
            what = ", ".join(f"{f} {self.stored.get(f)}, this file {rec.get(f)}" for f in point)
            eg = point_file_name(point[0], rec)
            return Diagnostic(path, rec.get(R.SOURCE_LINE) or 0, 0, IMMUTABLE_RULE,
                              f"{key} is already stored for another point ({what})", self.POINT_HINT.format(eg=eg))
        what = ", ".join(changed[:SHOWN_CHANGES]) + (
            f" and {len(changed) - SHOWN_CHANGES} more" if len(changed) > SHOWN_CHANGES else "")
        return Diagnostic(path, rec.get(R.SOURCE_LINE) or 0, 0, IMMUTABLE_RULE,
                          f"{key} is already stored with other values (changed: {what})", self.HINT)


def _other_point(stored: dict, rec: dict, changed: list[str]) -> list[str]:
    """The point fields (R.POINT_IDENTITY) that set a refused record apart from the stored one: those
    ``_changes`` found, and the identity read from the row (a topology, a hardware, a rate) where both
    have it and it differs. Called for a record already refused: it words the refusal, never makes one."""
    return [f for f in R.POINT_IDENTITY if f in changed or (
        f not in RESULT_FIELDS and None not in (stored.get(f), rec.get(f))
        and R.identity(stored, f) != R.identity(rec, f))]


class OtherRef(Immutable):
    """A record of a run the store holds on another ref (``_one_ref_per_run``): refused as ``Immutable``
    is, this file only; ``stored`` carries the ref the run is on."""

    def at(self, path: str) -> Diagnostic:
        run, ref = self.record.get(R.RUN_ID), self.stored[R.REF]
        return Diagnostic(path, self.record.get(R.SOURCE_LINE) or 0, 0, IMMUTABLE_RULE,
                          f"{R.RUN_ID} {run!r} is stored on {ref}, but this output is on {self.record.get(R.REF)}",
                          "a run is of one ref: give this output its own run's id (its .job.json's, or --run-id "
                          f"with --row), or the ref run {run} is on")


# A point field read as a word of its recipe label (labels.recipe_parts' topology, spec, KV offload)
_RECIPE_WORD = {R.TOPOLOGY: 0, R.SPEC_DECODING: 1, R.KV_OFFLOADING: 2, R.KV_OFFLOAD_BACKEND: 2}
_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9.]+")


def point_file_name(field: str, rec: dict) -> str:
    """A short file name after the point field ``field`` that sets ``rec`` apart: its recipe label's
    word for a recipe field (``result-tp8.json``, ``result-spec-mtp.json``), the field glued to a
    number (``result-conc8.json``, ``result-isl2048.json``, ``result-rate2.5.json``), else the value
    itself (a config key, a hardware): each made a safe file name (letters, digits, dots, dashes)."""
    value = rec.get(field)
    if field in _RECIPE_WORD:
        word = labels.recipe_parts(rec)[_RECIPE_WORD[field]]
    elif field == R.REQUEST_RATE:
        word = f"rate{R.rate_key(value) or 'inf'}"
    elif field in (R.CONC, R.ISL, R.OSL):
        word = f"{field}{value}" if value is not None else f"no-{field}"
    else:
        word = str(value) if value not in (None, "") else f"no-{field}"
    return f"result-{_UNSAFE_IN_NAME.sub('-', word).strip('-.') or field}.json"


def _canonical(rec: dict) -> str:
    """A record as the store keeps it (JSON), comparable across a round trip."""
    return json.dumps(rec, sort_keys=True, allow_nan=False)


# Besides the client's measured values: what a job said of itself and which point it measured.
RESULT_FIELDS = (*R.JOB_KEYS, R.CONC, R.ISL, R.OSL, R.EVALS)


def _changes(stored: dict, rec: dict) -> list[str]:
    """What a re-ingest changed of the result itself: the client's measured values and RESULT_FIELDS,
    where both have them (not null). What sweepgate derives (R.DERIVED_METRICS, identity
    read from the row) and fields only the newer version records may differ: upgrading sweepgate
    and ingesting the same outputs again stays a no-op."""
    old, new = json.loads(_canonical(stored)), json.loads(_canonical(rec))
    old_m, new_m = old.get(R.METRICS) or {}, new.get(R.METRICS) or {}
    measured = sorted(m for m in old_m.keys() & new_m.keys() if m not in R.DERIVED_METRICS and old_m[m] != new_m[m])
    # a field the newer version leaves null (a length it no longer claims) is no change either
    # a time an older sweepgate stored as written, or in UTC though written without a zone, is no change when
    # it is the same time (R.same_time)
    return measured + [f for f in RESULT_FIELDS if old.get(f) is not None and new.get(f) is not None
                       and not (R.same_time(old[f], new[f]) if f in R.TIMES else _alike(old[f], new[f]))]


def _alike(old, new) -> bool:
    """A stored field and its re-ingested value agree, entry by entry on what the stored one has
    (eval entries a newer version reads more of, such as higher_is_better or a group's sample
    count, stay a no-op)."""
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return all(_alike(o, n) for o, n in zip(old, new))
    if isinstance(old, dict) and isinstance(new, dict):
        return all(k in new and ((k == R.EVAL_SAMPLES and v is None) or _alike(v, new[k])) for k, v in old.items())
    return old == new


def _one_ref_per_run(rows: list[dict], found: list) -> None:
    """Raise ``OtherRef`` for the first row whose run the store (``found``: its rows of these runs, with
    their ref) or an earlier row holds on another ref: a run is of one ref, and a PR's output ingested
    under a main run's id by mistake would be judged with main's as one run's repeats."""
    refs: dict = {}
    for stored in found:
        if stored.ref is not None:
            refs.setdefault(stored.run_id, stored.ref)
    for row in rows:
        ref = row[column(R.REF)]
        if ref is not None and refs.setdefault(row[column(R.RUN_ID)], ref) != ref:
            raise OtherRef(row["record"], {R.REF: refs[row[column(R.RUN_ID)]]})


def _fills(stored: dict, rec: dict) -> bool:
    """Whether ``rec``, read from a job's output, takes the place of ``stored``, the record its sidecar
    alone made when the output was not there (a job that said success, stored as failed with no
    figures: the artifact copied in two goes, or a download cut short). The placeholder measured
    nothing, so no result changes; the job's own fields must agree but for the status it was given.
    An output that is a failure too (a run that completed nothing) fills it alike: its figures are
    the job's, and `--jsonl` takes it as well (``results_ingest._append``). Eval scores are no change
    either: the placeholder has none (its ``[]`` read as a change, so an eval job's scores never filled it)."""
    return (R.is_placeholder(stored) and not R.is_placeholder(rec)
            and not stored.get(R.METRICS) and not stored.get(R.EVALS)
            and set(_changes(stored, rec)) <= {R.STATUS, R.EVALS})


# What a record's job may be stored without and be given later, by the same output ingested again: the ref a
# sidecar that named none now names (or --row's), the commit --commit or the sidecar now gives. Both are of the job,
# not the measurement: the stored record is the same result, only now on its ref (s48a: kept on no ref, `0 new`).
GIVEN_LATER = (R.REF, R.COMMIT)


class Provided:
    """A stored record (``stored``, as it is now) that its output ingested again gives ``fields`` (of GIVEN_LATER)
    it was stored without; ``record`` is the stored one with them, as the store keeps it from then on."""

    def __init__(self, stored: dict, rec: dict, fields: list[str]):
        self.stored, self.fields = stored, fields
        self.record = {**stored, **{f: rec[f] for f in fields}}


def _given_now(stored: dict, rec: dict) -> list[str]:
    """The fields of GIVEN_LATER that ``stored`` has not (null) and ``rec``, the same result read again, has: a
    stored value is never changed (``_changes`` names one that differs), a null one is no stale value to keep. Not
    for a placeholder's (a job's sidecar alone): its output fills it whole (``_fills``, keeping its ref and commit:
    ``_keep_given``), or it stays behind it."""
    if R.is_placeholder(stored) != R.is_placeholder(rec):
        return []
    return [f for f in GIVEN_LATER if stored.get(f) is None and rec.get(f) is not None]


def _given_by_sidecar(conn, placeholders: list[dict], url: str) -> list[Provided]:
    """A ``Provided`` for each stored row of the jobs of ``placeholders`` (records a job's sidecar alone made, or its
    output cut short, kept out behind that job's stored output: ``_fills``, ``_eval_partners``,
    ``_measurement_partners``) that the placeholder gives a ref or commit (GIVEN_LATER) the row was stored without. A
    job's rows are its output's under the job's result name ``X`` (``X#N`` for each measurement of an output of
    several) and its eval scores' under ``X-eval`` (an eval-only job's, a throughput job's beside its output), or,
    for a placeholder of a cut-short ``X-eval``, those of ``X``; a row is the job's only where every field of the job
    it holds agrees with the sidecar's (``_changes``: the status and eval scores aside, which the placeholder has
    not): a job called ``gsm-eval`` is no cut-short eval of job ``gsm``. The sidecar's job is the stored output's, so
    its ref is theirs too (s50a: a sidecar alone, its job.ref written in after its output was stored on no ref,
    filled in nothing)."""
    out: list[Provided] = []
    for rec in placeholders:
        if not any(rec.get(f) is not None for f in GIVEN_LATER):
            continue
        name = str(rec[R.RESULT_FILENAME])
        bases = {name, *([name[: -len(R.EVAL_SUFFIX)]] if name.endswith(R.EVAL_SUFFIX) else [])}
        for stored in _job_rows(conn, rec, sorted({n for base in bases for n in (base, base + R.EVAL_SUFFIX)}), url):
            if R.is_placeholder(stored) or not set(_changes(stored, rec)) <= {R.STATUS, R.EVALS}:
                continue  # a placeholder: another job's, or one ``_given_now`` gives it as any record
            if fields := [f for f in GIVEN_LATER if stored.get(f) is None and rec.get(f) is not None]:
                out.append(Provided(stored, rec, fields))
    return out


def _job_rows(conn, rec: dict, names: list[str], url: str) -> list[dict]:
    """The stored records of ``rec``'s run and attempt named one of ``names`` (``X``) or a measurement of one
    (``X#N``: an output of several measurements, ``ingest``'s names), whatever job they are of."""
    query = sa.select(results.c.result_filename, results.c.record).where(
        results.c.run_id == rec[R.RUN_ID], results.c.attempt == rec[R.ATTEMPT],
        sa.or_(results.c.result_filename.in_(names),
               *(results.c.result_filename.startswith(f"{n}#", autoescape=True) for n in names)))
    try:
        rows = list(conn.execute(query))
    except ValueError as exc:  # a record column that is no JSON (SQLite keeps it as text)
        raise damaged(url, f"not JSON: {exc}") from None
    out = []
    for row in rows:
        if not any(row.result_filename == n or R.job_of_measurement(row.result_filename) == n for n in names):
            continue  # 'X#draft': no measurement's line of an output X
        if not _is_record(row.record):
            raise damaged(url, f"not a result record: {json.dumps(row.record)[:60]}")
        out.append(row.record)
    return out


def _keep_given(row: dict, placeholder: dict) -> None:
    """The ref and commit (GIVEN_LATER) of ``placeholder`` that ``row``, a job's output taking its place, names none
    of: kept, as a re-ingest keeps them (``Store._check_unchanged``). A ref or commit stored is never taken away (an
    output whose sidecar names none, after its sidecar alone named them, put the job's result back on no ref)."""
    for field in GIVEN_LATER:
        if row["record"].get(field) is None and placeholder.get(field) is not None:
            row["record"][field] = row[column(field)] = placeholder[field]


def _measurement_partners(conn, rows: list[dict], url: str) -> tuple[list[tuple[dict, tuple]], list[dict]]:
    """(rows that fill a stored placeholder of another name, each with its key; placeholders kept out behind their
    job's stored measurements) of a job whose output holds several measurements, stored as ``X#1``, ``X#2``, ...:
    its sidecar alone is stored as ``X``. The output's first measurement takes the placeholder's row and a
    placeholder of a job whose measurements are stored is not stored, as under one name (``_fills``); s51g: the
    placeholder was stored beside them, a failure at one of the job's points."""
    measured = [((row[column(R.RUN_ID)], row[column(R.ATTEMPT)], base), row) for row in rows if not
                R.is_placeholder(row["record"]) and (base := R.job_of_measurement(row[column(R.RESULT_FILENAME)]))]
    stored = _stored_by_key(conn, list(dict.fromkeys(key for key, _ in measured)), url) if measured else {}
    crossed, kept_out, taken = [], [], set()
    for key, row in measured:  # the first measurement the placeholder is its job's takes its row
        if _is_record(old := stored.get(key)) and _fills(old, row["record"]):
            _keep_given(row, old)  # each of the job's measurements
            if key not in taken:
                crossed.append((row, key))
                taken.add(key)
    for row in rows:
        rec = row["record"]
        if R.is_placeholder(rec) and any(
                _fills(rec, old) for old in _job_rows(conn, rec, [str(rec[R.RESULT_FILENAME])], url)
                if R.job_of_measurement(old[R.RESULT_FILENAME]) is not None):
            kept_out.append(row)
    return crossed, kept_out


def _eval_partners(conn, rows: list[dict], url: str) -> tuple[list[tuple[dict, tuple]], list[dict], list[dict]]:
    """(rows that fill a stored placeholder of another name, each with its key; placeholders kept out
    behind their job's stored scores; placeholders kept out beside their job's stored placeholder)
    of an eval-only job, whose sidecar alone is stored as ``X`` and its scores as ``X-eval``
    (``R.eval_partners``; eval28: both were kept, and the job read as failed beside its scores).
    Scores take the placeholder's row, and a placeholder of a job whose scores are stored is not
    stored, as under one name (``_fills``); both are eval records of one point. So is a placeholder
    of a job whose other placeholder is stored (its sidecar alone ``X``, its ``X-eval.json`` cut short;
    evalb30: both were kept, two failures of one job): the job's again, as a re-ingest is."""
    wanted = [((row[column(R.RUN_ID)], row[column(R.ATTEMPT)], other), row)
              for row in rows for other in R.eval_partners(row["record"])]
    if not wanted:
        return [], [], []
    stored = _stored_by_key(conn, [key for key, _ in wanted], url)
    crossed, kept_out, twins, placed = [], [], [], set()
    for key, row in wanted:  # a row's first partner that is its job's places it (a name may have two)
        old = stored.get(key)
        if id(row) in placed or not _is_record(old) or old.get(R.CLIENT) != R.EVAL_CLIENT:
            continue
        if _fills(old, row["record"]):
            _keep_given(row, old)
            crossed.append((row, key))
        elif _fills(row["record"], old):
            kept_out.append(row)
        elif R.is_placeholder(old) and R.is_placeholder(row["record"]) and not _changes(old, row["record"]):
            twins.append(row)
        else:
            continue
        placed.add(id(row))
    return crossed, kept_out, twins


def _stored_by_key(conn, keys: list[tuple], url: str) -> dict[tuple, object]:
    """The stored records of ``keys`` (``KEY``'s values) the store holds, by key: looked up by run id and result
    name, IN_CHUNK keys a statement (a re-ingest of a JSONL of thousands of lines has as many names)."""
    stored = {}
    try:
        for part in _chunks(keys):
            query = sa.select(*(results.c[column(f)] for f in KEY), results.c.record).where(
                results.c.run_id.in_({k[0] for k in part}), results.c.result_filename.in_({k[2] for k in part}))
            stored.update((tuple(r[:len(KEY)]), r.record) for r in conn.execute(query))
    except ValueError as exc:  # a record column that is no JSON (SQLite keeps it as text)
        raise damaged(url, f"not JSON: {exc}") from None
    return stored


def _stored_keys(conn, runs, *more) -> list:
    """The stored rows' ``KEY`` columns and ``more`` columns, of the runs ``runs``, IN_CHUNK runs a statement."""
    key_cols = [results.c[column(f)] for f in KEY]
    return [r for part in _chunks(runs) for r in conn.execute(sa.select(*key_cols, *more)
                                                              .where(results.c.run_id.in_(part)))]


def _same(stored: dict, rec: dict) -> None:
    if _canonical(stored) != _canonical(rec) and _changes(stored, rec):
        raise Immutable(rec, stored)
