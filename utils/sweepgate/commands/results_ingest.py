"""`sweepgate results ingest [--db URL] PATH...`: job outputs -> the results store."""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path

from sweepgate.commands import argtypes
from sweepgate.core import fields as F
from sweepgate.core.errors import EXIT_FAIL_ON, SweepgateError, emit, fail, os_reason, printable
from sweepgate.core.report import count, progress, say
from sweepgate.results.record import MAX_INTEGER, RESULT_FILENAME, RUN_ID, SOURCE_LINE, is_placeholder

PROGRESS_MIN_FILES = 20


STALE_PLACEHOLDER = "stale-placeholder"  # the rule of a --jsonl line a later record supersedes

def add_arguments(parser) -> None:

    parser.add_argument("paths", nargs="+", metavar="PATH", type=argtypes.input_path,
                        help="result files or folders (walked)")
    argtypes.add_db_argument(parser)
    parser.add_argument("--row", metavar="FILE", type=argtypes.not_empty,
                        help="the matrix row (JSON) of an output that has no .job.json (refused when an output has its own)")
    parser.add_argument("--run-id", metavar="ID", type=argtypes.not_empty,
                        help="with --row: the run the output belongs to")
    parser.add_argument("--ref", metavar="REF", type=argtypes.full_ref,
                        help="with --row: the full git ref it ran on (refs/heads/main; refs/pull/42/head for a PR, "
                             "as the workflow stores it)")
    parser.add_argument("--attempt", type=argtypes.int_between(1, MAX_INTEGER), metavar="N",
                        help="with --row: the run attempt (default 1)")
    parser.add_argument("--config-key", metavar="KEY", type=argtypes.config_key,
                        help="with --row: the master-config key of the row")
    parser.add_argument("--commit", metavar="SHA", type=argtypes.commit,
                        help="with --row: the full commit SHA the output measured (git rev-parse HEAD), which "
                             "the report names")
    parser.add_argument("--jsonl", metavar="FILE", type=argtypes.output_file,
                        help="also append the normalized records as JSON lines to FILE (created if missing; "
                             "records it already holds are not added again)")
    cancel = parser.add_mutually_exclusive_group()
    cancel.add_argument("--run-cancelled", action="store_true",
                        help="the outputs are of a workflow run cancelled before it finished (the collect job passes "
                             "it when the run was cancelled): each record is stored marked so, reusable by `ci reuse` "
                             "but in no baseline; with --run-id ID (--attempt N, default 1), with or without --row, "
                             "the results `ci reuse` recorded against that run's attempt are marked too")
    cancel.add_argument("--run-finished", action="store_true",
                        help="with --run-id ID --attempt N: that attempt of the run finished, not cancelled (the "
                             "collect job passes it then): the results of the run's earlier, cancelled attempts that it "
                             "carries (GitHub's Re-run failed jobs runs only the jobs that failed or were cancelled: "
                             "each row's newest job, every record of it a success, and the `ci reuse` copies) are "
                             "un-marked, baseline material again")
    parser.add_argument("--allow-empty", action="store_true",
                        help="a folder with no result files stores nothing and is not an error "
                             "(a sweep whose rows were all reused)")
    parser.add_argument("--fail-on-no-ref", action="store_true",
                        help="exit 3 when results were stored on no ref (outputs with no .job.json and no --row, jobs "
                             "whose .job.json names no ref: no baseline of results compare takes them), after "
                             "storing and saying them")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list the files skipped (helper files beside the jobs' sidecars, CSV exports "
                             "beside their JSON, sweeps' summaries (or their entries) and searches' records beside "
                             "their runs, a vLLM sweep's summary table, warm-ups and failure records, GPU metrics and "
                             "lm-eval's samples logs) and the stored results given a ref or commit, and say again "
                             "the warnings of results stored before (that they are on no ref too)")


def _given(args):
    from sweepgate.results.ingest import Given
    from sweepgate.results import jsonio

    if args.row is None:  # the flags that describe a --row are refused without one (argument_problems)
        return None
    fix = "pass the job's matrix row as a JSON file"
    text = jsonio.read_text(args.row, fix, limit=jsonio.MAX_INPUT_BYTES)
    if not text.strip():  # `sweepgate test-config ... > row.json` whose test-config failed
        from sweepgate.core.jsontext import EMPTY_ROW_FILE

        raise fail(args.row, 1, *EMPTY_ROW_FILE)
    row = jsonio.loads(text, args.row, hint=fix)
    if row is None or row == []:  # `jq '.[0]'` of the `[]` test-config prints when its flags select no row
        what = "null (`jq '.[0]'` of an empty list)" if row is None else "an empty list"
        raise fail(args.row, 1, f"{what}, no row: the command that wrote it found no row", "check its flags "
                   "(`sweepgate test-config --config-keys KEY` alone lists the key's rows; --seq-lens and --conc narrow them)")
    if isinstance(row, list) and len(row) == 1 and isinstance(row[0], dict):
        row = row[0]  # `sweepgate test-config` for one concurrency: a list of the one row it can mean
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.jobenv import check_row

    _refuse_rows_holder(row, args.row)
    from sweepgate.results.sidecar import check_text, place_row_problems

    try:
        check_row(row, args.row, "pass one whole row of `sweepgate matrix`'s output")
    except SweepgateError as exc:  # `row's conc "32" ...` at the conc key of the file, as a sidecar's row is
        place_row_problems(exc.diagnostics, text, args.row, None)
        raise
    try:  # a control character in its precision, framework, runner ...: at that key, as a sidecar's row is
        check_text(row, "", args.row, "pass the row as `sweepgate matrix` wrote it")
    except SweepgateError as exc:
        jsonio.place(exc.diagnostics, text, args.row)
        raise
    return Given(row=row, run_id=args.run_id, ref=args.ref, attempt=args.attempt, config_key=args.config_key,
                 commit=args.commit, row_file=(args.row, text))


