"""`sweepgate plan`: what a PR will run, what it costs, and what it forgot.

One process reads everything from git objects: the matrix (``select.build_matrix``),
both revisions' configs and runners (``load_revision`` + ``check_revision``), and the
benchmark scripts every single-node recipe resolves to (CONTRACTS section 7), with one
``read_blobs`` call per revision. From those it computes

* the cost: jobs and GPU-hours per runner label (agentic rows from their duration,
  other rows from ``configs/estimates.yaml``, marked as estimated);
* a semantic diff of the recipes: new, changed (naming the changed fields and
  scripts), removed, unchanged; a recipe's identity is its config content, the
  runner facts it expands with, and the content of its resolved benchmark script
  and of ``benchmarks/benchmark_lib.sh``;
* the rules ``rerun-unchanged``, ``unlisted-change``, ``missing-script`` and
  ``fanout-limit``.

JSON (``--json``, CONTRACTS section 4), markdown (``--markdown`` and the step
summary) or a short text summary; optionally one PR comment, updated in place.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from dataclasses import dataclass, field

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError

ESTIMATES_FILE = "configs/estimates.yaml"
SCRIPT_DIR = "benchmarks/single_node"
SCRIPT_SCENARIO_DIRS = {F.AGENTIC_CODING: "agentic", F.FIXED_SEQ_LEN: "fixed_seq_len"}
# Built-in estimates (minutes per job), used when the head revision has no estimates file.
DEFAULT_MINUTES = {
    "default": 30, "1k1k": 20, "8k1k": 30, "evals": 30, "agentic_evals": 60,
    "multinode_evals": 45, "multinode_agentic_evals": 60,
}
EVAL_BUCKETS = ("evals", "agentic_evals", "multinode_evals", "multinode_agentic_evals")
MAX_BUCKET_JOBS = 256             # GitHub: one matrix generates at most 256 jobs
MAX_MATRIX_JSON_BYTES = 1_000_000  # GitHub: job outputs (the matrix travels as one) are capped at 1 MB
STEP_SUMMARY_LIMIT = 1_000_000    # bytes; GitHub caps a step summary at 1 MiB
COMMENT_LIMIT = 65_000            # characters; GitHub caps a comment body at 65536

RULE_RERUN = "rerun-unchanged"
RULE_UNLISTED = "unlisted-change"
RULE_MISSING_SCRIPT = "missing-script"
RULE_FANOUT = "fanout-limit"
RULE_UNUSED_SCRIPT = "unused-script"
RULE_BASE = "base-unreadable"


# --------------------------------------------------------------------------- CLI

def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sweepgate.commands import matrix

    matrix.add_arguments(parser)  # the same flags as the matrix step it plans
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the plan as JSON (CONTRACTS section 4)")
    fmt.add_argument("--markdown", action="store_true", help="print the plan as markdown")
    parser.add_argument("--step-summary", metavar="PATH", default=os.environ.get("GITHUB_STEP_SUMMARY") or None,
                        help="append the markdown plan to this file (default: $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--comment", action="store_true",
                        help="create or update the plan comment on the PR (needs GITHUB_TOKEN and --pr-number)")
    parser.add_argument("--pr-number", type=int, default=None, help="pull request to comment on")
    parser.add_argument("--repository", default=os.environ.get("GITHUB_REPOSITORY") or None,
                        help="OWNER/NAME (default: $GITHUB_REPOSITORY)")
    parser.add_argument("--github-api-url", default=os.environ.get("GITHUB_API_URL") or None,
                        help="GitHub REST API base URL (default: $GITHUB_API_URL or https://api.github.com)")
    parser.add_argument("--fail-on-warning", action="store_true",
                        help="exit 1 when the plan has warning-severity findings")


def run(args) -> int:
    from sweepgate.commands.matrix import options
    from sweepgate.core.load import Git

    plan = make_plan(Git("."), args.base_ref, args.head_ref, options(args))

    from sweepgate.core import report

    diagnostics = [Diagnostic(w["file"], w["line"], w.get("col", 0), w["rule"], w["message"],
                              w.get("hint", ""), w.get("severity", "warning")) for w in plan["warnings"]]
    if args.json:
        sys.stdout.write(json.dumps(plan) + "\n")
        # Annotations go to stdout under GitHub Actions; keep stdout pure JSON.
        for d in diagnostics:
            print(d.render(), file=sys.stderr)
    else:
        if args.markdown:
            sys.stdout.write(report.plan_markdown(plan, limit=STEP_SUMMARY_LIMIT))
        else:
            sys.stdout.write(report.plan_text(plan))
        report.emit(diagnostics)
    if args.step_summary:
        write_step_summary(args.step_summary, plan)
    if args.comment:
        post_comment(plan, args)
    failing = [d for d in diagnostics if d.severity in ("warning", "error")]
    return 1 if args.fail_on_warning and failing else 0


def write_step_summary(path: str, plan: dict) -> None:
    """Append the markdown plan; the whole step summary stays within GitHub's limit."""
    from sweepgate.core import report

    try:
        existing = os.path.getsize(path)
    except OSError:
        existing = 0
    room = STEP_SUMMARY_LIMIT - existing
    if room < 512:
        print(f"sweepgate plan: {path} is full ({existing} bytes); not adding the plan", file=sys.stderr)
        return
    markdown = report.plan_markdown(plan, limit=room)
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(markdown)
    except OSError as exc:
        raise SweepgateError(Diagnostic(path, 0, 0, "step-summary", f"cannot write the step summary: {exc.strerror}",
                                        "check --step-summary / $GITHUB_STEP_SUMMARY")) from None


