"""The store, as `results compare` needs it: a run's records and each of its points' baselines.

A thin layer over ``store.Store`` (owned by `results ingest`/`show`), so ``compare``
keeps working on plain record lists.
"""

from __future__ import annotations

from sweepgate.results import record as R
from sweepgate.results.compare import baseline_of, covered, past_of


def point_dict(rec: dict) -> dict:
    """The store's point filter for a record: every POINT_IDENTITY field, None included."""
    return dict(zip(R.POINT_IDENTITY, R.point_values(rec)))


def from_store(url: str | None, run: str, baseline_ref: str | None, window: int,
               unknown=None) -> tuple[list[dict], list[dict], str, str | None]:
    """(the run's records, their baseline on ``baseline_ref`` or [] when None, the database shown to
    a user, the baseline ref as stored: ``main`` names ``refs/heads/main`` as ``git`` reads it).
    ``unknown(st, shown)``: the error raised for a run the store holds nothing of, made while the
    store is open (a PR's runs it names are read from it then, not from the store opened again).

    Rehearsal results count as baseline only for a rehearsal run (so a rehearsal never
    judges a GPU run, and the example's generated history can judge its rehearsal).
    """
    from sweepgate.core.jobfile import is_full_ref
    from sweepgate.results import store

    with store.open_store(url, must_exist=True) as st:
        shown = store.display_url(st.url)
        pr = st.run_results(run)
        if not pr and unknown is not None:
            raise unknown(st, shown)
        if not pr or baseline_ref is None:
            return pr, [], shown, baseline_ref
        refs = None  # read only for a short name, or to explain an empty baseline
        if not is_full_ref(baseline_ref):
            refs = st.refs()
            baseline_ref = stored_ref(baseline_ref, refs)
        rehearsal = is_rehearsal(pr)
        # one more run than the window: the run itself may be on the baseline ref (compare drops it)
        points = [point_dict(r) for r in pr]
        past = past_of(pr)
        baseline = _baseline_runs(st, baseline_ref, points, window, include_rehearsals=rehearsal, before=past)
        if past and any(r.get(R.REF) != baseline_ref for r in pr):
            # A point the baseline ref measured only after the run (a store filled after it) is
            # still judged, rather than called new: against its first ``window`` runs from the run on
            # (``compare.baseline_window`` picks them alike), so main's runs after those move nothing.
            # Its throughput and its eval scores apart (``compare.baseline_of``): main's evals there
            # from before the run leave its later throughput runs the baseline, and not the other way.
            later = {baseline_of(r) for r in pr} - covered(baseline, past)
            if later:
                found = _baseline_runs(st, baseline_ref, [p for p, r in zip(points, pr) if baseline_of(r) in later],
                                       window, include_rehearsals=rehearsal, after=past)
                baseline += [r for r in found if baseline_of(r) in later]
        if not baseline:
            check_baseline_ref(baseline_ref, st.refs() if refs is None else refs, shown)
        baseline += _others_of_keys(st, pr, baseline, baseline_ref, rehearsal, past)
        return pr, baseline, shown, baseline_ref


def later_runs(url: str | None, ref: str, pr: list[dict], window: int) -> list[str]:
    """The runs on ``ref`` that measured a point of ``pr`` (a run on ``ref`` itself) after it (``past_of``:
    at its time too, with a later run id), oldest first; [] when the run has no time (its baseline is every
    run then)."""
    from sweepgate.results import store

    past = past_of(pr)
    if past is None:
        return []
    own = {str(r.get(R.RUN_ID)) for r in pr}
    rehearsal = is_rehearsal(pr)
    with store.open_store(url, must_exist=True) as st:
        found = _baseline_runs(st, ref, [point_dict(r) for r in pr], window, include_rehearsals=rehearsal, after=past)
    return list(dict.fromkeys(str(r[R.RUN_ID]) for r in sorted(found, key=R.time_order)
                              if str(r.get(R.RUN_ID)) not in own and not R.before(r, past)))


