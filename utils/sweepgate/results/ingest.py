"""`results ingest`: raw job outputs (and their sidecars) -> normalized records -> the store.

One transaction per file, so a refused file leaves nothing behind and every
other file is still stored. Folders are walked for ``*.json``, ``*.jsonl`` and
``*.csv``, in any case (which of those is a result is decided by content; a broken
link or FIFO so named, and a subfolder that cannot be read, are refused); a CSV export
beside a JSON export of the same name is the same run and is skipped (also when
both are named on the command line), and so is a `vllm bench sweep serve` summary.json
beside the run=N.json it lists (serve_sla's SLA--*.json above them), and one that lists runs
not beside it is read for those alone, and so are the per-phase exports an AIPerf phase_manifest.json
names (``_without_phase_exports``); a ``.job.json`` without an output (the script died first)
becomes a failure record. Archives holding results and results compressed whole beside them are
named in a warning each, not read; lm-eval's compressed samples logs are counted (``_packed_results``).
In a walked folder that holds job sidecars, only outputs paired with one (their own
``X.job.json``, or an eval's ``X-eval.json`` with its job's) are results; the other
files there (per-concurrency parts, AIPerf export folders, gpu_metrics.csv) are the
jobs' helper outputs and are skipped, and counted. A folder without any sidecar (raw
samples) and files named on the command line are ingested as they are (a named output or sidecar brings its
job's ``X-eval.json`` beside it, as a folder does: ``_eval_beside``). Ingesting a
file again stores nothing (but the ref or commit its stored records were stored without, when it now has
them: ``store_immutable.Provided``); a changed file whose records' (run-id, attempt,
result-filename) are stored is refused (results are immutable). A run that another
file without a sidecar holds too (a sweep's run=N.json and its summary.json#N, read in
two ingests) is stored once, from its own file (``store_dedup._one_measurement``).
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import hashlib
import math
import os
from pathlib import Path

from sweepgate.core import fields as F
from sweepgate.core import jobfile
from sweepgate.core.errors import Diagnostic, SweepgateError, fail, link_trouble, os_failure, printable
from sweepgate.core.report import count
from sweepgate.core.signals import SignalsHeld as _signals_held
from sweepgate.core.textmode import decoded, not_utf8
from sweepgate.results import derive, jsonio, normalize, plausible, sidecar, sniff
from sweepgate.results import record as R
from sweepgate.results.formats import aiperf, aiperf_csv, foreign, gpu_metrics, lm_eval, vllm
from sweepgate.results.measurement import Measurement
from sweepgate.results.store import SAME_BYTES_RULE, Copied, Immutable, SameBytes, StoreError, file_of

WALKED_SUFFIXES = (".json", ".jsonl", ".csv")
OUTPUT_SUFFIXES = (".json", ".jsonl", ".csv")
NO_RESULTS_FIX = "pass the folder the job outputs were downloaded into"  # of a folder that holds no result file
UNREADABLE_RULE = "unreadable-entry"  # the title of a path named or walked that cannot be read as a file


@dataclasses.dataclass
class Given:
    """``--row FILE --run-id ID --ref REF [--attempt N] [--config-key KEY] [--commit SHA]`` for outputs without a
    sidecar."""

    row: dict | None = None
    run_id: str | None = None
    ref: str | None = None
    attempt: int | None = None
    config_key: str | None = None
    commit: str | None = None
    row_file: tuple[str, str] | None = None  # (--row FILE, its text): where a warning of the row is placed


@dataclasses.dataclass
class Outcome:
    results: int = 0
    new: int = 0
    records: list = dataclasses.field(default_factory=list)
    problems: list = dataclasses.field(default_factory=list)
    warnings: list = dataclasses.field(default_factory=list)  # stored all the same
    interrupted: tuple[int, int] | None = None  # (files done, files in all) when Ctrl-C stopped it
    files_done: int = 0
    stopped_by: BaseException | None = None  # what interrupted it: Ctrl-C, SIGTERM or the store's failure
    beside: list = dataclasses.field(default_factory=list)  # files that go with a result (gpu_metrics.csv), read as none
    kinds: dict = dataclasses.field(default_factory=dict)  # each of ``beside``: its kind (a sniff.Auxiliary class)
    # this ingest's placeholders (a job's sidecar alone), by key: their records and warnings, until an
    # output of this ingest fills them; and the keys its outputs were stored under (``_superseded``)
    placeholders: dict = dataclasses.field(default_factory=dict)
    measured: set = dataclasses.field(default_factory=set)
    # placeholders not stored because an earlier ingest stored their job's output, by key: (their file,
    # record) (``_superseded``), unless an output of this ingest is their job's
    stored_before: dict = dataclasses.field(default_factory=dict)
    firsts: dict = dataclasses.field(default_factory=dict)  # the SHA-256 of each output stored -> its file
    # one measurement two hashed runs' files hold (a sweep's run=N.json and summary.json#N), stored once:
    # (the file read, store.Alike, whether its kept record is that file's) for each record not stored or
    # stored row replaced (``store_dedup._one_measurement``)
    alike: list = dataclasses.field(default_factory=list)
    # the warnings of results stored before, not said again (``_not_said_before``): (the file, the warning)
    said_before: list = dataclasses.field(default_factory=list)
    # the results of this ingest on no ref (``no_ref``), each as a NoRef, in the order read: said by the command, as
    # no baseline or PR's run holds them
    no_ref: list = dataclasses.field(default_factory=list)
    # stored results an output read again gave the ref or commit they were stored without: (its file, store.Provided)
    provided: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class NoRef:
    """A result of this ingest on no ref: ``file`` is the output for one with no sidecar and no --row
    (``sidecar.local_record``, ``raw``), else the job's sidecar that names no ref (``job.ref`` null or left out);
    ``new`` when this ingest stored it (not an output stored before, read again)."""

    file: str
    raw: bool
    new: bool
    record: dict


def on_no_ref(outcome: Outcome, raw: bool) -> dict[str, tuple[int, int]]:
    """Of the results of this ingest on no ref (``outcome.no_ref``, ``raw`` ones or jobs' with no ref), by file in
    the order read: (how many it stored, how many were stored before). A rehearsal's (run on no ref, judged only
    against rehearsals) is none of them, nor a record no longer of this ingest (a placeholder its output took the
    place of: ``_superseded``)."""
    kept = {id(rec) for rec in outcome.records}
    out: dict[str, tuple[int, int]] = {}
    for n in outcome.no_ref:
        if n.raw == raw and id(n.record) in kept:
            new, before = out.get(n.file, (0, 0))
            out[n.file] = (new + n.new, before + (not n.new))
    return out


@dataclasses.dataclass
class Walk:
    files: list[Path]
    skipped: list[Path]  # helper outputs beside jobs' sidecars, not results
    twins: list[Path] = dataclasses.field(default_factory=list)  # CSV exports beside their JSON: the same runs
    refused: list[Diagnostic] = dataclasses.field(default_factory=list)  # entries a walk could not read
    # archives beside the results that hold result files (artifacts not yet unzipped, tarballs) and compressed
    # results (res.json.gz): warned of, not ingested
    warnings: list[Diagnostic] = dataclasses.field(default_factory=list)
    # lm-eval's compressed samples logs (samples_<task>_<time>.jsonl.gz) beside the results: no result, counted
    packed_logs: list[Path] = dataclasses.field(default_factory=list)
    # vllm bench sweep's summary.json beside the run=N.json it lists: the same runs
    summaries: list[Path] = dataclasses.field(default_factory=list)
    # a summary some of whose runs (not all) are beside it: its entries (numbered from 1, as its
    # records' ``summary.json#N``) read from their own run=N.json, so left out of it
    listed: dict[Path, frozenset[int]] = dataclasses.field(default_factory=dict)
    # the exports of one phase of an AIPerf run under phases/<name>/, named by the phase_manifest.json beside
    # the run's own export: a share of that run (a warm-up's too), not a run
    phase_exports: list[Path] = dataclasses.field(default_factory=list)
    # an AIPerf run's own exports beside a manifest of several profiling phases: their requests pooled, no one
    # point's figures (each profiling phase's export is a result)
    pooled: list[Path] = dataclasses.field(default_factory=list)
    # the bytes of the files to ingest that the walk read whole (a sweep's summary and the runs beside it, an
    # AIPerf phase manifest): the ingest reads them from here, not again (each taken out as it is read)
    read: dict[Path, bytes] = dataclasses.field(default_factory=dict)


def _walked(path: Path) -> bool:
    """A name the walk looks at: .json, .jsonl or .csv in any case (``RES.JSON`` from Windows tools)."""
    return path.suffix.lower() in WALKED_SUFFIXES


@dataclasses.dataclass(frozen=True)
class Packed:
    """An archive or compressed result a walk met (``_packed``), looked at once: its kind (jsonio.KINDS; TAR for a
    compressed tar archive), the compressor of a tar archive so compressed (by its bytes, else by its name:
    ``.tar.zst``; None for a plain one and any other kind), and its first bytes."""

    kind: jsonio.Kind
    by: jsonio.Kind | None
    head: bytes


def _packed(path: Path) -> Packed | None:
    """What a file not named like an output is of the archives and compressed results (jsonio.KINDS), by its
    first bytes where its name has no extension or an archive's or compressor's (``jsonio.packed_name``): a zip,
    7z or tar archive, plain or compressed (TAR: ``runs.tar.gz``, ``runs.tgz``, or an artifact saved as
    ``artifact``); a compressed file holding no tar archive is a result compressed whole where its name says so
    (``res.json.gz``, ``res.jsonl.xz``), and nothing of these otherwise (a compressed log, ``server.log.gz``). A
    file of another extension is none of these whatever its bytes (``checkpoint.pt``, ``report.xlsx``: zips
    inside). A file whose bytes say nothing of these kinds (one it cannot read; a zstd-compressed one, which this
    Python cannot unpack to look, is told a tar archive by its name) is what its name says (``_named_packed``).
    None for an output's name (read, and refused, as what it is) or any other file."""
    if _walked(path) or not jsonio.packed_name(path.name) or not path.is_file():  # never a FIFO opened
        return None
    head = jsonio.file_head(path)
    kind = jsonio.kind_of(head)
    if kind is not None and kind.kind == jsonio.ARCHIVE:
        return Packed(kind, None, head)
    if kind is not None and kind.kind == jsonio.COMPRESSED and jsonio.inside(kind, head, path.name) is jsonio.TAR:
        return Packed(jsonio.TAR, kind, head)
    if kind is not None and kind.kind != jsonio.COMPRESSED:
        return None  # a database, an image
    named = _named_packed(path.name)
    if named is None:
        return None
    return Packed(named, (kind or _named_compressor(path.name)) if named is jsonio.TAR else None, head)


def _named_compressor(name: str) -> jsonio.Kind | None:
    """The compressor a tar archive's name says (``.tar.zst``, ``.tgz``); None for a plain one's (``.tar``)."""
    low = name.lower()
    return next((k for k in jsonio.KINDS if k.kind == jsonio.COMPRESSED
                 and low.endswith((".tar" + k.suffix, *k.tar_ends))), None)


def _named_packed(name: str) -> jsonio.Kind | None:
    """What a file's name says it is of the archives and compressed results (jsonio.KINDS): a tar archive,
    plain or compressed (``runs.tar.gz``, ``runs.tgz``), a zip or 7z archive, a result compressed whole
    (``res.json.gz``, ``res.jsonl.xz``); None for any other name (a compressed log, ``server.log.gz``)."""
    low = name.lower()
    if low.endswith(jsonio.TAR_NAMES):  # tar -xf reads every compressed tar
        return jsonio.TAR
    for kind in jsonio.KINDS:
        if kind.kind == jsonio.ARCHIVE and kind.ends and low.endswith(kind.ends):
            return kind
        if kind.kind == jsonio.COMPRESSED and low.endswith(kind.suffix) and _walked(Path(low[:-len(kind.suffix)])):
            return kind
    return None


def _not_a_file(path: Path) -> Diagnostic:
    """Why a walked entry named like an output is no file to read: a broken symbolic link (and where it
    points) or one in a loop (``errors.link_trouble``), a FIFO..."""
    if (trouble := link_trouble(path)) is not None:
        said = trouble.said if trouble.loops else f"{BROKEN_LINK} ({trouble.chain[1]})"
        return Diagnostic(str(path), 0, 0, UNREADABLE_RULE, f"{said}; not ingested", "fix the link or remove it")
    return Diagnostic(str(path), 0, 0, UNREADABLE_RULE, f"not a regular file ({_kind(path)}); not ingested",
                      "replace it with the result file or remove it")


BROKEN_LINK = "a symbolic link to nothing"


def _kind(path: Path) -> str:
    """What a path that is no regular file is: a symbolic link to nothing, or in a loop (naming its chain: a
    loop is no link to nothing), a folder, else a FIFO, socket or device."""
    if (trouble := link_trouble(path)) is not None:
        return trouble.said if trouble.loops else BROKEN_LINK
    return "a folder" if path.is_dir() else "a FIFO, socket or device"


