"""`sweepgate` with no arguments: the seed scenario, end to end, on the built-in example fleet.

base = the example fleet without the LMCache key and its changelog entry;
head = the fleet as shipped. Both are committed to a throwaway git repository
in a temporary directory, then the gate and the matrix step run on it exactly
as CI would. Then every selected row is rehearsed in-process against the
stand-in server (short agentic durations), the outputs are ingested into an
SQLite store in the throwaway repository beside a generated history of 5 runs
on main (the rehearsed values with +-2 % seeded noise), and the run is compared
with that history: a table, and PNG/SVG charts in a kept folder (a temporary one only
while its path can still reach a reader). Every figure is a rehearsal's and says so.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

from sweepgate.commands import argtypes
from sweepgate.core import fields as F
from sweepgate.core.fleet import fleet_root

SEED_KEY = "kimik3-fp4-b300-vllm-agentic-dspark-lmcache"
REPOSITORY = "sweepgate/example-fleet"
# The rehearsed run: its id and ref in the example's store (the seed change's branch).
RUN_ID = "example-seed-change"
RUN_REF = "refs/heads/seed-change"
AGENTIC_DURATION_S = 2   # agentic rows ask for an hour of load; the rehearsal sends 2 s
ROW_TIMEOUT_S = 120


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print it all as JSON: the gate verdict and matrix, then (unless --no-rehearse) "
                             "the rehearsal, results, comparison and charts under \"rehearsal\"")
    parser.add_argument("--keep", action="store_true", help="keep the throwaway repository and print its path")
    parser.add_argument("--plots", metavar="DIR", default=None, type=argtypes.output_dir,
                        help="write the charts into DIR (default: a new temporary folder, kept and printed, "
                             "removed if the output's reader has left; not with --no-rehearse, which draws none)")
    parser.add_argument("--no-rehearse", action="store_true",
                        help="stop after the matrix: no rehearsal, results or charts")


def without_key(text: str, key: str) -> str:
    """A master config's text with one top-level config removed."""
    from sweepgate.core.load import split_blocks

    lines = text.split("\n")
    pieces = split_blocks(text) or []
    starts = [start for start, _ in pieces] + [len(lines)]
    for (start, _), end in zip(pieces, starts[1:]):
        if lines[start].startswith(f"{key}:"):
            # Drop the block and the comment lines directly above it.
            first = start
            while first > 0 and lines[first - 1].startswith("#"):
                first -= 1
            return "\n".join(lines[:first] + lines[end:])
    raise ValueError(f"{key} is not in this file")


def without_entry(text: str, key: str) -> str:
    """The changelog's text up to the entry naming ``key``: that entry and every later one are removed.

    History is append-only, so the seed change's base is the changelog before its entry;
    entries appended after it (the multi-node baselines) arrive in the same change.
    """
    blocks = text.split("\n\n")
    names = [b.lstrip().startswith("- ") and f"- {key}\n" in b + "\n" for b in blocks]
    if not any(names):
        raise ValueError(f"no changelog entry names {key}")
    return "\n\n".join(blocks[:names.index(True)]).rstrip("\n") + "\n"


def _git(repo: str, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "sweepgate", "GIT_AUTHOR_EMAIL": "example@sweepgate.invalid",
           "GIT_COMMITTER_NAME": "sweepgate", "GIT_COMMITTER_EMAIL": "example@sweepgate.invalid"}
    subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, env=env)


