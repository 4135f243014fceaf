#!/usr/bin/env python3
"""Cold and warm cost of a one-key change, on repositories 1x and 30x the corpus main tip.

    python tests/bench/cold_speed.py [--corpus ../shared/corpus] [--scales 1 30] [--runs 5]
                                     [--reference DIR]

For each scale N it builds a git repository from the corpus main tip: every top-level
config block of each master config is copied N times (copy i under `<key>-x<i>`) and so
is every changelog entry (its config keys renamed the same way). That is the base commit.
The head commit is a one-key change: one config's image edited and one changelog entry
appended that names it. Then it times, as separate processes of the real entry points
(median of --runs):

- matrix: `utils/process_changelog.py --base-ref BASE --head-ref HEAD`
- gate:   `utils/validate_perf_changelog.py --base-ref BASE --head-ref HEAD`
- full-sweep: `utils/generate_sweep_configs.py full-sweep` (every config of HEAD)

cold: SWEEPGATE_NO_CACHE=1 and no .git/sweepgate-cache (removed before every run);
main: the cache CI restores on a pull request (cache-warm.yml's full sweep of BASE, copied
back before every run, so the changed config is never in it);
warm: the cache filled by one untimed run of the same command first. Whether the cache
was empty or filled before each series is printed.

floor: what no cold run that checks every config block can go under. The process alone
(`process_changelog.py --help`: interpreter start, imports, no git, no YAML) and the fastest
reading of every block's values there is here (rapidyaml's C++ parser over each whole master
config, its JSON read by the json module: no PyYAML check, no schema, no rule), best of --runs.
#18 asks a cold 30x run for at most 3 times the 1x one; this says whether that can hold while
every block is still checked. `--reference DIR` (a copy of the reference's `utils/`)
times the reference's process_changelog.py beside them (it has no cache: one series).
Not part of the test suite: speed goals live here, not in timed tests.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP_KEY = re.compile(r"^([A-Za-z0-9_.][^:#\s]*):")
CHANGED_KEY_INDEX = 0.5  # which config of nvidia-master.yaml the change edits (its position)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def corpus_tip(corpus: Path, tmp: Path) -> Path:
    """A work tree of the corpus main tip (the bare copy gets the refs/ git needs)."""
    bare = tmp / "corpus.git"
    shutil.copytree(corpus / "corpus.git", bare)
    (bare / "refs" / "heads").mkdir(parents=True, exist_ok=True)
    (bare / "refs" / "tags").mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", str(bare), str(tmp / "tip")], check=True)
    return tmp / "tip"


def blocks(text: str) -> list[tuple[str, str]]:
    """(key, block text) of each top-level block; text before the first key has key ''."""
    out: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines(keepends=True):
        m = TOP_KEY.match(line)
        if m:
            out.append((m.group(1), [line]))
        else:
            out[-1][1].append(line)
    return [(k, "".join(body)) for k, body in out]


def scaled_master(text: str, n: int) -> str:
    parts = blocks(text)
    out = [parts[0][1]]
    for i in range(n):
        for key, body in parts[1:]:
            out.append(body if i == 0 else body.replace(f"{key}:", f"{key}-x{i}:", 1))
    return "".join(out)


def renamed_entries(text: str, suffix: str) -> str:
    """The changelog text with every config key of every entry renamed."""
    out, in_keys = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("- config-keys:"):
            in_keys = True
        elif in_keys and line.startswith("    - "):
            line = line.rstrip("\n") + suffix + "\n"
        else:
            in_keys = False
        out.append(line)
    return "".join(out)


def scaled_changelog(text: str, n: int) -> str:
    body = text.rstrip("\n") + "\n"
    return "\n".join([body] + [renamed_entries(body, f"-x{i}") for i in range(1, n)])


def build(tip: Path, into: Path, n: int) -> tuple[str, str, str]:
    """A repository at scale n with base and head commits; returns (base, head, changed key)."""
    shutil.copytree(tip, into, ignore=shutil.ignore_patterns(".git"))
    subprocess.run(["git", "init", "-q", "-b", "main", str(into)], check=True)
    for master in sorted((into / "configs").glob("*-master.yaml")):
        master.write_text(scaled_master(master.read_text(), n))
    changelog = into / "perf-changelog.yaml"
    changelog.write_text(scaled_changelog(changelog.read_text(), n))
    git(into, "add", "-A")
    git(into, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "base")
    base = git(into, "rev-parse", "HEAD").strip()
    key = one_key_change(into)
    git(into, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-am", "one key")
    return base, git(into, "rev-parse", "HEAD").strip(), key


def one_key_change(repo: Path) -> str:
    """Edit one single-node config's image and append the entry that names it."""
    master = repo / "configs" / "nvidia-master.yaml"
    parts = blocks(master.read_text())
    single = [i for i, (k, body) in enumerate(parts) if k and "multinode: true" not in body and "-x" not in k]
    index = single[int(len(single) * CHANGED_KEY_INDEX)]
    key, body = parts[index]
    parts[index] = (key, re.sub(r"^(  image: .*?)(\s*)$", r"\1-bench\2", body, count=1, flags=re.M))
    master.write_text("".join(b for _, b in parts))
    with (repo / "perf-changelog.yaml").open("a") as f:
        f.write(f"\n- config-keys:\n    - {key}\n  description:\n    - \"bench: a one-key change\"\n"
                "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/9999\n")
    return key


