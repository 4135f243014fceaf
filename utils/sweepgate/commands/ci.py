"""`sweepgate ci`: the commands behind .github/workflows/run-sweep.yml.

Sub-subcommands:
  decide   which event runs which sweep (skip / trimmed / full), and why
  split    cut the matrix into fan-out chunks that fit GitHub's limits
  row-env  one matrix row -> the CONTRACTS section 6 job environment
  collect  summarize the fan-out jobs' results
  reuse    drop the rows the results store already measured with the same run identity
  dispatch poll open PRs: start authorized GPU sweeps, cancel stale ones (ci_github)
  audit    check the repository's settings that keep PR code off the GPU runners (ci_audit)
  watch    fail-fast: cancel the run at its first failed job (ci_watch)

This module reads the flags, the environment and the files; the decisions are
plain functions in ``sweepgate.workflow`` (``decide``, ``fanout``, ``kv``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

from sweepgate.commands import argtypes
from sweepgate.core.errors import fail, is_a_folder, json_message
from sweepgate.core import jsontext
from sweepgate.core.github import owner_name
from sweepgate.core.fields import JOB_RESULT_DIR, RESULT_DIR_ENV, RESULT_FILENAME_ENV, RUNNER_NAME_ENV, short_sha
from sweepgate.core.report import count
from sweepgate.workflow.decide import decide
from sweepgate.workflow.fanout import (
    FANOUT,
    MAX_JOB_OUTPUT_BYTES,
    MAX_MATRIX_JOBS,
    check_matrix_digest,
    job_env,
    job_row,
    load_json,
    matrix_digest,
    split,
    summarize,
)
from sweepgate.core.atomic import append_text
from sweepgate.workflow.kv import format_kv


def _write_kv(output: str | None, variable: str, values: dict[str, str]) -> None:
    """Append ``values`` to ``--output``, else to the file the workflow names in ``variable``
    (GITHUB_OUTPUT, GITHUB_ENV), else print them; a problem with the file names where it came from."""
    path = output or os.environ.get(variable)
    text = format_kv(values)
    if path and path != "-":  # "-": standard output, as with no file at all
        told = "--output" if output else f"${variable}"
        hint = f"point {told} at a writable file"
        if os.path.isdir(path):
            raise fail(path, 0, f"{told}: {is_a_folder()}", hint)
        append_text(path, text, hint=hint)
    else:
        sys.stdout.write(text)


def _head_message(event_name: str, event: dict, source: str) -> str:
    if event_name == "push":
        return str((event.get("head_commit") or {}).get("message") or "")
    sha = ((event.get("pull_request") or {}).get("head") or {}).get("sha")
    if event_name != "pull_request" or not sha:
        return ""  # workflow_dispatch: authorize reads the head message from the API
    proc = subprocess.run(["git", "log", "-1", "--format=%B", sha], capture_output=True, text=True)
    if proc.returncode != 0:
        raise fail(source, 0, f"cannot read head commit {short_sha(sha)}: {proc.stderr.strip() or 'git failed'}",
                   "check out with fetch-depth: 0, or pass --head-message")
    return proc.stdout


def _merge_base(base: str, head: str) -> str:
    proc = subprocess.run(["git", "merge-base", base, head], capture_output=True, text=True)
    if proc.returncode != 0:
        raise fail("git", 0, f"no merge base of {short_sha(base)} and {short_sha(head)}: {proc.stderr.strip()}",
                   "check out with fetch-depth: 0")
    return proc.stdout.strip()


def _check_event(event: dict, path: str) -> None:
    """Every field decide reads, typed as GitHub documents it (schemas/github-event.schema.json):
    a payload that is not one is refused whole, each wrong field on its line."""
    from sweepgate.core.check import schema_problems
    from sweepgate.core.errors import Diagnostic, SweepgateError
    from sweepgate.workflow.decide import PAYLOAD_FIX, PAYLOAD_RULE

    problems = schema_problems(event, "event")
    if problems:
        raise SweepgateError([Diagnostic(path, 0, 0, PAYLOAD_RULE, f"event payload: {message}", PAYLOAD_FIX)
                              for _, _, message, _ in problems])


_EVENT_FIX = "pass --event-path FILE and --event-name NAME (the webhook's payload and name)"
_EVENT_FLAGS = (("--event-path", "event_path", "GITHUB_EVENT_PATH"), ("--event-name", "event_name", "GITHUB_EVENT_NAME"))


def _decide_problems(args) -> list[str]:
    """The event's flags, each missing one said (cli.argument_problems): both, not --event-path and then
    --event-name once it is given."""
    return [problem for flag, dest, variable in _EVENT_FLAGS
            if (problem := argtypes.variable_missing(flag, getattr(args, dest), variable, _EVENT_FIX))]


def _run_decide(args) -> int:
    event_path, event_name = (argtypes.flag_or_variable(args, flag, getattr(args, dest), variable, _EVENT_FIX)
                              for flag, dest, variable in _EVENT_FLAGS)
    from sweepgate.core.github import step_summary_path

    summary = step_summary_path()  # refused ('-') before any output is written
    event = load_json(event_path, "event payload")
    if not isinstance(event, dict):
        raise fail(event_path, 1, "event payload is not a JSON object", "pass the webhook payload")
    _check_event(event, event_path)
    message = args.head_message
    if message is None:
        message = _head_message(event_name, event, event_path)
    if event_name == "workflow_dispatch":
        from sweepgate.commands.ci_github import dispatch_decision

        decision = dispatch_decision(event, args.repository, args.github_api_url)
    else:
        decision = decide(event_name, event, message, source=event_path)
    if args.merge_base and decision.base_ref and decision.head_ref and event_name == "pull_request":
        decision = replace(decision, base_ref=_merge_base(decision.base_ref, decision.head_ref))
    _write_kv(args.output, "GITHUB_OUTPUT", decision.outputs())
    line = f"sweepgate ci decide: run={decision.outputs()['run']} mode={decision.mode}: {decision.reason}"
    print(line, file=sys.stderr)
    if summary:
        append_text(summary, f"**sweep: {decision.mode}** ({decision.reason})\n")
    return 0


# --- split: the fan-out guard ----------------------------------------------------------

def _run_split(args) -> int:
    if args.job_context:  # a path that cannot be written is said as every output file's is, before any work
        from sweepgate.core.outpaths import writable_file

        writable_file(args.job_context, "--job-context")
    matrix = load_json(args.matrix, "matrix")
    if args.runners:
        from sweepgate.core.check import checked_runners, require_runners_file
        from sweepgate.core.placement import runner_labels
        from sweepgate.workflow.fanout import check_runners

        require_runners_file(args.runners, "--runners",
                             "pass the default branch's checkout (every row's runner must be listed there)")
        main_runners = checked_runners(args.runners)
        check_runners(matrix, runner_labels(main_runners), source=args.matrix, runners=main_runners)
    # The artifact's digest, a job output no later job can change: each benchmark job's `ci row-env` refuses
    # a matrix artifact that is not these bytes (fanout.check_matrix_digest).
    context, missing = _job_context(args, matrix) if args.job_context else (None, [])
    digest = matrix_digest(_read_matrix_bytes(args.matrix), context)
    outputs = split(matrix, max_jobs=args.max_jobs, max_bytes=args.max_bytes, source=args.matrix,
                    canary=args.canary, digest=digest)
    if context is not None:  # first: a context that cannot be written leaves no outputs behind
        from pathlib import Path

        from sweepgate.core.atomic import atomic_write

        atomic_write(Path(args.job_context), context)
        if missing:
            print(f"sweepgate ci split: no config key for rows {', '.join(missing)}", file=sys.stderr)
    _write_kv(args.output, "GITHUB_OUTPUT", outputs)
    used = ", ".join(f"{k}={outputs[k + '_jobs']}" for k in FANOUT if outputs[k + "_jobs"] != "0")
    canaries = outputs["canary_jobs"]
    first = f"; {canaries} {'canary' if canaries == '1' else 'canaries'} first" if args.canary else ""
    print(f"sweepgate ci split: {count(outputs['jobs'], 'job')} ({used or 'none'}){first}", file=sys.stderr)
    return 0


def _read_matrix_bytes(path: str) -> bytes:
    """The matrix file's bytes, as the artifact will carry them (load_json read it a moment ago)."""
    from sweepgate.core.errors import os_failure

    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise os_failure(path, "cannot read the matrix", exc, "check the path") from None


