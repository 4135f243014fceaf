"""s39e: work that was done twice in results/ is done once, with the same answers. Each test counts the work
(calls of a real function, wrapped to count and still run) on real comparisons and stores.

4. A table one block a point (``render._by_point``) found each column's longest word (``_longest_units``) for its
   widths and again to tell whether they align: found once now (``_widths`` gives both).
5. A stored figure read as a float was spelled three ways (``compare.combined``, ``compare._figure``,
   ``charts._xy``): one helper, ``derive.float_figure``, which each now calls.
6. ``results compare`` read main's newest record of each point of the run's config keys one statement a key
   (``store_adapter._others_of_keys``): IN_CHUNK keys a statement now (``Store.latest_per_point_of_keys``), the
   same records in the same order.
"""

from __future__ import annotations

import contextlib
import io
import json

import sqlalchemy as sa

import synth
from helpers import run_cli, write_job, job
from test_store_in_lists_s38d import _as, _ingest, _jsonl
from test_work_once_s39e import _counting  # tests/: a call counted, still made
from sweepgate.core import report
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import charts, derive, render, store, store_adapter


def test_a_table_a_block_a_point_finds_its_longest_words_once(monkeypatch):
    comp = C.compare_records(synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}), synth.history())
    monkeypatch.setenv("COLUMNS", "80")  # one block a point (test_results_leftovers_s37c)
    monkeypatch.setenv("NO_COLOR", "1")
    out = io.StringIO()
    assert report.console(out).width == 80
    longest = _counting(monkeypatch, render, "_longest_units")
    render.table(comp, out)
    assert synth.KEYS[0] in out.getvalue()
    assert len(longest) == 1, len(longest)


def test_compare_and_charts_read_a_figure_as_a_float_through_one_helper(monkeypatch):
    metrics = {charts.X: 40, charts.Y: 900}  # ints, as a record may store them
    assert derive.float_figure(metrics, charts.Y) == 900.0 and type(derive.float_figure(metrics, charts.Y)) is float
    assert derive.float_figure(metrics, "absent") is None
    read = _counting(monkeypatch, derive, "float_figure")
    assert type(C._figure({R.METRICS: metrics}, charts.Y)) is float and len(read) == 1
    assert charts._xy(metrics) == (40.0, 900.0) and all(type(v) is float for v in charts._xy(metrics))
    assert len(read) == 5
    twice = [{R.METRICS: {R.OUTPUT_TPUT_PER_GPU: v}} for v in (700, 900)]
    assert C.combined(twice)[R.METRICS] == {R.OUTPUT_TPUT_PER_GPU: 800.0} and len(read) == 7


@contextlib.contextmanager
def _selects():
    """The SELECT statements every database connection runs meanwhile (a SQLAlchemy event: the driver's calls)."""
    seen = []

    def count(_conn, _cursor, statement, *_):
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", count)


def _store_of_keys(env, capsys, keys: int) -> str:
    """A store where main measured two concurrencies of each of ``keys`` config keys and a PR (run 920) one."""
    db = f"sqlite:///{env / f'r{keys}.db'}"
    write_job(env / f"a{keys}", "c4", _jsonl(2 * keys), job(run_id="900"))
    _ingest(capsys, db, env / f"a{keys}")
    with store.open_store(db) as st:
        recs = [rec | {R.CONFIG_KEY: f"key-{i // 2:02}", R.CONC: 4 * (1 + i % 2)}
                for i, rec in enumerate(st.run_results("900"))]
        st.add(_as(recs, "910", "refs/heads/main", 2))
        st.add(_as(recs, "911", "refs/heads/main", 3))
        st.add(_as(recs[::2], "920", "refs/pull/7/merge", 4))  # conc 4 of each key
    return db


def test_compare_reads_the_others_of_a_runs_keys_in_one_statement(env, capsys):
    counts = []
    for keys in (3, 9):
        db = _store_of_keys(env, capsys, keys)
        with _selects() as seen:
            rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "920", "--json")
        assert rc == 0, err
        counts.append(len(seen))
        with store.open_store(db) as st:  # what the key-by-key reads gave: the same records, in the same order
            pr, base = st.run_results("920"), []
            known = {R.point_values(r) for r in pr}
            mine = [r for key in sorted({r[R.CONFIG_KEY] for r in pr})
                    for r in st.latest_per_point(key, "refs/heads/main", succeeded=True, include_rehearsals=False)
                    if R.point_values(r) not in known]
            got = store_adapter._others_of_keys(st, pr, base, "refs/heads/main", False, None)
        assert [(r[R.RUN_ID], r[R.CONFIG_KEY], r[R.CONC]) for r in got[:len(mine)]] == [
            (r[R.RUN_ID], r[R.CONFIG_KEY], r[R.CONC]) for r in mine] and len(mine) == keys
        assert {p[R.CONFIG_KEY] for p in json.loads(out)["points"]} == {f"key-{k:02}" for k in range(keys)}
    assert counts[0] == counts[1], counts  # no statement more for more keys