def _run_named(args) -> bool:
    """Whether --run-id (and --attempt) name the run of --run-cancelled or --run-finished."""
    return bool((args.run_cancelled or args.run_finished) and args.run_id)


def argument_problems(args) -> list[str]:
    """Flags that need another or cannot go together, argument syntax (exit 2), said together before anything is
    read (cli.argument_problems)."""
    problems = []
    if args.run_finished and not args.run_id:
        problems.append(argtypes.combination("--run-finished", "needs --run-id (and --attempt)", "pass --run-id "
                                             '"$GITHUB_RUN_ID" --attempt "$GITHUB_RUN_ATTEMPT", the attempt that finished'))
    if args.row is None:
        # with --run-cancelled or --run-finished alone, --run-id (and --attempt) name the run (``_mark_copies``,
        # ``_unmark_carried``)
        named = () if _run_named(args) or args.run_finished else (("--run-id", args.run_id),
                                                                  ("--attempt", args.attempt))
        given = [flag for flag, value in (*named, ("--ref", args.ref), ("--config-key", args.config_key),
                                          ("--commit", args.commit)) if value]
        if given:
            problems.append(argtypes.combination(
                given[0], "needs --row (--run-id/--ref/--attempt/--config-key/--commit describe a --row)",
                "pass --row FILE with them, or drop them and use the outputs' .job.json"))
    elif not args.run_id or not args.ref:
        problems.append(argtypes.combination("--row", "needs --run-id and --ref", "pass --row FILE --run-id ID --ref REF"))
    return problems


def _refuse_rows_holder(doc, path: str) -> None:
    """What holds rows but is not one, each said as what it is: the list of several rows `sweepgate
    test-config` and `full-sweep` print, a job sidecar (``sidecar.is_sidecar_doc``) and `sweepgate matrix`'s buckets of rows."""
    from sweepgate.results import sidecar

    if isinstance(doc, list) and len(doc) > 1 and all(isinstance(row, dict) for row in doc):
        raise fail(path, 1, f"a list of {count(len(doc), 'row')} (as `sweepgate test-config` prints them), not "
                            "one row", f"pass the one row this output ran{_pick_hint(doc, path)}")
    if sidecar.is_sidecar_doc(doc):
        raise fail(path, 1, f"a job sidecar ({sidecar.SUFFIX}), not a row",
                   f"put it beside its output as OUTPUT{sidecar.SUFFIX} and ingest without --row, --run-id and --ref")
    bucket = _first_bucket(doc) if isinstance(doc, dict) and F.EXP_NAME not in doc else None
    if bucket:  # `sweepgate matrix`'s output: its buckets of rows
        from sweepgate.core.sweep import matrix_rows

        at, rows = bucket
        raise fail(path, 1, f"a matrix of {count(len(matrix_rows(doc)), 'row')} (as `sweepgate matrix` prints it), "
                            "not one row", f"pass the one row this output ran{_pick_hint(rows, path, at)}")


def _pick_hint(rows: list[dict], path: str, bucket: str = "") -> str:
    """How to pick one of ``rows`` (the list at jq path ``bucket`` of ``path``, or all of it) by the fields they
    differ in (conc first; up to three, scalar ones), with the first row's values for a jq line to edit: ``, told
    apart by conc, tp: e.g. `jq 'map(select(.conc == 4 and .tp == 8))[0]' rows.json > row.json```. `.[0]` takes
    the first row whatever it is (new-user29: the hint said just that, which README warns against); rows that
    differ in no such field, the first of them. A matrix's hint said `.single_node."1k1k"[0]` of a `FILE` (s50g:
    the first row whatever its conc, of a file the user had to name again)."""
    import shlex

    fields = list(dict.fromkeys(field for row in rows for field in row))
    differ = [f for f in fields if all(isinstance(row.get(f), (str, int, float, bool, type(None))) for row in rows)
              and len({json.dumps(row.get(f)) for row in rows}) > 1]
    differ = sorted(differ, key=lambda f: f != F.CONC)[:3]
    if not differ:
        return f", e.g. `jq '{bucket or '.'}[0]' {shlex.quote(path)} > row.json`"
    test = " and ".join(f"{'.' + f if f.isidentifier() else '.' + json.dumps(f)} == {json.dumps(rows[0].get(f))}"
                        for f in differ)
    pipe = f"{bucket} | " if bucket else ""
    return (f", told apart by {', '.join(differ)}: e.g. `jq '{pipe}map(select({test}))[0]' {shlex.quote(path)} > "
            "row.json` with the values of the row it ran")