def _job_context(args, matrix: dict) -> tuple[bytes, list[str]]:
    """The job context (core.jobfile), as the file's bytes: each row id's config key, found by expanding the
    configs at the matrix's head revision in --keys-from; the PR's ref (main's only for a push) and the head
    commit. With it, the row ids no config key was found for."""
    from sweepgate.core import jobfile
    from sweepgate.core.rowkeys import matrix_row_keys
    from sweepgate.workflow.fanout import rows_with_ids

    pairs = rows_with_ids(matrix, args.matrix)
    ids, rows = [i for i, _ in pairs], [r for _, r in pairs]
    _check_keys_from(args.keys_from)
    keys = matrix_row_keys(args.keys_from, matrix, rows) if rows else []
    ref = jobfile.pr_ref(args.pr_number) if args.pr_number is not None else (os.environ.get("GITHUB_REF") or None)
    doc = jobfile.context(ref, args.commit or None, dict(zip(ids, keys)))
    missing = sorted(i for i, k in zip(ids, keys) if k is None)
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode(), missing


def _check_keys_from(root: str) -> None:
    """--keys-from names a checkout: one that is none is said at the flag (no `cd` mends it)."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.load import repo_root

    try:
        repo_root(root)
    except SweepgateError as exc:
        raise fail(root, 0, f"--keys-from: {exc.diagnostics[0].message}", "pass the checkout holding the "
                   "matrix's head revision (the default, ., is the current folder's)") from None


# --- row-env: one row -> the job environment ---------------------------------------------

def _run_row_env(args) -> int:
    if args.tools:
        from sweepgate.core.identity import check_tools

        check_tools(args.tools)  # before the row: a wrong path is the first thing to fix
    text = args.row if args.row is not None else os.environ.get("ROW", "")
    row_id = args.row_id if args.row_id is not None else os.environ.get("ROW_ID", "")
    matrix_file = args.matrix or os.environ.get("MATRIX_FILE")
    if not text and row_id and matrix_file:  # the row comes from the run's matrix artifact
        _check_matrix_digest(args, matrix_file)
    row = job_row(text, row_id, matrix_file)
    runner = args.runner_name or os.environ.get(RUNNER_NAME_ENV, "")
    named_at = "--runner-name" if args.runner_name else RUNNER_NAME_ENV  # where a runner outside the pool is said
    result_dir = args.result_dir or os.environ.get(RESULT_DIR_ENV) or JOB_RESULT_DIR
    from sweepgate.core.check import checked_runners, checked_runners_doc
    from sweepgate.core.worktop import enclosing_top

    from sweepgate.core.jobenv import check_pool, check_runtime

    runners_doc = checked_runners_doc(enclosing_top() or ".")
    runners = runners_doc.data if runners_doc is not None else {}
    main_runners = checked_runners(args.tools) if args.tools else runners  # each file read and checked once
    env = job_env(row, runner, result_dir, runners=runners, named_at=named_at)
    check_pool(row, runner, main_runners, named_at, whose="main's " if args.tools else "")  # main's pools when given
    check_runtime(row, env, runners_doc)  # before the job takes the GPUs, not at the arm an hour in
    if args.tools:  # before the benchmark runs: what `results sidecar` records (fields.RUN_IDENTITY_ENV)
        from sweepgate.core.fields import NO_RUN_IDENTITY, RUN_IDENTITY_ENV
        from sweepgate.core.identity import job_identity, job_runners

        env[RUN_IDENTITY_ENV] = job_identity(row, args.tools, job_runners(runners, main_runners)) or NO_RUN_IDENTITY
    _write_kv(args.output, "GITHUB_ENV", env)
    print(f"sweepgate ci row-env: {len(env)} variables for {env[RESULT_FILENAME_ENV]}", file=sys.stderr)
    if args.tools:  # the job's own step, before its benchmark (by hand, a rehearsal's results stay)
        _clear_leftovers(env[RESULT_DIR_ENV], env[RESULT_FILENAME_ENV])
    return 0


def _check_matrix_digest(args, matrix_file: str) -> None:
    """Before anything of the row is read: the matrix artifact must be the one run-sweep.yml's setup job
    published the digest of (--matrix-digest, else $MATRIX_DIGEST, which the templates always set: set and
    empty is a caller that passed none, refused). Neither given (a row looked up by hand): no check."""
    from sweepgate.core.jobfile import CONTEXT_ENV
    from sweepgate.core.fields import MATRIX_DIGEST_ENV

    if args.matrix_digest is not None:
        digest, told = args.matrix_digest, "--matrix-digest"
    elif (digest := os.environ.get(MATRIX_DIGEST_ENV)) is not None:
        told = MATRIX_DIGEST_ENV
    else:
        return
    context = args.job_context or os.environ.get(CONTEXT_ENV) or None
    check_matrix_digest(matrix_file, context, digest.strip(), told)


def _clear_leftovers(folder: str, name: str) -> None:
    """Remove what an earlier job left in ``folder`` (RESULT_DIR) under this job's upload names: a RESULT_DIR the
    host keeps between jobs holds the last job's files of the same row and runner, which a benchmark that wrote
    none would upload as its own. A file or link goes (a link never followed); a folder stays (the sidecar holds
    the uploads while one is there); one that cannot be removed stops the job before the benchmark, said."""
    from sweepgate.commands.results_sidecar import uploaded_names
    from sweepgate.core.errors import os_failure

    removed = 0
    for leftover in uploaded_names(name):
        path = os.path.join(folder, leftover)
        if not os.path.lexists(path) or (os.path.isdir(path) and not os.path.islink(path)):
            continue
        try:
            os.unlink(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise os_failure(path, "cannot remove what an earlier job left under this job's result name", exc,
                             "remove it, or point RESULT_DIR at a folder only the runner writes") from None
        removed += 1
    if removed:
        print(f"sweepgate ci row-env: removed {count(removed, 'file')} an earlier job left in {folder} under this "
              f"job's names ({name}.*), so none is taken for what this job measured", file=sys.stderr)


# --- collect: summarize the run --------------------------------------------------------------

RESULTS_HINT = "set RESULTS to toJSON(needs.*.result)"  # what collect reads: each needed job's result


def _run_collect(args) -> int:
    try:
        results = jsontext.loads(os.environ.get("RESULTS") or "[]")
    except json.JSONDecodeError as exc:
        raise fail("RESULTS", exc.lineno, f"not valid JSON: {json_message(exc)}", RESULTS_HINT) from None
    except RecursionError:
        raise fail("RESULTS", 0, jsontext.NESTED_TOO_DEEPLY, RESULTS_HINT) from None
    if not isinstance(results, list):
        raise fail("RESULTS", 1, "not a JSON list", RESULTS_HINT)
    if args.note:  # before the summary: a --note that cannot be written leaves no summary behind
        from sweepgate.core.outpaths import writable_file

        writable_file(args.note, "--note")
    if os.path.exists(args.results) and not os.path.isdir(args.results):
        raise fail(args.results, 0, "not a folder", "pass --results the folder the result artifacts were downloaded into")
    if not os.path.exists(args.results):  # download-artifact makes none when no job uploaded a result
        print(f"sweepgate ci collect: {args.results}: no such folder, so no job uploaded a result file", file=sys.stderr)
    files = []
    for root, _, names in os.walk(args.results):
        files += [os.path.relpath(os.path.join(root, n), args.results) for n in names if n.endswith(".json")]
    if os.path.isdir(args.results) and not files:  # as a missing folder is: nothing to collect is no failure
        print(f"sweepgate ci collect: {args.results}: no result file in it, so no job uploaded one", file=sys.stderr)
    text, ok = summarize([str(r) for r in results], files)
    sys.stdout.write(text)
    _note_cancelled(args, [str(r) for r in results], files)
    if not ok:  # exit 0: those jobs mark the run; a 1 here skipped the collect job's ingest, compare and comment
        print("sweepgate ci collect: some jobs failed or were cancelled (the step summary counts them); "
              "the others' results are collected", file=sys.stderr)
    return 0


def _note_cancelled(args, results: list[str], files: list[str]) -> None:
    """A sweep some of whose jobs were cancelled: the paragraph saying so and which jobs' results were kept, in
    the summary and in --note (for the PR comment, `results comment --note`); none is written otherwise."""
    from pathlib import Path

    from sweepgate.core import jobfile
    from sweepgate.core.atomic import atomic_write
    from sweepgate.workflow.fanout import cancelled_note

    statuses = {}
    for name in files:
        if name.endswith(jobfile.SUFFIX):
            statuses[os.path.basename(name)[:-len(jobfile.SUFFIX)]] = _sidecar_status(os.path.join(args.results, name))
    note = cancelled_note(results, statuses, pr=args.pr_number is not None)
    if note is None:
        return
    sys.stdout.write("\n" + note)
    if args.note:
        atomic_write(Path(args.note), note.encode())


def _sidecar_status(path: str) -> str:
    """A downloaded job sidecar's status, under its job object (``{"row": …, "job": {…, "status": …}}``, as
    `results sidecar` writes it); one that cannot be read or holds none is no finished job's ("?")."""
    from sweepgate.core.jobfile import JOB, STATUS

    try:
        with open(path, encoding="utf-8") as fh:
            doc = jsontext.loads(fh.read())
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return "?"
    job = doc.get(JOB) if isinstance(doc, dict) else None
    status = job.get(STATUS) if isinstance(job, dict) else None
    return status if isinstance(status, str) else "?"