LINK_OUT_RULE = "link-outside"  # the title of a symbolic link in a walked folder to a file outside it


def _entries(folder: Path, refused: list[Diagnostic]) -> tuple[list[Path], dict[Path, Packed]]:
    """(every entry named like an output under ``folder``, every archive or compressed result there by
    ``_packed``, looked at once) (symbolic links to folders not followed); a subfolder that cannot be read is added
    to ``refused``. A symbolic link so named that leads out of ``folder`` refuses the walk (``_links_out``) before
    any file is looked at."""
    def unreadable(exc: OSError) -> None:  # os.walk passes over what it cannot list, unless told
        refused.append(Diagnostic(exc.filename or str(folder), 0, 0, UNREADABLE_RULE,
                                  f"cannot read this folder ({exc.strerror}); its files are not ingested",
                                  "make it readable, or pass the folders that can be read"))

    named = [path for top, _dirs, names in os.walk(folder, onerror=unreadable)
             for path in (Path(top, name) for name in names) if _walked(path) or jsonio.packed_name(path.name)]
    _links_out(folder, named)
    entries, packed = [], {}
    for path in named:
        if _walked(path):
            entries.append(path)
        elif (found := _packed(path)) is not None:
            packed[path] = found
    return entries, packed


def _links_out(folder: Path, paths: list[Path], named: Path | None = None) -> None:
    """Refuse, one line each, the symbolic links among ``paths`` (the entries a walk of ``folder`` looks at, or
    the job's files read beside ``named``, a file given in ``folder``: ``_read_beside``) that lead to a file
    outside ``folder`` (where the folder leads, itself a link or not): /etc/passwd, a result of another folder.
    Raised before any file is read, so nothing is read through them (a job's sidecar, its GPU samples beside an
    output) and nothing is stored. A link to a file inside ``folder`` is that file; one to nothing or in a loop
    keeps its own line (``_not_a_file``); the file named is read wherever it leads."""
    root = Path(os.path.realpath(folder))
    given = f"the folder of the file given ({named})" if named else f"the folder given ({folder})"
    out = []
    for path in paths:
        if not path.is_symlink() or link_trouble(path) is not None:
            continue
        target = Path(os.path.realpath(path))
        if not target.is_relative_to(root):
            out.append(Diagnostic(str(path), 0, 0, LINK_OUT_RULE, f"a symbolic link to {target}, outside {given}; "
                                  "nothing is ingested",
                                  "copy the file itself into the folder (cp -L), or remove the link"))
    if out:
        raise SweepgateError(out)


def _outputs_of(folder: Path, refused: list[Diagnostic], zips: dict[Path, Packed],
                document) -> tuple[list[Path], list[Path], list[Path]]:
    """(outputs, helper files beside jobs' sidecars, CSV exports beside a JSON export of one name);
    entries that are no regular file (broken links, FIFOs) and unreadable subfolders go to ``refused``,
    archives and compressed results to ``zips`` (``_packed_results``), but, in a folder of jobs' sidecars, a
    result compressed whole that no sidecar pairs with to the helper files; one a sidecar pairs with is its
    job's output (s36i: it was a helper file), and a sidecar whose only output it is waits for it
    (``_waiting_sidecar``); ``document``: the walk's (``_without_csv_twins``)."""
    entries, packed = _entries(folder, refused)
    refused.extend(_not_a_file(p) for p in sorted(entries) if not p.is_file() and not p.is_dir())
    files, twins = _without_csv_twins(sorted(p for p in entries if p.is_file()), document)
    if not any(sidecar.is_sidecar(p) for p in files):
        zips.update(packed)
        return files, [], twins
    outputs = {p for p, found in packed.items() if found.kind.kind == jsonio.ARCHIVE or _paired(p, found.kind)}
    zips.update((p, found) for p, found in packed.items() if p in outputs)  # as beside any results (s36c, s36i)
    waiting = {_waiting_sidecar(p, packed[p].kind) for p in outputs}
    paired = {p for p in files if (sidecar.is_sidecar(p) or sidecar.sidecar_path(p).is_file()) and p not in waiting}
    helpers = [p for p in files if p not in paired and p not in waiting] + sorted(p for p in packed
                                                                                  if p not in outputs)
    return [p for p in files if p in paired], helpers, twins


def _unpacked_path(path: Path, kind: jsonio.Kind) -> Path:
    """The file a result compressed whole (``c4.json.gz``) decompresses to beside itself (``c4.json``)."""
    return path.with_name(path.name[:-len(kind.suffix)])


def _paired(path: Path, kind: jsonio.Kind) -> bool:
    """Whether a result compressed whole is a job's output: its decompressed name pairs with a sidecar."""
    return kind.kind == jsonio.COMPRESSED and sidecar.sidecar_path(_unpacked_path(path, kind)).is_file()


def _waiting_sidecar(path: Path, kind: jsonio.Kind) -> Path | None:
    """The sidecar of the job whose output ``path`` is, compressed whole, when the job has no other output:
    not ingested until the output is unpacked (stored alone, it read as a job that left no result file)."""
    if not _paired(path, kind):
        return None
    side = sidecar.sidecar_path(_unpacked_path(path, kind))
    return side if _output_for(side) is None else None


def walk(paths: list[str], allow_empty: bool = False) -> Walk:
    """Every file to ingest (given files as they are, folders walked) and the helper files skipped.

    An empty folder is bad input unless ``allow_empty`` (a sweep whose rows were all
    reused leaves no job outputs to collect).
    """
    out: list[Path] = []
    skipped: list[Path] = []
    twins: list[Path] = []
    refused: list[Diagnostic] = []
    zips: dict[Path, Packed] = {}
    problems: list[Diagnostic] = []  # every path given that names nothing to read, said together
    lone: list[Diagnostic] = []  # jobs' outputs whose sidecar is missing (``_unpaired_outputs``)
    head = functools.cache(_head)  # each file's first bytes opened once for every look below
    read: dict[Path, bytes] = {}
    document = functools.cache(lambda path: _document(path, read))  # a file read whole once, for every look
    for given in paths:
        try:
            _walk_one(given, allow_empty, out, skipped, twins, refused, zips, document, lone)
        except SweepgateError as exc:
            problems.extend(exc.diagnostics)
    if problems:
        raise SweepgateError(problems)

    files, phases, pooled = _without_phase_exports(_unique(out), head, document)
    files, named = _without_csv_twins(files, document)
    files, summaries, listed = _without_sweep_summaries(files, head, document)
    kept = set(files)
    warned, logs = _packed_results(zips, [*out, *skipped, *twins])
    return Walk(files, skipped, twins + named, refused, lone + warned, packed_logs=logs,
                summaries=summaries, listed=listed, phase_exports=phases, pooled=pooled,
                read={path: content for path, content in read.items() if path in kept})


def _walk_one(given: str, allow_empty: bool, out: list[Path], skipped: list[Path], twins: list[Path],
              refused: list[Diagnostic], zips: dict[Path, Packed], document, lone: list[Diagnostic]) -> None:
    """Add what one given path holds to ``walk``'s lists; a path that names nothing to read raises."""
    path = Path(given)
    if path.is_dir():
        before = len(refused)
        kept, helpers, same = _outputs_of(path, refused, zips, document)
        if not kept and not helpers and len(refused) == before and not allow_empty:
            raise _no_results_in(given, path, {p: found for p, found in zips.items() if p.is_relative_to(path)})
        out.extend(kept)
        unpaired = _unpaired_outputs(path, kept, helpers, document)
        lone.extend(_unpaired_warning(p) for p in unpaired)
        skipped.extend(p for p in helpers if p not in unpaired)
        twins.extend(same)
    elif path.is_file():
        _links_out(path.parent, _read_beside(path), named=path)  # as a walk of its folder refuses them
        out.append(path)
        out.extend([scores] if (scores := _eval_beside(path)) is not None else [])
    elif path.exists():  # a FIFO, a socket, a device: nothing a client writes results into
        raise fail(given, 0, "not a regular file or folder", "pass result files or the folders that hold them")
    elif (trouble := link_trouble(given)) is not None:  # "no such file" of a link that is there misled
        raise fail(given, 0, trouble.reason(given).removeprefix("it "),
                   "point the link at the results (ln -sfn TARGET LINK), or pass the files themselves")
    elif any(c in given for c in "*?[") or given.startswith("~"):  # quoted: the shell expanded nothing
        raise fail(given, 0, "no such file or folder (a quoted wildcard or ~ is not expanded: ingest reads "
                   "no patterns)", "pass the folder that holds the results, or leave the pattern unquoted")
    else:
        raise fail(given, 0, "no such file or folder", "pass result files or the folders that hold them")


UNPAIRED_RULE = "output-without-sidecar"  # a job's output in a folder of jobs' sidecars, its own missing


def _unpaired_outputs(folder: Path, kept: list[Path], helpers: list[Path], document) -> set[Path]:
    """The files among ``helpers`` (``_outputs_of``'s, in the walked ``folder``) that are a job's output whose own
    sidecar is missing, not a job's helper file (s49e: one was counted with the helpers, and its figures were lost
    without a word): a .json or .jsonl benchmark client output (``sniff.is_output``) whose name extends no sidecar's
    result name in its folder (a multi-node job's ``X_conc4.json``) and that lies in no subfolder of a folder holding
    a sidecar (an agentic job's ``aiperf_X/`` export)."""
    names: dict[Path, list[str]] = {}
    for side in (p for p in kept if sidecar.is_sidecar(p)):
        names.setdefault(side.parent, []).append(sidecar.result_name(side))
    out = set()
    for path in helpers:
        if path.suffix.lower() not in (".json", ".jsonl") or not path.is_relative_to(folder):
            continue
        if any(path.name.startswith(name) for name in names.get(path.parent, ())):
            continue
        if any(up in names for up in path.parent.parents if up.is_relative_to(folder)):
            continue
        doc = document(path) if path.suffix.lower() == ".json" else _first_line(path)
        if sniff.is_output(doc):
            out.add(path)
    return out


def _first_line(path: Path):
    """A JSONL file's first document, or None."""
    try:
        with open(path, "rb") as f:
            return jsonio.loads(f.readline().decode("utf-8-sig"), str(path))
    except (OSError, UnicodeDecodeError, SweepgateError):
        return None


def _unpaired_warning(path: Path) -> Diagnostic:
    """The one line of a job's output whose sidecar is missing (``_unpaired_outputs``): not ingested."""
    name = path.name.rsplit(".", 1)[0]
    return Diagnostic(str(path), 0, 0, UNPAIRED_RULE,
                      f"warning: a benchmark output with no {name}{sidecar.SUFFIX} beside it, in a folder of jobs' "
                      "sidecars: not ingested (no job's helper file either: its name extends no sidecar's)",
                      "copy its job's sidecar beside it (the benchmark job's `sweepgate results sidecar` step writes "
                      "it), or ingest it alone with --row FILE --run-id ID --ref REF", severity="warning")


def _read_beside(path: Path) -> list[Path]:
    """The job's files ingest reads beside ``path``, a file named on the command line: its sidecar (or, for a
    sidecar, its output), the output's GPU samples and the lm-eval scores paired with it."""
    output = _output_for(path) if sidecar.is_sidecar(path) else path
    beside = [] if output is not path else [sidecar.sidecar_path(path)]
    beside += [output, *gpu_metrics.paths_beside(output)] if output is not None else []
    beside += [scores] if (scores := _eval_beside(path)) is not None else []
    return [p for p in beside if p != path]  # the file named is read wherever it leads


def _eval_beside(path: Path) -> Path | None:
    """The lm-eval scores (``X-eval.json``) beside a job's output ``X.json`` (or .jsonl, .csv) or its sidecar
    ``X.job.json`` named on the command line: the job's, as a folder ingest pairs them (s40k: naming the output
    left them out without a word), unless they have a sidecar of their own (an eval-only job's); None when
    there are none, or ``path`` is no such file."""
    if sidecar.is_sidecar(path):
        stem = sidecar.result_name(path)
    elif path.suffix in OUTPUT_SUFFIXES:
        stem = path.name.rsplit(".", 1)[0]
    else:
        return None
    scores = path.with_name(stem + jobfile.EVAL_SUFFIX + ".json")
    if stem.endswith(jobfile.EVAL_SUFFIX) or not scores.is_file():
        return None
    return scores if sidecar.sidecar_path(scores) == path.with_name(stem + sidecar.SUFFIX) else None