def _first_bucket(doc, at: str = "") -> tuple[str, list[dict]] | None:
    """The jq path and rows of the first list of rows (dicts with an exp-name) in a matrix's buckets, or None."""
    if isinstance(doc, list):
        rows = [row for row in doc if isinstance(row, dict) and F.EXP_NAME in row]
        if rows and at:
            return at, rows
        return None
    if not isinstance(doc, dict):
        return None
    steps = ((f".{k}" if k.isidentifier() else f".{json.dumps(k)}", v) for k, v in doc.items() if isinstance(k, str))
    return next((found for step, value in steps if (found := _first_bucket(value, at + step))), None)


def _report_skipped(walked, outcome, verbose: bool, held: list[tuple[list[str], object]] = ()) -> None:
    """Files left out, counted (listed with --verbose), not stored: helper outputs in folders of
    sidecar-carrying jobs, CSV exports beside the JSON export of the same run, and files read as ones
    that go with a result, a line for each kind (``foreign.Auxiliary`` and its kinds: GPU metrics,
    lm-eval's samples log, compressed too, AIPerf's other exports; AIPerf's multi-run aggregates; an eval's side files);
    partial copies of jobs (a sidecar alone, an output cut short) whose output an earlier ingest stored;
    and the runs of files of several runs stored once (``outcome.alike``): entries skipped, as their run
    is stored from another file, and rows of entries replaced by their run's own file."""
    for files, noun, why in _skipped_groups(walked, outcome):
        if not files:
            continue
        if verbose:
            for path in files:
                say(f"skipped {path}", sys.stdout)
        print(f"skipped {count(len(files), noun)} {why}")
    replaced = [(a, path if here else _stored_as(a.kept)) for path, a, here in outcome.alike if a.replaced]
    if replaced:  # rows of the store deleted: said as the skipped are (s30)
        if verbose:
            for a, by in replaced:
                say(f"replaced {_stored_as(a.record)} by {by}", sys.stdout)
        print(f"replaced {count(len(replaced), 'result')} stored before from a file of several runs ({SEVERAL_RUNS}) "
              "by the run's own file (a sweep's run=N.json): the same measurement, stored once, under its own "
              "file's name")
    if (outcome.said_before or held) and not verbose:  # --verbose says them again, with the other warnings
        files = len(dict.fromkeys([*(str(path) for path, _ in outcome.said_before),
                                   *(path for paths, _ in held for path in paths)]))
        n = len(outcome.said_before) + len(held)  # ``held``: the no-ref lines, one for their files
        print(f"not repeated: {count(n, 'warning')} of {'a file' if files == 1 else f'{files} files'} whose results "
              f"were stored before (said when they were first stored; --verbose repeats {'it' if n == 1 else 'them'})")


def _skipped_groups(walked, outcome) -> list[tuple[list, str, str]]:
    """Each kind of file ``_report_skipped`` counts: (the files, the noun, why they are passed over)."""
    from sweepgate.results.formats import foreign

    groups = [(walked.skipped, "file", "with no job sidecar (helper outputs)"),
              (walked.twins, "CSV file", "beside a JSON export of the same name (the same run, read from the JSON)"),
              (walked.summaries, "vllm bench sweep summary file", "(summary.json, serve_sla's SLA--*.json: the list "
               "of a point's run=N.json, each run read from its own file)"),
              ([f"{path}#{n}" for path, entries in walked.listed.items() for n in sorted(entries)], "run",
               "of vllm bench sweep summaries (summary.json#N, SLA--*.json#N) read from their own run=N.json instead "
               "(not stored twice; a summary's runs with no file of their own are read from it)"),
              (walked.phase_exports, "AIPerf per-phase export", "(phases/<name>/, named by the phase_manifest.json "
               "beside a run's profile_export_aiperf.json: a warm-up, or the one profiling phase of a run whose own "
               "export is its result)"),
              (walked.pooled, "AIPerf whole-run export", "of several profiling phases (beside its phase_manifest.json: "
               "the phases' requests pooled at their different loads, no one point's figures; each profiling phase's "
               "own export under phases/<name>/ is a result)")]
    groups.append((walked.packed_logs, "compressed lm-eval samples log", "(samples_<task>_<time>.jsonl.gz and the "
                   "like: each answer lm-eval scored, beside its results_<time>.json; no result)"))
    for kind in foreign.BESIDE_KINDS:
        groups.append(([p for p in outcome.beside if outcome.kinds[p] is kind], kind.NOUN, kind.WHY))
    groups.append((list(dict.fromkeys(path for path, _ in outcome.stored_before.values())), "file",
                   "of a job whose output an earlier ingest stored (a partial copy: its sidecar without the "
                   "output, or the output empty or cut short)"))
    groups.append(([f"{path}#{a.record[SOURCE_LINE]} ({_stored_as(a.kept)})" for path, a, _ in outcome.alike
                    if not a.replaced], "run", f"of files of several runs ({SEVERAL_RUNS}) stored before from "
                   "another file, its own or one of several (the same measurement, not stored twice)"))
    return groups


