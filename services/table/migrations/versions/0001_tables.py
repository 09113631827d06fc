"""Tables, their ordered inputs (the event-sourced log) and the result outbox.

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("game_options", sa.Text, nullable=False),
        sa.Column("table_options", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("kind", sa.Integer, nullable=False),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("shard_id", sa.String(128), nullable=False, server_default=""),
        sa.Column("lease_until", sa.Float, nullable=False, server_default="0"),
    )
    op.create_index("ix_tables_unfinished", "tables", ["finished", "shard_id"])
    op.create_table(
        "table_inputs",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.table_id"), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("client_action_id", sa.String(128), nullable=True),
    )
    op.create_index(
        "ux_table_inputs_client_action", "table_inputs", ["table_id", "client_action_id"], unique=True
    )
    op.create_table(
        "result_outbox",
        sa.Column("match_id", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("delivered_at", sa.Float, nullable=True),
        sa.Column("last_error", sa.Text, nullable=False, server_default=""),
    )
    op.create_index("ix_result_outbox_pending", "result_outbox", ["delivered_at"])


def downgrade() -> None:
    op.drop_table("result_outbox")
    op.drop_table("table_inputs")
    op.drop_table("tables")
