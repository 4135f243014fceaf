"""The job sidecar ``$RESULT_FILENAME.job.json`` (CONTRACTS section 8): what a job says about itself.

``{"row": <the matrix row as dispatched>, "job": {config-key, run-id, attempt,
commit, ref, runner-name, started, finished, status, rehearsal, run-identity}}``. The
benchmark workflow writes it (``sweepgate results sidecar``) even when the
script failed, ``sweepgate rehearse`` writes it with ``rehearsal: true``, and
``results ingest`` pairs it with the output beside it. The key names live
here; ``results.record`` uses the same ones for provenance.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

SUFFIX = ".job.json"
# A job's eval scores: lm-eval's results JSON at $RESULT_FILENAME-eval.json, beside the
# throughput output, paired with the same sidecar (benchmarks/lib/evals.sh writes it).
EVAL_SUFFIX = "-eval"
# The folder of server logs beside them ($RESULT_DIR/logs), uploaded whole by the templates.
LOGS = "logs"
ROW, JOB = "row", "job"
CONFIG_KEY = "config-key"
RUN_ID = "run-id"
ATTEMPT = "attempt"
COMMIT = "commit"
REF = "ref"
RUNNER_NAME = "runner-name"
STARTED = "started"
FINISHED = "finished"
STATUS = "status"            # success | failure | cancelled
REHEARSAL = "rehearsal"
RUN_IDENTITY = "run-identity"  # core.identity.run_identity of the row and the files the job ran
JOB_KEYS = (CONFIG_KEY, RUN_ID, ATTEMPT, COMMIT, REF, RUNNER_NAME, STARTED, FINISHED, STATUS, REHEARSAL,
            RUN_IDENTITY)
SUCCESS, FAILURE, CANCELLED = STATUSES = ("success", "failure", "cancelled")  # a job's status, named once


# What the GPU side knows about the jobs it dispatched, beside matrix.json in the run's matrix
# artifact (`sweepgate ci split --job-context`): the sweep's ref and commit, and each row's
# config key by split row id; `sweepgate results sidecar` reads it ($JOB_CONTEXT_FILE).
MATRIX_FILE = "matrix.json"  # the run's matrix, which the same artifact carries
CONTEXT_FILE = "job-context.json"
CONTEXT_ENV = "JOB_CONTEXT_FILE"  # the variable the benchmark templates set to its path
CONTEXT_CONFIG_KEYS = "config-keys"   # row id (<kind>/<index>) -> config key


def pr_ref(number: int | str) -> str:
    """The ref a PR's results are recorded under (never main's, so a PR never joins main's baseline)."""
    return f"refs/pull/{number}/head"


def pr_number_of(ref) -> int | None:
    """The pull request a stored ref is of (``refs/pull/42/head`` or ``/merge``: 42), else None."""
    found = re.fullmatch(r"refs/pull/([1-9][0-9]*)/[^/]+", ref) if isinstance(ref, str) else None
    return int(found.group(1)) if found else None


# The namespaces of the refs a workflow runs on (GITHUB_REF), and the misspellings of them a hand makes: a ref under
# one of those (refs/head/main) is no ref GitHub sets, and results stored under it are in no baseline (s49e).
REF_NAMESPACES = ("heads", "tags", "pull")
_NAMESPACE_SPELLINGS = re.compile(r"refs/(?:(?P<heads>heads?s?)|(?P<tags>tags?s?)|(?P<pull>pulls?))/(?P<rest>.*)", re.I)


def _meant_namespace(ref: str) -> str | None:
    """The ref a ref under a misspelt namespace means (refs/head/main -> refs/heads/main, refs/Heads/x ->
    refs/heads/x), None for any other ref, one under a namespace spelt right among them."""
    found = _NAMESPACE_SPELLINGS.fullmatch(ref)
    if found is None:
        return None
    namespace = next(n for n in REF_NAMESPACES if found.group(n) is not None)
    return None if found.group(namespace) == namespace else f"refs/{namespace}/{found.group('rest')}"


# What git's check-ref-format refuses in a ref's name (git-check-ref-format(1)), each said as ``ref_name_problem``
# says it: a character git never puts in one (a control character, a space, ~ ^ : ? * [ \), two dots, '@{', an
# empty part, a part that begins with a dot or ends in '.lock', a '/' or a '.' at the end
_NOT_IN_REF = re.compile(r"(?P<char>[\x00-\x20\x7f~^:?*\[\\])|(?P<seq>\.\.|@\{|//)|(?P<dot>/\.)"
                         r"|(?P<lock>\.lock(?:/|$))|(?P<end>[/.]$)")
