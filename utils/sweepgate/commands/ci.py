"""`sweepgate ci`: the logic behind .github/workflows/run-sweep.yml.

Sub-subcommands:
  decide   which event runs which sweep (skip / trimmed / full), and why
  split    cut the matrix into fan-out chunks that fit GitHub's limits
  row-env  one matrix row -> the CONTRACTS section 6 job environment
  collect  summarize the fan-out jobs' results

Every workflow decision lives here as a plain function so it can be tested
without GitHub; the YAML only wires outputs to jobs. Label names live only in
this module.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from dataclasses import dataclass, replace

# --- labels and markers (the only place they are spelled) -------------------------
SWEEP_LABEL = "sweep-enabled"  # trimmed sweep (--trim-conc)
FULL_SWEEP_LABEL = "full-sweep-enabled"  # every row
ALL_EVALS_LABEL = "sweep-all-evals"  # modifier: --all-evals
EVALS_ONLY_LABEL = "sweep-evals-only"  # modifier: --evals-only
PRIMARY_LABELS = {SWEEP_LABEL: "trimmed", FULL_SWEEP_LABEL: "full"}
MODIFIER_LABELS = {ALL_EVALS_LABEL: "all_evals", EVALS_ONLY_LABEL: "evals_only"}
LABELS = (*PRIMARY_LABELS, *MODIFIER_LABELS)
# Every label above contains this marker. run-sweep.yml's concurrency group uses
# it to tell a relevant label event (shares the PR's group, cancels the running
# sweep) from an unrelated one (its own group: cancels nothing). decide() uses
# the same rule, so a label event that cancelled a sweep always re-decides it.
LABEL_MARKER = "sweep"
SKIP_MARKER = "[skip-sweep]"
PR_ACTIONS = ("ready_for_review", "synchronize", "labeled", "unlabeled")
MAIN_REF = "refs/heads/main"
ZERO_SHA = "0" * 40

SKIP, TRIMMED, FULL = "skip", "trimmed", "full"


@dataclass(frozen=True)
class Decision:
    """What one workflow event runs. ``run`` is what every self-hosted job checks."""

    mode: str  # skip | trimmed | full
    reason: str
    all_evals: bool = False
    evals_only: bool = False
    pr_number: str = ""
    base_ref: str = ""
    head_ref: str = ""

    @property
    def run(self) -> bool:
        return self.mode != SKIP

    @property
    def trim_conc(self) -> bool:
        return self.mode == TRIMMED

    @property
    def eval_flags(self) -> str:
        """Flags shared by validate_perf_changelog.py and process_changelog.py."""
        return " ".join(flag for flag, on in (("--all-evals", self.all_evals),
                                               ("--evals-only", self.evals_only)) if on)

    def outputs(self) -> dict[str, str]:
        def b(v: bool) -> str:
            return "true" if v else "false"

        return {
            "run": b(self.run),
            "mode": self.mode,
            "trim_conc": b(self.trim_conc),
            "all_evals": b(self.all_evals),
            "evals_only": b(self.evals_only),
            "eval_flags": self.eval_flags,
            "pr_number": self.pr_number,
            "base_ref": self.base_ref,
            "head_ref": self.head_ref,
            "reason": self.reason,
        }


def label_is_relevant(name: str) -> bool:
    """The same test run-sweep.yml's concurrency group applies to a label event."""
    return LABEL_MARKER in name


def _skip(reason: str, **kw) -> Decision:
    return Decision(SKIP, reason, **kw)


