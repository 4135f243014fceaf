"""`sweepgate preflight`: rehearse each selected row fast and check every command it ran
against the flag manifests of the row's image and installed versions.

Rows: the matrix of --base-ref/--head-ref (as `sweepgate matrix`), or the working
tree's configs (all, or --config-keys) with the eval rows a sweep of them runs (the
matrix's default eval selection). Without --every-conc one row per recipe is
rehearsed (its lowest concurrency), and one eval row per recipe that has one: the
flags do not depend on concurrency.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from sweepgate.core import fields as F
from sweepgate.commands import argtypes
from sweepgate.core.report import count


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-ref", type=argtypes.not_empty,
                        help="with --head-ref: check the rows this change's matrix runs")
    parser.add_argument("--head-ref", type=argtypes.not_empty, help="revision with the appended changelog entries")
    parser.add_argument("--changelog-file", type=argtypes.not_empty, default=None,
                        help="with --base-ref/--head-ref: the changelog whose entries pick the rows "
                             f"(default {F.CHANGELOG_FILE})")
    parser.add_argument("--config-keys", type=argtypes.not_empty, nargs="+", metavar="KEY",
                        help="only rows of these config keys (working tree)")
    parser.add_argument("--every-conc", action="store_true",
                        help="rehearse every concurrency (default: each recipe's lowest)")
    from sweepgate.commands.argtypes import int_between

    parser.add_argument("--timeout", type=int_between(1), default=120, metavar="SECONDS",
                        help="stop a row's script after this long (default %(default)s)")
    parser.add_argument("--fail-on-warning", action="store_true",
                        help="exit 3 when an image or version has no manifest")
    parser.add_argument("--all-rows", action="store_true",
                        help="a line for every row, and every row a problem turned up in (default: a line for each "
                             "config key, and a problem's rows as their count and spread)")


def one_per_recipe(rows: list[dict]) -> list[dict]:
    """The lowest-concurrency row of each recipe (same fingerprint, runner and lengths; a row without
    a fingerprint, such as a multi-node eval row, is its own recipe but for its concurrency)."""
    from sweepgate.core.expand import curve_key

    best: dict[tuple, dict] = {}
    for row in rows:
        recipe = row.get(F.RECIPE_FINGERPRINT) or curve_key(row, frozenset({F.CONC}))
        key = (recipe, row.get(F.RUNNER), row.get(F.ISL), row.get(F.OSL))
        if key not in best or F.lowest_conc(row) < F.lowest_conc(best[key]):
            best[key] = row
    return list(best.values())


def argument_problems(args) -> list[str]:
    """Flags that cannot go together: argument syntax (exit 2), said together before the repository is looked for
    (cli.argument_problems)."""
    problems = []
    if bool(args.base_ref) != bool(args.head_ref):
        given, missing = ("--base-ref", "--head-ref") if args.base_ref else ("--head-ref", "--base-ref")
        problems.append(argtypes.combination(given, f"needs {missing} (a change is the two together)",
                                             f"pass {missing} too, or leave {given} out to check the working tree"))
    if args.base_ref and args.config_keys:
        problems.append(argtypes.combination("--config-keys", "not allowed with argument --base-ref (it selects "
                                             "from the working tree)", "leave --config-keys out with --base-ref"))
    if args.changelog_file and not args.base_ref:
        problems.append(argtypes.combination("--changelog-file", "needs --base-ref and --head-ref (it picks rows by "
                                             "the entries a change appends)",
                                             "give --base-ref and --head-ref, or leave it out"))
    return problems


def select_rows(args, root: Path) -> tuple[list[dict], Callable]:
    """The rows to rehearse, and what reads the revision they come from (their configs' places); refused in one
    line where the repository has no benchmarks/ folder to rehearse them from (``recipes.no_benchmarks``)."""
    if args.base_ref:
        from sweepgate.core.errors import SweepgateError
        from sweepgate.core.load import open_repo
        from sweepgate.core.select import Options, build_matrix, checked_revision

        from sweepgate.core.sweep import matrix_rows

        git, opts = open_repo(), Options(changelog=args.changelog_file or F.CHANGELOG_FILE)
        argtypes.resolve_refs(git, args)
        refuse_other_scripts(git, args.head_ref)  # before the matrix: the refusal needs only the head
        try:
            rows = matrix_rows(build_matrix(git, args.base_ref, args.head_ref, opts))
        except SweepgateError as exc:
            raise check_anyway(exc, git, args, opts) from None
        revision = functools.partial(checked_revision, git, args.head_ref, opts)
    else:
        from sweepgate.core.sweep import sweep_eval_rows, worktree_revision, worktree_rows

        rows = list(worktree_rows(root, args.config_keys or None))
        rows += sweep_eval_rows(rows)  # the eval jobs a sweep of them runs: their lm-eval commands too
        revision = functools.partial(worktree_revision, root)
    if rows:
        from sweepgate.core.errors import SweepgateError
        from sweepgate.core.recipes import no_benchmarks

        if none := no_benchmarks(str(root), "preflight"):  # one line, not a problem for every recipe's script
            raise SweepgateError([none])
    return (rows if args.every_conc else one_per_recipe(rows)), functools.cache(revision)


def check_anyway(exc, git, args, opts):
    """``exc``; when it is the change appending no entry (a script edited alone), its fix also says how to
    check the scripts without one: ``--config-keys`` with the keys whose scripts changed, when they are found."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.select import NO_ENTRIES_RULE

    if not exc.diagnostics or any(d.rule != NO_ENTRIES_RULE for d in exc.diagnostics):
        return exc
    keys = " ".join(changed_script_keys(git, args, opts)[:8]) or "KEY"
    for d in exc.diagnostics:
        d.hint += f"; or check the scripts without one: sweepgate preflight --config-keys {keys}"
    return SweepgateError(exc.diagnostics)


def changed_script_keys(git, args, opts) -> list[str]:
    """The head's config keys whose rows run a benchmark script that differs between the refs (no expansion,
    ``script_users``), or [] when the head's configs do not read."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.recipes import script_users
    from sweepgate.core.select import checked_revision

    listed = git.run("diff", "--name-only", "-z", args.base_ref, args.head_ref, "--", REHEARSED_PATHS[0])
    changed = {name.decode(errors="replace") for name in listed.split(b"\0") if name}
    if not changed:
        return []
    try:
        users = script_users(checked_revision(git, args.head_ref, opts).configs)
    except SweepgateError:
        return []
    return list(dict.fromkeys(key for script, keys in users.items() if script in changed for key in keys))


REHEARSED_PATHS = ("benchmarks", f"{F.CONFIG_DIR}/engines")  # what a rehearsal reads from the disk, not git
RUN_RULE = "preflight-run"  # the title of a rehearsed row whose script failed or left something running


def refuse_other_scripts(git, head_ref: str) -> None:
    """The rows are --head-ref's, but their scripts (and the repository's manifests) run from the
    working tree: refuse when it holds other ones, rather than pass a head whose scripts were never run."""
    from sweepgate.core.errors import fail

    head = git.resolve(head_ref)
    listed = git.run("diff", "--name-only", "-z", head, "--", *REHEARSED_PATHS)  # -z: names as they are
    others = git.run("ls-files", "-z", "--others", "--exclude-standard", "--", *REHEARSED_PATHS)
    untracked = {name.decode(errors="replace") for name in others.split(b"\0") if name}
    changed = sorted({name.decode(errors="replace") for name in listed.split(b"\0") if name} | untracked)
    if changed:
        more = f" (and {count(len(changed) - 1, 'other file')})" if len(changed) > 1 else ""
        on_head = git.resolve("HEAD") == head
        hint = ("commit, stash (git stash -u) or remove the changes first" if on_head else
                f"check out {head_ref} first (git checkout {head_ref})") + ", or commit them and pass that commit as --head-ref"
        what = "is not in" if changed[0] in untracked else "differs from"  # a file git was never told of
        raise fail(changed[0], 0, f"{what} --head-ref {head_ref}{more}; preflight runs the scripts in the "
                   "working tree, so it would not check the head's", hint)


def run(args) -> int:
    from sweepgate.core.errors import EXIT_FAIL_ON, emit
    from sweepgate.core.load import repo_root
    from sweepgate.engines.preflight import per_image

    root = Path(repo_root())
    rows, revision = select_rows(args, root)
    found: dict = {}  # each problem once, with the rows it turned up in
    warnings: dict = {}
    notes: dict = {}  # what preflight cannot check (said once; never a warning)
    started = time.monotonic()
    chosen = selected_users(rows, revision)
    unsourced = no_library(rows, root)
    config_at = config_places(revision, chosen)
    # a label configs/runners.yaml does not list: plan's warning, once a label; its rows are rehearsed all the same
    warnings.update(dict.fromkeys(unknown_labels(rows, args, root, revision, chosen), 0))
    all_rows = getattr(args, "all_rows", False)
    groups = [[(None, row)] for row in rows] if all_rows else by_config_key(rows, revision)
    rows = [row for group in groups for _, row in group]
    number, log = 0, KeyLog(print_line)
    for group in groups:
        t0 = time.monotonic()
        done, problems = [], {}  # the group's (row, recording or None, why not rehearsed), and its problems once
        for _, row in group:
            number += 1
            missed = no_script(row, root, revision, chosen) or unsourced(row) or no_runtime(row, root)
            rec = rehearse_row(row, root, args.timeout, config_at, missed, (number, len(rows)),
                               (found, problems, warnings, notes))
            done.append((row, rec, "" if rec else why_not_rehearsed(missed)))
        log.add(group, done, problems, time.monotonic() - t0)
    log.flush()
    errors = len(found)
    emit(with_rows(found, root, every=all_rows))
    warnings = per_image(list(warnings), root)  # an image's engines without a manifest: one warning, every row's
    emit(sorted(warnings))
    emit(sorted(notes))
    warnings = len(warnings)
    evals = sum(map(is_eval, rows))
    print(f"preflight: {count(len(rows), 'row')}{f' ({evals} eval)' if evals else ''}, {count(errors, 'problem')}, "
          f"{warnings} warning{'s' if warnings != 1 else ''} in {time.monotonic() - started:.1f}s",
          file=sys.stderr)
    if errors:
        return 1
    return EXIT_FAIL_ON if warnings and args.fail_on_warning else 0


def rehearse_row(row: dict, root: Path, timeout: int, config_at: Callable, missing, place: tuple[int, int],
                 into: tuple[dict, dict, dict, dict]):
    """The recording (None where ``missing``) of a row rehearsed (``_shown``; not where ``missing``, what keeps it from
    being rehearsed, is given), its status line's title placing it (number, of how many); its problems go ``into``
    (every row's errors with the rows they turned up in, its group's errors, warnings, notes): the same missing
    manifest (or script) once, however many rows need it."""
    found, group, warnings, notes = into
    rec, diags = _shown(row, root, timeout, config_at, missing, f"preflight: {row_label(row)} ({place[0]}/{place[1]})")
    for d in diags:
        if d.severity == "error":
            found.setdefault(d, []).append(row)
            group.setdefault(d, 0)
        elif d.severity == "info":
            notes.setdefault(d, 0)
        else:
            warnings.setdefault(d, 0)
    return rec


def by_config_key(rows: list[dict], revision: Callable | None) -> list[list[tuple[str | None, dict]]]:
    """``rows`` as groups of (config key, row), one group a config key (``row_keys``), in the order of their
    first rows, a key's eval rows with its others; a row whose key is not found is a group of its own."""
    keys = row_keys(rows, revision)
    groups: dict = {}
    for number, (key, row) in enumerate(zip(keys, rows)):
        groups.setdefault(key if key is not None else number, []).append((key, row))
    return list(groups.values())