def post_comment(plan: dict, args) -> None:
    token = os.environ.get("GITHUB_TOKEN")
    missing = [what for what, value in (("GITHUB_TOKEN", token), ("--pr-number", args.pr_number),
                                        ("--repository", args.repository)) if not value]
    if missing:
        print(f"sweepgate plan: not commenting: {', '.join(missing)} not set", file=sys.stderr)
        return
    from sweepgate.core import github, report

    body = report.plan_markdown(plan, limit=COMMENT_LIMIT, marker=github.PLAN_MARKER, unit="chars")
    action, comment_id = github.upsert_comment(args.repository, args.pr_number, body, token,
                                               base_url=args.github_api_url)
    print(f"sweepgate plan: {action} comment {comment_id} on {args.repository}#{args.pr_number}", file=sys.stderr)


# --------------------------------------------------------------------------- script resolution (CONTRACTS section 7)

def gpu_family(runner: str) -> str:
    """'cluster:b300-nv' -> 'b300', 'mi355x-amds' -> 'mi355x'."""
    name = runner[len(F.CLUSTER_PREFIX):] if runner.startswith(F.CLUSTER_PREFIX) else runner
    return name.split("-", 1)[0]


def script_candidates(row: dict) -> list[str]:
    """The benchmark scripts a single-node row may run, most specific first (CONTRACTS section 7).

    The row runs the first candidate that exists. Multi-node rows resolve no script here.
    This is the one home of the rule in Python; the runner launchers implement it in bash.
    """
    from sweepgate.core.expand import is_agentic_row, is_multinode_row

    if is_multinode_row(row):
        return []
    scenario = SCRIPT_SCENARIO_DIRS[F.AGENTIC_CODING if is_agentic_row(row) else F.FIXED_SEQ_LEN]
    mtp = "_mtp" if row.get(F.SPEC_DECODING, F.DEFAULT_SPEC_DECODING) == "mtp" else ""
    stem = f"{row[F.MODEL_PREFIX]}_{row[F.PRECISION]}_{gpu_family(str(row[F.RUNNER]))}"
    directory = f"{SCRIPT_DIR}/{scenario}"
    return [f"{directory}/{stem}_{row[F.FRAMEWORK]}{mtp}.sh", f"{directory}/{stem}{mtp}.sh"]


def resolve_script(candidates: list[str], blobs: dict[str, bytes | None]) -> str | None:
    for path in candidates:
        if blobs.get(path) is not None:
            return path
    return None


