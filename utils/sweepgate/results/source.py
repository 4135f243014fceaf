"""Where `results compare` gets its records and settings: the store, JSONL files, or the
results artifacts of earlier runs on main; and the per-config thresholds of the work tree.

Every function returns plain record dicts (``record.py``), so ``compare`` never sees where
they came from.
"""

from __future__ import annotations

import json
from pathlib import Path

from sweepgate.core import fields as F
from sweepgate.core.errors import SweepgateError, fail
from sweepgate.core.signals import TemporaryFolder
from sweepgate.core import jsontext
from sweepgate.results import jsonio
from sweepgate.results import record as R

JSONL_GLOB = "*.jsonl"
RESULTS_ARTIFACT = "sweepgate-results"   # the collect job's artifact: results DB, rows as JSONL, charts
CHARTS_FOLDER = "charts"  # the folder of RESULTS_ARTIFACT the collect job's `compare --plots` draws into
MAX_ARTIFACT_RUNS = 50  # the most runs whose artifacts a baseline reads back from the compared run, and on from it


# `results show --json` is no source: one JSON array, and only the newest record of each point
JSONL_HINT = ("pass the file `sweepgate results ingest --jsonl FILE` wrote (one record a line, every run's), "
              "or the collect job's JSONL")


def _json_line(path: Path, number: int, line: str) -> dict | None:
    if not line.strip():
        return None
    if number == 1 and line.strip() == "[":
        raise fail(str(path), 1, "a JSON array (as `results show --json` prints), not JSON lines", JSONL_HINT)
    try:
        rec = jsontext.loads(line)
    except json.JSONDecodeError as exc:
        raise fail(str(path), number, f"not JSON: {exc.msg.removesuffix(' at')} at column {exc.colno}",
                   "each line must be one normalized result record", col=exc.colno) from None
    except RecursionError:
        from sweepgate.results.jsonio import too_deep

        raise too_deep(str(path), number, "each line must be one normalized result record") from None
    if not R.is_record(rec):
        raise fail(str(path), number, f"not a normalized result record (needs '{R.RUN_ID}' and '{R.METRICS}')",
                   JSONL_HINT)
    return rec


def records_from_jsonl(paths: list[str | Path]) -> list[dict]:
    """Normalized records from JSONL files, or from every *.jsonl under the folders given."""
    out = []
    for given in paths:
        given = Path(given)
        files = sorted(given.rglob(JSONL_GLOB)) if given.is_dir() else [given]
        if given.is_dir() and not files:
            raise fail(str(given), 0, f"no {JSONL_GLOB} files in this folder (the baseline is the normalized "
                       "records of `results ingest --jsonl`)",
                       "pass the folder or file that ingest's --jsonl wrote, e.g. main's results artifact")
        for path in files:
            out.extend(r for _, r in numbered_records(path))
    return out


def numbered_records(path: Path) -> list[tuple[int, dict]]:
    """(line number, record) of each normalized record of one JSONL file, as ``records_from_jsonl`` reads it;
    one over ``jsonio.MAX_INPUT_BYTES`` refused by its size, unread, as ingest refuses its files."""
    text = jsonio.read_text(path, "pass a readable JSONL file",
                            database=("JSON lines", "pass the JSONL `results ingest --jsonl` wrote beside it "
                                      "(results.jsonl in the results artifact)"), limit=jsonio.MAX_INPUT_BYTES)
    out: list[tuple[int, dict]] = []
    for n, line in enumerate(jsonio.json_lines(text), 1):
        try:
            rec = _json_line(path, n, line)
        except SweepgateError:
            if not out:  # a document spread over lines fails at its first; say what it is, not "not JSON"
                _refuse_document(path, text)
            raise
        if rec:
            out.append((n, rec))
    return out


def _refuse_document(path: Path, text: str) -> None:
    """Refuse ``text`` when the whole of it is one JSON document over several lines, the kind a reader of
    JSON lines met at its first line as "not JSON: Expecting property name ... at column 2" (new-user28: an
    AIPerf export, and records pretty-printed by `jq .`, passed as --baseline-jsonl); else do nothing."""
    lines = len(text.strip().split("\n"))
    if lines == 1:  # one line is a JSON line: the error already said what is wrong with it
        return
    try:
        doc = jsontext.loads(text)
    except (ValueError, RecursionError):
        docs = _documents(text)
        if len(docs) > 1 and all(R.is_record(d) for d in docs):  # `jq . a.jsonl > b.jsonl` (review28)
            raise fail(str(path), 1, f"{len(docs)} normalized result records pretty-printed over {lines} lines, "
                       "not JSON lines", "write each record on a line of its own (`jq -c . FILE`), as "
                       "`results ingest --jsonl` does") from None
        return
    if isinstance(doc, list):
        raise fail(str(path), 1, "a JSON array (as `results show --json` prints), not JSON lines", JSONL_HINT)
    if R.is_record(doc):
        raise fail(str(path), 1, f"one normalized result record over {lines} lines (pretty-printed), not JSON lines",
                   "write each record on a line of its own (`jq -c . FILE`), as `results ingest --jsonl` does")
    if isinstance(doc, dict):
        raise fail(str(path), 1, f"one JSON document over {lines} lines (a benchmark client's output is "
                   "`results ingest`'s input), not JSON lines", JSONL_HINT)


