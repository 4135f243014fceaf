"""A comparison as Markdown (step summary, PR comment) and as a terminal table (rich).

Both list regressions first, then improvements, then the points that could not
be judged, then the unchanged ones (folded in ``<details>`` in Markdown). Every
figure measured against a stand-in server carries "(rehearsal)". Eval scores
(``evals.py``), when the run has any, follow in a table of their own.
"""

from __future__ import annotations

import io
import re
from typing import NamedTuple

from sweepgate.core import github
from sweepgate.core.fields import COMMIT_SHA, short_sha
from sweepgate.core.errors import printable
from sweepgate.core.report import count, md_code, print_block
from sweepgate.results import compare as C
from sweepgate.results import evals as E
from sweepgate.results import labels as L
from sweepgate.results import record as R
from sweepgate.results import show
from sweepgate.results import source as S
from sweepgate.results.figures import fmt_change, fmt_value, fmt_values

MARKER = "<!-- sweepgate-results -->"
# A PR comment's second line: the PR and the run it reports on, which `results comment` checks
# against --pr-number (a report written for one PR is never posted on another).
ABOUT_START = "<!-- sweepgate-results-about"  # a report's second line: the PR and run it is about
ABOUT = re.compile(re.escape(ABOUT_START) + r"(?: pr=(?P<pr>[1-9][0-9]*))? run=(?P<run>\S*) -->")
REHEARSAL_NOTE = L.REHEARSAL_NOTE
PR_COLUMN = "PR"  # the run's figures' column in every table, over a pull request's run (``run_column``)
THIS_RUN = "this run"  # that column over a run that is no PR's (as the charts name it)
RUN_COLUMN = 2  # where that column is, in HEADERS and EVAL_HEADERS
# The last column of the points' and the evals' tables, only where a row has one (``_point_columns``): what the run
# ran otherwise than its baseline's (newest) run there (``compare.recipe_changes``); `--json`'s key of it, in words
RECIPE_HEADER = C.RECIPE_CHANGE.replace("-", " ")
HEADERS = ("point", "metric", PR_COLUMN, "baseline median [interval] (n)", "change (threshold)", "verdict",
           RECIPE_HEADER)
IMPROVED_SECTION = "Improved"
NOT_JUDGED = (C.INSUFFICIENT, C.NOT_COMPARED, C.NEW)  # the verdicts of the "Not judged" section
SECTIONS = (("Failed", (C.FAILED,)), ("Regressed", (C.REGRESSED,)), (IMPROVED_SECTION, (C.IMPROVED,)),
            ("Not judged", NOT_JUDGED), ("Unchanged", (C.UNCHANGED,)))
OPEN_SECTIONS = ("Failed", "Regressed", IMPROVED_SECTION)  # listed in Markdown; the others fold
STYLES = {C.FAILED: "bold red", C.REGRESSED: "bold red", C.IMPROVED: "bold green", C.INSUFFICIENT: "yellow",
          C.NOT_COMPARED: "yellow", C.NEW: "cyan", C.UNCHANGED: "dim", E.NOT_JUDGED: "yellow"}
# The evals table: a score's baseline is one run's (the newest of the window alike, ``evals.baseline_entry``), named
# in the column after it, headed as the not-measured table heads its run column (``ref_run``: "main run").
BASELINE_RUN_COLUMN = 4  # where that column is in EVAL_HEADERS
EVAL_HEADERS = ("point", "score", PR_COLUMN, "baseline", "baseline run", "change (margin)", "verdict", RECIPE_HEADER)
# Where the rows a report cut to its limit leaves out are, when its caller says nowhere else (``markdown``'s
# ``more``): `results compare` gives the workflow run's step summary, or the command that lists them all.
MORE = "see `--json`"


def run_column(comparison: C.Comparison) -> str:
    """The label of the run's figures in the verdict tables and the evals table alike: PR_COLUMN only over
    a pull request's run (``Comparison.pr``), else THIS_RUN (a run of main or of a branch said "PR" as the
    charts once did). Review: the verdict tables said "head", git's word, beside the evals table's "PR"."""
    return PR_COLUMN if comparison.pr is not None else THIS_RUN


def _with_run(headers: tuple[str, ...], run: str) -> tuple[str, ...]:
    return headers[:RUN_COLUMN] + (run,) + headers[RUN_COLUMN + 1:]


def ref_run(baseline_ref: str) -> str:
    """The header of a column naming the baseline run a row is from: ``main run`` (``record.short_ref``)."""
    return f"{R.short_ref(baseline_ref)} run"


def eval_headers(comparison: C.Comparison, baseline_ref: str = C.DEFAULT_BASELINE_REF, naming: Naming | None = None,
                 with_recipe: bool = False) -> tuple[str, ...]:
    """EVAL_HEADERS, the run's column labelled as ``run_column`` says, the baseline's run column by its ref; the
    image and recipe change columns as a table of points has them (``_point_columns``)."""
    headers = _with_run(EVAL_HEADERS, run_column(comparison))
    headers = headers[:BASELINE_RUN_COLUMN] + (ref_run(baseline_ref),) + headers[BASELINE_RUN_COLUMN + 1:]
    return _point_columns(headers, naming or PLAIN, with_recipe)


def _sweep(pt: tuple) -> tuple:
    return tuple(value for name, value in zip(R.POINT_IDENTITY, pt) if name not in R.SWEPT)


def rate_sweeps(comparison: C.Comparison) -> frozenset:
    """The sweeps (a point without its conc and rate) of the run and its dropped points in which some
    point states a request rate: their unlimited point reads "rate ∞" (as the chart marks it), not
    as a concurrency point beside "rate 10/s conc 4"."""
    points = [*comparison.heads, *comparison.dropped]
    return frozenset(_sweep(pt) for pt in points if C.point_json(pt)[R.REQUEST_RATE] is not None)


NO_KEY = L.NO_KEY_OR_MODEL


class Naming(NamedTuple):
    """What a comparison's point labels say beyond the point itself: its rate sweeps (``rate_sweeps``), the
    model each point without a config key ran, as its output names it (``Comparison.model_of``), and the image
    each point ran where the run's points ran more than one (``point_images``; an IMAGE_HEADER column)."""

    rated: frozenset = frozenset()
    models: dict = {}
    images: dict = {}


# The column after the point in the tables of points (the terminal's and the Markdown's), only where the run's points
# ran more than one image: a point's label holds its config key and recipe, never its image (as `results show`).
IMAGE_HEADER = "image"


PLAIN = Naming()


def point_naming(comparison: C.Comparison) -> Naming:
    """``Naming`` of ``comparison``'s points: every table and note of one report labels a point alike."""
    points = dict.fromkeys((*comparison.heads, *comparison.dropped, *(e.point for e in comparison.evals)))
    keyless = [pt for pt in points if C.point_json(pt)[R.CONFIG_KEY] is None]
    models = {pt: comparison.model_of(pt) for pt in keyless}  # a hub cache folder as its ORG/NAME, as `results show`
    return Naming(rate_sweeps(comparison), {pt: show.model_cell(model) for pt, model in models.items() if model},
                  point_images(comparison))


def point_images(comparison: C.Comparison) -> dict:
    """Each point of the run the image it ran, named by what tells it from the others (``labels.image_labels``, as
    `results show`'s image column), where the run's points ran more than one image; {} where they ran one. Its
    points are its throughput points and its eval scores' (``EvalVerdict.image``): every table of one report names
    an image alike, and has the column where the run ran more than one, whichever table shows which."""
    images = {pt: str(rec[R.IMAGE]) for pt, rec in comparison.heads.items() if rec.get(R.IMAGE) not in (None, "")}
    for e in comparison.evals:  # an eval-only job's point is in no other table
        if e.image:
            images.setdefault(e.point, e.image)
    said = L.image_labels(images.values())
    return {pt: said[image] for pt, image in images.items()} if len(said) > 1 else {}


def point_headers(naming: Naming, with_recipe: bool, run: str) -> tuple[str, ...]:
    """The headers of a table of points (HEADERS): the run's column named ``run``; the image and recipe change
    columns as ``_point_columns`` has them."""
    return _point_columns(_with_run(HEADERS, run), naming, with_recipe)


def _point_columns(headers: tuple[str, ...], naming: Naming, with_recipe: bool) -> tuple[str, ...]:
    """``headers`` (a point first, RECIPE_HEADER last) as a table of a comparison's points has them, its verdicts' or
    its eval scores': the recipe change's column only ``with_recipe`` (a row has one); an IMAGE_HEADER column after
    the point where ``naming`` names images (``point_images``: the run's points ran more than one)."""
    headers = headers if with_recipe else headers[:-1]
    return headers[:1] + (IMAGE_HEADER,) + headers[1:] if naming.images else headers


def _imaged(row: tuple[str, ...], pt: tuple, naming: Naming) -> tuple[str, ...]:
    """A row of point ``pt``'s cells with its image after its label where ``naming`` names images
    (``_point_columns``)."""
    return row[:1] + (naming.images.get(pt, ""),) + row[1:] if naming.images else row