def _packed_results(packed: dict[Path, Packed], walked: list[Path]) -> tuple[list[Diagnostic], list[Path]]:
    """(a warning for each archive or compressed result a walk met beside results, lm-eval's compressed samples
    logs among them): their results are not ingested. Named: a zip or tar archive holding files named like
    results (a GitHub Actions artifact as a browser downloads it, beside jobs already unzipped; review27) unless
    the walk met every one of them unpacked (``walked``: the same name and size; new-user28), a 7z or
    zstd-compressed tar archive (not looked into here), and a result compressed whole (``b.json.gz``) unless
    its decompressed file is beside it (``gunzip -k``). Before s35h only zips were named beside results, and
    the rest only in a folder of no result (``_no_results_in``). A samples log is no result: counted."""
    warned, logs = [], []
    here = {(p.name, _size(p)) for p in walked}
    for path, found in sorted(packed.items()):
        kind = found.kind
        if kind.kind == jsonio.COMPRESSED:
            plain = _unpacked_path(path, kind)
            if _samples_log(found, plain.name):
                logs.append(path)
            elif not plain.is_file():
                side = _waiting_sidecar(path, kind)
                nor = "" if side is None else f" (nor its job's sidecar {side.name})"
                warned.append(Diagnostic(str(path), 0, 0, COMPRESSED_RULE, f"warning: {kind.said}, a result file not "
                                         f"ingested{nor}", f"{kind.verb or jsonio.VERBS[kind.kind]} it "
                                         f"({kind.command}) and ingest the folder again", severity="warning"))
            continue
        said, command = _archive_words(found)
        members = _members(path, kind)
        held = len(members) if members is not None and not here.issuperset(members) else 0
        verb = kind.verb or jsonio.VERBS[kind.kind]
        if members is None and _unopened(found):
            warned.append(Diagnostic(str(path), 0, 0, PACKED_RULE, f"warning: {said}, not looked into (it may "
                                     "hold results), not ingested", f"{verb} it ({command}) and ingest DIR too "
                                     "if it holds results", severity="warning"))
        elif held:
            warned.append(Diagnostic(str(path), 0, 0, PACKED_RULE, f"warning: {said} of {held} .json/.jsonl/.csv "
                                     f"file{'s' if held > 1 else ''}, not ingested",
                                     f"{verb} it ({command}) and ingest DIR too", severity="warning"))
    return warned, logs


LISTED = ("zip", jsonio.TAR.name)  # the archive kinds ``_members`` lists, with zipfile and tarfile


def _unopened(found: Packed) -> bool:
    """Whether an archive (``_packed``'s) is one this Python cannot look into, as jsonio.KINDS says: an
    archive of a kind ``_members`` does not list (7z), or a tar archive compressed by a kind with no decompressor
    here (zstd: ``unpack`` None). Once a list of names, UNOPENED, that spelt out ``.7z``, ``.tar.zst``, ``.tzst``."""
    if found.kind is not jsonio.TAR:
        return found.kind.name not in LISTED
    return found.by is not None and found.by.unpack is None


def _archive_words(found: Packed) -> tuple[str, str]:
    """(what an archive is, the command that extracts it): a compressed tar archive (``Packed.by``: by its bytes,
    else its name) as such, with its own ``tar`` command."""
    if found.kind is jsonio.TAR and found.by is not None:
        return found.by.tarball, found.by.untar
    return ("a zip archive" if found.kind.name == "zip" else found.kind.said), found.kind.command


PACKED_RULE = "zipped-results"  # an archive of results beside them
COMPRESSED_RULE = "compressed-result"  # a result compressed whole beside others


def _members(path: Path, kind: jsonio.Kind) -> list[tuple[str, int]] | None:
    """The (name, size) of each file named like a result in a zip or tar archive; None when it cannot be
    looked into here (a 7z or zstd-compressed tar archive, or a damaged one: nothing of it would be ingested).
    A tar archive is read as it streams, member by member (``r|*``: never seeked in, so a compressed one is
    decompressed once, front to back), and one cut short (a download stopped) gives the members before the break."""
    import tarfile
    import zipfile

    found: list[tuple[str, int]] = []
    try:
        if kind.name == "zip":
            with zipfile.ZipFile(path) as archive:
                return [(Path(i.filename).name, i.file_size) for i in archive.infolist() if _walked(Path(i.filename))]
        if kind is jsonio.TAR:
            with tarfile.open(path, "r|*") as archive:
                for member in archive:
                    if member.isfile() and _walked(Path(member.name)):
                        found.append((Path(member.name).name, member.size))
            return found
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError):
        pass
    return found or None


def _samples_log(found: Packed, name: str) -> bool:
    """Whether a compressed file is lm-eval's samples log (``samples_<task>_<time>.jsonl.gz``): by its name
    and, where this Python can decompress its first bytes, by how its text starts."""
    if found.kind.unpack is None or not lm_eval.is_samples_log_start(name, None):  # the name first
        return lm_eval.is_samples_log_start(name, None)
    head = jsonio.unpacked(found.kind, found.head)  # None: a damaged stream (b"" unpacks to b"" or None)
    return head is not None and lm_eval.is_samples_log_start(name, head)


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _without_csv_twins(files: list[Path], document) -> tuple[list[Path], list[Path]]:
    """(files, the CSV exports among them beside a JSON export of the same name also among them): one run,
    read from the JSON, whether a folder was walked or both were named (`exports/*`). Beside: in one
    folder, however it was spelt (``exports/``, ``./repo/exports/``); a file's own link is not followed.
    A JSON that is one of AIPerf's other files (``foreign.companion``: server_metrics_export.json, as
    ``document``, the walk's, reads it) is no export: the CSV of its name beside it is no run's twin
    (s35e: it was counted as one), and is looked at as any file."""
    def run_of(p: Path) -> Path:
        return p.parent.resolve() / p.with_suffix("").name

    tabled = {run_of(p) for p in files if p.suffix.lower() == ".csv"}  # only a JSON with a CSV of its name is read
    exported = {run_of(p) for p in files if p.suffix.lower() == ".json" and run_of(p) in tabled
                and not foreign.companion(document(p))}
    twins = [p for p in files if p.suffix.lower() == ".csv" and run_of(p) in exported]
    return [p for p in files if p not in twins], twins


def _without_sweep_summaries(files: list[Path], head, document) -> tuple[list[Path], list[Path],
                                                                         dict[Path, frozenset[int]]]:
    """(files, the `vllm bench sweep` summaries among them whose every run is, key for key, the output of
    another of them in its folder or below it, and the entries of the others that are): a point's
    summary.json lists its run=N.json beside it; serve_sla's SLA--<criteria>.json, in the point's folder,
    lists the runs of the <variable>=<value>/ folders its search made below it. Each run is read from its
    own file; stored from the summary too, it would be stored twice, as if measured twice. A summary some of
    whose runs are not there (one deleted, a run=N.json not downloaded) holds the only copy of those: it is
    read for them alone, its other entries (numbered from 1, as ``sniff`` numbers a list's runs) left out.
    ``document``: the walk's ``_document``, each file read once for all its looks."""
    jsons = [(p, p.parent.resolve()) for p in files if p.suffix.lower() == ".json"]
    found = [(p, folder, doc) for p, folder in jsons
             if _opens_a_list(p, head) and vllm.is_sweep_summary(doc := document(p))]
    lists = {p for p, _, _ in found}
    summaries, partly = [], {}
    for p, top, doc in found:
        runs = [document(q) for q, folder in jsons if q not in lists and folder.is_relative_to(top)]
        beside = frozenset(n for n, run in enumerate(doc, 1) if run in runs)
        if len(beside) == len(doc):
            summaries.append(p)
        elif beside:
            partly[p] = beside
    return [p for p in files if p not in summaries], summaries, partly


def _without_phase_exports(files: list[Path], head, document) -> tuple[list[Path], list[Path], list[Path]]:
    """(files, the exports among them that an AIPerf phase manifest names and that are no result, the run's own
    exports among them that pool several profiling phases): AIPerf 0.12+ writes, for a run of several phases,
    each phase's own export under phases/<name>/ beside the run's, and phase_manifest.json at the run's root
    naming them. Of a warm-up and one profiling phase, the run's own export is its result; read too, a
    phase's would store the run twice and its warm-up as a run of its own. Of several profiling phases (each its
    own load), the run's own export pools their requests, so each profiling phase's own export is a result
    instead (``aiperf._measured_phase``) and the run's is passed over; warm-ups never are results. The manifest
    is taken where it is among the files, or in the run's folder of a file under phases/<name>/ or beside it (a
    phase's export named alone, s31d). Only files in the manifest's folder or below it are taken. ``document``:
    the walk's ``_document``, each file read once for all its looks."""
    manifests: dict[Path, list] = {}
    for path in files:
        first = head(path) if path.suffix.lower() == ".json" else b""
        if (first.lstrip().startswith(b"{") and b'"phases"' in first  # AIPerf writes its keys sorted: "phases" first
                and (phases := foreign.phase_manifest(document(path))) is not None):
            manifests.setdefault(path.parent.resolve(), phases)
    for top in {top.resolve() for path in files for top in _run_folders(path)} - manifests.keys():
        if (top / foreign.PHASE_MANIFEST).is_file():
            manifests[top] = foreign.phase_manifest(document(top / foreign.PHASE_MANIFEST)) or []
    passed, pooled = set(), set()
    for top, phases in manifests.items():
        measured = [named for warmup, named in phases if not warmup]
        for warmup, named in phases:
            passed.update(_named(top, named.values()) if warmup or len(measured) < 2 else ())
        if len(measured) > 1:  # the run's own exports, under the names of its phases'
            pooled.update(_named(top, (Path(rel).name for named in measured for key, rel in named.items()
                                       if key in foreign.PHASE_EXPORT_KEYS)))
    gone = passed | pooled
    return ([p for p in files if p.resolve() not in gone], [p for p in files if p.resolve() in passed],
            [p for p in files if p.resolve() in pooled])


def _run_folders(path: Path) -> list[Path]:
    """The folders the phase manifest of ``path``'s AIPerf run may be in: its own (``path`` the run's export)
    and the one above phases/<name>/ (``path`` a phase's)."""
    return [path.parent, *([path.parent.parent.parent] if path.parent.parent.name == foreign.PHASES_FOLDER else [])]


def _named(top: Path, rels) -> set[Path]:
    """The files ``rels`` name, relative to ``top``, that are in it or below it."""
    return {p for rel in rels if (p := (top / rel).resolve()).is_relative_to(top)}


