"""s37h: results leftovers.

- A folder whose only results were compressed or archived one level down (``nest/sub/c4.json.gz`` and its job's
  sidecar ``nest/sub/c4.job.json``; an artifact's zip in ``nest/dl/``) was refused as holding "no result files
  ... in this folder" and nothing else: the walk goes into subfolders, but the line looked only at the folder's
  own files. It names them by their paths from the folder given, with the same fixes.
- A chart's PR front was broken wherever a failed (or not measured) point, drawn at its baseline, lay between two
  front points by interactivity: a failed conc 512 drawn among the PR's conc 256 and 128 cut the line between
  them. It is broken only where such a point lies between two along the sweep (its concurrency, or request rate,
  between theirs).
- A point too few baseline runs judged was labelled "64 not judged" whether it moved -11.7 % or +0.4 %: where its
  throughput per GPU, else its interactivity, moved past its threshold, the label carries that change.

Real ingests through the CLI into SQLite.
"""

from __future__ import annotations

import gzip
import json
import zipfile

import pytest

import synth
from helpers import job, run_cli, vllm_output, write_job
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R


def _db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


def test_a_jobs_compressed_output_and_sidecar_in_a_subfolder_are_named(tmp_path, capsys):
    nest = tmp_path / "nest"
    write_job(nest / "sub", "c4", None, job(run_id="900"))
    (nest / "sub" / "c4.json.gz").write_bytes(gzip.compress(json.dumps(vllm_output(4)).encode()))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(nest))
    assert rc == 1 and err.splitlines() == [
        f"{nest}: no result files (.json, .jsonl, .csv) in this folder, only 1 gzipped result file "
        "(sub/c4.json.gz), and 1 job sidecar (sub/c4.job.json) whose output it is; gunzip each (gunzip -k FILE) "
        "and ingest the folder"], (out, err)
    (nest / "sub" / "c4.json").write_bytes(gzip.decompress((nest / "sub" / "c4.json.gz").read_bytes()))  # the fix
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(nest))
    assert rc == 0 and "ingested 1 results (1 new)" in out and err == "", (out, err)


def test_archives_at_several_depths_are_named_by_their_paths_from_the_folder(tmp_path, capsys):
    nest = tmp_path / "nest"
    (nest / "dl" / "deeper").mkdir(parents=True)
    for zipped in (nest / "dl" / "deeper" / "b.zip", nest / "a.zip"):
        with zipfile.ZipFile(zipped, "w") as z:
            z.writestr("c4.json", json.dumps(vllm_output(4)))
    (nest / "dl" / "c8.json.xz").write_bytes(b"\xfd7zXZ\x00\x00")  # an xz stream's magic bytes
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(nest))
    assert rc == 1 and err.splitlines() == [
        f"{nest}: no result files (.json, .jsonl, .csv) in this folder, only 2 zip archives (a.zip, "
        "dl/deeper/b.zip) and 1 xz-compressed result file (dl/c8.json.xz); unzip each zip archive "
        "(unzip FILE -d DIR), decompress each xz-compressed result file (xz -dk FILE) and ingest the folders"], (out, err)


