"""Private lobbies, parties, seatings and the shard directory.

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
        "private_lobbies",
        sa.Column("lobby_id", sa.String(32), primary_key=True),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("host_player_id", sa.String(128), nullable=False),
        sa.Column("player_ids", sa.Text, nullable=False),
        sa.Column("started", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("table_id", sa.String(64), nullable=False, server_default=""),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("version", sa.Integer, nullable=False, server_default="1"),
    )
    op.create_index("ix_private_lobbies_code", "private_lobbies", ["code"])
    # A code names one open lobby at a time; started lobbies keep theirs for "already started".
    op.create_index(
        "ux_private_lobbies_open_code",
        "private_lobbies",
        ["code"],
        unique=True,
        sqlite_where=sa.text("started = 0"),
        postgresql_where=sa.text("started = false"),
    )
    op.create_table(
        "parties",
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("player_ids", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("version", sa.Integer, nullable=False, server_default="1"),
    )
    op.create_table(
        "seatings",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_seatings_player_id", "seatings", ["player_id"])
    op.create_table(
        "shards",
        sa.Column("shard_id", sa.String(128), primary_key=True),
        sa.Column("address", sa.String(256), nullable=False),
        sa.Column("live_tables", sa.Integer, nullable=False, server_default="0"),
        sa.Column("draining", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("lease_until", sa.Float, nullable=False, server_default="0"),
        sa.Column("renewed_at", sa.Float, nullable=False, server_default="0"),
    )
    op.create_table(
        "table_placements",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("shard_id", sa.String(128), nullable=False, server_default=""),
        sa.Column("finished", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("placed_at", sa.Float, nullable=False),
    )
    op.create_index("ix_table_placements_shard_id", "table_placements", ["shard_id"])


def downgrade() -> None:
    op.drop_table("table_placements")
    op.drop_table("shards")
    op.drop_table("seatings")
    op.drop_table("parties")
    op.drop_table("private_lobbies")