def _script_rows(config) -> dict[str, list[dict]]:
    """Per scenario type, the script-relevant part of each search-space point as a row-shaped dict.

    Only what ``script_candidates`` reads; no expansion, so it works on any revision.
    """
    out: dict[str, list[dict]] = {}
    if not isinstance(config, dict) or config.get(F.MULTINODE) is True:
        return out
    scenarios = config.get(F.SCENARIOS)
    if not isinstance(scenarios, dict):
        return out
    identity = {f: config.get(f) for f in (F.MODEL_PREFIX, F.PRECISION, F.FRAMEWORK, F.RUNNER)}
    if not all(isinstance(v, str) for v in identity.values()):
        return out
    for scenario in F.SCENARIO_TYPES:
        blocks = scenarios.get(scenario)
        if not isinstance(blocks, list):
            continue
        specs = set()
        for block in blocks:
            for point in (block.get(F.SEARCH_SPACE) or []) if isinstance(block, dict) else []:
                if isinstance(point, dict):
                    specs.add(str(point.get(F.SPEC_DECODING, F.DEFAULT_SPEC_DECODING)))
        rows = []
        for spec in sorted(specs):
            row = {**identity, F.SPEC_DECODING: spec}
            if scenario == F.AGENTIC_CODING:
                row[F.SCENARIO_TYPE] = F.AGENTIC_CODING
            rows.append(row)
        if rows:
            out[scenario] = rows
    return out


# --------------------------------------------------------------------------- a revision's recipes

@dataclass
class RecipeSet:
    """One revision's recipes: configs, runner facts, resolved scripts and their hashes."""

    ref: str
    configs: dict
    owner: dict
    runners: dict
    blobs: dict[str, bytes | None] = field(default_factory=dict)
    # key -> scenario -> sorted list of (candidate[0], resolved path or None)
    scripts: dict[str, dict[str, list[tuple[str, str | None]]]] = field(default_factory=dict)
    candidates: dict[str, list[str]] = field(default_factory=dict)  # candidate[0] -> all candidates

    def sha(self, path: str | None) -> str | None:
        raw = self.blobs.get(path) if path else None
        return hashlib.sha256(raw).hexdigest() if raw is not None else None

    @property
    def lib_sha(self) -> str | None:
        return self.sha(F.BENCHMARK_LIB)

    def runner_facts(self, key: str):
        runner = (self.configs.get(key) or {}).get(F.RUNNER) if isinstance(self.configs.get(key), dict) else None
        if not isinstance(self.runners, dict) or not isinstance(runner, str):
            return None
        # Only the hardware facts reach rows (DRAM budget); node lists do not change a recipe.
        return (self.runners.get("hardware") or {}).get(runner)

    def script_ids(self, key: str, scenario: str) -> list[tuple[str, str | None, str | None]]:
        return [(first, path, self.sha(path)) for first, path in self.scripts.get(key, {}).get(scenario, [])]


def _load_recipes(git, ref: str, opts, *, is_base: bool, extra_paths: list[str] = ()) -> tuple[RecipeSet, list]:
    """Load and check a revision; read every candidate script (one read_blobs call)."""
    from sweepgate.core.check import check_revision
    from sweepgate.core.load import load_revision

    notes: list[Diagnostic] = []
    rev = None
    try:
        rev = load_revision(git, ref, opts.config_files, opts.runner_config)
        check_revision(rev)
    except SweepgateError as exc:
        if not is_base:
            raise
        first = exc.diagnostics[0] if exc.diagnostics else Diagnostic(F.CONFIG_DIR)
        notes.append(Diagnostic(first.file, first.line, first.col, RULE_BASE,
                                f"the base revision's configs do not load cleanly ({len(exc.diagnostics)} "
                                f"problem(s), first: {first.message}); the diff uses what could be read",
                                severity="info"))
    configs = dict(rev.configs) if rev else {}
    owner = dict(rev.owner) if rev else {}
    runners = rev.runners.data if rev else {}
    recipes = RecipeSet(ref, configs, owner, runners if isinstance(runners, dict) else {})
    candidates: dict[str, dict[str, list[list[str]]]] = {}
    wanted: dict[str, None] = {F.BENCHMARK_LIB: None}
    for p in extra_paths:
        wanted[p] = None
    for key, config in configs.items():
        for scenario, rows in _script_rows(config).items():
            lists = [script_candidates(r) for r in rows]
            candidates.setdefault(key, {})[scenario] = lists
            for paths in lists:
                wanted.update(dict.fromkeys(paths))
                recipes.candidates[paths[0]] = paths
    recipes.blobs = git.read_blobs(ref, list(wanted))
    for key, per_scenario in candidates.items():
        for scenario, lists in per_scenario.items():
            recipes.scripts.setdefault(key, {})[scenario] = sorted(
                {(paths[0], resolve_script(paths, recipes.blobs)) for paths in lists}, key=lambda t: (t[0], t[1] or ""))
    return recipes, notes


