"""What a new user (new-user28) met reading a large sweep's PR comment and its terminal report."""

from __future__ import annotations

import synth
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render

KEY = synth.KEYS[0]


def test_a_comment_cut_to_its_limit_counts_unchanged_points_as_its_headline_does():
    """A 300-point sweep whose every point regressed in four metrics read "0 points unchanged" in the
    headline and "Unchanged: 300 points, 593 metrics (too many to list here ...)" at its foot: the
    regressed points' unchanged TTFT and success-rate rows were counted as unchanged points. The cut
    section counts as the headline does, and the other points' unchanged rows apart."""
    pr = synth.pr_run({(KEY, 16): {R.OUTPUT_TPUT_PER_GPU: 0.8, R.INTERACTIVITY: 0.8}}, keys=(KEY,))
    comp = C.compare_records(pr, synth.history(keys=(KEY,)))
    whole = render.markdown(comp)
    lines = render.markdown(comp, limit=len(whole.encode()) // 2).splitlines()
    tally = render.tally(comp.verdicts)[C.UNCHANGED]
    assert f"{tally[0]} points unchanged" in lines[1], lines[1]
    cut = [line for line in lines if line.startswith("Unchanged:")]
    assert cut == [f"Unchanged: {tally[0]} points, {tally[1]} metrics; 4 unchanged metrics of 1 other point "
                   "counted above (too many to list here; see `--json`)."], cut
    slowed = {(KEY, conc): {R.OUTPUT_TPUT_PER_GPU: 0.8} for conc in synth.CONCS}  # every point regressed
    comp = C.compare_records(synth.pr_run(slowed, keys=(KEY,)), synth.history(keys=(KEY,)))
    lines = render.markdown(comp, limit=len(render.markdown(comp).encode()) // 2).splitlines()
    assert "5 points regressed (5 metrics)" in lines[1] and "unchanged" not in lines[1], lines[1]  # no zero count
    assert [line for line in lines if line.startswith("Unchanged:")] == [
        "Unchanged: 25 unchanged metrics of 5 points counted above (too many to list here; see `--json`)."], lines


def test_a_point_label_on_a_narrow_terminal_breaks_only_between_its_parts(db, capsys, monkeypatch):
    """At 80 columns `results compare` printed "qwen3.5-fp8-h200-sglang-mtp h200 ... conc 32 tp8-ep8 spec"
    over "mtp": rich broke the label at any blank, splitting "spec mtp" (and could "conc" from its
    number, "lmcache" from "(dram)"). A label on a narrow terminal breaks only between its parts."""
    from helpers import run_cli
    from sweepgate.results import store

    base, pr = synth.history(keys=(KEY,), concs=(32,)), synth.pr_run(keys=(KEY,), concs=(32,))
    for record in base + pr:
        record[R.SPEC_DECODING] = "mtp"
    with store.open_store(db) as st:
        st.add(base + pr)
    units = [KEY, "b300", "fixed-seq-len", "1024/1024", "conc 32", "spec mtp"]
    width = len(" ".join(units))
    for columns in range(width - 8, width):  # every width that breaks the label within its last parts
        monkeypatch.setenv("COLUMNS", str(columns))
        rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--all")
        assert rc == 0, err
        lines = text.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith(KEY))
        label = [lines[start].strip(), lines[start + 1].strip()]
        assert " ".join(label) == " ".join(units), (columns, text)
        assert all(any(unit in line for line in label) for unit in units), (columns, label)


def test_compare_interrupted_while_drawing_leaves_no_earlier_run_chart_under_this_runs_names(db, capsys, monkeypatch,
                                                                                              tmp_path):
    """Ctrl-C while `results compare --plots charts` drew a sweep's charts into the folder an earlier compare
    had drawn into left the earlier run's charts beside this run's, under the same names, and said only
    "interrupted": a maintainer opening the folder read another run's figures as this one's. The charts
    it had yet to redraw are removed, and a line says how far it got."""
    from helpers import run_cli
    from sweepgate.results import charts, store

    records = []
    for hardware in ("b300", "h200"):  # two charts
        records += synth.history(keys=(KEY,), hardware=hardware)
        records += synth.pr_run(keys=(KEY,), hardware=hardware)
        records += synth.pr_run(keys=(KEY,), hardware=hardware, run="pr-8", ref="refs/pull/8/merge", seed=5)
    with store.open_store(db) as st:
        st.add(records)
    folder = tmp_path / "charts"
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--plots", str(folder))
    assert rc == 0 and len(list(folder.iterdir())) == 4, err
    save, saved = charts._save, []

    def save_then_stop(fig, path, fmt):
        if saved:
            raise KeyboardInterrupt
        saved.append(save(fig, path, fmt).name)
        return path

    monkeypatch.setattr(charts, "_save", save_then_stop)
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-8", "--plots", str(folder))
    assert rc == 130, err
    assert sorted(p.name for p in folder.iterdir()) == saved, err
    assert "interrupted after drawing 0 of 2 charts" in err, err


def test_a_zip_already_unzipped_beside_it_is_not_said_to_be_left_out(tmp_path, capsys):
    """A maintainer downloaded a run's artifact zip, unzipped it beside the zip (`unzip run.zip -d run`) and
    ingested the folder: every job was stored, and a warning said the zip's results were "not ingested;
    unzip it and ingest DIR too". A zip whose every result file the walk met unzipped (the same name and
    size) is not named; one with a job not unzipped still is."""
    import json
    import zipfile

    from helpers import ROW, job, run_cli, vllm_output, write_job

    runs = tmp_path / "downloads"
    write_job(runs / "run" / "bmk_a", "a", vllm_output(), job(run_id="7", ref="refs/pull/7/head"))
    write_job(runs / "run" / "bmk_b", "b", vllm_output(16), job(run_id="7", ref="refs/pull/7/head", row={**ROW, "conc": 16}))
    with zipfile.ZipFile(runs / "run.zip", "w") as z:
        for path in sorted((runs / "run").rglob("*.json")):
            z.write(path, path.relative_to(runs / "run"))
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(runs))
    assert rc == 0 and out.splitlines()[-1].startswith("ingested 2 results (2 new)"), (out, err)
    assert err == "", err
    with zipfile.ZipFile(runs / "more.zip", "w") as z:  # a job the folder does not hold
        z.writestr("bmk_c/c.json", json.dumps(vllm_output(32)))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(runs))
    assert rc == 0 and err.splitlines() == [
        f"{runs / 'more.zip'}: warning: a zip archive of 1 .json/.jsonl/.csv file, not ingested; "
        "unzip it (unzip FILE -d DIR) and ingest DIR too"], err


