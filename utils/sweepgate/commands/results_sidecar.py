"""`sweepgate results sidecar`: write the job sidecar from the job's environment (CONTRACTS section 8).

The benchmark workflow's last step, run ``if: always()`` so a failed script
still leaves one. Reads only the environment: the row (``ROW``, or ``ROW_ID``
in ``MATRIX_FILE``), ``RESULT_DIR``/``RESULT_FILENAME`` (from ``ci row-env``),
``GITHUB_RUN_ID``, ``GITHUB_RUN_ATTEMPT``, ``GITHUB_SHA``, ``GITHUB_REF``,
``RUNNER_NAME``, ``JOB_STARTED``, ``JOB_STATUS`` (``job.status``) and,
when the caller knows it, ``CONFIG_KEY``. ``JOB_CONTEXT_FILE`` (``ci split --job-context``,
in the run's matrix artifact) gives the row's config key by ``ROW_ID`` and the sweep's ref
and commit: a PR's sweep runs as a dispatch on main, but its results are the PR's
(refs/pull/N/head at the head SHA), never main's. The run identity (``core.identity``) hashes the
files in the working directory (the approved commit) and the launchers under ``--tools``.
Nothing is guessed: a JOB_CONTEXT_FILE named but not readable, a GITHUB_RUN_ATTEMPT or
JOB_STATUS that GitHub never sets, a row ``ci row-env`` refuses or a RESULT_DIR that cannot be
a folder is one line and exit 1, and no sidecar is written. A file the run identity hashes that is
there but cannot be read (when ``ci row-env`` gave no identity) is one line and exit 1 too, but the
sidecar is written, without a run identity: the job's results are recorded, and never reused.

First of all it removes every symbolic link among what the next steps upload (the job's files by
their exact names, the logs folder and all below it, RESULT_DIR itself): upload-artifact follows
links, so a link the benchmark left there, even from inside its container, would upload a file
of the runner host. Each removed link is one error line; the sidecar is still written, and the
step then fails (exit 1) so the job shows it. A link it cannot remove (in a folder the container
made as root) sets SWEEPGATE_UPLOAD_HELD in $GITHUB_ENV, and the templates upload nothing.
"""

from __future__ import annotations

import os
import sys

from sweepgate.commands import argtypes
from sweepgate.core.errors import fail, is_a_folder
from sweepgate.core.jobfile import CONTEXT_ENV

STATUS_ENV, STARTED_ENV, CONFIG_KEY_ENV = "JOB_STATUS", "JOB_STARTED", "CONFIG_KEY"
ATTEMPT_ENV = "GITHUB_RUN_ATTEMPT"
UPLOAD_LINK_RULE = "upload-link"  # the title of a symbolic link in the folder to upload


def add_arguments(parser) -> None:
    parser.add_argument("--rehearsal", action="store_true", help="mark the job as a rehearsal")
    parser.add_argument("--tools", type=argtypes.not_empty, metavar="DIR",
                        help="checkout the launchers and configs/runners.yaml came from (the benchmark job's "
                             "main checkout, .sweepgate-main; default: the repository's top); the run identity "
                             "hashes the files the job ran")


def _identity(row: dict, tools: str | None) -> str | None:
    """The run identity `ci row-env` took before the benchmark ran (none when it took none: the files now
    may be what the benchmark's container wrote), else, with no row-env before, the one of the files now."""
    from sweepgate.core import fields
    from sweepgate.core.identity import job_identity

    taken = os.environ.get(fields.RUN_IDENTITY_ENV)
    if taken == fields.NO_RUN_IDENTITY:
        return None
    return taken or job_identity(row, tools)


def _row() -> dict:
    from sweepgate.core.jobenv import check_row
    from sweepgate.workflow.fanout import job_row

    row = job_row(os.environ.get("ROW", ""), os.environ.get("ROW_ID", ""), os.environ.get("MATRIX_FILE"))
    check_row(row, "ROW" if os.environ.get("ROW") else os.environ.get("MATRIX_FILE", "ROW"))
    return row


def _status() -> str:
    """``job.status``, one of jobfile.STATUSES (what GitHub's job.status can be)."""
    from sweepgate.core import jobfile

    status = os.environ.get(STATUS_ENV, "").lower()
    if status not in jobfile.STATUSES:
        what = f"{status!r} is not a job status" if status else "not set"
        raise fail(STATUS_ENV, 0, f"{what}: expected one of {', '.join(jobfile.STATUSES)}",
                   "set JOB_STATUS: ${{ job.status }} on the sidecar step")
    return status


