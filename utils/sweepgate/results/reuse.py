"""Reuse at merge (CONTRACTS section 9): rows whose run identity the store already measured.

``find`` matches each matrix row's run identity (``core.identity``, over the files at
the given revision) against the store's successful, non-rehearsal results. ``apply``
records the reused results against the current run (so main's history is complete,
each copy naming the job that measured it in ``reused-from``) and returns the matrix
of the rows that still have to run, in the same shape.

A row whose image is a moving tag (``moving_image``) is never reused: the identity names the image by its
string, and a tag pushed again is another image under the same string.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from dataclasses import dataclass, field

from sweepgate.core import fields as F
from sweepgate.core.identity import blind_lines, identities_and_blind, read_git
from sweepgate.core.plan import ESTIMATES_FILE, counts_workers_only, load_estimates, row_cost
from sweepgate.core.fields import BUCKET_KEYS
from sweepgate.core.select import iter_rows
from sweepgate.results import record as R


# What pins an image's tag to one build: a version (`v0.5.17`, `1.3.0rc24`, `25.10`, `vllm0.23`), a date
# (`20260821`, `2026-08-21`, `0820` as month and day) or a commit-like run of 7+ hex digits (`426e59f`, also all
# digits: `vllm5517197`). Every other tag moves: `latest`, `nightly`, and the rolling builds named after a model, a
# feature, a GPU or a pull request (`kimi-k3`, `deepseek-v4-blackwell`, `pr-35880`), and a bare major (`v2`), which
# floats to its newest release. A dotted number glued to a toolchain's name (`cu13.0.1`, `py3.12`, `ubuntu24.04`,
# `rocm7.2.2`) is that toolchain's version, not the build's.
# An image named by digest (`@sha256:…`) is pinned whatever its tag; one with no tag is Docker's `latest`.
# Checked against every image of the reference's history (tests/test_reuse_image_tags_s46j.py).
_VERSION = re.compile(r"(?<![\d.])([a-z]*)\d+\.\d+")
_TOOLCHAINS = frozenset({"cu", "cuda", "py", "python", "ubuntu", "rocm", "torch", "pytorch"})
_DATE = re.compile(r"(?<![\da-z])(?:\d{4}-\d\d-\d\d|(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?![\da-z])")
_COMMIT = re.compile(r"(?<![\da-f])(?=[a-f]*\d)[\da-f]{7,}(?![\da-f])")


def pinned_tag(tag: str) -> bool:
    """Whether ``tag`` names one build: it carries a version, a date or a commit (see ``_VERSION`` above)."""
    tag = tag.lower()
    return (any(m.group(1) not in _TOOLCHAINS for m in _VERSION.finditer(tag))
            or _DATE.search(tag) is not None or _COMMIT.search(tag) is not None)


def moving_image(image) -> str | None:
    """Why ``image`` may be another image than the one a stored result of the same string measured, or None
    when it is pinned: by a digest (``@sha256:…``, whatever the tag), else by a tag ``pinned_tag`` accepts."""
    if not isinstance(image, str) or "@" in image:
        return None
    name = image.rsplit("/", 1)[-1]  # a registry's port (`host:5000/img`) is no tag
    if ":" not in name:
        return "it names no tag (Docker pulls 'latest')"
    tag = name.split(":", 1)[1]
    return None if pinned_tag(tag) else f"its tag {tag!r} names no version, date or commit, so it can be pushed again"


def row_named(bucket: str, row: dict) -> str:
    """A matrix row as reuse's lines name it: its bucket, exp-name, concurrency and runner."""
    return f"{bucket} {row.get(F.EXP_NAME, '?')} conc {row.get(F.CONC)} ({row.get(F.RUNNER)})"


def moving_line(bucket: str, row: dict, why: str) -> str:
    """The one line that says a row is not reused for its image's moving tag, and how to pin it."""
    return (f"{row_named(bucket, row)}: not reused, image "
            f"{row.get(F.IMAGE)} is a moving tag: {why}; pin it by a version, date or commit in the tag, or by "
            "@sha256: digest, to reuse its results")


