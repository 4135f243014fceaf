"""The plan: what a change will run, what it costs, and what it forgot.

From the matrix (``select.build_matrix``) and both revisions' recipes
(``core.recipes``) it computes

* the cost: jobs and GPU-hours per runner label (agentic rows from their duration,
  other rows from ``configs/estimates.yaml``, marked as estimated); a multi-node job
  holds whole nodes, so it costs ``placement.place``'s nodes x gpus-per-node;
* a semantic diff of the recipes: new, changed (naming the changed fields and
  scripts), removed, unchanged;
* the rules ``rerun-unchanged``, ``unlisted-change``, ``missing-script``,
  ``missing-library``, ``unused-script``, ``kv-backend-unknown`` and ``kv-backend-version``.

The plan object is CONTRACTS section 4 (extended); ``core.report`` renders it.
"""

from __future__ import annotations

import functools
import re

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError
from sweepgate.core.recipes import (SCRIPT_DIR, KeyDiff, RecipeSet, diff_recipes, library_copy, library_lines,
                                    load_recipes, missing_library, read_reached, scenarios_of, sourced_helpers)


ESTIMATES_FILE = "configs/estimates.yaml"
ESTIMATES_RULE = "estimates"  # the title of an estimates file that is not one
BUILT_IN_ESTIMATES = "built-in defaults"  # the estimates' source where the repository has no ESTIMATES_FILE


MAX_MINUTES_PER_JOB = 7200        # GitHub: a self-hosted runner's job stops after 5 days
RULE_RERUN = "rerun-unchanged"
RULE_UNLISTED = "unlisted-change"
RULE_MISSING_SCRIPT = "missing-script"
RULE_UNUSED_SCRIPT = "unused-script"
RULE_BACKEND_UNKNOWN = "kv-backend-unknown"
RULE_BACKEND_VERSION = "kv-backend-version"
RULE_LOWER_BOUND = "gpu-hours-lower-bound"  # a label's GPU-hours count the GPUs its jobs use, not the nodes they hold


def _selection(git, base_sha: str, head_sha: str, opts, matrix: dict, configs: dict):
    """key -> {scenarios selected, changelog (file, line) where an entry names it}."""
    from sweepgate.core.load import YamlDoc
    from sweepgate.core.select import appended_lines, parse_appended, resolve_keys

    entries = (matrix.get(F.CHANGELOG_METADATA) or {}).get(F.ENTRIES) or []
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


