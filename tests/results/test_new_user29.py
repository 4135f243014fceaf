"""What a new user (new-user29) met comparing a PR run with main's runs by hand and reading its report."""

from __future__ import annotations

from helpers import job, sweepgate_at, vllm_output, write_job

RULE = "How to read a verdict:"


def _runs(folder, db: str, pr_factor: float) -> None:
    """Five main runs of one point, with a little noise, and a PR run (42, refs/pull/7/head) whose
    throughput is ``pr_factor`` of theirs, each ingested as a real process."""
    runs = [(str(run), "refs/heads/main", day, factor)
            for run, day, factor in zip(range(11, 16), range(1, 6), (1.0, 1.02, 0.99, 1.01, 0.98))]
    for run, ref, day, factor in [*runs, ("42", "refs/pull/7/head", 9, pr_factor)]:
        output = vllm_output(4, output_throughput=409.6 * factor, total_token_throughput=819.2 * factor,
                             median_tpot_ms=8.0 / factor, median_e2el_ms=8800.0 / factor,
                             p99_e2el_ms=9900.0 / factor)  # s34b: a median above its p99 is refused
        path = write_job(folder / run, "res", output, job(run_id=run, ref=ref, finished=f"2026-01-0{day}T12:00:00+00:00"))
        proc = sweepgate_at(folder, "results", "ingest", "--db", db, str(path))
        assert proc.returncode == 0, proc.stderr


def test_a_report_with_intervals_says_how_a_verdict_is_read(tmp_path):
    """A PR comment read "ttft_p50_ms 345.6 | 292.8 [240.3, 361.2] (n=3) | +18.1% (±5%) | unchanged" under
    four regressed rows of the same point, and nothing in the comment or on the terminal said what the
    interval is or that a verdict needs the figure outside it as well as the threshold: an 18 % move
    called unchanged read as a bug. One line under the tables now says it, in the Markdown report and
    on the terminal, and names whose figure it is (the PR's)."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    _runs(tmp_path, db, 0.8)
    md = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "42", "--markdown")
    assert md.returncode == 0, md.stderr
    (line,) = [line for line in md.stdout.splitlines() if line.startswith(RULE)]
    assert "`regressed` or `improved` only when the PR's figure is outside its interval" in line, line
    assert "changed by more than its threshold" in line and "`unchanged`" in line, line
    text = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "42")
    assert text.returncode == 0, text.stderr
    said = " ".join(text.stdout.split())
    assert f"{RULE} a metric is regressed or improved only when the PR's figure is outside its interval" in said, \
        text.stdout
    assert said.index(RULE) > said.index("Units:"), text.stdout  # under the table, beside the units


def test_a_report_with_no_interval_says_nothing_of_one(tmp_path):
    """A run whose every point is new has no interval to explain: no such line."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = write_job(tmp_path / "42", "res", vllm_output(4), job(run_id="42", ref="refs/pull/7/head"))
    assert sweepgate_at(tmp_path, "results", "ingest", "--db", db, str(path)).returncode == 0
    for extra in ((), ("--markdown",)):
        proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "42", *extra)
        assert proc.returncode == 0 and "new" in proc.stdout, proc.stderr
        assert RULE not in proc.stdout, proc.stdout


def _ingest_with_row(tmp_path, row_text: str):
    """`results ingest --row row.json` of one output, as a real process in ``tmp_path``."""
    import json

    (tmp_path / "out.json").write_text(json.dumps(vllm_output(4)))
    (tmp_path / "row.json").write_text(row_text)
    return sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row", "row.json",
                        "--run-id", "1", "--ref", "refs/heads/main", "out.json")


def test_an_empty_row_file_says_it_is_empty(tmp_path):
    """The README's walk-through writes the row with `sweepgate test-config ... | jq '.[0]' > row.json`; a
    mistyped key made test-config print nothing, jq wrote nothing, and ingest said "row.json:1:1: not valid
    JSON: Expecting value", which read as a broken row rather than no row at all."""
    proc = _ingest_with_row(tmp_path, "")
    (line,) = proc.stderr.splitlines()
    assert proc.returncode == 1 and line.startswith("row.json:1: the file is empty: no row; "), line
    assert "printed nothing" in line and not (tmp_path / "r.db").exists(), line


def test_a_null_or_empty_list_row_says_no_row_was_found(tmp_path):
    """`test-config` with flags that select no row (`--seq-lens 1k1k` for a key that sweeps only 8k1k)
    prints `[]`, and `jq '.[0]'` of it writes `null`: ingest said "row is not a JSON object", though the
    cause was the command that found no row."""
    for text, what in (("null\n", "null (`jq '.[0]'` of an empty list)"), ("[]\n", "an empty list")):
        proc = _ingest_with_row(tmp_path, text)
        (line,) = proc.stderr.splitlines()
        assert proc.returncode == 1 and line.startswith(f"row.json:1: {what}, no row: "), line
        assert "found no row" in line and "--seq-lens" in line, line