def main_cache(repo: Path, base: str, env: dict) -> Path:
    """The cache CI restores on a pull request: filled by cache-warm.yml's full sweep of main (base)."""
    cache, saved = repo / ".git" / "sweepgate-cache", repo.parent / f"{repo.name}-main-cache"
    shutil.rmtree(cache, ignore_errors=True)
    git(repo, "checkout", "-q", base)
    subprocess.run([sys.executable, str(ROOT / "utils" / "generate_sweep_configs.py"), "full-sweep"],
                   cwd=repo, env=env, capture_output=True)
    git(repo, "checkout", "-q", "main")
    shutil.rmtree(saved, ignore_errors=True)
    shutil.copytree(cache, saved)
    return saved


def timed(cmd: list[str], repo: Path, env: dict, mode: str, runs: int, saved: Path) -> tuple[float, str, int]:
    """Median seconds of ``runs`` runs, the cache state before them, the exit code.

    mode: cold (no cache), main (main's cache restored before each run, as CI does) or warm
    (the cache this very command filled)."""
    cache = repo / ".git" / "sweepgate-cache"

    def prepare():
        shutil.rmtree(cache, ignore_errors=True)
        if mode == "main":
            shutil.copytree(saved, cache)

    prepare()
    if mode == "warm":
        subprocess.run(cmd, cwd=repo, env=env, capture_output=True)  # fill the cache
    state = "filled" if cache.is_dir() and any(cache.rglob("*")) else "empty"
    times, code = [], 0
    for _ in range(runs):
        if mode != "warm":
            prepare()
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True)
        times.append(time.perf_counter() - start)
        code = code or proc.returncode
        if proc.returncode:
            sys.stderr.write(proc.stderr.decode(errors="replace")[-2000:])
    return statistics.median(times), state, code


def best(runs: int, work) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def floor(repo: Path, runs: int) -> tuple[float, float]:
    """(seconds of the bare process, seconds to read every master config block's values at C speed)."""
    import json

    import ryml

    texts = [p.read_bytes() for p in sorted((repo / "configs").glob("*-master.yaml"))]
    process = best(runs, lambda: subprocess.run([sys.executable, str(ROOT / "utils" / "process_changelog.py"),
                                                 "--help"], cwd=repo, capture_output=True, check=True))
    read = best(runs, lambda: [json.loads(ryml.emit_json(ryml.parse_in_arena(t))) for t in texts])
    return process, read


def commands(base: str, head: str, reference: Path | None) -> dict[str, list[str]]:
    refs = ["--base-ref", base, "--head-ref", head, "--changelog-file", "perf-changelog.yaml"]
    out = {
        "matrix": [sys.executable, str(ROOT / "utils" / "process_changelog.py"), *refs],
        "gate": [sys.executable, str(ROOT / "utils" / "validate_perf_changelog.py"), *refs],
        "full-sweep": [sys.executable, str(ROOT / "utils" / "generate_sweep_configs.py"), "full-sweep"],
    }
    if reference is not None:
        out["reference matrix"] = [sys.executable, "utils/process_changelog.py", *refs]
    return out


def measure(tip: Path, tmp: Path, n: int, args) -> None:
    repo = tmp / f"x{n}"
    base, head, key = build(tip, repo, n)
    if args.reference:
        shutil.copytree(args.reference, repo / "utils")  # untracked: git reads never see it
    lines = sum(1 for _ in (repo / "configs" / "nvidia-master.yaml").open())
    print(f"{n}x: {lines} lines in nvidia-master.yaml; the change edits '{key}'", flush=True)
    env = {k: v for k, v in os.environ.items() if k not in ("SWEEPGATE_NO_CACHE", "GITHUB_REPOSITORY")}
    saved = main_cache(repo, base, env)
    process, read = floor(repo, args.runs)
    print(f"  floor: the process alone {process * 1000:.0f} ms; every block's values read at C speed "
          f"{read * 1000:.0f} ms; together {(process + read) * 1000:.0f} ms (best of {args.runs})", flush=True)
    for name, cmd in commands(base, head, args.reference).items():
        series = ["reference"] if name.startswith("reference") else ["cold", "main", "warm"]
        for label in series:
            run_env = {**env, "SWEEPGATE_NO_CACHE": "1"} if label == "cold" else env
            seconds, state, code = timed(cmd, repo, run_env, "cold" if label == "reference" else label,
                                         args.runs, saved)
            print(f"  {name:<17} {label:<9} {seconds * 1000:8.0f} ms  (cache {state} before each run, "
                  f"exit {code})", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 30])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reference", type=Path, default=None, help="a copy of the reference's utils/")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; median of {args.runs} runs", flush=True)
    with tempfile.TemporaryDirectory(prefix="sweepgate-cold-") as tmp:
        tip = corpus_tip(Path(args.corpus), Path(tmp))
        for n in args.scales:
            measure(tip, Path(tmp), n, args)
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
