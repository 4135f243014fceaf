"""The fan-out guard: a matrix cut into chunks within GitHub's limits (a row's job environment: core.jobenv).

``split`` never drops a row: a matrix that does not fit the chunk jobs of
run-sweep.yml or GitHub's 1 MB of outputs per job is refused.
"""

from __future__ import annotations

import json
import os
import re

from sweepgate.core import fields
from sweepgate.core import github
from sweepgate.core import jobfile
from sweepgate.core.errors import fail, is_a_folder, json_message, link_trouble, os_failure
from sweepgate.core import jsontext
from sweepgate.core.report import count, md_code
from sweepgate.core.textmode import not_utf8
from sweepgate.core.jobenv import JOB_ENV_NAMES_VAR, job_env  # noqa: F401 - the job environment lives in core
from sweepgate.workflow.decide import PAYLOAD_FIX, SWEEP_LABEL

FANOUT_RULE = "ci-fanout"  # the title of a matrix too large to fan out as the workflows are
RUNNERS_RULE = "ci-runners"  # the title of rows on runners the default branch's runners file cannot serve
MAX_MATRIX_JOBS = 256  # GitHub: a matrix generates at most 256 jobs
# GitHub: "Outputs can be a maximum of 1 MB per job ... Size is approximated based
# on UTF-16 encoding."
GITHUB_JOB_OUTPUT_LIMIT = 1_000_000
JOB_OUTPUT_MARGIN_PERCENT = 5  # of that limit, kept for the job's other outputs (run-sweep.yml's setup: the gate's)
# The chunk outputs' budget: `ci split --max-bytes`' default and most (tests/test_fanout.py checks the margin).
MAX_JOB_OUTPUT_BYTES = GITHUB_JOB_OUTPUT_LIMIT * (100 - JOB_OUTPUT_MARGIN_PERCENT) // 100

# fan-out kind -> (matrix keys, chunk jobs in run-sweep.yml, reusable workflow).
# tests/test_fanout.py checks run-sweep.yml has exactly these jobs.
FANOUT = {
    "fixed": ((fields.SINGLE_NODE,), 4, fields.BENCHMARK_TEMPLATE),
    "agentic": ((fields.SINGLE_NODE,), 2, fields.BENCHMARK_TEMPLATE),
    fields.EVALS: ((fields.EVALS, fields.AGENTIC_EVALS), 2, fields.BENCHMARK_TEMPLATE),
    "multinode": ((fields.MULTI_NODE,), 2, fields.MULTINODE_TEMPLATE),
    fields.MULTINODE_EVALS: ((fields.MULTINODE_EVALS, fields.MULTINODE_AGENTIC_EVALS), 1, fields.MULTINODE_TEMPLATE),
}
# The fix of every matrix file that is not one, or holds a row no job can run (`ci split`, `ci reuse`,
# `ci row-env --matrix`). It names sweepgate's command alone: in an InferenceX checkout
# utils/process_changelog.py is that repository's own script, not sweepgate's.
MATRIX_FIX = "pass the JSON `sweepgate matrix` printed"


def chunk_output_name(kind: str, index: int) -> str:
    return f"{kind}_{index}"


def _utf16_size(text: str) -> int:
    return len(text.encode("utf-16-le"))


def _dump(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=False)


def _check_rows(kinds: dict[str, list[dict]], source: str) -> None:
    """Every row a job could be made of (``check_row``, as each job's ``ci row-env`` checks it), all
    problems at once: a row no job can run is refused here, before any job is started for it."""
    from sweepgate.core.errors import Diagnostic, SweepgateError
    from sweepgate.core.jobenv import check_row

    found = []
    for kind, rows in kinds.items():
        for i, row in enumerate(rows):
            try:
                check_row(row, source, MATRIX_FIX, for_a_job=True)
            except SweepgateError as exc:
                found += [Diagnostic(d.file, d.line, d.col, d.rule, f"{kind}/{i}: {d.message}", d.hint)
                          for d in exc.diagnostics]
    if found:
        raise SweepgateError(found)