def row_keys(rows: list[dict], revision: Callable | None) -> list[str | None]:
    """The config key of the revision (``revision()``) each row came from (``rowkeys.recipe_of``, the first key
    that expands to its recipe); None for a row none does, and for every row when the configs cannot be read.
    A config that cannot expand is passed over (its own rows say what is wrong with it)."""
    from sweepgate.core.errors import SweepgateError
    import copy

    from sweepgate.core.expand import finalize
    from sweepgate.core.rowkeys import keys_by_recipe, recipe_of

    try:
        rev = revision() if revision else None
    except SweepgateError:
        rev = None
    if rev is None:
        return [None] * len(rows)
    recipes = [recipe_of(finalize(copy.deepcopy(row))) for row in rows]  # a work tree's row is not finalized yet
    wanted = set(recipes)
    index: dict = {}
    for key, config in rev.configs.items():
        try:
            expanded = keys_by_recipe({key: config}, rev.runners.data, [key])
        except SweepgateError:
            continue
        for recipe in expanded.keys() & wanted:
            index.setdefault(recipe, key)
        if len(index) == len(wanted):
            break
    return [index.get(recipe) for recipe in recipes]


def group_title(group: list[tuple[str | None, dict]]) -> str:
    """A group's line's subject: a config key's, 'KEY: 4 rows (dsr1_8k1k on mi355x, tp 4–8, conc 4–32, 2 eval)' (one
    row: 'KEY: 1 row (its label)'); a row with no key found (or every row, ``--all-rows``), its label alone."""
    key = group[0][0]
    rows = [row for _, row in group]
    if key is None:
        return row_label(rows[0])
    return f"{key}: {count(len(rows), 'row')} ({row_label(rows[0]) if len(rows) == 1 else spread(rows)})"