# Files of several runs whose entries (FILE#N) give way to a run's own file (store_dedup._one_measurement)
SEVERAL_RUNS = "a vllm bench sweep's summary.json#N or SLA--*.json#N, an appended JSONL's line #N"


def _stored_as(rec: dict) -> str:
    """A stored record as the lines of ``_report_skipped`` name it: ``summary.json#2 of run local-...``."""
    return f"{rec[RESULT_FILENAME]} of run {rec[RUN_ID]}"


def _count_line(outcome, where: str, opened: bool) -> str:
    """CONTRACTS §8 spells this line for tools that read it: "results" even for one, and stdout's last. Nothing was
    stored when no file was (also: the store refused every file), and no stored result's ref or commit filled in."""
    return (f"ingested {outcome.results} results ({outcome.new} new) into {where}"
            + ("" if opened and (outcome.results or outcome.provided) else "; nothing stored"))


def run(args) -> int:
    from sweepgate.results import ingest, store

    given = _given(args)
    key_warnings = [w for w in [ingest.config_key_warning(args.config_key, given and given.row, given=given)] if w]
    jsonl = Path(args.jsonl) if args.jsonl else None
    if jsonl:
        from sweepgate.core.outpaths import writable_file

        writable_file(args.jsonl, "--jsonl")  # before the store commits anything: the records would not be written
        _held(jsonl)  # a bad FILE is refused before anything is stored
    deferred = store.Deferred(args.db)  # the URL is checked now; the database made at the first result
    walked = ingest.walk(args.paths, allow_empty=args.allow_empty)
    files = walked.files
    fd = _open_jsonl(jsonl) if jsonl else None  # a FILE that cannot be written too (None: a new FILE)
    with deferred as st:
        outcome = ingest.ingest(walked, st, given, progress(len(files), "ingesting", PROGRESS_MIN_FILES, of="files"),
                                run_cancelled=args.run_cancelled)
        where = printable(store.display_url(st.url))  # a path is any bytes: no newline ends the line
    if isinstance(outcome.stopped_by, store.StoreError) and not st.opened:
        # The store could not be opened (no PostgreSQL server there, a folder a new SQLite store cannot
        # be made in): refused in its line, as a SQLite file that is no database is before the walk,
        # with no count line; the files refused before the store was first wanted keep theirs.
        if fd is not None:
            os.close(fd)
        emit([*key_warnings, *walked.warnings, *outcome.warnings, *outcome.problems,  # the walk's refusals first
              *outcome.stopped_by.diagnostics])
        return 1
    problems = [*outcome.problems, *_only_companions(args, files, outcome)]  # the walk's refusals first
    held = _say(args, [*key_warnings, *walked.warnings, *outcome.warnings], outcome, problems)
    _report_skipped(walked, outcome, args.verbose, held)
    _report_provided(outcome.provided, args.verbose)
    last = _count_line(outcome, where, st.opened)
    if jsonl and fd is None and not outcome.records and (problems or outcome.interrupted):
        pass  # a new FILE is made only with records, or empty by an ingest that succeeds (--allow-empty)
    elif jsonl:
        try:  # its "appended N records" line comes before the last
            _append(jsonl, fd, outcome.records, [given for _, given in outcome.provided])
        except BaseException:
            print(last)  # the store holds them whatever became of FILE
            raise
    _mark_copies(args, deferred, outcome.interrupted)  # said before the count line, stdout's last
    _unmark_carried(args, deferred, outcome.interrupted, problems)
    print(last)
    if outcome.interrupted:
        return _stopped(outcome)
    deferred.analyze()  # after the line: a Ctrl-C meanwhile stops a store already written and said (130)
    return 1 if problems else EXIT_FAIL_ON if args.fail_on_no_ref and any(n.new for n in outcome.no_ref) else 0


