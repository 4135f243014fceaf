"""polish29: a failed job's output that counted no completed request (throughput 0, success rate 0) was shown
by `results show` as measured figures, "0.00" tok/s/GPU and "0.0%" success, where `results compare` says
"failure (0 of 40 requests completed)" and judges none of its figures. `results show` now says the job as
compare does and leaves its figure cells blank; compare's table, its Markdown report and the charts say
and draw it alike (none shows a failed job's figure as measured)."""

from __future__ import annotations

import json

from helpers import ROW, job, md_rows, sweepgate_at, vllm_output, write_job

ZERO = {"completed": 0, "failed": 40, "output_throughput": 0.0, "total_token_throughput": 0.0,
        "request_throughput": 0.0, "total_output_tokens": 0, **{f"{s}_{m}_ms": 0.0 for s in ("mean", "median", "p99")
                                                                for m in ("ttft", "tpot", "itl", "e2el")}}
SAID = "failure (0 of 40 requests completed)"


def _ingest(tmp_path, db: str, folder: str, *jobs) -> None:
    for name, output, side in jobs:
        write_job(tmp_path / folder, name, output, side)
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", db, str(tmp_path / folder))
    assert proc.returncode == 0, proc.stderr


def _rows(text: str) -> list[list[str]]:
    """The body rows of a rich table printed to a pipe, as cells."""
    return [[c.strip() for c in line.strip()[1:-1].split("│")] for line in text.splitlines() if "│" in line]


def _header(text: str) -> list[str]:
    line = next(line for line in text.splitlines() if "┃" in line)
    return [c.strip() for c in line.strip()[1:-1].split("┃")]


def test_results_show_says_a_failed_job_as_compare_does_with_no_figure(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    _ingest(tmp_path, db, "run", ("ok", vllm_output(4), job("1001")),
            ("zero", vllm_output(8, **ZERO), job("1001", status="failure", row=dict(ROW, conc=8))),
            ("gone", None, job("1001", status="cancelled", row=dict(ROW, conc=16))))
    shown = sweepgate_at(tmp_path, "results", "show", "--db", db, "--run", "1001", columns="300")
    assert shown.returncode == 0, shown.stderr
    header, rows = _header(shown.stdout), _rows(shown.stdout)
    by_conc = {row[header.index("conc")]: dict(zip(header, row)) for row in rows}
    assert by_conc["4"]["tok/s/GPU"] == "51.2" and by_conc["4"]["status"] == "success"
    assert by_conc["8"]["status"] == SAID, by_conc["8"]
    assert by_conc["16"]["status"] == "cancelled", by_conc["16"]
    for conc in ("8", "16"):
        figures = {h: by_conc[conc][h] for h in ("tok/s/GPU", "tok/s/user", "TTFT p50 ms", "success")}
        assert set(figures.values()) == {""}, figures  # was "0.00" and "0.0%" for conc 8
    assert not {"0.00", "0.0%"} & {cell for row in rows for cell in row}, shown.stdout
    # the record itself keeps what the output said (--json prints it as stored)
    records = json.loads(sweepgate_at(tmp_path, "results", "show", "--db", db, "--run", "1001", "--json").stdout)
    assert {r["conc"]: r["metrics"].get("success_rate") for r in records}[8] == 0
    # compare says the failed job in the same words, on the terminal and in Markdown
    table = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "1001", columns="300")
    assert SAID in table.stdout, table.stdout
    md = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "1001", "--markdown")
    failed = [row for row in md_rows(md.stdout) if "conc 8" in row[0]]
    assert failed and all(SAID in " ".join(row) and "0.00" not in " ".join(row) for row in failed), failed


def test_a_failed_main_job_with_zero_figures_is_no_baseline_figure_nor_a_chart_point(tmp_path):
    """Main's night whose job counted no completed request is left out of the baseline's median (table
    and chart); a PR job that did so is a cross at main's median, never a point at zero."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for run, day in (("11", 1), ("12", 2), ("13", 3)):
        _ingest(tmp_path, db, run, ("res", vllm_output(4, date=f"2026010{day}-120000"),  # each night's own output
                                    job(run, finished=f"2026-01-0{day}T12:00:00+00:00")))
    _ingest(tmp_path, db, "14", ("res", vllm_output(4, **ZERO),
                                 job("14", status="failure", finished="2026-01-04T12:00:00+00:00")))
    _ingest(tmp_path, db, "21", ("res", vllm_output(4, **ZERO),
                                 job("21", status="failure", ref="refs/pull/7/merge", finished="2026-01-05T12:00:00+00:00")))
    out = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "21", "--json")
    assert out.returncode == 0, out.stderr
    (point,) = json.loads(out.stdout)["points"]
    assert point["baseline"]["n"] == 3 and point["baseline"]["median"] == 1.0, point  # main's three successes
    assert point["status"] == "failure" and point["head"] == 0.0  # CONTRACTS: a failed job's success rate as 0
    from sweepgate.results import charts, compare

    def run(run_id: str) -> list[dict]:
        return json.loads(sweepgate_at(tmp_path, "results", "show", "--db", db, "--run", run_id, "--json").stdout)

    comparison = compare.compare_records(run("21"), [r for n in ("11", "12", "13", "14") for r in run(n)], run="21")
    ((item,),) = charts.chart_groups(comparison).values()
    assert item["pr"] is None and item["flag"] == compare.FAILED  # a cross, not a point at zero
    assert item["at"] == item["base"] and item["runs"] == 3 and min(item["base"]) > 0, item