def decide(event_name: str, event: dict, head_message: str = "", *, source: str = "event") -> Decision:
    """Decide what one GitHub event runs. Pure: no I/O, no environment.

    ``event`` is the webhook payload ($GITHUB_EVENT_PATH); ``head_message`` the
    head commit's message (a pull_request payload does not carry it).
    Raises SweepgateError when the PR asks for two sweeps at once.
    """
    if event_name == "push":
        ref = event.get("ref", "")
        if ref != MAIN_REF:
            return _skip(f"push to {ref or 'an unknown ref'}: only pushes to {MAIN_REF} run a sweep")
        if event.get("deleted"):
            return _skip("push deleted the branch")
        head = event.get("after") or ""
        base = event.get("before") or ""
        if not base or base == ZERO_SHA:
            base = f"{head}^"
        return Decision(FULL, "push to main: full sweep of the appended changelog entries",
                        base_ref=base, head_ref=head)

    if event_name != "pull_request":
        return _skip(f"event '{event_name}' does not run sweeps")

    action = event.get("action", "")
    pr = event.get("pull_request") or {}
    number = str(pr.get("number") or event.get("number") or "")
    base = pr.get("base") or {}
    head = pr.get("head") or {}
    refs = dict(pr_number=number, base_ref=str(base.get("sha") or ""), head_ref=str(head.get("sha") or ""))

    if action not in PR_ACTIONS:
        return _skip(f"pull_request action '{action}' does not run sweeps", **refs)
    head_repo = (head.get("repo") or {}).get("full_name")
    base_repo = (base.get("repo") or {}).get("full_name")
    if not head_repo or head_repo != base_repo:
        return _skip(f"fork PR ({head_repo or 'deleted repository'}): never runs on self-hosted runners", **refs)
    if pr.get("draft"):
        return _skip("draft PR: mark it ready for review to run a sweep", **refs)
    if action in ("labeled", "unlabeled"):
        changed = (event.get("label") or {}).get("name", "")
        if not label_is_relevant(changed):
            return _skip(f"label '{changed}' was {action}: it does not affect the sweep", **refs)
    if SKIP_MARKER in head_message:
        return _skip(f"head commit message contains {SKIP_MARKER}", **refs)

    labels = {lab.get("name", "") for lab in pr.get("labels") or [] if isinstance(lab, dict)}
    primary = [name for name in PRIMARY_LABELS if name in labels]
    if len(primary) > 1:
        from sweepgate.core.errors import fail

        raise fail(source, 0, f"PR #{number} has labels {' and '.join(repr(p) for p in primary)}",
                   f"keep exactly one: {SWEEP_LABEL} (trimmed) or {FULL_SWEEP_LABEL} (everything)",
                   rule="ci-labels")
    if not primary:
        return _skip(f"no sweep label: add '{SWEEP_LABEL}' (trimmed) or '{FULL_SWEEP_LABEL}' (full)", **refs)
    mode = PRIMARY_LABELS[primary[0]]
    modifiers = {flag: name in labels for name, flag in MODIFIER_LABELS.items()}
    extras = "".join(f" +{name}" for name in MODIFIER_LABELS if name in labels)
    return Decision(mode, f"label '{primary[0]}': {mode} sweep{extras}", **modifiers, **refs)


# --- GITHUB_OUTPUT / GITHUB_ENV ------------------------------------------------------

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def format_kv(values: dict[str, str]) -> str:
    """The GITHUB_OUTPUT / GITHUB_ENV file format.

    Single-line values are ``name=value``; a value with a newline uses a random
    heredoc delimiter that is checked not to occur in it, so no value can smuggle
    in another variable.
    """
    out = []
    for name, value in values.items():
        if not _NAME_RE.match(name):
            raise ValueError(f"bad variable name {name!r}")
        value = str(value)
        if "\n" not in value and "\r" not in value:
            out.append(f"{name}={value}\n")
            continue
        delim = f"ghadelimiter_{uuid.uuid4().hex}"
        while delim in value:  # pragma: no cover - 128 random bits
            delim = f"ghadelimiter_{uuid.uuid4().hex}"
        out.append(f"{name}<<{delim}\n{value}\n{delim}\n")
    return "".join(out)