def _mark_copies(args, deferred, interrupted) -> None:
    """With --run-cancelled and --run-id: mark the results `ci reuse` recorded against that run's attempt (its setup
    job's copies, stored before anyone knew the run would be cancelled) as of a cancelled run, as its outputs are, so
    no baseline reads them (``Store.mark_copies_cancelled``). A SQLite file that is not there holds none: nothing is
    made; a new PostgreSQL database gets its schema, as from any ingest; one that cannot be opened is refused, as an
    ingest's is (exit 1)."""
    if not (args.run_cancelled and args.run_id) or interrupted:
        return
    attempt = args.attempt or 1
    marked = _on_existing_store(deferred, lambda st: st.mark_copies_cancelled(args.run_id, attempt))
    if marked:
        say(f"marked {count(marked, 'result')} `ci reuse` recorded against run {args.run_id} (attempt {attempt}) as "
            "of a cancelled run", sys.stdout)


def _unmark_carried(args, deferred, interrupted, problems: list) -> None:
    """With --run-finished and --run-id: un-mark the records of the run's earlier, cancelled attempts that this
    attempt carries (``Store.unmark_carried``), after its own outputs are stored (a row it ran again is its own
    then). Not when the ingest refused a file or was stopped: such a file may be a job this attempt ran again, whose
    earlier record would be un-marked in its place; one line says so. A SQLite file that is not there holds none."""
    if not (args.run_finished and args.run_id):
        return
    attempt = args.attempt or 1
    if interrupted or problems:
        if problems:
            from sweepgate.core.errors import Diagnostic

            emit([Diagnostic("--run-finished", rule="unmarked-nothing", severity="warning", in_file=False,
                             message=f"un-marked nothing of run {args.run_id}'s earlier attempts: "
                             f"{count(len(problems), 'file')} this ingest refused may be of jobs attempt {attempt} ran "
                             "again", hint="fix them and ingest them again with the same flags")])
        return
    unmarked = _on_existing_store(deferred, lambda st: st.unmark_carried(args.run_id, attempt))
    if unmarked:
        say(f"un-marked {count(unmarked, 'result')} of run {args.run_id}'s earlier attempts that attempt {attempt} "
            "carries (jobs that succeeded and were not run again, and `ci reuse` copies): no longer of a cancelled "
            "run", sys.stdout)


def _on_existing_store(deferred, work):
    """``work(store)`` on the store the ingest wrote or the one its URL names (``_existing_store``), closed after
    when opened here; None when there is none (a new SQLite file this ingest did not make: nothing to mark or
    un-mark, and none made to say so)."""
    st = _existing_store(deferred)
    if st is None:
        return None
    try:
        return work(st)
    finally:
        if st is not deferred.store:
            st.engine.dispose()


def _existing_store(deferred):
    """The store the ingest wrote, or the one its URL names (a new PostgreSQL database gets its schema, as from any
    ingest; one that cannot be opened is refused, exit 1); None for a SQLite file that is not there (nothing made)."""
    import sqlalchemy as sa

    from sweepgate.results import store
    from sweepgate.results.store_url import _sqlite_file

    parsed = sa.engine.make_url(deferred.url)
    if deferred.store is None and parsed.get_backend_name() == "sqlite" and not Path(_sqlite_file(parsed)).exists():
        return None
    return deferred.store or store.open_store(deferred.url)


def _say(args, warnings: list, outcome, problems: list) -> list:
    """Say ``warnings``, those of results stored before (said when first stored: with --verbose), ``problems`` and
    the lines of results on no ref (``_no_ref_warnings``, results stored now only; with --verbose those stored before
    too); return the no-ref lines held back, which the `not repeated:` line counts."""
    again = [d for _, d in outcome.said_before] if args.verbose else []
    no_ref, held = _no_ref_warnings(outcome, args.verbose)
    emit([*warnings, *again, *problems, *no_ref])  # nothing when there is nothing to say
    return held


NO_REF_RULE = "no-ref"  # the title of the lines below under GitHub Actions


def _no_ref_warnings(outcome, verbose: bool) -> tuple[list, list[tuple[list[str], object]]]:
    """(the warnings to say, those held back) of the results of this ingest on no ref (``ingest.on_no_ref``): no
    baseline of `results compare` takes them and no PR's run is matched to them, so a run ingested so is as good as
    lost unless the user is told. One line for the outputs with no sidecar and no --row (under their content's hash),
    one for the jobs whose sidecar names no ref, each at the first such file, counting the others. Not bad input (a
    parser tried on a sample, a look at one's own run, a rehearsal's folder): the exit code stays 0 but under
    --fail-on-no-ref. Said when they are stored, as a file's warnings are: with none of its kind stored now (results
    stored before, read again) the line is held back, counted by the `not repeated:` line as (its files, itself);
    said, it counts the new ones. ``verbose`` says it whenever there are any, counting those stored before too."""
    from sweepgate.results.ingest import on_no_ref

    said, held = [], []
    for raw in (True, False):
        files = on_no_ref(outcome, raw)
        shown = files if verbose else {f: (new, 0) for f, (new, _) in files.items() if new}
        if shown:
            said.append(_no_ref_line(raw, shown))
        before = [f for f, (_, old) in files.items() if old]
        if before and not verbose and not shown:  # a line said counts the new ones alone
            held.append((before, _no_ref_line(raw, {f: (0, files[f][1]) for f in before})))
    return said, held