def rows_by_kind(matrix: dict, source: str = "matrix") -> dict[str, list[dict]]:
    """Every row of the matrix, by fan-out kind. Unknown keys are an error, never dropped."""
    if not isinstance(matrix, dict):
        rows = isinstance(matrix, list) and matrix and all(isinstance(r, dict) for r in matrix)
        if rows:  # what `full-sweep` and `test-config` print
            raise fail(source, 1, f"not a matrix but a list of {count(len(matrix), 'row')} (as `full-sweep` and "
                       "`test-config` print them): a matrix is a JSON object of buckets", MATRIX_FIX)
        raise fail(source, 1, "matrix is not a JSON object", MATRIX_FIX)
    unknown = sorted(set(matrix) - set(fields.MATRIX_KEYS))
    if unknown and len(unknown) == len(matrix):  # no key of a matrix at all: another file was passed
        what = ("one matrix row" if fields.EXP_NAME in matrix else
                f"an object of {', '.join(unknown[:6])}{', …' if len(unknown) > 6 else ''}")
        raise fail(source, 1, f"not a matrix but {what}: a matrix's keys are {', '.join(fields.MATRIX_KEYS)}",
                   MATRIX_FIX)
    if unknown:
        raise fail(source, 1, f"unknown matrix key(s) {', '.join(unknown)}",
                   "teach sweepgate.workflow.fanout.FANOUT where their rows run")
    kinds: dict[str, list[dict]] = {kind: [] for kind in FANOUT}
    for key in fields.NODE_BUCKETS:
        buckets = matrix.get(key)
        buckets = {} if buckets is None else buckets
        if not isinstance(buckets, dict):
            raise fail(source, 1, f"'{key}' is not an object of buckets", "map bucket name -> list of rows")
        for bucket, rows in buckets.items():
            if not isinstance(rows, list):
                raise fail(source, 1, f"'{key}.{bucket}' is not a list of rows", MATRIX_FIX)
            for row in rows:
                if not isinstance(row, dict):
                    raise fail(source, 1, f"'{key}.{bucket}' holds a {type(row).__name__}, not a row",
                               "every row is a JSON object")
                if key == fields.MULTI_NODE:
                    kinds["multinode"].append(row)
                elif row.get(fields.SCENARIO_TYPE) == fields.AGENTIC_CODING:
                    kinds["agentic"].append(row)
                else:
                    kinds["fixed"].append(row)
    for kind, (keys, _, _) in FANOUT.items():
        for key in keys:
            if key in fields.NODE_BUCKETS:
                continue
            rows = matrix.get(key)
            rows = [] if rows is None else rows
            if not isinstance(rows, list):
                raise fail(source, 1, f"'{key}' is not a list of rows", MATRIX_FIX)
            kinds[kind].extend(rows)
    for kind, rows in kinds.items():
        for i, row in enumerate(rows):
            if not isinstance(row, dict) or not isinstance(row.get(fields.RUNNER), str):
                raise fail(source, 1, f"{kind} row {i} has no 'runner' label", "every row needs a runner")
    return kinds


# What can tell apart rows of one exp-name on one runner label (InferenceX's exp-names hold the model prefix and
# sequence lengths alone: `dsv4_8k1k`), each as a job's name says it: precision and engine at their value, tp
# always, a size at its default (fields.DEFAULT_PARALLEL) left out, dp-attention on as `dpa`, speculative decoding
# other than none; a multi-node row's prefill and decode workers as `prefill 1×tp8 ep8 dpa`.
_TELLING = ((fields.PRECISION, "{}", None), (fields.FRAMEWORK, "{}", None),
            (fields.TP, "tp{}", None), (fields.PP, "pp{}", fields.DEFAULT_PARALLEL),
            (fields.DCP_SIZE, "dcp{}", fields.DEFAULT_PARALLEL), (fields.PCP_SIZE, "pcp{}", fields.DEFAULT_PARALLEL),
            (fields.EP, "ep{}", fields.DEFAULT_PARALLEL), (fields.DP_ATTN, "dpa", False),
            (fields.SPEC_DECODING, "spec-{}", fields.DEFAULT_SPEC_DECODING))
_SIDES = (fields.PREFILL, fields.DECODE)