def spread(rows: list[dict]) -> str:
    """What a few rows span, in a few words: their experiments and runners (named when one or two, else counted),
    then tp, ep (when not the default) and concurrency as ranges, and how many are eval rows: 'dsr1_8k1k on mi355x,
    tp 4–8, conc 4–64, 2 eval'."""

    def span(values) -> str:
        values = sorted({v for v in values if isinstance(v, int) and not isinstance(v, bool)})
        return "" if not values else str(values[0]) if len(values) == 1 else f"{values[0]}–{values[-1]}"

    def names(field: str, noun: str) -> str:
        said = list(dict.fromkeys(str(row.get(field)) for row in rows))
        return ", ".join(said) if len(said) <= 2 else count(len(said), noun)

    parts = [f"{names(F.EXP_NAME, 'experiment')} on {names(F.RUNNER, 'runner')}"]
    if tp := span(row.get(F.TP) for row in rows):
        parts.append(f"tp {tp}")
    if any(row.get(F.EP) not in (None, F.DEFAULT_PARALLEL) for row in rows):
        parts.append(f"ep {span(row.get(F.EP, F.DEFAULT_PARALLEL) for row in rows)}")
    if conc := span(c for row in rows for c in F.row_concs(row)):
        parts.append(f"conc {conc}")
    if evals := sum(map(is_eval, rows)):
        parts.append(f"{evals} eval")
    return ", ".join(parts)