def _head(path: Path) -> bytes:
    """``path``'s first bytes, past a byte-order mark (b"" when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return f.read(64).removeprefix(b"\xef\xbb\xbf")
    except OSError:
        return b""


def _opens_a_list(path: Path, head) -> bool:
    """Whether ``path``'s JSON text starts a list (its first bytes only: outputs can be megabytes), as
    ``head`` (the walk's ``_head``, shared by its looks) reads them."""
    return head(path).lstrip().startswith(b"[")


def _document(path: Path, read: dict[Path, bytes] | None = None):
    """``path``'s one JSON document, or None when it has none (refused as a result, when the ingest reads it);
    the walk keeps the bytes read in ``read`` for the ingest (a file that cannot be read is read again there,
    and refused). Only a regular file is opened: a FIFO where a file beside an output is looked for would hold
    the ingest forever."""
    try:
        if not path.is_file():
            return None
        content = jsonio.read_bytes(path)
    except (OSError, SweepgateError):  # refused, by its size too, when the ingest reads it as a result
        return None
    if read is not None:
        read[path] = content
    try:
        return jsonio.loads(content.decode("utf-8-sig"), str(path))
    except (UnicodeDecodeError, SweepgateError):
        return None


def collect(paths: list[str]) -> list[Path]:
    """Every file to ingest: given files as they are, folders walked (see ``walk``)."""
    return walk(paths).files


def _unique(out: list[Path]) -> list[Path]:
    seen, unique = set(), []
    for p in out:
        if sidecar.is_sidecar(p):
            p = _output_for(p) or p
        if p.resolve() not in seen:
            seen.add(p.resolve())
            unique.append(p)
    return unique


def _output_for(side: Path) -> Path | None:
    """The output a sidecar belongs to: ``X.json`` (or .jsonl/.csv), else an eval-only job's ``X-eval.json``."""
    stem = sidecar.result_name(side)
    names = [stem + s for s in OUTPUT_SUFFIXES] + [stem + jobfile.EVAL_SUFFIX + ".json"]
    return next((side.with_name(n) for n in names if side.with_name(n).is_file()), None)


def _job(output: Path, read: Read, given: Given | None) -> tuple[sidecar.Job, str]:
    side = sidecar.sidecar_path(output)
    if side.is_file():
        return sidecar.read(side), sidecar.output_name(output)
    if os.path.lexists(side):  # without its job, a job's output would be stored under a made-up run
        raise fail(str(output), 0, f"its job sidecar {side.name} is {_kind(side)}; the output is not ingested "
                   "without its job", f"replace {side.name} with the job's sidecar (or remove it to ingest the "
                   "output on its own)")
    if given and given.row is not None:
        job = sidecar.local_job(read.content, given.row, digest=read.digest, **{
            R.RUN_ID: given.run_id, R.REF: given.ref, R.ATTEMPT: given.attempt, R.CONFIG_KEY: given.config_key,
            R.COMMIT: given.commit})
        return job, output.name
    return sidecar.local_job(read.content, digest=read.digest), output.name


def window_kind(m: Measurement) -> str:
    """Which window ``_window`` takes for ``m`` (``record.ENERGY_WINDOWS``): the client's run or the job's."""
    return R.CLIENT_RUN_WINDOW if m.run_window is not None else R.JOB_WINDOW


def _window(job: dict, m: Measurement) -> tuple[float | None, float | None]:
    """The window the energy is of: the client's own run where its output states it beyond doubt
    (``Measurement.run_window``), else the job's (its sidecar's, else the output's started/finished),
    which also holds the server's start and model loading."""
    if window_kind(m) == R.CLIENT_RUN_WINDOW:
        return m.run_window
    start = job.get(R.STARTED) or m.fields.get(R.STARTED)
    end = job.get(R.FINISHED) or m.fields.get(R.FINISHED)
    return (gpu_metrics.parse_time(start) if start else None, gpu_metrics.parse_time(end) if end else None)


# Warnings of a GPU samples file itself (``_energies``): said once for all the outputs it is beside (``_said_once``):
# samples refused, of fewer GPUs than the job's, MI200 package readings not the job's alone, samples that do not
# cover the outputs' windows or outputs that state none (``_Uncovered``), benchmark outputs (not evals) that count
# no output tokens (``_Tokenless``): each of the last two one for all the outputs it names
SAMPLES_FILE_RULES = ("energy-samples", "energy-gpus", "energy-package", "energy-uncovered", "energy-tokens")
_REFUSED, _FEWER, _PACKAGE, _UNCOVERED, _TOKENS = SAMPLES_FILE_RULES


def _energies(output: Path, job: sidecar.Job, measurements: list[Measurement],
              found: list) -> tuple[list[float | None], str | None]:
    """Joules the job's GPUs drew in each measurement's window, from the samples beside ``output``
    (read once for them all), and the samples' power column they are of (``gpu_metrics.Samples.column``).
    The monitor samples every GPU of the node: of more GPUs than the row's job runs on, its own are the
    ones that drew the most (``gpu_metrics.energy_j``); of fewer (one node of a multi-node job), there is
    none, said in a warning at the samples file, as is none for samples that hold no draw (``gpu_metrics.samples``'s
    refusal: the results are stored all the same). rocm-smi's secondary dies count as GPUs sampled
    (``gpu_metrics.Samples.shared``); a job on fewer of them than sampled has none when it runs on an odd number
    (a package's reading is two GCDs') or the readings do not pair one to one with secondary dies (a monitor of
    some GCDs: which are the job's is not known), said in a warning at the samples file. Samples that do not
    cover a measurement's window (``gpu_metrics.covers``), and a measurement with no window, give it none, said
    at the samples file too (``_Uncovered``). A samples file's warnings are said once for all the outputs beside
    it (``_said_once``)."""
    windows = [_window(job.job, m) for m in measurements]
    none = [None] * len(measurements), None
    csv_path = next((p for p in gpu_metrics.paths_beside(output) if p.is_file()), None)
    if csv_path is None or not measurements:
        return none
    read = _samples_of(str(csv_path), *_stamp(csv_path))
    if isinstance(read, SweepgateError):
        said = read.diagnostics[0]
        found.append(Diagnostic(said.file, said.line, said.col, _REFUSED,
                                f"no energy per output token: {said.message}", said.hint, severity="warning"))
        return none
    column, series, shared = read
    gpus, sampled = derive.gpus(job.row), len(series) + len(shared)
    if gpus is not None and series and sampled < gpus:
        found.append(Diagnostic(str(csv_path), 1, 0, _FEWER, f"no energy per output token: it samples "
                                f"{count(sampled, 'GPU')}, the job ran on {gpus}",
                                "energy per token needs samples of every GPU the job ran on", severity="warning"))
        return none
    if shared and gpus is not None and gpus < sampled and (len(shared) != len(series) or gpus % 2):
        found.append(_package_warning(csv_path, column, series, shared, gpus))  # energy_j's None, said
        return none
    energies = [None if None in window else gpu_metrics.energy_j(series, *window, gpus, len(shared))
                for window in windows]
    open_ = [window for window in windows if None in window or window[1] <= window[0]]
    late = [window for window, joules in zip(windows, energies)
            if joules is None and window not in open_ and not gpu_metrics.covers(series, *window)]
    if late or open_:  # the output named once, with the span of its measurements' windows
        found.append(_Uncovered(csv_path, series, [(output.name, min(w[0] for w in late), max(w[1] for w in late))]
                                if late else [], [(output.name, _lacks(open_[0]))] if open_ else []))
    if any(joules is not None and not m.evals and derive.output_tokens(derive.measured(m.metrics)) is None
           and not derive.is_failed_run(m.metrics, m.evals) for m, joules in zip(measurements, energies)):
        # an eval's record holds scores, never an energy figure: no tokens are to be counted there
        found.append(_Tokenless(csv_path, [output.name]))  # the joules, with no count to divide them by
    return energies, column


class _Merged(Diagnostic):
    """A warning at a GPU samples file of some outputs beside it: ``_said_once`` merges a later output's into the
    one of its file and rule said first (``take``): one line for all the outputs beside the file, naming them."""

    __slots__ = ()

    def take(self, other: "_Merged") -> None:
        raise NotImplementedError


class _Uncovered(_Merged):
    """The warning at a GPU samples file that gave some outputs beside it no energy for their windows: the
    samples do not cover them (``late``: output name, start, end), or the output states no window (``open_``:
    output name, what it lacks)."""

    __slots__ = ("series", "late", "open_")

    def __init__(self, csv_path: Path, series: dict, late: list, open_: list):
        super().__init__(str(csv_path), 1, 0, _UNCOVERED, severity="warning")
        self.series = {gpu: (points[0][0], points[-1][0], len(points)) for gpu, points in series.items()}
        self.late, self.open_ = late, open_
        self._say()

    def take(self, other: "_Uncovered") -> None:
        self.late, self.open_ = self.late + other.late, self.open_ + other.open_
        self._say()

    def _say(self) -> None:
        said, fixes = [], []
        if self.late:
            start, end = min(w[1] for w in self.late), max(w[2] for w in self.late)
            covered, note, fix = _covered(self.series, start, end)
            said.append(f"{covered}, the job ran {_clock(start, end, self.series)}–{_clock(end, start, self.series)} "
                        f"({_names([w[0] for w in self.late])}; times in {_zone_name(start)}){note}")
            fixes.append(fix)
        for lacks in dict.fromkeys(lacks for _, lacks in self.open_):
            names = [name for name, what in self.open_ if what == lacks]
            one = len(dict.fromkeys(names)) == 1
            its, state = ("its", "states") if one else ("their", "state")
            said.append(f"{_names(names)} {state} a run that ends no later than it starts" if lacks == _BACKWARDS else
                        f"{_names(names)} {state} no {lacks} of {its} run, nor does a job sidecar")
            fixes.append(f"ingest {'it' if one else 'them'} beside {its} job sidecar stating both started and "
                         "finished, or with a client that writes its run's Unix times (vLLM's "
                         "benchmark_start_time_unix, AIPerf's min_request_timestamp)")
        self.message = "no energy per output token: " + "; ".join(said)
        self.hint = "; ".join(fixes)


class _Tokenless(_Merged):
    """The warning at a GPU samples file that gave outputs beside it joules but no energy per output token: the
    outputs (``names``) count no output tokens to divide them by (``derive.output_tokens``)."""

    __slots__ = ("names",)

    def __init__(self, csv_path: Path, names: list[str]):
        super().__init__(str(csv_path), 1, 0, _TOKENS, severity="warning",
                         hint="ingest a client output that states them (AIPerf's profile_export_aiperf.json: "
                              "total_output_tokens, benchmark_duration; vLLM's total_output_tokens)")
        self.names = names
        self._say()

    def take(self, other: "_Tokenless") -> None:
        self.names = self.names + other.names
        self._say()

    def _say(self) -> None:
        one = len(dict.fromkeys(self.names)) == 1
        state, their = ("states", "its") if one else ("state", "their")
        self.message = (f"no energy per output token: {_names(self.names)} {state} no count of {their} output "
                        f"tokens (no total, nor a duration to multiply {their} output throughput by)")


_BACKWARDS = "end after its start"  # a window whose end is not after its start (a sidecar's start, an output's end)


def _lacks(window: tuple) -> str:
    """What a measurement's window (``_window``) giving no energy lacks."""
    start, end = window
    return ("start or end" if start is None and end is None else "start" if start is None else "end" if end is None
            else _BACKWARDS)


def _names(names: list[str], shown: int = 4) -> str:
    """The outputs named, each once, as many as ``shown`` of them and a count of the rest."""
    names = list(dict.fromkeys(names))
    rest = len(names) - shown
    return ", ".join(names) if rest <= 1 else f"{', '.join(names[:shown])} and {rest} more"


def _covered(series: dict, start: float, end: float) -> tuple[str, str, str]:
    """What the samples cover (``_Uncovered.series``: GPU -> first, last, how many), said against the window
    [start, end] they do not cover, a note of the clocks' zones when a whole number of quarter hours
    (``R.ZONE_STEP``) moves the window within the samples, and the fix: the monitor started earlier, stopped later,
    a GPU's samples looked into, the times written with their zone."""
    slack = gpu_metrics.COVER_SLACK_S
    first, last = max(s[0] for s in series.values()), min(s[1] for s in series.values())
    earliest, latest = min(s[0] for s in series.values()), max(s[1] for s in series.values())
    odd = [(gpu, f"{_gpu(gpu)}'s {'only sample' if n < 2 else 'start'} at {_clock(a, end, series)}")
           for gpu, (a, b, n) in series.items() if n < 2 or a > earliest + slack]
    odd += [(gpu, f"{_gpu(gpu)}'s stop at {_clock(b, end, series)}") for gpu, (a, b, n) in series.items()
            if n >= 2 and b < latest - slack]
    odd_gpus = [_gpu(gpu) for gpu, _ in odd]
    odd = [said for _, said in odd]
    span = f"{_clock(first, end, series)}–{_clock(last, end, series)}" if first < last else "no time"
    if odd:
        others = ", the others' at " + _clock(latest, end, series) if any("stop" in o for o in odd) else ""
        shown = odd[:3] + ([f"{len(odd) - 3} more"] if len(odd) > 3 else [])
        covered = f"the samples of all {count(len(series), 'GPU')} cover {span} ({', '.join(shown)}{others})"
    else:
        covered = f"the samples cover {span}"
    apart = _zones_apart(first, last, start, end)
    if apart is not None:
        moved = _duration(abs(apart))
        return (covered, f": {moved} apart, and the samples cover the job's times moved by {moved}, so the clocks "
                "may be in different zones (a time written without one is read in this machine's zone)",
                "write the monitor's and the client's times with their zone (ISO 8601 with an offset, or Unix "
                "seconds), or ingest with TZ set to the zone the runner's clock was in")
    late, early = earliest > start + slack, latest < end - slack  # the monitor's, not one GPU's
    when = ("start the GPU monitor before the server and stop it after the client" if late and early else
            "start the GPU monitor before the server" if late else "stop the GPU monitor after the client" if early
            else "")
    fixes = [f"{when} (benchmark_lib.sh's start_gpu_monitor and stop_gpu_monitor)"] if when else []
    fixes += [f"check the job's log for what became of {_names(odd_gpus)}"] if odd_gpus else []
    return covered, "", "; ".join(fixes)


def _zones_apart(first: float, last: float, start: float, end: float) -> float | None:
    """The seconds, a whole number of quarter hours (``R.ZONE_STEP``, at most ``R.ZONE_SPAN``) and not none, the
    window [start, end], wholly outside the samples' [first, last], moves by to fall within them; None for none."""
    if first >= last or (start < last and first < end):  # samples of no span, or overlapping the window
        return None
    slack, step = gpu_metrics.COVER_SLACK_S, R.ZONE_STEP.total_seconds()
    low, high = first - slack - start, last + slack - end  # the moves that put it within
    if low > high:
        return None
    middle = round((low + high) / 2 / step)
    steps = [k for k in range(math.ceil(low / step), math.floor(high / step) + 1)
             if k and abs(k * step) <= R.ZONE_SPAN.total_seconds()]
    return min(steps, key=lambda k: abs(k - middle)) * step if steps else None


def _duration(seconds: float) -> str:
    hours, minutes = divmod(round(seconds / 60), 60)
    return " ".join(part for part in (f"{hours} h" if hours else "", f"{minutes} min" if minutes else "") if part)


def _gpu(name: str) -> str:
    return f"GPU {name}" if name.isdigit() else name


def _clock(at: float, beside: float, series: dict) -> str:
    """``at`` on this machine's clock (times written without a zone are read in its zone): the time of day, with
    the date where ``beside`` or the samples are on another day."""
    day = datetime.datetime.fromtimestamp(at).date()
    days = {datetime.datetime.fromtimestamp(t).date() for t in (beside, *(s[0] for s in series.values()),
                                                                  *(s[1] for s in series.values()))}
    shown = datetime.datetime.fromtimestamp(at)
    return f"{shown:%H:%M:%S}" if days == {day} else f"{shown:%Y-%m-%d %H:%M:%S}"


def _zone_name(at: float) -> str:
    """This machine's zone at ``at``, as an offset from UTC (``UTC``, ``UTC-08:00``, ``UTC+05:30``)."""
    offset = datetime.datetime.fromtimestamp(at).astimezone().utcoffset() or datetime.timedelta(0)
    if not offset:
        return "UTC"
    minutes = round(abs(offset).total_seconds() / 60)
    return f"UTC{'-' if offset < datetime.timedelta(0) else '+'}{minutes // 60:02d}:{minutes % 60:02d}"


def _package_warning(csv_path: Path, column: str, series: dict, shared: frozenset, gpus: int) -> Diagnostic:
    """Why a job on ``gpus`` of the GCDs of rocm-smi's MI200 samples, fewer than sampled, has no energy
    (``gpu_metrics.energy_j``'s None): a package's reading covers two GCDs, so an odd number of them has no part of
    it that is known to be the job's; and readings that do not pair one to one with secondary dies (``shared``) are
    not known to be packages at all."""
    what = (f"{column} is each MI200 package's draw, read at its first GCD (rocm-smi's 'N/A (Secondary die)' at "
            "the second), so a reading covers two GCDs")
    if len(shared) == len(series):
        return Diagnostic(str(csv_path), 1, 0, _PACKAGE, f"no energy per output token: {what}, and the job ran on "
                          f"{gpus} GCDs, an odd number: which part of a package's draw is the job's is not known",
                          "run the job on whole packages (an even number of GCDs) to have its energy per output "
                          "token", severity="warning")
    read = count(len(series), "GCD")
    return Diagnostic(str(csv_path), 1, 0, _PACKAGE, f"no energy per output token: {what}, but {read} "
                      f"{'has' if len(series) == 1 else 'have'} readings ({', '.join(sorted(series))}) and "
                      f"{len(shared)} only 'N/A (Secondary die)' ({', '.join(sorted(shared))}), so not every "
                      "reading is a package's; "
                      f"the job ran on {gpus} of the {len(series) + len(shared)} GCDs sampled: which readings are its "
                      "own is not known", "sample every GCD of the node at each round (rocm-smi --showpower with no "
                      "-d), each package's first GCD with its reading and its second 'N/A (Secondary die)'",
                      severity="warning")


def _stamp(path: Path) -> tuple[int, int]:
    """What tells one state of a file from another without reading it: its size and time of change."""
    st = path.stat()
    return st.st_size, st.st_mtime_ns


# How many samples files' parses ``_samples_of`` keeps: a folder's plain gpu_metrics.csv and one subfolder's (the walk
# takes a folder's outputs and its subfolders' in the order of their names). A node's samples over 12 hours parse to
# some 40 MB; ``ingest`` keeps none once it returns.
SAMPLES_KEPT = 2


@functools.lru_cache(maxsize=SAMPLES_KEPT)
def _samples_of(path: str, size: int, changed_ns: int) -> "gpu_metrics.Samples | SweepgateError":
    """``gpu_metrics.samples`` of the file at ``path`` (its refusal returned, not raised), read and parsed once
    for all the outputs beside it (one plain gpu_metrics.csv beside a folder's outputs) while it stays as it was.
    A refusal is kept without its traceback, whose frames hold the file's text and rows (s40l: a 12 MB file
    of no draw kept 106 MB)."""
    try:
        return gpu_metrics.samples(decoded(jsonio.read_bytes(path), "replace"), path)  # over the cap: said so
    except SweepgateError as exc:
        return SweepgateError(exc.diagnostics)  # raised nowhere: no traceback, no exception it was raised in


def _refuse_archive(output: Path, content: bytes) -> None:
    """A zip (a GitHub Actions artifact as a browser downloads it), a gzipped output or a SQLite
    database, refused as what it is (review newuser27: it read "not UTF-8 text (byte 10)", as if the
    file were damaged)."""
    refusal = jsonio.archive(str(output), content, zipped="ingest the folder", gzipped="ingest the file",
                             database=("a client's output", f"read a store with --db sqlite:///{output} "
                                       "(`results show`, `results compare`), and ingest the job outputs themselves"))
    if refusal is not None:
        raise refusal


def _no_results_in(given: str, path: Path, packed: dict[Path, Packed]) -> SweepgateError:
    """A folder with no result file; naming, kind by kind (jsonio.KINDS), the archives it holds (artifacts
    not yet unzipped, tarballs, 7z) and its compressed results (``res.json.gz``, ``res.json.xz``: a
    compressed file whose name without the compressor's suffix is no result's, a log, is not named), each
    with how to unpack it (review27, new-user29, s30: only zip, tar and gzip were named), and the jobs' sidecars
    whose outputs are among them (``_waiting_sidecar``; s37c: the sidecar beside them went unsaid). ``packed``:
    what the walk met of these under ``path``, in its subfolders too, each named by its path from ``path``
    (``sub/c4.json.gz``; s37h: only the folder's own files were looked at, so a folder holding them one level
    down was said to hold nothing)."""
    kinds = {p.relative_to(path).as_posix(): found.kind for p, found in sorted(packed.items())}

    def held(kind: jsonio.Kind) -> list[str]:
        return [n for n, k in kinds.items() if k is kind]

    packed = [(found, kind) for kind in jsonio.KINDS if kind.kind in (jsonio.ARCHIVE, jsonio.COMPRESSED)
              if (found := held(kind))]
    if not packed:
        return fail(given, 0, "no result files (.json, .jsonl, .csv) in this folder", NO_RESULTS_FIX)

    def noun(kind: jsonio.Kind) -> str:
        return kind.called if kind.kind == jsonio.ARCHIVE else f"{kind.called} result file"

    def shown(found: list[str]) -> str:
        return ", ".join(found[:3]) + (", ..." if len(found) > 3 else "")

    items = [f"{count(len(found), noun(kind))} ({shown(found)})" for found, kind in packed]
    fixes = [f"{kind.verb or jsonio.VERBS[kind.kind]} each{'' if len(packed) == 1 else ' ' + noun(kind)} "
             f"({kind.command})" for _, kind in packed]
    folders = "folders" if any(kind.kind == jsonio.ARCHIVE for _, kind in packed) else "folder"  # extracted into DIRs
    listed = ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]
    waiting = list(dict.fromkeys(side.relative_to(path).as_posix() for name, kind in kinds.items()
                                 if (side := _waiting_sidecar(path / name, kind)) is not None))
    if waiting:  # s37c: "no result files" beside a job's sidecar said nothing of the job
        every = len(waiting) == sum(len(found) for found, _ in packed)
        whose = (("whose output it is" if len(waiting) == 1 else "whose outputs they are") if every else
                 "whose output is among them" if len(waiting) == 1 else "whose outputs are among them")
        listed += f", and {count(len(waiting), 'job sidecar')} ({shown(waiting)}) {whose}"
    return fail(given, 0, f"no result files (.json, .jsonl, .csv) in this folder, only {listed}",
                f"{', '.join(fixes)} and ingest the {folders}")


