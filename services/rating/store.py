"""What the rating service keeps, and the database calls that read and write it.

Tables (all prefixed ``rating_`` so that several services may share one PostgreSQL database):

* ``rating_matches``: one row per recorded match, keyed by ``match_id``. The row is the guard of
  "applied exactly once": it is inserted first in the transaction that applies the match, so a second
  attempt fails on the primary key and is answered from the row's stored answer instead.
* ``rating_match_players``: each human's part in a match (the history).
* ``rating_ladder``: Glicko-2 ratings of players who played at least one rated match.
* ``rating_progress``: level points per player. Its row is also the per-player lock: a transaction
  that changes anything of a player holds that row ``FOR UPDATE`` first (players in id order, so two
  matches of the same players cannot deadlock).
* ``rating_stats``: per-game stats per (player, game); ``rating_badges``: badges per (player, game).

Limits: every method is blocking (SQLAlchemy sessions); async callers use ``asyncio.to_thread``.
Times are stored as whole microseconds since the epoch (exact, and ordered the same everywhere).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import BigInteger, Column, Engine, Index, Text, and_, func, or_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from shared.db import consistent_reads
from sqlmodel import Field, Session, SQLModel, col, select

# Column widths: a match id is at most 64 characters (the API's limit); game ids are short names
# ("four_down", "chess") and player ids are profile's ids, both given generous room.
MATCH_ID_LENGTH = 64
GAME_LENGTH = 64
PLAYER_ID_LENGTH = 128
CONTENT_HASH_LENGTH = 64  # hex SHA-256
KIND_LENGTH = 8  # "ranked", "casual", "private"


class MatchRecord(SQLModel, table=True):
    """A recorded match: its content's hash and the answer given when it was applied."""

    __tablename__ = "rating_matches"

    match_id: str = Field(primary_key=True, max_length=MATCH_ID_LENGTH)
    content_hash: str = Field(max_length=CONTENT_HASH_LENGTH)
    game: str = Field(max_length=GAME_LENGTH)
    kind: str = Field(max_length=KIND_LENGTH)  # "ranked", "casual" or "private"
    rated: bool
    finished_at_us: int = Field(sa_column=Column(BigInteger, nullable=False))
    recorded_at_us: int = Field(sa_column=Column(BigInteger, nullable=False))
    answer: str = Field(sa_column=Column(Text, nullable=False))  # JSON of the first answer, given again to retries


class MatchPlayerRecord(SQLModel, table=True):
    """One human's part in a recorded match, as their history shows it."""

    __tablename__ = "rating_match_players"
    __table_args__ = (Index("ix_rating_match_players_history", "player_id", "finished_at_us", "match_id"),)

    match_id: str = Field(primary_key=True, max_length=MATCH_ID_LENGTH, foreign_key="rating_matches.match_id")
    player_id: str = Field(primary_key=True, max_length=PLAYER_ID_LENGTH)
    seat: int
    game: str = Field(max_length=GAME_LENGTH)
    kind: str = Field(max_length=KIND_LENGTH)
    outcome: str = Field(max_length=8)  # "win", "draw" or "loss" as credited (abandoned: loss)
    total: int
    abandoned: bool
    level_points: int
    finished_at_us: int = Field(sa_column=Column(BigInteger, nullable=False))
    rating_before: float | None = None
    deviation_before: float | None = None
    volatility_before: float | None = None
    rating_after: float | None = None
    deviation_after: float | None = None
    volatility_after: float | None = None
    rated_matches_after: int | None = None


class LadderRecord(SQLModel, table=True):
    """A player's Glicko-2 rating on the one shared ladder."""

    __tablename__ = "rating_ladder"
    __table_args__ = (Index("ix_rating_ladder_order", "rating", "deviation", "player_id"),)

    player_id: str = Field(primary_key=True, max_length=PLAYER_ID_LENGTH)
    rating: float
    deviation: float
    volatility: float
    rated_matches: int = 0
    updated_at_us: int = Field(sa_column=Column(BigInteger, nullable=False))


class ProgressRecord(SQLModel, table=True):
    """A player's level points (and the row every change of the player locks)."""

    __tablename__ = "rating_progress"

    player_id: str = Field(primary_key=True, max_length=PLAYER_ID_LENGTH)
    level_points: int = 0


class StatsRecord(SQLModel, table=True):
    """A player's record in one game: the fields of ``progression.GameStats``."""

    __tablename__ = "rating_stats"

    player_id: str = Field(primary_key=True, max_length=PLAYER_ID_LENGTH)
    game: str = Field(primary_key=True, max_length=GAME_LENGTH)
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    best_round: int | None = None
    round_score_sum: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    round_count: int = 0


class BadgeRecord(SQLModel, table=True):
    """A badge (five wins of a game) and the match that earned it."""

    __tablename__ = "rating_badges"

    player_id: str = Field(primary_key=True, max_length=PLAYER_ID_LENGTH)
    game: str = Field(primary_key=True, max_length=GAME_LENGTH)
    match_id: str = Field(max_length=MATCH_ID_LENGTH)
    earned_at_us: int = Field(sa_column=Column(BigInteger, nullable=False))


class MatchAlreadyRecorded(Exception):
    """Another transaction recorded this match id first (raised by ``LedgerTransaction.claim``)."""


@dataclass(frozen=True)
class HistoryCursor:
    """Where a history page ends: the last row's time and match id (rows are newest first)."""

    finished_at_us: int
    match_id: str