@dataclass
class Found:
    """What the store holds for a matrix."""

    rows: list[tuple[str, dict, str | None]]  # (bucket, row, run identity or None), matrix order
    hits: dict[str, list[dict]] = field(default_factory=dict)  # identity -> the measuring job's records
    minutes: dict[str, float] = field(default_factory=dict)
    runners: dict = field(default_factory=dict)  # configs/runners.yaml: multi-node jobs hold whole nodes
    blind: dict[str, list[dict]] = field(default_factory=dict)  # core.identity.blind_spots: cause -> its rows
    moving: list[tuple[str, dict, str]] = field(default_factory=list)  # (bucket, row, why): never reused

    def moving_lines(self) -> list[str]:
        """One line per row kept from reuse because its image is a moving tag (``moving_image``)."""
        return [moving_line(bucket, row, why) for bucket, row, why in self.moving]

    def blind_lines(self) -> list[str]:
        """One line per cause that keeps rows without a run identity, so from reuse (``core.identity``)."""
        return blind_lines(self.blind)

    @property
    def reused(self) -> list[tuple[str, dict, str]]:
        return [item for item in self.rows if item[2] is not None and item[2] in self.hits]

    @property
    def gpu_hours_saved(self) -> float:
        return round(sum(row_cost(bucket, row, self.minutes, self.runners)[0] for bucket, row, _ in self.reused), 3)

    @property
    def lower_bound(self) -> bool:
        """Whether ``gpu_hours_saved`` counts a multi-node job by its workers' GPUs only (its runner
        states no gpus-per-node), so that the figure is a lower bound, as in the plan."""
        return any(counts_workers_only(row, self.runners) for _, row, _ in self.reused)

    def saved(self) -> str:
        """'8' or, for a lower bound, '≥ 8' (GPU-hours)."""
        return f"{'≥ ' if self.lower_bound else ''}{self.gpu_hours_saved:g}"

    def summary(self) -> str:
        return f"reused {len(self.reused)} of {len(self.rows)} jobs ({self.saved()} GPU-hours saved)"


def since(max_age_days: float | None) -> str | None:
    if max_age_days is None:
        return None
    cutoff = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=max_age_days)
    return cutoff.isoformat(timespec="seconds")


def find(matrix: dict, git, ref: str, store, max_age_days: float | None = None, pr: int | None = None) -> Found:
    """Each row's run identity at ``ref`` and the stored results that match it; with ``pr``, only that pull
    request's own (``store.reusable``): a PR's sweep of a later commit takes what its earlier sweeps measured."""
    from sweepgate.core.load import parse_yaml

    rows = list(iter_rows(matrix))
    extra = git.read_blobs(ref, [F.RUNNERS_FILE, ESTIMATES_FILE])
    runners = parse_yaml(extra[F.RUNNERS_FILE].decode(), F.RUNNERS_FILE) if extra.get(F.RUNNERS_FILE) else {}
    runners = runners if isinstance(runners, dict) else {}
    ids, blind = identities_and_blind([row for _, row in rows], runners, read_git(git, ref))
    minutes, _ = load_estimates(extra.get(ESTIMATES_FILE))
    moving = [(b, r, why) for b, r in rows if (why := moving_image(r.get(F.IMAGE))) is not None]
    held_back = {id(r) for _, r, _ in moving}
    ids = [None if id(r) in held_back else i for (_, r), i in zip(rows, ids)]
    known = [ident for ident in ids if ident is not None]  # a row without one is never reused
    hits = store.reusable(known, since(max_age_days), pr) if known else {}
    return Found([(b, r, i) for (b, r), i in zip(rows, ids)], hits, minutes, runners, blind, moving)


def remaining_matrix(matrix: dict, found: Found) -> dict:
    """``matrix`` without the reused rows, same shape (every key kept)."""
    reused = {id(row) for _, row, _ in found.reused}
    out = copy.deepcopy({k: v for k, v in matrix.items() if k not in BUCKET_KEYS})
    for name in BUCKET_KEYS:
        value = matrix.get(name)
        if isinstance(value, dict):
            out[name] = {b: [r for r in rows if id(r) not in reused] for b, rows in value.items()}
            out[name] = {b: rows for b, rows in out[name].items() if rows}
        elif isinstance(value, list):
            out[name] = [r for r in value if id(r) not in reused]
        elif name in matrix:
            out[name] = value
    return out


def origin_lines(found: Found) -> list[str]:
    """One markdown list item per reused row: the run, attempt and commit that measured its result."""
    from sweepgate.core.fields import short_sha

    out = []
    for bucket, row, ident in found.reused:
        rec = found.hits[ident][0]
        out.append(f"- {row_named(bucket, row)}: reused "
                   f"from run {rec[R.RUN_ID]} (attempt {rec[R.ATTEMPT]}) at {short_sha(str(rec.get(R.COMMIT)))}")
    return out


def reused_records(found: Found, *, run_id: str, attempt: int, ref: str | None, commit: str | None) -> list[dict]:
    """The measuring jobs' records, recorded against the current run."""
    out = []
    for _, _, ident in found.reused:
        for rec in found.hits[ident]:
            copy_ = {k: v for k, v in rec.items() if k != R.RUN_CANCELLED}  # the current run's now, not the one cut
            copy_[R.REUSED_FROM] = {R.RUN_ID: rec[R.RUN_ID], R.ATTEMPT: rec[R.ATTEMPT],
                                    R.RESULT_FILENAME: rec[R.RESULT_FILENAME]}
            copy_.update({R.RUN_ID: run_id, R.ATTEMPT: attempt, R.REF: ref, R.COMMIT: commit})
            out.append(copy_)
    return out