def _documents(text: str) -> list:
    """The JSON documents ``text`` holds one after another (blanks between them), or [] when it is not
    wholly such a sequence."""
    import json

    decoder, docs, at = json.JSONDecoder(), [], 0
    try:
        while (at := len(text) - len(text[at:].lstrip())) < len(text):
            doc, at = decoder.raw_decode(text, at)
            docs.append(doc)
    except (ValueError, RecursionError):
        return []
    return docs


def records_from_artifacts(repository: str, token: str, branch: str, runs: int, *, points: list | None = None,
                           api_url: str | None = None, name: str = RESULTS_ARTIFACT,
                           workflow: str = F.SWEEP_WORKFLOW, before: R.Past | None = None,
                           read: list | None = None, passed_over: dict | None = None,
                           rehearsals: bool = False, max_zip_bytes: int | None = None) -> list[dict]:
    """The records in artifact ``name`` of ``workflow`` runs on ``branch`` that ended in success or failure
    (``github.BASELINE_CONCLUSIONS``), newest first:
    of the last ``runs`` such runs; with ``points`` (``compare.baseline_of`` keys: a point's throughput or its
    eval scores), of as many as it takes for each to appear in ``runs`` of them (a sweep runs only the keys its
    changelog entry names), looking back at most MAX_ARTIFACT_RUNS runs. With ``before`` (when the
    compared run happened, ``compare.past_of``), the runs looked back through are those GitHub created
    by then (``_created_bound``), and records of that time or later do not count towards them, as the
    baseline leaves them out; then a point none of them measured before it (one the ref measured only
    after a PR run) is looked for in the first runs created after it, oldest first, until it appears in
    ``runs`` of them (at most MAX_ARTIFACT_RUNS more), as the baseline takes its first runs from then.
    So how many runs happened since the compared run does not matter. ``read`` gets the run id of each
    artifact read, in the order read; ``passed_over`` each run the API listed that is no such run (run id ->
    what of it differs, ``github.download_run_artifacts``), whose artifact is not read. A point appears in a run
    as the baseline counts it (``_Tally``): not by a failed job, a copy of a result already read, or, unless
    ``rehearsals`` (the compared run is a rehearsal), a rehearsal. ``max_zip_bytes``: the longest artifact zip
    downloaded (default ``github.MAX_ARTIFACT_ZIP_BYTES``)."""
    from sweepgate.core import github
    from sweepgate.core.branch_history import BranchHistory

    out: list[dict] = []
    tally = _Tally(points or [], before, rehearsals)

    def reader(done):
        def enough(folder) -> bool:
            records = _artifact_records(folder, name)
            out.extend(records)
            if read is not None:
                read.append(folder.name)  # download_run_artifacts writes dest/<run id>/
            tally.add(records)
            return points is not None and done()
        return enough

    bound = _created_bound(before)
    with TemporaryFolder("sweepgate-baseline-", "the baseline's artifact folder") as tmp:  # removed whole
        common = {"workflow": workflow, "branch": branch, "name": name, "base_url": api_url,
                  "passed_over": passed_over, "history": BranchHistory(branch),  # both reads ask it once a commit
                  "max_zip_bytes": max_zip_bytes or github.MAX_ARTIFACT_ZIP_BYTES}
        github.download_run_artifacts(repository, token, tmp, runs=runs if points is None else MAX_ARTIFACT_RUNS,
                                      created_by=bound, until=reader(lambda: tally.full(tally.earlier, runs)),
                                      **common)
        later = tally.only_since()
        if bound is not None and later and not tally.full(tally.since, runs, later):
            github.download_run_artifacts(repository, token, tmp, runs=MAX_ARTIFACT_RUNS, created_after=bound,
                                          until=reader(lambda: tally.full(tally.since, runs, later)), **common)
    return out