def point_label(pt: tuple, naming: Naming = PLAIN) -> str:
    """config key (a point without one: the model its output names, else NO_KEY), hardware, scenario isl/osl,
    conc when the client stated one (and request rate, in a rate sweep: "rate ∞" for the unlimited one where
    its sweep is in ``naming.rated``); then the recipe's parts that are set, short (``labels.recipe_label``:
    ``tp8 spec mtp``)."""
    return " ".join(point_units(pt, naming))


def point_units(pt: tuple, naming: Naming = PLAIN) -> list[str]:
    """``point_label``'s parts, each read whole (``conc 32``, ``spec mtp``, ``lmcache (dram)``): where a
    label printed on a narrow terminal may break (new-user28: at 80 columns it read "... spec" over "mtp")."""
    fields = C.point_json(pt)
    key = fields[R.CONFIG_KEY]
    head = [str(key) if key is not None else naming.models.get(pt) or NO_KEY]
    head += [str(fields[name]) for name in (R.HARDWARE, R.SCENARIO) if fields[name] is not None]
    seq = [f"{fields[R.ISL]}/{fields[R.OSL]}"] if fields[R.ISL] is not None else []
    if fields[R.REQUEST_RATE] is not None:
        seq.append(f"rate {fields[R.REQUEST_RATE]}/s")
    elif naming.rated and _sweep(pt) in naming.rated:
        seq.append(f"rate {R.UNLIMITED_RATE}")
    if fields[R.CONC] is not None:
        seq.append(f"conc {fields[R.CONC]}")
    recipe = [word for word, absent in zip(L.recipe_parts(fields), L.ABSENT) if word != absent]
    return [part for part in (*head, *seq, *recipe) if part]


def cells(v: C.Verdict, naming: Naming = PLAIN) -> tuple[str, ...]:
    """One verdict as the table's cells (``point_headers``: HEADERS, with the point's image after it where
    ``naming`` names images); ``naming``: ``point_naming`` of its comparison."""
    return _imaged(_cells(v, naming), v.point, naming)


def _cells(v: C.Verdict, naming: Naming) -> tuple[str, ...]:
    mark, base_mark = (" (rehearsal)" if side else "" for side in v.sides)
    if v.verdict == C.FAILED:  # the job left no figures: say what it did and what it is missing
        base = count(v.n, "baseline run") if v.n else "none"
        return (point_label(v.point, naming), "(job)", f"{C.failure_words(v.status, v.detail)}{mark}", base, "n/a", v.verdict,
                C.change_words(v.recipe_changes))
    head, median, low, high = fmt_values([v.head, v.median, v.low, v.high], v.metric)
    if v.n == 0:
        base = "none"
    elif v.low is None:
        base = f"{median} (n={v.n})"
    else:
        base = f"{median} [{low}, {high}] (n={v.n})"
    change = "n/a" if v.verdict == C.NOT_COMPARED else \
        f"{fmt_change(v.change, v.threshold)} (\u00b1{fmt_threshold(v.threshold)})"  # no threshold applies
    return (point_label(v.point, naming), v.metric, head + mark, base + (base_mark if v.n else ""), change, v.verdict,
            C.change_words(v.recipe_changes))


def fmt_threshold(threshold: float) -> str:
    """The relative change a verdict other than unchanged needs: 5%, 2.5%, 0%."""
    return f"{threshold * 100:.3g}%"


def _figures(f: dict, samples: bool) -> str:
    n = f.get(R.EVAL_SAMPLES)
    return E.fmt_score(f[R.EVAL_VALUE], f[R.EVAL_STDERR]) + (f" (n={n})" if samples and n is not None else "")


def eval_cells(v: E.EvalVerdict, verdict: str | None = None, naming: Naming = PLAIN) -> tuple[str, ...]:
    """One eval score's verdict as the evals table's cells (``eval_headers``: EVAL_HEADERS, with the point's image
    after it where ``naming`` names images); the sample counts only
    where they differ (why such scores are not judged); the baseline's run id in the column after its score
    ("none" with no baseline; the throughput tables' baseline is a median of runs, their count its n). The
    verdict cell is ``verdict`` when given (the verdict with its reason or its note's number); the recipe change
    last, against the score's baseline run, as a point's verdict names it against main's newest run there."""
    counts = (None, None) if v.baseline is None else (v.baseline.get(R.EVAL_SAMPLES), v.head.get(R.EVAL_SAMPLES))
    samples = None not in counts and counts[0] != counts[1]
    mark, base_mark = (" (rehearsal)" if side else "" for side in v.sides)  # as a figure's cells say it
    base = "none" if v.baseline is None else _figures(v.baseline, samples) + base_mark
    run = "none" if v.baseline is None else str(v.baseline.get(R.RUN_ID))
    diff = "n/a" if v.difference is None else f"{v.difference:+.4f} ({v.margin:.4f})"
    row = (point_label(v.point, naming), E.score_label(v.task, v.metric, v.filter), _figures(v.head, samples) + mark,
           base, run, diff, verdict or v.verdict, C.change_words(v.recipe_changes))
    return _imaged(row, v.point, naming)


def eval_notes(evals: list[E.EvalVerdict]) -> dict[str, int]:
    """Each distinct reason a score was not judged -> its note's number (1, 2, ... in row order): the
    terminal table names a reason by number and prints it under the table, where it can wrap."""
    notes: dict[str, int] = {}
    for v in evals:
        if v.why:
            notes.setdefault(v.why, len(notes) + 1)
    return notes


def eval_summary(comparison: C.Comparison) -> str:
    counts = ", ".join(f"{n} {verdict}" for verdict, n in E.counts(comparison.evals).items() if n)
    return f"{count(len(comparison.evals), 'eval score')}: {counts}"


def _md_evals(comparison: C.Comparison, naming: Naming, max_rows: int | None = None, more: str = MORE,
              baseline_ref: str = C.DEFAULT_BASELINE_REF) -> list[str]:
    """The evals section (regressions first), only when the run has eval scores; its first
    ``max_rows`` rows when given (a report over its size limit; ``more``: where the rest are). A point
    is named in the first of its consecutive rows only (CONTRACTS §8), as ``_md_table`` names it."""
    if not comparison.evals:
        return []
    shown = comparison.evals if max_rows is None else comparison.evals[:max_rows]
    rows = [eval_cells(v, f"{v.verdict}: {v.why}" if v.why else None, naming) for v in shown]
    headers = eval_headers(comparison, baseline_ref, naming, any(row[-1] for row in rows))
    lines = [f"#### Evals ({eval_summary(comparison)})", "",
             "| " + " | ".join(map(_md_escape, headers)) + " |", "|" + "---|" * len(headers)]
    lines += _md_rows(rows, [v.point for v in shown], headers, naming)  # a point named once, as in every table
    if len(shown) < len(comparison.evals):
        lines.append(f"\n{count(len(comparison.evals) - len(shown), 'more eval row')}: {more}.")
    return lines + [""]


def sections(comparison: C.Comparison) -> list[tuple[str, list[C.Verdict]]]:
    """The report's sections; regressions and improvements point by point, the point with the
    largest change first (a sweep's -13 % before its -5 %, whatever their config keys), each
    point's rows together in metric order; the others in point order."""
    out = []
    for title, verdicts in SECTIONS:
        rows = [v for v in comparison.verdicts if v.verdict in verdicts]
        if verdicts == NOT_JUDGED:  # a point with a change too large for its threshold first
            rows = points_together(rows, lambda v: not _beyond(v))
        if verdicts in ((C.REGRESSED,), (C.IMPROVED,)):
            rows = points_together(rows, lambda v: -abs(v.change or 0.0))
        out.append((title, rows))
    return out


def points_together(rows: list[C.Verdict], rank) -> list[C.Verdict]:
    """``rows`` point by point, the point whose best row ranks lowest (``rank``) first, ties in the order
    the points came; each point's rows together, in the order given (a point's rows once sorted row by
    row, its success_rate, 0 % off, trailed the other points' rows: named twice in Markdown)."""
    best: dict[tuple, object] = {}
    first: dict[tuple, int] = {}
    for i, v in enumerate(rows):
        r = rank(v)
        best[v.point] = r if v.point not in best else min(best[v.point], r)
        first.setdefault(v.point, i)
    return sorted(rows, key=lambda v: (best[v.point], first[v.point]))  # stable: each point's order kept


def unchanged_by_point(comparison: C.Comparison) -> dict[tuple, list[C.Verdict]]:
    """Each point's unchanged rows, in metric order."""
    out: dict[tuple, list[C.Verdict]] = {}
    for v in comparison.verdicts:
        if v.verdict == C.UNCHANGED:
            out.setdefault(v.point, []).append(v)
    return out


def together(rows: list[C.Verdict], unchanged: dict[tuple, list[C.Verdict]], placed: set) -> list[C.Verdict]:
    """One section's ``rows`` (of ``sections``, in order) with each point's unchanged rows right after its
    own, in the first section that lists the point (``placed`` gathers those points), and left out of the
    Unchanged section: a point's rows stay together (a slowed sweep's success_rate rows, each unchanged,
    trailed the report far from their points). ``unchanged``: ``unchanged_by_point``, or {} for none."""
    out = []
    for i, v in enumerate(rows):
        if v.verdict == C.UNCHANGED and v.point in placed:
            continue
        out.append(v)
        if v.verdict != C.UNCHANGED and v.point not in placed and (i + 1 == len(rows) or rows[i + 1].point != v.point):
            placed.add(v.point)
            out += unchanged.get(v.point, [])
    return out