def _words(row: dict, telling) -> list[str]:
    """The ``telling`` fields of ``row`` as a job's name says them (``_TELLING``, ``_SIDES``)."""
    words = [form.format(row[field]) for field, form, default in _TELLING
             if field in telling and field in row and row[field] != default]
    for side in _SIDES:
        if side in telling and isinstance(row.get(side), dict):
            parts = _words(row[side], [field for field, _, _ in _TELLING[2:]])
            workers = row[side].get(fields.NUM_WORKER, "?")
            words.append(f"{side} {workers}×{' '.join(parts) or '?'}")
    return words


def _display_name(row: dict, telling=()) -> str:
    """``<exp-name> [the telling fields' words] c<conc>``: a job's name in the Actions UI."""
    conc = row.get(fields.CONC)
    conc_s = "x".join(map(str, conc)) if isinstance(conc, list) else str(conc)
    return " ".join([str(row.get(fields.EXP_NAME, "?")), *_words(row, telling), f"c{conc_s}"])


def display_names(kinds: dict[str, list[dict]]) -> dict[tuple[str, int], str]:
    """Each row's job name by (kind, index): the rows of a kind that share an exp-name and a runner
    label name the _TELLING and _SIDES fields they differ in (all of those rows, at every conc, so a sweep's
    names read alike); the others the exp-name and conc alone (review s39k: a tp4 and a tp8 row at
    one conc were two jobs of one name). Rows of a kind and runner whose names are still one (they differ in
    nothing a name says: an image beside another) are numbered in matrix order (`#1`, `#2`)."""
    names = {}
    for kind, rows in kinds.items():
        groups: dict[tuple, list[int]] = {}
        for i, row in enumerate(rows):
            groups.setdefault((row.get(fields.EXP_NAME), row.get(fields.RUNNER)), []).append(i)
        for members in groups.values():
            telling = tuple(field for field in [*(field for field, _, _ in _TELLING), *_SIDES]
                            if len({json.dumps(rows[i].get(field), sort_keys=True) for i in members}) > 1)
            same: dict[str, list[int]] = {}
            for i in members:
                same.setdefault(_display_name(rows[i], telling), []).append(i)
            for name, alike in same.items():
                for n, i in enumerate(alike, 1):
                    names[kind, i] = name if len(alike) == 1 else f"{name} #{n}"
    return names


# Canary stage: one job per template; the rest of the sweep waits for both.
CANARY_OUTPUTS = {"canary": fields.BENCHMARK_TEMPLATE, "canary_multinode": fields.MULTINODE_TEMPLATE}
MULTINODE_KINDS = tuple(kind for kind, (_, _, template) in FANOUT.items() if template == fields.MULTINODE_TEMPLATE)


def canary_group(row: dict) -> tuple:
    """What a canary stands for: the runner pool, the script the row runs, its KV-offload arm."""
    from sweepgate.core.recipes import script_candidates

    backend = row.get(fields.KV_OFFLOAD_BACKEND) if isinstance(row.get(fields.KV_OFFLOAD_BACKEND), dict) else {}
    try:
        script = tuple(script_candidates(row))
    except KeyError:
        script = (row.get(fields.EXP_NAME),)
    return (row[fields.RUNNER], script, row.get(fields.KV_OFFLOADING, fields.DEFAULT_KV_OFFLOADING),
            backend.get("name"))


def canaries(kinds: dict[str, list[dict]]) -> list[tuple[str, int]]:
    """One (kind, index) per canary group: its lowest-conc row (the first of equals), in matrix order."""
    best: dict[tuple, tuple[int, str, int]] = {}
    for kind, rows in kinds.items():
        for i, row in enumerate(rows):
            group = canary_group(row)
            if group not in best or fields.lowest_conc(row) < best[group][0]:
                best[group] = (fields.lowest_conc(row), kind, i)
    return sorted(((kind, i) for _, kind, i in best.values()), key=lambda t: (list(kinds).index(t[0]), t[1]))