class _Tally:
    """What the artifacts read so far hold of the compared run's ``points`` (``compare.baseline_of`` keys): each
    one's runs from before ``before`` (all, without it), and of that time or later, counted as the baseline counts
    them (``compare.measured_runs``), so that reading stops where the store's look-up (``store_adapter``) stops: a
    run counts where its job at the point succeeded (``compare.measured``: the store's ``succeeded=True``), and each measurement once
    (``R.measurement_of``): ``ci reuse``'s copies of an older run's result, and one output stored under several run
    ids, take no place among the runs read for it, as the store reads a run more for each. A rehearsal's records
    count only towards a rehearsal's baseline (``rehearsals``), as the baseline and the store leave them out of
    any other's (``store_adapter.may_judge``)."""

    def __init__(self, points: list, before: R.Past | None, rehearsals: bool = False):
        self.before, self.rehearsals = before, rehearsals
        self.earlier: dict[tuple, list[dict]] = {tuple(p): [] for p in points}
        self.since: dict[tuple, list[dict]] = {tuple(p): [] for p in points}
        self.measured: set[tuple] = set()  # a job measured them before ``before`` (``compare.covered``)
        self._counts: dict[tuple, int] = {}  # (id of earlier or since, point) -> its runs, until more come

    def add(self, records: list[dict]) -> None:
        from sweepgate.results.compare import baseline_of, covered, measured
        from sweepgate.results.store_adapter import may_judge

        records = [r for r in records if may_judge(r, self.rehearsals)]
        for rec in records:
            pt = baseline_of(rec)
            if pt not in self.earlier or not measured(rec):
                continue
            runs_of = self.earlier if self.before is None or R.before(rec, self.before) else self.since
            runs_of[pt].append(rec)
            self._counts.pop((id(runs_of), pt), None)
        self.measured |= covered(records, self.before) & self.earlier.keys()

    def only_since(self) -> list[tuple]:
        """Those no job measured before ``before``: the baseline takes their first runs from then."""
        return [pt for pt in self.since if pt not in self.measured]

    def full(self, runs_of: dict[tuple, list[dict]], runs: int, points: list | None = None) -> bool:
        """Whether each of ``points`` (all of ``runs_of``) appears in ``runs`` runs of ``runs_of``."""
        return all(self._runs(runs_of, pt) >= runs for pt in (runs_of if points is None else points))

    def _runs(self, runs_of: dict[tuple, list[dict]], pt: tuple) -> int:
        from sweepgate.results.compare import measured_runs

        key = (id(runs_of), pt)
        if key not in self._counts:
            self._counts[key] = measured_runs(runs_of[pt], pt[1]).get(pt[0], 0)
        return self._counts[key]


def _created_bound(before: R.Past | None):
    """``before``'s time (a record time, ``record.happened``) as the aware datetime GitHub's list of workflow runs
    is asked up to (``created``): a run created later holds no record from before then, as its jobs ran
    after it was made. None without a time, or with one that is no ISO 8601 time."""
    before = R.latest_past(before)  # the run's last point's: each point's own past is at or before it
    at = R.moment(before if isinstance(before, str) else before[0]) if before else None
    return at if at is not None and at.tzinfo is not None else None


def _artifact_records(folder: Path, name: str) -> list[dict]:
    """The records of artifact ``name`` downloaded into ``folder`` (``dest/<run id>/``), its problems
    placed in the artifact (``NAME artifact of run ID/FILE:LINE``): the temporary folder is gone by the
    time they are read, and a --baseline-jsonl hint would point at no flag the user passed."""
    from sweepgate.core.errors import Diagnostic

    artifact = f"{name} artifact of run {folder.name}"
    if not any(folder.rglob(JSONL_GLOB)):
        raise fail(artifact, 0, "holds no *.jsonl file (the baseline is the normalized records "
                   "`results ingest --jsonl` writes)", "check that main's collect job writes its results with "
                   "`results ingest --jsonl` into the artifact, or pass --db with a database that holds the baseline")
    try:
        return records_from_jsonl([folder])
    except SweepgateError as exc:
        raise SweepgateError(Diagnostic(
            f"{artifact}/{Path(d.file).relative_to(folder).as_posix()}" if Path(d.file).is_relative_to(folder)
            else d.file, d.line, d.col, d.rule, d.message, d.hint, d.severity, in_file=False)
            for d in exc.diagnostics) from None


BRANCH_PREFIX = "refs/heads/"


def branch_of(ref: str) -> str:
    """refs/heads/main -> main (the workflow-runs API filters by branch name)."""
    return ref.removeprefix(BRANCH_PREFIX)


def branch_ref(name: str) -> str:
    """main -> refs/heads/main: the branch alone, where the short name would also name a tag ``main``
    (a workflow dispatch on the short name may run the tag's copy of the workflow)."""
    return f"{BRANCH_PREFIX}{branch_of(name)}"


def not_a_branch(ref: str) -> str | None:
    """What ``ref`` is when it names no branch (GitHub lists workflow runs by branch name, so a tag's or a
    pull request's ref lists none): "is a tag, not a branch", ...; None for a branch (NAME, refs/heads/NAME)."""
    if ref.startswith(BRANCH_PREFIX):
        return None if branch_of(ref) else "names no branch"
    if ref.startswith("refs/tags/"):
        return "is a tag, not a branch"
    if ref.startswith("refs/pull/"):
        return "is a pull request's ref, not a branch"
    return "is not a branch" if ref.startswith("refs/") else None


def config_thresholds(start: str = ".") -> dict[str, dict]:
    """config key -> its ``results`` block, from the work tree's master configs (checked as the gate
    checks them: ``core.check``).
    Outside a git repository, or in one that keeps only results (no master config), there are none."""
    from sweepgate.core import check, load

    try:
        git = load.open_repo(start)
    except SweepgateError:
        return {}
    if not load.master_paths_in(git.root):
        return {}
    rev = load.load_revision(git, "HEAD", worktree=True)
    diags = check.check_masters(rev)
    if diags:
        raise SweepgateError(diags)
    out = {}
    for key, config in rev.configs.items():  # checked above: unknown metrics, unreachable thresholds
        block = config.get(F.RESULTS) if isinstance(config, dict) else None
        if block:
            out[key] = block
    return out