NO_REF_DOC = "docs/contracts.md §8"  # where the no-ref line's why, and each fix in full, are explained


def _no_ref_line(raw: bool, files: dict[str, tuple[int, int]]):
    """The one warning of ``files`` (each: (results stored now, stored before)) on no ref, one line that fits a
    terminal: what (outputs with no sidecar and no --row, ``raw``, at the first; else jobs whose .job.json names no
    ref, at that file's ref) and the fix, the why left to ``NO_REF_DOC`` (no baseline of `results compare` takes
    them, no PR's run is matched to them; it was all said here, some 600 characters)."""
    from sweepgate.core.errors import Diagnostic
    from sweepgate.core.jobfile import JOB, REF

    first, others = next(iter(files)), len(files) - 1
    n, before = sum(a + b for a, b in files.values()), sum(b for _, b in files.values())
    stored = ("stored before on no ref" if before == n else
              f"stored on no ref, {before} of them before" if before else "stored on no ref")
    of = f" of {count(others + 1, 'output' if raw else 'job')}" if others else ""
    said = f"warning: {count(n, 'result')}{of} {stored}"
    if raw:
        return Diagnostic(first, rule=NO_REF_RULE, severity="warning", in_file=True,
                          message=f"{said} (no .job.json)", hint=f"pass --row FILE --run-id ID --ref REF ({NO_REF_DOC})")
    from sweepgate.results.sidecar import ref_place

    line, col = ref_place(first)
    return Diagnostic(first, line, col, rule=NO_REF_RULE, severity="warning", in_file=True,
                      message=f"{said} (no {JOB}.{REF} in {'their' if others else 'its'} .job.json)",
                      hint=f"write {JOB}.{REF}, ingest again ({NO_REF_DOC})")


SHOWN_VALUES = 3  # the refs (commits) the line of results given a ref (commit) names, then "and N more"


def _report_provided(provided: list, verbose: bool) -> None:
    """The stored results an output read again gave the ref or commit they were stored without (``store.Provided``):
    one line before the last (each listed with --verbose). Nothing else of them changed: counted as no new result."""
    from sweepgate.core.jobfile import COMMIT, REF

    if not provided:
        return
    if verbose:
        for _, given in provided:
            say(f"filled in {_stored_as(given.record)}: "
                + ", ".join(f"{field} {given.record[field]}" for field in given.fields), sys.stdout)
    fields = [f for f in (REF, COMMIT) if any(f in given.fields for _, given in provided)]
    values = [*_some(given.record[REF] for _, given in provided if REF in given.fields),
              *_some(f"commit {given.record[COMMIT][:12]}" for _, given in provided if COMMIT in given.fields)]
    n, them = len(provided), "them" if len(fields) > 1 else "it"
    print(f"filled in the {' and '.join(fields)} of {count(n, 'result')} stored before without {them} "
          f"({', '.join(values)}), as {'its' if n == 1 else 'their'} .job.json or --row gives {them} now; nothing "
          "else of a stored result changes")


def _some(values) -> list[str]:
    """``values`` each once, SHOWN_VALUES of them at most, then how many more."""
    values = list(dict.fromkeys(values))
    more = len(values) - SHOWN_VALUES
    return values if more <= 0 else [*values[:SHOWN_VALUES], f"and {more} more"]


def _only_companions(args, files: list, outcome) -> list:
    """A folder whose every file goes with a result but holds none (GPU metrics, lm-eval samples logs,
    AIPerf's other exports) is a folder with no result files: bad input, as an empty one is, unless
    --allow-empty; each such folder on its own, beside others that hold results, as ``ingest.walk``
    refuses an empty one."""
    from sweepgate.core.errors import Diagnostic
    from sweepgate.results.ingest import NO_RESULTS_FIX

    if args.allow_empty:
        return []
    beside = {Path(p).resolve(): outcome.kinds[p] for p in outcome.beside}
    out = []
    for given in args.paths:
        folder = Path(given).resolve()
        mine = [f for f in files if Path(f).resolve().is_relative_to(folder)] if Path(given).is_dir() else []
        if mine and all(Path(f).resolve() in beside for f in mine):
            kinds = dict.fromkeys(beside[Path(f).resolve()].WHAT for f in mine)  # in the order met
            out.append(Diagnostic(given, 0, 0, "no-results", "no result files in this folder, only files that go "
                                  f"with one ({'; '.join(kinds)})", NO_RESULTS_FIX))
    return out


def _stopped(outcome) -> int:
    """Say why and where an ingest stopped (Ctrl-C, SIGTERM, the database), after what it did report."""
    from sweepgate.core.errors import Terminated

    done, total = outcome.interrupted
    why = outcome.stopped_by
    if isinstance(why, SweepgateError):  # the database failed: its own line, and how far it got if anywhere
        emit(why.diagnostics)
        if not done:
            return 1
    said = "stopped by the database" if isinstance(why, SweepgateError) else (
        why.said if isinstance(why, Terminated) else "interrupted")
    print(f"sweepgate results ingest: {said} after {done} of {count(total, 'file')}: those stored are "
          "whole, the rest are not stored; run the same ingest again to finish (what is stored is "
          "skipped)", file=sys.stderr)
    return 1 if isinstance(why, SweepgateError) else why.exit_code if isinstance(why, Terminated) else 130


