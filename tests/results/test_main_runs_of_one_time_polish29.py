"""polish29: main runs ingested by hand (`--row ... --run-id ID --ref refs/heads/main`) from vLLM outputs of one
`date` carry one time. A run on main is judged against main's runs before it, and "before" was by time alone:
neither run was before the other, and `results compare --run 103` called every point main measured in run 102
"new", saying "no baseline results ...; check --baseline-ref". Records of one time are ordered by run id
(``record.time_order``, the store's ``_time_order``), and a run's past is now read so too (``record.before``,
``store_query._before``): run 103 is judged against 102, from the store and from the JSONL alike. Run 102, the first,
has nothing before it: its points are new, and the line says that main measured them after it, naming the run,
instead of sending the user after --baseline-ref."""

from __future__ import annotations

from helpers import compared_json, main_runs_by_hand

MAIN = "refs/heads/main"




def _baseline(report: dict) -> tuple[int, str]:
    (point,) = [p for p in report["points"] if p["metric"] == "output_tput_per_gpu"]
    return point["baseline"]["n"], point["verdict"]


def test_the_later_of_two_main_runs_of_one_time_is_judged_against_the_earlier(tmp_path):
    db = main_runs_by_hand(tmp_path, {"102": 1.0, "103": 1.01})
    for extra in ((), ("--baseline-jsonl", "main.jsonl")):
        report, err = compared_json(tmp_path, db, "103", *extra)
        assert _baseline(report) == (1, "insufficient-data"), (extra, report["points"][0])  # was (0, "new")
        assert report["counts"]["new"] == 0 and "no baseline results" not in err, err


def test_a_main_run_is_judged_against_the_runs_of_its_time_before_it_only(tmp_path):
    """Of three main runs of one time, 102's baseline is 101, never the later 103; 103's is both."""
    db = main_runs_by_hand(tmp_path, {"101": 1.0, "102": 1.02, "103": 0.5})
    for extra in ((), ("--baseline-jsonl", "main.jsonl")):
        report, _ = compared_json(tmp_path, db, "102", *extra)
        assert _baseline(report) == (1, "insufficient-data"), (extra, report["points"][0])
        (point,) = [p for p in report["points"] if p["metric"] == "output_tput_per_gpu"]
        assert point["baseline"]["median"] == 51.2, point  # 101's 409.6 tok/s over 8 GPUs, not 103's half
        report, _ = compared_json(tmp_path, db, "103", *extra)
        assert _baseline(report)[0] == 2, (extra, report["points"][0])


def test_the_first_main_run_says_main_measured_its_points_after_it(tmp_path):
    db = main_runs_by_hand(tmp_path, {"102": 1.0, "103": 1.01})
    report, err = compared_json(tmp_path, db, "102")
    assert _baseline(report) == (0, "new")  # nothing of main's is before it
    (line,) = err.strip().splitlines()
    assert line == ("sweepgate results compare: run 102 is on refs/heads/main itself and is judged against its runs "
                    "before it; refs/heads/main measured its points only after it (run 103; runs of one time are "
                    "placed by run id), so every point that measured something is new; compare the later run "
                    "(--run 103), or ingest each run with its .job.json, whose times place it"), line
    assert "--baseline-ref" not in line
