"""run_cancelled: whether a row was stored from a workflow run cancelled before it finished (record.RUN_CANCELLED).

The collect job stores a cancelled run's finished jobs (a PR's, and since s47c a push to main's too) so that
``ci reuse`` need not spend their GPU-hours again; nothing in the store said they came from a part of a sweep, so
``results show`` could not tell a maintainer, and a cancelled push to main's rows would have joined main's
baseline. Every baseline read leaves out the rows this column marks (``store_query._whole_runs``); ``ci reuse``
takes them. Rows stored before get the default, false: they are of runs not known to have been cancelled, as
they were read before; but a row whose record says ``run-cancelled`` (a store this revision wrote, downgraded and
upgraded again) gets it back from the record. No other data changes.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

from sweepgate.results.record import RUN_CANCELLED

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("run_cancelled", sa.Boolean, nullable=False, server_default=sa.false()))
    # The records that say so (only a store 0007 wrote and a downgrade left holds any): found by their text first
    # (the store writes JSON with json.dumps' separators), each then read as JSON, so a larger store is not parsed.
    results = sa.table("results", sa.column("id", sa.Integer), sa.column("record", sa.JSON),
                       sa.column("run_cancelled", sa.Boolean))
    conn = op.get_bind()
    said = sa.cast(results.c.record, sa.Text).like(f'%"{RUN_CANCELLED}": true%')
    ids = [{"row_id": row.id} for row in conn.execute(sa.select(results.c.id, results.c.record).where(said))
           if isinstance(row.record, dict) and row.record.get(RUN_CANCELLED) is True]
    if ids:
        conn.execute(results.update().where(results.c.id == sa.bindparam("row_id")).values(run_cancelled=True), ids)


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("run_cancelled")