def split(matrix: dict, *, max_jobs: int = MAX_MATRIX_JOBS, max_bytes: int = MAX_JOB_OUTPUT_BYTES,
          capacity: dict[str, int] | None = None, source: str = "matrix", canary: bool = False,
          digest: str | None = None) -> dict[str, str]:
    """Matrix -> job outputs ``<kind>_<i>`` (each a strategy.matrix JSON or '') plus totals.

    A matrix entry is a reference, ``{"runner", "id", "name"}``: whole rows would
    cap a sweep at ~850 rows under GitHub's 1 MB of outputs per job. The
    benchmark job resolves ``id`` (``<kind>/<index>``) in the run's ``matrix``
    artifact with ``row_for_id``. Each chunk has at most ``max_jobs`` entries and
    all outputs together fit ``max_bytes`` (UTF-16, as GitHub counts). Raises
    SweepgateError rather than drop a row. ``digest`` (``matrix_digest``): one more output, in the budget.
    """
    if not 1 <= max_jobs <= MAX_MATRIX_JOBS:
        raise fail("--max-jobs", 0, f"{max_jobs} rows per chunk is outside 1..{MAX_MATRIX_JOBS}",
                   f"pass a value from 1 to {MAX_MATRIX_JOBS} (GitHub runs at most {MAX_MATRIX_JOBS} jobs "
                   "per matrix)", rule=FANOUT_RULE)
    capacity = capacity or {kind: spec[1] for kind, spec in FANOUT.items()}
    kinds = rows_by_kind(matrix, source)
    _check_rows(kinds, source)
    first = set(canaries(kinds)) if canary else set()
    names = display_names(kinds)
    outputs = _canary_outputs(kinds, first, max_jobs, source, names)
    total = 0
    for kind, rows in kinds.items():
        refs = [{"runner": row[fields.RUNNER], "id": f"{kind}/{i}", "name": names[kind, i]}
                for i, row in enumerate(rows) if (kind, i) not in first]
        chunks = [refs[i:i + max_jobs] for i in range(0, len(refs), max_jobs)]
        if len(chunks) > capacity[kind]:
            raise fail(source, 0,
                       f"{len(rows)} {kind} rows need {len(chunks)} fan-out jobs of {max_jobs} "
                       f"but {fields.SWEEP_WORKFLOW} has {capacity[kind]}",
                       f"add jobs {kind.replace('_', '-')}-{capacity[kind]}.. to {fields.SWEEP_WORKFLOW} and raise "
                       f"FANOUT['{kind}'] in utils/sweepgate/workflow/fanout.py, or split the changelog entry",
                       rule=FANOUT_RULE)
        for i in range(capacity[kind]):
            outputs[chunk_output_name(kind, i)] = _dump({"row": chunks[i]}) if i < len(chunks) else ""
        outputs[f"{kind}_jobs"] = str(len(rows))
        total += len(rows)
    outputs["jobs"] = str(total)
    outputs.update({fields.MATRIX_DIGEST_OUTPUT: digest} if digest is not None else {})
    size = sum(_utf16_size(k) + _utf16_size(v) for k, v in outputs.items())
    if size > max_bytes:
        raise fail(source, 0,
                   f"{total} rows make {size:,} bytes of job outputs; {max_bytes:,} fit a job (--max-bytes, default "
                   f"{MAX_JOB_OUTPUT_BYTES:,}: GitHub's {GITHUB_JOB_OUTPUT_LIMIT:,} less {JOB_OUTPUT_MARGIN_PERCENT} % "
                   "for the job's other outputs)",
                   f"split the changelog entry into smaller PRs or use {SWEEP_LABEL} (trimmed)",
                   rule=FANOUT_RULE)
    return outputs


def _canary_outputs(kinds: dict[str, list[dict]], first: set, max_jobs: int, source: str,
                    names: dict[tuple[str, int], str]) -> dict[str, str]:
    """``canary`` / ``canary_multinode``: the canary rows' references ('' when none), and their count."""
    outputs = {}
    for name in CANARY_OUTPUTS:
        multinode = name == "canary_multinode"
        refs = [{"runner": kinds[k][i][fields.RUNNER], "id": f"{k}/{i}", "name": names[k, i]}
                for k, i in sorted(first, key=lambda t: (list(kinds).index(t[0]), t[1]))
                if (k in MULTINODE_KINDS) == multinode]
        if len(refs) > max_jobs:
            raise fail(source, 0, f"{len(refs)} canary rows are more than one fan-out job holds ({max_jobs})",
                       "split the changelog entry, or add the no-canary label", rule=FANOUT_RULE)
        outputs[name] = _dump({"row": refs}) if refs else ""
    outputs["canary_jobs"] = str(len(first))
    return outputs


