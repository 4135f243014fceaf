"""Compare a PR run's results with the same points on the baseline ref, beyond noise.

Works on plain lists of record dicts (``record.py``): identity fields and
provenance at the top level, measurements under ``record["metrics"]``.

For each point of the PR run (``record.POINT``) and each compared metric, the baseline is the point's results in the
last ``window`` runs on the baseline ref that ran the recipe of the newest of them with its benchmark client
(``current_recipe``: where main changed the recipe or the client within the window, its older runs are passed over
and named, not mixed in); a PR run measured with another client than those is shown beside them, never judged
(``not_comparable``). The head value is judged as one new observation drawn from the baseline's distribution, all of
the run's comparisons together (``noise.py``: moderated variances, Benjamini-Hochberg): a verdict other than
``unchanged`` needs the head significant (outside its interval) AND a relative change from the baseline median
larger than the threshold, the same way (above the interval and up, or below it and down). Fewer than
``min_samples`` baseline values gives ``insufficient-data``; none gives ``new``. A point whose PR job failed or was
cancelled (its newest attempt's status) has no figures to judge: it gets one ``failed`` verdict, which
``--fail-on-regression`` counts like a regression. Eval scores (records with ``evals`` and no metrics) are judged
apart, by ``evals.py``.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from sweepgate.core import fields as F
from sweepgate.core.errors import fail
from sweepgate.results import derive
from sweepgate.results import record as R
from sweepgate.results.labels import image_labels, short_hex

DEFAULT_BASELINE_REF = F.MAIN_REF
DEFAULT_WINDOW = 5
MAX_WINDOW = 1000  # more runs than any store holds of a point; a store's integers stay in range
DEFAULT_MIN_SAMPLES = 3
DEFAULT_THRESHOLD = 0.05
CONFIDENCE = 0.95

IMPROVED, REGRESSED, UNCHANGED = "improved", "regressed", "unchanged"
INSUFFICIENT, NEW, FAILED = "insufficient-data", "new", "failed"
# A point of a rehearsal against real runs, or of a real run against rehearsals (``rehearsal_apart``): the stand-in
# server's figures are no performance, so no change is stated between the two sides, nor judged; `--json` says it
# `insufficient-data` (CONTRACTS section 8's words) with ``why`` saying REHEARSAL_APART.
NOT_COMPARED = "not-compared"
REHEARSAL_APART = "rehearsal: not compared with real runs"
VERDICTS = (FAILED, REGRESSED, IMPROVED, UNCHANGED, INSUFFICIENT, NOT_COMPARED, NEW)  # report order
FAILING = (FAILED, REGRESSED)  # the eval verdicts --fail-on-regression exits 3 on (points: Comparison.failing)
# A point the baseline has and the run did not measure (Comparison.dropped), as the headline, the tables and
# the charts name it.
NOT_MEASURED = "not measured"
# What a count of baseline runs is of where the baseline ref changed a point's recipe within the window (its runs of
# the newest recipe, the older ones passed over: ``current_recipe``), as the headline and the charts' legend say it
NEWEST_RECIPE = " at the newest recipe"

# Recipe fields named when a point's recipe differs from its baseline's, in this order.
# The KV-offload backend and its version read as one phrase ("lmcache 0.5.3").
RECIPE_FIELDS = (R.IMAGE, R.FRAMEWORK, R.MODEL, R.PRECISION, R.TP, R.EP, R.DP_ATTN, R.PP, R.DCP_SIZE,
                 R.PCP_SIZE, R.SPEC_DECODING, R.DISAGG, R.KV_OFFLOADING, R.KV_OFFLOAD_BACKEND)


@dataclass
class Settings:
    """What a comparison needs besides the records. ``thresholds`` maps config key ->
    {"threshold": rel, "thresholds": {metric: rel}} (the master config's ``results`` block)."""

    window: int = DEFAULT_WINDOW
    min_samples: int = DEFAULT_MIN_SAMPLES
    threshold: float = DEFAULT_THRESHOLD
    metrics: tuple[str, ...] = R.COMPARED_METRICS
    per_config: dict = field(default_factory=dict)

    def validate(self) -> None:
        """Refuse settings no comparison can use, each at its flag, said from its value on (as a flag's
        ``type=`` says it: ``--window: 0 is below 2: ...; pass ...``)."""
        if self.window < 2:
            raise fail("--window", 0, f"{self.window} is below 2: an interval needs 2 baseline runs",
                       "pass --window N with N >= 2")
        if self.window > MAX_WINDOW:
            raise fail("--window", 0, f"{self.window} is above {MAX_WINDOW}",
                       f"pass --window N with N <= {MAX_WINDOW} (the last N runs of each point)")
        if not 2 <= self.min_samples <= self.window:
            what = "below 2: an interval needs 2 baseline values" if self.min_samples < 2 else \
                f"above --window {self.window}: a point's baseline holds at most {self.window} values"
            raise fail("--min-samples", 0, f"{self.min_samples} is {what}",
                       f"pass --min-samples K from 2 to {self.window}"
                       + (", or a larger --window" if self.min_samples > self.window else ""))
        if math.isnan(self.threshold) or self.threshold < 0:
            what = "not a number" if math.isnan(self.threshold) else "negative"
            raise fail("--threshold", 0, f"{self.threshold:g} is {what}",
                       "pass the size of a change, e.g. --threshold 0.05 for 5 % either way")
        if self.threshold >= 1:
            # 1 or more would be a drop of 100 % or more: no throughput could ever regress.
            raise fail("--threshold", 0, f"{self.threshold:g} is not a relative change below 1",
                       f"pass a fraction, e.g. --threshold {R.fraction_example(self.threshold)}")

    def threshold_for(self, config_key: str, metric: str) -> float:
        block = self.per_config.get(config_key) or {}
        per_metric = block.get(F.RESULTS_THRESHOLDS) or {}
        if metric in per_metric:
            return float(per_metric[metric])
        if metric in R.METRIC_THRESHOLDS:
            return R.METRIC_THRESHOLDS[metric]
        return float(block.get(F.RESULTS_THRESHOLD, self.threshold))


@dataclass
class Verdict:
    """One (point, metric) judgement; a failed job's point has one, with no metric or head."""

    point: tuple
    metric: str | None
    head: float | None
    n: int
    median: float | None
    low: float | None
    high: float | None
    change: float | None
    verdict: str
    threshold: float
    rehearsal: bool = False
    recipe_changes: list[RecipeChange] = field(default_factory=list)
    status: str | None = None  # the PR job's status when it failed or was cancelled
    p_adjusted: float | None = None  # its p-value adjusted over the run (noise.py); None when not judged
    detail: str | None = None  # a failed job's: how many of its requests completed, when its output says
    # Which side's figures are the stand-in server's (``rehearsal`` says either): a rehearsed run
    # is judged against main's real runs, whose column must not read as a rehearsal.
    sides: tuple[bool, bool] = (False, False)  # (the PR's, the baseline's)
    # the runs of the point's window at another recipe than its newest run's, left out of its baseline
    # (``PassedOver``); None when none was
    passed_over: PassedOver | None = None
    why: str | None = None  # why it is insufficient-data, where runs passed over left too few (``PassedOver.why``)
    # or where its figures are not comparable with its baseline runs' (``not_comparable``: another client), which
    # ``client`` then names (``client vllm-bench -> aiperf``)
    client: str | None = None

    def contract_verdict(self) -> tuple:
        """(metric, head, baseline median, change, verdict) in CONTRACTS section 8's five words. A
        failed job's point: its success rate counted as 0 (none of its figures is judged) against
        main's (1 where main's successful runs did not count requests), regressed, or new without a
        baseline; a cancelled job's measured nothing: insufficient-data, no head."""
        if self.verdict == NOT_COMPARED:
            return self.metric, self.head, self.median, None, INSUFFICIENT
        if self.verdict != FAILED:
            return self.metric, self.head, self.median, self.change, self.verdict
        if self.status == R.CANCELLED:
            return R.SUCCESS_RATE, None, self.median, None, INSUFFICIENT
        if not self.n:
            return R.SUCCESS_RATE, 0.0, None, None, NEW
        median = 1.0 if self.median is None else self.median
        return R.SUCCESS_RATE, 0.0, median, relative_change(0.0, median), REGRESSED

    def as_json(self, model: str | None = None) -> dict:
        """The CONTRACTS section 8 shape of one point (``contract_verdict``; ``status`` tells a
        failed or cancelled job's point apart); ``model``: what the run's output names (``Comparison.model_of``)."""
        out = point_json(self.point)
        metric, head, median, change, verdict = self.contract_verdict()
        out.update({"model": model, "metric": metric, "head": head,
                    "baseline": {"n": self.n, "median": median, "low": self.low, "high": self.high},
                    "change": change, "threshold": self.threshold,
                    "p-adjusted": self.p_adjusted, "verdict": verdict})
        if self.status is not None:
            out[R.STATUS] = self.status
        if self.passed_over is not None:
            out["passed-over"] = self.passed_over.as_json()
        if self.why:
            out["why"] = self.why
        if self.recipe_changes:  # the table's recipe change, each value whole
            out[RECIPE_CHANGE] = changes_json(self.recipe_changes)
        if self.rehearsal:  # figures from the stand-in server of `sweepgate rehearse`
            out[R.REHEARSAL] = True
        return out


EVAL_SCORES = "eval scores"  # NotMeasured.what of a point whose eval the baseline has and the run has not


@dataclass
class NotMeasured:
    """What the newest baseline run measured and this run did not: a whole point of a config key
    the run measured (``what`` None), one metric of a point it measured, or its eval scores. Said,
    never judged: a trimmed sweep runs fewer concurrencies, and a recipe may drop one on purpose."""

    point: tuple
    what: str | None
    baseline_run: str

    def as_json(self) -> dict:
        return {**point_json(self.point), "not-measured": self.what or "point", "baseline-run": self.baseline_run}


@dataclass
class NotCompared:
    """A compared metric the run's output at ``points`` states nothing it is computed from, nor did main's there
    (else it is ``NotMeasured``): never compared, for ``reason`` (``derive.why_none``: GenAI-Perf's exports count
    no failed request, so no success rate)."""

    metric: str
    reason: str
    points: list

    def as_json(self) -> dict:
        return {"metric": self.metric, "reason": self.reason, "points": [point_json(pt) for pt in self.points]}


def not_compared(heads: dict, missing: list, settings: Settings) -> list[NotCompared]:
    """Each compared metric no figure of which the run has at a point it measured, with why (``NotCompared``),
    the points of one reason together; a metric main measured there is ``missing`` (``not_measured``) instead."""
    said = {(m.point, m.what) for m in missing}
    out: dict[tuple, list] = {}
    for pt in sorted(heads, key=point_sort_key):
        if job_failed(heads[pt]):
            continue  # the failed job is the finding
        for metric in settings.metrics:
            if (pt, metric) not in said and (reason := derive.why_none(heads[pt], metric)):
                out.setdefault((metric, reason), []).append(pt)
    return [NotCompared(metric, reason, points) for (metric, reason), points in out.items()]


@dataclass
class Comparison:
    run: str
    verdicts: list[Verdict]
    heads: dict            # point -> the PR record
    baselines: dict        # point -> baseline records, newest first (at most `window`)
    repeated: dict = field(default_factory=dict)  # point -> its measurements in the run, when more than one
    # (heads hold their combination: each metric the median of the measurements)
    evals: list = field(default_factory=list)  # evals.EvalVerdict: the run's eval scores, judged (results/evals.py)
    not_measured: list = field(default_factory=list)  # NotMeasured: what the baseline has and the run has not
    dropped: dict = field(default_factory=dict)  # point -> baseline records, of each point not measured at all
    pr: int | None = None  # the pull request whose ref (refs/pull/N/...) every record of the run names, else None
    notes: list = field(default_factory=list)  # what the reports say under the headline (an empty baseline file)
    echoed: dict = field(default_factory=dict)  # point -> Echoed: one output stored as several of its baseline runs
    passed_over: dict = field(default_factory=dict)  # point -> PassedOver: its window's runs of another recipe
    unordered: list = field(default_factory=list)  # Unordered: a baseline run placed by a time of unknown order
    not_compared: list = field(default_factory=list)  # NotCompared: a metric the run's output gives nothing of
    # chart group -> (group, series, records) of the nearest recipe the baseline measured, for a chart of recipes it
    # never measured (``charts.contexts``); None: not sought
    context: dict | None = None

    @property
    def rehearsal(self) -> bool:
        return any(v.rehearsal for v in self.verdicts)

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(VERDICTS, 0)
        for v in self.verdicts:
            counts[v.verdict] += 1
        return counts

    def failing(self) -> bool:
        """What --fail-on-regression exits 3 on: a point regressed as ``--json`` says it (a failed
        job's point with a baseline among them), or an eval score regressed or its job failed."""
        return any(v.contract_verdict()[4] == REGRESSED for v in self.verdicts) or any(
            e.verdict in FAILING for e in self.evals)

    def model_of(self, pt: tuple) -> str | None:
        """The model ``pt`` ran, as the run's output (else the baseline's newest) names it, else as its eval
        scores' record does (``EvalVerdict.model``): what names a point ingested without its matrix row, which
        has no config key (``rowless_note``)."""
        for rec in (self.heads.get(pt), *self.baselines.get(pt, ()), *self.dropped.get(pt, ())):
            if rec and (model := R.named_model(rec)):
                return model
        return next((e.model for e in self.evals if e.point == pt and e.model), None)

    def as_json(self) -> dict:
        points = [v.as_json(self.model_of(v.point)) for v in self.verdicts]
        counts = dict.fromkeys((REGRESSED, IMPROVED, UNCHANGED, INSUFFICIENT, NEW), 0)
        for p in points:  # CONTRACTS section 8's verdicts; the failed jobs are counted on their own
            counts[p["verdict"]] += 1
        out = {"run": self.run, "points": points, "counts": counts,
               "failed-jobs": sum(v.verdict == FAILED for v in self.verdicts),
               "evals": [e.as_json() for e in self.evals]}
        out["not-measured"] = [m.as_json() for m in self.not_measured]
        if self.not_compared:  # a compared metric the output states nothing of, and why
            out["not-compared"] = [n.as_json() for n in self.not_compared]
        if self.repeated:  # points measured more than once: judged by the median of the measurements
            out["repeated"] = [{**point_json(pt), "measurements": n}
                               for pt, n in sorted(self.repeated.items(), key=lambda item: point_sort_key(item[0]))]
        if self.echoed:  # one output stored as several baseline runs: counted once
            out["echoed"] = [self.echoed[pt].as_json() for pt in sorted(self.echoed, key=point_sort_key)]
        if self.rehearsal:
            out[R.REHEARSAL] = True
        if any(rec.get(R.RUN_CANCELLED) for rec in self.heads.values()):  # a part of a sweep (its own report)
            out[R.RUN_CANCELLED] = True
        return out


def _and_listed(runs: list[str]) -> str:
    """``runs`` as prose: '101', '101 and 102', '101, 102 and 103'."""
    return ", ".join(runs[:-1]) + f" and {runs[-1]}" if len(runs) > 1 else runs[0]


def echo_note(echoed: dict) -> str:
    """What the reports say of baseline runs that hold one output (``Echoed``): which runs, at how many points."""
    runs = list(dict.fromkeys(run for e in echoed.values() for run in e.runs))
    named = _and_listed(runs)
    points = f"{len(echoed)} point{'s' if len(echoed) > 1 else ''}"
    what = ("one run's measurement (its JSON and CSV exports: the same first request and last response, to the "
            "nanosecond)" if all(e.exports for e in echoed.values()) else "one output (the same bytes)")
    return (f"Baseline runs {named} hold {what} at {points}: counted once there, as one measurement, not a spread "
            "(ingest each run's own output)")


ROW_FIELDS = (R.CONFIG_KEY, R.HARDWARE, R.SCENARIO)  # what only a job's matrix row (or --config-key) tells


def is_rowless(pt: tuple) -> bool:
    """Whether ``pt`` is a point ingested without its matrix row (none of ROW_FIELDS): named by its conc and
    lengths alone, it would be any model's there, so it is matched to no baseline run (``baseline_window``)."""
    return all(point_json(pt)[name] is None for name in ROW_FIELDS)


def rowless_note(heads: dict) -> str | None:
    """What the reports say of the run's points ingested without their matrix row (no sidecar, no ``--row``):
    named by the model their output states, as nothing else names them; and how to give them a row."""
    rowless = sum(map(is_rowless, heads))
    if not rowless:
        return None
    one = rowless == 1
    it, its = ("it", "its") if one else ("each", "their")
    return (f"{rowless} point{'' if one else 's'} of this run {'was' if one else 'were'} ingested without {its} "
            f"matrix row (no .job.json sidecar, no --row), so {'it has' if one else 'they have'} no config key, "
            f"hardware or scenario: {it} is named by the model its output states, and no main run is matched to "
            f"{'it' if one else 'them'}; ingest {'the output' if one else 'the outputs'} with {its} .job.json "
            f"sidecar{'' if one else 's'}, or with --row FILE --run-id ID --ref REF --config-key KEY")


def point_json(pt: tuple) -> dict:
    """A point as CONTRACTS section 8 names it: every field that tells points apart (R.POINT_IDENTITY:
    the six of R.POINT, the recipe identity, the request rate), null where unknown or (the rate)
    unlimited, so two points of one run never read alike (conc 4 at tp8 and at tp4)."""
    return dict(zip(R.POINT_IDENTITY, pt))


def point_of(rec: dict) -> tuple:
    """What matches a result across runs: the contract's point (R.POINT) plus what tells two rows
    of one config apart there (R.RECIPE_IDENTITY: topology, spec decoding, KV offload), and the
    request rate of a rate sweep."""
    return R.point_values(rec)


def is_eval_result(rec: dict) -> bool:
    """An eval's record (``X-eval``, or a failed eval-only job's, with no scores): the same point as
    its job's throughput result, told apart by its client, as the store's queries tell it (``_kind``)."""
    return rec.get(R.CLIENT) == R.EVAL_CLIENT


def job_failed(rec: dict) -> bool:
    """Whether the job behind ``rec`` failed or was cancelled (no figures of it are judged)."""
    return rec.get(R.STATUS, R.SUCCESS) != R.SUCCESS


def measured(rec: dict) -> bool:
    """Whether ``rec`` is a measurement: its job succeeded. The one rule of what takes a place among a point's
    baseline runs, read from files (``_usable``, ``measurements_of``, the artifacts' ``source._Tally``) or from the
    store, whose look-ups ask it in SQL (``succeeded``: status 'success'). Ingest stores no success that measured
    nothing: a job whose output is missing is stored failed (``ingest.orphan_record``), and so is one that
    completed no request or served no throughput (``derive.is_failed_run``). A success record with no figure is
    one made otherwise (a hand-made JSONL): it holds its place from the store and from files alike."""
    return not job_failed(rec) and isinstance(rec.get(R.METRICS), dict)


def _usable(rec: dict, evals: bool = False) -> bool:
    """A baseline record with throughput figures (or, with ``evals``, eval scores): a ``measured`` one of that kind."""
    return measured(rec) and is_eval_result(rec) == evals


def baseline_of(rec: dict) -> tuple:
    """What a baseline is of: a point's throughput figures, or its eval scores (``is_eval_result``), apart. A job
    can leave both at one point, judged against baselines of their own kind (``baseline_window``): main's eval
    scores there say nothing of whether main measured its throughput, nor the other way round."""
    return point_of(rec), is_eval_result(rec)


def covered(records: list[dict], past: R.Past | None) -> set[tuple]:
    """The baselines (``baseline_of``) ``records`` hold a usable result of (a successful job's, ``_usable``) from
    before ``past`` (when the compared run happened, ``past_of``; any, when None): a run's baseline there is the
    last runs before it; one of its own not covered (the ref measured it only after the run) takes the first
    runs from then. ``baseline_window`` and the store's and files' baselines (``store_adapter``) read it alike."""
    return {baseline_of(r) for r in records
            if _usable(r, is_eval_result(r)) and (past is None or R.before(r, past))}


def measurements_per_point(records: list[dict], evals: bool = False) -> dict[tuple, list[dict]]:
    """Each point's throughput records of the newest attempt that has one, oldest first (more than
    one when a job's output holds several measurements of one point, e.g. repeated lines). With
    ``evals``, its eval records instead (a failed eval job's too: ``evals.compare_evals`` says so)."""
    out: dict[tuple, list[dict]] = {}
    for rec in sorted(records, key=R.time_order):
        if is_eval_result(rec) != evals:
            continue
        same = out.setdefault(point_of(rec), [])
        if same and (same[-1].get(R.RUN_ID), same[-1].get(R.ATTEMPT)) != (rec.get(R.RUN_ID), rec.get(R.ATTEMPT)):
            same.clear()  # a later attempt replaces the earlier one's
        same.append(rec)
    return out


def baseline_window(records: list[dict], window: int, evals: bool = False,
                    past: R.Past | None = None, echoed: dict | None = None) -> dict[tuple, list[dict]]:
    """Each point's results (``evals``: eval records) in its last ``window`` baseline runs, newest
    first, one per run (a run's repeated measurements of the point combined by ``combined``).
    With ``past`` (when the compared run happened, ``past_of``), a point none of whose records is from
    before it (the baseline ref measured it only after the run) has its FIRST ``window`` runs from
    then instead, the nearest the run: once the ref has run it that often, its later runs change
    nothing, and comparing the run again gives the verdicts it got. One output stored as several runs counts
    once (``_once_each``); ``echoed``, when given, receives each point's such runs (``Echoed``). A point ingested
    without its matrix row (``is_rowless``) has none: it tells no model apart."""
    per_run: dict[tuple, dict[str, list[dict]]] = defaultdict(dict)
    for rec in sorted((r for r in records if _usable(r, evals) and not is_rowless(point_of(r))), key=R.time_order):
        runs = per_run[point_of(rec)]
        same = runs.setdefault(str(rec.get(R.RUN_ID)), [])
        if same and same[-1].get(R.ATTEMPT) != rec.get(R.ATTEMPT):
            same.clear()  # a later attempt replaces an earlier one
        same.append(rec)
    combine = (lambda recs: recs[-1]) if evals else combined
    have = covered(records, past)
    out = {}
    for pt, runs in per_run.items():
        oldest_first = sorted(map(combine, runs.values()), key=R.time_order)
        twins: dict = {}
        exports: set = set()
        if past is not None and (pt, evals) not in have:
            out[pt] = _once_each(oldest_first, twins, exports)[:window][::-1]
        else:
            out[pt] = _once_each(oldest_first[::-1], twins, exports)[:window]
        kept = {str(r.get(R.RUN_ID)) for r in out[pt]}
        if echoed is not None and (both := [runs for first, runs in twins.items() if first in kept]):
            echoed[pt] = Echoed(pt, sorted({run for runs in both for run in runs}, key=R.run_order),
                                all(first in exports for first in twins if first in kept))
    return out


def measured_runs(records: list[dict], evals: bool = False) -> dict[tuple, int]:
    """How many runs of each point ``baseline_window`` can take of ``records`` (``evals``: eval records): a run
    of a failed job none, each measurement once (``_once_each``: ``ci reuse``'s copies, one output stored as
    several runs). How far back the baseline artifacts are read (``source._Tally``)."""
    return {pt: len(recs) for pt, recs in baseline_window(records, len(records), evals).items()}


@dataclass
class Echoed:
    """A point whose baseline held one output (its file's bytes, ``R.output_measured``) stored as several runs:
    ``runs``, the one counted first; each such output counted once. ``exports``: not the same bytes, but one run's
    exports (its JSON and CSV, ``R.request_span``)."""

    point: tuple
    runs: list[str]
    exports: bool = False

    def as_json(self) -> dict:
        return {**point_json(self.point), "runs": self.runs}


def _once_each(ordered: list[dict], twins: dict | None = None, exports: set | None = None) -> list[dict]:
    """Each measurement once (``R.measurement_of``): the copies ``ci reuse`` recorded against later runs are one
    job's figures, not that many runs' (three copies would read as a spread of zero), and so is one output stored
    as several runs (ingested as ``--run-id 101`` and ``102``); the first of ``ordered`` kept (the newest, newest
    first). ``twins``, when given, receives the run ids of each output stored as several runs, by the kept one;
    ``exports``, when given, the kept ones whose twins are one run's other exports (``R.request_span``), not its
    bytes."""
    seen: dict = {}
    out = []
    for rec in ordered:
        what = R.measurement_of(rec)
        if what not in seen:
            seen[what] = rec
            out.append(rec)
        elif twins is not None and R.measured_by(rec) != R.measured_by(first := seen[what]):  # not a reuse copy
            run = str(first.get(R.RUN_ID))
            twins.setdefault(run, [run]).append(str(rec.get(R.RUN_ID)))
            if exports is not None and R.output_measured(rec) != R.output_measured(first):
                exports.add(run)
    return out


def measurements_of(recs: list[dict]) -> list[dict]:
    """The records of a point that measured it: a failed job's are none (``combined`` leaves them out)."""
    return [r for r in recs if measured(r)]


def combined(recs: list[dict]) -> dict:
    """One record for a point measured several times in one attempt (repeated lines or files):
    the last one's fields, each metric the median of the measurements that have it. Figures of
    a failed job are left out unless nothing else was measured, whichever job finished last (a
    failed job's record last made the point failed, first it was judged: the verdict hung on order)."""
    good = measurements_of(recs)
    if len(good) < 2:
        return good[-1] if good else recs[-1]
    metrics: dict = {}
    for name in dict.fromkeys(k for r in good for k in r[R.METRICS]):
        values = [v for v in (derive.float_figure(r[R.METRICS], name) for r in good) if v is not None]
        metrics[name] = statistics.median(values) if values else good[-1][R.METRICS].get(name)
    return {**good[-1], R.METRICS: metrics}


def _figure(rec: dict, metric: str) -> float | None:
    """A record's ``metric`` as a float, as compare reads it (``derive.float_figure``), else None."""
    return derive.float_figure(rec.get(R.METRICS) or {}, metric)


def number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def relative_change(head: float, median: float) -> float | None:
    """(head - median) / |median|; None when the median is 0 (no relative change exists)."""
    return None if median == 0 else (head - median) / abs(median)


def _pending(head: float, values: list[float], min_samples: int, measured: bool = False) -> tuple | None:
    """(verdict, median, change) of a comparison noise.judge_all does not take part in: no
    baseline, or too few values; None for one it judges. A metric no baseline run of a ``measured``
    point has (a figure main's runs did not store, as acceptance length before it was) has too few
    values, not a new point."""
    if not values:
        return (INSUFFICIENT if measured else NEW), None, None
    median = float(statistics.median(values))
    if len(values) < min_samples:
        return INSUFFICIENT, median, relative_change(head, median)
    return None


def verdict_of(head: float, values: list[float], metric: str, threshold: float, judged) -> tuple:
    """(verdict, median, low, high, change) of a judged comparison (``noise.Judged``): a verdict
    other than unchanged needs the head significant across the run AND beyond the threshold, the
    same way: outside its interval on the side it moved from the median. The test's centre is the
    mean of the logarithms, which one low baseline run drags (four runs at 1,000 and one at 500: 871)
    while the spread it is judged by may be moderated toward the run's other points' (an interval of
    [853, 888]): a head of 920 is above it, no evidence of a drop, though 8 % under the median of
    1,000, and reads as unchanged."""
    median = float(statistics.median(values))
    change = relative_change(head, median)
    large = abs(change) > threshold if change is not None else head != median
    moved = (head > median) - (head < median)
    low, high = judged.low, judged.high
    if metric == R.SUCCESS_RATE and 0 <= min(head, *values) and max(head, *values) <= 1:
        low, high = max(low, 0.0), min(high, 1.0)  # shares of requests: an interval on logarithms may pass all
    if not (judged.significant and large and moved == judged.side):
        return UNCHANGED, median, low, high, change
    better = (head > median) == (R.DIRECTION.get(metric, R.HIGHER_IS_BETTER) == R.HIGHER_IS_BETTER)
    return (IMPROVED if better else REGRESSED), median, low, high, change


def _display(name: str, rec: dict):
    if name == R.KV_OFFLOAD_BACKEND:
        parts = [rec.get(R.KV_OFFLOAD_BACKEND), rec.get(R.KV_OFFLOAD_BACKEND_VERSION)]
        return " ".join(str(p) for p in parts if p not in (None, "")) or None
    return rec.get(name)


def _short(name: str, old: str, new: str) -> tuple[str, str]:
    """Say only what changed: two images as `results show`'s image column names them apart (``labels.image_labels``:
    two tags of one image as their tags, v0.11.0 -> v0.12.0, a digest cut to its first 12 digits, as every table
    shortens one), two versions of one offload backend as "lmcache 0.5.3 -> 0.5.4rc2"; any other long hex run (a
    commit in a model's path) cut as an image's is (``labels.short_hex``). ``--json`` keeps both whole."""
    if name == R.IMAGE:
        said = image_labels([old, new])
        return said[old], said[new]
    if name == R.KV_OFFLOAD_BACKEND and " " in new and old.split(" ", 1)[0] == new.split(" ", 1)[0]:
        return short_hex(old), short_hex(new.split(" ", 1)[1])
    return short_hex(old), short_hex(new)


class RecipeChange(NamedTuple):
    """One thing a run ran otherwise than a baseline run (``run_changes``): a recipe field (RECIPE_FIELDS), the
    benchmark client (R.CLIENT, or R.CLIENT_VERSION for another release line of one client) or, where no field
    differs, the recipe fingerprint; its two values whole (``--json``'s RECIPE_CHANGE: field -> [baseline's,
    run's]) and in the tables' and the charts' legends' words (``image v0.11.0 -> v0.12.0``: ``_short``)."""

    field: str
    before: object
    after: object
    words: str


# A point's and an eval score's key in `results compare --json`: what the tables' "recipe change" column says,
# each value whole (``changes_json``); absent where the run ran the baseline run's recipe.
RECIPE_CHANGE = "recipe-change"


def change_words(changes: list[RecipeChange]) -> str:
    """The recipe change cell of a table: each change's words, ``; ``-separated ("" for none)."""
    return "; ".join(change.words for change in changes)


def changes_json(changes: list[RecipeChange]) -> dict:
    """``{field: [baseline's value, run's value]}`` of ``changes``, whole (no digest cut), in the table's order."""
    return {change.field: [change.before, change.after] for change in changes}


def recipe_changes(head: dict, baseline: list[dict]) -> list[RecipeChange]:
    """What the PR ran otherwise than the newest baseline run (``run_changes``). Against the newest only: when main
    changed a recipe itself, the baseline is of its newest recipe (``current_recipe``), and a PR that runs main's
    current recipe changed nothing."""
    return run_changes(baseline[0], head) if baseline else []


def client_change(old: dict, new: dict) -> str | None:
    """``client_changed``'s words, or None."""
    change = client_changed(old, new)
    return change.words if change else None


def client_changed(old: dict, new: dict) -> RecipeChange | None:
    """The benchmark client ``new`` was measured with where it is not ``old``'s (a RecipeChange): another client
    (``client vllm-bench -> aiperf``), or the same one of another release line where both outputs state their
    version (``client aiperf 0.3.0 -> 0.8.0``, ``R.client_major``; not a version that is the server's,
    ``R.SERVER_VERSIONED_CLIENTS``, which the image tells); None when neither, or either is unknown. Every client's
    figures are stored in one set of units, but two clients count a run apart (tokens, warm-up, request pacing),
    and no recipe fingerprint holds the client: such figures are not compared (``not_comparable``)."""
    before, after = old.get(R.CLIENT), new.get(R.CLIENT)
    if before is None or after is None:
        return None
    if before != after:
        return RecipeChange(R.CLIENT, before, after, f"{R.CLIENT} {before} \u2192 {after}")
    if after in R.SERVER_VERSIONED_CLIENTS:
        return None
    versions = old.get(R.CLIENT_VERSION), new.get(R.CLIENT_VERSION)
    lines = [R.client_major(v) for v in versions]
    if None in lines or lines[0] == lines[1]:
        return None
    return RecipeChange(R.CLIENT_VERSION, *versions, f"{R.CLIENT} {after} {versions[0]} \u2192 {versions[1]}")


def run_changes(old: dict, new: dict) -> list[RecipeChange]:
    """The recipe fields whose value in ``new`` differs from ``old``'s (``recipe_differences``), then the benchmark
    client where it is another (``client_changed``)."""
    return recipe_differences(old, new) + [change for change in (client_changed(old, new),) if change]


def run_differences(old: dict, new: dict) -> list[str]:
    """``run_changes`` in words."""
    return [change.words for change in run_changes(old, new)]


NOT_COMPARABLE = "two clients count a run apart (its tokens, warm-up and request pacing)"  # why: ``not_comparable``


def not_comparable(head: dict, base: list[dict]) -> str | None:
    """Why the PR's figures at a point are not judged against its baseline runs (``base``, of one recipe and
    client: ``current_recipe``), else None: they were measured with another benchmark client (``client_change``)."""
    if base and (change := client_change(base[0], head)):
        return (f"another benchmark client than the baseline runs' ({change}): {NOT_COMPARABLE}, so its figures are "
                "not judged against theirs")
    return None


def recipe_differences(old: dict, new: dict) -> list[RecipeChange]:
    """The recipe fields (RECIPE_FIELDS) whose value in ``new`` differs from ``old``'s, in words (``image v0.11.0 ->
    v0.12.0``); where none does and the fingerprints differ (a flag, the runner pool), the fingerprints. Without
    fingerprints (rows of `full-sweep` or `--row`) the fields themselves are compared. [] for one recipe."""
    fingerprint = new.get(R.RECIPE_FINGERPRINT)
    if fingerprint is not None and old.get(R.RECIPE_FINGERPRINT) == fingerprint:
        return []
    out = []
    for name in RECIPE_FIELDS:
        after, before = _display(name, new), _display(name, old)
        if before == after:
            continue
        old_text, new_text = ("none" if before is None else str(before)), ("none" if after is None else str(after))
        old_text, new_text = _short(name, old_text, new_text) if before and after else map(short_hex, (old_text, new_text))
        out.append(RecipeChange(name, before, after, f"{name} {old_text} \u2192 {new_text}"))
    if not out and (before := old.get(R.RECIPE_FINGERPRINT)) != fingerprint:
        out.append(RecipeChange(R.RECIPE_FINGERPRINT, before, fingerprint,
                                f"{R.RECIPE_FINGERPRINT} {short_hex(str(before))} \u2192 {short_hex(str(fingerprint))}"))
    return out


def same_recipe(one: dict, other: dict) -> bool:
    """Whether two records ran one recipe, measured alike: one benchmark client (``client_change``), and their
    fingerprints alike where both carry one, else (a row of `full-sweep` or `--row`, or stored before fingerprints)
    every RECIPE_FIELDS value alike: an unknown fingerprint differs from nothing, as an eval's unknown sample count
    does (``evals.incomparable``)."""
    if client_change(one, other):  # measured otherwise (``client_change``): no fingerprint holds the client
        return False
    mine, theirs = one.get(R.RECIPE_FINGERPRINT), other.get(R.RECIPE_FINGERPRINT)
    if mine is not None and theirs is not None:
        return mine == theirs
    return all(_display(name, one) == _display(name, other) for name in RECIPE_FIELDS)


@dataclass
class PassedOver:
    """The runs of a point's baseline window whose recipe is not that of its newest run there (``same_recipe``):
    main changed the recipe within the window (its image moved two runs ago), and a median and a spread over both
    recipes would judge the run against neither, the mix's spread widening its interval. Left out of the point's
    baseline (``current_recipe``), counted and named."""

    point: tuple
    window: list[dict]  # the point's window as picked (``baseline_window``), newest first
    runs: list[dict]  # those of it passed over, newest first

    @property
    def newest(self) -> dict:
        return self.window[0]

    @property
    def since(self) -> dict:
        """The first run of the newest recipe after the newest run passed over: where main's recipe changed."""
        return self.window[self.window.index(self.runs[0]) - 1]

    def change(self) -> str:
        """What changed from the newest run passed over to the newest run: ``image v0.25.1 -> v0.27.0``."""
        return "; ".join(run_differences(self.runs[0], self.newest))

    def why(self, n: int, min_samples: int) -> str:
        """Why the point's metric with ``n`` baseline values is insufficient-data (fewer than ``min_samples``)."""
        from sweepgate.core.report import count

        return (f"{count(n, 'baseline run')} of the newest recipe, fewer than --min-samples {min_samples}: "
                f"{count(len(self.runs), 'older run')} of another recipe passed over ({self.change()} from baseline "
                f"run {self.since.get(R.RUN_ID)})")

    def as_json(self) -> list[dict]:
        """``[{"run-id", "why"}]``, newest first, as an eval score's ``passed-over`` names its run."""
        newest = self.newest.get(R.RUN_ID)
        return [{R.RUN_ID: str(rec.get(R.RUN_ID)),
                 "why": f"another recipe than baseline run {newest}, the newest "
                        f"({'; '.join(run_differences(rec, self.newest))})"} for rec in self.runs]


def current_recipe(baselines: dict[tuple, list[dict]]) -> tuple[dict[tuple, list[dict]], dict[tuple, PassedOver]]:
    """(each point's window, ``baseline_window``'s, kept to the runs of its newest run's recipe; point ->
    ``PassedOver`` of each point that had runs of another). A PR is judged against main's current recipe at the
    point; its own recipe change, against that newest run, is named beside it (``recipe_changes``)."""
    kept, passed = {}, {}
    for pt, window in baselines.items():
        alike = [rec for rec in window if same_recipe(rec, window[0])] if window else window
        kept[pt] = alike
        if len(alike) < len(window):
            passed[pt] = PassedOver(pt, window, [rec for rec in window if not same_recipe(rec, window[0])])
    return kept, passed


def rehearsal_apart(head: dict, base: list[dict]) -> str | None:
    """Why ``head``'s figures are not compared with its baseline runs' (``base``), else None: one side is a rehearsal
    (R.REHEARSAL: the stand-in server of `sweepgate rehearse`, no GPU) and a run of the other is not. A rehearsal
    against rehearsals (`sweepgate example`, the pipeline's own tests) is judged as any run is."""
    mine = bool(head.get(R.REHEARSAL))
    if not any(bool(b.get(R.REHEARSAL)) != mine for b in base):
        return None
    stand_in, real = ("this run's", "the baseline runs'") if mine else ("the baseline runs'", "this run's")
    return (f"{REHEARSAL_APART}: {stand_in} figures come from the stand-in server of `sweepgate rehearse`, "
            f"{real} from a GPU; a rehearsal tests the pipeline, not performance")


def _point_verdicts(pt: tuple, head: dict, base: list[dict], settings: Settings, judged: dict,
                    passed: PassedOver | None = None) -> list[Verdict]:
    """The verdicts of one point; ``judged`` maps its (point, metric) comparisons to noise.Judged; ``passed``: the
    runs of its window at another recipe, left out of ``base`` (``current_recipe``)."""
    out = []
    sides = (bool(head.get(R.REHEARSAL)), any(b.get(R.REHEARSAL) for b in base))
    rehearsal = any(sides)
    changes = recipe_changes(head, base)
    apart = not_comparable(head, base)
    stand_in = rehearsal_apart(head, base)
    if job_failed(head):  # nothing measured to judge; the job itself is the finding
        rates = [r for b in base if (r := _figure(b, R.SUCCESS_RATE)) is not None]
        median = statistics.median(rates) if rates else None
        return [Verdict(pt, None, None, len(base), median, None, None, None, FAILED,
                        settings.threshold_for(str(pt[0]), R.SUCCESS_RATE), rehearsal, changes, head[R.STATUS],
                        detail=_requests_done(head), sides=sides, passed_over=passed)]
    for metric, value, values in _figures(head, base, settings):
        threshold = settings.threshold_for(str(pt[0]), metric)
        if stand_in and values:  # main's figures shown beside the stand-in's, no change stated between them
            verdict, median = NOT_COMPARED, float(statistics.median(values))
            change = low = high = p_adjusted = None
        elif (pending := _pending(value, values, settings.min_samples, bool(base))) is not None:
            verdict, median, change = pending
            low = high = p_adjusted = None
        elif apart:  # shown beside main's figures, never judged against them
            verdict, median = INSUFFICIENT, float(statistics.median(values))
            change, low, high, p_adjusted = relative_change(value, median), None, None, None
        else:
            verdict, median, low, high, change = verdict_of(value, values, metric, threshold, judged[pt, metric])
            p_adjusted = judged[pt, metric].p_adjusted
        why = (stand_in if verdict == NOT_COMPARED else None) or apart or (
            passed.why(len(values), settings.min_samples) if passed and verdict == INSUFFICIENT else None)
        out.append(Verdict(pt, metric, value, len(values), median, low, high, change, verdict, threshold,
                           rehearsal, changes, p_adjusted=p_adjusted,
                           sides=sides, passed_over=passed, why=why, client=apart and client_change(base[0], head)))
    return out


def failure_words(status: str, detail: str | None) -> str:
    """A failed or cancelled job as the compare table, its Markdown report and `results show` say it, in place
    of figures it has none of: ``failure (0 of 40 requests completed)``, or its status alone."""
    return f"{status} ({detail})" if detail else status


def job_status_words(rec: dict) -> str:
    """``failure_words`` of the job behind ``rec`` (``job_failed``), from its status and its output's counts."""
    return failure_words(str(rec.get(R.STATUS)), _requests_done(rec))


def _requests_done(head: dict) -> str | None:
    """'0 of 8 requests completed', from a failed job's output when it counted both."""
    if (counts := derive.request_counts(head.get(R.METRICS) or {})) is None:
        return None
    done, failed = counts
    return f"{done:,.0f} of {done + failed:,.0f} requests completed"  # as every figure: 10,240


def _figures(head: dict, base: list[dict], settings: Settings):
    """(metric, head value, baseline values) of each compared metric the head has."""
    for metric in settings.metrics:
        value = _figure(head, metric)
        if value is not None:
            yield metric, value, [v for v in (_figure(b, metric) for b in base) if v is not None]


def _judge_run(heads: dict, baselines: dict, settings: Settings) -> dict:
    """Every comparison of the run with enough baseline values, judged together (noise.judge_all)."""
    from sweepgate.results import noise

    keys, comparisons = [], []
    for pt, head in heads.items():
        if job_failed(head) or not_comparable(head, baselines.get(pt, [])) or rehearsal_apart(head, baselines.get(pt, [])):
            continue
        for metric, value, values in _figures(head, baselines.get(pt, []), settings):
            if _pending(value, values, settings.min_samples) is None:
                keys.append((pt, metric))
                requests = _requests(head, baselines.get(pt, [])) if metric == R.SUCCESS_RATE else None
                comparisons.append(noise.Comparison(metric, value, values, pt, requests))
    return dict(zip(keys, noise.judge_all(comparisons, CONFIDENCE)))


def _requests(head: dict, base: list[dict]) -> tuple[int, int, int, int] | None:
    """(failed, total) requests of the head and of its baseline runs together, where every one counted
    both (a success rate's noise is its requests': ``noise.Comparison.requests``); else None."""
    counts = []
    for rec in (head, *base):
        if (done_failed := derive.request_counts(rec.get(R.METRICS) or {})) is None:
            return None
        done, failed = done_failed
        if round(done + failed) < 1:  # a total that rounds to no request is no count
            return None
        counts.append((round(failed), round(done + failed)))
    return (*counts[0], sum(f for f, _ in counts[1:]), sum(t for _, t in counts[1:]))


RATE_AT = R.POINT_IDENTITY.index(R.REQUEST_RATE)


def point_sort_key(pt: tuple) -> tuple:
    """Points in order of their fields, unknowns last; the request rate (text, ``R.rate_key``) by its
    number, so a sweep reads 1, 2, 16/s, not 1, 16, 2/s (new user s37d), as `results show` lists it."""
    return tuple(R.rate_order(v) if i == RATE_AT
                 else (v is None, str(type(v).__name__), v if v is not None else 0) for i, v in enumerate(pt))


def compare_records(pr_records: list[dict], baseline_records: list[dict], *, run: str | None = None,
                    settings: Settings | None = None, **overrides) -> Comparison:
    """Judge every point of the PR run against its baseline (see the module docstring).

    ``baseline_records`` are the baseline ref's results (any number of runs; the last
    ``window`` per point are used). ``overrides`` set Settings fields by name.
    """
    settings = settings or Settings()
    for name, value in overrides.items():
        setattr(settings, name, value)
    settings.validate()
    measured = measurements_per_point(pr_records)
    heads = {pt: combined(recs) for pt, recs in measured.items()}
    run_ids = {str(r.get(R.RUN_ID)) for r in pr_records}
    base = [b for b in baseline_records if str(b.get(R.RUN_ID)) not in run_ids]  # never the run's own
    past = past_of(pr_records)
    echoed: dict = {}
    picked = baseline_window(base, settings.window, past=past, echoed=echoed)
    baselines, passed = current_recipe(picked)  # main's newest recipe at each point, not a mix of two
    echoed = {pt: e for pt, e in echoed.items()
              if pt in heads and set(e.runs) & {str(r.get(R.RUN_ID)) for r in baselines.get(pt, [])}}
    judged = _judge_run(heads, baselines, settings)
    verdicts: list[Verdict] = []
    for pt in sorted(heads, key=point_sort_key):
        verdicts.extend(_point_verdicts(pt, heads[pt], baselines.get(pt, []), settings, judged, passed.get(pt)))
    if run is None:
        run = str(next((r.get(R.RUN_ID) for r in pr_records if r.get(R.RUN_ID) is not None), ""))
    repeated = {pt: n for pt, recs in measured.items() if (n := len(measurements_of(recs))) > 1}
    missing = not_measured(heads, set(measurements_per_point(pr_records, evals=True)), base, baselines, settings,
                           past)
    dropped = {m.point: baselines.get(m.point, []) for m in missing if m.what is None}
    notes = [echo_note(echoed)] if echoed else []
    if rowless := rowless_note(heads):
        notes.append(rowless)
    if copied := copied_from_baseline(measured, base):
        notes.append(copy_note(copied))
    if reused := reused_note(pr_records):
        notes.append(reused)
    return Comparison(run, verdicts, heads, {pt: baselines.get(pt, []) for pt in heads}, repeated,
                      not_measured=missing, dropped={pt: recs for pt, recs in dropped.items() if recs},
                      pr=pr_of(pr_records), notes=notes, echoed=echoed,
                      unordered=unordered_baselines(heads, picked, base, past),
                      not_compared=not_compared(heads, missing, settings),
                      passed_over={pt: p for pt, p in passed.items() if pt in heads or pt in dropped})


@dataclass
class Unordered:
    """A point whose baseline rests on a pair of records of unknown order (``R.unordered``: a time written
    without its zone near one with a zone): ``taken``, a run of its baseline window, over ``other``, a run
    of the point left out of it; or, ``other`` None, ``taken`` counted as before the compared run (``past``)."""

    point: tuple
    taken: dict
    other: dict | None = None
    past: R.Past | None = None  # the compared run's (``past_of``), where ``other`` is None


def unordered_baselines(heads: dict, baselines: dict, base: list[dict], past: R.Past | None) -> list[Unordered]:
    """Each point of the run whose baseline window (``baseline_window``) rests on an order that is not known:
    a run of it against the compared run's time (``past``: is it before the run?), else against a run of the
    point left out of it (one output stored as several runs, or copied by ``ci reuse``, is one: no pair); the
    first such pair of each, the window newest first. The window is kept as the stored order makes it."""
    of_point: dict[tuple, list[dict]] = defaultdict(list)
    naive = set()  # the points a record of whose time was written without its zone (few stores hold any)
    for rec in base:
        if _usable(rec) and (pt := point_of(rec)) in heads:
            of_point[pt].append(rec)
            if R.zoned(R.happened(rec)) is False:
                naive.add(pt)
    if past is not None:
        naive |= {pt for pt in of_point if R.zoned(R.past_at(past, pt)[0]) is False}
    out = []
    for pt in sorted(naive, key=point_sort_key):
        window, at = baselines.get(pt) or [], R.past_at(past, pt)
        if at is not None and (taken := next((r for r in window if R.unordered_times(R.happened(r), at[0])), None)):
            out.append(Unordered(pt, taken, past=at))
            continue
        runs = {str(r.get(R.RUN_ID)) for r in window}
        held = {R.measurement_of(r) for r in of_point[pt] if str(r.get(R.RUN_ID)) in runs}
        left = [r for r in of_point[pt] if str(r.get(R.RUN_ID)) not in runs and R.measurement_of(r) not in held]
        if pair := next(((w, o) for w in window for o in sorted(left, key=R.time_order, reverse=True)
                         if R.unordered(w, o)), None):
            out.append(Unordered(pt, *pair))
    return out


def copied_from_baseline(measured: dict[tuple, list[dict]], base: list[dict]) -> dict[tuple, str]:
    """Each point of the run whose output is one a baseline run holds (the same file's bytes and line,
    ``R.output_measured``) -> that baseline run's id: the run's figure there is that run's measurement, and
    judged against a window that holds it, a change reads as none. A ``ci reuse`` copy is one by design
    (``R.REUSED_FROM``), not said here."""
    held: dict[tuple, str] = {}
    for rec in sorted(base, key=R.time_order):  # the newest holder of an output named
        if (what := R.output_measured(rec)) is not None:
            held[what] = str(rec.get(R.RUN_ID))
    copied = {}
    for pt, recs in measured.items():
        own = [R.output_measured(r) for r in recs if not r.get(R.REUSED_FROM)]
        if run := next((held[what] for what in own if what in held), None):
            copied[pt] = run
    return copied


def copy_note(copied: dict[tuple, str]) -> str:
    """What the reports say of points whose output a baseline run holds (``copied_from_baseline``)."""
    runs = list(dict.fromkeys(copied.values()))
    named = _and_listed(runs)
    points = f"{len(copied)} point{'s' if len(copied) > 1 else ''}"
    return (f"This run's output at {points} is the same bytes as baseline run{'s' if len(runs) > 1 else ''} "
            f"{named}'s: that is a measurement main already has, not a new one (ingest the PR job's own output)")


def reused_note(records: list[dict]) -> str | None:
    """What the reports say of the run's results ``ci reuse`` took from earlier runs (``R.REUSED_FROM``), not
    measured again: each earlier run and the points it measured (config key, else model, and conc), so a reader
    of a PR's comment knows which figures are from before its last push. None when the run measured all its own."""
    def named(rec: dict) -> str:
        return str(rec.get(R.CONFIG_KEY) or rec.get(R.MODEL))

    taken: dict[str, dict[str, list]] = {}  # earlier run -> config key (or model) -> its concs
    for rec in sorted(records, key=lambda r: (named(r), R.rate_order(r.get(R.CONC)))):
        if isinstance(origin := rec.get(R.REUSED_FROM), dict):
            concs = taken.setdefault(str(origin.get(R.RUN_ID)), {}).setdefault(named(rec), [])
            if rec.get(R.CONC) not in concs:
                concs.append(rec.get(R.CONC))
    if not taken:
        return None
    runs = "; ".join(f"run {run}: " + ", ".join(f"{key} conc {', '.join(map(str, concs))}"
                                                for key, concs in keys.items()) for run, keys in taken.items())
    return (f"Not measured again (`ci reuse`: the same files, image and runner pool as an earlier run's job that "
            f"succeeded), the figures taken from {runs}")


def _earlier(records: list[dict], past: R.Past | None) -> list[dict]:
    """Those of ``records`` from before ``past`` (all when it is None)."""
    return records if past is None else [r for r in records if R.before(r, past)]


def past_of(pr: list[dict]) -> R.Pasts | None:
    """When a run happened (the earliest time its own measurements carry) and its run id (``R.Past``: a
    record of that time is before it when its run id is), and at each point it measured, when it measured that
    point (``R.Pasts``), None when one has no time (or the run has no records).
    It is judged against the baseline runs before that: a PR run compared again a week later gets
    the verdicts it got, not main's later runs' (and an older main run, compared again, is judged
    against its own past). A ``ci reuse`` copy keeps the time another run measured it, which says
    nothing of when this run ran (as ``_span``); a run of copies only has their time. A run that measured
    throughput happened when it did: an eval's record (``is_eval_result``) places only a run of evals alone.
    Ingested without a sidecar, an eval's time is its lm-eval output's `date` (a Unix time, so in UTC, where
    vLLM's is the client's clock of no zone), and an eval output older than the run (new user s40f: dated 2024
    beside a throughput output of 2026) made the run one of then, its throughput judged against main's first
    runs from then, not those just before it; with a sidecar both carry the job's times, alike."""
    own = [r for r in pr if not isinstance(r.get(R.REUSED_FROM), dict)] or pr
    own = [r for r in own if not is_eval_result(r)] or own
    times = [t for r in own if (t := R.happened(r))]
    if not times or len(times) != len(own):
        return None
    run = str(own[0].get(R.RUN_ID))
    points: dict[tuple, str] = {}
    for rec in own:  # each point's own earliest (``R.Pasts``): main's run of it is before the run's of it
        pt = point_of(rec)
        points[pt] = min(points.get(pt, R.happened(rec)), R.happened(rec))
    return R.Pasts((min(times), run), {pt: (when, run) for pt, when in points.items()})


def pr_of(records: list[dict]) -> int | None:
    """The pull request whose ref (``refs/pull/N/…``) every one of ``records`` names, else None (a run
    of main, or of a branch: ``sweepgate example``'s refs/heads/seed-change)."""
    from sweepgate.core.jobfile import pr_number_of

    prs = {pr_number_of(r.get(R.REF)) for r in records}
    return prs.pop() if len(prs) == 1 and None not in prs else None


def not_measured(heads: dict, eval_points: set, base: list[dict], baselines: dict,
                 settings: Settings, past: R.Past | None = None) -> list[NotMeasured]:
    """What the baseline measured and the run did not (``NotMeasured``): the points of each config
    key the run measured that main's latest picture of their key, hardware and seq-len holds
    (``latest_pictures``) and the run lacks, of a seq-len the run measured none of only when the key's
    own latest picture has it (a seq-len main's newest sweep of the key left out is no drop); at a point both measured, a compared metric the newest
    baseline record has and the run's lacks, and eval scores a run of that picture has there and the
    run has none of (an older `--all-evals` run's are no sign of a dropped eval). Only baseline
    records from before ``past`` (when the run happened) count, as for its verdicts: a point main
    measured only after a PR run is judged against main's first runs after it, but they are no picture of main
    before it (main's later run hid what the PR dropped from main's run before it)."""
    base = _earlier(base, R.run_past(past))  # main's picture then: before the run began, as it was
    usable = _picture_records(base, {h.get(R.CONFIG_KEY) for h in heads.values()}, None)  # base is before it already
    pictures, of_key = latest_pictures(usable), latest_pictures(usable, lambda pt: pt[0])
    touched = {_group(pt) for pt in heads}
    out = {}
    for rec in usable:  # oldest first: a point's newest run of the picture names it
        pt, run = point_of(rec), str(rec.get(R.RUN_ID))
        if run in pictures[_group(pt)] and pt not in heads and (_group(pt) in touched or run in of_key[pt[0]]):
            out[pt, None] = NotMeasured(pt, None, str(rec.get(R.RUN_ID)))
    eval_base = baseline_window(base, 1, evals=True)
    for pt, head in heads.items():
        if job_failed(head):
            continue  # the failed job is the finding
        earlier = _earlier(baselines.get(pt, []), past)  # newest first
        if earlier:
            latest = earlier[0]
            for metric in settings.metrics:
                if _figure(latest, metric) is not None and _figure(head, metric) is None:
                    out[pt, metric] = NotMeasured(pt, metric, str(latest.get(R.RUN_ID)))
        scored = (eval_base.get(pt) or [None])[0]
        if (pt not in eval_points and scored is not None and scored.get(R.EVALS)
                and str(scored.get(R.RUN_ID)) in pictures.get(_group(pt), ())):  # main evals it still
            out[pt, EVAL_SCORES] = NotMeasured(pt, EVAL_SCORES, str(scored.get(R.RUN_ID)))
    return [out[k] for k in sorted(out, key=lambda k: (point_sort_key(k[0]), str(k[1] or "")))]


def _picture_records(base: list[dict], keys: set, past: R.Past | None) -> list[dict]:
    """What main's pictures (``latest_pictures``) are read from: the baseline's measurements of ``keys`` (the
    config keys the run measured), from before the run, oldest first."""
    keys = set(keys) - {None}
    return sorted((r for r in _earlier(base, R.run_past(past)) if _usable(r) and r.get(R.CONFIG_KEY) in keys), key=R.time_order)


def picture_reach(base: list[dict], keys: set, past: R.Past | None) -> tuple[set[str], str | None]:
    """(the runs of main's latest pictures of ``keys`` as ``base`` shows them, the earliest time one of them
    began): what a store must give whole for ``not_measured`` to read the pictures files give (every record
    of those runs, and of each run that ended since then, which may overlap one: ``store_adapter._others_of_keys``)."""
    usable = _picture_records(base, keys, past)
    runs = {run for pictures in (latest_pictures(usable), latest_pictures(usable, lambda pt: pt[0]))
            for picture in pictures.values() for run in picture}
    held: dict[str, list[dict]] = defaultdict(list)
    for rec in usable:
        if str(rec.get(R.RUN_ID)) in runs:
            held[str(rec.get(R.RUN_ID))].append(rec)
    return runs, min((span[0] for recs in held.values() if (span := _span(recs))), default=None)


def _group(pt: tuple) -> tuple:
    """What main's picture is of: a point's config key, hardware, scenario and seq-len (no conc)."""
    return pt[:R.POINT.index(R.CONC)]


def latest_pictures(usable_oldest_first: list[dict], group_of=None) -> dict[tuple, set[str]]:
    """Each group's (``group_of`` a point, ``_group`` by default) latest picture on the baseline ref: the run ids of its newest run (by
    record time, ``R.time_order``) and of every run that overlapped it in time, directly or through another
    (a re-run of some jobs dispatched while the sweep still ran, whose few points are newest; a result
    ``ci reuse`` recorded does not stretch its run back to when it was measured). Runs one after the
    other leave the newest alone: a trimmed sweep on main is main's picture now."""
    runs: dict[tuple, dict[str, list[dict]]] = defaultdict(dict)
    newest: dict[tuple, str] = {}
    for rec in usable_oldest_first:
        group, run = (group_of or _group)(point_of(rec)), str(rec.get(R.RUN_ID))
        runs[group].setdefault(run, []).append(rec)
        newest[group] = run
    return {group: _overlapping(newest[group], {run: _span(recs) for run, recs in by_run.items()})
            for group, by_run in runs.items()}


def _overlapping(newest: str, spans: dict[str, tuple[str, str] | None]) -> set[str]:
    """``newest`` and the runs whose time span (``_span``) overlaps it or one that does."""
    picture = {newest}
    if spans[newest] is None:
        return picture
    start = spans[newest][0]
    others = sorted(((span, run) for run, span in spans.items() if span and run != newest),
                    key=lambda item: item[0][1], reverse=True)
    for (began, ended), run in others:  # latest end first: one that ended before the picture began ends it
        if ended < start:
            break
        picture.add(run)
        start = min(start, began)
    return picture


def _span(recs: list[dict]) -> tuple[str, str] | None:
    """(earliest start, latest finish) as stored (``R.stored_time``) of a run's own measurements; None when none carries a time.
    ``ci reuse``'s copies keep the time another run measured them, which says nothing of when this
    run ran: a run of copies only is a picture of its own, joined to no other. Its callers give it throughput
    records alone (``_picture_records``): an eval's time without a sidecar is its lm-eval output's `date`, which
    may be years before the run (``past_of``), and would join main's runs of then to its picture."""
    own = [r for r in recs if not isinstance(r.get(R.REUSED_FROM), dict)]
    times = [(str(R.stored_time(r.get(R.STARTED) or r.get(R.FINISHED))),
              str(R.stored_time(r.get(R.FINISHED) or r.get(R.STARTED)))) for r in own if r.get(R.STARTED) or r.get(R.FINISHED)]
    return (min(t[0] for t in times), max(t[1] for t in times)) if times else None