def print_line(text: str) -> None:
    # a reader who leaves (`| head -1`) ends these lines, not the check: every row, the warnings, exit 3
    # (cli.ReaderMayLeave)
    print(f"preflight: {text}", flush=True)


class KeyLog:
    """The lines of the groups rehearsed (``by_config_key``), as each is done: one a group ('KEY: 4 rows (...): 12
    commands, 0 problems (3.10s)'), but consecutive config keys none of whose rows was rehearsed, for the same reason,
    are one line (a clone with no script for most of its keys: one line, not 650; each missing script is its own
    problem, at its config), said when a key that differs comes, or at the end (``flush``)."""

    def __init__(self, write: Callable[[str], None]):
        self.write, self.held = write, []  # held: (group, outcome, problems, seconds) of not-rehearsed keys

    def add(self, group: list, done: list, problems: dict, seconds: float) -> None:
        said = outcome(done)
        if any(rec for _, rec, _ in done) or group[0][0] is None:
            self.flush()
            self.write(f"{group_title(group)}: {said}, {count(len(problems), 'problem')} ({seconds:.2f}s)")
            return
        if self.held and self.held[0][1] != said:
            self.flush()
        self.held.append((group, said, problems, seconds))

    def flush(self) -> None:
        held, self.held = self.held, []
        if len(held) == 1:
            group, said, problems, seconds = held[0]
            self.write(f"{group_title(group)}: {said}, {count(len(problems), 'problem')} ({seconds:.2f}s)")
        elif held:
            keys = [group[0][0] for group, *_ in held]
            rows = sum(len(group) for group, *_ in held)
            problems = {d for _, _, found, _ in held for d in found}
            named = ", ".join(keys[:2]) + (f" and {count(len(keys) - 2, 'other')}" if len(keys) > 2 else "")
            self.write(f"{count(len(keys), 'config key')} ({named}), {count(rows, 'row')}: {held[0][1]}, "
                       f"{count(len(problems), 'problem')} ({sum(s for *_, s in held):.2f}s)")