def rows_with_ids(matrix: dict, source: str = "matrix") -> list[tuple[str, dict]]:
    """Every row with the id ``split`` gives it (``<kind>/<index>``, what ``row_for_id`` resolves)."""
    return [(f"{kind}/{i}", row) for kind, rows in rows_by_kind(matrix, source).items()
            for i, row in enumerate(rows)]


def load_json(path: str, what: str):
    """A JSON file a step wrote (a matrix, an event payload), or one line saying why it cannot be read."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        if not text.strip():  # what a failed step's `> FILE` leaves: no JSON error to point into
            raise fail(path, 0, f"{what} is empty", PAYLOAD_FIX if what == "event payload" else
                       f"pass the {what} JSON the previous step wrote" + (
                           f" (`sweepgate matrix ... > {os.path.basename(path)}` leaves the file empty when it "
                           "refuses the change)" if what == "matrix" else ""))
        return jsontext.loads(text)
    except IsADirectoryError:
        raise fail(path, 0, f"{what} {is_a_folder('a JSON file')}", "pass the JSON file itself") from None
    except OSError as exc:
        if isinstance(exc, FileNotFoundError) and link_trouble(path) is None:
            raise fail(path, 0, f"{what} not found", "check the path") from None
        raise os_failure(path, f"cannot read the {what}", exc, "check the path") from None
    except UnicodeDecodeError as exc:
        raise fail(path, 0, f"{what} is {not_utf8(exc.start, exc.reason)}",
                   "pass the JSON file the previous step wrote") from None
    except json.JSONDecodeError as exc:
        raise fail(path, exc.lineno, f"{what} is not valid JSON: {json_message(exc)}", "check the file",
                   col=exc.colno) from None
    except RecursionError:
        raise fail(path, 0, f"{what} is {jsontext.NESTED_TOO_DEEPLY}", "check the file") from None


def job_row(text: str, row_id: str, matrix_file: str | None) -> dict:
    """A job's matrix row: ``$ROW`` (its JSON), else row ``row_id`` of the matrix in ``matrix_file``."""
    if text:
        try:
            return jsontext.loads(text)
        except json.JSONDecodeError as exc:
            raise fail("ROW", exc.lineno, f"row is not valid JSON: {json_message(exc)}",
                       "pass toJSON(matrix.row)") from None
        except RecursionError:
            raise fail("ROW", 0, f"row is {jsontext.NESTED_TOO_DEEPLY}", "pass toJSON(matrix.row)") from None
    if row_id:
        if not matrix_file:
            raise fail("ROW_ID", 0, f"row id '{row_id}' given without a matrix",
                       "pass --matrix or set MATRIX_FILE to the run's matrix.json")
        return row_for_id(load_json(matrix_file, "matrix"), row_id, matrix_file)
    raise fail("ROW", 0, "no matrix row given", "set ROW to toJSON(matrix.row), or ROW_ID and MATRIX_FILE")


def matrix_digest(matrix: bytes, job_context: bytes | None) -> str:
    """The matrix artifact's digest (``fields.MATRIX_DIGEST_OUTPUT``): sha256 of its matrix.json and its
    job-context.json, each by its name (``core.digest.files_sha``; ``None``: the artifact holds no context)."""
    from sweepgate.core.digest import files_sha

    return files_sha((jobfile.MATRIX_FILE, jobfile.CONTEXT_FILE),
                     {jobfile.MATRIX_FILE: matrix, jobfile.CONTEXT_FILE: job_context})


_SHA256 = re.compile(r"[0-9a-f]{64}")
DIGEST_FIX = ("re-run the whole workflow (Re-run all jobs: its setup job uploads the matrix again and publishes its "
              "digest), and look in this run for the job that uploaded an artifact of that name")