_CHAR_SAID = {" ": "a space", "\t": "a tab"}


def ref_name_problem(ref: str) -> str | None:
    """What makes ``ref`` no name git gives a ref, in a few words (``it ends in a space``), else None. Stored so, a
    result is of no ref any baseline or PR lookup asks for (refs/heads/main , with a space)."""
    found = _NOT_IN_REF.search(ref)
    if found is None:
        return None
    kind, text = found.lastgroup, found.group()
    if kind == "char":
        said = _CHAR_SAID.get(text, "a control character" if text < " " or text == "\x7f" else repr(text))
        return f"it {'ends in' if found.end() == len(ref) else 'holds'} {said}"
    if kind == "lock":
        return "a part of it ends in '.lock'"
    if kind == "dot":
        return "a part of it begins with '.'"
    return f"it ends in {text!r}" if kind == "end" else f"it holds {text!r}"


def is_full_ref(ref: str) -> bool:
    """Whether a ref is named as GitHub names it (refs/heads/main, refs/pull/42/merge): results are
    stored under it, and a baseline or PR lookup by the full name never finds a short one; a PR's
    names its number and what of it (refs/pull/42 is no ref, and no PR lookup would find it); a ref under a
    misspelt namespace (refs/head/main: ``_meant_namespace``) is none either; and git could name it
    (``ref_name_problem``)."""
    return (ref.startswith("refs/") and (not ref.startswith("refs/pull/") or pr_number_of(ref) is not None)
            and _meant_namespace(ref) is None and ref_name_problem(ref) is None)


def ref_without_spaces(ref: str) -> str | None:
    """The full ref a ref git could not name (``ref_name_problem``) is once the spaces and tabs around it are taken
    off (a short one completed, ``full_ref_for``), the fix its refusal names; None when that is no ref either."""
    bare = ref.strip(" \t")
    if bare == ref or not bare or ref_name_problem(bare) is not None:
        return None
    return bare if is_full_ref(bare) else full_ref_for(bare)


def full_ref_for(ref: str) -> str:
    """The full ref a short one most likely names (main -> refs/heads/main, pull/42/merge ->
    refs/pull/42/merge, pull/42 -> refs/pull/42/head, where the workflow stores a PR's results; refs/head/main ->
    refs/heads/main): the fix a refusal of the short one suggests."""
    if (meant := _meant_namespace(ref)) is not None:
        return full_ref_for(meant) if meant.startswith("refs/pull/") and pr_number_of(meant) is None else meant
    if number := re.fullmatch(r"(?:refs/)?pull/([1-9][0-9]*)/?", ref):
        return pr_ref(number.group(1))
    return f"refs/heads/{ref}" if "/" not in ref else f"refs/{ref}"


def context(ref: str | None, commit: str | None, config_keys: dict[str, str | None]) -> dict:
    return {REF: ref, COMMIT: commit, CONTEXT_CONFIG_KEYS: config_keys}


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def path_for(result_dir: str | Path, result_filename: str) -> Path:
    return Path(result_dir) / f"{result_filename}{SUFFIX}"


def eval_path_for(result_dir: str | Path, result_filename: str) -> Path:
    return Path(result_dir) / f"{result_filename}{EVAL_SUFFIX}.json"


def build(row: dict, *, run_id: str, attempt: int = 1, status: str, config_key: str | None = None,
          commit: str | None = None, ref: str | None = None, runner_name: str | None = None,
          started: str | None = None, finished: str | None = None, rehearsal: bool = False,
          run_identity: str | None = None) -> dict:
    """A sidecar document."""
    return {ROW: row, JOB: {CONFIG_KEY: config_key, RUN_ID: run_id, ATTEMPT: attempt, COMMIT: commit, REF: ref,
                            RUNNER_NAME: runner_name, STARTED: started, FINISHED: finished, STATUS: status,
                            REHEARSAL: rehearsal, RUN_IDENTITY: run_identity}}


def write(path: Path, doc: dict) -> None:
    """Write a sidecar atomically (never half a file, no temp file left on failure). It lies among a
    benchmark's outputs, so a link or FIFO found at its path is replaced, never followed (a host file)."""
    from sweepgate.core.atomic import atomic_write

    atomic_write(path, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8"), through=False)