def outcome(done: list[tuple[dict, object, str]]) -> str:
    """What a group's rows (row, recording or None, why not rehearsed) came to: '12 commands' when every row was
    rehearsed, 'not rehearsed (no benchmark script)' when none was, else '3 rehearsed, 12 commands; 1 not
    rehearsed (...)'."""
    ran = [rec for _, rec, _ in done if rec]
    why = Counter(reason for _, rec, reason in done if not rec)
    commands = count(sum(len(rec.calls) for rec in ran), "command")
    not_run = f"not rehearsed ({'; '.join(why)})"
    if not why:
        return commands
    if not ran:
        return not_run
    return f"{len(ran)} rehearsed, {commands}; {sum(why.values())} {not_run}"


def listed_labels(args, root: Path) -> set[str]:
    """The runner labels configs/runners.yaml lists: with --base-ref the base's (the file `ci split
    --runners` reads on main, which `plan` holds a change's rows against), else the working tree's."""
    from sweepgate.core.placement import runner_labels, runners_at

    if args.base_ref:
        from sweepgate.core.load import load_revision, open_repo

        return runner_labels(load_revision(open_repo(), args.base_ref).runners.data)
    return runner_labels(runners_at(str(root)))


def unknown_labels(rows: list[dict], args, root: Path, revision: Callable, chosen: Callable) -> list:
    """`plan`'s unknown-runner warning (``core.plan.unknown_runner``) for each runner label of ``rows`` that
    configs/runners.yaml (``listed_labels``) lacks (none when it lists no label), at the `runner:` line of the
    first config naming it of those ``chosen`` keeps; the runners file at no line when no config names it."""
    from sweepgate.core.load import at_value
    from sweepgate.core.plan import unknown_runner

    listed, whose = listed_labels(args, root), "the base's " if args.base_ref else ""
    out = []
    for label in sorted({str(row.get(F.RUNNER)) for row in rows} - listed if listed else ()):
        rev = revision()
        users = tuple(k for k, c in rev.configs.items() if isinstance(c, dict) and c.get(F.RUNNER) == label)
        key = next(iter(chosen(users)), None) if users else None
        owner = rev.owner.get(key) if key else None
        where = (owner.path, *owner.locate(at_value((key, F.RUNNER)))) if owner else (F.RUNNERS_FILE, 0, 0)
        out.append(unknown_runner(label, listed, where, whose=whose))
    return out


def no_script(row: dict, root: Path, revision: Callable, chosen: Callable | None = None):
    """The problem of a row none of whose benchmark scripts (CONTRACTS section 7) exists, at the block
    of the config that runs it, as `sweepgate plan` reports it (the same for every row of that script);
    None when the row has one. ``revision`` reads the revision the rows come from; ``chosen``
    (``selected_users``) keeps of the configs that run the script those selected: the others are
    only counted."""
    from sweepgate.core.plan import missing_script
    from sweepgate.core.recipes import script_candidates, script_users

    candidates = script_candidates(row)
    if any((root / rel).is_file() for rel in candidates):
        return None
    rev = revision()
    users = script_users(rev.configs).get(candidates[0], [])
    keys = list(chosen(tuple(users))) if chosen else users
    others = len(users) - len(keys)
    where = rev.where(keys[0]) if keys else None
    who = " and ".join(f"'{k}'" for k in keys) or f"exp-name {row.get(F.EXP_NAME)!r}"
    scenario = F.AGENTIC_CODING if row.get(F.SCENARIO_TYPE) == F.AGENTIC_CODING else F.FIXED_SEQ_LEN
    return missing_script(where.file if where else candidates[0], where.line if where else 0, who, scenario,
                          candidates, many=len(keys) > 1, folders=[rel for rel in candidates if (root / rel).is_dir()],
                          no_lib=not (root / F.BENCHMARK_LIB).is_file(), root=str(root),
                          at=f"({count(others, 'other config')}, not selected, run{'s' if others == 1 else ''} "
                             "it too)" if others else "")


