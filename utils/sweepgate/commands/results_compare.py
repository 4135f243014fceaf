"""`sweepgate results compare`: judge a run against the baseline ref (CONTRACTS section 8).

Wired into `sweepgate results` by commands/results.py (``add_arguments``/``run`` here).
Records come from the store (``--db``, else $SWEEPGATE_DB, else the repository's
SQLite file); the baseline may instead come from the results artifacts of the last
N runs before the run on the baseline branch that ended in success or failure (``--baseline-artifacts``,
PyGithub; a failed job's records left out) or
from JSONL files (``--baseline-jsonl``). Exit 3 with ``--fail-on-regression`` when
a point regressed as ``--json`` says it, or an eval score regressed or its job failed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from sweepgate.commands import argtypes
from sweepgate.core.errors import SweepgateError, fail
from sweepgate.core.github import STEP_SUMMARY_VARIABLE, add_repository_options
from sweepgate.core.report import count, progress, say

PROGRESS_MIN_CHARTS = 3  # a sweep's charts take seconds each: a bar from a few on

EXIT_REGRESSION = 3


def add_arguments(parser) -> None:
    from sweepgate.results import compare as C


    argtypes.add_db_argument(parser)
    parser.add_argument("--run", required=True, metavar="RUN-ID", type=argtypes.not_empty, help="the run to judge")
    parser.add_argument("--baseline-ref", default=C.DEFAULT_BASELINE_REF, metavar="REF", type=argtypes.not_empty,
                        help=f"compare with runs on this ref (default: {C.DEFAULT_BASELINE_REF})")
    parser.add_argument("--window", type=argtypes.int_between(2, C.MAX_WINDOW, "an interval needs 2 baseline runs"),
                        default=C.DEFAULT_WINDOW, metavar="N",
                        help=f"baseline: the last N runs of each point (default: {C.DEFAULT_WINDOW})")
    parser.add_argument("--min-samples", type=argtypes.int_between(2, None, "an interval needs 2 baseline values"),
                        default=None, metavar="K",
                        help=f"fewer baseline results than K: insufficient-data (default: {C.DEFAULT_MIN_SAMPLES}, "
                             "or N when --window N is smaller)")
    parser.add_argument("--threshold", type=argtypes.relative, default=C.DEFAULT_THRESHOLD, metavar="REL",
                        help=f"smallest relative change that counts (default: {C.DEFAULT_THRESHOLD}); "
                             "a config's `results:` block overrides it")
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON (CONTRACTS section 8)")
    fmt.add_argument("--markdown", action="store_true", help="print markdown")
    from sweepgate.results.render import UNCHANGED_SHOWN

    parser.add_argument("--all", action="store_true",
                        help=f"the table lists every unchanged row (past {UNCHANGED_SHOWN} it counts them)")
    parser.add_argument("--plots", metavar="DIR", default=None, type=argtypes.output_dir,
                        help="write PNG and SVG charts into DIR")
    parser.add_argument("--fail-on-regression", action="store_true",
                        help="exit 3 when a point regressed (as --json says; a failed job where main has a "
                             "baseline is one) or an eval score regressed or its job failed, even when --comment fails")
    base = parser.add_mutually_exclusive_group()
    base.add_argument("--baseline-artifacts", action="store_true",
                      help="baseline from the results artifacts of runs on the baseline branch that ended in "
                           "success or failure (a failed job's records left out), the last N before the run that "
                           "measured each point (GitHub; needs a token and --repository)")
    base.add_argument("--baseline-jsonl", nargs="+", metavar="PATH", default=None, type=argtypes.not_empty,
                      help="baseline from normalized records in JSONL files or folders")
    _add_reports(parser)


def _add_reports(parser) -> None:
    """Where the report goes besides stdout: the step summary, the PR comment (or its body's file)."""
    # left out: $GITHUB_STEP_SUMMARY, read by check_outputs (argtypes.environment_default)
    parser.add_argument("--step-summary", metavar="PATH", default=None, type=argtypes.output_file,
                        action=argtypes.Passed,
                        help="append the markdown report to this file (default: $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--comment", action="store_true",
                        help="create or update the results comment on the PR the run measured (its refs/pull/N/ "
                             "ref), else on --pr-number (needs a token)")
    parser.add_argument("--comment-file", metavar="PATH", default=None, type=argtypes.output_file,
                        help="write the PR comment's body (within GitHub's size limit) to PATH, for a job "
                             "allowed to comment to post with `results comment`")
    parser.add_argument("--pr-number", metavar="N", type=argtypes.pull_request, default=None,
                        help="pull request to comment on (default: the run's; another than the run's is refused)")
    add_repository_options(parser)


def load_records(args) -> tuple[list[dict], list[dict]]:
    """(the run's records, the baseline's records), from where the flags say."""
    from sweepgate.commands.results_runs import unknown_run
    from sweepgate.results import source, store_adapter
    from sweepgate.results.compare import pr_of

    args.baseline_notes = []  # what the reports say of the baseline (``_baseline_jsonl``)
    args.baseline_read = []  # every record the baseline files hold, before the baseline is chosen of them
    from_files = args.baseline_jsonl or args.baseline_artifacts
    if args.baseline_jsonl and _no_store(args.db):
        _run_in_baseline_files(args)
    pr, baseline, shown, stored = store_adapter.from_store(
        args.db, args.run, None if from_files else args.baseline_ref, args.window,
        unknown=lambda st, shown: _run_in_baseline_files(args) or unknown_run(args.run, shown, st))
    args.baseline_where = "--baseline-jsonl" if args.baseline_jsonl else (
        "--baseline-artifacts" if args.baseline_artifacts else shown)  # where a warning of the baseline is placed
    args.baseline_ref = stored or args.baseline_ref  # as the report names it
    _same_pr(args, pr_of(pr))  # before the baseline artifacts' requests
    if args.baseline_jsonl:
        args.baseline_read = _baseline_jsonl(args)
        return pr, store_adapter.baseline_of_files(args.baseline_read, pr, args.baseline_ref,
                                                   " ".join(args.baseline_jsonl))
    if args.baseline_artifacts:
        from sweepgate.core.github import credentials

        token, repository = credentials("sweepgate results compare", args.repository,
                                        needed_by="--baseline-artifacts",
                                        alternative="pass --db with a database that holds the baseline")
        from sweepgate.results.compare import baseline_of

        read: list[str] = []
        passed_over: dict = {}
        found = source.records_from_artifacts(repository, token, source.branch_of(args.baseline_ref),
                                              args.window, points=sorted({baseline_of(r) for r in pr}, key=str),
                                              api_url=args.github_api_url, before=store_adapter.past_of(pr),
                                              read=read, passed_over=passed_over,
                                              rehearsals=store_adapter.is_rehearsal(pr))
        if passed_over:
            _passed_over_runs(args, repository, passed_over)
        if not found:
            _empty_artifacts(args, repository, read)
        args.baseline_read = found
        return pr, store_adapter.baseline_of_files(found, pr, args.baseline_ref, "the baseline artifacts")
    return pr, baseline


def _no_store(url: str | None) -> bool:
    """Whether --db (or its default) is a SQLite file that is not there; False where that cannot be told
    (the store's own opening says what is wrong with a URL)."""
    from sweepgate.results import store

    try:
        return store.missing_sqlite(store.resolve_url(url)) is not None
    except SweepgateError:
        return False


def _run_in_baseline_files(args) -> None:
    """Refuse a --run the store holds nothing of (or no store at all) that a --baseline-jsonl file holds
    (the results artifact's results.jsonl, main's runs and the PR's): the run compared is read from the
    store, the files give its baseline only, and `results ingest` refuses those records, so "ingest the
    run first" led nowhere (s38o). Returns None when no file holds the run (the usual refusal follows)."""
    from sweepgate.results import record as R
    from sweepgate.results import source

    for path in args.baseline_jsonl or []:
        try:
            held = any(str(r.get(R.RUN_ID)) == args.run for r in source.records_from_jsonl([path]))
        except SweepgateError:
            continue  # said as the baseline is read
        if held:
            raise fail("--run", 0, f"run {args.run!r} is in --baseline-jsonl {path}, which gives the baseline "
                       "only: the run compared is read from the results store (--db), which holds none of it",
                       "pass --db with the store its records were ingested into (a results artifact's results.db, "
                       "beside its results.jsonl), or ingest the run's outputs into one (`sweepgate results ingest`)")
    return None


def _passed_over_runs(args, repository: str, passed_over: dict) -> None:
    """Say, in one warning line, which runs the API listed as the baseline branch's push runs of the sweep
    workflow that ended in a conclusion that counts (``github.counted_runs``) that are not (``github.download_run_artifacts`` re-checks each), and what of each
    differs: their artifacts were not read, and the API (or a proxy on the way) answered past the filters
    sent, which may have cost the baseline runs it should have listed, or a tag has the branch's name."""
    from sweepgate.core import github
    from sweepgate.core.branch_history import passed_over_hint
    from sweepgate.core.errors import Diagnostic, emit
    from sweepgate.core.fields import SWEEP_WORKFLOW
    from sweepgate.results import source

    branch = source.branch_of(args.baseline_ref)
    listed_as = github.counted_runs(f"push runs of {repository}'s {SWEEP_WORKFLOW} on {branch}")
    one = len(passed_over) == 1
    emit([Diagnostic("--baseline-artifacts", rule="baseline-run-mismatch", severity="warning",
                     message=f"warning: {github.passed_over_runs(passed_over, listed_as)}; "
                             f"{'its artifact was' if one else 'their artifacts were'} not read",
                     hint=passed_over_hint(passed_over, branch, github.PASSED_OVER_HINT))])


def _empty_artifacts(args, repository: str, runs: list[str]) -> None:
    """Say that the results artifacts read (``runs``: their run ids) held no record (main's runs whose every
    job was reused, or an artifact whose JSONL came out empty), or that no run had one, as an empty
    --baseline-jsonl is said: the general "no baseline results" line sent the user after a --baseline-ref
    that was right, or left them guessing which artifacts were read."""
    from sweepgate.core.errors import emit
    from sweepgate.core.fields import SWEEP_WORKFLOW
    from sweepgate.core.github import counted_runs
    from sweepgate.results import source

    branch, workflow, one = source.branch_of(args.baseline_ref), SWEEP_WORKFLOW, len(runs) == 1
    which = f"run {runs[0]}" if one else f"runs {', '.join(runs[:-1])} and {runs[-1]}" if runs else ""
    artifacts = f"the {source.RESULTS_ARTIFACT} artifact{'' if one else 's'}"
    if runs:
        shown = f"{artifacts} of {which}"
        held = f"{artifacts} of {repository}'s {workflow} {which} on {branch} {'holds' if one else 'hold'}"
        how = f"{'its' if one else 'their'} JSONL files are empty"
    else:
        ours = f"{repository}'s {workflow}"
        shown = f"the {counted_runs(f'push runs of {workflow} on {branch}')}"
        held = f"the {counted_runs(f'push runs of {ours} on {branch}')} hold"
        how = f"none has an unexpired {source.RESULTS_ARTIFACT} artifact"
    emit([_empty_baseline(args, "--baseline-artifacts", held, how, "it" if one else "them", everything=True,
                          hint=("" if runs else "check --baseline-ref, and ") + f"check that the collect job of "
                          f"{workflow} writes its results with `results ingest --jsonl` (a run whose every job was "
                          "reused writes none), or pass --db with a database that holds the baseline")])
    _no_baseline_note(args, shown)


def _empty_baseline(args, where: str, held: str, how: str, it: str, *, everything: bool, hint: str):
    """The warning of a baseline source that held no record: ``where: warning: HELD no baseline records
    (HOW), so nothing of IT is compared[: every point of run R is new]; HINT``."""
    from sweepgate.core.errors import Diagnostic

    return Diagnostic(where, rule="empty-baseline", severity="warning",
                      message=f"warning: {held} no baseline records ({how}), so nothing of {it} is compared"
                              + (f": every point of run {args.run} is new" if everything else ""), hint=hint)


def _no_baseline_note(args, shown: str) -> None:
    """What the reports say under the headline when no baseline source held a record (the stderr line
    of no baseline is then left out: the source's own warning said it)."""
    args.baseline_notes = [f"No baseline was compared: {shown} held no records, so every point is new for "
                           "want of a baseline, not because no run on the baseline ref measured it."]


def _baseline_jsonl(args) -> list[dict]:
    """The records of the --baseline-jsonl PATHs, with a warning for each PATH that holds none (a
    zero-byte or blank file, a folder of such): every point was judged `new` and --fail-on-regression
    passed with nothing compared, saying only "no baseline results". Not refused: `results ingest
    --allow-empty --jsonl` writes an empty file for a main run whose every job was reused, and a
    baseline with no run of a point is `new` (CONTRACTS section 8). The reports say it too
    (``args.baseline_notes``)."""
    from sweepgate.core.errors import emit
    from sweepgate.results import source

    records, empty = [], []
    for path in args.baseline_jsonl:
        held = source.records_from_jsonl([path])
        records += held
        if not held:
            empty.append(path)
    emit(_empty_baseline(args, path, "holds", _what_is_empty(path), "it", everything=not records,
                         hint="pass the results.jsonl `results ingest --jsonl` wrote on the baseline ref; a "
                              "failed or partial download leaves it empty, and so does a run whose every job "
                              "was reused") for path in empty)
    if not records:
        _no_baseline_note(args, ", ".join(args.baseline_jsonl))
    return records


def _what_is_empty(path: str) -> str:
    """How an empty --baseline-jsonl PATH is empty, as its reader would check it."""
    given = Path(path)
    if given.is_dir():
        return "its *.jsonl files hold only blank lines or nothing"
    if not given.is_file():  # a pipe (/dev/stdin): its size is 0 whatever went through it, and it is read once
        return "nothing or only blank lines"
    return "an empty file" if given.stat().st_size == 0 else "only blank lines"


def _settings(args):
    """The comparison's settings, as the flags give them (``Settings.validate`` is argument_problems')."""
    from sweepgate.results import compare as C

    min_samples = args.min_samples if args.min_samples is not None else min(C.DEFAULT_MIN_SAMPLES, args.window)
    return C.Settings(window=args.window, min_samples=min_samples, threshold=args.threshold)


def argument_problems(args) -> list[str]:
    """Flag values out of the range another flag sets and flags that cannot go together, argument syntax (exit 2),
    said together before anything is read (cli.argument_problems)."""
    from sweepgate.core.fields import SWEEP_WORKFLOW
    from sweepgate.results import source
    from sweepgate.results.compare import DEFAULT_BASELINE_REF

    problems = []
    try:
        _settings(args).validate()
    except SweepgateError as exc:  # a flag's value out of range: said as argparse says a refused value
        problems += [f"argument {d.file}: {d.message}" + (f"; {d.hint}" if d.hint else "") for d in exc.diagnostics]
    if args.pr_number is not None and not (args.comment or args.comment_file):
        problems.append(argtypes.combination("--pr-number", "needs --comment or --comment-file (it names the pull "
                                             "request the comment goes to)", "add one of them, or leave --pr-number out"))
    if args.baseline_artifacts and (what := source.not_a_branch(args.baseline_ref)):
        from sweepgate.core.github import counted_runs

        problems.append(argtypes.combination(
            "--baseline-ref", f"'{args.baseline_ref}' {what}, and --baseline-artifacts reads the "
            f"{counted_runs(f'push runs of {SWEEP_WORKFLOW} on a branch')}",
            f"pass a branch name (default {source.branch_of(DEFAULT_BASELINE_REF)}), or --db with a store that "
            f"holds runs on {args.baseline_ref}"))
    return problems


def check_outputs(args) -> None:
    """Every output path, before any output or database work (no report printed, then a failure)."""
    from sweepgate.core import outpaths

    if args.comment_file:
        outpaths.writable_file(args.comment_file, "--comment-file")
    given = argtypes.environment_default(args, "step_summary", STEP_SUMMARY_VARIABLE)
    if args.step_summary:  # a path not passed is $GITHUB_STEP_SUMMARY's: the line says so, not blaming the flag
        outpaths.writable_file(args.step_summary, "--step-summary", given)
    if args.plots:
        outpaths.creatable_dir(args.plots, "--plots")


def run(args) -> int:
    from sweepgate.results import compare as C
    from sweepgate.results import evals, source

    settings = _settings(args)  # its values checked with the other flags (argument_problems)
    check_outputs(args)
    settings.per_config = source.config_thresholds()
    pr, baseline = load_records(args)
    run_pr = C.pr_of(pr)  # --comment without --pr-number goes there, and a comment body names it
    if args.comment and args.pr_number is None:
        args.pr_number = run_pr
    args.about_pr = run_pr or args.pr_number  # the PR a comment body names (``render.about_line``)
    later = [] if baseline or args.baseline_notes else _later_runs_of_the_ref(args, pr)
    if later:  # the ref measured them, after the run: not a wrong --baseline-ref (polish29)
        # one line (``say``): the run ids and the ref are a job's text, a newline or an escape sequence among it
        say(f"sweepgate results compare: run {args.run} is on {args.baseline_ref} itself and is judged against "
            f"its runs before it; {args.baseline_ref} measured its points only after it (run{'s' if len(later) > 1 else ''} "
            f"{', '.join(later[:3])}{', ...' if len(later) > 3 else ''}; runs of one time are placed by run id), "
            f"so every point that measured something is new; compare the later run (--run {later[-1]}), or "
            "ingest each run with its .job.json, whose times place it")
    elif not baseline and not args.baseline_notes:  # an empty file was named already
        say(f"sweepgate results compare: no baseline results for run {args.run}'s points on "
            f"{args.baseline_ref}; every point that measured something is new (check --baseline-ref, and "
            "that both sides were ingested with the same --config-key)" + _no_ref_runs(args))
    comparison = C.compare_records(pr, baseline, run=args.run, settings=settings)
    _say_unordered(comparison, args)
    comparison.evals = evals.compare_evals(pr, baseline, settings.window)
    comparison.notes = [*args.baseline_notes, *comparison.notes]
    if args.plots:
        comparison.context = _context(args, pr, comparison)
    charts = _draw(comparison, args.plots, (args.baseline_ref, args.window)) if args.plots else []
    _print(comparison, args, charts)  # a reader who leaves (`| head -1`) ends it, not what follows: cli.ReaderMayLeave
    sys.stdout.flush()  # the report before a step summary is written or a comment posted
    from sweepgate.core.errors import written_past_the_gate

    gate_tripped = bool(args.fail_on_regression and comparison.failing())
    args.summary_whole = None  # no step summary written (yet): a cut comment has no page to point at
    if args.step_summary:
        written_past_the_gate(gate_tripped, lambda: _append_summary(args.step_summary, comparison, args, charts))
    if args.comment_file:
        written_past_the_gate(gate_tripped, lambda: _write_comment(args.comment_file, comparison, args, charts))
    if args.comment:
        written_past_the_gate(gate_tripped, lambda: _post_comment(comparison, args, charts))
    return EXIT_REGRESSION if gate_tripped else 0


def _say_unordered(comparison, args) -> None:
    """One warning line when a point's baseline rests on records of unknown order (``compare.Unordered``: a
    time written without its zone near one with a zone), naming the first pair."""
    from sweepgate.core.errors import Diagnostic, emit
    from sweepgate.results import record as R
    from sweepgate.results.render import point_label

    said = []
    for u in comparison.unordered:
        of = f"the baseline of {point_label(u.point)}"
        if u.other is None:
            said.append((R.said_record(u.taken), f"was counted in {of} as before",
                         R.said_when(u.past[1], None, u.past[0])))
        else:
            said.append((R.said_record(u.taken), f"was taken into {of} as newer than", R.said_record(u.other)))
    if said:
        emit([Diagnostic(args.baseline_where, rule=R.UNORDERED_RULE, severity="warning", in_file=False,
                         message=R.unordered_line(said, "point"), hint=R.UNORDERED_HINT)])


def _no_ref_runs(args) -> str:
    """What the no-baseline line adds when the store holds runs on no ref (``store_adapter.runs_on_no_ref``: outputs
    ingested with no sidecar and no --row, and jobs whose sidecar names no ref; a rehearsal's are not counted, nor the
    run judged), which may be the baseline's runs ingested so, each kind with its fix; "" otherwise and when the
    baseline is read from files."""
    from sweepgate.core.jobfile import JOB, REF
    from sweepgate.core.report import count
    from sweepgate.results import store_adapter

    if args.baseline_jsonl or args.baseline_artifacts:
        return ""
    hashed, sidecars = store_adapter.runs_on_no_ref(args.db, judged=args.run)
    fix = f"--row FILE --run-id ID --ref {args.baseline_ref}"
    if not sidecars:
        return "" if not hashed else (
            f"; the store holds {count(hashed, 'run')} on no ref (ingested with no .job.json and no --row), which no "
            f"baseline takes: ingest {'its' if hashed == 1 else 'their'} outputs with {fix}")
    one = sidecars == 1
    kinds = ([f"{hashed} ingested with no .job.json and no --row (ingest {'its' if hashed == 1 else 'their'} "
              f"outputs with {fix})"] if hashed else []) + [
        f"{sidecars} of {'a job' if one else 'jobs'} whose .job.json names no {JOB}.{REF} (write {JOB}.{REF}, "
        f"{args.baseline_ref}, in {'its' if one else 'their'} .job.json and ingest {'it' if one else 'them'} again)"]
    return f"; the store holds {count(hashed + sidecars, 'run')} on no ref, which no baseline takes: {', '.join(kinds)}"


def _later_runs_of_the_ref(args, pr: list[dict]) -> list[str]:
    """The runs on --baseline-ref that measured a point of the compared run after it, oldest first, when the
    run is on that ref itself and has a time (``compare.past_of``); else []. From the baseline files when they
    are given (s30: they said "check --baseline-ref" where the store named the later runs), else the store."""
    from sweepgate.results import record as R
    from sweepgate.results import store_adapter

    if args.baseline_jsonl or args.baseline_artifacts:
        return store_adapter.later_runs_in_files(args.baseline_read, args.baseline_ref, pr, args.window)
    if any(r.get(R.REF) != args.baseline_ref for r in pr):
        return []
    return store_adapter.later_runs(args.db, args.baseline_ref, pr, args.window)


def _same_pr(args, run_pr: int | None) -> None:
    """Refuse --comment or --comment-file with a --pr-number that is not the PR the run measured (its stored
    ref's): its verdict posted on another PR would read as that PR's (a --comment-file report names the run's
    PR, and `results comment --pr-number M` refuses it later). A run of no PR's ref may go to any PR."""
    if not (args.comment or args.comment_file) or args.pr_number is None or run_pr is None or args.pr_number == run_pr:
        return
    raise fail("--pr-number", 0, f"{args.pr_number} is not the pull request run {args.run} measured (its results "
               f"are stored under refs/pull/{run_pr}/...)", f"pass --pr-number {run_pr}, or leave it out: the "
               "comment goes to the run's own pull request")



def _context(args, pr: list[dict], comparison) -> dict:
    """What a chart none of whose recipes the baseline measured draws as context (``charts.contexts``): the
    baseline's newest figures of the run's models on its hardware, read only where such a chart is drawn."""
    from sweepgate.results import charts, store_adapter

    groups = charts.chart_groups(comparison)
    if not charts.unbased(groups):
        return {}
    if args.baseline_jsonl or args.baseline_artifacts:
        found = store_adapter.context_of_files(args.baseline_read, pr, args.baseline_ref)
    else:
        found = store_adapter.context_records(args.db, pr, args.baseline_ref)
    return charts.contexts(comparison, found, groups)


def _draw(comparison, folder: str, baseline: tuple[str, int]) -> list[tuple[str, bool, bool, bool]]:
    """Write the charts (a progress bar on a terminal: a sweep's take tens of seconds), their legend
    naming ``baseline`` (ref, window); return (stem, shows a change, shows a new point, shows a point
    not judged) of each, those with a change first, then those with a new point (a recipe the PR adds:
    what it is for)."""
    from sweepgate.results import charts as charts_mod

    planned = charts_mod.planned(comparison)
    changed = set(charts_mod.with_a_change(planned))
    bar = progress(len(planned), "drawing charts", PROGRESS_MIN_CHARTS, of="charts")
    removed: list = []
    try:
        charts_mod.draw_charts(comparison, folder, progress=bar, charts=planned, baseline=baseline, removed=removed)
    except KeyboardInterrupt:
        drawn = sum(all((Path(folder) / f"{stem}.{fmt}").is_file() for fmt in charts_mod.FORMATS) for stem, *_ in planned)
        gone = len({Path(path).stem for path in removed})  # a chart is its PNG and its SVG
        cleared = f"{count(gone, 'chart')} an earlier run drew there removed, so {folder} holds only this run's; " \
            if gone else ""  # a new folder held none: nothing to say was removed
        say(f"sweepgate results compare: interrupted after drawing {drawn} of {count(len(planned), 'chart')}; "
            f"{cleared}run compare again for the rest")
        raise
    said = charts_mod.removed_line("sweepgate results compare", removed, folder)
    if said:  # an earlier run's, of points this run has not: a reader would take them for this run's
        say(said)
    if planned:
        say(f"sweepgate results compare: wrote {count(len(planned), 'chart')} (PNG and SVG) into {folder}")
        groups = charts_mod.chart_groups(comparison)
        _say_off_chart(charts_mod.off_chart(comparison, groups), comparison,
                       charts_mod.at_baseline_only(comparison, groups))
    else:
        say(f"sweepgate results compare: wrote no chart: {charts_mod.why_no_chart(comparison)}")
    new = {stem for stem, _, items, _ in planned if any(item["new"] for item in items)}
    pending = set(charts_mod.not_judged(planned, comparison))
    stems = [stem for stem, *_ in planned]
    return sorted(((s, s in changed, s in new, s in pending) for s in stems), key=lambda c: (not c[1], not c[2]))


def _say_off_chart(left: list[tuple[tuple, str]], comparison, at_base: set, shown: int = 3) -> None:
    """A line naming the run's points that no chart could draw, and one naming those drawn only at their
    baseline median (``at_base``), each with the first few, then how many more."""
    from sweepgate.results.render import point_label, point_naming

    naming = point_naming(comparison)
    for points, said in (([p for p in left if p[0] not in at_base], "on no chart"),
                         ([p for p in left if p[0] in at_base], "drawn only as a ? at {its} baseline median")):
        if not points:
            continue
        named = "; ".join(f"{point_label(pt, naming)}: {why}" for pt, why in points[:shown])  # a job's text: ``say``
        more = f"; and {len(points) - shown} more" if len(points) > shown else ""
        one = len(points) == 1
        say(f"sweepgate results compare: {count(len(points), 'point')} {'is' if one else 'are'} "
            f"{said.format(its='its' if one else 'their')} (the table lists {'it' if one else 'them'}): "
            f"{named}{more}")


def _print(comparison, args, charts: list[tuple]) -> None:
    from sweepgate.results import render

    if args.json:
        # One write: json.dump writes each of the ~1 million tokens of a large run on its own.
        sys.stdout.write(json.dumps(comparison.as_json(), indent=2, allow_nan=False) + "\n")
    elif args.markdown:
        folder = render.ChartsFolder(args.plots, uploaded=uploaded_folder(args.plots)) if args.plots else None
        sys.stdout.write(render.markdown(comparison, args.baseline_ref, args.window, charts,
                                         charts_folder=folder) + "\n")  # whole: stdout has no limit
    else:
        render.table(comparison, sys.stdout, baseline_ref=args.baseline_ref, window=args.window, all_rows=args.all)


def charts_folder_for(plots: str | None, report: str | None = None):
    """The --plots folder as the reader of a report finds it (a ``render.ChartsFolder``): relative to the
    folder of the report file ``report`` when inside it (``charts`` for ``--comment-file
    sweepgate-results/comment.md --plots sweepgate-results/charts``), unless the charts are in the repository
    and that folder is not (``/tmp/x.md``); else, and for the posted comment
    (no ``report``), from the top of the repository compare runs in, said so (a PR's reader places a
    path so); else, outside any repository, its absolute path. As typed it was relative to where
    compare ran (``../charts``), which names nothing from where the file or the comment is read."""
    from sweepgate.core.worktop import enclosing_top
    from sweepgate.results.render import ChartsFolder

    if not plots:
        return None
    folder = Path(os.path.realpath(plots))  # compared with the others' real paths: a linked folder is one
    top = enclosing_top()
    top = Path(os.path.realpath(top)) if top is not None else None
    in_repository, uploaded = top is not None and folder.is_relative_to(top), uploaded_folder(plots)
    if report is not None:
        base = Path(os.path.realpath(report)).parent
        # a report outside the repository holding the charts names them from its top, not by the way there
        if folder.is_relative_to(base) and not (in_repository and not base.is_relative_to(top)):
            return ChartsFolder(folder.relative_to(base).as_posix(), uploaded=uploaded)
    if in_repository:
        return ChartsFolder(folder.relative_to(top).as_posix(), from_top=True, uploaded=uploaded)
    return ChartsFolder(os.path.abspath(plots), uploaded=uploaded)


def uploaded_folder(plots: str) -> bool:
    """Whether ``plots`` is the folder run-sweep.yml uploads as the charts of its results artifact
    (``RESULTS_ARTIFACT/CHARTS_FOLDER``, ``--plots sweepgate-results/charts``): a report written inside a workflow
    run names that artifact for it, and the folder, a path on the runner, for any other."""
    from sweepgate.results.source import CHARTS_FOLDER, RESULTS_ARTIFACT

    return Path(os.path.realpath(plots)).parts[-2:] == (RESULTS_ARTIFACT, CHARTS_FOLDER)


def more_rows(run: str, summary_whole: bool | None = None) -> str:
    """Where the reader of a report cut to its limit finds the rows it left out (``render.markdown``'s
    ``more``). In a GitHub Actions workflow run that wrote its step summary (run-sweep.yml's collect job:
    $GITHUB_STEP_SUMMARY, the default of --step-summary): that run's page, which shows it, the whole
    report when ``summary_whole`` (the step summary was not cut itself), else with the command too. Elsewhere,
    or with no step summary written (``summary_whole`` None), the command with --json, which lists every
    row: the run's artifact holds its results and charts, no comparison a reader could open."""
    import shlex

    from sweepgate.core import github
    from sweepgate.core.report import md_code

    command = f"`sweepgate results compare --run {md_code(shlex.quote(str(run)))} --json`"
    page = github.workflow_run()
    if page is None or summary_whole is None:
        return f"see {command}"
    summary = f"the step summary of [run {page[1]}]({page[0]})"
    return f"see the whole report in {summary}" if summary_whole else f"see {summary}, or {command} for every row"


def _append_summary(path: str, comparison, args, charts: list[str]) -> None:
    """Append the report to the step summary, cut to the room left there; ``args.summary_whole`` then says
    whether it was whole, for the comment to point at it (``more_rows``), when it is the run's own
    ($GITHUB_STEP_SUMMARY; None for another file)."""
    from sweepgate.core import github
    from sweepgate.results import render

    room = github.step_summary_room(path)
    body, whole = render.fitted_markdown(comparison, args.baseline_ref, args.window, charts, limit=room,
                                         charts_folder=charts_folder_for(args.plots, path), more=more_rows(args.run))
    github.append_step_summary(path, body + "\n")
    args.summary_whole = whole if _is_the_run_s_summary(path) else None


def _is_the_run_s_summary(path: str) -> bool:
    """Whether ``path`` is $GITHUB_STEP_SUMMARY, the file the workflow run's page shows (the default of
    --step-summary, or passed as it): another file passed as --step-summary is on no page."""
    variable = os.environ.get(STEP_SUMMARY_VARIABLE, "").strip()
    if not variable:
        return False
    try:
        return os.path.samefile(variable, path)
    except OSError:  # the variable's file is not there: not the one just written
        return False


def _write_comment(path: str, comparison, args, charts: list[str]) -> None:
    from sweepgate.core import github
    from sweepgate.core.atomic import atomic_write
    from sweepgate.results import render

    body = render.markdown(comparison, args.baseline_ref, args.window, charts, limit=github.COMMENT_LIMIT,
                           charts_folder=charts_folder_for(args.plots, path),
                           about=render.about_line(args.about_pr, comparison.run),
                           more=more_rows(args.run, args.summary_whole))
    atomic_write(Path(path), (body.rstrip("\n") + "\n").encode("utf-8"))  # a text file ends in a newline


def _post_comment(comparison, args, charts: list[str]) -> None:
    """Create or update the PR comment. With a PR to post on and no token (or repository) to post with,
    a failure in one line naming what to set (exit 1, or 3 when the gate tripped: ``written_past_the_gate``),
    after the report: a note on stderr, exit 0, lost the comment unseen in a CI job. Without a PR (a run on
    main, no --pr-number) there is nothing to post on: a note, as before."""
    from sweepgate.core import github
    from sweepgate.results import render

    if args.pr_number is not None:
        problem = github.credentials_problem(
            "sweepgate results compare", github.token(), github.repository(args.repository), needed_by="--comment",
            alternative="write the body with --comment-file for `sweepgate results comment` to post")
        if problem is not None:
            raise SweepgateError(problem)
    github.comment_if_configured(
        "sweepgate results compare", args.repository, args.pr_number,
        lambda: render.markdown(comparison, args.baseline_ref, args.window, charts, limit=github.COMMENT_LIMIT,
                                charts_folder=charts_folder_for(args.plots), about=render.about_line(args.about_pr, comparison.run),
                                more=more_rows(args.run, args.summary_whole)),
        base_url=args.github_api_url, marker=render.MARKER)