# --- reuse: rows the store already measured (CONTRACTS section 9) ------------------------------

def _recorded_under(args, head: str) -> tuple[str | None, str]:
    """The ref and commit reused results are recorded under: the flags (their types check them), else
    GitHub's variables, checked alike (by hand, GITHUB_SHA=abc was stored as the commit)."""
    from sweepgate.core.fields import COMMIT_SHA, COMMIT_SHA_SAID, NULL_SHA_SAID, null_sha
    from sweepgate.core.jobfile import is_full_ref

    if args.pr_number is not None:
        # A PR's sweep is a dispatch on main: GITHUB_REF and GITHUB_SHA are main's, and copies recorded under
        # them would join main's baseline. The PR's ref and the swept commit, as the jobs' sidecars record.
        from sweepgate.core.jobfile import pr_ref

        return args.ref or pr_ref(args.pr_number), args.commit or head
    ref = args.ref or os.environ.get("GITHUB_REF") or None
    commit = args.commit or os.environ.get("GITHUB_SHA") or head
    if ref is not None and not is_full_ref(ref):
        raise fail("GITHUB_REF", 0, f"{ref!r} is not a full ref",
                   "leave GITHUB_REF as the runner sets it (refs/heads/main), or pass --ref")
    if not COMMIT_SHA.fullmatch(commit):
        raise fail("GITHUB_SHA", 0, f"{commit!r} is not a full commit SHA ({COMMIT_SHA_SAID})",
                   "leave GITHUB_SHA as the runner sets it, or pass --commit")
    if null_sha(commit):  # GitHub never sets it so (--commit refuses it too): no report may name it
        raise fail("GITHUB_SHA", 0, f"{commit!r} {NULL_SHA_SAID}",
                   "leave GITHUB_SHA as the runner sets it (the commit the run checked out), or pass --commit")
    return ref, commit