def test_a_list_of_rows_is_told_apart_by_the_fields_that_differ(tmp_path):
    """A list of several rows was refused with "e.g. `jq '.[0]' FILE > row.json`", the very pick the README
    warns against (`.[0]` takes the first row whatever it is). The hint names the fields the rows differ in
    and selects by them."""
    import json

    from helpers import ROW

    rows = [dict(ROW, conc=4), dict(ROW, conc=8), dict(ROW, conc=4, tp=4)]
    proc = _ingest_with_row(tmp_path, json.dumps(rows))
    (line,) = proc.stderr.splitlines()
    assert proc.returncode == 1 and "a list of 3 rows" in line and "'.[0]'" not in line, line
    assert "told apart by conc, tp" in line and "`jq 'map(select(.conc == 4 and .tp == 8))[0]' row.json" in line, line


def test_a_failed_job_s_request_counts_are_written_as_every_figure_is(tmp_path):
    """A failed multi-thousand-request job read "failure (0 of 10240 requests completed)" beside figures
    written with thousands separators (12,931) in the same table: its counts are written alike."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    _runs(tmp_path, db, 1.0)
    dead = vllm_output(4, num_prompts=10240, completed=0, failed=10240, output_throughput=0.0,
                       total_token_throughput=0.0, request_throughput=0.0)
    path = write_job(tmp_path / "43", "res", dead, job(run_id="43", ref="refs/pull/8/head", status="failure",
                                                       finished="2026-01-09T12:00:00+00:00"))
    assert sweepgate_at(tmp_path, "results", "ingest", "--db", db, str(path)).returncode == 0
    for extra in ((), ("--markdown",)):
        proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "43", *extra)
        assert proc.returncode == 0, proc.stderr
        assert "failure (0 of 10,240 requests completed)" in proc.stdout, proc.stdout


def test_a_tar_archive_of_job_outputs_is_told_to_be_extracted(tmp_path):
    """Job outputs copied between machines as a tarball: `results ingest runs.tar.gz` said "gzip-compressed,
    ...; gunzip it (gunzip -k FILE) and ingest the file", and the runs.tar that leaves was then refused as
    "format: not JSON or CSV, not a benchmark client output ... ingest the job's $RESULT_FILENAME.json": a
    newcomer went round in a circle. A tar archive, compressed or not, is named as one, with the command
    that extracts it; so is main's JSONL baseline passed to compare as a .tgz."""
    import io
    import json
    import tarfile

    def tarball(name: str, mode: str, members: dict[str, bytes]):
        with tarfile.open(tmp_path / name, mode) as tar:
            for member, data in members.items():
                info = tarfile.TarInfo(member)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))

    outputs = {"runs/res.json": json.dumps(vllm_output(4)).encode(),
               "runs/res.job.json": json.dumps(job(run_id="11")).encode()}
    tarball("runs.tar.gz", "w:gz", outputs)
    tarball("runs.tar", "w", outputs)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", db, "runs.tar.gz", "runs.tar")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        "runs.tar.gz:1: a gzip-compressed tar archive, not the file itself; extract it (tar -xzf FILE -C DIR) "
        "and ingest the folder",
        "runs.tar:1: a tar archive, not the file itself; extract it (tar -xf FILE -C DIR) and ingest the folder"], \
        proc.stderr
    path = write_job(tmp_path / "42", "res", vllm_output(4), job(run_id="42", ref="refs/pull/7/head"))
    assert sweepgate_at(tmp_path, "results", "ingest", "--db", db, str(path)).returncode == 0
    tarball("main.tgz", "w:gz", {"results.jsonl": b'{"run-id": "11"}\n'})
    proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "42", "--baseline-jsonl", "main.tgz")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        "main.tgz:1: a gzip-compressed tar archive, not the file itself; extract it (tar -xzf FILE -C DIR) "
        "and pass the files it holds"], proc.stderr


def test_a_folder_of_tar_archives_names_them(tmp_path):
    """A folder holding only tarballs of job outputs said "no result files (.json, .jsonl, .csv) in this
    folder; pass the folder the job outputs were downloaded into", as if it were empty."""
    import tarfile

    runs = tmp_path / "runs"
    runs.mkdir()
    for name, mode in (("main-101.tar.gz", "w:gz"), ("main-102.tgz", "w:gz"), ("pr.tar", "w")):
        with tarfile.open(runs / name, mode):
            pass
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "runs")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        "runs: no result files (.json, .jsonl, .csv) in this folder, only 3 tar archives (main-101.tar.gz, "
        "main-102.tgz, pr.tar); extract each (tar -xf FILE -C DIR) and ingest the folders"], proc.stderr


