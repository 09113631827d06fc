"""What matchmaking keeps in its database: private lobbies, parties, seatings and the shard directory.

The queues are not here: they live in the memory of the one matchmaking replica that owns them
(``queues.py``). Everything that must survive a restart is: a private table's lobby, a party, every
seat handed out (so a returning client can locate its table), and which table server (shard) hosts
which table under which lease.

Storage only: rows in, rows out, each method one short transaction. The rules (who may join, which
shard is live) are in ``lobbies.py`` and ``directory.py``. Calls are blocking; the async callers run
them with ``asyncio.to_thread``. Concurrent writers are kept apart by a ``version`` column
(compare-and-set) or by row locks where PostgreSQL has them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence, TypeVar

import sqlalchemy as sa
from sqlalchemy import Engine, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel, col, select


class LobbyRecord(SQLModel, table=True):
    """A private table before (and after) it starts. Its code is unique among open lobbies."""

    __tablename__ = "private_lobbies"
    __table_args__ = (
        sa.Index(
            "ux_private_lobbies_open_code",
            "code",
            unique=True,
            sqlite_where=sa.text("started = 0"),
            postgresql_where=sa.text("started = false"),
        ),
    )

    lobby_id: str = Field(primary_key=True, max_length=32)
    code: str = Field(max_length=16, index=True)
    game: str = Field(max_length=32)
    options: str  # JSON, canonical (defaults filled in)
    seats: int
    host_player_id: str = Field(max_length=128)
    player_ids: str  # JSON list in seat order, "" for a free seat
    started: bool = False
    table_id: str = Field(default="", max_length=64)
    created_at: float
    version: int = 1

    def players(self) -> list[str]:
        return list(json.loads(self.player_ids))


class PartyRecord(SQLModel, table=True):
    """Friends who queue together (Quatro partners), the leader first."""

    __tablename__ = "parties"

    code: str = Field(primary_key=True, max_length=16)
    player_ids: str  # JSON list, the leader first
    created_at: float
    version: int = 1

    def players(self) -> list[str]:
        return list(json.loads(self.player_ids))


class SeatingRecord(SQLModel, table=True):
    """One seat handed to one player at one table."""

    __tablename__ = "seatings"

    table_id: str = Field(primary_key=True, max_length=64)
    player_id: str = Field(primary_key=True, max_length=128, index=True)
    seat: int
    match_id: str = Field(max_length=64)
    game: str = Field(max_length=32)
    finished: bool = False
    created_at: float


class ShardRecord(SQLModel, table=True):
    """A table server and its lease."""

    __tablename__ = "shards"

    shard_id: str = Field(primary_key=True, max_length=128)
    address: str = Field(max_length=256)
    live_tables: int = 0
    draining: bool = False
    lease_until: float = 0.0
    renewed_at: float = 0.0


class PlacementRecord(SQLModel, table=True):
    """Which shard hosts a table now ("" while it waits to be adopted)."""

    __tablename__ = "table_placements"

    table_id: str = Field(primary_key=True, max_length=64)
    shard_id: str = Field(default="", max_length=128, index=True)
    finished: bool = False
    placed_at: float


Coded = TypeVar("Coded", LobbyRecord, PartyRecord)


class CodeTaken(Exception):
    """Another open lobby or party already has this code."""


@dataclass(frozen=True)
class Located:
    """A table's placement and the shard it names (either may be missing)."""

    placement: PlacementRecord | None
    shard: ShardRecord | None