def _fronts(comp: C.Comparison) -> tuple[list[list[tuple]], list[dict]]:
    """The PR front's lines as drawn (each its points, by x) in the comparison's one chart, and its items."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    lines = [line for line in fig.axes[0].get_lines()
             if (line.get_gid() or "").startswith(charts.FRONT_GID[charts.PR_FRONT])]
    return [sorted(map(tuple, line.get_xydata())) for line in lines], items


def _pr_at(items: list[dict], load) -> tuple:
    (item,) = [item for item in items if item["conc"] == load or item["point"][C.RATE_AT] == load]
    return item["pr"]


def _sweep(by_rate: bool, failed, slower: dict[int, float]) -> C.Comparison:
    """synth's one recipe at conc 4-64, the PR's point at ``failed`` failed and each conc in ``slower`` that
    many times as interactive; ``by_rate``: a request-rate sweep at conc 256 instead (rates 1-8/s and
    unlimited, in the concurrencies' order)."""
    rates = dict(zip(synth.CONCS, ("1", "2", "4", "8", "inf")))
    pr = synth.pr_run(keys=synth.KEYS[:1], scale={(synth.KEYS[0], c): {R.INTERACTIVITY: f} for c, f in slower.items()})
    records = synth.history(keys=synth.KEYS[:1]) + pr
    if by_rate:
        records = [{**rec, R.CONC: 256, R.REQUEST_RATE: rates[rec[R.CONC]]} for rec in records]
    for rec in pr if not by_rate else records[-len(pr):]:
        if (rec[R.REQUEST_RATE] if by_rate else rec[R.CONC]) == failed:
            rec.update({R.STATUS: "failure", R.METRICS: {}})
    return C.compare_records(records[-len(pr):], records[:-len(pr)])


@pytest.mark.parametrize("by_rate", [False, True], ids=["conc", "rate"])
def test_the_pr_front_runs_on_past_a_failed_point_drawn_between_two_it_does_not_lie_between(by_rate):
    """The last point of the sweep (conc 64, or the unlimited rate) failed and is drawn at its baseline, whose
    interactivity (18.9) lies between the PR's conc 32, made slower (18.0), and conc 16 (51): the front from 32 to
    16 was missing, though the failed point is not between them along the sweep. It runs whole now."""
    comp = _sweep(by_rate, "inf" if by_rate else 64, {32: 0.55})
    fronts, items = _fronts(comp)
    (failed,) = [item for item in items if item["flag"] == C.FAILED]
    loads = ("1", "2", "4", "8") if by_rate else (4, 8, 16, 32)
    measured = sorted(_pr_at(items, load) for load in loads)
    assert measured[0][0] < failed["at"][0] < measured[1][0]  # drawn between conc 32 and 16 by interactivity
    assert fronts == [measured], (fronts, failed["at"])


@pytest.mark.parametrize("by_rate", [False, True], ids=["conc", "rate"])
def test_the_pr_front_is_still_broken_at_a_failed_point_between_two_along_the_sweep(by_rate):
    """conc 16 (rate 4/s) failed, between conc 8 and 32 (2/s and 8/s) along the sweep: the front stops at them,
    as before, a line from 8 to 32 never drawn."""
    comp = _sweep(by_rate, "4" if by_rate else 16, {})
    fronts, items = _fronts(comp)
    low, high = (("1", "2"), ("8", None)) if by_rate else ((4, 8), (32, 64))
    assert fronts == [sorted(_pr_at(items, load) for load in high), sorted(_pr_at(items, load) for load in low)]


def test_a_not_judged_points_label_says_a_change_past_its_threshold():
    """Against two main runs (too few to judge), conc 16's throughput per GPU 12 % down and conc 8's interactivity
    20 % up were labelled "16 not judged" and "8 not judged", as conc 32's 0.4 % was: the label now carries the
    change where one of the axes' figures moved past its threshold (throughput per GPU's first), with its unit."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    key = synth.KEYS[0]
    pr = synth.pr_run(keys=(key,), noise=0.0, scale={(key, 16): {R.OUTPUT_TPUT_PER_GPU: 0.88},
                                                     (key, 8): {R.INTERACTIVITY: 1.2},
                                                     (key, 32): {R.OUTPUT_TPUT_PER_GPU: 1.004}})
    comp = C.compare_records(pr, synth.history(runs=2, noise=0.0, keys=(key,)))
    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    # a label set in its two-line form (charts.label_forms: its last item on a line of its own, where one line finds
    # no free spot) says the same
    texts = {t.get_text().replace(",\n", ", ") for t in fig.axes[0].texts}
    assert texts == {"4 not judged", "8 not judged, +20.0% tok/s/user", "16 not judged, -12.0% tok/s/GPU",
                     "32 not judged", "64 not judged"}, texts