def no_runtime(row: dict, root: Path):
    """The problem of a row whose KV-offload arm installs its backend on a runner label stating no
    accelerator-runtime in configs/runners.yaml: `ci row-env` refuses its job, so it is not rehearsed (its arm
    would stop the script). Said where `ci row-env` and `plan` say it, at the label's entry there, once for
    every such row (``runner.runtime_refused``); a runners file that cannot be read so is the row's problem
    instead. None for the other rows."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.rehearsal.runner import runtime_refused

    try:
        return runtime_refused(row, root)
    except SweepgateError as exc:
        return exc.diagnostics[0]


def why_not_rehearsed(problem) -> str:
    """What a row's (or its key's) line says of the ``problem`` that kept it from being rehearsed (``no_script``,
    ``no_library``, ``no_runtime``)."""
    from sweepgate.core.plan import RULE_MISSING_SCRIPT
    from sweepgate.core.recipes import RULE_NO_LIBRARY

    return {RULE_MISSING_SCRIPT: "no benchmark script", RULE_NO_LIBRARY: "no benchmark library",
            F.NO_RUNTIME_RULE: f"its runner states no {F.ACCELERATOR_RUNTIME}"}.get(
                problem.rule, f"{F.RUNNERS_FILE} is refused")


def no_library(rows: list[dict], root: Path) -> Callable:
    """What gives the problem of a row whose script sources benchmark_lib.sh where the repository has none:
    one problem for every such row, at the first line that sources it (``recipes.missing_library``), the
    row not rehearsed (bash would stop there); None for the other rows."""
    from sweepgate.core.identity import read_tree
    from sweepgate.core.recipes import library_lines, missing_library, read_helpers, script_candidates

    def script(row: dict) -> str | None:
        return next((rel for rel in script_candidates(row) if (root / rel).is_file()), None)

    if (root / F.BENCHMARK_LIB).is_file():  # the common case: nothing to look for
        return lambda row: None
    scripts = sorted({s for s in map(script, rows) if s})
    if not scripts:
        return lambda row: None
    read = read_tree(str(root))
    blobs = read(scripts)
    read_helpers(scripts, blobs, read)
    each = {s: library_lines([s], blobs) for s in scripts}  # each script and its helpers read once
    places = list(dict.fromkeys(place for s in scripts for place in each[s]))  # as library_lines(scripts) gives
    problem = missing_library(places, root=str(root)) if places else None
    sourcing = {s for s in scripts if each[s]}
    return lambda row: problem if script(row) in sourcing else None


def selected_users(rows: list[dict], revision: Callable) -> Callable:
    """What keeps, of the config keys whose rows run a script, those that made one of ``rows`` (the
    rows selected); all of them when none did. Computed only for a script that is missing, or for where a
    row's config writes its image. A config that cannot expand made none of the rows: it is passed over, not
    raised (its own rows say what is wrong with it), so looking up a place costs no row its findings."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.rowkeys import keys_by_recipe, recipe_of

    def expanded(key: str, rev) -> dict:
        try:
            return keys_by_recipe({key: rev.configs[key]}, rev.runners.data, [key])
        except SweepgateError:
            return {}

    @functools.cache
    def chosen(users: tuple[str, ...]) -> tuple[str, ...]:
        rev = revision()
        index: dict = {}
        for key in users:  # the first key wins, as in keys_by_recipe
            for recipe, owner in expanded(key, rev).items():
                index.setdefault(recipe, owner)
        made = {index.get(recipe_of(row)) for row in rows}
        return tuple(k for k in users if k in made) or users

    return chosen


