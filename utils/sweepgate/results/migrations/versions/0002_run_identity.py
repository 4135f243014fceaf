"""run_identity: the job's run identity (sweepgate.core.identity), for `ci reuse`.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("run_identity", sa.String(500)))
    op.create_index("ix_results_identity", "results", ["run_identity"])


def downgrade() -> None:
    op.drop_index("ix_results_identity", "results")
    with op.batch_alter_table("results") as batch:
        batch.drop_column("run_identity")
