"""output_sha256: the SHA-256 of the bytes of the output file each row was read from (record.OUTPUT_SHA256).

One output ingested with ``--row ... --run-id 101`` and then without ``--row`` (its run id its content's hash),
or the other way round, was stored a second time under the other run without a word: the content-hash run was
told only by its own id. With the file's SHA-256 kept beside each row, an ingest finds the same bytes stored
under any run (``store._same_bytes``, through ``ix_results_output``). Rows stored before keep NULL: their bytes
are not kept, and they are looked up as before, by their figures. No data changes.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("output_sha256", sa.String(64)))
    op.create_index("ix_results_output", "results", ["output_sha256"])


def downgrade() -> None:
    op.drop_index("ix_results_output", "results")
    with op.batch_alter_table("results") as batch:
        batch.drop_column("output_sha256")