def _reuse_problems(args) -> list[str]:
    """The run the reused results are recorded against, and a --ref that is not --pr-number's, said together
    (cli.argument_problems)."""
    from sweepgate.core.github import RUN_ID_VARIABLE
    from sweepgate.core.jobfile import pr_number_of, pr_ref

    problems = [problem] if (problem := argtypes.variable_missing("--run-id", args.run_id,
                                                                   RUN_ID_VARIABLE, _RUN_ID_FIX)) else []
    if args.pr_number is not None and args.ref is not None and pr_number_of(args.ref) != args.pr_number:
        # A PR's sweep is a dispatch on main: its results are recorded under the PR's ref (_reuse_ref)
        problems.append(argtypes.combination("--ref", f"{args.ref} is not a ref of PR {args.pr_number}",
                                             f"leave it out: with --pr-number {args.pr_number} reused results are "
                                             f"recorded under {pr_ref(args.pr_number)}"))
    return problems


_RUN_ID_FIX = "pass --run-id ID, the run the reused results are recorded against"


def _current_run(args) -> str:
    """The run reused results are recorded against: --run-id, else $GITHUB_RUN_ID (empty: unset).
    Neither is a missing argument, said before anything is read (it was found only once the store
    held something to reuse, exit 1)."""
    from sweepgate.core.github import RUN_ID_VARIABLE

    return argtypes.flag_or_variable(args, "--run-id", args.run_id, RUN_ID_VARIABLE, _RUN_ID_FIX)