def test_show_on_80_columns_keeps_a_long_result_name_inside_its_block(db, capsys, monkeypatch):
    """InferenceX names a job's files by its whole recipe (113 characters here). `results show` at 80 columns
    put that name on a line of its own at column 0, under a bare "result", and cut it inside "conc16": the
    block read as ending there. The name now starts beside its header and goes on indented under it, cut
    after a "_" or "-"."""
    from helpers import run_cli
    from sweepgate.results import store

    name = ("gptoss_1k1k_fp4_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc16_b200-nb_0_"
            "nofp49ce7c4ab40c")
    record = synth.history(runs=1, keys=(KEY,), concs=(16,))[0]
    record[R.RESULT_FILENAME] = name
    with store.open_store(db) as st:
        st.add([record])
    monkeypatch.setenv("COLUMNS", "80")
    rc, out, err = run_cli(capsys, "results", "show", "--db", db)
    assert rc == 0, err
    lines = out.splitlines()
    lines = lines[:next(i for i, line in enumerate(lines) if line.startswith("Columns: "))]  # the line under the blocks
    start = next(i for i, line in enumerate(lines) if line.startswith("  result "))
    rest = lines[start + 1:]
    assert rest and all(line.startswith("    ") and len(line) <= 80 for line in rest), out
    assert "".join(line.strip() for line in lines[start:]) == f"result {name}", out
    assert all(line.rstrip().endswith(("_", "-")) for line in lines[start:-1]), out