def _line_key(rec: dict) -> tuple:
    """What one JSONL line stands for: a result of one job's output (a line of it, for JSONL outputs)."""
    from sweepgate.results import record as R

    return rec.get(R.RUN_ID), rec.get(R.ATTEMPT), rec.get(R.RESULT_FILENAME), rec.get(R.SOURCE_LINE)


def _held(path: Path) -> list[tuple[int, dict]]:
    """The records an existing --jsonl FILE holds (read as --baseline-jsonl reads it), each with its line."""
    from sweepgate.results.source import numbered_records

    return numbered_records(path) if path.exists() else []


def _eval_jobs(rec: dict) -> set[tuple]:
    """The eval-only jobs an eval record may be of, whichever of its result names it is under (its
    sidecar alone's ``X``, its scores' ``X-eval``: ``record.eval_partners``, two for a name that ends
    in ``-eval``), each as (run, attempt, job's result name); none for other records."""
    from sweepgate.results import record as R

    name = rec.get(R.RESULT_FILENAME)
    return {(rec.get(R.RUN_ID), rec.get(R.ATTEMPT), min(name, other, key=len)) for other in R.eval_partners(rec)}


JSONL_FIX = "pass --jsonl a writable file (or a new one in a writable folder)"


def _open_jsonl(path: Path) -> int | None:
    """FILE opened to append to when it is there (a symbolic link written through to its target), so
    one that cannot be written is refused before anything is stored. A new FILE is made only with its
    records (``_created``): a run that stores nothing (no server at the --db URL) or cannot write them
    leaves no empty one behind. Whether its folder takes a new file is tried now instead: a temporary
    file is made there and removed (None is returned)."""
    from sweepgate.core.atomic import temporary_beside

    try:
        return os.open(path, os.O_RDWR | os.O_APPEND)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise fail(str(path), 0, f"cannot write to it: {os_reason(exc)}", JSONL_FIX) from None
    try:
        with temporary_beside(Path(os.path.realpath(path))) as (fd, tmp):  # a link to nothing: its target's folder
            os.close(fd)
            os.unlink(tmp)
    except OSError as exc:
        raise fail(str(path), 0, f"cannot write to it: {os_reason(exc)}", JSONL_FIX) from None
    return None


def _to_append(held: list[tuple[int, dict]], records: list[dict]) -> list[dict]:
    """The ``records`` a FILE that holds ``held`` does not hold yet. A job's output read after FILE took
    its placeholder (the sidecar copied first) is appended; a placeholder is not, once FILE or this
    ingest holds its job's output (as the store keeps that), nor once FILE holds an eval-only job's
    record under its other name (evalb30: X beside X-eval)."""
    keys, whole = {_line_key(r) for _, r in held}, {_line_key(r) for _, r in held if not is_placeholder(r)}
    outputs = [r for r in records if not is_placeholder(r)]
    keys |= {_line_key(r) for r in outputs}
    jobs = {j for r in [*(r for _, r in held), *outputs] for j in _eval_jobs(r)}
    return [r for r in records if not ((_line_key(r) in keys or _eval_jobs(r) & jobs) if is_placeholder(r)
                                       else _line_key(r) in whole)]


def _lines(records: list[dict]) -> bytes:
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in records).encode()


def _created(path: Path, data: bytes) -> bool:
    """A new FILE made holding ``data`` whole, or not made at all (``core.atomic.create_whole``): never
    replacing a FILE another ingest made meanwhile (False then, and where the file system makes no hard
    links), whose lock the records are then appended under instead."""
    from sweepgate.core.atomic import create_whole

    target = Path(os.path.realpath(path))  # a symbolic link to nothing: its target is made, as O_CREAT made it
    try:
        return create_whole(target, data)
    except OSError as exc:
        raise fail(str(path), 0, f"cannot write to it: {os_reason(exc)}; it was not made",
                   "free space (or fix the file system) and run the same ingest again") from None


def _append(path: Path, fd: int | None, records: list[dict], provided: list = ()) -> None:
    """Append the records FILE does not hold yet (one file can gather a baseline run by run, and
    ingesting the same outputs twice adds nothing). Under an exclusive lock, FILE is read again and
    the new lines go in one append: ingests writing one FILE at once keep each other's lines. ``fd``
    None: FILE was not there when the ingest began, and is made now with the records (``_created``),
    unless another ingest made it meanwhile. ``provided``: the stored results given a ref or commit now
    (``store.Provided``), whose lines FILE holds without it are warned of."""
    if fd is None:
        new = _to_append([], records)
        if _created(path, _lines(new)):
            _appended(path, [], records, new, provided)
            return
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise fail(str(path), 0, f"cannot write to it: {os_reason(exc)}", JSONL_FIX) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        held = _held(path)
        new = _to_append(held, records)
        size = os.fstat(fd).st_size
        gap = b"\n" if size and os.pread(fd, 1, size - 1) != b"\n" else b""
        _write_whole(path, fd, gap + _lines(new), size)
    finally:
        os.close(fd)  # the lock goes with it
    _appended(path, held, records, new, provided)