def _run_reuse(args) -> int:
    from pathlib import Path

    from sweepgate.core.atomic import atomic_write
    from sweepgate.core.load import open_repo
    from sweepgate.results import reuse
    from sweepgate.results.store import display_url, missing_sqlite, open_store, resolve_url, store_named

    run_id = _current_run(args)
    matrix = load_json(args.matrix, "matrix")
    from sweepgate.workflow.fanout import rows_by_kind

    rows_by_kind(matrix, args.matrix)  # the shape: buckets of row objects, each with a runner
    try:
        attempt = int(args.attempt or os.environ.get("GITHUB_RUN_ATTEMPT") or 1)
    except ValueError:
        raise fail("GITHUB_RUN_ATTEMPT", 0, "not an integer", "pass --attempt N") from None
    git = open_repo()
    head = git.resolve(args.head_ref, "--head-ref")
    ref, commit = _recorded_under(args, head)
    from sweepgate.core.outpaths import writable_file

    writable_file(args.out, "--out")  # before the store records anything: those records need the matrix
    if missing := missing_sqlite(resolve_url(args.db)):
        # Nothing to reuse, and no empty store made: a mistyped --db would read as "no results" for ever.
        atomic_write(Path(args.out), (json.dumps(matrix) + "\n").encode())
        print(f"sweepgate ci reuse: no results store at {store_named(missing)}: nothing reused", file=sys.stderr)
        jobs = sum(len(rows) for rows in rows_by_kind(matrix, args.matrix).values())
        print(f"reused 0 of {jobs} jobs (0 GPU-hours saved)")
        return 0
    with open_store(args.db) as store:
        found = reuse.find(matrix, git, head, store, args.max_age_days, args.pr_number)
        records = reuse.reused_records(found, run_id=run_id, attempt=attempt,
                                       ref=ref, commit=commit)
        remaining = reuse.remaining_matrix(matrix, found)
        # Recorded first: a store that refuses the records leaves no REMAINING.json (a matrix without
        # rows whose results this run never got); a re-run of this step keeps what it recorded first.
        store.add(records, keep_stored=True)
        atomic_write(Path(args.out), (json.dumps(remaining) + "\n").encode())
        where = display_url(store.url)
    if found.reused:
        print(f"sweepgate ci reuse: the reused results are in {where}", file=sys.stderr)
    for line in found.blind_lines() + found.moving_lines():
        print(f"sweepgate ci reuse: {line}", file=sys.stderr)
    if lines := reuse.origin_lines(found):  # the step summary's: which rows, measured by which run
        print("\n".join(lines) + "\n")  # a list, then a paragraph of its own
    print(found.summary())
    return 0


