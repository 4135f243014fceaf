"""started, finished in UTC: the rows an older sweepgate stored with their times as written.

Until ingest wrote a job's times in UTC (``record.stored_time``), it stored them as the sidecar or client wrote
them (``12:00+02:00``, ``10:30:00.25Z``, vLLM's ``date`` without a zone), under revision 0003 as now. The
store orders rows by these columns as text in SQL (``store_query._happened``) and ``results compare`` by the
instant (``record.happened``), so the two placed such rows otherwise. Each is rewritten as an ingest stores
it now, in its columns and its record alike: a time with a zone in UTC, one without a zone without one (its
clock reading in ISO 8601; which zone it is in is not known), text that is no time as it is. (An older
sweepgate took a time without a zone in the zone of the machine that upgraded the store and stored it in
UTC: such rows stay so, ``record.same_time`` telling them the same as their output ingested again.) A
record that is no JSON object (damaged) is left as it is, for the commands that read it to say so. No schema change.

Revision ID: 0004
Revises: 0003
"""

import json

import sqlalchemy as sa
from alembic import op

from sweepgate.results.record import TIMES, stored_time

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

BATCH = 500  # rows read and written at once
results = sa.table("results", sa.column("id", sa.Integer), sa.column("started", sa.String(500)),
                   sa.column("finished", sa.String(500)), sa.column("record", sa.JSON))


def upgrade() -> None:
    conn = op.get_bind()
    # the times alone first: a store whose times are all in UTC (every one an ingest since made) reads no record
    stale = [row.id for row in conn.execute(sa.select(results.c.id, results.c.started, results.c.finished))
             if stored_time(row.started) != row.started or stored_time(row.finished) != row.finished]
    times = results.update().where(results.c.id == sa.bindparam("row_id")).values(
        started=sa.bindparam("at_start"), finished=sa.bindparam("at_end"))
    both = times.values(record=sa.bindparam("rec", type_=sa.JSON))
    for first in range(0, len(stale), BATCH):
        text = sa.cast(results.c.record, sa.Text)  # as stored: a damaged record is no error here
        rows = conn.execute(sa.select(results.c.id, results.c.started, results.c.finished, text)
                            .where(results.c.id.in_(stale[first:first + BATCH]))).all()
        done = [(_record(text), {"row_id": row_id, "at_start": stored_time(started), "at_end": stored_time(finished)})
                for row_id, started, finished, text in rows]
        if damaged := [row for rec, row in done if rec is None]:
            conn.execute(times, damaged)
        if whole := [{**row, "rec": {**rec, **{f: stored_time(rec[f]) for f in TIMES if f in rec}}}
                     for rec, row in done if rec is not None]:
            conn.execute(both, whole)


def _record(text: str | None) -> dict | None:
    """A stored record, None when it is no JSON object."""
    try:
        rec = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return rec if isinstance(rec, dict) else None


def downgrade() -> None:
    """The times as they were written are not kept: the rows stay in UTC, which 0003 reads as well."""
