"""`sweepgate` with no arguments: the seed scenario, end to end, on the built-in example fleet.

base = the example fleet without the LMCache key and its changelog entry;
head = the fleet as shipped. Both are committed to a throwaway git repository
in a temporary directory, then the gate and the matrix step run on it exactly
as CI would.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

from sweepgate.core import fields as F

SEED_KEY = "kimik3-fp4-b300-vllm-agentic-dspark-lmcache"
REPOSITORY = "sweepgate/example-fleet"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the gate verdict and matrix as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the throwaway repository and print its path")


def fleet_root() -> str:
    """The directory that holds the example fleet (configs/, benchmarks/, the changelog).

    An installed wheel carries it as package data (``sweepgate/fleet``, copied in
    by setup.py's build hook); an editable install reads the checkout itself.
    """
    from importlib import resources

    from sweepgate.core import fields as F
    from sweepgate.core.errors import fail

    packaged = resources.files("sweepgate").joinpath("fleet")
    if packaged.joinpath(F.RUNNERS_FILE).is_file():
        return str(packaged)
    here = os.path.dirname(os.path.abspath(__file__))
    while True:
        if os.path.isfile(os.path.join(here, F.RUNNERS_FILE)):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            raise fail(F.RUNNERS_FILE, 0, "the example fleet is not installed", "reinstall sweepgate")
        here = parent


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


def run(args) -> int:
    from sweepgate.core import report
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.gate import GateOptions, validate
    from sweepgate.core.load import Git
    from sweepgate.core.select import build_matrix, iter_rows

    tmp = tempfile.mkdtemp(prefix="sweepgate-example-")
    try:
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
        ok = outcome.ok and matrix is not None
        if args.json:
            sys.stdout.write(report.to_json({
                "scenario": {"base": base, "head": head, "seed_key": SEED_KEY,
                             "repository": tmp if args.keep else None},
                "gate": {"ok": ok, "problems": [d.as_dict() for d in problems]},
                "matrix": matrix,
            }, pretty=True))
        else:
            out = sys.stdout
            out.write(f"sweepgate example: seed change adds {SEED_KEY}\n")
            out.write(f"  base {base[:12]} (fleet without the key)  ->  head {head[:12]} (with key + entry)\n\n")
            out.write("gate: " + ("PASS" if ok else "FAIL") + "\n")
            for d in problems:
                out.write(f"  {d.render()}\n")
            if matrix is not None:
                rows = list(iter_rows(matrix))
                out.write(f"\nmatrix: {len(rows)} rows\n\n")
                report.print_matrix(out, rows)
                out.write("\n(--json prints the full matrix)\n")
            if args.keep:
                out.write(f"\nrepository kept at {tmp}\n")
        return 0 if ok else 1
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
