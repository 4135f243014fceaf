"""ix_results_alike: an index on the columns a hashed run's stored measurement is looked up by.

Each output ingested without a sidecar (its run id its content's hash) looks for a stored row of another
run that holds one of its measurements (``store_dedup._stored_alike``: a sweep's run=N.json and its summary.json#N,
a grown JSONL ingested again), by its output throughput, model and finished time. Without an index that was
a scan of the whole table per file: 400 SGLang JSONLs into a SQLite store of 14,000 such rows took 6.5 s,
1.2 s with the index (tests/bench/ingest_speed.py --hashed 400 --stored 2000). The output throughput comes first: it is all but unique to a measurement, so a
look-up reads a row or two of the index; the model and time let one that matches rows without a throughput
(``IS NULL``: eval scores, failures) be narrowed in the index too. No data changes.

Revision ID: 0005
Revises: 0004
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_results_alike", "results", ["output_throughput", "model", "finished"])


def downgrade() -> None:
    op.drop_index("ix_results_alike", "results")
