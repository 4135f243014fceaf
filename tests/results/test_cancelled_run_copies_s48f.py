"""s48f review: the copies `ci reuse` records against a run are that run's records too, so when the run is then
cancelled they are marked with the rest of it.

`ci reuse` runs in the setup job, before anyone knows whether the run will finish, and stores its copies (of
earlier runs' results, the run's own now) unmarked. The collect job's `results ingest --run-cancelled` marked
only the outputs it ingested, so a push to main cancelled after its setup left its copies in main's baseline as
a run of main: a cancelled run's records, read by every baseline (and a run of copies alone when it was
cancelled before any job uploaded a result, which no ingest then named). `--run-cancelled` now takes
`--run-id ID [--attempt N]` without `--row`, naming the run (as the collect job does from GITHUB_RUN_ID and
GITHUB_RUN_ATTEMPT), and marks the copies stored against that run's attempt too.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from helpers import run_cli

from sweepgate.results import record as R
from sweepgate.results import reuse, store

MAIN = "refs/heads/main"


def _main_and_a_copy(url: str) -> None:
    """Main's run 103 measured a job (identity a...a); run 104's setup recorded it again, a copy, against 104."""
    import synth

    (rec,) = [dict(r) for r in synth.pr_run()[:1]]
    rec.update({R.REF: MAIN, R.RUN_ID: "103", R.STATUS: "success", R.RUN_IDENTITY: "a" * 64})
    with store.open_store(url) as st:
        st.add([rec])
        hit = reuse.Found([("fixed", {}, "a" * 64)], st.reusable(["a" * 64]))
        st.add(reuse.reused_records(hit, run_id="104", attempt=1, ref=MAIN, commit="c" * 40), keep_stored=True)


def _marks(url: str) -> dict:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        column = dict(conn.execute(sa.text("SELECT run_id, run_cancelled FROM results")).all())
    engine.dispose()
    return column


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, db) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else db


def test_a_run_cancelled_before_any_output_has_its_copies_marked(tmp_path, capsys, backend):
    db = backend
    _main_and_a_copy(db)
    empty = tmp_path / "results"
    empty.mkdir()
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--allow-empty", "--run-cancelled",
                           "--run-id", "104", "--attempt", "1", str(empty))
    assert rc == 0, out + err  # was exit 2: --run-id needs --row
    assert _marks(db) == {"103": False, "104": True}
    with store.open_store(db, must_exist=True) as st:
        (copy,) = st.run_results("104")
        (own,) = st.run_results("103")
    assert copy[R.RUN_CANCELLED] is True and copy[R.REUSED_FROM][R.RUN_ID] == "103"  # the record says it too
    assert R.RUN_CANCELLED not in own
    assert "marked 1 result `ci reuse` recorded against run 104 (attempt 1) as of a cancelled run" in out, out
    assert out.splitlines()[-1].startswith("ingested 0 results (0 new)"), out  # still stdout's last line


def test_another_attempt_s_copies_and_other_runs_stay_as_they_were(tmp_path, capsys, db):
    """A re-run attempt cancelled marks its own attempt's copies only: the first attempt's setup is the first
    attempt's (and run 103's own record is never touched)."""
    _main_and_a_copy(db)
    empty = tmp_path / "results"
    empty.mkdir()
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--allow-empty", "--run-cancelled",
                           "--run-id", "104", "--attempt", "2", str(empty))
    assert rc == 0, out + err
    assert _marks(db) == {"103": False, "104": False}
    assert "marked" not in out, out


def test_run_id_without_row_still_needs_run_cancelled(tmp_path, capsys, db):
    """Without --run-cancelled, --run-id describes a --row, as before."""
    empty = tmp_path / "results"
    empty.mkdir()
    with pytest.raises(SystemExit) as stop:
        run_cli(capsys, "results", "ingest", "--db", db, "--allow-empty", "--run-id", "104", str(empty))
    assert stop.value.code == 2 and "argument --run-id: needs --row" in capsys.readouterr().err


def test_a_store_that_cannot_be_opened_is_said_not_passed_over(tmp_path, capsys, pg_url):
    """The copies are in the team's database: when it cannot be reached, the ingest says so in one line and exits
    1, rather than leaving a cancelled run's copies unmarked without a word."""
    import sqlalchemy as sa

    empty = tmp_path / "results"
    empty.mkdir()
    gone = sa.engine.make_url(pg_url).set(port=1).render_as_string(hide_password=False)  # nothing listens there
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", gone, "--allow-empty", "--run-cancelled",
                           "--run-id", "104", str(empty))
    assert rc == 1 and len(err.splitlines()) == 1 and "Traceback" not in err, out + err


def test_a_new_postgresql_database_with_no_store_yet_is_no_failure(tmp_path, capsys, pg_url):
    """A team database no ingest has written (the first run, cancelled before any job uploaded a result): nothing
    to mark, and the ingest succeeds as one with --allow-empty does."""
    empty = tmp_path / "results"
    empty.mkdir()
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", pg_url, "--allow-empty", "--run-cancelled",
                           "--run-id", "104", str(empty))
    assert rc == 0, out + err
    assert "marked" not in out, out