def config_places(revision: Callable, chosen: Callable) -> Callable:
    """What says where a row's config writes its image (F.IMAGE) or the version of its KV-offload backend
    (F.KV_OFFLOAD_BACKEND): (file, line, col) of the value in the first config, of those ``chosen`` keeps, that
    writes it as the row has it (one place for every row alike); None when none does."""
    from sweepgate.core.load import at_value
    from sweepgate.core.plan import backend_points

    def path_in(config, field: str, row: dict) -> tuple | None:
        if not isinstance(config, dict) or config.get(F.IMAGE) != row.get(F.IMAGE):
            return None
        if field == F.IMAGE:
            return (F.IMAGE,)
        return next(((*path, "version") for path, backend in backend_points(config)
                     if backend == row.get(F.KV_OFFLOAD_BACKEND)), None)

    def place(row: dict, field: str) -> tuple[str, int, int] | None:
        rev = revision()
        users = tuple(key for key, config in rev.configs.items() if path_in(config, field, row))
        key = chosen(users)[0] if users else None
        owner = rev.owner.get(key) if key else None
        return (owner.path, *owner.locate(at_value((key, *path_in(rev.configs[key], field, row))))) if owner else None

    return place


def _shown(row: dict, root: Path, timeout: int, config_at: Callable, missing, title: str) -> tuple:
    """(recording, problems) of the row, or (None, [``missing``]) where that keeps it from being rehearsed; on a
    terminal a status line (``title``, then each command the script runs) while it runs, nothing piped: its config
    key's line (``KeyLog``; the row's own with --all-rows), once it is done, is the log's."""
    from sweepgate.rehearsal.progress import Progress

    with Progress(title=title, lines=False) as progress:
        return (None, [missing]) if missing else _rehearse(row, root, timeout, config_at, progress)


def _rehearse(row: dict, root: Path, timeout: int, config_at: Callable | None = None, progress=None) -> tuple:
    """(recording, problems) of one row. An images.json or manifest that cannot be read is one of its problems
    (said once, at its file): the row is still rehearsed, and every other row checked. ``progress`` is told
    each command the row's script runs (``record_row``)."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.engines.preflight import check_row, pinned_help
    from sweepgate.rehearsal.record import record_row

    try:
        help_flags, unread = pinned_help(row, root), []
    except SweepgateError as exc:
        help_flags, unread = {}, exc.diagnostics
    rec = record_row(row, root, timeout, help_flags=help_flags, progress=progress)
    try:
        flags = check_row(row, rec.calls, root, rec.script, config_at)
    except SweepgateError as exc:
        flags = exc.diagnostics
    # a row's command run once per concurrency finds its problem once per run: count it once
    return rec, list(dict.fromkeys(unread + flags + _run_problems(rec, root)))


def is_eval(row: dict) -> bool:
    """Whether the row's job runs its eval (after the benchmark, or instead of it)."""
    return bool(row.get(F.RUN_EVAL) or row.get(F.EVAL_ONLY))


def row_label(row: dict) -> str:
    """'dsr1_1k1k cluster:b300-nv tp8 ep8 conc 4': rows of one recipe that differ in runner or
    parallelism read apart (tp when the row has one, ep when it is not the default); an eval row's
    label starts with 'eval'."""
    parts = ["eval"] if is_eval(row) else []
    parts += [str(row.get(F.EXP_NAME)), str(row.get(F.RUNNER))]
    if row.get(F.TP) is not None:
        parts.append(f"tp{row[F.TP]}")
    if row.get(F.EP) not in (None, F.DEFAULT_PARALLEL):
        parts.append(f"ep{row[F.EP]}")
    return " ".join([*parts, f"conc {row.get(F.CONC)}"])


def with_rows(found: dict, root: Path, every: bool = False) -> list:
    """Each problem (of ``found``: problem -> the rows it turned up in) once; one found in several rows says how
    many and what they span (``spread``), or, ``every``, names each (``--all-rows``), and a row's own run
    (``RUN_RULE``: its script failed, left something running) names its one row too. Where the
    repository (its top ``root``) has no benchmark library, the first missing script's fix says where it comes
    from and the others point back to it (a clone with no benchmarks/ had the same long fix on ~200 lines)."""
    from sweepgate.core.errors import Diagnostic
    from sweepgate.core.recipes import library_copy

    out, told, copy = [], False, library_copy(str(root))
    for d, rows in found.items():
        message, hint = d.message, d.hint
        if len(rows) > 1:
            what = ", ".join(map(row_label, rows)) if every else spread(rows)
            message = f"{message} ({len(rows)} rows: {what})"
        elif d.rule == RUN_RULE:
            message = f"{message} (row {row_label(rows[0])})"
        if hint.endswith(f"; {copy}"):
            hint, told = (hint, True) if not told else (hint.replace(copy, LIBRARY_LATER), told)
        out.append(Diagnostic(d.file, d.line, d.col, d.rule, message, hint, d.severity)
                   if (message, hint) != (d.message, d.hint) else d)
    return out