class MatchmakingStore:
    """The matchmaking database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def close(self) -> None:
        self.engine.dispose()

    def _session(self) -> Session:
        """Rows stay readable after their commit: callers use them once the session is closed."""
        return Session(self.engine, expire_on_commit=False)

    # -- lobbies ----------------------------------------------------------------------------------

    def insert_lobby(self, lobby: LobbyRecord) -> LobbyRecord:
        """Store a new lobby; ``CodeTaken`` if an open lobby has its code."""
        return self._insert(lobby)

    def open_lobby(self, code: str) -> LobbyRecord | None:
        with self._session() as session:
            return session.exec(select(LobbyRecord).where(LobbyRecord.code == code, LobbyRecord.started == False)).first()  # noqa: E712

    def latest_lobby(self, code: str) -> LobbyRecord | None:
        """The open lobby with this code, else the one that started last."""
        with self._session() as session:
            return session.exec(
                select(LobbyRecord)
                .where(LobbyRecord.code == code)
                .order_by(col(LobbyRecord.started), col(LobbyRecord.created_at).desc())
            ).first()

    def lobby(self, lobby_id: str) -> LobbyRecord | None:
        with self._session() as session:
            return session.get(LobbyRecord, lobby_id)

    def update_lobby(self, lobby_id: str, version: int, **values: object) -> bool:
        """Compare-and-set: apply ``values`` only if the lobby is still at ``version``."""
        with self._session() as session:
            result = session.exec(
                update(LobbyRecord)
                .where(col(LobbyRecord.lobby_id) == lobby_id, col(LobbyRecord.version) == version)
                .values(version=version + 1, **values)
            )
            session.commit()
            return bool(result.rowcount)

    # -- parties ----------------------------------------------------------------------------------

    def insert_party(self, party: PartyRecord) -> PartyRecord:
        return self._insert(party)

    def party(self, code: str) -> PartyRecord | None:
        with self._session() as session:
            return session.get(PartyRecord, code)

    def update_party(self, code: str, version: int, player_ids: Sequence[str]) -> bool:
        with self._session() as session:
            result = session.exec(
                update(PartyRecord)
                .where(col(PartyRecord.code) == code, col(PartyRecord.version) == version)
                .values(version=version + 1, player_ids=json.dumps(list(player_ids)))
            )
            session.commit()
            return bool(result.rowcount)

    # -- seatings and placements ------------------------------------------------------------------

    def record_table(self, seatings: Sequence[SeatingRecord], placement: PlacementRecord | None) -> None:
        """A table was opened: its seats, and the shard it was placed on (counted as one more table)."""
        with self._session() as session:
            for seating in seatings:
                session.add(seating)
            if placement is not None:
                session.add(placement)
                session.exec(
                    update(ShardRecord)
                    .where(col(ShardRecord.shard_id) == placement.shard_id)
                    .values(live_tables=col(ShardRecord.live_tables) + 1)
                )
            session.commit()

    def seating(self, table_id: str, player_id: str) -> SeatingRecord | None:
        with self._session() as session:
            return session.get(SeatingRecord, (table_id, player_id))

    def unfinished_seatings(self, player_id: str, limit: int) -> list[SeatingRecord]:
        """The player's unfinished seats, the latest first."""
        with self._session() as session:
            rows = session.exec(
                select(SeatingRecord)
                .where(SeatingRecord.player_id == player_id, SeatingRecord.finished == False)  # noqa: E712
                .order_by(col(SeatingRecord.created_at).desc())
                .limit(limit)
            ).all()
            return list(rows)

    def mark_finished(self, table_ids: Sequence[str]) -> None:
        ids = list(table_ids)
        if not ids:
            return
        with self._session() as session:
            session.exec(update(SeatingRecord).where(col(SeatingRecord.table_id).in_(ids)).values(finished=True))
            session.exec(update(PlacementRecord).where(col(PlacementRecord.table_id).in_(ids)).values(finished=True))
            session.commit()

    def locate(self, table_id: str) -> Located:
        with self._session() as session:
            placement = session.get(PlacementRecord, table_id)
            shard = session.get(ShardRecord, placement.shard_id) if placement and placement.shard_id else None
            return Located(placement, shard)

    def move_table(self, table_id: str, from_shard: str, to_shard: str) -> bool:
        """Reassign a table whose shard's lease ran out; False if someone moved it first."""
        with self._session() as session:
            result = session.exec(
                update(PlacementRecord)
                .where(col(PlacementRecord.table_id) == table_id, col(PlacementRecord.shard_id) == from_shard)
                .values(shard_id=to_shard)
            )
            session.commit()
            return bool(result.rowcount)

    # -- shards -----------------------------------------------------------------------------------

    def shard(self, shard_id: str) -> ShardRecord | None:
        with self._session() as session:
            return session.get(ShardRecord, shard_id)

    def renew_shard(self, shard: ShardRecord) -> None:
        """Insert or update the shard's row; two first renewals racing both end as one row."""
        for attempt in range(2):
            with self._session() as session:
                session.merge(shard)
                try:
                    session.commit()
                    return
                except IntegrityError:
                    if attempt:
                        raise

    def least_loaded_shard(self, now: float) -> ShardRecord | None:
        """The live, non-draining shard hosting the fewest live tables."""
        with self._session() as session:
            return session.exec(
                select(ShardRecord)
                .where(ShardRecord.lease_until > now, ShardRecord.draining == False)  # noqa: E712
                .order_by(col(ShardRecord.live_tables), col(ShardRecord.shard_id))
            ).first()

    def adopt_orphans(self, shard_id: str, now: float, limit: int) -> list[str]:
        """Give ``shard_id`` up to ``limit`` unfinished tables whose shard is gone or whose lease ran out."""
        with self._session() as session:
            expired = select(ShardRecord.shard_id).where(ShardRecord.lease_until <= now, ShardRecord.shard_id != shard_id)
            rows = session.exec(
                select(PlacementRecord)
                .where(
                    PlacementRecord.finished == False,  # noqa: E712
                    (col(PlacementRecord.shard_id) == "") | col(PlacementRecord.shard_id).in_(expired),
                )
                .order_by(col(PlacementRecord.placed_at))
                .limit(limit)
                .with_for_update(skip_locked=True)
            ).all()
            adopted = [row.table_id for row in rows]
            for row in rows:
                row.shard_id = shard_id
                session.add(row)
            session.commit()
            return adopted

    def release_shard(self, shard_id: str, unfinished: Sequence[str], now: float) -> None:
        """A draining shard hands back ``unfinished`` for adoption; its other tables are finished."""
        keep = set(unfinished)
        with self._session() as session:
            shard = session.get(ShardRecord, shard_id)
            if shard is not None:
                shard.draining = True
                shard.lease_until = min(shard.lease_until, now)
                shard.live_tables = 0
                session.add(shard)
            hosted = session.exec(
                select(PlacementRecord).where(PlacementRecord.shard_id == shard_id, PlacementRecord.finished == False)  # noqa: E712
            ).all()
            finished = [row.table_id for row in hosted if row.table_id not in keep]
            known = {row.table_id for row in hosted}
            for row in hosted:
                if row.table_id in keep:
                    row.shard_id = ""
                    session.add(row)
            for table_id in keep - known:
                existing = session.get(PlacementRecord, table_id)
                if existing is None:
                    session.add(PlacementRecord(table_id=table_id, shard_id="", placed_at=now))
                elif not existing.finished:
                    existing.shard_id = ""
                    session.add(existing)
            if finished:
                session.exec(
                    update(PlacementRecord).where(col(PlacementRecord.table_id).in_(finished)).values(finished=True)
                )
                session.exec(
                    update(SeatingRecord).where(col(SeatingRecord.table_id).in_(finished)).values(finished=True)
                )
            session.commit()

    # -- helpers ----------------------------------------------------------------------------------

    def _insert(self, row: Coded) -> Coded:
        try:
            with self._session() as session:
                session.add(row)
                session.commit()
                return row
        except IntegrityError as error:
            raise CodeTaken(getattr(row, "code", "")) from error
