"""Players (guests and named accounts) and their refresh sessions.

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
        "players",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("display_name", sa.String(32), nullable=False),
        sa.Column("username", sa.String(32), nullable=True),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("device_id", sa.String(128), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("preferences", sa.JSON, nullable=False),
    )
    op.create_index("ix_players_username", "players", ["username"], unique=True)
    op.create_index("ix_players_device_id", "players", ["device_id"], unique=True)
    op.create_table(
        "refresh_sessions",
        sa.Column("jti", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.player_id"), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("revoked_at", sa.Float, nullable=True),
    )
    op.create_index("ix_refresh_sessions_player_id", "refresh_sessions", ["player_id"])


def downgrade() -> None:
    op.drop_table("refresh_sessions")
    op.drop_table("players")