@dataclasses.dataclass
class Read:
    """An output's bytes, read once (by the walk or the ingest), and their SHA-256, made once when first
    asked for: both its content-hash run id (``sidecar.local_job``) and the copy check (``_copy_of``) use it."""

    content: bytes

    @functools.cached_property
    def digest(self) -> bytes:
        return hashlib.sha256(self.content).digest()


def records_of(output: Path, given: Given | None = None, warnings: list | None = None,
               left_out: frozenset[int] = frozenset()) -> list[dict]:
    """The normalized records of one output file (refuses with a diagnostic); what is worth a
    warning but stored (normalize.short_outputs, unfilled_cap, model_mismatch, inputs_unlike_row,
    in_flight_unlike_row) is appended to ``warnings``. The
    measurements at ``left_out`` lines (a sweep summary's runs read from their own files) are not
    made records, nor warned of."""
    return _read_records(output, given, warnings, left_out)[0]


def _read_records(output: Path, given: Given | None, warnings: list | None, left_out: frozenset[int],
                  content: bytes | None = None, of_line: dict | None = None) -> tuple[list[dict], Read]:
    """``records_of`` ``output``, and its ``Read``; ``content``: its bytes as the walk read them (not read again);
    ``of_line`` (``_records``): the measurement each warning is of."""
    try:
        content = jsonio.read_bytes(output) if content is None else content  # by its size first: never gigabytes
        _refuse_archive(output, content)
        text = content.decode("utf-8-sig")  # a byte-order mark (Windows editors) is not content
    except OSError as exc:
        raise os_failure(str(output), "cannot read", exc, "check the path and its permissions") from None
    except UnicodeDecodeError as exc:  # exc.start counts from after a byte-order mark: in the file, it is later
        at = exc.start + len(content) - len(exc.object)
        raise fail(str(output), content.count(b"\n", 0, at) + 1, not_utf8(at),
                   "pass a client's JSON/JSONL/CSV output", col=at - content.rfind(b"\n", 0, at)) from None
    read = Read(content)
    try:
        return _records(output, text, read, given, warnings, left_out, of_line), read
    except SweepgateError as exc:
        jsonio.place(exc.diagnostics, text, str(output))
        raise
    except sniff.Auxiliary as exc:  # one that is said as well (a sweep's failed run): where it starts
        if exc.warning is not None:
            jsonio.place([exc.warning], text, str(output))
        raise


def _records(output: Path, text: str, read: Read, given: Given | None, warnings: list | None,
             left_out: frozenset[int] = frozenset(), of_line: dict | None = None) -> list[dict]:
    """The records of ``output``'s measurements; the warnings they are worth go to ``warnings``, and into
    ``of_line``, when given, the line of the measurement each is of (its record's source line, by the warning's
    ``id``; a warning of the whole file is not in it), so that a re-ingest does not say again what it said of a
    result stored before (``_store_one``)."""
    measurements = [m for m in sniff.parse_text(text, str(output)) if m.line not in left_out]
    beside = _csv_completion(output, measurements)  # placed in the JSON export it is of
    job, name = _job(output, read, given)
    if job.row:
        beside += _csv_twin_agreement(output, measurements, job)
    found: list = []  # (warning, the line of the measurement it is of)
    found.extend((d, m.line) for m in measurements for check in (normalize.short_outputs, normalize.unfilled_cap)
                 if (d := check(m, str(output))))
    found.extend((Diagnostic(str(output), *(m.place_of(of[0]) if of else (m.line, 0)), rule, message, hint,
                             severity="warning"), m.line)  # a figure's (``of``) at its place: a CSV's cell
                 for m in measurements
                 for rule, message, hint, *of in m.notes + plausible.oddities(derive.measured(m.metrics), m))
    found.extend((d, 0) for d in beside)  # of its one measurement
    if job.row:
        found.extend((d, m.line) for m in measurements
                     for check in (normalize.model_mismatch, normalize.inputs_unlike_row,
                                   normalize.in_flight_unlike_row)
                     if (d := check(m, job.row, str(output), job.source or "--row")))
    whole: list = []  # of the file as a whole
    energies, power_column = _energies(output, job, measurements, whole)
    if warnings is not None:
        said = [d for d, _ in found] + whole
        jsonio.place(said, text, str(output))  # a whole document's, as its refusals are: path:line:col
        warnings.extend(said)
        if of_line is not None:
            of_line.update({id(d): line for d, line in found})
    many = len(measurements) > 1 or any(m.line for m in measurements)
    records = [normalize.build(m, job, str(output), R.measurement_name(name, m.line) if many else name, energy,
                               window_kind(m), read.digest.hex(), power_column)
               for m, energy in zip(measurements, energies)]
    normalize.check_one_setup(measurements, records, str(output), text)
    return records


def _csv_completion(output: Path, measurements: list[Measurement]) -> list[Diagnostic]:
    """An AIPerf CSV export's run finished or not, as the files beside it say (``aiperf_csv.completion``):
    its JSON export of the same name, AIPerf 0.13+'s ready marker. What the JSON export or the marker said worth
    a warning (``is_complete: false``, ``terminal_error``) is returned placed in that file, at its key, naming the
    CSV it is said of: at the CSV's first line it pointed at no such key. An AIPerf or GenAI-Perf CSV whose JSON
    export names several models is refused as that export is, in one line at its models' key (the CSV names none:
    ``aiperf.several_models``)."""
    if len(measurements) != 1 or measurements[0].source_format not in aiperf_csv.CSV_FORMATS:
        return []
    m, twin, read = measurements[0], output.with_suffix(".json"), {}
    export = _document(twin, read)
    if isinstance(export, dict) and aiperf.detect(export):  # a run over several models: refused as its JSON is
        try:
            aiperf.several_models(export, str(twin), str(output))
        except SweepgateError as exc:
            jsonio.place(exc.diagnostics, read[twin].decode("utf-8-sig"), str(twin))
            raise
    if m.source_format != aiperf_csv.AIPERF_CSV:
        return []
    marker = output.with_name(aiperf_csv.READY_MARKER)
    before = len(m.notes)
    said_by = aiperf_csv.completion(m, export, _document(marker, read))
    if said_by is None:
        return []
    at = twin if said_by == aiperf_csv.EXPORT else marker
    said, m.notes[before:] = m.notes[before:], []
    placed = [Diagnostic(str(at), 0, 0, rule, f"{message}: its CSV export {output}", hint, severity="warning")
              for rule, message, hint in said]
    jsonio.place(placed, read[at].decode("utf-8-sig"), str(at))
    return placed