def check_matrix_digest(matrix_file: str, context_file: str | None, expected: str, told: str) -> None:
    """Refuse the run's matrix artifact, as this job downloaded it (``matrix_file`` and, when named, the
    ``context_file`` beside it), unless its digest is ``expected``: the one run-sweep.yml's setup job
    published as a job output (``told``: the flag or variable it came by), which no later job can change.
    A job of the run holding its Actions token (an approved multi-node script) can replace the artifact
    before later jobs download it; their rows would then be ones no maintainer approved."""
    if not _SHA256.fullmatch(expected):
        said = f"'{expected}' is not a sha256 (64 lowercase hex digits)" if expected else "is empty"
        raise fail(told, 0, f"{said}: a job taking its row from the run's matrix artifact checks the artifact "
                   "against the digest the setup job published",
                   f"pass the setup job's {fields.MATRIX_DIGEST_OUTPUT} output (`sweepgate ci split` writes it) "
                   f"as the template's {fields.MATRIX_DIGEST_INPUT} input")
    matrix = _artifact_file(matrix_file)
    if matrix is None:
        raise fail(matrix_file, 0, "matrix not found", "check the path the run's matrix artifact was downloaded to")
    found = matrix_digest(matrix, _artifact_file(context_file) if context_file else None)
    if found != expected:
        raise fail(matrix_file, 0, f"the matrix artifact's digest is {found[:12]}..., not the {expected[:12]}... "
                   f"the setup job published ({told}): it was replaced after setup uploaded it, and no row of "
                   "it runs", DIGEST_FIX)


def _artifact_file(path: str) -> bytes | None:
    """A file of the downloaded matrix artifact, as bytes; None when the artifact holds none there."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:  # a link to nothing is said as one (os_failure), a missing file is no file
        if isinstance(exc, FileNotFoundError) and link_trouble(path) is None:
            return None
        raise os_failure(path, "cannot read the run's matrix artifact", exc, "check the path") from None


def row_for_id(matrix: dict, row_id: str, source: str = "matrix") -> dict:
    """The row a split reference names: ``<kind>/<index>`` in ``rows_by_kind`` order."""
    kind, _, index = row_id.partition("/")
    rows = rows_by_kind(matrix, source)
    if kind not in rows or not (index.isascii() and index.isdigit()) or int(index) >= len(rows[kind]):
        have = ", ".join(f"{k}: {len(v)}" for k, v in rows.items())
        raise fail(source, 0, f"no row '{row_id}' in the matrix ({have})",
                   "pass an id from `sweepgate ci split` of this run's matrix")
    return rows[kind][int(index)]


# The results of a needed job (`needs.<job>.result`) that leave a run successful.
FINE_RESULTS = (github.SUCCESS, github.SKIPPED)


def summarize(results: list[str], result_files: list[str]) -> tuple[str, bool]:
    """Markdown summary of the run; ok is False when any needed job failed or was cancelled (the summary
    then says which, in a line of its own)."""
    counts: dict[str, int] = {}
    for result in results:
        counts[result] = counts.get(result, 0) + 1
    ok = set(counts) <= set(FINE_RESULTS)
    lines = ["## Sweep results", ""]
    if counts:
        lines += ["| job result | count |", "| --- | --- |"]
        lines += [f"| {result} | {n} |" for result, n in sorted(counts.items())]
    else:  # by hand without RESULTS (run-sweep.yml always names its jobs'): not an empty table
        lines.append(f"No job results to count: RESULTS is unset or `[]` ({fields.SWEEP_WORKFLOW} sets it to "
                     "`toJSON(needs.*.result)`, one result a job).")
    if not ok:  # said here, not by the exit status: the steps after collect's summary still run on the rest
        said = {github.FAILURE: "failed", github.CANCELLED: "cancelled"}
        bad = [f"{count(n, 'job')} {said.get(result, result)}" for result, n in sorted(counts.items())
               if result not in FINE_RESULTS]
        lines += ["", f"**{', '.join(bad)}**: the other jobs' results are still ingested and compared; "
                      "those jobs mark the run as not successful."]
    sidecars = [name for name in result_files if name.endswith(jobfile.SUFFIX)]
    jobs = {name[:-len(jobfile.SUFFIX)] for name in sidecars}
    outputs = sorted(name for name in result_files if not name.endswith(jobfile.SUFFIX))
    if jobs:  # beside sidecars, a file that is no job's output is a helper (per-concurrency parts, ...)
        helpers = [n for n in outputs if n.rsplit(".", 1)[0] not in jobs
                   and n.rsplit(".", 1)[0].removesuffix(jobfile.EVAL_SUFFIX) not in jobs]
        outputs = [n for n in outputs if n not in helpers]
    else:
        helpers = []
    tail = f"; {count(len(helpers), 'helper file')} not listed" if helpers else ""
    lines += ["", f"{count(len(outputs), 'result file')} ({count(len(sidecars), 'job sidecar')} beside them{tail})"
                  + (":" if outputs else "."), ""]
    lines += [f"- `{name}`" for name in outputs]
    return "\n".join(lines) + "\n", ok


def cancelled_note(results: list[str], statuses: dict[str, str], pr: bool = True) -> str | None:
    """The paragraph a sweep some of whose jobs were cancelled gets in its step summary and PR comment (None
    when none was): which jobs' results were kept (``statuses``: each job's sidecar status, by its result
    name; a success is a whole job finished, stored and reusable) and which not (cancelled, failed, a sidecar
    unread: stored as they ended, never reused). A later sweep runs only those (``ci reuse`` with a results
    database): the PR's own (``pr``), else, for a push to main, main's next. Either run's results are stored
    marked as of a cancelled run (``results ingest --run-cancelled``) when the run itself was cancelled
    (run-sweep.yml's run-cancelled job, whose own `if` reads the run's cancelled()), so no baseline reads them; a
    job ended by its own timeout cancels only that job, and the run's other records stay baseline material."""
    if github.CANCELLED not in results:
        return None
    kept = sorted(name for name, status in statuses.items() if status == jobfile.SUCCESS)
    other = sorted((name, status) for name, status in statuses.items() if status != jobfile.SUCCESS)
    by = "a maintainer, a newer sweep of the PR, the fail-fast watchdog or a timeout" if pr else \
        "a maintainer or a timeout"
    lines = [f"**This sweep was cancelled before it finished** (by {by}): its results cover only part of the "
             "matrix, never a whole sweep."]
    if kept:
        later = "a later sweep of this PR" if pr else "the next sweep of this branch"
        lines += ["", f"Kept: the results of the {count(len(kept), 'job')} that finished, stored with this run; "
                      f"{later} reuses them from the "
                      "results database (SWEEPGATE_DB) and runs only the rest:", ""]
        lines += [f"- `{md_code(name)}`" for name in kept]
    else:
        lines += ["", "Kept: nothing; no job had finished."]
    if other:
        said = ", ".join(f"`{md_code(name)}` ({md_code(status)})" for name, status in other)
        lines += ["", f"Not kept (stored as they ended, never reused): {said}."]
    return "\n".join(lines) + "\n"