def parse_kv(text: str) -> dict[str, str]:
    """Read a GITHUB_OUTPUT / GITHUB_ENV file the way the runner does (for tests and collect)."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            body = []
            while i < len(lines) and lines[i] != delim:
                body.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError(f"unterminated heredoc for {name}")
            i += 1
            values[name] = "\n".join(body)
        else:
            name, _, value = line.partition("=")
            values[name] = value
    return values


def _write_kv(path: str | None, values: dict[str, str]) -> None:
    text = format_kv(values)
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def _load_json(path: str, what: str):
    from sweepgate.core.errors import fail

    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise fail(path, 0, f"{what} not found", "check the path") from None
    except json.JSONDecodeError as exc:
        raise fail(path, exc.lineno, f"{what} is not valid JSON: {exc.msg}", "") from None


def _head_message(event_name: str, event: dict, source: str) -> str:
    if event_name == "push":
        return str((event.get("head_commit") or {}).get("message") or "")
    sha = ((event.get("pull_request") or {}).get("head") or {}).get("sha")
    if event_name != "pull_request" or not sha:
        return ""
    proc = subprocess.run(["git", "log", "-1", "--format=%B", sha], capture_output=True, text=True)
    if proc.returncode != 0:
        from sweepgate.core.errors import fail

        raise fail(source, 0, f"cannot read head commit {sha[:12]}: {proc.stderr.strip() or 'git failed'}",
                   "check out with fetch-depth: 0, or pass --head-message")
    return proc.stdout


def _merge_base(base: str, head: str) -> str:
    proc = subprocess.run(["git", "merge-base", base, head], capture_output=True, text=True)
    if proc.returncode != 0:
        from sweepgate.core.errors import fail

        raise fail("git", 0, f"no merge base of {base[:12]} and {head[:12]}: {proc.stderr.strip()}",
                   "check out with fetch-depth: 0")
    return proc.stdout.strip()


def _run_decide(args) -> int:
    from sweepgate.core.errors import fail

    event_path = args.event_path or os.environ.get("GITHUB_EVENT_PATH")
    event_name = args.event_name or os.environ.get("GITHUB_EVENT_NAME")
    if not event_path or not event_name:
        raise fail("sweepgate ci decide", 0, "GITHUB_EVENT_PATH and GITHUB_EVENT_NAME are not set",
                   "run under GitHub Actions or pass --event-path and --event-name")
    event = _load_json(event_path, "event payload")
    if not isinstance(event, dict):
        raise fail(event_path, 1, "event payload is not a JSON object", "pass the webhook payload")
    message = args.head_message
    if message is None:
        message = _head_message(event_name, event, event_path)
    decision = decide(event_name, event, message, source=event_path)
    if args.merge_base and decision.run and event_name == "pull_request":
        decision = replace(decision, base_ref=_merge_base(decision.base_ref, decision.head_ref))
    _write_kv(args.output or os.environ.get("GITHUB_OUTPUT"), decision.outputs())
    line = f"sweepgate ci decide: run={decision.outputs()['run']} mode={decision.mode}: {decision.reason}"
    print(line, file=sys.stderr)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write(f"**sweep: {decision.mode}** ({decision.reason})\n")
    return 0


# --- split: the fan-out guard ----------------------------------------------------------

MAX_MATRIX_JOBS = 256  # GitHub: a matrix generates at most 256 jobs
# GitHub: "Outputs can be a maximum of 1 MB per job ... Size is approximated based
# on UTF-16 encoding." Keep 5% for the job's other outputs.
MAX_JOB_OUTPUT_BYTES = 950_000

# fan-out kind -> (matrix keys, chunk jobs in run-sweep.yml, reusable workflow).
# tests/test_fanout.py checks run-sweep.yml has exactly these jobs.
FANOUT = {
    "fixed": (("single_node",), 4, "benchmark-tmpl.yml"),
    "agentic": (("single_node",), 2, "benchmark-tmpl.yml"),
    "evals": (("evals", "agentic_evals"), 2, "benchmark-tmpl.yml"),
    "multinode": (("multi_node",), 2, "benchmark-multinode-tmpl.yml"),
    "multinode_evals": (("multinode_evals", "multinode_agentic_evals"), 1, "benchmark-multinode-tmpl.yml"),
}
MATRIX_KEYS = ("single_node", "multi_node", "evals", "agentic_evals", "multinode_evals",
               "multinode_agentic_evals", "changelog_metadata")


def chunk_output_name(kind: str, index: int) -> str:
    return f"{kind}_{index}"


def _utf16_size(text: str) -> int:
    return len(text.encode("utf-16-le"))


def _dump(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=False)


def rows_by_kind(matrix: dict, source: str = "matrix") -> dict[str, list[dict]]:
    """Every row of the matrix, by fan-out kind. Unknown keys are an error, never dropped."""
    from sweepgate.core import fields
    from sweepgate.core.errors import fail

    if not isinstance(matrix, dict):
        raise fail(source, 1, "matrix is not a JSON object", "pass the output of process_changelog.py")
    unknown = sorted(set(matrix) - set(MATRIX_KEYS))
    if unknown:
        raise fail(source, 1, f"unknown matrix key(s) {', '.join(unknown)}",
                   "teach sweepgate.commands.ci.FANOUT where their rows run")
    kinds: dict[str, list[dict]] = {kind: [] for kind in FANOUT}
    for key in ("single_node", "multi_node"):
        buckets = matrix.get(key)
        buckets = {} if buckets is None else buckets
        if not isinstance(buckets, dict):
            raise fail(source, 1, f"'{key}' is not an object of buckets", "map bucket name -> list of rows")
        for bucket, rows in buckets.items():
            if not isinstance(rows, list):
                raise fail(source, 1, f"'{key}.{bucket}' is not a list of rows", "")
            for row in rows:
                if key == "multi_node":
                    kinds["multinode"].append(row)
                elif row.get(fields.SCENARIO_TYPE) == fields.AGENTIC_CODING:
                    kinds["agentic"].append(row)
                else:
                    kinds["fixed"].append(row)
    for kind, (keys, _, _) in FANOUT.items():
        for key in keys:
            if key in ("single_node", "multi_node"):
                continue
            rows = matrix.get(key)
            rows = [] if rows is None else rows
            if not isinstance(rows, list):
                raise fail(source, 1, f"'{key}' is not a list of rows", "")
            kinds[kind].extend(rows)
    for kind, rows in kinds.items():
        for i, row in enumerate(rows):
            if not isinstance(row, dict) or not isinstance(row.get(fields.RUNNER), str):
                raise fail(source, 1, f"{kind} row {i} has no 'runner' label", "every row needs a runner")
    return kinds


def _display_name(row: dict) -> str:
    from sweepgate.core import fields

    conc = row.get(fields.CONC)
    conc_s = "x".join(map(str, conc)) if isinstance(conc, list) else str(conc)
    return f"{row.get(fields.EXP_NAME, '?')} c{conc_s}"


def split(matrix: dict, *, max_jobs: int = MAX_MATRIX_JOBS, max_bytes: int = MAX_JOB_OUTPUT_BYTES,
          capacity: dict[str, int] | None = None, source: str = "matrix") -> dict[str, str]:
    """Matrix -> job outputs ``<kind>_<i>`` (each a strategy.matrix JSON or '') plus totals.

    A matrix entry is a reference, ``{"runner", "id", "name"}``: whole rows would
    cap a sweep at ~850 rows under GitHub's 1 MB of outputs per job. The
    benchmark job resolves ``id`` (``<kind>/<index>``) in the run's ``matrix``
    artifact with ``row_for_id``. Each chunk has at most ``max_jobs`` entries and
    all outputs together fit ``max_bytes`` (UTF-16, as GitHub counts). Raises
    SweepgateError rather than drop a row.
    """
    from sweepgate.core import fields
    from sweepgate.core.errors import fail

    capacity = capacity or {kind: spec[1] for kind, spec in FANOUT.items()}
    outputs: dict[str, str] = {}
    total = 0
    for kind, rows in rows_by_kind(matrix, source).items():
        refs = [{"runner": row[fields.RUNNER], "id": f"{kind}/{i}", "name": _display_name(row)}
                for i, row in enumerate(rows)]
        chunks = [refs[i:i + max_jobs] for i in range(0, len(refs), max_jobs)]
        if len(chunks) > capacity[kind]:
            raise fail(source, 0,
                       f"{len(rows)} {kind} rows need {len(chunks)} fan-out jobs of {max_jobs} "
                       f"but run-sweep.yml has {capacity[kind]}",
                       f"add jobs {kind.replace('_', '-')}-{capacity[kind]}.. to run-sweep.yml and raise "
                       f"FANOUT['{kind}'] in utils/sweepgate/ci.py, or split the changelog entry",
                       rule="ci-fanout")
        for i in range(capacity[kind]):
            outputs[chunk_output_name(kind, i)] = _dump({"row": chunks[i]}) if i < len(chunks) else ""
        outputs[f"{kind}_jobs"] = str(len(rows))
        total += len(rows)
    outputs["jobs"] = str(total)
    size = sum(_utf16_size(k) + _utf16_size(v) for k, v in outputs.items())
    if size > max_bytes:
        raise fail(source, 0,
                   f"{total} rows make {size:,} bytes of job outputs; GitHub allows {max_bytes:,} per job",
                   f"split the changelog entry into smaller PRs or use {SWEEP_LABEL} (trimmed)",
                   rule="ci-fanout")
    return outputs


def row_for_id(matrix: dict, row_id: str, source: str = "matrix") -> dict:
    """The row a split reference names: ``<kind>/<index>`` in ``rows_by_kind`` order."""
    from sweepgate.core.errors import fail

    kind, _, index = row_id.partition("/")
    rows = rows_by_kind(matrix, source)
    if kind not in rows or not index.isdigit() or int(index) >= len(rows[kind]):
        have = ", ".join(f"{k}: {len(v)}" for k, v in rows.items())
        raise fail(source, 0, f"no row '{row_id}' in the matrix ({have})",
                   "pass an id from `sweepgate ci split` of this run's matrix")
    return rows[kind][int(index)]


def _run_split(args) -> int:
    matrix = _load_json(args.matrix, "matrix")
    outputs = split(matrix, max_jobs=args.max_jobs, max_bytes=args.max_bytes, source=args.matrix)
    _write_kv(args.output or os.environ.get("GITHUB_OUTPUT"), outputs)
    used = ", ".join(f"{k}={outputs[k + '_jobs']}" for k in FANOUT if outputs[k + "_jobs"] != "0")
    print(f"sweepgate ci split: {outputs['jobs']} jobs ({used or 'none'})", file=sys.stderr)
    return 0


# --- row-env: one row -> the job environment ---------------------------------------------

JOB_ENV_NAMES_VAR = "SWEEPGATE_JOB_ENV_NAMES"  # which names row-env set; launchers pass them on


def _multinode_env(row: dict) -> dict[str, str]:
    """Extra variables for a multi-node row: PREFILL_*/DECODE_*, CONC_LIST, ROUTER_*."""
    from sweepgate.core import fields

    env: dict[str, str] = {}
    for side in (fields.PREFILL, fields.DECODE):
        for key, value in (row.get(side) or {}).items():
            name = fields.ROW_ENV.get(key, key.upper().replace("-", "_"))
            env[f"{side.upper()}_{name}"] = value if isinstance(value, str) else (
                _dump(value) if isinstance(value, (list, dict)) else fields.env_value(value))
    conc = row.get(fields.CONC)
    if isinstance(conc, list):
        env["CONC"] = " ".join(map(str, conc))
    router = row.get(fields.ROUTER) or {}
    env["ROUTER"] = str(router.get("name", ""))
    env["ROUTER_VERSION"] = str(router.get("version", ""))
    env["KV_P2P_TRANSFER"] = fields.env_value(row.get(fields.KV_P2P_TRANSFER, ""))
    env["DISAGG"] = fields.env_value(row.get(fields.DISAGG, False))
    env["MULTINODE"] = "true"
    return env


def job_env(row: dict, runner_name: str, result_dir: str, source: str = "ROW") -> dict[str, str]:
    from sweepgate.core import fields
    from sweepgate.core.errors import fail

    if not isinstance(row, dict):
        raise fail(source, 1, "row is not a JSON object", "pass one matrix row: toJSON(matrix.row)")
    missing = [f for f in (fields.EXP_NAME, fields.PRECISION, fields.FRAMEWORK, fields.IMAGE) if f not in row]
    if missing:
        raise fail(source, 1, f"row has no {', '.join(repr(m) for m in missing)}",
                   "pass the whole matrix row: toJSON(matrix.row)")
    if not runner_name:
        raise fail(source, 0, "RUNNER_NAME is not set", "run on an Actions runner or pass --runner-name")
    env = fields.row_env(row, runner_name, result_dir)
    if fields.PREFILL in row or fields.DECODE in row:
        env.update(_multinode_env(row))
    env[JOB_ENV_NAMES_VAR] = " ".join(env)
    return env


def _run_row_env(args) -> int:
    from sweepgate.core.errors import fail

    text = args.row if args.row is not None else os.environ.get("ROW", "")
    row_id = args.row_id if args.row_id is not None else os.environ.get("ROW_ID", "")
    if text:
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise fail("ROW", exc.lineno, f"row is not valid JSON: {exc.msg}", "pass toJSON(matrix.row)") from None
    elif row_id:
        matrix_file = args.matrix or os.environ.get("MATRIX_FILE")
        if not matrix_file:
            raise fail("ROW_ID", 0, f"row id '{row_id}' given without a matrix",
                       "pass --matrix or set MATRIX_FILE to the run's matrix.json")
        row = row_for_id(_load_json(matrix_file, "matrix"), row_id, matrix_file)
    else:
        raise fail("ROW", 0, "no matrix row given",
                   "set ROW to toJSON(matrix.row), or ROW_ID and MATRIX_FILE")
    runner = args.runner_name or os.environ.get("RUNNER_NAME", "")
    result_dir = args.result_dir or os.environ.get("RESULT_DIR") or "results"
    env = job_env(row, runner, result_dir)
    _write_kv(args.output or os.environ.get("GITHUB_ENV"), env)
    print(f"sweepgate ci row-env: {len(env)} variables for {env['RESULT_FILENAME']}", file=sys.stderr)
    return 0


# --- collect: summarize the run --------------------------------------------------------------

def summarize(results: list[str], result_files: list[str]) -> tuple[str, bool]:
    """Markdown summary of the run; ok is False when any needed job failed or was cancelled."""
    counts: dict[str, int] = {}
    for result in results:
        counts[result] = counts.get(result, 0) + 1
    ok = set(counts) <= {"success", "skipped"}
    lines = ["## Sweep results", "", "| job result | count |", "| --- | --- |"]
    lines += [f"| {result} | {n} |" for result, n in sorted(counts.items())]
    lines += ["", f"{len(result_files)} result file(s):", ""]
    lines += [f"- `{name}`" for name in sorted(result_files)]
    return "\n".join(lines) + "\n", ok


def _run_collect(args) -> int:
    from sweepgate.core.errors import fail

    try:
        results = json.loads(os.environ.get("RESULTS") or "[]")
    except json.JSONDecodeError as exc:
        raise fail("RESULTS", exc.lineno, f"not valid JSON: {exc.msg}",
                   "set RESULTS to toJSON(needs.*.result)") from None
    if not isinstance(results, list):
        raise fail("RESULTS", 1, "not a JSON list", "set RESULTS to toJSON(needs.*.result)")
    files = []
    for root, _, names in os.walk(args.results):
        files += [os.path.relpath(os.path.join(root, n), args.results) for n in names if n.endswith(".json")]
    text, ok = summarize([str(r) for r in results], files)
    sys.stdout.write(text)
    if not ok:
        print("sweepgate ci collect: some jobs failed or were cancelled", file=sys.stderr)
    return 0 if ok else 1


# --- CLI ----------------------------------------------------------------------------------------

def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="ci_command", metavar="ACTION", required=True)
    p = sub.add_parser("decide", help="event -> run/mode/reason outputs (reads GITHUB_EVENT_PATH)")
    p.add_argument("--event-path", help="webhook payload JSON (default: $GITHUB_EVENT_PATH)")
    p.add_argument("--event-name", help="event name (default: $GITHUB_EVENT_NAME)")
    p.add_argument("--head-message", help="head commit message (default: git log of the PR head)")
    p.add_argument("--merge-base", action="store_true", help="use git merge-base of base and head as base_ref")
    p.add_argument("--output", help="file to append key=value lines to (default: $GITHUB_OUTPUT, else stdout)")
    p.set_defaults(_ci=_run_decide)

    p = sub.add_parser("split", help="matrix JSON -> fan-out chunk outputs within GitHub's limits")
    p.add_argument("--matrix", required=True, help="output of process_changelog.py")
    p.add_argument("--max-jobs", type=int, default=MAX_MATRIX_JOBS, help="rows per chunk (default 256)")
    p.add_argument("--max-bytes", type=int, default=MAX_JOB_OUTPUT_BYTES, help="job output budget, UTF-16 bytes")
    p.add_argument("--output", help="file to append outputs to (default: $GITHUB_OUTPUT, else stdout)")
    p.set_defaults(_ci=_run_split)

    p = sub.add_parser("row-env", help="matrix row ($ROW, or $ROW_ID in $MATRIX_FILE) -> job environment "
                       "(appends to $GITHUB_ENV)")
    p.add_argument("--row", help="row JSON (default: $ROW)")
    p.add_argument("--row-id", help="<kind>/<index> from `ci split` (default: $ROW_ID)")
    p.add_argument("--matrix", help="the run's matrix.json, for --row-id (default: $MATRIX_FILE)")
    p.add_argument("--runner-name", help="default: $RUNNER_NAME")
    p.add_argument("--result-dir", help="default: $RESULT_DIR or 'results'")
    p.add_argument("--output", help="file to append to (default: $GITHUB_ENV, else stdout)")
    p.set_defaults(_ci=_run_row_env)

    p = sub.add_parser("collect", help="markdown summary of the run ($RESULTS = toJSON(needs.*.result))")
    p.add_argument("--results", default="results", help="directory of downloaded result artifacts")
    p.set_defaults(_ci=_run_collect)


def run(args) -> int:
    return args._ci(args)
