"""Eval scores of a PR run against the baseline's at the same point, score by score.

An eval record (``compare.is_eval_result``: lm-eval's scores under ``record["evals"]``) sits at
its job's point (``compare.point_of``). Each score of the PR run's newest attempt there is
matched by (task, metric, filter) with the baseline's score at that point and judged by a
two-sided normal test on the difference, ``z = difference / sqrt(se_pr^2 + se_base^2)``. The run's
scores are judged together, as its throughput comparisons are (``noise.adjust``: Benjamini-Hochberg
over the points, each point's scores one family, at ``1 - compare.CONFIDENCE``): twenty scores judged
one at a time at 95 % flag one by chance. A score is ``regressed`` when it moved the bad way beyond its
``margin``, ``z`` at the p-value cut the adjustment ended at times that standard error (1.96 of them
for a run of one score), ``improved`` the good way, else ``unchanged``. Better is higher except for
``record.LOWER_IS_BETTER_EVAL_METRICS``.
No baseline score gives ``new``; a missing stderr (lm-eval writes "N/A" for one sample, or none) gives
``not-judged``, with why.

The baseline score is the NEWEST baseline run's (within the window) that has it and ran it as this run did
(``incomparable``: the same sample count, else the same ``--limit``, the same few-shot count, and the prompts put
alike: few-shot as multi-turn, chat template, system instruction; where both files say them): a ``--limit 1`` smoke
run on main is passed over for the full run before it, and named (``passed_over``). When no run of the window did,
the newest that has the score is shown, ``not-judged``, with what differs. Its own stderr, not a mean over the
window. An eval's error is the sampling error of its fixed question set, and every run answers the same questions:
more runs of it do not shrink that error the way the mean's formula would claim, while a mean would mix in main's
scores from before a change that main made on purpose and blame (or credit) the PR for it.

The test treats the two scores as independent. They answer the same questions, so their
errors correlate positively and the true error of the difference is smaller: the test is
conservative (it flags fewer changes, never more, than a paired test would).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from functools import lru_cache

from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results.formats.lm_eval import NO_FILTER

NOT_JUDGED = "not-judged"
VERDICTS = (C.FAILED, C.REGRESSED, C.IMPROVED, NOT_JUDGED, C.NEW, C.UNCHANGED)  # report order
JOB = "(job)"  # the task of a failed eval job's one verdict: no score to name


@dataclass
class EvalVerdict:
    """One score of one point: the PR's and the baseline's (value, stderr, samples), the difference
    (PR - baseline), the margin it had to exceed, the verdict, and why it was not judged."""

    point: tuple
    task: str
    metric: str
    filter: str
    head: dict
    baseline: dict | None
    difference: float | None
    margin: float | None
    verdict: str
    why: str | None = None
    sides: tuple[bool, bool] = (False, False)  # whose scores are the stand-in server's: (the run's, the baseline's)
    model: str | None = None  # the model the run's eval record names (``_model``): what names a point without a key
    stated: bool | None = None  # whether higher is better, as the eval's file says it (``judge``); None: by the name
    # the newest baseline run with the score, passed over for an older one that ran it as this run did:
    # {"run-id", "why"} (``incomparable``); None when the baseline is the newest with the score
    passed_over: dict | None = None
    image: str | None = None  # the image the run's eval record names (``_image``): the evals table's image column
    # what the run's eval record ran otherwise than its baseline's run (``compare.recipe_changes``), as a throughput
    # Verdict names it: the evals table's recipe change
    recipe_changes: list[C.RecipeChange] = field(default_factory=list)

    def as_json(self) -> dict:
        out = C.point_json(self.point)  # "model" where a point has it (Verdict.as_json): a rowless run's only name
        out.update({"model": self.model, R.EVAL_TASK: self.task, R.EVAL_METRIC: self.metric,
                    R.EVAL_FILTER: self.filter, "head": self.head, "baseline": self.baseline, "difference": self.difference,
                    "margin": self.margin, "verdict": self.verdict})
        if self.why:
            out["why"] = self.why
        if self.passed_over:
            out["passed-over"] = self.passed_over
        if self.recipe_changes:  # the evals table's recipe change, each value whole, as a point's (Verdict.as_json)
            out[C.RECIPE_CHANGE] = C.changes_json(self.recipe_changes)
        if any(self.sides):  # scored against the stand-in server of `sweepgate rehearse`, as a Verdict says
            out[R.REHEARSAL] = True
        return out


@lru_cache(maxsize=1024)
def z_value(confidence: float = C.CONFIDENCE) -> float:
    """The two-sided standard normal quantile at ``confidence`` (1.96 at 95 %), from scipy.stats."""
    from scipy.stats import norm

    return float(norm.isf((1 - confidence) / 2))


def _key(entry: dict) -> tuple[str, str, str]:
    return entry[R.EVAL_TASK], entry[R.EVAL_METRIC], entry[R.EVAL_FILTER]


def _figures(entry: dict, run=None) -> dict:
    out = {R.EVAL_VALUE: C.number(entry.get(R.EVAL_VALUE)), R.EVAL_STDERR: C.number(entry.get(R.EVAL_STDERR)),
           R.EVAL_SAMPLES: entry.get(R.EVAL_SAMPLES)}
    return out if run is None else {**out, R.RUN_ID: run}


LIMITED = "a --limit run is not comparable with a full one, nor with another limit"
NONE_ALIKE = "no baseline run of the window has the score as this run ran it"


def _limit_words(entry: dict) -> str:
    limit = entry[R.EVAL_LIMIT]
    return "no --limit" if limit is None else f"--limit {limit:g}"


def incomparable(head: dict, base: dict, run: str) -> str | None:
    """Why baseline run ``run``'s eval entry ``base`` is no baseline for this run's ``head`` (one task, metric and
    filter at one point): other samples (lm-eval's effective counts; where one is unknown, the ``--limit`` both
    files state), another version of the task, another few-shot count, or prompts put otherwise (``_prompted_otherwise``); None when nothing
    both say differs. An unknown differs from nothing
    (a group stored before its subtasks' counts were added up, a file of before n-shot)."""
    # "this run", not "the PR": the run compared may be main's own or a branch's
    mine, theirs = head.get(R.EVAL_SAMPLES), base.get(R.EVAL_SAMPLES)
    if None not in (mine, theirs):
        if mine != theirs:
            return f"samples differ ({mine} in this run, {theirs} in baseline run {run}): {LIMITED}"
    elif R.EVAL_LIMIT in head and R.EVAL_LIMIT in base and head[R.EVAL_LIMIT] != base[R.EVAL_LIMIT]:
        return (f"limits differ ({_limit_words(head)} in this run, {_limit_words(base)} in baseline run {run}): "
                f"{LIMITED}")
    versions = head.get(R.EVAL_TASK_VERSION), base.get(R.EVAL_TASK_VERSION)
    if None not in versions and not _same_version(*versions):
        return (f"task versions differ ({versions[0]} in this run, {versions[1]} in baseline run {run}): "
                f"{OTHER_TASK}")
    shots = head.get(R.EVAL_SHOTS), base.get(R.EVAL_SHOTS)
    if None not in shots and shots[0] != shots[1]:
        return (f"few-shot counts differ ({shots[0]}-shot in this run, {shots[1]}-shot in baseline run {run}): "
                f"{OTHER_PROMPTS}")
    return _prompted_otherwise(head, base, run, zero_shot=shots == (0, 0))


OTHER_PROMPTS = "the model answered other prompts"
OTHER_TASK = "lm-eval changed the task between them (its prompts, answers or scoring)"


def _same_version(one, other) -> bool:
    """Whether two task versions (``R.EVAL_TASK_VERSION``) are one: 3 and 3.0 are, as lm-eval writes either."""
    numbers = [isinstance(v, (int, float)) and not isinstance(v, bool) for v in (one, other)]
    return one == other if numbers == [True, True] else str(one) == str(other)


def _template_words(sha: str | None) -> str:
    """A chat template or system instruction as ``R.EVAL_CHAT_TEMPLATE`` stores it, in words."""
    return "none" if sha is None else "one lm-eval recorded no text of" if sha == "" else sha[:12]


def _prompted_otherwise(head: dict, base: dict, run: str, zero_shot: bool) -> str | None:
    """Why two entries of one score were prompted otherwise (``R.EVAL_MULTITURN``, ``R.EVAL_CHAT_TEMPLATE``,
    ``R.EVAL_SYSTEM``), where both files state it: the few-shot examples as turns or as one text (no matter for a
    0-shot run, which has none), a chat template applied or not, or another one where both name theirs, another
    system instruction. None when nothing both say differs."""
    if R.EVAL_MULTITURN in head and R.EVAL_MULTITURN in base and not zero_shot:
        turns = head[R.EVAL_MULTITURN], base[R.EVAL_MULTITURN]
        if turns[0] != turns[1]:
            on = ["on" if t else "off" for t in turns]
            return (f"few-shot as multi-turn differs ({on[0]} in this run, {on[1]} in baseline run {run}): "
                    f"{OTHER_PROMPTS}")
    for name, what in ((R.EVAL_CHAT_TEMPLATE, "chat templates"), (R.EVAL_SYSTEM, "system instructions")):
        if name not in head or name not in base:
            continue
        mine, theirs = head[name], base[name]
        if (mine is None) != (theirs is None) or (mine and theirs and mine != theirs):
            return (f"{what} differ ({_template_words(mine)} in this run, {_template_words(theirs)} in baseline run "
                    f"{run}): {OTHER_PROMPTS}")
    return None


def _not_judged_why(head: dict, base: dict) -> str | None:
    # "this run", not "the PR": the run compared may be main's own or a branch's
    missing = [who for who, f in (("this run's", head), ("the baseline's", base)) if f[R.EVAL_STDERR] is None]
    if missing:
        return f"no stderr for {' and '.join(missing)} score (lm-eval wrote \"N/A\" or NaN, or left it out)"
    if head[R.EVAL_VALUE] is None or base[R.EVAL_VALUE] is None:
        return "no score"
    return None


def judge(head: dict, base: dict | None, metric: str, confidence: float = C.CONFIDENCE,
          stated: bool | None = None) -> tuple:
    """(verdict, difference, margin, why) of one score (``_figures`` dicts) against its baseline's;
    ``stated``: which way is better, as the eval's file said (else by the metric's name)."""
    if base is None:
        return C.NEW, None, None, None
    if why := _not_judged_why(head, base):
        return NOT_JUDGED, None, None, why
    difference = head[R.EVAL_VALUE] - base[R.EVAL_VALUE]
    margin = z_value(confidence) * _spread(head, base)
    if abs(difference) <= margin:
        return C.UNCHANGED, difference, margin, None
    better = (difference > 0) == (R.eval_direction(metric, stated) == R.HIGHER_IS_BETTER)
    return (C.IMPROVED if better else C.REGRESSED), difference, margin, None


def _spread(head: dict, base: dict) -> float:
    """The standard error of a judged score's difference from its baseline's (``_figures`` dicts)."""
    return math.hypot(head[R.EVAL_STDERR], base[R.EVAL_STDERR])


def p_value(v: EvalVerdict) -> float | None:
    """The two-sided p-value of a judged score's difference (``judge``), None for one not judged."""
    from scipy.stats import norm

    if v.difference is None or v.baseline is None:
        return None
    spread = _spread(v.head, v.baseline)
    if spread == 0:
        return 1.0 if v.difference == 0 else 0.0
    return float(2 * norm.sf(abs(v.difference) / spread))


def judged_together(verdicts: list[EvalVerdict], confidence: float = C.CONFIDENCE) -> list[EvalVerdict]:
    """``verdicts`` (each ``judge``d alone) judged as one run's: the p-values of the judged scores adjusted
    together (``noise.adjust``, each point's scores one family), each score judged at the cut it ended at,
    its margin that cut's; the others as they are."""
    from sweepgate.results import noise

    p = [p_value(v) for v in verdicts]
    at = [i for i, v in enumerate(p) if v is not None]
    if not at:
        return verdicts
    _, cuts = noise.adjust([p[i] for i in at], [verdicts[i].point for i in at], 1 - confidence)
    out = list(verdicts)
    for i, cut in zip(at, cuts):
        v = verdicts[i]
        verdict, difference, margin, why = judge(v.head, v.baseline, v.metric, 1 - cut, v.stated)
        out[i] = dataclasses.replace(v, verdict=verdict, difference=difference, margin=margin, why=why)
    return out


def _newest_entry(key: tuple, base: list[dict]) -> tuple[dict, str] | None:
    """The newest baseline record's entry for ``key`` (records newest first), and its run."""
    return next(_entries(key, base), None)


def _entries(key: tuple, base: list[dict]):
    """Each baseline record's entry for ``key`` (records newest first), with its run."""
    for rec in base:
        if entry := next((e for e in rec.get(R.EVALS) or [] if _key(e) == key), None):
            yield entry, str(rec.get(R.RUN_ID))


def baseline_entry(head: dict, base: list[dict]) -> tuple[tuple[dict, str] | None, str | None, dict | None]:
    """(the baseline of this run's eval entry ``head``: the newest record of ``base`` (newest first) whose entry of
    its score ``incomparable`` finds nothing against, and its run, else the newest that has the score; why that one
    is not comparable, else None; the newest passed over for an older one, ``{"run-id", "why"}``, else None)."""
    newest = None
    for entry, run in _entries(_key(head), base):
        why = incomparable(head, entry, run)
        if why is None:
            return (entry, run), None, (None if newest is None else {R.RUN_ID: newest[1], "why": newest[2]})
        newest = newest or (entry, run, why)
    return (None, None, None) if newest is None else ((newest[0], newest[1]), f"{newest[2]}; {NONE_ALIKE}", None)


def point_verdicts(pt: tuple, heads: list[dict], base: list[dict]) -> list[EvalVerdict]:
    """Every score of the PR's eval records at ``pt`` (one attempt's; a later record's score wins);
    an eval job that failed (its newest attempt) and left no score is one ``failed`` verdict."""
    sides = (any(bool(rec.get(R.REHEARSAL)) for rec in heads), any(bool(b.get(R.REHEARSAL)) for b in base))
    scored = {_key(e): (e, rec) for rec in heads if not C.job_failed(rec) for e in rec.get(R.EVALS) or []}
    image, model = _image(heads), _model([*heads, *base])
    if not scored and any(C.job_failed(rec) for rec in heads):
        failed = next(rec for rec in heads if C.job_failed(rec))
        return [EvalVerdict(pt, JOB, "", "", dict(NO_SCORE), None, None, None, C.FAILED,
                            f"the eval job's status is {failed[R.STATUS]}: no score to judge", sides, model,
                            image=image, recipe_changes=C.recipe_changes(failed, base))]
    out = []
    for key, (entry, rec) in scored.items():
        found, apart, passed = baseline_entry(entry, base)
        head = _figures(entry)
        baseline = _figures(*found) if found else None
        stated = entry.get(R.EVAL_HIGHER, found[0].get(R.EVAL_HIGHER) if found else None)
        # a rehearsal's score against a real run's, or the other way round: no verdict (``C.rehearsal_apart``)
        apart = (found and C.rehearsal_apart(rec, [b for b in base if str(b.get(R.RUN_ID)) == found[1]][:1])) or apart
        verdict, difference, margin, why = (NOT_JUDGED, None, None, apart) if apart else \
            judge(head, baseline, key[1], stated=stated)
        out.append(EvalVerdict(pt, *key, head, baseline, difference, margin, verdict, why, sides, model, stated,
                               passed, image, _changes(rec, base, found[1] if found else None)))
    lost = _lost_scores(pt, scored, base, sides)
    ran = next(iter(scored.values()), (None, None))[1]
    return out + [dataclasses.replace(v, model=model, image=image,
                                      recipe_changes=_changes(ran, base, str(v.baseline.get(R.RUN_ID))))
                  for v in lost]


def _image(records: list[dict]) -> str | None:
    """The engine image the first of the run's eval ``records`` that names one ran (its matrix row's)."""
    return next((str(rec[R.IMAGE]) for rec in records if rec.get(R.IMAGE) not in (None, "")), None)


def _changes(head: dict | None, base: list[dict], run: str | None) -> list[C.RecipeChange]:
    """What the run's eval record ``head`` ran otherwise than the record of baseline run ``run`` (of ``base``, one
    record a run), as a throughput point's recipe change says it (``compare.recipe_changes``); [] without either."""
    rec = next((b for b in base if str(b.get(R.RUN_ID)) == run), None) if run is not None else None
    return C.recipe_changes(head, [rec]) if head is not None and rec is not None else []


def _model(records: list[dict]) -> str | None:
    """The model the first of ``records`` that names one evaluated (lm-eval's ``model_args`` or ``model_name``,
    as stored): what names an eval ingested without its matrix row (no config key), as a throughput
    record's names its point (``Comparison.model_of``)."""
    return next((rec[R.MODEL] for rec in records if isinstance(rec.get(R.MODEL), str) and rec[R.MODEL]), None)


NO_SCORE = {R.EVAL_VALUE: None, R.EVAL_STDERR: None, R.EVAL_SAMPLES: None}


def _lost_scores(pt: tuple, scores: dict, base: list[dict], sides: tuple[bool, bool]) -> list[EvalVerdict]:
    """A score the baseline has that the PR's eval job, which did run, left without (lm-eval wrote it
    as Infinity or NaN, which ingest leaves out with a warning, or the task no longer reports it): one
    ``not-judged`` verdict each, so that it is seen rather than silently gone from the report."""
    newest = next((rec for rec in base if rec.get(R.EVALS)), None)  # records newest first
    if not scores or newest is None:
        return []
    # the newest baseline run's scores only: one main itself stopped reporting is not the run's loss
    lost = dict.fromkeys(_key(e) for e in newest[R.EVALS] if _key(e) not in scores)
    return [EvalVerdict(pt, *key, dict(NO_SCORE), _figures(*_newest_entry(key, base)), None, None, NOT_JUDGED,
                        "no score in this run (lm-eval wrote none it could store: see the ingest warning), "
                        "the baseline has one", sides) for key in lost]


def compare_evals(pr_records: list[dict], baseline_records: list[dict], window: int = C.DEFAULT_WINDOW,
                  ) -> list[EvalVerdict]:
    """Judge every eval score of the PR run against the baseline (see the module docstring); the PR
    run's own records never count as its baseline. Ordered by verdict (VERDICTS), then point."""
    heads = C.measurements_per_point(pr_records, evals=True)
    run_ids = {str(r.get(R.RUN_ID)) for r in pr_records}
    baselines = C.baseline_window([b for b in baseline_records if str(b.get(R.RUN_ID)) not in run_ids],
                                  window, evals=True, past=C.past_of(pr_records))
    out = [v for pt in sorted(heads, key=C.point_sort_key)
           for v in point_verdicts(pt, heads[pt], baselines.get(pt, []))]
    return sorted(judged_together(out), key=lambda v: VERDICTS.index(v.verdict))


def counts(verdicts: list[EvalVerdict]) -> dict[str, int]:
    out = dict.fromkeys(VERDICTS, 0)
    for v in verdicts:
        out[v.verdict] += 1
    return out


def score_label(task: str, metric: str, flt: str | None) -> str:
    """``gsm8k exact_match strict-match``; the filter left out when it is lm-eval's "none"."""
    return " ".join(p for p in (task, metric, flt) if p and p != NO_FILTER)


def fmt_score(value: float | None, stderr: float | None) -> str:
    """``0.8946 ±0.0085`` (``±n/a`` without a stderr)."""
    if value is None:
        return "n/a"
    return f"{value:.4f} \u00b1" + ("n/a" if stderr is None else f"{stderr:.4f}")