# --- CLI ----------------------------------------------------------------------------------------

def _add_reuse_parser(sub) -> None:
    p = sub.add_parser("reuse", help="drop the rows whose run identity the store already measured; record "
                       "their results against this run (CONTRACTS section 9)")
    argtypes.add_db_argument(p)
    p.add_argument("--matrix", type=argtypes.not_empty, required=True, help="the run's matrix JSON")
    p.add_argument("--out", type=argtypes.output_file, required=True,
                   help="where to write the matrix of the rows that still run")
    p.add_argument("--max-age-days", type=argtypes.number_above(0), default=None,
                   help="reuse only results this recent")
    p.add_argument("--head-ref", type=argtypes.not_empty, default="HEAD",
                   help="revision whose files the jobs would run (default HEAD)")
    p.add_argument("--pr-number", metavar="N", type=argtypes.pull_request_or_none, default=None,
                   help="a PR's sweep: reuse only that PR's own earlier results, recorded under refs/pull/N/head "
                   "at --head-ref (default: none, a push: any ref's)")
    p.add_argument("--run-id", type=argtypes.not_empty, help="the current run (default: $GITHUB_RUN_ID)")
    p.add_argument("--attempt", type=argtypes.digits, help="the current attempt (default: $GITHUB_RUN_ATTEMPT, else 1)")
    p.add_argument("--ref", type=argtypes.full_ref, help="the current run's ref (default: $GITHUB_REF)")
    p.add_argument("--commit", type=argtypes.commit,
                   help="the current run's commit (default: $GITHUB_SHA, else --head-ref)")
    p.set_defaults(_ci=_run_reuse, _argument_problems=_reuse_problems)