def tally(verdicts: list[C.Verdict]) -> dict[str, tuple[int, int]]:
    """verdict -> (points, metrics) of ``verdicts``: a point counts under each verdict one of its rows
    has, and under unchanged only when all of them are unchanged (a changed point's unchanged rows are
    listed with it); metrics: its rows of that verdict (a failed job has one row, no metric)."""
    by_point: dict[tuple, list[str]] = {}
    for v in verdicts:
        by_point.setdefault(v.point, []).append(v.verdict)
    out = dict.fromkeys(C.VERDICTS, (0, 0))
    for kinds in by_point.values():
        for verdict in set(kinds) - ({C.UNCHANGED} if len(set(kinds)) > 1 else set()):
            points, metrics = out[verdict]
            out[verdict] = (points + 1, metrics + kinds.count(verdict))
    return out


def counted(verdict: str, points: int, metrics: int, beyond: int = 0) -> str:
    """One verdict's count in points, with its metrics where they are not all of the points' ("1 point
    regressed (2 metrics)"; "3 points unchanged", "1 point failed": a failed job has no metric), and
    ``beyond``: how many of those metrics, not judged, changed beyond their threshold (``_beyond``)."""
    text = f"{count(points, 'point')} {verdict}"
    if not points or verdict in (C.FAILED, C.UNCHANGED):
        return text
    return text + f" ({count(metrics, 'metric')}" + (f"; {beyond} {_beyond_words(beyond)}" if beyond else "") + ")"


CHANGES = (C.FAILED, C.REGRESSED, C.IMPROVED)  # the verdicts the headline names, or says none has
NOTHING_CHANGED = "nothing failed, regressed or improved"  # the headline's words when no point or score did
NOTHING_COMPARED = "nothing to compare"  # the headline's words for a run without a point or a score
NOT_MEASURED_COUNT = C.NOT_MEASURED  # the headline's word for the points main has and the run did not measure


def summary_line(comparison: C.Comparison, baseline_ref: str, window: int) -> str:
    """The headline: the baseline ref as every note names it (``record.short_ref``), the window (and how many baseline runs the points had, when some had fewer: ``3
    found``, or ``3–5 found`` when they differ, as the charts' legends say it; it named the most, 5,
    beside a point judged on 3), the points' counts (``tally``: each verdict's points and metrics, as
    the sections count them), then, in a run with eval scores, theirs (an eval regression fails
    --fail-on-regression as a point's does). An eval-only run's window is its
    scores' (``_eval_window``): no point's count, whose "0 found" read as no baseline at all. Only the
    verdicts some point or score has are counted (s38f: "0 points failed, 0 points regressed, 0 points
    improved, 8 points unchanged, 0 points insufficient-data, 0 points new" hid its one count among five
    zeros); when none failed, regressed or improved, the counts begin with NOTHING_CHANGED, and a run
    with nothing to count says NOTHING_COMPARED. The points main's newest run has and the run did not measure
    end the counts, NOT_MEASURED_COUNT (new user s41l: the headline left them out, the blockquote under it
    alone named them)."""
    beyond = sum(map(_beyond, comparison.verdicts))  # s44d: "nothing ... regressed" over a -12 % not judged
    points = [counted(verdict, *n, beyond=beyond if verdict == C.INSUFFICIENT else 0)
              for verdict, n in tally(comparison.verdicts).items() if n[0]]
    if dropped := sum(m.what is None for m in comparison.not_measured):
        points.append(f"{count(dropped, 'point')} {NOT_MEASURED_COUNT}")
    scores = [f"{n} {verdict}" for verdict, n in E.counts(comparison.evals).items() if n]
    changed = {v.verdict for v in comparison.verdicts} | {e.verdict for e in comparison.evals}
    quiet = [NOTHING_CHANGED] if not changed & set(CHANGES) and (points or scores) else []
    counts = "; ".join([*quiet, *([", ".join(points)] if points else []),
                        *([f"eval scores: {', '.join(scores)}"] if scores else [])]) or NOTHING_COMPARED
    found = sorted({v.n for v in comparison.verdicts if v.n})  # a new point has no baseline run
    many = f"{found[0]}\u2013{found[-1]}" if len(found) > 1 else f"{found[0]}" if found else ""
    at = C.NEWEST_RECIPE if any(v.passed_over for v in comparison.verdicts) else ""  # runs of another passed over
    runs = (f"last {window} runs; none at these points" if not found  # "0 found" read as main having no runs
            else f"last {window} runs" if found[0] >= window else f"last {window} runs; {many} found{at}")
    if comparison.evals and not comparison.verdicts:
        runs = _eval_window(comparison.evals, window)
    return f"run {comparison.run} against {R.short_ref(baseline_ref)} ({runs}): {counts}"


def passed_over_note(comparison: C.Comparison, baseline_ref: str, shown: int = 3) -> str | None:
    """Say where the baseline ref changed a point's recipe within the window (``C.PassedOver``): the run's points
    there are judged against its runs of the newest recipe alone, the older ones passed over; how many runs, what
    changed and from which run, and how many points that left too few runs to judge (``Verdict.why``)."""
    passed = [p for pt, p in comparison.passed_over.items() if pt in comparison.heads]
    if not passed:
        return None
    ref = R.short_ref(baseline_ref)
    changes = list(dict.fromkeys(f"{p.change()} from run {p.since.get(R.RUN_ID)}" for p in passed))
    named = "; ".join(changes[:shown]) + (f"; and {len(changes) - shown} more" if len(changes) > shown else "")
    runs = len({str(r.get(R.RUN_ID)) for p in passed for r in p.runs})
    short = len({v.point for v in comparison.verdicts if v.why and not v.client})
    one = len(passed) == 1
    return (f"At {count(len(passed), 'point')} {ref} changed the recipe within the window ({named}): "
            f"{'it is' if one else 'they are'} judged against {ref}'s runs of the newest recipe alone, "
            f"{count(runs, 'older run')} of another recipe passed over"
            + (f"; {count(short, 'point')} {'has' if short == 1 else 'have'} fewer than --min-samples such runs: "
               f"insufficient-data until {ref} has run the new recipe that often" if short else "") + ".")


def client_note(comparison: C.Comparison, baseline_ref: str, shown: int = 3) -> str | None:
    """Say at how many points the run was measured with another benchmark client than the baseline ref's runs
    (``C.not_comparable``), which: those points are insufficient-data, shown beside the baseline's figures and
    never judged against them (``Verdict.client``)."""
    apart = {v.point: v.client for v in comparison.verdicts if v.client}
    if not apart:
        return None
    ref = R.short_ref(baseline_ref)
    changes = list(dict.fromkeys(apart.values()))
    named = "; ".join(changes[:shown]) + (f"; and {len(changes) - shown} more" if len(changes) > shown else "")
    one = len(apart) == 1
    return (f"At {count(len(apart), 'point')} this run used another benchmark client than {ref}'s runs ({named}): "
            f"{C.NOT_COMPARABLE}, so {'its figures are' if one else 'their figures are'} not judged against "
            f"{ref}'s: insufficient-data until {ref}'s runs there use this client too.")


def rehearsal_apart_note(comparison: C.Comparison, baseline_ref: str) -> str | None:
    """Say at how many points one side is a rehearsal and the other real (``C.rehearsal_apart``): C.REHEARSAL_APART,
    the baseline's figures shown beside the run's, no change stated or judged (review s51h: a rehearsal against
    main's GPU runs read "+99842564.9% improved"); its eval scores so too (``evals.point_verdicts``)."""
    apart = [v for v in comparison.verdicts if v.verdict == C.NOT_COMPARED]
    apart += [e for e in comparison.evals if e.why and e.why.startswith(C.REHEARSAL_APART)]
    if not apart:
        return None
    points, ref = {v.point for v in apart}, R.short_ref(baseline_ref)
    one, stand_in = len(points) == 1, any(v.sides[0] for v in apart)  # the run's side is the rehearsal
    who = (f"this run is a rehearsal (the stand-in server of sweepgate rehearse) and {ref}'s runs there are real"
           if stand_in else f"{ref}'s runs there are rehearsals (the stand-in server of sweepgate rehearse) and "
           "this run is real")
    return (f"At {count(len(points), 'point')} {who}: {C.REHEARSAL_APART}. {'Its' if one else 'Their'} figures are "
            f"shown beside {ref}'s with no change stated or judged ({C.NOT_COMPARED}"
            + (f"; an eval score {E.NOT_JUDGED}" if any(isinstance(v, E.EvalVerdict) for v in apart) else "")
            + "): a rehearsal tests the pipeline, not performance.")


def _eval_window(evals: list, window: int) -> str:
    """The headline's window of an eval-only run: each score is judged against the newest of the last
    ``window`` baseline runs that has it as the run ran it (``evals.baseline_entry``), never a median of them, so
    no count of runs; ``0 found`` when no score had one (a failed job's ``(job)`` row looked for none)."""
    looked = [e for e in evals if e.task != E.JOB]
    none = looked and not any(e.baseline for e in looked)
    return f"newest of last {window} runs" + ("; 0 found" if none else "")