def _attempt() -> int:
    """``GITHUB_RUN_ATTEMPT`` (1 when unset, as outside Actions): a whole number the store can hold."""
    from sweepgate.results.record import MAX_INTEGER

    text = os.environ.get(ATTEMPT_ENV) or "1"
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_INTEGER):
        raise fail(ATTEMPT_ENV, 0, f"{text!r} is not a run attempt (a whole number from 1 to {MAX_INTEGER})",
                   "leave GITHUB_RUN_ATTEMPT as the runner sets it")
    return int(text)


def _context() -> tuple[str | None, str | None, str | None]:
    """(config key, ref, commit) of this job: $JOB_CONTEXT_FILE first, then CONFIG_KEY, GITHUB_REF, GITHUB_SHA."""
    from sweepgate.core import jobfile

    env, doc = os.environ, {}
    path = env.get(CONTEXT_ENV, "")
    if path:  # named but missing or unreadable: refused, never filed under GITHUB_REF (a PR's under main)
        from sweepgate.workflow.fanout import load_json

        doc = load_json(path, "job context")
    if not isinstance(doc, dict):
        raise fail(path, 1, "the job context is not a JSON object", "write it with `sweepgate ci split --job-context`")
    keys = doc.get(jobfile.CONTEXT_CONFIG_KEYS)
    key = env.get(CONFIG_KEY_ENV) or (keys.get(env.get("ROW_ID", "")) if isinstance(keys, dict) else None)
    return (key or None, doc.get(jobfile.REF) or env.get("GITHUB_REF") or None,
            doc.get(jobfile.COMMIT) or env.get("GITHUB_SHA") or None)