def runs_on_no_ref(url: str | None, judged: str | None = None) -> tuple[int, int]:
    """How many runs the store holds on no ref, which no baseline takes: (those of outputs ingested with no sidecar
    and no --row, content-hash runs named ``sidecar.LOCAL_RUN_PREFIX``…; those of jobs whose sidecar names no ref).
    A rehearsal's runs, on no ref by design, are neither, nor the ``judged`` run (s50d: no baseline's to take, it
    was counted with a fix that would store it as main's)."""
    from sweepgate.results import store
    from sweepgate.results.sidecar import LOCAL_RUN_PREFIX

    with store.open_store(url, must_exist=True) as st:
        runs = [run for run in st.runs_on_no_ref() if run != judged]
    hashed = sum(1 for run in runs if run.startswith(LOCAL_RUN_PREFIX))
    return hashed, len(runs) - hashed


def later_runs_in_files(records: list[dict], ref: str, pr: list[dict], window: int) -> list[str]:
    """``later_runs`` of records read from files (``--baseline-jsonl``, ``--baseline-artifacts``), as a store
    holding them gives it: the runs on ``ref`` (a short name read as ``stored_ref`` reads it) whose
    successful records of a point of ``pr`` (a run on ``ref`` itself) are not before it (``R.before``: of its
    time, a later run id), each point's first ``window`` runs from then (``compare.baseline_window``, as the
    store's ``after`` query takes them), oldest first; [] when the run has no time or is not on ``ref``."""
    from sweepgate.results.compare import baseline_window

    past = past_of(pr)
    ref = stored_ref(ref, sorted({str(r[R.REF]) for r in records if r.get(R.REF)}))
    if past is None or any(r.get(R.REF) != ref for r in pr):
        return []
    own, mine = {str(r.get(R.RUN_ID)) for r in pr}, {R.point_values(r) for r in pr}
    rehearsal = is_rehearsal(pr)
    after = [r for r in records if r.get(R.REF) == ref and may_judge(r, rehearsal)
             and str(r.get(R.RUN_ID)) not in own and R.point_values(r) in mine and not R.before(r, past)]
    firsts = [r for evals in (False, True) for recs in baseline_window(after, window, evals, past).values() for r in recs]
    return list(dict.fromkeys(str(r[R.RUN_ID]) for r in sorted(firsts, key=R.time_order)))


def is_rehearsal(pr: list[dict]) -> bool:
    """Whether the compared run ``pr`` is a rehearsal: only its baseline holds rehearsals' results (a rehearsal
    never judges a GPU run)."""
    return any(r.get(R.REHEARSAL) for r in pr)


def may_judge(rec: dict, rehearsal: bool) -> bool:
    """Whether ``rec`` may be in the baseline of a run that is a rehearsal (``rehearsal``, ``is_rehearsal``) or is
    not: a rehearsal's record only in a rehearsal's, and never one of a run cancelled before it finished
    (R.RUN_CANCELLED: part of a sweep, kept for reuse only). The one rule of records read from files
    (``baseline_of_files``, ``later_runs_in_files``, the artifacts' ``source._Tally``, ``context_of_files``), as the
    store's look-ups ask it in SQL (``include_rehearsals``: ``store_query._real_only``; ``store_query._whole_runs``)."""
    return (rehearsal or not rec.get(R.REHEARSAL)) and not rec.get(R.RUN_CANCELLED)


def _baseline_runs(st, ref: str, points: list[dict], window: int, **kw) -> list[dict]:
    """The records of each point's last ``window`` + 1 successful runs on ``ref`` (one more: the run
    itself may be on ``ref``), and as many runs more as the point with the most reused results among
    them holds: a result ``ci reuse`` recorded again counts once in the baseline
    (``compare.baseline_window``), so its copies must not take the places of older measurements
    (with ``after``, of its first runs from then: of later ones); so does one output stored as several runs
    (``R.measurement_of``), each run after the first a copy."""
    from collections import Counter

    n, past = window + 1, kw.pop("before", None)
    if past is not None:  # asked before the latest of the run's pasts, then each point's own (``R.Pasts``)
        kw["before"] = R.latest_past(past)
    if "after" in kw:  # the run's earliest: a point measured by none before its own past, by none before this
        kw["after"] = R.run_past(kw["after"])
    while True:
        found = st.last_runs_of_points(ref, points, n, succeeded=True, **kw)
        copies, seen = Counter(), set()
        for rec in found:
            once = (R.point_values(rec), R.measurement_of(rec))
            copies[once[0]] += bool(rec.get(R.REUSED_FROM)) or once in seen
            seen.add(once)
        if past is not None:  # a run of a point after the run's own of it takes a place too
            later = {(R.point_values(r), str(r.get(R.RUN_ID))) for r in found if not R.before(r, past)}
            copies.update(pt for pt, _ in later)
            found = [r for r in found if R.before(r, past)]
        most = max(copies.values(), default=0)  # the point that lost the most places to copies
        if n >= window + 1 + most:
            return found
        n = window + 1 + most