def _csv_twin_agreement(output: Path, measurements: list[Measurement], job) -> list[Diagnostic]:
    """An AIPerf or GenAI-Perf CSV export states no concurrency, lengths or model; the JSON export of its name
    beside it does, and is held to the job's row as it is when named itself: refused at that export's key
    (``normalize.check_agreement``), or warned of there (``normalize.model_mismatch``), naming the CSV (s42d: a
    conc-16 run's CSV under a conc-32 row of another model was stored at conc 32, silently). A JSON export that
    cannot be read as one is left alone: the CSV is read as before."""
    if len(measurements) != 1 or measurements[0].source_format not in aiperf_csv.CSV_FORMATS:
        return []
    twin, read = output.with_suffix(".json"), {}
    export = _document(twin, read)
    if not (isinstance(export, dict) and aiperf.detect(export)):
        return []
    try:
        stated = aiperf.parse(export, str(twin), 0)
    except SweepgateError:
        return []
    said: list[Diagnostic] = []
    try:
        normalize.check_agreement(stated, job.row, str(twin), job.source or "--row")
        said = [d for d in [normalize.model_mismatch(stated, job.row, str(twin), job.source or "--row")] if d]
    except SweepgateError as exc:
        said = exc.diagnostics
        raise
    finally:
        for d in said:
            d.message += f": its CSV export {output}"
        jsonio.place(said, read[twin].decode("utf-8-sig"), str(twin))
    return said


def _unreadable(exc: SweepgateError, output: Path) -> bool:
    """A refusal of ``output`` itself as empty or not whole JSON (not as another format; not its sidecar's)."""
    return bool(exc.diagnostics) and all(d.rule == jsonio.UNREADABLE and d.file == str(output)
                                         for d in exc.diagnostics)


MISSING_OUTPUT = "missing-output"  # the rule of the warning that a job which says success left no output


def orphan_record(side: Path, warnings: list | None = None, name: str | None = None) -> list[dict]:
    """A sidecar whose job left no output: a failure (or cancelled) record with no metrics; a
    sidecar that says success is stored so too, with a warning (its output went missing). ``name``:
    the result name of the job's output it stands for, cut short (default: the job's own)."""
    job = sidecar.read(side)
    if job.job[R.STATUS] == R.SUCCESS and warnings is not None:
        lost = Diagnostic(str(side), 0, 0, MISSING_OUTPUT,
                          "warning: the job says success but left no result file; stored as a failure",
                          "check that the job's upload included its $RESULT_FILENAME.json", severity="warning")
        jsonio.place([lost], side.read_text(encoding="utf-8", errors="replace"), str(side))  # where it starts
        warnings.append(lost)
    status = job.job[R.STATUS] if job.job[R.STATUS] != R.SUCCESS else R.FAILURE
    job.job[R.STATUS] = status
    # An eval-only job's failure is its eval's: filed with eval scores, never over the point's throughput;
    # so is a throughput+eval job's X-eval.json cut short (evalb30: it read as the point's throughput failed).
    own = sidecar.result_name(side)
    name = name or own
    evals = (job.row or {}).get(F.EVAL_ONLY) or name == own + jobfile.EVAL_SUFFIX  # not a job's own X-eval.json
    m = Measurement(R.SIDECAR_ONLY, R.EVAL_CLIENT if evals else "none")
    return [normalize.build(m, job, str(side), name)]


def _file_records(path: Path, given: Given | None, warnings: list, left_out: frozenset[int] = frozenset(),
                  content: bytes | None = None, of_line: dict | None = None) -> tuple[list[dict] | None, Read | None]:
    """``path``'s records, and its ``Read`` when they are its output's (None: a sidecar's placeholder);
    ``left_out``: the entries of a sweep's summary read from their own files (``Walk.listed``); ``content``:
    its bytes as the walk read them (``Walk.read``); ``of_line``: as ``_records`` fills it."""
    if sidecar.is_sidecar(path):
        return (None if _output_for(path) else orphan_record(path, warnings)), None
    try:
        return _read_records(path, given, warnings, left_out, content, of_line)
    except SweepgateError as exc:
        side = sidecar.sidecar_path(path)
        if not side.is_file() or not _unreadable(exc, path):
            raise
        # A job's own output, empty or cut short (the job died or was cancelled writing it): the job
        # is stored as failed, as when it left no output, so one job does not stop a sweep's report.
        records = orphan_record(side, name=sidecar.output_name(path))
        warnings.append(Diagnostic(str(path), exc.diagnostics[0].line, exc.diagnostics[0].col, "unreadable-output",
                                   f"warning: {exc.diagnostics[0].message}; the job is stored as "
                                   f"{records[0][R.STATUS]}, with no figures",
                                   exc.diagnostics[0].hint if exc.diagnostics[0].hint in jsonio.GOES_ON else
                                   "check the job's log: its client did not finish the file", severity="warning"))
        return records, None


def check_given(files: list[Path], given: Given | None) -> None:
    """Refuse ``--row`` (with its --run-id/--ref) for outputs that carry their own ``.job.json``:
    it describes one output without a sidecar, and would otherwise be ignored without a word."""
    if given is None or given.row is None:
        return
    own = next((p for p in files if sidecar.is_sidecar(p) or sidecar.sidecar_path(p).is_file()), None)
    if own is not None:
        side = own if sidecar.is_sidecar(own) else sidecar.sidecar_path(own)
        raise fail(str(own), 0, f"has its own job sidecar ({side.name}); --row/--run-id/--ref are for an "
                   "output without one", "drop --row/--run-id/--ref to ingest it under its sidecar's run, or "
                   "pass only outputs without a .job.json")


ROW_NOT_OF_KEY = "row-not-of-config-key"  # the rule of a --row its --config-key's config could not expand to
# what a config gives each of its rows as it is (``expand._identity``; the runner, or one of its runners'
# names by --runner-node-filter): a row whose value differs is no row of that config
ROW_OF_CONFIG_FIELDS = (F.MODEL, F.MODEL_PREFIX, F.PRECISION, F.FRAMEWORK, F.RUNNER)


def config_key_warning(key: str | None, row: dict | None = None, start: str = ".",
                       given: Given | None = None) -> Diagnostic | None:
    """A warning when ``key`` (``--config-key``) is in none of the master configs of the repository
    ``start`` is in: a typo would be stored without a word, and ``results compare`` would find no
    baseline for its points (none but results stored under the same typo) and call each one new; or when
    ``row`` (``--row``) is no row that key's config expands to (``_row_unlike_config``): another config's
    results filed under it; or, for a run of another ref than main (``given``: its --ref and row file), when the
    row's image is not the one the key's config has as checked out (``_row_image_not_checked_out``). Stored all the
    same: a store keeps results of keys since renamed or removed, and a config may have changed since its row ran.
    Outside a repository, or in one without master configs, no check. The configs are read once per command,
    however many files it ingests."""
    from sweepgate.core import load

    if not key:
        return None
    try:
        git = load.open_repo(start)
    except SweepgateError:  # not in a git repository: nothing to check the key against
        return None
    why: list[Diagnostic] = []
    docs: dict = {}
    known = load.master_keys_in(git, why, docs)
    if why:  # a master config there that cannot be read: the key goes unchecked, and that is said
        first = why[0]
        return Diagnostic("--config-key", 0, 0, "unchecked-config-key",
                          f"warning: config key '{key}' not checked: {first.file}: {first.message}; stored all "
                          "the same", first.hint, severity="warning")
    if not known:
        return None
    if key in known:
        config = load.config_in(docs[known[key]], key)
        return (_row_unlike_config(key, row, known[key], config, git.root)
                or _row_image_not_checked_out(key, row, known[key], config, given))
    import difflib

    near = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    files = ", ".join(sorted(set(known.values())))
    from sweepgate.core.keypatterns import UNKNOWN_CONFIG_KEY

    return Diagnostic("--config-key", 0, 0, UNKNOWN_CONFIG_KEY,
                      f"warning: config key '{key}' is in none of this repository's master configs ({files}); "
                      "stored under it all the same, and `results compare` finds a baseline for its points only among "
                      "results stored under that same key",
                      (f"did you mean '{near[0]}'? " if near else "") + "pass the key as the master config "
                      "spells it (stored results are immutable: ingest this output again with the next "
                      "--attempt); a key since renamed or removed can stay as it is", severity="warning")


def _row_unlike_config(key: str, row: dict | None, path: str, config, root) -> Diagnostic | None:
    """The warning of a ``row`` that ``key``'s config (in the master config at ``path``) could not have expanded
    to: a value of ``ROW_OF_CONFIG_FIELDS`` not the config's (a runner neither its runner nor one of the names
    configs/runners.yaml lists under it). None when they agree, or the config cannot be read as one."""
    if not isinstance(row, dict) or not isinstance(config, dict):
        return None
    unlike = [f for f in ROW_OF_CONFIG_FIELDS if f in row and f in config and row[f] != config[f]]
    if F.RUNNER in unlike and str(row[F.RUNNER]) in _runner_names(root, config[F.RUNNER]):
        unlike.remove(F.RUNNER)
    if not unlike:
        return None
    ours = ", ".join(f"{f} {printable(str(row[f]))}" for f in unlike)
    theirs = ", ".join(printable(str(config[f])) for f in unlike)
    names = f" (or one of its runners in {F.RUNNERS_FILE})" if F.RUNNER in unlike else ""
    return Diagnostic("--config-key", 0, 0, ROW_NOT_OF_KEY,
                      f"warning: the --row is not a row of config key '{key}' ({path}): {ours} where the config "
                      f"says {theirs}{names}; stored under it all the same, and `results compare` judges its points "
                      "against that key's runs",
                      "pass the key of the config the row came from (`sweepgate test-config --config-keys KEY` "
                      "prints its rows; stored results are immutable: ingest this output again with the next "
                      "--attempt); a config changed since the row ran can stay as it is", severity="warning")


ROW_IMAGE_NOT_CHECKED_OUT = "row-image-not-checked-out"  # the rule of a PR's --row whose image the checkout's lacks


def _row_image_not_checked_out(key: str, row: dict | None, path: str, config, given: Given | None) -> Diagnostic | None:
    """The warning of a ``row`` of ``key``'s config whose image is not the config's as checked out, ingested for
    a run of another ref than main (a PR's, a branch's: ``given.ref``), placed at the row file's image key. A row
    written from main's checkout for a PR that changes the image (README: write the PR's rows in its checkout)
    files the PR's figures under main's recipe, and compare then names no recipe change beside them. A warning,
    not a refusal: this checkout may not be the commit the run measured (main's, ingesting a PR's run with the
    PR's own rows), which ingest cannot tell; a main run's row is not checked (main's earlier runs ran earlier
    images). None when the image agrees, or either is not stated."""
    if (given is None or given.ref in (None, F.MAIN_REF) or not isinstance(row, dict) or not isinstance(config, dict)
            or row.get(F.IMAGE) is None or config.get(F.IMAGE) is None or row[F.IMAGE] == config[F.IMAGE]):
        return None
    where, text = given.row_file or ("--row", None)
    warning = Diagnostic(where, 0, 0, ROW_IMAGE_NOT_CHECKED_OUT,
                         f"warning: {F.IMAGE}: the row says {printable(str(row[F.IMAGE]))}, config key '{key}' as "
                         f"checked out says {printable(str(config[F.IMAGE]))} ({path}): the row is stale against this "
                         f"checkout, or this checkout is not the {R.short_ref(given.ref)} run's; its results are "
                         "stored under the row's image all the same",
                         f"write the run's rows in its own checkout (`sweepgate test-config --config-keys {key} ...`) "
                         "and ingest its outputs again with the next --attempt", severity="warning")
    if text is not None:
        jsonio.place([warning], text, where)
    return warning


def _runner_names(root, label) -> list:
    """The runner names configs/runners.yaml lists under ``label`` (none where it cannot be read)."""
    from sweepgate.core.check import checked_runners

    try:
        labels = checked_runners(str(root)).get(F.LABELS) or {}
    except SweepgateError:
        return []
    names = labels.get(label) if isinstance(labels, dict) else None
    return [str(n) for n in names] if isinstance(names, list) else []


def ingest(paths: list[str] | Walk, store, given: Given | None = None, progress=None,
           run_cancelled: bool = False) -> Outcome:
    """Ingest every file under ``paths`` into ``store``; refused files become ``problems``, the walk's
    first. ``paths`` may be the ``walk`` of them already made, which is not made again (a walk opens
    every JSON file to find a sweep's summaries, and reads the runs beside one). ``given`` (--row) is
    refused outright when an output has its own sidecar (``check_given``). ``run_cancelled``
    (``--run-cancelled``): every record is marked as of a run cancelled before it finished (R.RUN_CANCELLED)."""
    walked = paths if isinstance(paths, Walk) else walk(paths)
    files = walked.files
    check_given(files, given)
    outcome = Outcome(problems=list(walked.refused))
    try:
        _each(files, store, given, progress, outcome, walked.listed, walked.read, run_cancelled)
    except (KeyboardInterrupt, StoreError) as exc:  # each file stored whole or not at all: say how far it got
        outcome.interrupted, outcome.stopped_by = (outcome.files_done, len(files)), exc
    finally:
        _samples_of.cache_clear()  # s40l: the samples parsed were kept for the rest of the process
    return outcome


