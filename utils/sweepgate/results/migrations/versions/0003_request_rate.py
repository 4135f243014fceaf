"""request_rate: a request-rate sweep's rate, part of a point (record.rate_key; NULL when unlimited).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

from sweepgate.results.record import REQUEST_RATE, rate_key

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("request_rate", sa.String(64)))
    # Rows stored before this column: their rate is in the record (rate_key, as the store writes it).
    results = sa.table("results", sa.column("id", sa.Integer), sa.column("record", sa.JSON),
                       sa.column("request_rate", sa.String(64)))
    conn = op.get_bind()
    rows = [{"row_id": row.id, "rate": rate_key(row.record.get(REQUEST_RATE))}
            for row in conn.execute(sa.select(results.c.id, results.c.record))
            if isinstance(row.record, dict)]
    rows = [row for row in rows if row["rate"] is not None]
    if rows:
        conn.execute(results.update().where(results.c.id == sa.bindparam("row_id"))
                     .values(request_rate=sa.bindparam("rate")), rows)


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("request_rate")