def _others_of_keys(st, pr: list[dict], baseline: list[dict], baseline_ref: str, rehearsal: bool,
                    past: R.Past | None) -> list[dict]:
    """The newest baseline record of each point of the run's config keys that the run did not
    measure, from before the run (``past``, as its window): what compare names as measured on the
    baseline ref and not by this run. Never of a point the run measured (its baseline stays the
    runs before it). The newest before the run, not the newest there is: compared again after main
    ran the point again, a point the run dropped is still said. And the newest that succeeded: a
    night whose every job failed is no picture of main (compare leaves failed jobs out of it), and its
    failures hid what main's run before it measured; nor, for a real run, is a newer rehearsal.
    Then the rest of main's latest pictures (``compare.picture_reach``), as files holding every record show
    them: every record of their runs, and of each run that ended after the earliest of them began (a run
    overlapping one), until no more come (timeless27: a run that re-ran the last jobs of the sweep before it
    left that sweep seeming to end before it began, and the sweep's other points out of the picture). Those
    runs' records of the run's own points come too (a run's time span is all its records'); they change no
    window: each is one the store gave already or older than the runs it gave of that point (``_baseline_runs``)."""
    from sweepgate.results.compare import picture_reach
    from sweepgate.results.store import KEY

    def stored_key(rec: dict) -> tuple:  # what the store keeps one row of a record under
        return tuple(rec.get(f) for f in KEY)

    past = R.run_past(past)  # main's picture of the run's keys is of before the run began (``compare.not_measured``)
    mine = {R.point_values(r) for r in pr}
    keys = sorted({str(r[R.CONFIG_KEY]) for r in pr if r.get(R.CONFIG_KEY) is not None})
    found = [r for r in st.latest_per_point_of_keys(keys, baseline_ref, before=past, succeeded=True,
                                                    include_rehearsals=rehearsal)
             if R.point_values(r) not in mine and (past is None or R.before(r, past))]
    own = {str(r.get(R.RUN_ID)) for r in pr}  # compare leaves the run's own records out of its baseline
    known = {stored_key(r) for r in baseline + found}
    while True:
        runs, since = picture_reach([r for r in baseline + found if str(r.get(R.RUN_ID)) not in own], set(keys), past)
        more = [r for r in st.records_of_keys(keys, baseline_ref, since=since, runs=runs, before=past, succeeded=True,
                                              include_rehearsals=rehearsal)
                if stored_key(r) not in known and (past is None or R.before(r, past))]
        if not more:
            return found
        known.update(map(stored_key, more))
        found += more


def baseline_of_files(records: list[dict], pr: list[dict], baseline_ref: str, shown: str) -> list[dict]:
    """Of records read from files (``--baseline-jsonl``, ``--baseline-artifacts``), those the store's
    baseline (``from_store``) would hold: on ``baseline_ref`` (a short name read as ``stored_ref``
    reads it), a rehearsal's only for a rehearsal run, and from before the run (``past_of``), except
    a point of a run off the ref that the ref measured only after it (all its later records: of those,
    ``compare.baseline_window`` takes the first ``window`` runs from the run on, as the store's
    ``after`` query does). Review: a file holding a later main run that had merged a -10 % judged it
    unchanged, and another PR's records counted as main's."""
    known = sorted({str(r[R.REF]) for r in records if r.get(R.REF)})
    ref = stored_ref(baseline_ref, known)
    rehearsal = is_rehearsal(pr)
    on_ref = [r for r in records if r.get(R.REF) == ref and may_judge(r, rehearsal)]
    if not on_ref:  # a mistyped --baseline-ref is refused as the store refuses it (``shown``: the files)
        check_baseline_ref(ref, known, shown)
    past = past_of(pr)
    if past is None:
        return on_ref
    before = [r for r in on_ref if R.before(r, past)]
    if all(r.get(R.REF) == ref for r in pr):
        return before
    later = {baseline_of(r) for r in pr} - covered(before, past)  # a point's throughput and its evals apart
    return before + [r for r in on_ref if not R.before(r, past) and baseline_of(r) in later]


