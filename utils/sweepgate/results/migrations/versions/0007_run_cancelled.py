"""run_cancelled: whether a row was stored from a workflow run cancelled before it finished (record.RUN_CANCELLED).

The collect job stores a cancelled run's finished jobs (a PR's, and since s47c a push to main's too) so that
``ci reuse`` need not spend their GPU-hours again; nothing in the store said they came from a part of a sweep, so
``results show`` could not tell a maintainer, and a cancelled push to main's rows would have joined main's
baseline. Every baseline read leaves out the rows this column marks (``store_query._whole_runs``); ``ci reuse``
takes them. Rows stored before keep the default, false: they are of runs not known to have been cancelled, as
they were read before. No other data changes.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("run_cancelled", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("run_cancelled")