def build_repo(directory: str) -> tuple[str, str]:
    """Write the seed base and head commits into ``directory``; return (base, head) commit ids."""
    root = fleet_root()
    files = [F.CHANGELOG_FILE, F.RUNNERS_FILE]
    files += sorted(os.path.join(F.CONFIG_DIR, n) for n in os.listdir(os.path.join(root, F.CONFIG_DIR))
                    if n.endswith(F.MASTER_GLOB.lstrip("*")))
    # The benchmark scripts come along, so `sweepgate plan` on this repository resolves them.
    for folder, _, names in os.walk(os.path.join(root, "benchmarks")):
        files += [os.path.relpath(os.path.join(folder, n), root) for n in sorted(names) if n.endswith((".sh", ".md"))]
    contents = {}
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            contents[rel] = f.read()
    base = dict(contents)
    base[F.CHANGELOG_FILE] = without_entry(contents[F.CHANGELOG_FILE], SEED_KEY)
    # The seed key and every key the removed (later) entries name are new at head.
    removed = contents[F.CHANGELOG_FILE][len(base[F.CHANGELOG_FILE]):]
    import yaml

    entries = yaml.safe_load(removed) or []
    for key in dict.fromkeys(k for entry in entries for k in entry[F.CONFIG_KEYS]):
        owner = next(rel for rel in files if rel.startswith(F.CONFIG_DIR + "/") and f"\n{key}:" in contents[rel])
        base[owner] = without_key(base[owner], key)

    _git(directory, "init", "-q", "-b", "main")
    commits = []
    for label, snapshot in (("base", base), ("head", contents)):
        for rel, text in snapshot.items():
            path = os.path.join(directory, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        _git(directory, "add", "-A")
        _git(directory, "commit", "-q", "-m", f"seed {label}")
        commits.append(subprocess.run(["git", "-C", directory, "rev-parse", "HEAD"], check=True,
                                      capture_output=True, text=True).stdout.strip())
    return commits[0], commits[1]


def gate_and_matrix(tmp: str) -> tuple[str, str, bool, list, dict | None]:
    """Build the throwaway repository in ``tmp``; (base, head, ok, problems, matrix)."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.gate import GateOptions, validate
    from sweepgate.core.load import Git
    from sweepgate.core.select import build_matrix

    base, head = build_repo(tmp)
    git = Git(tmp)
    outcome = validate(git, base, head, GateOptions(repository=REPOSITORY))
    problems = outcome.all()
    matrix = None
    if outcome.ok:
        try:
            matrix = build_matrix(git, base, head)
        except SweepgateError as exc:
            problems = exc.diagnostics
    git.close()
    return base, head, outcome.ok and matrix is not None, problems, matrix


def rehearse_matrix(tmp: str, head: str, matrix: dict, say) -> list:
    """Rehearse every row of ``matrix`` in-process, one work folder each, as one run (``RUN_ID``)
    whose sidecars carry each row's config key; ``say`` gets one line per row."""
    from pathlib import Path

    from sweepgate.core.rowkeys import matrix_row_keys
    from sweepgate.core.select import iter_rows
    from sweepgate.rehearsal.runner import rehearse_row

    rows = [row for _, row in iter_rows(matrix)]
    keys = matrix_row_keys(tmp, matrix, rows)
    done = []
    for i, (row, key) in enumerate(zip(rows, keys), 1):
        work = Path(tmp, F.OWN_DIR, "rehearsals", f"row-{i}")
        job = {"run_id": RUN_ID, "config_key": key, "ref": RUN_REF, "commit": head}
        result = rehearse_row(Path(tmp), row, work, duration=AGENTIC_DURATION_S, timeout=ROW_TIMEOUT_S, job=job)
        verdict = "ok" if not result.problems else "FAILED: " + "; ".join(result.problems)
        kind = "eval " if row.get(F.RUN_EVAL) or row.get(F.EVAL_ONLY) else ""  # as preflight labels it
        say(f"  {i}/{len(rows)} {kind}{row.get(F.EXP_NAME)} conc {row.get(F.CONC)} ({key}): "
            f"{result.elapsed:.1f}s {verdict}")
        done.append(result)
    return done


def compare_with_history(tmp: str, rehearsals: list, plots: str) -> dict:
    """Ingest the rehearsals' outputs into the throwaway repository's store, add a generated
    history on main, compare and draw; what was done, for the report."""
    from pathlib import Path

    from sweepgate.results import charts, compare, evals, ingest, store, store_adapter, synthetic

    url = store.default_url(Path(tmp))
    with store.open_store(url) as st:
        # the outputs the jobs name (a folder walk would also take the AIPerf export and the
        # per-concurrency parts of a multi-node output, which the job's own output holds)
        outcome = ingest.ingest([str(path) for r in rehearsals for path in r.outputs if path.is_file()], st)
        if outcome.stopped_by is not None:  # Ctrl-C, SIGTERM or the store failing: the example stops too
            raise outcome.stopped_by
        history = synthetic.baseline_history(outcome.records, compare.DEFAULT_BASELINE_REF)
        st.add(history)
    pr, baseline, *_ = store_adapter.from_store(url, RUN_ID, compare.DEFAULT_BASELINE_REF, compare.DEFAULT_WINDOW)
    comparison = compare.compare_records(pr, baseline, run=RUN_ID)
    comparison.evals = evals.compare_evals(pr, baseline, compare.DEFAULT_WINDOW)  # the eval row's scores
    removed: list = []
    written = charts.draw_charts(comparison, plots, removed=removed)
    said = charts.removed_line("sweepgate example", removed, plots)
    if said:  # its --plots DIR may be one a compare drew into: what is removed there is said
        print(said, file=sys.stderr)
    return {"db": store.display_url(url), "records": outcome.results, "problems": outcome.problems,
            "baseline_runs": synthetic.DEFAULT_RUNS, "baseline_records": len(history),
            "comparison": comparison, "charts": [str(p) for p in written]}


CHARTS_PREFIX = "sweepgate-example-charts-"  # the temporary charts folder made when --plots is not given


def _results_stage(tmp: str, head: str, matrix: dict, plots: str, say) -> dict:
    import time

    started = time.monotonic()
    say(f"\nrehearsal: every row against the stand-in server, no GPU (agentic rows send "
        f"{AGENTIC_DURATION_S} s of load, not the hour they ask for)")
    rehearsals = rehearse_matrix(tmp, head, matrix, say)
    stage = compare_with_history(tmp, rehearsals, plots)
    stage["rehearsals"] = rehearsals
    stage["seconds"] = time.monotonic() - started
    stage["ok"] = not any(r.problems for r in rehearsals) and not stage["problems"]
    return stage


def _stage_json(stage: dict, kept: bool) -> dict:
    from sweepgate.results import compare, render

    return {
        "rehearsal": True, "note": render.REHEARSAL_NOTE, "agentic_duration_s": AGENTIC_DURATION_S,
        "rows": [{F.EXP_NAME: r.row.get(F.EXP_NAME), F.CONC: r.row.get(F.CONC), "ok": not r.problems,
                  "problems": r.problems, "seconds": round(r.elapsed, 1)} for r in stage["rehearsals"]],
        "results": {"db": stage["db"] if kept else None, "records": stage["records"],
                    "problems": [d.as_dict() for d in stage["problems"]],
                    "run": RUN_ID, "ref": RUN_REF,
                    "generated_baseline": {"ref": compare.DEFAULT_BASELINE_REF, "runs": stage["baseline_runs"],
                                           "records": stage["baseline_records"], "rehearsal": True}},
        "comparison": stage["comparison"].as_json(), "charts": stage["charts"],
        "seconds": round(stage["seconds"], 1)}


CHARTS_HEADING = "charts (rehearsal figures)"  # then each chart's path on a line of its own, indented


def _print_stage(out, stage: dict, kept: bool) -> None:
    from sweepgate.results import compare, render

    where = stage["db"] if kept else "the throwaway repository's store (removed on exit; --keep keeps it)"
    out.write(f"\nresults: {stage['records']} records of run {RUN_ID} ({RUN_REF}) in {where}, beside a "
              f"GENERATED history of {stage['baseline_runs']} runs on {compare.DEFAULT_BASELINE_REF}: the "
              "rehearsed values with +-2 % seeded noise, marked as rehearsals\n")
    for d in stage["problems"]:
        out.write(f"  {d.render()}\n")
    out.write("\n")
    out.flush()
    render.table(stage["comparison"], out)
    # one path a line: a reader copies one into an image viewer (review: all on one comma-joined line)
    out.write(f"\n{CHARTS_HEADING}, {len(stage['charts'])} files:\n")
    out.writelines(f"  {path}\n" for path in stage["charts"])
    out.write(f"rehearsal, results and charts took {stage['seconds']:.0f} s\n")


def _print_text(out, base: str, head: str, ok: bool, problems: list, matrix: dict | None) -> None:
    from sweepgate.core import report
    from sweepgate.core.select import iter_rows

    out.write(f"sweepgate example: seed change adds {SEED_KEY}\n")
    out.write(f"  base {F.short_sha(base)} (fleet without the key)  ->  head {F.short_sha(head)} (with key + entry)\n\n")
    out.write("gate: " + ("PASS" if ok else "FAIL") + "\n")
    for d in problems:
        out.write(f"  {d.render()}\n")
    if matrix is not None:
        rows = list(iter_rows(matrix))
        out.write(f"\nmatrix: {report.count(len(rows), 'row')}\n\n")
        report.print_matrix(out, rows)
        out.write("\n(--json prints the full matrix)\n")
    out.flush()


def argument_problems(args) -> list[str]:
    """Flags that cannot go together (cli.argument_problems)."""
    if args.plots and args.no_rehearse:  # the charts come after the rehearsal: DIR would silently stay unwritten
        return [argtypes.combination("--plots", "not allowed with argument --no-rehearse (no charts are drawn "
                                     "without the rehearsal)", "drop --no-rehearse to draw them, or --plots")]
    return []


def _check_plots(args) -> None:
    """--plots DIR: checked creatable before a minute of rehearsal, not after it (with --no-rehearse, refused:
    argument_problems)."""
    if args.plots and not args.no_rehearse:
        from sweepgate.core.outpaths import creatable_dir

        creatable_dir(args.plots, "--plots")


def run(args) -> int:
    from pathlib import Path

    from sweepgate.core import report
    from sweepgate.core.signals import Held
    from sweepgate.core.signals import remove_folder  # loaded before a Ctrl-C may need it

    _check_plots(args)
    # The charts folder made here when --plots is not given: kept once its path has reached a reader,
    # removed when the run stops before printing it or the reader has left (`| head -3`: nobody is told of it).
    # Each folder is made and named under a hold: a signal the instant it exists acts once the finally below
    # knows it (a folder made before that try was left behind).
    tmp = made = None
    try:
        with Held():
            tmp = tempfile.mkdtemp(prefix="sweepgate-example-")
        base, head, ok, problems, matrix = gate_and_matrix(tmp)
        if not args.json:
            _print_text(sys.stdout, base, head, ok, problems, matrix)
        stage = None
        if ok and not args.no_rehearse:
            say = (lambda line: print(line, file=sys.stderr, flush=True)) if args.json else \
                (lambda line: print(line, flush=True))
            with Held():
                made = None if args.plots else tempfile.mkdtemp(prefix=CHARTS_PREFIX)
            stage = _results_stage(tmp, head, matrix, args.plots or made, say)
        if args.json:
            doc = {"scenario": {"base": base, "head": head, "seed_key": SEED_KEY,
                                "repository": tmp if args.keep else None},
                   "gate": {"ok": ok, "problems": [d.as_dict() for d in problems]},
                   "matrix": matrix}
            if stage is not None:
                doc["rehearsal"] = _stage_json(stage, kept=args.keep)
            sys.stdout.write(report.to_json(doc, pretty=True))
        elif stage is not None:
            _print_stage(sys.stdout, stage, kept=args.keep)
        sys.stdout.flush()  # the charts' paths reach the pipe now, or show that its reader has left
        if made and not report.reader_left():
            made = None
        if args.keep and not args.json:
            sys.stdout.write(f"\nrepository kept at {tmp}\n")
        return 0 if ok and (stage is None or stage["ok"]) else 1
    finally:
        if made:
            remove_folder(Path(made), "the example's charts folder")
        if tmp and not args.keep:
            remove_folder(Path(tmp), "the example's throwaway repository")  # whole, even after a Ctrl-C