def _models_of(pr: list[dict]) -> list[tuple]:
    """The (model, hardware) of each of the run's records, once each."""
    return sorted({(r.get(R.MODEL), r.get(R.HARDWARE)) for r in pr}, key=str)


def context_records(url: str | None, pr: list[dict], baseline_ref: str) -> list[dict]:
    """The newest successful record of each point ``baseline_ref`` measured before the run (``past_of``) of the
    run's models on its hardware, a rehearsal's only for a rehearsal run, as its baseline reads them: what a chart
    of recipes main never measured draws of the nearest one it did (``charts.contexts``)."""
    from sweepgate.core.jobfile import is_full_ref
    from sweepgate.results import store

    with store.open_store(url, must_exist=True) as st:
        ref = baseline_ref if is_full_ref(baseline_ref) else stored_ref(baseline_ref, st.refs())
        return st.latest_of_models(_models_of(pr), ref, before=R.latest_past(past_of(pr)), succeeded=True,
                                   include_rehearsals=is_rehearsal(pr))


def context_of_files(records: list[dict], pr: list[dict], baseline_ref: str) -> list[dict]:
    """``context_records`` of records read from files (``--baseline-jsonl``, ``--baseline-artifacts``)."""
    from sweepgate.results.compare import measured

    ref = stored_ref(baseline_ref, sorted({str(r[R.REF]) for r in records if r.get(R.REF)}))
    rehearsal, past, models = is_rehearsal(pr), R.latest_past(past_of(pr)), set(_models_of(pr))
    newest: dict[tuple, dict] = {}
    for rec in records:
        if (rec.get(R.REF) == ref and measured(rec) and may_judge(rec, rehearsal)
                and (rec.get(R.MODEL), rec.get(R.HARDWARE)) in models and (past is None or R.before(rec, past))):
            point = R.point_values(rec)
            if point not in newest or R.time_order(rec) > R.time_order(newest[point]):
                newest[point] = rec
    return list(newest.values())


def stored_ref(ref: str, known: list[str]) -> str:
    """``main`` or ``pull/42/merge`` as the stored ref it abbreviates (as tables show refs), the
    way git reads a short name; a ref stored as spelt, or unlike any, is itself."""
    if ref in known:
        return ref
    return next((full for full in (f"refs/heads/{ref}", f"refs/{ref}") if full in known), ref)


def check_baseline_ref(ref: str, stored: list[str], shown: str) -> None:
    """A baseline ref the store holds nothing on, while it holds that branch under another
    spelling (`main` for `refs/heads/main`) or a branch spelt nearly alike (`refs/heads/mian`), is
    a typo: every point would be `new` and ``--fail-on-regression`` would pass whatever the run
    measured. A ref unlike any stored one (main never measured yet) is not refused."""
    from sweepgate.core.errors import fail

    import difflib

    if ref in stored:
        return
    short = ref.removeprefix("refs/heads/")
    similar = [s for s in stored if s != ref and short in (s, s.removeprefix("refs/heads/"))]
    spelt = ref if ref.startswith("refs/") else f"refs/heads/{ref}"  # `mian` as git reads a branch name
    similar = similar or difflib.get_close_matches(spelt, [s for s in stored if s.startswith("refs/heads/")], 1, 0.8)
    if similar:
        raise fail("--baseline-ref", 0, f"no results on {ref!r} in {shown}, which holds runs on {similar[0]}",
                   f"pass --baseline-ref {similar[0]}")