def _short(keys: list[str], limit: int = 8) -> str:
    shown = ", ".join(keys[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def _selected_rules(base: RecipeSet, head: RecipeSet, diffs: dict[str, KeyDiff], selected: dict[str, dict]) -> list[Diagnostic]:
    """Rerun-unchanged and missing-script, for the keys the changelog selects."""
    diags: list[Diagnostic] = []
    for key, sel in selected.items():
        config = head.configs.get(key)
        scenarios = [s for s in scenarios_of(config) if s in sel["scenarios"]]
        diff = diffs.get(key)
        file, line = sel["where"]
        if diff and diff.status == F.RECIPE_UNCHANGED and scenarios:
            scripts = sorted({p for s in scenarios for _, p, _ in head.script_ids(key, s) if p})
            what = "config" + (f", {', '.join(scripts)}" if scripts else "") + (
                f" and {F.BENCHMARK_LIB}" if head.runs_lib(key) and head.lib_sha else "")
            diags.append(Diagnostic(
                file, line, 0, RULE_RERUN,
                f"'{key}' ({', '.join(scenarios)}) is selected again but is identical to base ({what} unchanged); "
                "its rows rerun an unchanged recipe",
                "drop the entry if nothing changed, or say in its description why a rerun is needed",
                severity="info"))
        elif diff and diff.status == F.RECIPE_CHANGED:
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
                    diags.append(missing_script(owner.path if owner else file, owner.locate((key,))[0] if owner else 0,
                                                f"'{key}'", scenario, head.candidates.get(first, [first]),
                                                at="at head", severity="warning", no_lib=head.lib_sha is None))
    return diags


def missing_script(file: str, line: int, who: str, scenario: str, candidates: list[str], *, many: bool = False,
                   at: str = "", severity: str = "error", folders: list[str] = (), no_lib: bool = False,
                   root: str | None = None) -> Diagnostic:
    """The one wording of a recipe that resolves to no benchmark script (CONTRACTS section 7), for
    ``plan`` and ``preflight`` alike: ``who`` names the config key(s) or the row; ``folders``, the
    candidates that are there as folders (said as such, not as missing); ``no_lib``: the repository has no
    benchmark library either, so the fix says where it comes from (``library_copy(root)``)."""
    there = (f"is a file ({', '.join(folders)} {'is a folder' if len(folders) == 1 else 'are folders'})"
             if folders else "exists")
    add = "put the script in the folder's place" if folders else "add the script"
    return Diagnostic(file, line, 0, RULE_MISSING_SCRIPT,
                      f"{who} ({scenario}) resolve{'' if many else 's'} to no benchmark script: none of "
                      f"{', '.join(candidates)} {there}{f' {at}' if at else ''}",
                      f"{add} (CONTRACTS section 7) or fix model-prefix/precision/runner/framework"
                      + (f"; {library_copy(root)}" if no_lib else ""), severity=severity)


def _first_changed_line(base: RecipeSet, head: RecipeSet, key: str) -> int:
    """Head's line of the first line of ``key``'s block that differs from base; the key's line when
    the block has no base or its text cannot be compared line by line."""
    owner, old = head.owner.get(key), base.owner.get(key)
    line = owner.locate((key,))[0] if owner else 0
    if not (old and hasattr(owner, "block_text") and hasattr(old, "block_text")):
        return line
    new_lines, old_lines = owner.block_text(key).splitlines(), old.block_text(key).splitlines()
    return line + next((i for i, text in enumerate(new_lines) if i >= len(old_lines) or text != old_lines[i]), 0)


def _unlisted_configs(base: RecipeSet, head: RecipeSet, diffs: dict[str, KeyDiff],
                      selected: dict[str, dict]) -> list[Diagnostic]:
    """Unlisted-change for new or changed configs no appended entry selects, at the first changed line."""
    diags: list[Diagnostic] = []
    for key, diff in diffs.items():
        if diff.status == F.RECIPE_NEW:
            changed_scenarios = diff.scenarios
        elif diff.status == F.RECIPE_CHANGED and diff.fields:
            changed_scenarios = diff.field_scenarios
        else:
            continue  # script, library and runner changes are reported per file below
        covered = selected.get(key, {}).get("scenarios", set())
        missing = [s for s in changed_scenarios if s not in covered]
        if not missing:
            continue
        owner = head.owner.get(key)
        line = _first_changed_line(base, head, key) if diff.status == F.RECIPE_CHANGED else \
            (owner.locate((key,))[0] if owner else 0)
        if diff.status == F.RECIPE_NEW:
            what = f"new config '{key}'"
        else:
            what = f"config '{key}' changed ({_short(diff.fields, 5)})"
        partly = f" for {', '.join(missing)}" if key in selected else ""
        diags.append(Diagnostic(
            owner.path if owner else F.CONFIG_DIR, line, 0, RULE_UNLISTED,
            f"{what} but no appended {F.CHANGELOG_FILE} entry selects it{partly}",
            f"append an entry naming '{key}' to {F.CHANGELOG_FILE}, or revert the change",
            severity="warning"))
    return diags


def _new_keys(diffs: dict[str, KeyDiff]) -> list[str]:
    """The configs head adds: their jobs run head's scripts, launchers and runner facts, so a change to
    one of those is among theirs too (selecting one selects the change, as for benchmark_lib.sh)."""
    return [key for key, diff in diffs.items() if diff.status == F.RECIPE_NEW]


def _unlisted_scripts(head: RecipeSet, diffs: dict[str, KeyDiff], selected: dict[str, dict]) -> list[Diagnostic]:
    """Unlisted-change for changed scripts: recipe keys grouped by the script whose change touches them."""
    diags: list[Diagnostic] = []
    users: dict[str, list[tuple[str, str]]] = {}
    for key, diff in diffs.items():
        for script in diff.scripts:
            users.setdefault(script["path"], []).extend((key, s) for s in script["scenarios"])
    for key in _new_keys(diffs):  # a new config's jobs run the changed script too
        for s in diffs[key].scenarios:
            users.update({p: users[p] + [(key, s)] for _, p, _ in head.script_ids(key, s) if p in users})
    for path, pairs in sorted(users.items()):
        keys = sorted({k for k, _ in pairs})
        if any(s in selected.get(k, {}).get("scenarios", ()) for k, s in pairs):
            continue
        exists = head.blobs.get(path) is not None
        diags.append(Diagnostic(
            path, 1 if exists else 0, 0, RULE_UNLISTED,
            f"benchmark script {path}{' or a file it sources' if sourced_helpers(path, head.blobs) else ''} "
            f"changed; config keys resolving to it: {_short(keys)}; "
            "no appended entry selects any of them",
            f"append an entry naming one of them (e.g. '{keys[0]}') to {F.CHANGELOG_FILE}, or revert the script",
            severity="warning"))
    return diags


def _unlisted_lib(base: RecipeSet, head: RecipeSet, selected: dict[str, dict]) -> list[Diagnostic]:
    """Unlisted-change for benchmark_lib.sh and its parts, for the keys whose jobs run it
    (``RecipeSet.runs_lib``: a single-node script sources it, a multi-node one through its helpers)."""
    diags: list[Diagnostic] = []
    if base.lib_sha != head.lib_sha:
        lib_keys = sorted(k for k in head.configs if head.runs_lib(k))
        if lib_keys and not any(k in selected for k in lib_keys):
            diags.append(Diagnostic(
                F.BENCHMARK_LIB, 1 if head.lib_sha else 0, 0, RULE_UNLISTED,
                f"{F.BENCHMARK_LIB} or a part it sources changed; the jobs of {len(lib_keys)} config keys "
                f"run it ({_short(lib_keys)}); no appended entry selects any of them",
                f"append an entry naming at least one affected config key to {F.CHANGELOG_FILE}",
                severity="warning"))
    return diags


def _missing_lib(head: RecipeSet, selected: dict[str, dict]) -> list[Diagnostic]:
    """Missing-library: the head has no benchmark_lib.sh, and scripts the selected keys' jobs run
    source it (said once, as ``preflight`` and ``rehearse`` say it)."""
    if head.blobs.get(F.BENCHMARK_LIB) is not None:
        return []
    scripts = sorted({p for key, sel in selected.items() for s in sel["scenarios"]
                      for _, p, _ in head.script_ids(key, s) if p})
    places = library_lines(scripts, head.blobs)
    return [missing_library(places, where="the head revision", severity="warning")] if places else []


def _unlisted_runners(head: RecipeSet, diffs: dict[str, KeyDiff], selected: dict[str, dict]) -> list[Diagnostic]:
    """Unlisted-change for a runner label's hardware facts (configs/runners.yaml) that reach the rows
    or the jobs' environment (rdma-devices, accelerator-runtime, DRAM, node shape); not the pool's size."""
    by_label: dict[str, list[str]] = {}
    for key, diff in diffs.items():
        runner = (head.configs.get(key) or {}).get(F.RUNNER) if isinstance(head.configs.get(key), dict) else None
        if diff.runner and isinstance(runner, str):  # runner_facts leave the pool's size out
            by_label.setdefault(runner, []).append(key)
    for key in _new_keys(diffs):  # a new config on a changed label runs on its new facts
        runner = head.configs[key].get(F.RUNNER) if isinstance(head.configs.get(key), dict) else None
        if isinstance(runner, str) and runner in by_label:
            by_label[runner].append(key)
    return [Diagnostic(
        *head.runners_place((F.HARDWARE, label)), RULE_UNLISTED,
        f"hardware facts of runner '{label}' changed; config keys running on it: {_short(sorted(keys))}; "
        "no appended entry selects any of them",
        f"append an entry naming one of them (e.g. '{sorted(keys)[0]}') to {F.CHANGELOG_FILE}, or revert the change",
        severity="warning") for label, keys in sorted(by_label.items()) if not any(k in selected for k in keys)]


def _unlisted_support(head: RecipeSet, diffs: dict[str, KeyDiff], selected: dict[str, dict]) -> list[Diagnostic]:
    """Unlisted-change for the launchers, multi-node helpers and any other file a job runs besides its script, the
    helpers that sources and the library (``KeyDiff.support``: what the run identity hashes, such as a helper a
    launcher sources or one reached through `"$GITHUB_WORKSPACE/..."`): recipe keys grouped by the changed file."""
    users: dict[str, list[str]] = {}
    for key, diff in diffs.items():
        for path in diff.support:
            users.setdefault(path, []).append(key)
    for key in _new_keys(diffs):  # a new config's jobs run the changed file too
        users.update({p: users[p] + [key] for p in head.support.get(key, ()) if p in users})
    diags: list[Diagnostic] = []
    for path, keys in sorted(users.items()):
        if any(k in selected for k in keys):
            continue
        keys = sorted(keys)
        diags.append(Diagnostic(
            path, 0, 0, RULE_UNLISTED,
            f"{path} changed; the jobs of {len(keys)} config key(s) run it ({_short(keys)}); "
            "no appended entry selects any of them",
            f"append an entry naming one of them (e.g. '{keys[0]}') to {F.CHANGELOG_FILE}, or revert the change",
            severity="warning"))
    return diags


def _unused_scripts(base: RecipeSet, head: RecipeSet, changed_files: list[str]) -> list[Diagnostic]:
    """Changed scripts that no recipe resolves to and no recipe's job runs (``RecipeSet.support``: a helper reached
    through `"$GITHUB_WORKSPACE/..."` is its jobs' change)."""
    diags: list[Diagnostic] = []
    resolved = {p for per in list(head.scripts.values()) + list(base.scripts.values())
                for pairs in per.values() for _, p in pairs if p} | head.helpers() | base.helpers()
    resolved |= {p for recipes in (base, head) for files in recipes.support.values() for p in files}
    for path in changed_files:
        if path.startswith(SCRIPT_DIR + "/") and path.endswith(".sh") and path not in resolved:
            diags.append(Diagnostic(
                path, 0, 0, RULE_UNUSED_SCRIPT,
                f"benchmark script {path} changed but no config key resolves to it",
                "check its name against CONTRACTS section 7 "
                "(<model-prefix>_<precision>_<gpu>[_<framework>][_mtp].sh)", severity="info"))
    return diags


def _backend_problem(backend: dict) -> tuple[str, str, str] | None:
    """(rule, message, hint) when benchmark_lib cannot set up ``backend`` as written."""
    name = backend.get("name")
    known = ", ".join(F.KV_OFFLOAD_BACKENDS)
    if name not in F.KV_OFFLOAD_BACKENDS:
        return (RULE_BACKEND_UNKNOWN, f"{F.KV_OFFLOAD_BACKEND} '{name}' has no arm in sweepgate's {F.BENCHMARK_LIB} "
                f"(known: {known})", f"use one of {known}, or make sure the script sets up '{name}' itself")
    if F.KV_OFFLOAD_BACKENDS[name] and not backend.get("version"):
        return (RULE_BACKEND_VERSION, f"{F.KV_OFFLOAD_BACKEND} '{name}' has no version; its arm installs "
                f"{name} at that version and stops without one",
                f"write '{F.KV_OFFLOAD_BACKEND}: {{ name: {name}, version: \"X.Y.Z\" }}'")
    return None


def _backend_rules(head: RecipeSet, selected: dict[str, dict]) -> list[Diagnostic]:
    """kv-backend-unknown and kv-backend-version, at the point of each selected recipe that has them.

    Warnings, not refusals: the reference's own history runs backends its scripts
    set up themselves (and versionless ones), and the matrix must still match it.
    """
    from sweepgate.core.load import at_value

    diags: list[Diagnostic] = []
    for key, sel in selected.items():
        owner = head.owner.get(key)
        if owner is None:
            continue
        for path, backend in backend_points(head.configs.get(key), sorted(sel["scenarios"])):
            problem = _backend_problem(backend)
            if problem:  # an unknown name at the name, a missing version at the backend's name too
                at = (key, *path, "name")
                line, col = owner.locate(at_value(at) if problem[0] == RULE_BACKEND_UNKNOWN else at)
                diags.append(Diagnostic(owner.path, line, col, problem[0], f"'{key}': {problem[1]}",
                                        problem[2], severity="warning"))
    return diags


def backend_points(config, scenarios=None):
    """(path in the config, backend) of each search-space point of ``config`` (of ``scenarios``, else of
    every scenario) that names a KV-offload backend: the path ends at its ``kv-offload-backend``."""
    all_scenarios = config.get(F.SCENARIOS) if isinstance(config, dict) else None
    if not isinstance(all_scenarios, dict):
        return
    for scenario in all_scenarios if scenarios is None else scenarios:
        for b, block in enumerate(all_scenarios.get(scenario) or []):
            for p, point in enumerate((block or {}).get(F.SEARCH_SPACE) or []):
                backend = point.get(F.KV_OFFLOAD_BACKEND) if isinstance(point, dict) else None
                if isinstance(backend, dict):
                    yield (F.SCENARIOS, scenario, b, F.SEARCH_SPACE, p, F.KV_OFFLOAD_BACKEND), backend


def unknown_runners(base: RecipeSet, matrix: dict, head: RecipeSet | None = None) -> list[Diagnostic]:
    """Matrix rows on a runner label the base's configs/runners.yaml does not list: `ci split
    --runners` (main's file) will refuse the whole sweep for them, so the plan says so first, at
    the `runner:` line of the first head config that names the label (with the listed labels close to it,
    else those the file lists, so a fix is named either way);
    with no such config, at the base runners file's `labels:` line, where the fix adds it."""
    from sweepgate.core.load import at_value
    from sweepgate.core.placement import runner_labels
    from sweepgate.core.select import iter_rows

    labels = runner_labels(base.runners)
    out = []
    for label in sorted({str(row.get(F.RUNNER)) for _, row in iter_rows(matrix)} - labels if labels else ()):
        path, line, col = base.runners_place((F.LABELS, label))
        users = [k for k, c in (head.configs.items() if head else ()) if isinstance(c, dict) and c.get(F.RUNNER) == label]
        if users and head.owner.get(users[0]):
            owner = head.owner[users[0]]
            path, (line, col) = owner.path, owner.locate(at_value((users[0], F.RUNNER)))
        out.append(unknown_runner(label, labels, (path, line, col), whose="the base's "))
    return out


def unknown_runner(label: str, labels, where: tuple[str, int, int], *, whose: str = "") -> Diagnostic:
    """The one wording of a runner label that configs/runners.yaml does not list, for `plan` (``whose``: "the
    base's ", the file `ci split --runners` reads on main), `preflight` and `rehearse` alike: a warning at
    ``where`` (the config's `runner:` line), its fix naming the listed labels close to it, else those the
    file lists, so that a fix is named either way. A listed label that holds ``label`` as a whole run of its
    parts (``_holds``) comes first (`gb300-nv`: `cluster:gb300-nv`, not the closer-spelt `gb300`); each label
    is named once."""
    import difflib

    labels = sorted(labels)
    close = [known for known in labels if _holds(known, label)]
    close = (close + [c for c in difflib.get_close_matches(label, labels, n=3) if c not in close])[:3]
    also = f" (or {', '.join(close[1:])})" if close[1:] else ""
    use = (f"did you mean '{close[0]}'{also}? Use a listed label" if close
           else f"use a listed label ({_short(labels)})")  # none close: the labels there are
    return Diagnostic(
        *where, F.UNKNOWN_RUNNER_RULE,
        f"runner label '{label}' is not in {whose}{F.RUNNERS_FILE}: `ci split --runners` will refuse the sweep",
        f"{use}, or add the runner to {F.RUNNERS_FILE} on main first (a PR cannot add GPU runners)",
        severity="warning")


_LABEL_PARTS = re.compile(r"[-:]")  # a runner label's parts: `cluster:gb300-nv` is cluster, gb300, nv
_HELD_WHOLE = 3  # the fewest characters a given label must have to be offered a listed one holding it


def _holds(known: str, label: str) -> bool:
    """Whether listed label ``known`` holds ``label`` as a whole run of its dash/colon-separated parts, of
    ``_HELD_WHOLE`` characters or more (`gb300-nv` in `cluster:gb300-nv`; not `x` in `cluster:mi355x-amds`)."""
    if len(label) < _HELD_WHOLE:
        return False
    mine, theirs = _LABEL_PARTS.split(label), _LABEL_PARTS.split(known)
    return any(theirs[i:i + len(mine)] == mine for i in range(len(theirs) - len(mine) + 1))


def unplaced_runners(base: RecipeSet, matrix: dict, head: RecipeSet) -> list[Diagnostic]:
    """Multi-node rows on a runner with no hardware facts in the base's configs/runners.yaml: `ci
    row-env` cannot work out their node count, so their jobs get no SWEEPGATE_NODES and the launcher
    refuses them after the sweep has started. One warning per runner label, at its entry in the head's
    runners file (where an annotation lands); the file at no line when the head has none (the base's
    line would mark another line of the head's file)."""
    from sweepgate.core.expand import is_multinode_row
    from sweepgate.core.placement import hardware_of, runner_labels

    bare = sorted({str(row.get(F.RUNNER)) for row in _on_listed_labels(base, matrix)
                   if is_multinode_row(row) and hardware_of(base.runners or {}, str(row.get(F.RUNNER))) is None})
    head_labels = runner_labels(head.runners)

    def place(label: str) -> tuple[str, int, int]:
        return head.runners_place((F.LABELS, label)) if label in head_labels else (F.RUNNERS_FILE, 0, 0)

    return [Diagnostic(*place(label), "no-hardware-facts",
                       f"multi-node rows run on '{label}', which has no {F.HARDWARE} entry in {F.RUNNERS_FILE}: "
                       "their jobs get no SWEEPGATE_NODES and the launcher will refuse them",
                       F.add_hardware(label, [F.GPUS_PER_NODE, F.AVAILABLE_CPU_DRAM_MIB], on_main=True),
                       severity="warning")
            for label in bare]


def _on_listed_labels(base: RecipeSet, matrix: dict):
    """The matrix's rows whose runner label the base's configs/runners.yaml lists (every row where it lists
    none): a label missing from them has its own warning (``unknown_runners``), whose fix comes first."""
    from sweepgate.core.placement import runner_labels
    from sweepgate.core.select import iter_rows

    listed = runner_labels(base.runners)
    return [row for _, row in iter_rows(matrix) if not listed or str(row.get(F.RUNNER)) in listed]


def runtimeless_runners(base: RecipeSet, matrix: dict, head: RecipeSet) -> list[Diagnostic]:
    """Rows whose KV-offload arm installs its backend (``F.runtime_backend``) on a runner label that states
    no accelerator-runtime in the head's configs/runners.yaml, the approved commit's file `ci row-env`
    exports the facts from: it refuses those jobs (the arm could not pick the backend's build). One warning
    per label, at its hardware entry in that file (its labels entry without one; the file at no line when
    it lists neither). A label the base does not list has its own warning (``unknown_runners``), whose fix
    comes first: none here. The rows are those `ci row-env` refuses (``jobenv.lacks_runtime``)."""
    from sweepgate.core.jobenv import hardware_env, lacks_runtime

    runners = head.runners if isinstance(head.runners, dict) else {}
    bare: dict[str, set[str]] = {}
    for row in _on_listed_labels(base, matrix):
        if backend := lacks_runtime(row, hardware_env(row, runners)):
            bare.setdefault(str(row.get(F.RUNNER)), set()).add(backend)

    def place(label: str) -> tuple[str, int, int]:
        entry = F.runner_entry(runners, label)
        return head.runners_place(entry) if entry else (F.RUNNERS_FILE, 0, 0)

    return [Diagnostic(*place(label), F.NO_RUNTIME_RULE,
                       f"'{label}' runs rows whose KV-offload arm installs {' and '.join(sorted(backends))}, "
                       f"but its {F.HARDWARE} entry in {F.RUNNERS_FILE} states no {F.ACCELERATOR_RUNTIME}, "
                       "by which the arm picks the build: `ci row-env` will refuse those jobs",
                       F.add_hardware(label, [F.RUNTIME_FACT]) + " in this change "
                       "(the jobs read the approved commit's file, not main's)", severity="warning")
            for label, backends in sorted(bare.items())]


def uncounted_runners(base: RecipeSet, matrix: dict, costs: dict, head: RecipeSet) -> list[Diagnostic]:
    """The labels whose GPU-hours ``cost`` marks as a lower bound (their jobs counted by the GPUs they use:
    the head's configs/runners.yaml, which the plan reads, states no gpus-per-node for them), one finding
    each at the label's entry there (its hardware entry, else its labels entry; the file at no line when it
    lists neither), saying what to add. A label the base does not list (``unknown_runners``) or whose
    multi-node rows have no hardware entry (``unplaced_runners``) has its own warning, whose fix comes first.
    A note, not a warning: the jobs run all the same, only the plan's figure is short."""
    from sweepgate.core.expand import is_multinode_row
    from sweepgate.core.placement import hardware_of, runner_labels
    from sweepgate.core.select import iter_rows

    listed = runner_labels(base.runners)
    multi_node = {str(row.get(F.RUNNER)) for _, row in iter_rows(matrix) if is_multinode_row(row)}
    runners = head.runners if isinstance(head.runners, dict) else {}
    out = []
    for label, agg in costs[F.BY_RUNNER].items():
        if not (agg[F.LOWER_BOUND] or agg[F.EVAL_LOWER_BOUND]) or (listed and label not in listed):
            continue
        if label in multi_node and hardware_of(base.runners or {}, label) is None:
            continue  # no-hardware-facts says it, with the fix that also mends this figure
        entry = F.runner_entry(runners, label)
        out.append(Diagnostic(
            *(head.runners_place(entry) if entry else (F.RUNNERS_FILE, 0, 0)), RULE_LOWER_BOUND,
            f"'{label}' states no {F.GPUS_PER_NODE} in {F.RUNNERS_FILE}: the plan counts its jobs by the GPUs they "
            "use (tp × pp × pcp-size a worker), not the whole nodes they hold, so its GPU-hours are a lower bound (≥)",
            F.add_hardware(label, [F.GPUS_PER_NODE]), severity="info"))
    return out


def rule_diagnostics(base: RecipeSet, head: RecipeSet, diffs: dict[str, KeyDiff], selected: dict[str, dict],
                     changed_files: list[str]) -> list[Diagnostic]:
    """The plan's rules, in report order."""
    return (_selected_rules(base, head, diffs, selected) + _unlisted_configs(base, head, diffs, selected)
            + _unlisted_scripts(head, diffs, selected) + _unlisted_lib(base, head, selected)
            + _missing_lib(head, selected)
            + _unlisted_runners(head, diffs, selected) + _unlisted_support(head, diffs, selected)
            + _unused_scripts(base, head, changed_files) + _backend_rules(head, selected))


def job_gpus(row: dict, runners: dict | None = None) -> int:
    """GPUs a job holds while it runs: whole nodes, as the launchers allocate them (salloc --exclusive):
    a multi-node job ``placement.place`` nodes x gpus-per-node of its runner, a single-node job one
    node (a tp4 job on an 8-GPU node leaves the other four idle); without the runner's facts, ``fields.row_gpus``."""
    from sweepgate.core.expand import is_multinode_row
    from sweepgate.core.placement import PlacementError, place_row, places_nodes, row_facts

    facts = row_facts(row, runners)
    if is_multinode_row(row) and places_nodes(row, runners):
        try:
            placed = place_row(row, runners)
        except PlacementError:  # the check refuses such rows; cost them by their workers
            return F.row_gpus(row)
        return placed.nodes * placed.gpus_per_node
    per_node = facts.get(F.GPUS_PER_NODE)
    if isinstance(per_node, int) and not isinstance(per_node, bool) and per_node > 0 and not is_multinode_row(row):
        return max(per_node, F.row_gpus(row))
    return F.row_gpus(row)


def _estimates_table(raw: bytes) -> dict[str, float]:
    """The minutes-per-job mapping of an estimates file, checked; its problems at their lines."""
    from sweepgate.core.load import at_value, load_doc

    doc = load_doc(ESTIMATES_FILE, raw)
    data = doc.data
    table = data.get("minutes-per-job") if isinstance(data, dict) else None
    if not isinstance(table, dict):  # at the value that is no mapping (the key when it has none), else at the top
        named = isinstance(data, dict) and "minutes-per-job" in data
        raise SweepgateError(doc.diag(at_value(("minutes-per-job",)) if named else (), ESTIMATES_RULE,
                                      f"{ESTIMATES_FILE} needs a 'minutes-per-job' mapping",
                                      "write 'minutes-per-job: {default: 30, 1k1k: 20, ...}'"))
    problems = [doc.diag(at_value(("minutes-per-job", k)), ESTIMATES_RULE,
                         f"minutes-per-job.{k} must be a number of minutes above 0 and at most "
                         f"{MAX_MINUTES_PER_JOB} (a GitHub job's limit), not {v!r}", "use e.g. 30")
                for k, v in table.items()
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= MAX_MINUTES_PER_JOB]
    extra = [k for k in data if k != "minutes-per-job"]
    problems += [doc.diag((k,), ESTIMATES_RULE, f"unknown field '{k}'", "remove it") for k in extra]
    if problems:
        raise SweepgateError(problems)
    return {str(k): float(v) for k, v in table.items()}


@functools.lru_cache(maxsize=None)
def _default_table() -> tuple[tuple[str, float], ...]:
    from sweepgate.core.fleet import fleet_bytes

    return tuple(_estimates_table(fleet_bytes(ESTIMATES_FILE)).items())


def default_minutes() -> dict[str, float]:
    """The built-in estimates (minutes per job): the example fleet's configs/estimates.yaml, which the
    package ships; the one place they are written. A repository without the file is charged these."""
    return dict(_default_table())


def load_estimates(raw: bytes | None) -> tuple[dict[str, float], str]:
    """minutes-per-job table from configs/estimates.yaml (head) over the built-in defaults, or the defaults.
    A key the file lists replaces the default's; a bucket it lists ('8k1k') also the defaults' entries for
    that bucket on one kind of node ('multi_node/8k1k'), which would otherwise shadow it."""
    if raw is None:
        return default_minutes(), BUILT_IN_ESTIMATES
    table = _estimates_table(raw)
    merged = {k: v for k, v in default_minutes().items() if k.split("/", 1)[-1] not in table}
    merged.update(table)
    return merged, ESTIMATES_FILE


def estimate_minutes(bucket: str, minutes: dict[str, float]) -> float:
    """Minutes for one job of ``bucket`` ('single_node/1k1k', 'agentic_evals', ...)."""
    short = bucket.split("/", 1)[1] if "/" in bucket else bucket
    for key in (bucket, short, "default"):
        if key in minutes:
            return float(minutes[key])
    return default_minutes()["default"]


def counts_workers_only(row: dict, runners: dict | None = None) -> bool:
    """Whether ``job_gpus`` counts a row by the GPUs its workers use (``fields.row_gpus``: a single-node row's
    tp x pp x pcp-size) because its runner states no gpus-per-node: the job holds whole nodes, so its
    GPU-hours are a lower bound."""
    from sweepgate.core.placement import places_nodes

    return not places_nodes(row, runners)


def row_cost(bucket: str, row: dict, minutes: dict[str, float], runners: dict | None = None) -> tuple[float, bool]:
    """(GPU-hours, estimated?) of one matrix row; ``runners`` (configs/runners.yaml) places multi-node rows."""
    from sweepgate.core.expand import is_agentic_row

    gpus = job_gpus(row, runners)
    is_eval = bucket in F.EVAL_BUCKETS
    if is_agentic_row(row) and not is_eval:
        duration = row.get(F.DURATION, F.DEFAULT_AGENTIC_DURATION_S)
        return float(duration) * gpus / 3600.0, False
    return estimate_minutes(bucket, minutes) * gpus / 60.0, True


def cost(matrix: dict, minutes: dict[str, float], runners: dict | None = None) -> dict:
    from sweepgate.core.select import iter_rows

    def blank() -> dict:
        return {F.JOBS: 0, F.GPU_HOURS: 0.0, F.GPU_HOURS_ESTIMATED: 0.0, F.ESTIMATED: False,
                F.EVAL_JOBS: 0, F.EVAL_GPU_HOURS: 0.0, F.LOWER_BOUND: False, F.EVAL_LOWER_BOUND: False}

    total, by_runner, by_bucket = blank(), {}, {}
    for bucket, row in iter_rows(matrix):
        hours, estimated = row_cost(bucket, row, minutes, runners)
        low = counts_workers_only(row, runners)
        runner = str(row.get(F.RUNNER, "?"))
        for agg in (total, by_runner.setdefault(runner, blank()), by_bucket.setdefault(bucket, blank())):
            if bucket in F.EVAL_BUCKETS:
                agg[F.EVAL_JOBS] += 1
                agg[F.EVAL_GPU_HOURS] += hours
                agg[F.EVAL_LOWER_BOUND] |= low
            else:
                agg[F.JOBS] += 1
                agg[F.GPU_HOURS] += hours
                agg[F.LOWER_BOUND] |= low
                if estimated:
                    agg[F.GPU_HOURS_ESTIMATED] += hours
                    agg[F.ESTIMATED] = True  # eval GPU-hours are always estimated and kept apart
    for agg in [total, *by_runner.values(), *by_bucket.values()]:
        for k in (F.GPU_HOURS, F.GPU_HOURS_ESTIMATED, F.EVAL_GPU_HOURS):
            agg[k] = round(agg[k], 3)
    return {"total": total, F.BY_RUNNER: dict(sorted(by_runner.items())), F.BY_BUCKET: by_bucket}


def empty_matrix(base: str, head: str) -> dict:
    from sweepgate.core.expand import empty_buckets

    return {**empty_buckets(), F.CHANGELOG_METADATA: {F.BASE_REF: base, F.HEAD_REF: head, F.ENTRIES: []}}


def matrix_or_empty(git, base: str, head: str, opts) -> dict:
    """build_matrix, with 'appends no entry' meaning an empty matrix; other problems propagate."""
    from sweepgate.core.select import build_matrix

    try:
        return build_matrix(git, base, head, opts)
    except SweepgateError as exc:
        if exc.diagnostics and all(d.rule == "no-entries" for d in exc.diagnostics):
            return empty_matrix(base, head)
        raise


SEVERITY_ORDER = ("error", "warning", "info")  # how the plan lists its warnings


def severity_rank(severity: str) -> int:
    return SEVERITY_ORDER.index(severity) if severity in SEVERITY_ORDER else len(SEVERITY_ORDER)


def _revision_reader(git, ref: str):
    """``paths -> blobs`` of revision ``ref`` as the run identity reads them (``identity.read_git``), a submodule's path
    as the commit it records; its submodules are listed at the first read."""
    from sweepgate.core.identity import read_git

    reader = read_git(git, ref)

    def read(paths: list[str]) -> dict:
        reader.gitlinks()  # a Reader reads a submodule's path as its commit once its submodules were asked
        return reader(paths)
    return read


def make_plan(git, base: str, head: str, opts=None) -> dict:
    """The plan object (CONTRACTS section 4, extended)."""
    from sweepgate.core.identity import recipe_files
    from sweepgate.core.select import Options

    opts = opts or Options()
    base_sha, head_sha = git.resolve(base), git.resolve(head)
    matrix = matrix_or_empty(git, base, head, opts)

    base_set, notes = load_recipes(git, base_sha, opts, is_base=True, job_files=recipe_files)
    head_set, _ = load_recipes(git, head_sha, opts, is_base=False, extra_paths=[ESTIMATES_FILE],
                               job_files=recipe_files)
    minutes, source = load_estimates(head_set.blobs.get(ESTIMATES_FILE))

    read_reached(base_set, head_set, _revision_reader(git, base_sha), _revision_reader(git, head_sha))
    diffs = diff_recipes(base_set, head_set)
    selected = _selection(git, base_sha, head_sha, opts, matrix, head_set.configs)
    changed = git.changed_files(base_sha, head_sha)
    warnings = (notes + rule_diagnostics(base_set, head_set, diffs, selected, changed)
                + unknown_runners(base_set, matrix, head_set) + unplaced_runners(base_set, matrix, head_set)
                + runtimeless_runners(base_set, matrix, head_set))

    costs = cost(matrix, minutes, head_set.runners if isinstance(head_set.runners, dict) else None)
    warnings += uncounted_runners(base_set, matrix, costs, head_set)
    total = costs["total"]
    by_status: dict[str, list] = {status: [] for status in F.RECIPE_STATUSES}
    for d in diffs.values():
        by_status[d.status].append(d.as_dict() if d.status == F.RECIPE_CHANGED else d.key)
    warnings.sort(key=lambda d: (severity_rank(d.severity), d.rule, d.file, d.line))
    return {
        F.BASE_REF: base,
        F.HEAD_REF: head,
        F.JOBS: total[F.JOBS],
        F.GPU_HOURS: total[F.GPU_HOURS],
        F.GPU_HOURS_ESTIMATED: total[F.GPU_HOURS_ESTIMATED],
        F.ESTIMATED: total[F.ESTIMATED],
        F.EVAL_JOBS: total[F.EVAL_JOBS],
        F.EVAL_GPU_HOURS: total[F.EVAL_GPU_HOURS],
        F.TOTAL_JOBS: total[F.JOBS] + total[F.EVAL_JOBS],
        F.TOTAL_GPU_HOURS: round(total[F.GPU_HOURS] + total[F.EVAL_GPU_HOURS], 3),
        F.LOWER_BOUND: total[F.LOWER_BOUND],
        F.EVAL_LOWER_BOUND: total[F.EVAL_LOWER_BOUND],
        F.BY_RUNNER: costs[F.BY_RUNNER],
        F.BY_BUCKET: costs[F.BY_BUCKET],
        "warnings": [d.as_dict() for d in warnings],
        "diff": by_status,
        "selected": {k: sorted(v["scenarios"], key=F.SCENARIO_TYPES.index) for k, v in selected.items()},
        F.ESTIMATES: {F.ESTIMATES_SOURCE: source, F.MINUTES_PER_JOB: minutes},
        "matrix": matrix,
    }
