"""The job sidecar, ``$RESULT_FILENAME.job.json`` (CONTRACTS section 8).

``{"row": <the matrix row as dispatched>, "job": {config-key, run-id, attempt,
commit, ref, runner-name, started, finished, status, rehearsal}}``, written by
the job itself so it exists even when the benchmark script failed
(``core.jobfile`` builds and writes it). ``read`` checks one; ``local_job``
stands in for an output that has none (its run id is the content hash, so
re-ingesting it adds nothing).
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from sweepgate.core import fields as F
from sweepgate.core import jobfile, keypatterns
from sweepgate.core.errors import SweepgateError, fail, printable
from sweepgate.results import jsonio
from sweepgate.results import record as R

SUFFIX, ROW, JOB, JOB_KEYS = jobfile.SUFFIX, jobfile.ROW, jobfile.JOB, jobfile.JOB_KEYS
LOCAL_RUN_PREFIX = "local-"


@dataclasses.dataclass
class Job:
    """What the job says about itself; ``row`` is None for an output ingested without one."""

    job: dict
    row: dict | None = None
    source: str = ""  # the sidecar's path, for diagnostics


def sidecar_path(output: Path) -> Path:
    """``X.json`` / ``X.jsonl`` / ``X.csv`` -> ``X.job.json``; an eval's ``X-eval.json`` -> ``X.job.json``
    (its job's sidecar) when it has none of its own."""
    stem = output.name.rsplit(".", 1)[0]
    own = output.with_name(stem + SUFFIX)
    if stem.endswith(jobfile.EVAL_SUFFIX) and not own.is_file():
        return output.with_name(stem[: -len(jobfile.EVAL_SUFFIX)] + SUFFIX)
    return own


def output_name(output: Path) -> str:
    """The result name a record of ``output`` is stored under: ``X`` for ``X.json``, ``X-eval`` for an eval."""
    return output.name.rsplit(".", 1)[0]


def is_sidecar(path: Path) -> bool:
    return path.name.endswith(SUFFIX)


def result_name(sidecar: Path) -> str:
    return sidecar.name[: -len(SUFFIX)]


def _check_job(job: dict, path: str) -> None:
    def bad(key: str, what: str, fix: str):
        raise fail(path, 0, f"job.{key}: {what}", fix)

    for key in (R.RUN_ID,):
        if not isinstance(job.get(key), str) or not job[key]:
            bad(key, "missing or not a string", "the workflow writes it from github.run_id")
    attempt = job.get(R.ATTEMPT)
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        bad(R.ATTEMPT, f"expected an integer >= 1, got {attempt!r}", "write github.run_attempt")
    if job.get(R.STATUS) not in R.STATUSES:
        bad(R.STATUS, f"expected one of {', '.join(R.STATUSES)}, got {job.get(R.STATUS)!r}", "write job.status")
    if not isinstance(job.get(R.REHEARSAL, False), bool):
        bad(R.REHEARSAL, "expected true or false", "write a JSON boolean")
    for key in (R.CONFIG_KEY, R.COMMIT, R.REF, R.RUNNER_NAME, R.STARTED, R.FINISHED, R.RUN_IDENTITY):
        if job.get(key) is not None and not isinstance(job[key], str):
            bad(key, f"expected a string, got {job[key]!r}", "write it as a JSON string")
    key = job.get(R.CONFIG_KEY)  # stored, searched and shown as the gate's keys are
    if isinstance(key, str) and (problem := keypatterns.config_key_problem(key)):
        bad(R.CONFIG_KEY, problem, f"write the key of the config the job ran ({F.CONFIG_DIR}/{F.MASTER_GLOB}), as the "
            "benchmark workflow's sidecar step does")
    check_text(job, JOB, path, REWRITE)
    _check_times(job, bad)
    commit = job.get(R.COMMIT)
    if isinstance(commit, str) and not F.COMMIT_SHA.fullmatch(commit) and F.COMMIT_SHA.fullmatch(
            near := commit.strip().lower()):  # s49b: 40 hex digits refused as "not 40 hex digits"
        why = " and ".join([*(["is in upper case"] if near != commit.strip() else []),
                            *(["has spaces around it"] if commit != commit.strip() else [])])
        bad(R.COMMIT, f"{commit!r} is not a full commit SHA as git prints one (it {why})",
            f"write {near}, as git rev-parse HEAD prints it")
    if isinstance(commit, str) and not F.COMMIT_SHA.fullmatch(commit):  # shown and searched as a SHA
        bad(R.COMMIT, f"{commit!r} is not a full commit SHA",
            f"write the commit the job checked out, {F.COMMIT_SHA_SAID} (git rev-parse HEAD)")
    elif isinstance(commit, str) and F.null_sha(commit):  # s48h: the report would say "Measured on commit 000000000000"
        bad(R.COMMIT, f"{commit!r} {F.NULL_SHA_SAID}", "write the commit the job checked out (git rev-parse HEAD)")
    ref = job.get(R.REF)
    if ref == "":  # no short ref to complete (s48a: the fix said `write refs/heads/`)
        bad(R.REF, "'' is not a full ref", "write the ref the job ran on (refs/heads/main for a run of main, "
            "refs/pull/N/head for a PR's), or null for none (stored on no ref, in no baseline)")
    if isinstance(ref, str) and (problem := jobfile.ref_name_problem(ref)):  # s49b: "refs/heads/main " was stored
        near = jobfile.ref_without_spaces(ref) or ("the ref the job ran on as git names it (refs/heads/main for a "
                                                   "run of main, refs/pull/N/head for a PR's)")
        bad(R.REF, f"{ref!r} is no git ref name ({problem})", f"write {near}, as the benchmark workflow's sidecar "
            "step does")
    if isinstance(ref, str) and not jobfile.is_full_ref(ref):  # stored so, no baseline or PR lookup finds it
        bad(R.REF, f"{ref!r} is not a full ref", f"write {jobfile.full_ref_for(ref)} (refs/pull/N/head for a PR), "
            "as the benchmark workflow's sidecar step does")


def _check_times(job: dict, bad) -> None:
    """job.started and job.finished: stored (in UTC where they carry a zone) to order runs by, and the window
    of the job's GPU samples, so each must be a time this machine can place (a time without a zone: its own) and the
    job must not finish before it started (an empty window, an impossible order)."""
    at = {}
    for key in R.TIMES:
        if not isinstance(job.get(key), str):
            continue
        if (moment := R.moment(job[key])) is None:
            bad(key, f"{job[key]!r} is not an ISO 8601 time", "write it as `date -u +%Y-%m-%dT%H:%M:%SZ` does")
        try:
            at[key] = moment.timestamp()
        except (ValueError, OverflowError):  # year 1 or 9999 with an offset: before or after any clock
            bad(key, f"{job[key]!r} is out of the range of times", "write the time the job ran, as "
                "`date -u +%Y-%m-%dT%H:%M:%SZ` does")
    if len(at) == 2 and at[R.FINISHED] < at[R.STARTED]:
        bad(R.FINISHED, f"{job[R.FINISHED]!r} is before job.started {job[R.STARTED]!r}",
            "write the times the job started and finished, from one clock")


def check_text(obj: dict, where: str, path: str, fix: str) -> None:
    """Refuse a string of ``obj`` (a sidecar's row or job, a --row) that holds a control character (as
    ``errors.printable`` escapes them: C0 and DEL, a tab aside): a model, engine, precision, runner label or
    name is stored and shown as the job's identity, and no real one holds an escape sequence, a NUL or a
    line break. ``where``: the object's key in its file ("" for a file that is the row itself)."""
    for name, value in obj.items():
        if isinstance(value, str) and (first := next((c for c in value if printable(c) != c), None)):
            said = f"{where}.{name}" if where else name
            raise fail(path, 0, f"{said}: {value!r} holds a control character ({printable(first)})", fix)


REWRITE = "write it with the benchmark workflow's sidecar step or `sweepgate rehearse`"
# A sidecar whose document is whole but followed by more (``jsonio.loads``' goes_on): written twice, or added to
GOES_ON = (f"the job sidecar holds JSON documents back to back, not one; keep the job's one document and "
           f"remove the others, or {REWRITE}",
           f"the job sidecar goes on after its JSON document ends; remove what follows it, or {REWRITE}")

# A sidecar that goes wrong before its end (``jsonio.stops_early`` not): written as YAML, edited by hand
BROKEN = (f"a job sidecar is one JSON document, {{\"row\": {{...}}, \"job\": {{...}}}}, not YAML or other text; "
          f"{REWRITE}")


def is_sidecar_doc(doc) -> bool:
    """Whether a parsed document has a sidecar's shape: ``{"row": {...}, "job": {...}}``."""
    return isinstance(doc, dict) and isinstance(doc.get(JOB), dict) and isinstance(doc.get(ROW), dict)


def read(path: Path) -> Job:
    """A checked sidecar."""
    from sweepgate.core.jobenv import check_row

    text = jsonio.read_text(path, REWRITE, "check the path and its permissions", limit=jsonio.MAX_INPUT_BYTES)
    doc = jsonio.loads(text, str(path), hint=f"the job sidecar is truncated; {REWRITE}", goes_on=GOES_ON,
                       broken=BROKEN)
    if not is_sidecar_doc(doc):
        raise fail(str(path), 1, "row/job: a job sidecar is {\"row\": {...}, \"job\": {...}}", REWRITE)
    _check_keys(doc, text, str(path))
    try:
        check_row(doc[ROW], str(path), REWRITE)
    except SweepgateError as exc:  # `row's conc "4" ...` at the row's conc key, not at the file's first line
        place_row_problems(exc.diagnostics, text, str(path))
        raise
    try:
        check_text(doc[ROW], ROW, str(path), REWRITE)
        _check_job(doc[JOB], str(path))
    except SweepgateError as exc:  # `job.status: ...` at the status key's line and column, as an output's are
        jsonio.place(exc.diagnostics, text, str(path))
        raise
    job = {key: doc[JOB].get(key) for key in JOB_KEYS}
    job[R.REHEARSAL] = bool(job.get(R.REHEARSAL))
    return Job(job=job, row=doc[ROW], source=str(path))


KNOWN_KEYS = {None: (ROW, JOB), JOB: JOB_KEYS}  # a sidecar's keys, and its job object's


def _check_keys(doc: dict, text: str, path: str) -> None:
    """Refuse the keys the sidecar's format has not (a hand-written ``confg-key``): one line for the
    file, at the first one's place, naming each, with the nearest known key to each that has one
    (review polish26: only the first was named, so a file with three took three runs to fix). Read,
    they would be dropped and their fields stored as unknown. The names are ``core.jobfile``'s."""
    unknown = _unknown_keys(doc, text)
    if not unknown:
        return
    line, col, key, where, near = unknown[0]
    if len(unknown) == 1:
        if not where and key in JOB_KEYS:  # `"rehearsal": true` beside "job", not in it
            fix = f"did you mean '{JOB}.{key}'? move it into the {JOB} object"
        else:
            fix = f"did you mean {near!r}?" if near else f"remove it; {_holds(where)}"
        raise fail(path, line, f"unknown key {key!r}", fix, col=col)
    raise fail(path, line, f"unknown keys {_and([repr(u[2]) for u in unknown])}", _keys_fix(unknown), col=col)


def _unknown_keys(doc: dict, text: str) -> list[tuple[int, int, str, str | None, str | None]]:
    """(line, col, key, object (None: the sidecar's top, else JOB), nearest known key) of each key the
    format has not, in the order they stand in ``text``."""
    import difflib

    from sweepgate.core.jsontext import key_place

    out = []
    for where, obj in ((None, doc), (JOB, doc[JOB])):
        for key in obj:
            if key not in KNOWN_KEYS[where]:
                near = difflib.get_close_matches(str(key), KNOWN_KEYS[where], n=1, cutoff=0.6)
                out.append((*key_place(text, f"{where}.{key}" if where else key), key, where, (near or [None])[0]))
    return sorted(out, key=lambda u: (u[0], u[1]))


def _keys_fix(unknown: list[tuple]) -> str:
    """How to fix several unknown keys: ``did you mean 'config-key' for 'confg-key' and 'finished' for
    'finshed'? move 'rehearsal' into the job object; remove 'zzz' (the job object holds only ...)``."""
    moved = [key for _l, _c, key, where, _n in unknown if not where and key in JOB_KEYS]
    meant = [f"{near!r} for {key!r}" for _l, _c, key, _w, near in unknown if near and key not in moved]
    parts = [f"move {_and([repr(k) for k in moved])} into the {JOB} object"] if moved else []
    for level in KNOWN_KEYS:
        gone = [repr(key) for _l, _c, key, where, near in unknown if where == level and not near and key not in moved]
        parts += [f"remove {_and(gone)} ({_holds(level)})"] if gone else []
    return " ".join(filter(None, (f"did you mean {_and(meant)}?" if meant else "", "; ".join(parts))))


def _holds(where: str | None) -> str:
    return f"{'the job object' if where else 'a job sidecar'} holds only {', '.join(KNOWN_KEYS[where])}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def place_row_problems(diagnostics, text: str, path: str, under: str | None = ROW) -> None:
    """Place check_row's refusals (``row's prefill.tp 0 ...``, ``row has no 'tp'``) at the field
    they name inside the row (the sidecar's ``row``; ``under`` None: a file that is the row, as
    ``results ingest --row`` reads), else at the row itself."""
    import re

    from sweepgate.core.jsontext import key_place

    for d in diagnostics:
        if d.file == path:
            named = re.match(r"row's ([\w.-]+)", d.message)
            field = named.group(1) if named else None
            d.line, d.col = key_place(text, ".".join(p for p in (under, field) if p) or None)


def ref_place(path: str) -> tuple[int, int]:
    """(line, column) of the ``job.ref`` key of the sidecar at ``path`` (of its ``job`` key when it has none), where
    the warning that its job names no ref is placed; (0, 0) when it cannot be read now."""
    from sweepgate.core.jsontext import key_place

    try:
        text = jsonio.read_text(path, REWRITE, limit=jsonio.MAX_INPUT_BYTES)
    except SweepgateError:
        return 0, 0
    return key_place(text, f"{JOB}.{R.REF}")


def local_run_id(digest: bytes) -> str:
    """The run id of an output without a sidecar or --row: its content's SHA-256 (``digest``), shortened."""
    return LOCAL_RUN_PREFIX + digest.hex()[:16]


def local_record(rec: dict) -> bool:
    """Whether a stored record is of an output ingested without a sidecar or --row: a content-hash run
    (``local_run_id``) on no ref, in no baseline."""
    return str(rec.get(R.RUN_ID)).startswith(LOCAL_RUN_PREFIX) and rec.get(R.REF) is None


def local_job(content: bytes, row: dict | None = None, *, digest: bytes | None = None, **given) -> Job:
    """A job for an output without a sidecar: given values, else a content-hash run id (``digest``: the
    SHA-256 of ``content`` when the caller has made it already, not made again)."""
    run_id = given.get(R.RUN_ID) or local_run_id(digest or hashlib.sha256(content).digest())
    job = {key: None for key in JOB_KEYS}
    job.update({R.RUN_ID: run_id, R.ATTEMPT: given.get(R.ATTEMPT) or 1, R.REF: given.get(R.REF),
                R.CONFIG_KEY: given.get(R.CONFIG_KEY), R.COMMIT: given.get(R.COMMIT), R.STATUS: R.SUCCESS,
                R.REHEARSAL: False})
    return Job(job=job, row=row)