def _each(files: list[Path], store, given: Given | None, progress, outcome: Outcome,
          listed: dict[Path, frozenset[int]], read: dict[Path, bytes], run_cancelled: bool = False) -> None:
    by_hand = given is not None and given.row is not None
    partners = _eval_partners(files) if by_hand else {}
    files = _scores_after_outputs(files, partners)
    turned_down: set[Path] = set()  # the outputs refused, whose scores (by hand) are held back with them
    for done, path in enumerate(progress(files) if progress else files):
        outcome.files_done = done  # the files before this one are through, stored or refused
        warnings: list = []
        of_line: dict = {}
        if partners.get(path) in turned_down:
            outcome.problems.append(_held_back(path, partners[path]))
            continue
        try:
            _utf8_name(path)
            records, output = _file_records(path, given, warnings, listed.get(path, frozenset()),
                                            read.pop(path, None), of_line)
        except sniff.Auxiliary as exc:  # counted, so that naming only such a file is not met by silence
            if (refused := _job_without_result(path, exc)) is not None:
                outcome.problems.append(refused)
                continue
            outcome.beside.append(path)
            outcome.kinds[path] = type(exc)
            if exc.warning is not None:  # passed over, and said (a sweep's failed run)
                outcome.warnings.append(exc.warning)
            continue
        except SweepgateError as exc:
            outcome.problems.extend(exc.diagnostics)
            turned_down.add(path)
            continue
        if run_cancelled:  # each record of the file, in the one transaction that stores them
            for rec in records:
                rec[R.RUN_CANCELLED] = True
        if records and (digest := _copy_of(path, records, outcome, output, warnings)) is not None:
            with _signals_held() as held:  # committed and counted together: a Ctrl-C between would undercount
                sole = _hashed_run(path, given)
                earlier = _earlier_runs(output, records) if sole and output is not None else []
                job_copy = bool(digest) and digest not in outcome.firsts and _job_output(path)  # not said yet
                if _store_one(path, records, (warnings, of_line), store, outcome, held.defer, sole=sole,
                              earlier=earlier, by_hand=_given_run(path, given), job_copy=job_copy) and digest:
                    outcome.firsts.setdefault(digest, path)
                outcome.files_done = done + 1
    outcome.files_done = len(files)


HELD_BACK_RULE = "eval-of-refused-output"  # a job's X-eval.json given by hand, its X.json refused


def _eval_partners(files: list[Path]) -> dict[Path, Path]:
    """Each job's lm-eval scores among ``files`` -> its output among them (``_eval_beside``)."""
    named = set(files)
    return {scores: output for output in files if (scores := _eval_beside(output)) in named}


def _scores_after_outputs(files: list[Path], partners: dict[Path, Path]) -> list[Path]:
    """``files`` with each job's scores right after its output (a folder lists ``c4-eval.json`` first), so
    that an output refused is known before its scores are stored."""
    after = {output: scores for scores, output in partners.items()}
    return [f for path in files if path not in partners for f in (path, after.get(path)) if f is not None]


def _held_back(scores: Path, output: Path) -> Diagnostic:
    """s44d: the scores of an output refused by hand are the same job's, given the same ``--row``: stored
    alone, a wrong row's point (``--row row-c64.json`` with ``c32.json``) kept them, immutable, and the
    ingest with the right row then refused them as stored for another point."""
    return Diagnostic(str(scores), 0, 0, HELD_BACK_RULE, f"not stored: the output of its job, {output.name}, "
                      "was refused (said on its own line), and these scores would be stored under the same "
                      "--row, run and ref", f"fix what refused {output.name} and ingest it again; its scores "
                      "come with it")


def _job_without_result(path: Path, kind: sniff.Auxiliary) -> Diagnostic | None:
    """A file of a kind passed over that is a job's own output (the one its sidecar pairs with):
    the job has no result, and passing the file over would drop the job without a word."""
    side = sidecar.sidecar_path(path)
    if sidecar.is_sidecar(path) or not side.is_file() or _output_for(side) != path:
        return None
    return Diagnostic(str(path), 0, 0, "no-result", f"the output of the job in {side.name} is not a result but "
                      f"one of the {type(kind).WHAT}; the job is not stored",
                      f"have the job leave its client's own output as {path.name} ($RESULT_FILENAME.json), or "
                      f"rename this file so that it no longer pairs with {side.name}")


def _hashed_run(path: Path, given: Given | None) -> bool:
    """Whether ``path``'s run id is its content's hash (``sidecar.local_job``): no sidecar, no --row."""
    return not sidecar.is_sidecar(path) and not sidecar.sidecar_path(path).is_file() and (
        given is None or given.row is None)


def _job_output(path: Path) -> bool:
    """Whether ``path`` is a job's own output, beside its sidecar (its run id the sidecar's)."""
    return not sidecar.is_sidecar(path) and sidecar.sidecar_path(path).is_file()


def _given_run(path: Path, given: Given | None) -> bool:
    """Whether ``path``'s run id is one given by hand (``--row`` with ``--run-id``), not its sidecar's or hash."""
    return not sidecar.is_sidecar(path) and not sidecar.sidecar_path(path).is_file() and (
        given is not None and given.row is not None)


NO_DIGEST = b""  # a file whose bytes are not compared: a sidecar alone, a placeholder


def _earlier_runs(output: Read, records: list[dict]) -> list[str]:
    """The content-hash run ids (``sidecar.local_run_id``) a JSONL output had before lines were appended to it:
    its own first, then each of its beginnings that ends a line, longest first, with its newline or without (vLLM's
    ``--append-result`` writes the newline before each run, SGLang's bench_serving after it); none for a file that
    is no JSONL of several lines (``records`` of no line: a file of one JSON document is written whole, never
    appended to; a list of runs starts with '[')."""
    content = output.content
    if not content.lstrip().startswith(b"{") or not any(rec.get(R.SOURCE_LINE) for rec in records):
        return []
    digests, running, start = [], hashlib.sha256(), 0
    while (end := content.find(b"\n", start)) != -1:
        running.update(content[start:end])
        digests.append((end, running.copy().digest()))  # without the newline
        running.update(b"\n")
        digests.append((end + 1, running.copy().digest()))
        start = end + 1
    blank = len(content) - len(content.lstrip())  # a beginning of blank lines alone was no file of runs
    beginnings = [digest for size, digest in reversed(digests) if blank < size < len(content)]
    return [sidecar.local_run_id(output.digest), *dict.fromkeys(sidecar.local_run_id(d) for d in beginnings)]


def _copy_of(path: Path, records: list[dict], outcome: Outcome, output: Read | None, warnings: list) -> bytes | None:
    """The SHA-256 of the output ``path`` (its ``Read``'s, made once; NO_DIGEST for a placeholder), or None
    when it is a copy of an output this ingest stored (other name, same bytes) that is not stored: a copy
    stored too would be one measurement twice, as if repeated, in its run (one content-hash run id, or
    --row's). Said in a warning naming both files. A job's own output (beside its sidecar) is stored under its job
    all the same: its sidecar says whose it is; but no two jobs measure the same bytes, so one alike an output this
    ingest stored gets a warning naming both in the file's ``warnings`` (said when it is stored, as its others)."""
    if output is None or sidecar.is_sidecar(path) or any(R.is_placeholder(rec) for rec in records):
        return NO_DIGEST
    digest = output.digest
    first = outcome.firsts.get(digest)
    if first is None:
        return digest
    if sidecar.sidecar_path(path).is_file():
        warnings.append(_jobs_copy_warning(path, str(first)))
        return digest
    outcome.warnings.append(_copy_warning(path, str(first)))
    return None


def _jobs_copy_warning(path: Path, first: str) -> Diagnostic:
    return Diagnostic(str(path), 0, 0, SAME_BYTES_RULE, f"warning: the same bytes as {first}; stored under its job "
                      f"({sidecar.sidecar_path(path).name}) all the same, but two benchmark runs never write the same "
                      "bytes", "check the workflow's steps that write or download outputs: one job's output was "
                      "copied as another's (one $RESULT_FILENAME named twice); rerun the job whose output is not "
                      "its own", severity="warning")


def _stored_copy_warning(path: Path, old: dict) -> Diagnostic:
    """``_jobs_copy_warning`` of a job's output whose bytes another file's stored record was read from (an earlier
    ingest stored it: a copy ingested apart from its original), naming that run's result; one stored without a
    sidecar (a content-hash run, on no ref) may be this same output ingested alone before, and is said so."""
    run, name = old.get(R.RUN_ID), str(old.get(R.RESULT_FILENAME))
    first = f"run {run}'s {f'results of {file_of(name)!r}' if old.get(R.SOURCE_LINE) else f'result {name!r}'}"
    if sidecar.local_record(old):
        return Diagnostic(str(path), 0, 0, SAME_BYTES_RULE, f"warning: the same bytes as {first}, stored before "
                          f"without a job sidecar; stored under its job ({sidecar.sidecar_path(path).name}) all the "
                          "same", f"nothing to do if it is this job's output ingested alone before: run {run} is on "
                          "no ref and no baseline", severity="warning")
    return _jobs_copy_warning(path, f"{first}, stored before")


def _copy_warning(path: Path, first: str) -> Diagnostic:
    return Diagnostic(str(path), 0, 0, SAME_BYTES_RULE, f"warning: the same bytes as {first}, a copy under another "
                      "name; not stored twice (in one run it would count as a second measurement)",
                      "nothing to do; remove the copy to silence this", severity="warning")


def _store_one(path: Path, records: list[dict], said: tuple[list, dict], store, outcome: Outcome, before_commit,
               sole: bool = False, earlier: list[str] | None = None, by_hand: bool = False,
               job_copy: bool = False) -> bool:
    """Store one file's records and count them; False when the file was refused or passed over. ``said``: the
    file's warnings and the line of the measurement each is of (``_records``'s ``of_line``); ``earlier``: the run
    ids of a hashed file before it grew (``_earlier_runs``); ``by_hand``: its run id is ``--run-id``'s, so a
    record whose figures another run's stored record holds is warned of (``_echo_warning``); ``job_copy``: it is
    a job's output no output of this ingest had the bytes of, so one whose bytes another file's stored record was
    read from (an earlier ingest's) is warned of (``_stored_copy_warning``)."""
    behind: list = []  # placeholders the store keeps out behind their job's output
    alike: list = []  # records of a measurement another hashed run holds (store.Alike)
    stored: list = []  # records the store held already, as they are
    echoes: list = []  # records newly stored whose figures another run's stored record holds (store.Echo)
    copies: list = []  # records newly stored whose output's bytes another file's stored record holds (store.Echo)
    warnings, of_line = said
    provided: list = []  # stored records given the ref or commit they were stored without (store.Provided)
    lines = [rec.get(R.SOURCE_LINE) or 0 for rec in records]  # as read (a grown file's line may become its stored row)
    try:  # a store failure stops the ingest
        new = store.add(records, sole=sole, before_commit=before_commit, behind=behind, alike=alike, stored=stored,
                        earlier=earlier, echoes=echoes if by_hand else None, copies=copies if job_copy else None,
                        provided=provided)
    except Immutable as exc:  # a changed file under a stored key: this file only is refused
        outcome.problems.append(exc.at(str(path)))
        return False
    except Copied as exc:  # a copy of a file an earlier ingest stored: a content-hash run holds it
        outcome.warnings.append(_copy_warning(path, _copied(exc)))
        return False
    except SameBytes as exc:  # its bytes stored under another run (with --row, or a job's): not as a run of its own
        outcome.warnings.append(_stored_as_warning(path, exc.stored))
        return False
    outcome.provided.extend((path, given) for given in provided)  # committed, whatever becomes of the records below
    _on_a_ref_now(outcome, provided)
    # stored before: as they are, or as the row of another file this one's took the place of (no new result either)
    held = {id(rec) for rec in [*stored, *(a.record if not a.replaced else a.kept for a in alike)]}
    before = [rec for rec in [*stored, *(a.record for a in alike if not a.replaced)] if not R.is_placeholder(rec)]
    warnings = _not_said_before(path, list(zip(records, lines)), warnings, of_line, before, outcome)
    warnings += [_echo_warning(path, echoes, len(records))] if echoes else []
    warnings += [_stored_copy_warning(path, copies[0].stored)] if copies else []
    if alike and not (records := _stored_once(records, alike, outcome, path)):
        return False
    if _superseded(records, new, outcome, behind, path) or _again(records, new, outcome, path, warnings):
        return True
    outcome.new += new
    outcome.results += len(records)
    outcome.records.extend(records)
    outcome.no_ref.extend(_no_ref(path, records, held))
    outcome.warnings.extend(_said_once(warnings, outcome.warnings))  # of stored files only
    if all(R.is_placeholder(rec) for rec in records):
        outcome.placeholders.update({_key(rec): (rec, warnings, new) for rec in records})  # one record
    return True