def _make_folder(folder: str) -> None:
    """RESULT_DIR, made when missing; one line when it cannot be (a file there, no permission)."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        what = "is a file, not a folder" if os.path.isfile(folder) else f"cannot be made: {exc.strerror}"
        raise fail(folder, 0, f"RESULT_DIR {what}", "set RESULT_DIR to a writable folder (`sweepgate ci row-env` "
                   "sets it)") from None


JOB_ENV_RULE = "job-env"  # the rule of a job environment value the sidecar refuses

_FAILED = object()  # what _collect returns for a check that refused


def _collect(problems: list, check, *args):
    """``check(*args)``, or _FAILED with its diagnostics added to ``problems``: every wrong variable
    is named in one run, not one per run."""
    from sweepgate.core.errors import SweepgateError

    try:
        return check(*args)
    except SweepgateError as exc:
        problems.extend(exc.diagnostics)
        return _FAILED


def run(args) -> int:
    from sweepgate.core import fields, jobfile
    from sweepgate.core.errors import SweepgateError, emit

    env = os.environ
    name, folder = env.get(fields.RESULT_FILENAME_ENV), env.get(fields.RESULT_DIR_ENV)
    problems: list = []
    if missing := [var for var, value in ((fields.RESULT_DIR_ENV, folder), (fields.RESULT_FILENAME_ENV, name))
                   if not value]:  # the one missing, not both when one is set (new-user28)
        problems.extend(fail(missing[0], 0, f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set",
                             "run `sweepgate ci row-env` first").diagnostics)
    named = bool(name and folder) and _collect(problems, _check_name, name) is not _FAILED
    if named and os.path.isfile(folder) and not os.path.islink(folder):  # a link goes in _drop_links
        _collect(problems, _make_folder, folder)  # a file there: said beside the rest, nothing made
        named = False
    links = _drop_links(folder, name) if named else []  # before anything that can refuse: the uploads run always()
    if links:  # said now: a refusal below must not hide them
        emit(links)
    row, context = _collect(problems, _row), _collect(problems, _context)
    config_key, ref, commit = (None, None, None) if context is _FAILED else context
    run_id, started = env.get("GITHUB_RUN_ID") or "local", env.get(STARTED_ENV) or None
    _collect(problems, _check_values, run_id, ref, commit, started, config_key)
    attempt, status = _collect(problems, _attempt), _collect(problems, _status)
    if problems:
        raise SweepgateError(problems)
    from sweepgate.core.identity import Unreadable

    try:
        identity, unread = _identity(row, args.tools), []
    except Unreadable as exc:  # the job's results are still recorded, with no identity: never reused
        identity, unread = None, exc.diagnostics
    doc = jobfile.build(row, run_id=run_id, attempt=attempt, status=status,
                        config_key=config_key, commit=commit, ref=ref,
                        runner_name=env.get(fields.RUNNER_NAME_ENV) or None,
                        started=started, finished=_finished(started, folder, name), rehearsal=args.rehearsal,
                        run_identity=identity)
    _make_folder(folder)
    path = jobfile.path_for(folder, name)
    jobfile.write(path, doc)
    print(f"sweepgate results sidecar: {path} ({doc[jobfile.JOB][jobfile.STATUS]})", file=sys.stderr)
    if unread:
        emit(unread)
    return 1 if links or unread else 0


def _finished(started: str | None, folder: str, name: str) -> str:
    """When the job's work ended: the newest of its own files (its output, eval scores, GPU samples)
    written since JOB_STARTED (else since ever) and not after now, else now, the step's own time (a
    job that left no file). Read from the files, so a sidecar written again later (`results sidecar`
    by hand) keeps the job's time, never the rewrite's: compare orders baseline runs by it and the
    GPU samples' energy window ends at it. To the second; to the microsecond when the second would
    read as before the start (``date -u +%FT%T.%NZ``), since ingest refuses a job that finished
    before it started."""
    import datetime as dt
    import time

    from sweepgate.core.jobfile import SUFFIX
    from sweepgate.results import record as R

    begun = R.moment(started).timestamp() if started else None  # checked: a time, not after now
    now = time.time()
    written = [_mtime(os.path.join(folder, n)) for n in uploaded_names(name) if not n.endswith(SUFFIX)]
    ended = max((t for t in written if t is not None and (begun is None or t >= begun) and t <= now), default=now)
    at = dt.datetime.fromtimestamp(ended, dt.timezone.utc)
    return at.isoformat() if begun is not None and int(ended) < begun else at.isoformat(timespec="seconds")


def _mtime(path: str) -> float | None:
    """When a regular file at ``path`` was last written; None when there is none (or it is a link)."""
    import stat

    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_mtime if stat.S_ISREG(st.st_mode) else None


def _check_name(name: str) -> None:
    """RESULT_FILENAME is a file name (``ci row-env`` makes it): never a path out of RESULT_DIR."""
    from sweepgate.core import fields

    if "/" in name or "\\" in name or "\0" in name or name in (".", ".."):
        raise fail(fields.RESULT_FILENAME_ENV, 0, f"{name!r} is not a file name", "leave RESULT_FILENAME as "
                   "`sweepgate ci row-env` sets it")


def _check_values(run_id: str, ref: str | None, commit: str | None, started: str | None,
                  config_key: str | None = None) -> None:
    """What GitHub sets, as it sets it, and the config key as the gate takes one (ingest refuses a sidecar with
    another: the job's results would be lost at the collect job); each wrong value on a line of its own, no
    sidecar written."""
    from sweepgate.core.errors import Diagnostic, SweepgateError
    from sweepgate.core.fields import COMMIT_SHA, COMMIT_SHA_SAID, NULL_SHA_SAID, null_sha
    from sweepgate.core.jobfile import is_full_ref
    from sweepgate.core.keypatterns import config_key_problem

    found = []

    def bad(name, value, what, hint):
        found.append(Diagnostic(name, 0, 0, JOB_ENV_RULE, f"{value!r} is not {what}", hint))

    if run_id != "local" and not (run_id.isascii() and run_id.isdigit()):
        bad("GITHUB_RUN_ID", run_id, "a workflow run id (digits)", "leave GITHUB_RUN_ID as the runner sets it")
    if ref is not None and not is_full_ref(ref):
        bad("GITHUB_REF", ref, "a full git ref", "leave GITHUB_REF as the runner sets it (refs/heads/main), or "
            "write the job context with `sweepgate ci split --job-context`")
    if commit is not None and not COMMIT_SHA.fullmatch(commit):
        bad("GITHUB_SHA", commit, f"a full commit SHA ({COMMIT_SHA_SAID})", "leave GITHUB_SHA as the runner sets it")
    elif commit is not None and null_sha(commit):  # GitHub never sets it so; ingest would refuse the sidecar (s48h)
        context = os.environ.get(CONTEXT_ENV)
        from_context = bool(context) and commit != os.environ.get("GITHUB_SHA")
        found.append(Diagnostic(context if from_context else "GITHUB_SHA", 0, 0, JOB_ENV_RULE,
                                f"{commit!r} {NULL_SHA_SAID}",
                                "write the job context with `sweepgate ci split --job-context FILE --commit SHA`, the "
                                "commit the jobs check out" if from_context else
                                "leave GITHUB_SHA as the runner sets it (the commit the job checked out; by hand, git rev-parse "
                                "HEAD), or unset it"))
    if started is not None:
        _check_started(started, bad)
    if config_key is not None and (problem := config_key_problem(config_key)):
        named = CONFIG_KEY_ENV if os.environ.get(CONFIG_KEY_ENV) else os.environ.get(CONTEXT_ENV, CONFIG_KEY_ENV)
        found.append(Diagnostic(named, 0, 0, JOB_ENV_RULE, problem, "set CONFIG_KEY to the key of the config the row "
                                "is of, or leave it unset for the job context's (`sweepgate ci split --job-context`)"))
    if found:
        raise SweepgateError(found)


def _check_started(started: str, bad) -> None:
    """JOB_STARTED as ingest reads it (``record.moment``): an ISO 8601 time this machine can place, and
    not after now, the sidecar's ``finished`` (a local time marked ``Z`` on a runner east of UTC): ingest
    refuses a job that finished before it started, so such a sidecar would lose the job's results."""
    import time

    from sweepgate.results import record as R

    how = "set it with `date -u +%Y-%m-%dT%H:%M:%SZ`"
    moment = R.moment(started)
    if moment is None:
        return bad(STARTED_ENV, started, "an ISO 8601 time", how)
    try:
        at = moment.timestamp()
    except (ValueError, OverflowError):  # year 1 or 9999 with an offset: before or after any clock
        return bad(STARTED_ENV, started, "a time in the range of times", how)
    if at > time.time():
        bad(STARTED_ENV, started, "a time before now (the job cannot have started later)",
            f"{how} when the job starts (`date` without -u writes local time, and a `Z` after it reads as UTC)")


def uploaded_names(name: str) -> list[str]:
    """The job's own files the templates upload, by their exact names (CONTRACTS section 8)."""
    from sweepgate.core import jobfile
    from sweepgate.results.formats import gpu_metrics

    return [f"{name}.json", f"{name}{jobfile.EVAL_SUFFIX}.json", f"{name}{jobfile.SUFFIX}",
            f"{name}.{gpu_metrics.FILENAME}"]


def _drop_links(folder: str, name: str) -> list:
    """Make what the uploads take regular files only; one error Diagnostic for each thing that was not.

    A symbolic link among them (RESULT_DIR, an upload name, ``logs/`` or anything below it) is
    removed. What cannot be made safe holds both uploads (``_hold_uploads``): a link that cannot be
    removed, a link in a folder above RESULT_DIR, an upload name that is a folder (the upload would
    take all below it) or a FIFO, socket or device (it would block or read a device)."""
    from sweepgate.core.errors import Diagnostic

    links, unsafe = _not_regular(folder, name)
    hint = "write results and logs as regular files; the upload follows links and takes folders whole"
    out = []
    for link in links:
        target = os.readlink(link)
        try:
            link.unlink()
        except OSError as exc:
            unsafe.append((link, f"is a symbolic link to {target} that cannot be removed ({exc.strerror})"))
        else:
            out.append(Diagnostic(str(link), 0, 0, UPLOAD_LINK_RULE, f"was a symbolic link to {target}; removed, not "
                                  "uploaded", hint))
    for path, what in unsafe:
        out.append(Diagnostic(str(path), 0, 0, UPLOAD_LINK_RULE, f"{what}; nothing is uploaded", hint))
    if unsafe:
        _hold_uploads(f"{len(unsafe)} path(s) among the uploads are not regular files")
    return out


def _not_regular(folder: str, name: str) -> tuple[list, list]:
    """(symbolic links, [(path, what it is)] of other things no upload may take) among the uploads."""
    import stat
    from pathlib import Path

    from sweepgate.core import jobfile

    top = Path(folder)
    links, unsafe = [], []
    above = next((p for p in reversed(Path(os.path.abspath(folder)).parents) if p.is_symlink()), None)
    if above is not None:
        unsafe.append((above, f"is a symbolic link to {os.readlink(above)}, above RESULT_DIR"))

    def look(path: Path, folder_ok: bool) -> None:
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):  # not there (RESULT_DIR a file: refused later)
            return
        if stat.S_ISLNK(mode):
            links.append(path)
        elif stat.S_ISDIR(mode) and folder_ok:
            try:
                entries = sorted(os.listdir(path))
            except OSError as exc:
                unsafe.append((path, f"cannot be read ({exc.strerror})"))
                return
            for entry in entries:
                look(path / entry, True)
        elif not stat.S_ISREG(mode):
            unsafe.append((path, is_a_folder() if stat.S_ISDIR(mode) else "is not a regular file"))

    if top.is_symlink():
        links.append(top)
    else:
        for n in uploaded_names(name):
            look(top / n, folder_ok=False)
        look(top / jobfile.LOGS, folder_ok=True)
    return links, unsafe


def _hold_uploads(why: str) -> None:
    """Tell the templates' upload steps to skip (they run while SWEEPGATE_UPLOAD_HELD is empty)."""
    from sweepgate.core import fields
    from sweepgate.core.atomic import append_text
    from sweepgate.workflow.kv import format_kv

    path = os.environ.get("GITHUB_ENV")
    if path:
        append_text(path, format_kv({fields.UPLOAD_HELD_ENV: why}))