# --------------------------------------------------------------------------- semantic diff

def _same(a, b) -> bool:
    return type(a) is type(b) and a == b if not isinstance(a, (dict, list)) else _canon(a) == _canon(b)


def _canon(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def changed_paths(a, b, path: tuple = ()) -> list[tuple]:
    """Paths (tuples of keys/indices) where two JSON-shaped values differ, deepest first-found."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                out.append(path + (k,))
            else:
                out.extend(changed_paths(a[k], b[k], path + (k,)))
        return out
    if isinstance(a, list) and isinstance(b, list):
        if all(not isinstance(x, (dict, list)) for x in a + b):
            return [] if _same(a, b) else [path]  # a scalar list (conc-list) is one field
        out = []
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                out.append(path + (i,))
            else:
                out.extend(changed_paths(a[i], b[i], path + (i,)))
        return out
    return [] if _same(a, b) else [path]


def path_text(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(whole config)"


def _scenarios_of(config) -> list[str]:
    if not isinstance(config, dict) or not isinstance(config.get(F.SCENARIOS), dict):
        return []
    return [s for s in F.SCENARIO_TYPES if config[F.SCENARIOS].get(s)]


def _uses_lib(config) -> bool:
    return isinstance(config, dict) and config.get(F.MULTINODE) is not True


@dataclass
class KeyDiff:
    key: str
    status: str  # new | changed | removed | unchanged
    fields: list[str] = field(default_factory=list)
    scripts: list[dict] = field(default_factory=list)   # {path, base, head} (sha256 prefixes, None = absent)
    runner: bool = False
    lib: bool = False
    scenarios: list[str] = field(default_factory=list)  # scenario types whose identity changed
    field_scenarios: list[str] = field(default_factory=list)  # ... because of config fields

    def as_dict(self) -> dict:
        out = {"key": self.key, "status": self.status}
        if self.status == "changed":
            out.update(fields=self.fields, scripts=self.scripts, runner=self.runner,
                       benchmark_lib=self.lib, scenarios=self.scenarios)
        return out


def diff_recipes(base: RecipeSet, head: RecipeSet) -> dict[str, KeyDiff]:
    lib_changed = base.lib_sha != head.lib_sha
    out: dict[str, KeyDiff] = {}
    for key in list(head.configs) + [k for k in base.configs if k not in head.configs]:
        if key not in head.configs:
            out[key] = KeyDiff(key, "removed")
            continue
        h = head.configs[key]
        if key not in base.configs:
            out[key] = KeyDiff(key, "new", scenarios=_scenarios_of(h))
            continue
        b = base.configs[key]
        diff = KeyDiff(key, "unchanged")
        paths = changed_paths(b, h)
        diff.fields = [path_text(p) for p in paths]
        present = [s for s in F.SCENARIO_TYPES if s in _scenarios_of(b) or s in _scenarios_of(h)]
        touched: set[str] = set()
        for p in paths:
            if len(p) >= 2 and p[0] == F.SCENARIOS and p[1] in F.SCENARIO_TYPES:
                touched.add(p[1])
            else:
                touched.update(present)
        diff.field_scenarios = [s for s in F.SCENARIO_TYPES if s in touched]
        diff.runner = not _same(base.runner_facts(key), head.runner_facts(key))
        if diff.runner:
            touched.update(present)
        if lib_changed and _uses_lib(h):
            diff.lib = True
            touched.update(_scenarios_of(h))
        seen_scripts: dict[str, dict] = {}
        for scenario in present:
            b_ids, h_ids = base.script_ids(key, scenario), head.script_ids(key, scenario)
            if b_ids == h_ids:
                continue
            touched.add(scenario)
            b_map = {first: (path, sha) for first, path, sha in b_ids}
            h_map = {first: (path, sha) for first, path, sha in h_ids}
            for first in sorted(b_map.keys() | h_map.keys()):
                bp, bs = b_map.get(first, (None, None))
                hp, hs = h_map.get(first, (None, None))
                if (bp, bs) == (hp, hs):
                    continue
                path = hp or bp or first
                if path not in seen_scripts:
                    seen_scripts[path] = {"path": path, "base": (bs or "")[:12] or None,
                                          "head": (hs or "")[:12] or None, "scenarios": [],
                                          **({"base_path": bp} if bp and bp != hp else {})}
                    diff.scripts.append(seen_scripts[path])
                if scenario not in seen_scripts[path]["scenarios"]:
                    seen_scripts[path]["scenarios"].append(scenario)
        diff.scenarios = [s for s in F.SCENARIO_TYPES if s in touched]
        if diff.fields or diff.scripts or diff.runner or diff.lib:
            diff.status = "changed"
        out[key] = diff
    return out


# --------------------------------------------------------------------------- selection

def _selection(git, base_sha: str, head_sha: str, opts, matrix: dict, configs: dict):
    """key -> {scenarios selected, changelog (file, line) where an entry names it}."""
    from sweepgate.core.load import YamlDoc
    from sweepgate.core.select import appended_lines, parse_appended, resolve_keys

    entries = (matrix.get("changelog_metadata") or {}).get("entries") or []
    if not entries:
        return {}
    try:
        doc, _ = parse_appended(appended_lines(git, base_sha, head_sha, opts.changelog))
    except SweepgateError:
        doc = YamlDoc(opts.changelog, "", None)
    selected: dict[str, dict] = {}
    for i, entry in enumerate(entries):
        scenarios = entry.get(F.ENTRY_SCENARIO_TYPE) or list(F.SCENARIO_TYPES)
        for k, pattern in enumerate(entry.get(F.CONFIG_KEYS) or []):
            keys, _ = resolve_keys(doc, i, [pattern], configs)
            line = doc.locate((i, F.CONFIG_KEYS, k))[0]
            for key in keys:
                item = selected.setdefault(key, {"scenarios": set(), "where": (opts.changelog, line)})
                item["scenarios"].update(scenarios)
    return selected


# --------------------------------------------------------------------------- rules

def _short(keys: list[str], limit: int = 8) -> str:
    shown = ", ".join(keys[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def rule_diagnostics(base: RecipeSet, head: RecipeSet, diffs: dict[str, KeyDiff], selected: dict[str, dict],
                     changed_files: list[str]) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    # rerun-unchanged and missing-script: keys the changelog selects
    for key, sel in selected.items():
        config = head.configs.get(key)
        scenarios = [s for s in _scenarios_of(config) if s in sel["scenarios"]]
        diff = diffs.get(key)
        file, line = sel["where"]
        if diff and diff.status == "unchanged" and scenarios:
            scripts = sorted({p for s in scenarios for _, p, _ in head.script_ids(key, s) if p})
            what = "config" + (f", {', '.join(scripts)}" if scripts else "") + (
                f" and {F.BENCHMARK_LIB}" if _uses_lib(config) else "")
            diags.append(Diagnostic(
                file, line, 0, RULE_RERUN,
                f"'{key}' ({', '.join(scenarios)}) is selected again but is identical to base ({what} unchanged); "
                "its rows rerun an unchanged recipe",
                "drop the entry if nothing changed, or say in its description why a rerun is needed",
                severity="info"))
        elif diff and diff.status == "changed":
            unchanged = [s for s in scenarios if s not in diff.scenarios]
            if unchanged:
                diags.append(Diagnostic(
                    file, line, 0, RULE_RERUN,
                    f"'{key}': the {', '.join(unchanged)} recipe is selected again but identical to base "
                    f"(this change only touches {', '.join(diff.scenarios) or 'nothing it runs'})",
                    f"restrict the entry with '{F.ENTRY_SCENARIO_TYPE}: [{', '.join(diff.scenarios)}]'"
                    if diff.scenarios else "", severity="info"))
        for scenario in scenarios:
            for first, path, _ in head.script_ids(key, scenario):
                if path is None:
                    owner = head.owner.get(key)
                    kl = owner.locate((key,))[0] if owner else 0
                    diags.append(Diagnostic(
                        owner.path if owner else file, kl, 0, RULE_MISSING_SCRIPT,
                        f"'{key}' ({scenario}) resolves to no benchmark script: none of "
                        f"{', '.join(head.candidates.get(first, [first]))} exists at head",
                        "add the script (CONTRACTS section 7) or fix model-prefix/precision/runner/framework",
                        severity="warning"))
    # unlisted-change for configs
    for key, diff in diffs.items():
        if diff.status == "new":
            changed_scenarios = diff.scenarios
        elif diff.status == "changed" and diff.fields:
            changed_scenarios = diff.field_scenarios
        else:
            continue  # script, library and runner changes are reported per file below
        covered = selected.get(key, {}).get("scenarios", set())
        missing = [s for s in changed_scenarios if s not in covered]
        if not missing:
            continue
        owner = head.owner.get(key)
        line = owner.locate((key,))[0] if owner else 0
        if diff.status == "new":
            what = f"new config '{key}'"
        else:
            what = f"config '{key}' changed ({_short(diff.fields, 5)})"
        partly = f" for {', '.join(missing)}" if key in selected else ""
        diags.append(Diagnostic(
            owner.path if owner else F.CONFIG_DIR, line, 0, RULE_UNLISTED,
            f"{what} but no appended {F.CHANGELOG_FILE} entry selects it{partly}",
            f"append an entry naming '{key}' to {F.CHANGELOG_FILE}, or revert the change",
            severity="warning"))
    # unlisted-change for scripts: group the recipe keys by the script whose change touches them
    users: dict[str, list[tuple[str, str]]] = {}
    for key, diff in diffs.items():
        for script in diff.scripts:
            users.setdefault(script["path"], []).extend((key, s) for s in script["scenarios"])
    for path, pairs in sorted(users.items()):
        keys = sorted({k for k, _ in pairs})
        if any(s in selected.get(k, {}).get("scenarios", ()) for k, s in pairs):
            continue
        exists = head.blobs.get(path) is not None
        diags.append(Diagnostic(
            path, 1 if exists else 0, 0, RULE_UNLISTED,
            f"benchmark script {path} changed; config keys resolving to it: {_short(keys)}; "
            "no appended entry selects any of them",
            f"append an entry naming one of them (e.g. '{keys[0]}') to {F.CHANGELOG_FILE}, or revert the script",
            severity="warning"))
    # benchmark_lib.sh: shared by every single-node recipe
    if base.lib_sha != head.lib_sha:
        lib_keys = sorted(k for k, c in head.configs.items() if _uses_lib(c))
        if lib_keys and not any(k in selected for k in lib_keys):
            diags.append(Diagnostic(
                F.BENCHMARK_LIB, 1 if head.lib_sha else 0, 0, RULE_UNLISTED,
                f"{F.BENCHMARK_LIB} changed; every single-node recipe runs it ({len(lib_keys)} config keys: "
                f"{_short(lib_keys)}); no appended entry selects any of them",
                f"append an entry naming at least one affected config key to {F.CHANGELOG_FILE}",
                severity="warning"))
    # changed scripts that no recipe resolves to
    resolved = {p for per in list(head.scripts.values()) + list(base.scripts.values())
                for pairs in per.values() for _, p in pairs if p}
    for path in changed_files:
        if path.startswith(SCRIPT_DIR + "/") and path.endswith(".sh") and path not in resolved:
            diags.append(Diagnostic(
                path, 0, 0, RULE_UNUSED_SCRIPT,
                f"benchmark script {path} changed but no config key resolves to it",
                "check its name against CONTRACTS section 7 "
                "(<model-prefix>_<precision>_<gpu>[_<framework>][_mtp].sh)", severity="info"))
    return diags


def fanout_diagnostics(matrix: dict, changelog: str) -> list[Diagnostic]:
    diags = []
    for name in ("single_node", "multi_node", *EVAL_BUCKETS):
        value = matrix.get(name) or ({} if name in ("single_node", "multi_node") else [])
        buckets = value.items() if isinstance(value, dict) else [(None, value)]
        for bucket, rows in buckets:
            if len(rows) > MAX_BUCKET_JOBS:
                label = f"{name}/{bucket}" if bucket else name
                diags.append(Diagnostic(
                    changelog, 0, 0, RULE_FANOUT,
                    f"matrix bucket {label} has {len(rows)} jobs, over GitHub's {MAX_BUCKET_JOBS} jobs per matrix",
                    "split the entry (fewer config keys or scenario-type), or use --trim-conc",
                    severity="warning"))
    size = len(json.dumps(matrix).encode("utf-8"))
    if size > MAX_MATRIX_JSON_BYTES:
        diags.append(Diagnostic(
            changelog, 0, 0, RULE_FANOUT,
            f"the matrix JSON is {size} bytes, over the {MAX_MATRIX_JSON_BYTES}-byte job-output limit",
            "split the entry across PRs, or use --trim-conc", severity="warning"))
    return diags


# --------------------------------------------------------------------------- cost

def row_gpus(row: dict) -> int:
    """GPUs a row occupies: tp*pp*pcp-size, or the sum over prefill/decode of num-worker*tp*pp*pcp-size."""
    from sweepgate.core.expand import is_multinode_row

    def size(w: dict) -> int:
        return int(w.get(F.TP, 1)) * int(w.get(F.PP, F.DEFAULT_PARALLEL)) * int(w.get(F.PCP_SIZE, F.DEFAULT_PARALLEL))

    if is_multinode_row(row):
        return sum(int(row[r].get(F.NUM_WORKER, 1)) * size(row[r]) for r in (F.PREFILL, F.DECODE)
                   if isinstance(row.get(r), dict))
    return size(row)


def load_estimates(raw: bytes | None) -> tuple[dict[str, float], str]:
    """minutes-per-job table from configs/estimates.yaml (head), or the built-in defaults."""
    if raw is None:
        return dict(DEFAULT_MINUTES), "built-in defaults"
    from sweepgate.core.load import load_doc

    doc = load_doc(ESTIMATES_FILE, raw)
    data = doc.data
    table = data.get("minutes-per-job") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise SweepgateError(doc.diag((), "estimates", f"{ESTIMATES_FILE} needs a 'minutes-per-job' mapping",
                                      "write 'minutes-per-job: {default: 30, 1k1k: 20, ...}'"))
    problems = [doc.diag(("minutes-per-job", k), "estimates",
                         f"minutes-per-job.{k} must be a positive number, not {v!r}", "use e.g. 30")
                for k, v in table.items()
                if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0]
    extra = [k for k in data if k != "minutes-per-job"]
    problems += [doc.diag((k,), "estimates", f"unknown field '{k}'", "remove it") for k in extra]
    if problems:
        raise SweepgateError(problems)
    merged = dict(DEFAULT_MINUTES)
    merged.update({str(k): float(v) for k, v in table.items()})
    return merged, ESTIMATES_FILE


def estimate_minutes(bucket: str, minutes: dict[str, float]) -> float:
    """Minutes for one job of ``bucket`` ('single_node/1k1k', 'agentic_evals', ...)."""
    short = bucket.split("/", 1)[1] if "/" in bucket else bucket
    for key in (bucket, short, "default"):
        if key in minutes:
            return float(minutes[key])
    return float(DEFAULT_MINUTES["default"])


def row_cost(bucket: str, row: dict, minutes: dict[str, float]) -> tuple[float, bool]:
    """(GPU-hours, estimated?) of one matrix row."""
    from sweepgate.core.expand import is_agentic_row

    gpus = row_gpus(row)
    is_eval = bucket in EVAL_BUCKETS
    if is_agentic_row(row) and not is_eval:
        duration = row.get(F.DURATION, F.DEFAULT_AGENTIC_DURATION_S)
        return float(duration) * gpus / 3600.0, False
    return estimate_minutes(bucket, minutes) * gpus / 60.0, True


def cost(matrix: dict, minutes: dict[str, float]) -> dict:
    from sweepgate.core.select import iter_rows

    def blank() -> dict:
        return {"jobs": 0, "gpu_hours": 0.0, "gpu_hours_estimated": 0.0, "estimated": False,
                "eval_jobs": 0, "eval_gpu_hours": 0.0}

    total, by_runner, by_bucket = blank(), {}, {}
    for bucket, row in iter_rows(matrix):
        hours, estimated = row_cost(bucket, row, minutes)
        runner = str(row.get(F.RUNNER, "?"))
        for agg in (total, by_runner.setdefault(runner, blank()), by_bucket.setdefault(bucket, blank())):
            if bucket in EVAL_BUCKETS:
                agg["eval_jobs"] += 1
                agg["eval_gpu_hours"] += hours
            else:
                agg["jobs"] += 1
                agg["gpu_hours"] += hours
                if estimated:
                    agg["gpu_hours_estimated"] += hours
                    agg["estimated"] = True  # eval GPU-hours are always estimated and kept apart
    for agg in [total, *by_runner.values(), *by_bucket.values()]:
        for k in ("gpu_hours", "gpu_hours_estimated", "eval_gpu_hours"):
            agg[k] = round(agg[k], 3)
    return {"total": total, "by_runner": dict(sorted(by_runner.items())), "by_bucket": by_bucket}


# --------------------------------------------------------------------------- the plan

def empty_matrix(base: str, head: str) -> dict:
    return {"single_node": {}, "multi_node": {}, "evals": [], "agentic_evals": [], "multinode_evals": [],
            "multinode_agentic_evals": [],
            "changelog_metadata": {"base_ref": base, "head_ref": head, "entries": []}}


def matrix_or_empty(git, base: str, head: str, opts) -> dict:
    """build_matrix, with 'appends no entry' meaning an empty matrix; other problems propagate."""
    from sweepgate.core.select import build_matrix

    try:
        return build_matrix(git, base, head, opts)
    except SweepgateError as exc:
        if exc.diagnostics and all(d.rule == "no-entries" for d in exc.diagnostics):
            return empty_matrix(base, head)
        raise


def make_plan(git, base: str, head: str, opts=None) -> dict:
    """The plan object (CONTRACTS section 4, extended)."""
    from sweepgate.core.select import Options

    opts = opts or Options()
    base_sha, head_sha = git.resolve(base), git.resolve(head)
    matrix = matrix_or_empty(git, base, head, opts)

    base_set, notes = _load_recipes(git, base_sha, opts, is_base=True)
    head_set, _ = _load_recipes(git, head_sha, opts, is_base=False, extra_paths=[ESTIMATES_FILE])
    minutes, source = load_estimates(head_set.blobs.get(ESTIMATES_FILE))

    diffs = diff_recipes(base_set, head_set)
    selected = _selection(git, base_sha, head_sha, opts, matrix, head_set.configs)
    changed = git.changed_files(base_sha, head_sha)
    warnings = notes + rule_diagnostics(base_set, head_set, diffs, selected, changed)
    warnings += fanout_diagnostics(matrix, opts.changelog)

    costs = cost(matrix, minutes)
    total = costs["total"]
    by_status: dict[str, list] = {"new": [], "changed": [], "removed": [], "unchanged": []}
    for d in diffs.values():
        by_status[d.status].append(d.as_dict() if d.status == "changed" else d.key)
    severity_order = {"error": 0, "warning": 1, "info": 2}
    warnings.sort(key=lambda d: (severity_order.get(d.severity, 3), d.rule, d.file, d.line))
    return {
        "base_ref": base,
        "head_ref": head,
        "jobs": total["jobs"],
        "gpu_hours": total["gpu_hours"],
        "gpu_hours_estimated": total["gpu_hours_estimated"],
        "estimated": total["estimated"],
        "eval_jobs": total["eval_jobs"],
        "eval_gpu_hours": total["eval_gpu_hours"],
        "total_jobs": total["jobs"] + total["eval_jobs"],
        "total_gpu_hours": round(total["gpu_hours"] + total["eval_gpu_hours"], 3),
        "by_runner": costs["by_runner"],
        "by_bucket": costs["by_bucket"],
        "warnings": [d.as_dict() for d in warnings],
        "diff": by_status,
        "selected": {k: sorted(v["scenarios"], key=F.SCENARIO_TYPES.index) for k, v in selected.items()},
        "estimates": {"source": source, "minutes_per_job": minutes},
        "matrix": matrix,
    }
