"""The results ledger: matches (the once-only guard and stored answer), each human's part in them,
the ladder, level points, per-game stats and badges. Matches ``services/rating/store.py``.

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
        "rating_matches",
        sa.Column("match_id", sa.String(64), primary_key=True),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("finished_at_us", sa.BigInteger, nullable=False),
        sa.Column("recorded_at_us", sa.BigInteger, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
    )
    op.create_table(
        "rating_match_players",
        sa.Column("match_id", sa.String(64), sa.ForeignKey("rating_matches.match_id"), primary_key=True),
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("outcome", sa.String(8), nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("abandoned", sa.Boolean, nullable=False),
        sa.Column("level_points", sa.Integer, nullable=False),
        sa.Column("finished_at_us", sa.BigInteger, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("deviation_before", sa.Float, nullable=True),
        sa.Column("volatility_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
        sa.Column("deviation_after", sa.Float, nullable=True),
        sa.Column("volatility_after", sa.Float, nullable=True),
        sa.Column("rated_matches_after", sa.Integer, nullable=True),
    )
    op.create_index(
        "ix_rating_match_players_history", "rating_match_players", ["player_id", "finished_at_us", "match_id"]
    )
    op.create_table(
        "rating_ladder",
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("rated_matches", sa.Integer, nullable=False),
        sa.Column("updated_at_us", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_rating_ladder_order", "rating_ladder", ["rating", "deviation", "player_id"])
    op.create_table(
        "rating_progress",
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("level_points", sa.Integer, nullable=False),
    )
    op.create_table(
        "rating_stats",
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("played", sa.Integer, nullable=False),
        sa.Column("won", sa.Integer, nullable=False),
        sa.Column("drawn", sa.Integer, nullable=False),
        sa.Column("lost", sa.Integer, nullable=False),
        sa.Column("best_round", sa.Integer, nullable=True),
        sa.Column("round_score_sum", sa.BigInteger, nullable=False),
        sa.Column("round_count", sa.Integer, nullable=False),
    )
    op.create_table(
        "rating_badges",
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("earned_at_us", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rating_badges")
    op.drop_table("rating_stats")
    op.drop_table("rating_progress")
    op.drop_table("rating_ladder")
    op.drop_table("rating_match_players")
    op.drop_table("rating_matches")