def check_runners(matrix: dict, labels: set[str], source: str = "matrix", runners: dict | None = None) -> None:
    """Every row's runner must be a label of the trusted (default branch's) configs/runners.yaml:
    a PR's data files may not send a job to a runner main does not know. With that file's
    ``runners``, a multi-node row's runner must also state gpus-per-node: without it `ci row-env`
    cannot count the row's nodes and every launcher refuses the job, after the sweep has started."""
    from sweepgate.core.placement import hardware_of
    from sweepgate.core.recipes import runs_multinode

    kinds = rows_by_kind(matrix, source)
    used = {str(row.get(fields.RUNNER)) for rows in kinds.values() for row in rows}
    unknown = sorted(used - labels)
    if unknown:
        raise fail(source, 0, f"runner label {', '.join(unknown)} is not in the default branch's configs/runners.yaml",
                   "add the runner to configs/runners.yaml on main first; a PR cannot add GPU runners",
                   rule=RUNNERS_RULE)
    bare = sorted({str(row.get("runner")) for rows in kinds.values() for row in rows if runs_multinode(row)
                   and fields.GPUS_PER_NODE not in (hardware_of(runners or {}, str(row.get("runner"))) or {})})
    if runners is not None and bare:
        raise fail(source, 0, f"multi-node rows run on {', '.join(bare)}, which has no {fields.GPUS_PER_NODE} in the "
                   f"default branch's {fields.RUNNERS_FILE}: their launchers would refuse every job",
                   f"{fields.add_hardware(bare[0], [fields.GPUS_PER_NODE], on_main=True)} first",
                   rule=RUNNERS_RULE)