def _appended(path: Path, held: list[tuple[int, dict]], records: list[dict], new: list[dict],
              provided: list = ()) -> None:
    """Say how many of ``records`` were appended to FILE, and warn of its stale placeholders and of its lines of
    results stored without the ref or commit they were given now (``provided``)."""
    kept = len(records) - len(new)
    print(f"appended {count(len(new), 'record')} to {path}" + (f" ({kept} already there)" if kept else ""))
    if stale := [*_stale(path, held, new), *_stale_provenance(path, held, provided)]:
        emit(sorted(stale, key=lambda d: d.line))


def _stale(path: Path, held: list[tuple[int, dict]], new: list[dict]) -> list:
    """A warning for each placeholder line FILE holds of an eval-only job whose scores were appended
    under the job's other name, or of a job whose output of several measurements (``X#N``) was appended: the
    store's scores took the placeholder's place, FILE's cannot (appended to, never rewritten), and the job reads
    there as failed beside its scores."""
    from sweepgate.core.errors import Diagnostic
    from sweepgate.results import record as R

    scores = {job: r for r in new if not is_placeholder(r) for job in _eval_jobs(r)}
    measured = {(r.get(R.RUN_ID), r.get(R.ATTEMPT), base): r[R.RESULT_FILENAME] for r in reversed(new)
                if not is_placeholder(r) and (base := R.job_of_measurement(r.get(R.RESULT_FILENAME)))}  # X#N's X
    return [Diagnostic(str(path), n, 0, STALE_PLACEHOLDER, f"warning: a stale failure placeholder: eval-only job "
                       f"'{rec[R.RESULT_FILENAME]}' of run {rec.get(R.RUN_ID)}, attempt {rec.get(R.ATTEMPT)}, whose "
                       f"scores '{scores[job][R.RESULT_FILENAME]}' are appended now",
                       f"delete line {n} (ingest appends to {path.name}, never rewrites it)", severity="warning")
            for n, rec in held if is_placeholder(rec) and (job := next(iter(_eval_jobs(rec) & scores.keys()), None))
            and _line_key(rec)[2] != scores[job][R.RESULT_FILENAME]] + [
        Diagnostic(str(path), n, 0, STALE_PLACEHOLDER, f"warning: a stale failure placeholder: job "
                   f"'{rec[R.RESULT_FILENAME]}' of run {rec.get(R.RUN_ID)}, attempt {rec.get(R.ATTEMPT)}, whose "
                   f"output's measurements ('{measured[job]}', ...) are appended now",
                   f"delete line {n} (ingest appends to {path.name}, never rewrites it)", severity="warning")
        for n, rec in held if is_placeholder(rec) and (job := _line_key(rec)[:3]) in measured]


def _stale_provenance(path: Path, held: list[tuple[int, dict]], provided: list) -> list:
    """A warning for each line FILE holds of a result the store was given a ref or commit of now (``store.Provided``)
    that holds none: FILE is appended to, never rewritten, and a line of the result is there already, so the
    line stays on no ref (out of a baseline read from FILE) unless deleted and ingested again."""
    from sweepgate.core.errors import Diagnostic
    from sweepgate.results.record import ATTEMPT

    given = {_line_key(p.record): p for p in provided}
    out = []
    for n, rec in held:
        p = given.get(_line_key(rec))
        if p is None or not (missing := [f for f in p.fields if rec.get(f) is None]):
            continue
        what = " and ".join(f"{f} {p.record[f]}" for f in missing)
        out.append(Diagnostic(str(path), n, 0, "stale-line", f"warning: a stale line: {_stored_as(p.record)}, attempt "
                              f"{rec.get(ATTEMPT)}, without the {' and '.join(missing)} the store gives it now "
                              f"({what})", f"delete line {n} and ingest again, which appends the line as stored "
                              f"(ingest appends to {path.name}, never rewrites it)", severity="warning"))
    return out


def _write_whole(path: Path, fd: int, data: bytes, size: int) -> None:
    """``data`` appended whole, or FILE cut back to its ``size`` (a full disk): never half a line."""
    from sweepgate.core.atomic import write_whole

    try:
        write_whole(fd, data, size)
        os.fsync(fd)
    except OSError as exc:
        os.ftruncate(fd, size)
        raise fail(str(path), 0, f"cannot write to it: {os_reason(exc)}; it is as it was",
                   "free space (or fix the file system) and run the same ingest again") from None
