"""An AIPerf CSV export named by hand is held to its row as its JSON export is (s42d, a new user's walk).

The CSV states no concurrency; the JSON export of its name beside it does (`input_config.loadgen.concurrency`),
and ingest reads that JSON already, for whether the run finished. `results ingest --row row-c32.json ... x.csv`
of a concurrency-16 run stored it as a conc-32 point, silently (its requests in flight, 23, are within the
in-flight warning's four times), where the same command naming the JSON export refused it. It is now refused
as the JSON export is, at the JSON's key, naming the CSV.
"""

from __future__ import annotations

import json
import shutil

from helpers import ROW, SAMPLES, run_cli, show_json

RUN = "aiperf_kimik2.7_fp4_mi355x_tp4_conc16"


def _ingest(capsys, tmp_path, conc, *names):
    for suffix in names:
        shutil.copy(SAMPLES / "aiperf" / f"{RUN}{suffix}", tmp_path / f"profile_export_aiperf{suffix}")
    row = tmp_path / "row.json"
    row.write_text(json.dumps({**ROW, "conc": conc}), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    got = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(row), "--run-id", "1", "--ref",
                  "refs/heads/main", str(tmp_path / "profile_export_aiperf.csv"))
    return (*got, db)


def test_a_csv_whose_json_export_states_another_concurrency_is_refused(tmp_path, capsys):
    rc, _, err, db = _ingest(capsys, tmp_path, 32, ".csv", ".json")
    lines = [x for x in err.splitlines() if not x.startswith("::")]
    assert rc == 1 and len(lines) == 1, err
    twin = tmp_path / "profile_export_aiperf.json"
    assert lines[0].startswith(f"{twin}:246:7: input_config.loadgen.concurrency: the output ran at concurrency 16 "
                               "but its job's row (--row) says conc 32"), lines[0]
    assert f"its CSV export {tmp_path / 'profile_export_aiperf.csv'}" in lines[0], lines[0]
    assert lines[0].endswith("; pass the matrix row this output was run with as --row"), lines[0]


def test_a_csv_whose_json_export_agrees_with_its_row_is_stored(tmp_path, capsys):
    rc, out, err, db = _ingest(capsys, tmp_path, 16, ".csv", ".json")
    assert rc == 0 and "ingested 1 results" in out, err
    (line,) = [x for x in err.splitlines() if not x.startswith("::")]  # its model, which the CSV does not name
    assert line.startswith(f"{tmp_path / 'profile_export_aiperf.json'}:") and ": warning: " in line and \
        f"the output benchmarked amd/Kimi-K2.7-Code-MXFP4 but its job's row (--row) says model {ROW['model']}; " \
        f"stored under {ROW['model']}: its CSV export {tmp_path / 'profile_export_aiperf.csv'}" in line, line
    assert [r["conc"] for r in show_json(capsys, db)] == [16]


def test_a_csv_alone_is_stored_under_its_row_as_before(tmp_path, capsys):
    rc, out, err, db = _ingest(capsys, tmp_path, 32, ".csv")
    assert rc == 0 and "ingested 1 results" in out, err
    assert "does not say whether its run finished" in err, err