def _on_a_ref_now(outcome: Outcome, provided: list) -> None:
    """Take out of ``outcome.no_ref`` the results of this ingest that a later file of it gave a ref (``provided``:
    store.Provided; the job's fixed sidecar alone after its output): on a ref now, no baseline passes them over."""
    if given := {_key(p.stored) for p in provided if R.REF in p.fields}:
        outcome.no_ref[:] = [n for n in outcome.no_ref if _key(n.record) not in given]


def _no_ref(path: Path, records: list[dict], held: set[int]) -> list[NoRef]:
    """``NoRef`` of each of ``records`` (of ``path``, as stored: ``held`` the ids of those the store held already)
    that is on no ref and no rehearsal's, at the output for one with no sidecar and no --row, else at its job's
    sidecar."""
    out = []
    for rec in records:
        if rec.get(R.REF) is None and not rec.get(R.REHEARSAL):
            raw = sidecar.local_record(rec)
            where = path if raw or sidecar.is_sidecar(path) else sidecar.sidecar_path(path)
            out.append(NoRef(str(where), raw, id(rec) not in held, rec))
    return out


def _said_once(warnings: list, said: list) -> list:
    """``warnings`` but those of a GPU samples file (``SAMPLES_FILE_RULES``) that ``said`` holds already: one
    plain gpu_metrics.csv beside several outputs (a job's a.json, b.json, c.json at three concurrencies) is one
    file, warned of once, not once per output. An output's ``_Uncovered`` joins the one ``said`` holds of its
    samples file, which then names it too (s40q); so does a ``_Tokenless`` (s41c): each ``_Merged`` kind apart."""
    seen = {(w.file, w.line, w.message) for w in said if w.rule in SAMPLES_FILE_RULES}
    first = {(w.file, w.rule): w for w in said if isinstance(w, _Merged)}
    kept = []
    for w in warnings:
        if isinstance(w, _Merged) and (w.file, w.rule) in first:  # the outputs it names join the line said first
            first[w.file, w.rule].take(w)
        elif w.rule not in SAMPLES_FILE_RULES or (w.file, w.line, w.message) not in seen:
            kept.append(w)
    return kept


def _echo_warning(path: Path, echoes: list, results: int) -> Diagnostic:
    """The one warning of a file stored by hand (``--row``) whose results another run's stored results hold
    (``store.Echo``): read from the same bytes (one output ingested as two runs, ``--run-id 101`` then ``102``, or
    without ``--row`` before), or, for results stored before sweepgate kept the bytes' SHA-256, with every figure the
    same, which no two runs measure; counted as two, a baseline of such runs reads as no spread at all (``[35.1,
    35.1] (n=3)``). Of a file of several results (a JSONL), one line for them all, at the first, counting them
    (``results``: the file's)."""
    rec, old = echoes[0].record, echoes[0].stored
    run, first = old.get(R.RUN_ID), echoes[0].same_bytes
    if len(echoes) == 1:
        what = f"run {run}'s result {old.get(R.RESULT_FILENAME)!r}"
        stored_as = f"run {rec.get(R.RUN_ID)}'s {rec.get(R.RESULT_FILENAME)!r}"
    else:
        runs = list(dict.fromkeys(echo.stored.get(R.RUN_ID) for echo in echoes))
        what = (f"run {run}'s results of {file_of(str(old.get(R.RESULT_FILENAME)))!r}" if len(runs) == 1 else
                f"stored results of runs {', '.join(map(str, runs[:-1]))} and {runs[-1]}")
        some = f"{results}" if len(echoes) == results else f"{len(echoes)} of its {results}"
        stored_as = f"run {rec.get(R.RUN_ID)}'s {some} results (lines {_lines(echoes)})"
    said = "the same bytes as" if first else "every figure the same as"
    hashed = sidecar.local_record(old)  # a run of no baseline
    counted = "; `results compare` counts the output once" if all(e.same_bytes for e in echoes) and not hashed else ""
    fix = (f"nothing to do if run {rec.get(R.RUN_ID)} measured it: run {run}, stored without --row, is on no ref "
           "and no baseline" if hashed else
           f"ingest each run's own output (its job's $RESULT_FILENAME.json), not run {run}'s again")
    return Diagnostic(str(path), rec.get(R.SOURCE_LINE) or 0, 0, SAME_BYTES_RULE if first else "same-figures",
                      f"warning: {said} {what}, stored before: one output stored as two runs, which no two runs "
                      f"measure; stored all the same as {stored_as}{counted}", fix, severity="warning")


def _lines(echoes: list) -> str:
    """The lines of ``echoes``' results, runs of consecutive ones as ranges: ``1-3, 5``."""
    spans: list[list[int]] = []
    for line in sorted({echo.record.get(R.SOURCE_LINE) or 0 for echo in echoes}):
        if spans and line == spans[-1][1] + 1:
            spans[-1][1] = line
        else:
            spans.append([line, line])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _stored_as_warning(path: Path, old: dict) -> Diagnostic:
    """The warning of an output ingested without a sidecar or ``--row`` whose bytes are stored under another run
    (``store.SameBytes``: with ``--row`` before, or as a job's output): not stored again under its content's hash."""
    name = str(old.get(R.RESULT_FILENAME))
    what = f"results of {file_of(name)!r}" if old.get(R.SOURCE_LINE) else f"result {name!r}"
    return Diagnostic(str(path), 0, 0, SAME_BYTES_RULE,
                      f"warning: the same bytes as run {old.get(R.RUN_ID)}'s {what}, "
                      "stored before; not stored again as a run of its own (one output under two runs would count "
                      "as two measurements)", f"nothing to do: it is stored as run {old.get(R.RUN_ID)}'s",
                      severity="warning")


def _not_said_before(path: Path, records: list[tuple[dict, int]], warnings: list, of_line: dict,
                     before: list[dict], outcome: Outcome) -> list:
    """``warnings`` but those of results stored before (``before``: each an output's record the store held as it
    is, or a measurement another file's row holds; no placeholder), which were said when they were first stored
    (s32b: every re-ingest of an unchanged file said them again, though it stored nothing). A warning of one
    measurement (``of_line``: a JSONL line's, a list's entry's) goes with that measurement's records; one of the
    whole file (the GPU monitor's samples) with all of them. A job's placeholder (its output missing or cut short)
    is no measurement: what its warning says is of the files at hand, said on every ingest. Those left out are
    kept in ``outcome.said_before``, counted on a line of their own (and said with ``--verbose``). ``records``:
    the file's, each with the line it was read from."""
    if not warnings or not before:
        return warnings
    old = {id(rec) for rec in before}
    by_line: dict = {}
    for rec, line in records:
        by_line.setdefault(line, []).append(id(rec) in old)
    every = all(id(rec) in old for rec, _ in records)
    kept = [d for d in warnings if not (all(by_line[of_line[id(d)]]) if of_line.get(id(d)) in by_line else every)]
    outcome.said_before.extend((path, d) for d in warnings if not any(d is k for k in kept))
    return kept


def _copied(exc: Copied) -> str:
    """The file stored before that ``exc`` found a copy of: its result (``'a.json'``), or the file a list's
    results were read from, naming them (``'summary.json' ... as its results summary.json#1 and summary.json#2``:
    s30, the copy was said to have the same bytes as one entry, ``result 'summary.json#1'``)."""
    run = exc.record[R.RUN_ID]
    if exc.names == [exc.file]:
        return f"result {exc.file!r} of run {run} (stored before)"
    shown = exc.names if len(exc.names) <= 3 else [*exc.names[:2], f"{len(exc.names) - 2} more"]
    return (f"{exc.file!r} of run {run} (stored before, as its result{'s' if len(exc.names) > 1 else ''} "
            f"{', '.join(shown[:-1])}{' and ' if len(shown) > 1 else ''}{shown[-1]})")


def _stored_once(records: list[dict], alike: list, outcome: Outcome, path: Path) -> list[dict]:
    """``records`` but those the store did not keep (store.Alike: the same measurement stored from another
    file); the records of this ingest whose rows a later file's replaced are no result of it either (not
    counted twice, nor given to ``--jsonl`` twice). Each is kept in ``outcome.alike`` to be said."""
    outcome.alike.extend((path, a, any(a.kept is rec for rec in records)) for a in alike)
    skipped = [a.record for a in alike if not a.replaced]
    gone = {_key(a.record) for a in alike if a.replaced}  # of other files, or this list's entry stored before
    if gone & {_key(rec) for rec in outcome.records}:
        outcome.results -= sum(_key(rec) in gone for rec in outcome.records)
        outcome.records[:] = [rec for rec in outcome.records if _key(rec) not in gone]
    return [rec for rec in records if not any(rec is s for s in skipped) and _key(rec) not in gone]


def _key(rec: dict) -> tuple:
    return rec.get(R.RUN_ID), rec.get(R.ATTEMPT), rec.get(R.RESULT_FILENAME)


def _superseded(records: list[dict], new: int, outcome: Outcome, behind: list, path: Path) -> bool:
    """One job's sidecar alone (a partial copy) and its output in one ingest are one result, whichever
    came first: the output fills the placeholder (``store_immutable._fills``), or the placeholder is kept out
    behind it. Either way the placeholder is no result of this ingest: not counted, not given to
    ``--jsonl``, and its warning (the job "left no result file") not said. So is a placeholder kept
    out (``behind``) behind its job's output that an earlier ingest stored; it is reported as skipped
    (``stored_before``) unless an output of this ingest is its job's. True when ``records`` are such
    a placeholder, kept out; an output that filled one this ingest stored takes its place."""
    if all(R.is_placeholder(rec) for rec in records):
        if not new and all(_key(rec) in outcome.measured for rec in records):
            return True
        if len(behind) != len(records):
            return False
        outcome.stored_before.update({_key(rec): (path, rec) for rec in records})
        return True
    # a job's output of several measurements (X#1, X#2, ...) takes the place of its placeholder X as one of X would
    keys = {_key(rec) for rec in records} | {(rec.get(R.RUN_ID), rec.get(R.ATTEMPT), base) for rec in records
                                             if (base := R.job_of_measurement(rec.get(R.RESULT_FILENAME)))}
    # an eval-only job's scores (X-eval) take the place of its placeholder X (``R.eval_partners``)
    partners = {(rec.get(R.RUN_ID), rec.get(R.ATTEMPT), other) for rec in records for other in R.eval_partners(rec)}
    outcome.measured |= keys | partners
    for key in keys | {k for k in partners & outcome.stored_before.keys()
                       if R.eval_partners(outcome.stored_before[k][1])}:
        outcome.stored_before.pop(key, None)  # its output read in this ingest too: one result, that output's
    for key in keys & outcome.placeholders.keys() | {k for k in partners & outcome.placeholders.keys()
                                                     if R.eval_partners(outcome.placeholders[k][0])}:
        held, said, counted = outcome.placeholders.pop(key)
        outcome.new -= counted  # the output's fill of it is counted instead
        outcome.results -= 1
        outcome.records[:] = [r for r in outcome.records if r is not held]
        outcome.warnings[:] = [w for w in outcome.warnings if not any(w is x for x in said)]
    return False


def _again(records: list[dict], new: int, outcome: Outcome, path: Path, warnings: list) -> bool:
    """Whether ``records`` are a placeholder of a job that this ingest holds a placeholder of (evalb30):
    its sidecar alone and its output cut short (``X.json``, or an eval-only job's ``X-eval.json``
    beside its placeholder ``X``) are one failure, which the store keeps once; counted once. The
    warning that the job left no result file is not said once its file, cut short, is read: that
    file's warning is said instead."""
    if new or len(records) != 1 or not R.is_placeholder(records[0]):
        return False
    rec = records[0]
    others = [(rec.get(R.RUN_ID), rec.get(R.ATTEMPT), other) for other in R.eval_partners(rec)]
    key = next((k for k in (_key(rec), *others)
                if k in outcome.placeholders and (k == _key(rec) or R.eval_partners(outcome.placeholders[k][0]))), None)
    if key is None:
        return False
    held, said, counted = outcome.placeholders[key]
    if not sidecar.is_sidecar(path):  # the job's file, cut short: its warning in place of "left no result file"
        lost = [w for w in said if w.rule == MISSING_OUTPUT]
        outcome.warnings[:] = [w for w in outcome.warnings if not any(w is x for x in lost)]
        outcome.warnings.extend(warnings)
        outcome.placeholders[key] = (held, [*said, *warnings], counted)
    return True


def _utf8_name(path: Path) -> None:
    """A file name that is not UTF-8 cannot be stored as its record's source: that file is refused."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise fail(os.fsencode(path).decode("utf-8", "backslashreplace"), 0, "the file name is not UTF-8",
                   "rename the file (its name is stored with its results)") from None