LIBRARY_LATER = "copy the benchmark library too (the first missing script's fix says from where)"


# bash's own "FILE: line N: syntax error ..." (its parser's, or an arithmetic expression's)
_SYNTAX = re.compile(r"^(?P<file>[^\n]+?): line (?P<line>\d+): (?P<what>[^\n]*syntax error[^\n]*)$", re.M)


def _syntax_error(tail: str, root: Path):
    """The problem of a script bash stopped at a syntax error, at the file and line bash names (the row's
    script or a library it sources), the same for every row that runs it; None when bash names none."""
    from sweepgate.core.errors import Diagnostic
    from sweepgate.core.scriptlines import in_repository

    said = list(_SYNTAX.finditer(tail))
    rel = in_repository(said[-1]["file"], root) if said else None
    if rel is None:
        return None
    from sweepgate.rehearsal.runner import crlf_fix

    return Diagnostic(rel, int(said[-1]["line"]), 0, RUN_RULE, f"bash stops here: {said[-1]['what'].strip()}",
                      crlf_fix(root / rel) or f"fix the syntax (bash -n {rel} checks it without running it)")


def _failed_at(tail: str, rel: str, root: Path) -> tuple[str, int]:
    """Where a failed script's cause stands: the file and line bash names in it (`x.sh: line 12: foo:
    command not found`), else the last bash names in its output ``tail`` (``scriptlines.failed_at``), when that is
    a file in the repository; else the script, at no line."""
    from sweepgate.core.scriptlines import failed_at

    return failed_at(tail, root) or (rel, 0)


def _run_problems(rec, root: Path) -> list:
    """The script itself failing (before a flag could be checked) is a problem too, as is one not run for its writes
    outside the work dir (``Recording.refused``): a syntax error at the
    line bash names, once for every row that runs it; one that did not finish at the line it was stopped
    at. So is what it left running, at the line that started it."""
    from sweepgate.core import scriptlines
    from sweepgate.core.errors import Diagnostic
    from sweepgate.rehearsal.linetrap import place
    from sweepgate.rehearsal.runner import crlf_fix, how_it_ended, left_by_line, without_pid

    rel = str(rec.script.relative_to(root))
    out = list(rec.refused)  # its writes outside the work dir, each at its line: the script was not run
    syntax = _syntax_error(rec.output_tail, root) if rec.rc and not rec.timed_out else None
    if syntax:
        out.append(syntax)
    elif rec.timed_out or rec.rc:
        what, cause = "did not finish" if rec.timed_out else how_it_ended(rec.rc), scriptlines.cause(rec.output_tail)
        at = (rec.timed_out and place(root, rec.script, rec.stopped_at)) or _failed_at(rec.output_tail, rel, root)
        said = f" ({scriptlines.shown(cause)})" if cause else ""  # a script that printed nothing: no "()"
        # no row in the message: the rows it failed alike in are one problem naming them (``with_rows``)
        out.append(Diagnostic(*at, 0, RUN_RULE, f"the script {what} in the fast rehearsal{said}",
                              crlf_fix(rec.script) or "run sweepgate rehearse on the row"))
    for (file, line), left in left_by_line(root, rec.script, rec.leftovers, rec.subshells).items():
        # without the PIDs (gone when this is read), so the rows that left the same are one problem naming them
        named = Counter(map(without_pid, left))
        out.append(Diagnostic(file, line, 0, RUN_RULE, "left running: " + "; ".join(
            f"{what} ({n} processes)" if n > 1 else what for what, n in named.items()),
            "start background work with start_background_process"))
    if rec.unreadable:  # no command of the row could be checked: not a pass
        what, _, fix = rec.unreadable.partition("; ")
        out.append(Diagnostic(rel, 0, 0, RUN_RULE, what, fix))
    return out
