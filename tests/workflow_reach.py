"""Which workflow jobs can land on a self-hosted runner, and which triggers can reach them.

Test helper for tests/test_workflows.py: reads every workflow under .github/workflows,
follows `uses: ./.github/workflows/...` calls, and reports each job whose `runs-on` may be
a self-hosted label while the workflow that holds it is reachable from a PR trigger.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

# GitHub-hosted standard image labels (docs: "GitHub-hosted runners reference").
HOSTED = re.compile(r"(ubuntu|windows|macos)-(latest|\d+(\.\d+)?)(-arm|-arm64|-intel|-large|-xlarge)?")
PR_TRIGGERS = {"pull_request", "pull_request_target"}
# Triggers whose workflow definition always comes from the default branch (or main itself).
TRUSTED_TRIGGERS = {"push", "workflow_dispatch", "schedule", "workflow_call"}


def load(path: Path) -> dict:
    doc = yaml.safe_load(path.read_text()) or {}
    on = doc.pop(True, doc.pop("on", {}))  # YAML 1.1 reads `on:` as True
    if isinstance(on, str):
        on = {on: None}
    elif isinstance(on, list):
        on = dict.fromkeys(on)
    doc["on"] = on or {}
    return doc


def may_be_self_hosted(runs_on) -> bool:
    """True unless every label is a literal GitHub-hosted image name."""
    if isinstance(runs_on, str):
        return "${{" in runs_on or not HOSTED.fullmatch(runs_on.strip())
    if isinstance(runs_on, list):
        return not runs_on or any(may_be_self_hosted(item) for item in runs_on)
    return True  # {group:, labels:} or anything else: a runner group may hold self-hosted runners


def callers(docs: dict[str, dict]) -> dict[str, set[str]]:
    """callee file name -> names of the workflows whose jobs call it."""
    out: dict[str, set[str]] = {}
    for name, doc in docs.items():
        for job in (doc.get("jobs") or {}).values():
            uses = str(job.get("uses", ""))
            if uses.startswith("./.github/workflows/"):
                out.setdefault(Path(uses.split("@")[0]).name, set()).add(name)
    return out


def reaching_triggers(docs: dict[str, dict]) -> dict[str, set[str]]:
    """Every trigger that can start each workflow, directly or through callers."""
    called_by = callers(docs)
    memo: dict[str, set[str]] = {}

    def walk(name: str, seen: frozenset) -> set[str]:
        if name in memo:
            return memo[name]
        found = set(docs.get(name, {}).get("on", {})) - {"workflow_call"}
        for caller in called_by.get(name, ()):
            if caller not in seen:
                found |= walk(caller, seen | {caller})
        memo[name] = found
        return found

    return {name: walk(name, frozenset({name})) for name in docs}


def violations(workflow_dir: Path) -> list[str]:
    """One line per self-hosted-capable job in a workflow a PR (or an untrusted trigger) can start."""
    docs = {p.name: load(p) for p in sorted(workflow_dir.glob("*.y*ml"))}
    triggers = reaching_triggers(docs)
    problems = []
    for name, doc in docs.items():
        for job_name, job in (doc.get("jobs") or {}).items():
            bad = sorted(triggers[name] - TRUSTED_TRIGGERS)
            uses = str(job.get("uses", ""))
            if uses and not uses.startswith("./.github/workflows/") and bad:
                # Security audit: a reusable workflow of another repository (or another ref) was
                # not followed; its jobs cannot be read here, so a PR must not reach it at all.
                problems.append(f"{name}:{job_name}: calls {uses}, whose jobs this check cannot read, "
                                f"and {', '.join(bad)} reaches it")
                continue
            if "uses" in job or not may_be_self_hosted(job.get("runs-on")):
                continue
            if bad:
                problems.append(f"{name}:{job_name}: runs-on {job.get('runs-on')!r} may be self-hosted, "
                                f"and {', '.join(bad)} reaches it")
    return problems


def untrusted(workflow_dir: Path) -> list[str]:
    """The workflows a PR (or another untrusted trigger) can start, directly or through callers."""
    docs = {p.name: load(p) for p in sorted(workflow_dir.glob("*.y*ml"))}
    return [name for name, found in reaching_triggers(docs).items() if found - TRUSTED_TRIGGERS]