def test_a_chart_with_points_not_judged_says_why_in_its_legend(tmp_path):
    """Two main runs and a PR run: every point of the chart read "4 not judged" and nothing on the chart
    said why (the legend explained the new points' ring, the failed jobs' cross, but not this). The
    legend's title says it: too few baseline runs; a chart whose points were all judged does not."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    _runs(tmp_path, db, 1.0)  # five main runs: judged
    judged = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "42", "--plots", "judged")
    assert judged.returncode == 0, judged.stderr
    (svg,) = (tmp_path / "judged").glob("*.svg")
    assert "point labels: concurrency<" in svg.read_text() and "not judged" not in svg.read_text()
    db2 = f"sqlite:///{tmp_path / 'two.db'}"
    for run in ("11", "12", "42"):
        assert sweepgate_at(tmp_path, "results", "ingest", "--db", db2, f"{run}/res.json").returncode == 0
    proc = sweepgate_at(tmp_path, "results", "compare", "--db", db2, "--run", "42", "--plots", "few")
    assert proc.returncode == 0 and "insufficient-data" in proc.stdout, proc.stderr
    (svg,) = (tmp_path / "few").glob("*.svg")
    text = svg.read_text()
    assert ">4 not judged<" in text, text[-3000:]  # the point's label, as before
    assert "point labels: concurrency; not judged: too few baseline runs<" in text, text[-3000:]


def _drop_version_table(url: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE alembic_version")
    engine.dispose()


def test_a_sqlite_store_whose_version_table_is_gone_says_so_and_how_to_repair(tmp_path):
    """A store copied without its alembic_version table (`sqlite3 old.db ".dump results" | sqlite3 new.db`, a
    partial restore) was "not a sweepgate results store (it holds no results tables)" to show and compare,
    beside its results table, and "another program's database (tables results)" to ingest. It is the store
    whose version record is missing, as an emptied alembic_version already said, with a repair that works."""
    import shlex
    import sqlite3

    url = f"sqlite:///{tmp_path / 'r.db'}"
    path = write_job(tmp_path / "11", "res", vllm_output(4), job(run_id="11"))
    assert sweepgate_at(tmp_path, "results", "ingest", "--db", url, str(path)).returncode == 0
    _drop_version_table(url)
    before = (tmp_path / "r.db").read_bytes()
    for argv in (("ingest", str(path)), ("show",), ("compare", "--run", "11")):
        proc = sweepgate_at(tmp_path, "results", argv[0], "--db", url, *argv[1:])
        (line,) = proc.stderr.splitlines()
        assert proc.returncode == 1 and "the store's version record is missing (its alembic_version table is " \
            "gone)" in line and "another program" not in line and "no results tables" not in line, line
    assert (tmp_path / "r.db").read_bytes() == before
    db_path, statement = shlex.split(line.split("run sqlite3 ", 1)[1].split(", then")[0])  # the repair it gives
    with sqlite3.connect(db_path) as conn:
        conn.executescript(statement)
    conn.close()
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", url, str(path))
    assert proc.returncode == 0 and "(0 new)" in proc.stdout, proc.stderr
    assert sweepgate_at(tmp_path, "results", "show", "--db", url).returncode == 0


def test_another_program_s_results_table_alone_is_still_not_a_store(tmp_path):
    """A `results` table without the store's columns, and no alembic_version, is another program's: ingest
    adds nothing to it and show says it is no store, neither naming a lost version record."""
    import sqlite3

    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE results (id INTEGER PRIMARY KEY, score REAL)")
    conn.close()
    out = write_job(tmp_path / "11", "res", vllm_output(4), job(run_id="11"))
    show = sweepgate_at(tmp_path, "results", "show", "--db", f"sqlite:///{path}")
    ingest = sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{path}", str(out))
    assert show.returncode == 1 and "not a sweepgate results store" in show.stderr \
        and "version record" not in show.stderr, show.stderr
    assert ingest.returncode == 1 and "another program's database (tables results)" in ingest.stderr \
        and "version record" not in ingest.stderr, ingest.stderr


def test_a_postgresql_store_whose_version_table_is_gone_says_so(pg_url, tmp_path):
    path = write_job(tmp_path / "11", "res", vllm_output(4), job(run_id="11"))
    assert sweepgate_at(tmp_path, "results", "ingest", "--db", pg_url, str(path)).returncode == 0
    _drop_version_table(pg_url)
    for argv in (("ingest", str(path)), ("show",)):
        proc = sweepgate_at(tmp_path, "results", argv[0], "--db", pg_url, *argv[1:])
        (line,) = proc.stderr.splitlines()
        assert proc.returncode == 1 and "(its alembic_version table is gone)" in line, line
        assert "CREATE TABLE alembic_version" in line and " in psql" in line, line