class LedgerTransaction:
    """The writes of applying one match, inside one database transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def claim(self, match: MatchRecord) -> None:
        """Insert the match row first: the guard. Raises ``MatchAlreadyRecorded`` if it exists."""
        self.session.add(match)
        try:
            self.session.flush()
        except IntegrityError as error:
            raise MatchAlreadyRecorded(match.match_id) from error

    def lock_players(self, player_ids: Sequence[str]) -> dict[str, ProgressRecord]:
        """Each player's progress row, created if missing and locked until the transaction ends."""
        ordered = sorted(set(player_ids))
        if not ordered:
            return {}
        dialect = postgresql if self.session.get_bind().dialect.name == "postgresql" else sqlite
        self.session.execute(
            dialect.insert(ProgressRecord)
            .values([{"player_id": player_id, "level_points": 0} for player_id in ordered])
            .on_conflict_do_nothing(index_elements=["player_id"])
        )
        rows = self.session.exec(
            select(ProgressRecord)
            .where(col(ProgressRecord.player_id).in_(ordered))
            .order_by(col(ProgressRecord.player_id))
            .with_for_update()
        ).all()
        return {row.player_id: row for row in rows}

    def ladder(self, player_id: str) -> LadderRecord | None:
        return self.session.get(LadderRecord, player_id)

    def stats(self, player_id: str, game: str) -> StatsRecord | None:
        return self.session.get(StatsRecord, (player_id, game))

    def badge(self, player_id: str, game: str) -> BadgeRecord | None:
        return self.session.get(BadgeRecord, (player_id, game))

    def save(self, *rows: SQLModel) -> None:
        for row in rows:
            self.session.add(row)


class RatingStore:
    """The rating service's database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @contextmanager
    def transaction(self) -> Iterator[LedgerTransaction]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        with Session(self.engine, expire_on_commit=False) as session:
            yield LedgerTransaction(session)
            session.commit()

    def match(self, match_id: str) -> MatchRecord | None:
        with Session(self.engine) as session:
            return session.get(MatchRecord, match_id)

    def ladder(self, player_ids: Sequence[str]) -> dict[str, LadderRecord]:
        if not player_ids:
            return {}
        with Session(self.engine) as session:
            rows = session.exec(select(LadderRecord).where(col(LadderRecord.player_id).in_(set(player_ids)))).all()
            return {row.player_id: row for row in rows}

    # -- the leaderboard: rating high to low, then deviation low to high, then player id ----------

    def leaderboard_size(self, settled_below: float | None) -> int:
        with Session(self.engine) as session:
            query = select(func.count()).select_from(LadderRecord)
            if settled_below is not None:
                query = query.where(col(LadderRecord.deviation) < settled_below)
            return int(session.exec(query).one())

    def rows_ahead(self, row: LadderRecord, settled_below: float | None) -> int:
        """How many leaderboard rows come before ``row`` (its rank is this plus one)."""
        ahead = or_(
            col(LadderRecord.rating) > row.rating,
            and_(col(LadderRecord.rating) == row.rating, col(LadderRecord.deviation) < row.deviation),
            and_(
                col(LadderRecord.rating) == row.rating,
                col(LadderRecord.deviation) == row.deviation,
                col(LadderRecord.player_id) < row.player_id,
            ),
        )
        with Session(self.engine) as session:
            query = select(func.count()).select_from(LadderRecord).where(ahead)
            if settled_below is not None:
                query = query.where(col(LadderRecord.deviation) < settled_below)
            return int(session.exec(query).one())

    def leaderboard(self, offset: int, limit: int, settled_below: float | None) -> list[LadderRecord]:
        with Session(self.engine) as session:
            query = select(LadderRecord)
            if settled_below is not None:
                query = query.where(col(LadderRecord.deviation) < settled_below)
            query = query.order_by(
                col(LadderRecord.rating).desc(), col(LadderRecord.deviation), col(LadderRecord.player_id)
            )
            return list(session.exec(query.offset(offset).limit(limit)).all())

    # -- history and progress ---------------------------------------------------------------------

    def history(self, player_id: str, after: HistoryCursor | None, limit: int) -> list[MatchPlayerRecord]:
        """Up to ``limit`` of the player's matches, newest first, after ``after`` if given."""
        query = select(MatchPlayerRecord).where(MatchPlayerRecord.player_id == player_id)
        if after is not None:
            query = query.where(
                or_(
                    col(MatchPlayerRecord.finished_at_us) < after.finished_at_us,
                    and_(
                        col(MatchPlayerRecord.finished_at_us) == after.finished_at_us,
                        col(MatchPlayerRecord.match_id) < after.match_id,
                    ),
                )
            )
        query = query.order_by(col(MatchPlayerRecord.finished_at_us).desc(), col(MatchPlayerRecord.match_id).desc())
        with Session(self.engine) as session:
            return list(session.exec(query.limit(limit)).all())

    def progress(self, player_id: str) -> tuple[ProgressRecord | None, list[BadgeRecord], list[StatsRecord]]:
        with consistent_reads(self.engine) as session:
            progress = session.get(ProgressRecord, player_id)
            badges = session.exec(
                select(BadgeRecord).where(BadgeRecord.player_id == player_id).order_by(col(BadgeRecord.earned_at_us))
            ).all()
            stats = session.exec(
                select(StatsRecord).where(StatsRecord.player_id == player_id).order_by(col(StatsRecord.game))
            ).all()
            return progress, list(badges), list(stats)

    def close(self) -> None:
        self.engine.dispose()
