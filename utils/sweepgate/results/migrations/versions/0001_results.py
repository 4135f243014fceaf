"""The results table: identity and main metrics as typed columns, the full record as JSON.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_STRINGS = ("recipe_fingerprint", "config_key", "exp_name", "model", "precision", "framework", "runner",
            "runner_name", "hardware", "scenario", "topology", "spec_decoding", "kv_offloading",
            "kv_offload_backend", "image", "commit", "ref", "started", "finished", "status", "client",
            "source_format", "ingested_at")
_INTEGERS = ("isl", "osl", "conc", "gpus")
_FLOATS = ("output_tput_per_gpu", "input_tput_per_gpu", "tput_per_gpu", "interactivity", "success_rate",
           "request_throughput", "output_throughput", "total_token_throughput", "ttft_p50_ms", "tpot_p50_ms",
           "itl_p50_ms", "e2el_p50_ms", "ttft_p99_ms", "tpot_p99_ms", "e2el_p99_ms",
           "energy_per_output_token_j")


def upgrade() -> None:
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(200), nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("result_filename", sa.String(500), nullable=False),
        *(sa.Column(name, sa.String(500)) for name in _STRINGS),
        *(sa.Column(name, sa.Integer) for name in _INTEGERS),
        sa.Column("rehearsal", sa.Boolean, nullable=False),
        *(sa.Column(name, sa.Float) for name in _FLOATS),
        sa.Column("record", sa.JSON, nullable=False),
        sa.UniqueConstraint("run_id", "attempt", "result_filename", name="uq_results_job"),
    )
    op.create_index("ix_results_run", "results", ["run_id"])
    op.create_index("ix_results_point", "results", ["config_key", "hardware", "scenario", "isl", "osl", "conc"])
    op.create_index("ix_results_ref", "results", ["ref"])


def downgrade() -> None:
    op.drop_table("results")