def points_line(comparison: C.Comparison) -> str | None:
    """The headline counts a point under each verdict it has (``tally``): this says how many points
    there are, each under its worst verdict ("8 points, each by its worst verdict:
    1 failed, 1 regressed, ..."). Unchanged is the best: a point is unchanged only when every row is, as
    ``tally`` counts it (a point with one metric not judged read "unchanged" here and not in the headline).
    None where the headline counts each point once (under one verdict): then this says its counts again
    (new user s41l: "8 points, each by its worst verdict: 1 regressed, 1 improved, 6 unchanged" under
    "1 point regressed (5 metrics), 1 point improved (5 metrics), 6 points unchanged")."""
    severity = [v for v in C.VERDICTS if v != C.UNCHANGED] + [C.UNCHANGED]
    worst: dict[tuple, int] = {}
    for v in comparison.verdicts:
        rank = severity.index(v.verdict)
        worst[v.point] = min(rank, worst.get(v.point, rank))
    if not worst or sum(points for points, _ in tally(comparison.verdicts).values()) == len(worst):
        return None
    counts = [(verdict, sum(severity[r] == verdict for r in worst.values())) for verdict in C.VERDICTS]
    return f"{count(len(worst), 'point')}, each by its worst verdict: " + ", ".join(
        f"{n} {verdict}" for verdict, n in counts if n)


def _measured_commits(comparison: C.Comparison) -> list[str]:
    """The full SHAs of the commits the run's records say they measured, sorted."""
    records = [*comparison.heads.values(), *(e.head for e in comparison.evals)]
    return sorted({c for r in records if isinstance(c := r.get(R.COMMIT), str) and COMMIT_SHA.fullmatch(c)})


def measured_text(comparison: C.Comparison) -> str | None:
    """``measured_note`` as plain text, for the terminal's report (s48d: a commit given to `ingest --commit`
    was named in the Markdown only, so a maintainer comparing by hand could not see it was taken)."""
    if not (commits := _measured_commits(comparison)):
        return None
    plural = "s" if len(commits) > 1 else ""
    return f"Measured on commit{plural} {', '.join(map(short_sha, commits))} (run {printable(str(comparison.run))})."


def measured_note(comparison: C.Comparison) -> str | None:
    """Name the commit(s) the run measured: a PR's comment stays up when a later push runs no
    sweep (no changelog entry), and must not then read as the newer head's results."""
    commits = _measured_commits(comparison)
    if not commits:
        return None
    plural = "s" if len(commits) > 1 else ""
    web = github.repository_url()
    named = ", ".join(f"[`{short_sha(c)}`]({web}/commit/{c})" if web else f"`{short_sha(c)}`" for c in commits)
    run = comparison.run
    linked = web and str(run).isascii() and str(run).isdigit()  # a GitHub run id (`²` is isdigit() too)
    run_text = f"[run {run}]({github.run_page(web, run)})" if linked else f"run {_md_escape(str(run))}"
    return f"Measured on commit{plural} {named} ({run_text})."


def repeated_note(comparison: C.Comparison, shown: int = 3, naming: Naming | None = None) -> str | None:
    """Say which points the run measured more than once (each judged by its measurements' median);
    ``naming``: the report's ``point_naming`` (built here when not given)."""
    if not comparison.repeated:
        return None
    items = sorted(comparison.repeated.items(), key=lambda item: C.point_sort_key(item[0]))
    naming = naming or point_naming(comparison)
    named = ", ".join(f"{point_label(pt, naming)} ({n}\u00d7)" for pt, n in items[:shown])
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    were = "point was" if len(items) == 1 else "points were"
    return (f"{len(items)} {were} measured more than once in this run; each is judged by the median "
            f"of its measurements: {named}{more}.")


def _not_measured_label(m: C.NotMeasured, naming: Naming) -> str:
    return point_label(m.point, naming) + (f": {m.what}" if m.what else "")


def _not_measured_parts(items: list[C.NotMeasured], of: str = "") -> list[str]:
    """What ``items`` are, counted by kind: ``2 points``, ``1 metric`` (+ ``of``), ``eval scores at 1 point``."""
    points = sum(m.what is None for m in items)
    evals = sum(m.what == C.EVAL_SCORES for m in items)
    metrics = len(items) - points - evals
    return ([count(points, "point")] if points else []) + (
        [f"{count(metrics, 'metric')}{of}"] if metrics else []) + (
        [f"eval scores at {count(evals, 'point')}"] if evals else [])


def not_measured_note(comparison: C.Comparison, baseline_ref: str, shown: int = 3,
                      naming: Naming | None = None) -> str | None:
    """Say what the baseline's newest runs of the run's config keys measured and the run did not
    (points, metrics, eval scores): never judged, but a dropped point must not read as clean.
    ``naming``: the report's ``point_naming`` (built here when not given)."""
    items = comparison.not_measured
    if not items:
        return None
    parts = _not_measured_parts(items, " of points it measured")
    naming = naming or point_naming(comparison)
    named = "; ".join(_not_measured_label(m, naming) for m in items[:shown])
    more = f"; and {len(items) - shown} more" if len(items) > shown else ""
    ref = R.short_ref(baseline_ref)
    # a trimmed sweep explains a dropped point, not a metric or eval scores missing at a point it measured
    trimmed = "a trimmed sweep runs fewer concurrencies; " if any(m.what is None for m in items) else ""
    return (f"Not measured by this run, though {ref}'s newest run of the same config keys has them: "
            f"{', '.join(parts)} ({named}{more}). Not judged: {trimmed}check that none was dropped by mistake.")


def not_compared_notes(comparison: C.Comparison) -> list[str]:
    """One line per metric the run could not compare where its output states nothing it is computed from, and
    why (``C.NotCompared``): "success_rate not compared at 4 points: GenAI-Perf's output states no failed-request
    count." (new user s41l: those points were judged on one metric fewer, nothing saying which or why)."""
    return [f"{n.metric} not compared at {count(len(n.points), 'point')}: {n.reason}." for n in comparison.not_compared]


def _md_not_measured(comparison: C.Comparison, baseline_ref: str, naming: Naming) -> list[str]:
    """The folded list of what the run did not measure (``not_measured_note`` says how many)."""
    if not comparison.not_measured:
        return []
    rows = [f"| {_md_escape(point_label(m.point, naming))} | {_md_escape(m.what) if m.what else 'the whole point'} | {_md_escape(m.baseline_run)} |"
            for m in comparison.not_measured]
    return ["<details>", f"<summary>Not measured by this run: {', '.join(_not_measured_parts(comparison.not_measured))}"
            "</summary>", "",
            f"| point | not measured | {_md_escape(ref_run(baseline_ref))} |", "|---|---|---|", *rows, "",
            "</details>", ""]


def _md_not_measured_counted(comparison: C.Comparison, more: str = MORE) -> list[str]:
    """``_md_not_measured`` in a report too large for it: how much the run did not measure, and where the
    whole list is (review: cut, the fold went, and the note under the headline named three points
    "and 47 more", the rest nowhere)."""
    if not comparison.not_measured:
        return []
    return [f"Not measured by this run: {', '.join(_not_measured_parts(comparison.not_measured))} "
            f"(too many to list here; {more}).", ""]


# An invisible character (U+2060 WORD JOINER) put where GitHub would turn a result's text into a link or a
# notification: after the `@` of a mention, a team or an e-mail address (`@org/team`, `a@b.io`), after the `#`
# of an issue reference and the `-` of `GH-12`, between `:` and `//` of a bare URL and after a bare `www`.
WORD_JOINER = "\u2060"
_AUTOLINKED = re.compile(r"(?<=@)(?=[A-Za-z0-9])|(?<=#)(?=[0-9])|(?<=\bGH-)(?=[0-9])|(?<=:)(?=//)|(?<=\bwww)(?=\.)",
                         re.IGNORECASE)
# Markdown that would make a result's text other text: a backslash (it would undo the escapes here), a
# backtick (a code span, where they read as written), emphasis and strike-through marks, `|` (a new cell),
# and a `]` that closes a link's or an image's text (`[x](url)`, `![i](url)`, `[x][ref]`).
_MARKDOWN = re.compile(r"[\\`*~|]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|\](?=[(\[])")