def _add_split_parser(sub) -> None:
    p = sub.add_parser("split", help="matrix JSON -> fan-out chunk outputs within GitHub's limits")
    p.add_argument("--matrix", type=argtypes.not_empty, required=True, help="the JSON `sweepgate matrix` (process_changelog.py) printed")
    p.add_argument("--runners", type=argtypes.not_empty, metavar="ROOT",
                   help="checkout whose configs/runners.yaml must list every row's "
                   "runner (the default branch's, on the GPU side)")
    p.add_argument("--max-jobs", type=argtypes.int_between(1, MAX_MATRIX_JOBS), default=MAX_MATRIX_JOBS,
                   help=f"rows per chunk (default {MAX_MATRIX_JOBS})")
    p.add_argument("--max-bytes", type=argtypes.int_between(1, MAX_JOB_OUTPUT_BYTES), default=MAX_JOB_OUTPUT_BYTES,
                   help=f"job output budget, UTF-16 bytes (default and most {MAX_JOB_OUTPUT_BYTES})")
    p.add_argument("--canary", action="store_true", help="first run one row per (runner pool, script, KV-offload "
                   "arm), the lowest conc (outputs canary, canary_multinode); the chunks hold the rest")
    p.add_argument("--output", type=argtypes.not_empty,
                   help="file to append outputs to (default: $GITHUB_OUTPUT, else stdout; '-': stdout)")
    p.add_argument("--job-context", type=argtypes.output_file, metavar="FILE",
                   help="also write the job context (each row id's config key, "
                   "the sweep's ref and commit) for `results sidecar`")
    p.add_argument("--keys-from", type=argtypes.not_empty, metavar="ROOT", default=".",
                   help="git repository holding the matrix's head "
                   "revision, whose configs name each row's key (default: .)")
    p.add_argument("--pr-number", metavar="N", type=argtypes.pull_request_or_none, default="",
                   help="the swept PR: its results go under refs/pull/N/head (default: none, $GITHUB_REF)")
    p.add_argument("--commit", type=argtypes.commit, default=None,
                   help="the commit the benchmark jobs check out (the approved head SHA)")
    p.set_defaults(_ci=_run_split)


def _add_row_env_parser(sub) -> None:
    p = sub.add_parser("row-env", help="matrix row ($ROW, or $ROW_ID in $MATRIX_FILE) -> job environment "
                       "(appends to $GITHUB_ENV)")
    p.add_argument("--row", type=argtypes.not_empty, help="row JSON (default: $ROW)")
    p.add_argument("--row-id", type=argtypes.not_empty, help="<kind>/<index> from `ci split` (default: $ROW_ID)")
    p.add_argument("--matrix", type=argtypes.not_empty,
                   help="the run's matrix.json, for --row-id (default: $MATRIX_FILE)")
    p.add_argument("--matrix-digest", type=argtypes.not_empty, metavar="SHA256",
                   help="the matrix artifact's digest the setup job published (`ci split`'s matrix_digest output): "
                   "refuse a --matrix (and --job-context) that differs (default: $MATRIX_DIGEST, when set)")
    p.add_argument("--job-context", type=argtypes.not_empty, metavar="FILE",
                   help="the job-context.json beside --matrix in the artifact, for --matrix-digest "
                   "(default: $JOB_CONTEXT_FILE)")
    p.add_argument("--runner-name", type=argtypes.not_empty, help="default: $RUNNER_NAME")
    p.add_argument("--result-dir", type=argtypes.not_empty, help=f"default: $RESULT_DIR or '{JOB_RESULT_DIR}'")
    p.add_argument("--output", type=argtypes.not_empty,
                   help="file to append to (default: $GITHUB_ENV, else stdout; '-': stdout)")
    p.add_argument("--tools", type=argtypes.not_empty, metavar="DIR",
                   help="main's checkout (launchers, configs/runners.yaml): also take "
                   "the job's run identity now, before the benchmark can change a file, for `results sidecar`, "
                   "and remove what an earlier job left in RESULT_DIR under this job's result names")
    p.set_defaults(_ci=_run_row_env)


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="ci_command", metavar="ACTION", required=True)
    p = sub.add_parser("decide", help="event -> run/mode/reason outputs (reads GITHUB_EVENT_PATH)")
    p.add_argument("--event-path", type=argtypes.not_empty, help="webhook payload JSON (default: $GITHUB_EVENT_PATH)")
    p.add_argument("--event-name", type=argtypes.not_empty, help="event name (default: $GITHUB_EVENT_NAME)")
    p.add_argument("--head-message", help="head commit message (default: git log of the PR head)")
    p.add_argument("--merge-base", action="store_true", help="use git merge-base of base and head as base_ref")
    p.add_argument("--repository", type=owner_name,
                   help="OWNER/NAME for workflow_dispatch (default: $GITHUB_REPOSITORY)")
    p.add_argument("--output", type=argtypes.not_empty,
                   help="file to append key=value lines to (default: $GITHUB_OUTPUT, else stdout)")
    from sweepgate.core.github import add_api_url_option

    add_api_url_option(p)  # a workflow_dispatch reads the PR's state from the API
    p.set_defaults(_ci=_run_decide, _argument_problems=_decide_problems)

    _add_split_parser(sub)
    _add_row_env_parser(sub)

    from sweepgate.commands import ci_audit, ci_github, ci_watch

    ci_github.add_dispatch_parser(sub)
    ci_watch.add_watch_parser(sub)
    ci_audit.add_audit_parser(sub)

    _add_reuse_parser(sub)
    p = sub.add_parser("collect", help="markdown summary of the run ($RESULTS = toJSON(needs.*.result))")
    p.add_argument("--results", type=argtypes.not_empty, default="results",
                   help="directory of downloaded result artifacts")
    p.add_argument("--note", type=argtypes.output_file, metavar="FILE",
                   help="when jobs of the run were cancelled, also write the paragraph saying so and which jobs' "
                   "results were kept here (for `results comment --note`); nothing is written otherwise")
    p.add_argument("--pr-number", metavar="N", type=argtypes.pull_request_or_none, default=None,
                   help="the swept PR, whose next sweep the note says reuses what was kept (default: none, a push "
                   "to a branch such as main: its next sweep)")
    p.set_defaults(_ci=_run_collect)


def run(args) -> int:
    return args._ci(args)