def _md_escape(text: str) -> str:
    """A value as one Markdown table cell or line, read as the text it is: no raw HTML (a key with `<!--` hid
    the rest of the comment), no line break (it split the row), no bare `|` (a new cell), no link or image,
    no @mention, issue reference or bare URL GitHub would link (``WORD_JOINER``), no code span or emphasis.
    Every string a result or a pull request controls (config key, model, engine, recipe, notes) enters the
    report through here."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # a control character as an escape (``printable``; its backslash escaped below): --markdown writes the
    # report to a terminal, and a comment file is read in one
    text = _MARKDOWN.sub(lambda m: "\\" + m[0], printable(" ".join(text.splitlines())))
    return _AUTOLINKED.sub(WORD_JOINER, text)


def _md_table(verdicts: list[C.Verdict], naming: Naming = PLAIN, run: str = PR_COLUMN) -> list[str]:
    """The verdicts as a Markdown table, a point named once (with its recipe change), in the first of
    its rows (review: one point's six rows repeated its 60-character name six times): the rows under
    it, their point cell empty, are its other metrics. ``run``: the run's column (``run_column``)."""
    rows = [cells(v, naming) for v in verdicts]
    headers = point_headers(naming, any(r[-1] for r in rows), run)
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return lines + _md_rows(rows, [v.point for v in verdicts], headers, naming)


def _md_rows(rows: list[tuple[str, ...]], points: list[tuple], headers: tuple[str, ...], naming: Naming) -> list[str]:
    """A table of points' ``rows`` (of ``points``; their recipe change last) as Markdown rows under ``headers``
    (``_point_columns``): a point's label, and its image, in the first of its consecutive rows only, its recipe
    change again only where it differs from the row's above."""
    named = 2 if naming.images else 1  # the point's cells said in its first row alone: its label, its image
    lines = []
    for i, row in enumerate(rows):
        if i and points[i - 1] == points[i]:  # and its recipe change, said once too
            row = ("",) * named + (*row[named:-1], "" if row[-1] == rows[i - 1][-1] else row[-1])
        lines.append("| " + " | ".join(_md_escape(c) for c in row[:len(headers)]) + " |")
    return lines


def _beyond(v: C.Verdict) -> bool:
    """A not-judged row whose change would have counted (too few baseline runs to tell it from noise)."""
    return v.verdict == C.INSUFFICIENT and v.change is not None and abs(v.change) > v.threshold


def _kinds(verdicts: list[C.Verdict]) -> str:
    """A section's count in the headline's words, by verdict (``tally``; review: the headline said "6
    new" and no section did, and a heading counted rows where its text counted points):
    ``1 point insufficient-data (6 metrics), 6 points new (36 metrics)``; ``3 points (18 metrics)``
    for a section of one kind, ``1 point`` for failed jobs."""
    counts = {verdict: n for verdict, n in tally(verdicts).items() if n[0]}
    if len(counts) > 1 or set(counts) & set(NOT_JUDGED):
        return ", ".join(counted(verdict, *n) for verdict, n in counts.items())
    points, metrics = next(iter(counts.values()), (0, 0))
    if set(counts) == {C.FAILED}:
        return count(points, "point")
    return f"{count(points, 'point')}, {count(metrics, 'metric')}"


def _points_metrics(rows: list[C.Verdict]) -> str:
    """``1 point, 2 metrics``: how many points ``rows`` are of, and how many rows (each a metric)."""
    return f"{count(len({v.point for v in rows}), 'point')}, {count(len(rows), 'metric')}"


def _large_unjudged(verdicts: list[C.Verdict]) -> str:
    """``; 1 changed beyond its threshold, listed above``: so a folded section does not hide a -40 %
    (those rows are also listed open, before the folds)."""
    n = sum(map(_beyond, verdicts))
    return f"; {count(n, 'metric')} {_beyond_words(n)}, listed above" if n else ""


def _beyond_words(n: int) -> str:
    """What ``n`` not-judged metrics did (``_beyond``), as the headline and the folds say it."""
    return f"changed beyond {'its' if n == 1 else 'their'} threshold"


def _md_beyond(comparison: C.Comparison, naming: Naming, max_rows: int | None, more: str = MORE) -> list[str]:
    """The not-judged rows that changed beyond their threshold, open: with one or two baseline
    runs a -10 % is not judged, but it must not sit at row 50 of a fold."""
    rows = [v for v in comparison.verdicts if _beyond(v)]
    if not rows:
        return []
    rows = points_together(rows, lambda v: -abs(v.change))  # each point's rows in metric order, as elsewhere
    shown = rows[:max_rows] if max_rows is not None else rows
    apart = [v for v in rows if v.client]  # measured with another client (``C.not_comparable``): no noise to tell
    other = "another benchmark client than the baseline runs (see the note above)"
    why = ("Too few baseline runs to tell these from noise" if not apart else f"Measured with {other}"
           if len(apart) == len(rows) else f"Too few baseline runs to tell these from noise, or measured with {other}")
    out = [f"#### Not judged, changed beyond the threshold ({_points_metrics(rows)})", "",
           f"{why}; look at them before merging.", "",
           *_md_table(shown, naming, run_column(comparison))]
    if len(shown) < len(rows):
        out.append(f"\n{count(len(rows) - len(shown), 'more such row')}: {more}.")
    return out + [""]


def _md_open(comparison: C.Comparison, naming: Naming, folded_rows: bool, max_rows: int | None, placed: set,
             more: str = MORE, baseline_ref: str = C.DEFAULT_BASELINE_REF) -> list[str]:
    """The sections listed open: failed jobs, regressions, then improvements (README), the eval scores' table
    (``_md_evals``) among the regressions when a score regressed or its job failed (new user s40f: `#### Improved`
    came first, a gsm8k score 5 points down under it), else after the improvements."""
    evals = _md_evals(comparison, naming, max_rows, more, baseline_ref)
    if not any(e.verdict in C.FAILING for e in comparison.evals):
        return _md_sections(comparison, naming, folded_rows, max_rows, True, placed, more) + evals
    regressions = tuple(title for title in OPEN_SECTIONS if title != IMPROVED_SECTION)
    return (_md_sections(comparison, naming, folded_rows, max_rows, True, placed, more, regressions) + evals
            + _md_sections(comparison, naming, folded_rows, max_rows, True, placed, more, (IMPROVED_SECTION,)))


def _md_sections(comparison: C.Comparison, naming: Naming, folded_rows: bool, max_rows: int | None, opened: bool,
                 placed: set, more: str = MORE, titles: tuple[str, ...] | None = None) -> list[str]:
    """The verdict sections that are listed open (``opened``) or the folded ones (of ``titles`` when given);
    with ``folded_rows``, each point's unchanged rows under its own (``together``; ``placed``: shared by every
    call). The rows of ``new_points``, listed open by ``_md_new``, are left out of the folds, which say so. A
    section cut (``max_rows``), or a fold left out, says where its rows are: ``more``."""
    out, run = [], run_column(comparison)
    unchanged = unchanged_by_point(comparison) if folded_rows else {}
    listed_new = {id(v) for rows in new_points(comparison).values() for v in rows}
    for title, verdicts in sections(comparison):
        new_above = len({v.point for v in verdicts if id(v) in listed_new})
        verdicts = [v for v in verdicts if id(v) not in listed_new]
        if not verdicts or (title in OPEN_SECTIONS) != opened or (titles is not None and title not in titles):
            continue
        if title in OPEN_SECTIONS:
            shown = _kept(verdicts, _section_rows(title, max_rows))
            out += [f"#### {title} ({_kinds(verdicts)})", "", *_md_table(together(shown, unchanged, placed), naming, run)]
            if len(shown) < len(verdicts):
                out.append(f"\n{count(len(verdicts) - len(shown), f'more {title.lower()} row')}{_by_metric(verdicts)}: {more}.")
            out.append("")
        elif folded_rows:
            out += _md_fold(title, verdicts, together(verdicts, unchanged, placed), new_above, naming, run)
        else:
            out += [_md_uncounted(title, verdicts, comparison, more), ""]
    return out


def _md_uncounted(title: str, verdicts: list[C.Verdict], comparison: C.Comparison, more: str = MORE) -> str:
    """A section too large for the comment, counted, not listed. Unchanged counts only the points whose
    every row is unchanged, as the headline does (new-user28: a sweep of 300 regressed points read "0
    points unchanged" in the headline and "Unchanged: 300 points, 593 metrics" at the foot); the
    unchanged rows of points with another verdict are counted apart."""
    moved: list[C.Verdict] = []
    if title == "Unchanged":
        changed = {v.point for v in comparison.verdicts if v.verdict != C.UNCHANGED}
        moved = [v for v in verdicts if v.point in changed]
        verdicts = [v for v in verdicts if v.point not in changed]
    points = len({v.point for v in moved})
    if moved and not verdicts:  # every point changed somewhere (a whole sweep slowed): no "0 points" first
        return (f"{title}: {count(len(moved), 'unchanged metric')} of {count(points, 'point')} counted above "
                f"(too many to list here; {more}).")
    above = (f"; {count(len(moved), 'unchanged metric')} of {count(points, 'other point')} counted above"
             if moved else "")
    return f"{title}: {_kinds(verdicts)}{_large_unjudged(verdicts)}{above} (too many to list here; {more})."


def _md_fold(title: str, verdicts: list[C.Verdict], listed: list[C.Verdict], new_above: int,
             naming: Naming, run: str = PR_COLUMN) -> list[str]:
    """One folded section: ``listed`` (``together``) in ``<details>``, its summary counting what it holds
    as the headline counts (``_kinds``) and what is listed above instead (unchanged rows with their
    points, ``new_above`` new points)."""
    ids = {id(v) for v in listed}
    moved = [v for v in verdicts if id(v) not in ids]
    others = len({v.point for v in moved})
    them = "it" if others == 1 else "them"
    above = f"; {count(len(moved), 'unchanged metric')} of {count(others, 'other point')} listed above with {them}" \
        if moved else ""
    above += f"; {count(new_above, 'new point')} listed above" if new_above else ""
    if not listed:  # all beside their points: a fold would hold a table of headers alone
        return [f"{title}: {count(len(moved), 'metric')} of {count(others, 'point')}, listed above with {them}.", ""]
    return ["<details>", f"<summary>{title}: {_kinds(listed)}{_large_unjudged(verdicts)}{above}</summary>",
            "", *_md_table(listed, naming, run), "", "</details>", ""]


NEW_SHOWN = 12  # a run's new points listed open with their figures, up to this many; more stay in the fold


def new_points(comparison: C.Comparison) -> dict[tuple, list[C.Verdict]]:
    """The points no baseline run has measured (each of their verdicts ``new``: a config key, recipe,
    sequence length or concurrency the PR adds), with their rows, when there are at most NEW_SHOWN: what a maintainer wants to see of
    such a PR, so listed open (``_md_new``), not in the Not judged fold; none when there are more."""
    by_point: dict[tuple, list[C.Verdict]] = {}
    for v in comparison.verdicts:
        by_point.setdefault(v.point, []).append(v)
    new = {pt: rows for pt, rows in by_point.items() if all(v.verdict == C.NEW for v in rows)}
    return new if len(new) <= NEW_SHOWN else {}


def _md_new(comparison: C.Comparison, baseline_ref: str, naming: Naming, max_rows: int | None,
            more: str = MORE) -> list[str]:
    """``new_points`` open, one row a point with its measured figures (a column a metric, named as
    `results show` names it); the first ``max_rows`` points in a report over its size limit."""
    new = new_points(comparison)
    if not new:
        return []
    points = list(new.items()) if max_rows is None else list(new.items())[:max_rows]
    out = [f"#### New ({count(len(new), 'point')})", "", f"{count(len(new), 'point')} no {_md_escape(R.short_ref(baseline_ref))} run has measured "
           f"(a config key, recipe, sequence length or concurrency this run adds): "
           f"{'its' if len(new) == 1 else 'their'} figures, not judged.", ""]
    metrics = list(dict.fromkeys(v.metric for pt_rows in new.values() for v in pt_rows))
    names = {metric: header for header, metric in show.COLUMNS}
    if points:
        headers = ["point", *[IMAGE_HEADER] * bool(naming.images), *(names.get(m, m) for m in metrics)]
        out += ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for pt, pt_rows in points:
        figures = {v.metric: fmt_value(v.head, v.metric) + (" (rehearsal)" if v.sides[0] else "") for v in pt_rows}
        row = [point_label(pt, naming), *[naming.images.get(pt, "")] * bool(naming.images),
               *(figures.get(m, "n/a") for m in metrics)]
        out.append("| " + " | ".join(map(_md_escape, row)) + " |")
    if len(points) < len(new):
        out.append(f"\n{count(len(new) - len(points), 'more new point')}: {more}.")
    return out + [""]


IMPROVED_SHARE = 4  # a report over its limit keeps a quarter as many improved rows as failed or regressed


def _section_rows(title: str, max_rows: int | None) -> int | None:
    """How many rows of an open section a report cut to ``max_rows`` keeps: improvements go first."""
    if max_rows is None or title != IMPROVED_SECTION:
        return max_rows
    return max_rows // IMPROVED_SHARE


def _kept(verdicts: list[C.Verdict], n: int | None) -> list[C.Verdict]:
    """The first ``n`` rows, but every metric among them: a cut section keeps each metric's first
    rows (as many as an even share allows, at least one) before filling up in section order, so
    a success-rate regression is not pushed out by a hundred larger throughput ones."""
    if n is None or n >= len(verdicts):
        return verdicts
    metrics = list(dict.fromkeys(v.metric for v in verdicts))
    share, taken, chosen = max(n // max(len(metrics), 1), 1), dict.fromkeys(metrics, 0), set()
    for i, v in enumerate(verdicts):
        if len(chosen) < n and taken[v.metric] < share:
            taken[v.metric] += 1
            chosen.add(i)
    for i in range(len(verdicts)):
        if len(chosen) >= n:
            break
        chosen.add(i)
    return [v for i, v in enumerate(verdicts) if i in chosen]


def _by_metric(verdicts: list[C.Verdict]) -> str:
    """`` (success_rate 240, output_tput_per_gpu 720)``: what a cut section holds, metric by metric."""
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.metric or "job"] = counts.get(v.metric or "job", 0) + 1
    return f" ({', '.join(f'{m} {n}' for m, n in counts.items())} in all)" if len(counts) > 1 else ""


UNCHANGED_SHOWN = 100  # a terminal table lists this many unchanged rows at most (--all: every one)
CUT_ROWS = (400, 200, 100, 50, 25, 10, 0)  # a section's rows kept, in turn, when a report is over its limit


def about_line(pr: int | None, run: str) -> str:
    """The hidden line naming the PR (when known) and the run a comment body reports on (``ABOUT``)."""
    from urllib.parse import quote

    return f"{ABOUT_START}{f' pr={pr}' if pr else ''} run={quote(str(run), safe='')} -->"


def about_of(body: str) -> tuple[int | None, str | None] | None:
    """(PR or None, run) a comment body names on its second line (``about_line``); None when it names
    nothing (a hand-written report, or one an older sweepgate wrote); ValueError when that line starts as
    compare writes it and does not parse (edited, or cut)."""
    from urllib.parse import unquote

    lines = body.split("\n", 2)
    found = ABOUT.fullmatch(lines[1].strip()) if len(lines) > 1 else None
    if not found:
        if len(lines) > 1 and lines[1].strip().startswith(ABOUT_START):
            raise ValueError(lines[1].strip())  # compare's line, altered: what it said cannot be told
        return None
    return (int(found["pr"]) if found["pr"] else None), unquote(found["run"])


def markdown(comparison: C.Comparison, baseline_ref: str = C.DEFAULT_BASELINE_REF,
             window: int = C.DEFAULT_WINDOW, charts: list[str] | None = None, limit: int | None = None,
             charts_folder: str | ChartsFolder | None = None, about: str | None = None, more: str = MORE) -> str:
    """The step summary / PR comment body (starts with MARKER), within ``limit`` UTF-8 bytes if given:
    first the folded rows go, then changed rows, as few as it takes (the first 400, 200, ... 10).
    ``charts_folder``: where ``charts`` were written (``charts_paragraph``); that paragraph follows the
    open sections, before the folds (review: below a folded Unchanged list and the not-measured list,
    the charts of a regression were the comment's last line, far from its table). ``about``: a PR
    comment's ``about_line``, put under the marker. ``more``: where a cut report says the rows it left
    out are, after "N more regressed rows: " (MORE, or what the caller knows its reader can open)."""
    return fitted_markdown(comparison, baseline_ref, window, charts, limit, charts_folder, about, more)[0]


def fitted_markdown(comparison: C.Comparison, baseline_ref: str = C.DEFAULT_BASELINE_REF,
                    window: int = C.DEFAULT_WINDOW, charts: list[str] | None = None, limit: int | None = None,
                    charts_folder: str | ChartsFolder | None = None, about: str | None = None,
                    more: str = MORE) -> tuple[str, bool]:
    """(``markdown``'s body, whether it is whole: nothing cut to fit ``limit``), so a caller can tell
    whether another report may point at this one for the rows it left out. Its points are named once
    (``point_naming``), for every section and every try at the limit."""
    naming = point_naming(comparison)
    head = [MARKER, *([about] if about else []), f"### sweepgate results: {_md_escape(summary_line(comparison, baseline_ref, window))}", ""]
    if comparison.rehearsal:
        head += [f"> **{REHEARSAL_NOTE}**", ""]
    head += [line for note in comparison.notes for line in (f"> **{_md_escape(note)}**", "")]
    if note := measured_note(comparison):
        head += [note, ""]
    if line := points_line(comparison):
        head += [line, ""]
    if note := repeated_note(comparison, naming=naming):
        head += [f"> {_md_escape(note)}", ""]
    if note := not_measured_note(comparison, baseline_ref, naming=naming):
        head += [f"> {_md_escape(note)}", ""]
    if note := passed_over_note(comparison, baseline_ref):
        head += [f"> {_md_escape(note)}", ""]
    if note := client_note(comparison, baseline_ref):
        head += [f"> {_md_escape(note)}", ""]
    if note := rehearsal_apart_note(comparison, baseline_ref):
        head += [f"> {_md_escape(note)}", ""]
    head += [line for note in not_compared_notes(comparison) for line in (f"> {_md_escape(note)}", "")]
    pictures = charts_paragraph(charts or [], charts_folder)
    for folded_rows, max_rows in ((True, None), (False, None), *((False, n) for n in CUT_ROWS)):
        placed: set = set()
        opened = (_md_open(comparison, naming, folded_rows, max_rows, placed, more, baseline_ref)
                  + _md_beyond(comparison, naming, max_rows, more)
                  + _md_new(comparison, baseline_ref, naming, max_rows, more))
        folded = (_md_sections(comparison, naming, folded_rows, max_rows, opened=False, placed=placed, more=more)
                  + (_md_not_measured(comparison, baseline_ref, naming) if folded_rows
                     else _md_not_measured_counted(comparison, more)))
        rule = [line, ""] if (line := verdict_rule(comparison, lambda word: f"`{word}`")) else []
        body = "\n".join(head + opened + _md_units(opened + folded) + rule + pictures + folded)
        if limit is None or len(body.encode()) <= limit:
            break
    if limit is not None and len(body.encode()) > limit:  # over it with every row cut: the head alone is
        body = _first_blocks(body, limit, more)
    return body, folded_rows


def _first_blocks(body: str, limit: int, more: str = MORE) -> str:
    """``body``'s first blocks (headline, notes, headings, tables: the text between blank lines) that fit in
    ``limit`` UTF-8 bytes with a last line saying where the rest is (``more``), a fold left open closed: a
    report over its limit with every row cut (long notes under the headline, a step summary with little
    room left) went over it. A heading is never the last block kept (its table cut, it would head nothing).
    Where even the headline and that line do not fit, as many of the first block's lines (marker,
    headline) as do; nothing where not even the marker does."""
    tail = f"The rest of this report is left out (too long to show here; {more})."

    def joined(blocks: list[str]) -> str:
        folds = sum(b.count("<details>") - b.count("</details>") for b in blocks)
        return "\n\n".join([*blocks, *["</details>"] * folds, tail]) + "\n"

    blocks, kept = body.rstrip("\n").split("\n\n"), []
    for block in blocks:
        if len(joined([*kept, block]).encode()) > limit:
            break
        kept.append(block)
    while len(kept) > 1 and kept[-1].startswith("#"):  # a section's heading, its table left out: no heading over nothing
        kept.pop()
    if kept:
        return joined(kept)
    lines: list[str] = []
    for line in blocks[0].split("\n"):
        if len("\n".join([*lines, line]).encode()) + 1 > limit:
            break
        lines.append(line)
    return "\n".join(lines) + "\n" if lines else ""


def verdict_rule(comparison: C.Comparison, code=str) -> str | None:
    """The one line under the tables that says how a judged row is read: what its interval is and that a
    verdict needs both that and the threshold; None when no row has an interval (every point new, or too
    few baseline runs). New-user29: a PR comment read "+18.1% (±5%) unchanged" beside four regressed rows
    of its point, with nothing saying why. ``code`` writes a verdict's word (Markdown: in backticks)."""
    if not any(v.low is not None for v in comparison.verdicts):
        return None
    who = "the PR's figure" if comparison.pr is not None else "this run's figure"
    return (f"How to read a verdict: a metric is {code(C.REGRESSED)} or {code(C.IMPROVED)} only when {who} is "
            "outside its interval (the range the baseline runs' own run-to-run noise allows, all of the run's "
            f"comparisons taken together) and it changed by more than its threshold that way (up above the interval, "
            "down below it); inside the interval it is "
            f"{code(C.UNCHANGED)} however far it moved.")


def _md_units(lines: list[str]) -> list[str]:
    """``show.units_line`` of the metrics ``lines``' tables list by name, the names in backticks; nothing
    when none of them lacks a unit (the New table's headers, tok/s/GPU and tok/s/user, say it)."""
    text = "\n".join(lines)
    line = show.units_line((metric for metric in R.DIRECTION if f"| {metric} |" in text), lambda name: f"`{name}`")
    return [line, ""] if line else []


class ChartsFolder(NamedTuple):
    """Where the charts were written, as a report names it: ``path``, whether that path is from the
    repository's top (said so: it is not from the report's own folder, nor from where compare ran), and whether it
    is the folder run-sweep.yml uploads as the ``source.CHARTS_FOLDER`` of its ``source.RESULTS_ARTIFACT`` artifact
    (``uploaded``: only then, inside a workflow run, does a report name that artifact)."""

    path: str
    from_top: bool = False
    uploaded: bool = False


FROM_TOP = "from the repository's top"
# What a report says of a charts folder no workflow run uploaded (compare run by hand, or into another folder): its
# reader, on the pull request, cannot open it (s51h: a comment made by hand said "were written to `charts`").
LOCAL = "a local folder on the machine that ran `results compare`, not uploaded with this report"


def charts_paragraph(charts: list[tuple], folder: str | ChartsFolder | None = None) -> list[str]:
    """Where the charts are ((stem, shows a change) each, PNG and SVG): inside a workflow run, in the
    folder of the artifact run-sweep.yml uploads them in (``source.CHARTS_FOLDER`` of
    ``source.RESULTS_ARTIFACT``; the run has several: bmk_*, server logs, the matrix), the run's page
    linked (``core.github.workflow_run``), where ``folder`` is the one it uploads (``ChartsFolder.uploaded``); never
    ``folder``, a path on the runner. Elsewhere in ``folder``, where they were written (a ``ChartsFolder`` from the
    repository's top says so), said to be LOCAL. Each chart is (stem, shows a change[, shows a new point]): those with a regressed,
    improved or failed point named, then those with a new one (a recipe the run adds), the others folded:
    those with a point not judged (a fourth element, True) apart from those whose every point was judged
    unchanged, the only ones "without a change"."""
    if not charts:
        return []
    changed = [f"`{c[0]}`" for c in charts if c[1]]
    new = [f"`{c[0]}`" for c in charts if not c[1] and c[2:3] == (True,)]
    rest = [c for c in charts if not c[1] and c[2:3] != (True,)]
    unjudged = [f"`{c[0]}`" for c in rest if c[3:4] == (True,)]
    others = [f"`{c[0]}`" for c in rest if c[3:4] != (True,)]
    one = len(charts) == 1
    folder = ChartsFolder(folder) if isinstance(folder, str) else folder
    run = github.workflow_run() if folder is not None and folder.uploaded else None
    where = (f"{'is' if one else 'are'} in the `{S.CHARTS_FOLDER}/` folder of the `{S.RESULTS_ARTIFACT}` artifact "
             f"of [run {run[1]}]({run[0]}#artifacts)" if run
             else f"{'was' if one else 'were'} written" + (
                 f" to `{md_code(folder.path)}`" + (f" ({FROM_TOP})" if folder.from_top else "") + f", {LOCAL}"
                 if folder else ""))
    named = ([f"with a change: {', '.join(changed)}"] if changed else []) + (
        [f"with new points: {', '.join(new)}"] if new else [])
    lines = [f"{count(len(charts), 'chart')} (output throughput per GPU against interactivity, PNG and SVG) {where}"
             + ("".join(f"; {part}" for part in named) if named else ".")]
    for folded, what in ((unjudged, "with points not judged"), (others, "without a change")):
        if folded:
            lines += ["", f"<details><summary>{count(len(folded), 'chart')} {what}</summary>", "",
                      ", ".join(folded), "", "</details>"]
    return lines + [""]


def _console(stream):
    from sweepgate.core.report import console

    return console(stream)


# The columns a narrow terminal wraps (of the points' table, then of the evals', whose run column
# (``run_column``) wraps too: a score and its stderr; a point's figure stays whole, right-aligned).
FOLDABLE = ("baseline median [interval] (n)", RECIPE_HEADER, "score", "baseline", "change (margin)")
MIN_FOLD = 10  # narrowest a FOLDABLE column gets when even its longest word does not fit
INDENT = 2  # a point's metric rows sit this far in under its label
HANG = 2  # a wrapped sentence's lines after its first sit this far in (print_wrapped's indent)
_units = show.cell_units  # where a folded cell may break (``_folded``): between words, an interval kept whole


def _folded(cell: str, width: int) -> str:
    """``cell`` broken into lines of ``width`` between its ``_units`` (one wider stays whole, for rich to fold)."""
    from rich.cells import cell_len

    from sweepgate.core.report import packed

    return cell if cell_len(cell) <= width else "\n".join(packed(_units(cell), width))


def _grid(headers: tuple[str, ...], widths: list[int] | None = None, show_header: bool = True,
          right: tuple[str, ...] = ()):
    """An empty borderless table of ``headers``, those in ``right`` right-aligned; cells fold, never end
    in "…" (a cut config key hides which of two similar keys regressed), and a metric name is never broken."""
    from rich.table import Table
    from rich.text import Text

    grid = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", show_header=show_header)
    for i, name in enumerate(headers):  # Text: "[interval]" is words, not rich markup
        grid.add_column(Text(name), justify="right" if name in right else "left", overflow="fold",
                        no_wrap=name == "metric", width=widths[i] if widths else None)
    return grid


def _printable(row: tuple[str, ...]) -> tuple[str, ...]:
    """A row's cells as a terminal shows them (``errors.printable``): an escape sequence or a carriage return in a
    config key (a job's sidecar states it) neither rewrites the reader's terminal nor moves its cursor (s42k)."""
    return tuple(map(printable, row))


def _add(grid, v: C.Verdict, row: tuple[str, ...]) -> None:
    """One verdict's cells as a row, in its verdict's style (plain text: no cell is rich markup)."""
    from rich.text import Text

    grid.add_row(*map(Text, row), style=STYLES[v.verdict])


def _widths(headers: tuple[str, ...], rows: list[tuple[str, ...]], room: int,
            foldable: tuple[str, ...] = FOLDABLE) -> tuple[list[int], list[int]]:
    """Each column's width, and its longest word (``_longest_units``). The width: its widest cell, narrowed
    until a row fits in ``room`` columns (rich counts 2 of padding a column, the edge ones' too, when the widths
    are given: its Table._measure_column ignores pad_edge): first another column's header wider than its cells,
    to its cells or its longest word ("change" over "(threshold)", s37c), then the ``foldable`` ones (the widest
    first) to MIN_FOLD or their longest word, then to their longest word (cells wrap between words, ``_units``,
    none is broken), and only then, a terminal too narrow even for that, to MIN_FOLD."""
    from rich.cells import cell_len

    columns = list(zip(headers, *rows))
    widths = [max(map(cell_len, column)) for column in columns]
    words = _longest_units(headers, rows)
    excess = sum(widths) + 2 * len(widths) - room
    foldable = [i for i, name in enumerate(headers) if name in foldable]
    for i in (i for i in range(len(columns)) if i not in foldable):  # a header wider than its cells: broken first
        floor = max(cell_len(w) for w in [*columns[i][1:], *columns[i][0].split()])
        cut = max(0, min(excess, widths[i] - floor))
        widths[i] -= cut
        excess -= cut
    for floor in (lambda i: max(words[i], MIN_FOLD), lambda i: words[i], lambda i: MIN_FOLD):
        for i in sorted(foldable, key=lambda i: -widths[i]):
            cut = max(0, min(excess, widths[i] - floor(i)))
            widths[i] -= cut
            excess -= cut
    return widths, words


def _longest_units(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[int]:
    """Each column's widest ``_units`` word, its header's among them: as narrow as it gets unbroken."""
    from rich.cells import cell_len

    return [max((cell_len(w) for cell in column for w in _units(cell)), default=1) for column in zip(headers, *rows)]


def _by_point(console, headers: tuple[str, ...], rows: list[tuple[C.Verdict, tuple[str, ...]]],
              naming: Naming = PLAIN, right: tuple[str, ...] = (),
              foldable: tuple[str, ...] = FOLDABLE) -> None:
    """Each point's label once, on lines of its own broken only between its parts (``point_units``),
    and its metric rows indented under it, the columns aligned across points: a terminal too narrow
    for the one-row-a-verdict table (``right``, ``foldable``: as ``_grid`` and ``_widths`` take them)."""
    from itertools import groupby

    from rich.padding import Padding

    from sweepgate.core.report import print_units

    named = 2 if headers[1:2] == (IMAGE_HEADER,) else 1  # a point's image, said once with its label
    names = headers[named:]
    cells = [row[named:len(headers)] for _, row in rows]

    def label(v: C.Verdict, row: tuple[str, ...]) -> list[str]:
        return point_units(v.point, naming) + ([f"{IMAGE_HEADER} {row[1]}"] if named == 2 and row[1] else [])
    widths, words = _widths(names, cells, console.width - INDENT, foldable)
    # aligned only where no column is narrower than its widest word (s38f: at 60 columns the evals' score
    # column read "flexible-extrac" over "t")
    aligned = sum(widths) + 2 * len(widths) <= console.width - INDENT and all(
        width >= word for width, word in zip(widths, words))
    if aligned:
        console.print(Padding(_grid(names, widths, right=right), (0, 0, 0, INDENT), expand=False))
    for _, group in groupby(rows, key=lambda vr: vr[0].point):
        group = list(group)
        if not aligned:  # narrower still: `header value` pairs, never a number or a name broken
            print_units(console, label(*group[0]), style="bold")
            for v, row in group:  # a pair broken between its cell's ``_units`` only
                print_block(console, [(h, c) for h, c in zip(names, row[named:len(headers)]) if c],
                            STYLES[v.verdict], units=_units)
            continue
        grid = _grid(names, widths, show_header=False, right=right)
        for v, row in group:  # a foldable cell broken by ``_units`` (rich breaks at any blank)
            _add(grid, v, tuple(_folded(cell, width) if name in foldable else cell
                                for name, cell, width in zip(names, row[named:len(headers)], widths)))
        print_units(console, label(*group[0]), style="bold")
        console.print(Padding(grid, (0, 0, 0, INDENT), expand=False))


def table(comparison: C.Comparison, stream, baseline_ref: str = C.DEFAULT_BASELINE_REF,
          window: int = C.DEFAULT_WINDOW, all_rows: bool = False) -> None:
    """The same rows as Markdown, as a rich table: styles only on a terminal, none under NO_COLOR. One row
    a verdict where that fits the terminal; else one block per point (see ``_by_point``). Past
    UNCHANGED_SHOWN unchanged rows (a sweep's thousands), those are left out and counted, unless
    ``all_rows``: the rows that matter would scroll out of sight."""
    from sweepgate.core.report import fits, print_counts, print_wrapped

    console = _console(stream)
    # print_counts: rich's own wrapping left a blank at each line's end; and Text, a note names the
    # user's paths, which are not rich markup
    for note in [REHEARSAL_NOTE] * comparison.rehearsal + comparison.notes:
        print_counts(console, note, style="bold yellow")
    run = run_column(comparison)
    naming = point_naming(comparison)
    headers = point_headers(naming, any(v.recipe_changes for v in comparison.verdicts), run)
    by_point, placed = unchanged_by_point(comparison), set()
    # a result's strings with their control characters as escapes (``printable``), before the widths are taken
    rows = [(v, _printable(cells(v, naming))) for _, verdicts in sections(comparison)
            for v in together(verdicts, by_point, placed)]
    unchanged = sum(v.verdict == C.UNCHANGED for v, _ in rows)
    left_out = 0 if all_rows or unchanged <= UNCHANGED_SHOWN else unchanged
    if left_out:
        rows = [(v, row) for v, row in rows if v.verdict != C.UNCHANGED]
    grid = _grid(headers, right=(run,))
    for v, row in rows:
        _add(grid, v, row[:len(headers)])
    if not rows:  # every row was an unchanged one left out: no empty table
        pass
    elif fits(console, grid):
        console.print(grid)
    else:
        _by_point(console, headers, rows, naming, right=(run,))
    if left_out:
        print_counts(console, f"{left_out:,} unchanged rows not shown (--all shows them)", style="dim")
    metric = headers.index(HEADERS[1])
    if line := show.units_line(row[metric] for _, row in rows):  # as the Markdown says it, under the tables
        print_wrapped(console, line)
    if rows and (line := verdict_rule(comparison)):
        print_wrapped(console, line)
    _eval_table(console, comparison, naming, baseline_ref)  # before the headline, which ends the report (s47g)
    _headline(console, comparison, baseline_ref, window, naming)


def _headline(console, comparison: C.Comparison, baseline_ref: str, window: int, naming: Naming) -> None:
    """The headline and the notes under it, which end the terminal's report: a line a terminal wraps goes on
    under its first (HANG), one sentence as print_wrapped's (review s45k: rich's wrapping began the headline's
    second line at column 0); the commit measured above it, so that `| tail -1` still reads the verdict."""
    from sweepgate.core.report import print_counts

    if line := measured_text(comparison):
        print_counts(console, line, hang=HANG)
    if line := points_line(comparison):
        print_counts(console, line, hang=HANG)
    print_counts(console, summary_line(comparison, baseline_ref, window), hang=HANG)
    for note in (repeated_note(comparison, naming=naming), not_measured_note(comparison, baseline_ref, naming=naming),
                 passed_over_note(comparison, baseline_ref), client_note(comparison, baseline_ref),
                 rehearsal_apart_note(comparison, baseline_ref), *not_compared_notes(comparison)):
        if note:  # as the notes above: rich read a point label's `[...]` as markup too
            print_counts(console, note, style="yellow", hang=HANG)


def _eval_table(console, comparison: C.Comparison, naming: Naming,
                baseline_ref: str = C.DEFAULT_BASELINE_REF) -> None:
    """The second table, "evals": one row per eval score, regressions first (none without scores);
    on a terminal too narrow for it, the point's label on a line of its own, as in the first. A
    score not judged reads "not-judged [n]", its reason under the table as note n."""
    from sweepgate.core.report import fits, print_counts

    if not comparison.evals:
        return
    notes = eval_notes(comparison.evals)
    rows = [(v, _printable(eval_cells(v, f"{v.verdict} [{notes[v.why]}]" if v.why else None, naming))) for v in comparison.evals]
    headers = eval_headers(comparison, baseline_ref, naming, any(row[-1] for _, row in rows))
    grid = _grid(headers)
    for v, row in rows:
        _add(grid, v, row[:len(headers)])
    console.print("evals", style="bold")
    if fits(console, grid):
        console.print(grid)
    else:
        _by_point(console, headers, rows, naming, foldable=(*FOLDABLE, run_column(comparison)))
    for why, n in notes.items():  # a reason is words, not rich markup (print_counts prints Text)
        print_counts(console, f"[{n}] {why}", style=STYLES[E.NOT_JUDGED])
    print_counts(console, eval_summary(comparison))


def table_text(comparison: C.Comparison, **kw) -> str:
    """The terminal table as plain text (for tests and logs)."""
    buf = io.StringIO()
    table(comparison, buf, **kw)
    return buf.getvalue()
