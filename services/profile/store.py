"""What the profile service keeps: players and their refresh sessions (SQLModel over SQLite or PostgreSQL).

The methods are blocking; the service calls them through ``asyncio.to_thread``. Every method is
one transaction. Races are settled by the database, not by reading first: unique indexes on
usernames and device ids, and conditional updates for upgrading a guest and rotating or revoking
a session, so two calls at once can never both win.

Usernames are stored lowercased (their unique index is then case-insensitive on every database).
Refresh sessions are kept by the refresh token's ``jti``; a player's expired sessions are pruned
whenever a new one is opened, so the table holds about one row per live session.
"""

from __future__ import annotations

from typing import Any, Callable

from sqlalchemy import JSON, Column, Engine, delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel, col, select

from services.profile.players import Player, Preferences


class PlayerRecord(SQLModel, table=True):
    __tablename__ = "players"

    player_id: str = Field(primary_key=True, max_length=32)
    display_name: str = Field(max_length=32)
    username: str | None = Field(default=None, max_length=32, unique=True, index=True)  # lowercased
    password_hash: str | None = Field(default=None, max_length=255)
    device_id: str | None = Field(default=None, max_length=128, unique=True, index=True)
    created_at: float
    preferences: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))

    def player(self) -> Player:
        return Player(
            player_id=self.player_id,
            display_name=self.display_name,
            username=self.username,
            created_at=self.created_at,
            preferences=Preferences.from_json(self.preferences),
        )


class RefreshSession(SQLModel, table=True):
    __tablename__ = "refresh_sessions"

    jti: str = Field(primary_key=True, max_length=32)
    player_id: str = Field(foreign_key="players.player_id", index=True, max_length=32)
    created_at: float
    expires_at: float
    revoked_at: float | None = None


class UsernameTaken(Exception):
    """Another account already has this username (in any case)."""


class NoSuchPlayer(Exception):
    """No player has this id."""


class NotAGuest(Exception):
    """The player already has a username: there is no guest to upgrade."""


class ProfileStore:
    """The profile database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def close(self) -> None:
        self.engine.dispose()

    # -- players --------------------------------------------------------------------------------

    def player(self, player_id: str) -> Player | None:
        with Session(self.engine) as session:
            record = session.get(PlayerRecord, player_id)
            return record.player() if record else None

    def credentials(self, username: str) -> tuple[Player, str | None] | None:
        """The account named ``username`` (lowercased) and its password hash."""
        with Session(self.engine) as session:
            record = session.exec(select(PlayerRecord).where(PlayerRecord.username == username)).first()
            return (record.player(), record.password_hash) if record else None

    def guest(self, player_id: str, device_id: str, display_name: str, now: float) -> tuple[Player, bool]:
        """The device's guest, made with ``player_id`` and ``display_name`` if the device is new.

        Returns the player and whether it was made now. Two first sign-ins of one device at once
        make one guest: the loser of the unique index reads the winner's.
        """
        existing = self._by_device(device_id)
        if existing:
            return existing, False
        record = PlayerRecord(
            player_id=player_id,
            display_name=display_name,
            device_id=device_id,
            created_at=now,
            preferences=Preferences().to_json(),
        )
        try:
            return self._insert(record), True
        except IntegrityError:
            winner = self._by_device(device_id)
            if winner is None:
                raise
            return winner, False

    def create_account(
        self, player_id: str, username: str, password_hash: str, display_name: str, now: float
    ) -> Player:
        record = PlayerRecord(
            player_id=player_id,
            display_name=display_name,
            username=username,
            password_hash=password_hash,
            created_at=now,
            preferences=Preferences().to_json(),
        )
        try:
            return self._insert(record)
        except IntegrityError as error:
            raise UsernameTaken(username) from error

    def upgrade_guest(self, player_id: str, username: str, password_hash: str, display_name: str) -> Player:
        """Give a guest a username and password, keeping its id; the device no longer signs in to it."""
        change = (
            update(PlayerRecord)
            .where(col(PlayerRecord.player_id) == player_id, col(PlayerRecord.username).is_(None))
            .values(username=username, password_hash=password_hash, display_name=display_name, device_id=None)
        )
        with Session(self.engine) as session:
            try:
                changed = session.exec(change).rowcount
                session.commit()
            except IntegrityError as error:
                raise UsernameTaken(username) from error
            if changed == 1:
                return self._require(session, player_id).player()
            if session.get(PlayerRecord, player_id) is None:
                raise NoSuchPlayer(player_id)
            raise NotAGuest(player_id)

    def set_password_hash(self, player_id: str, password_hash: str) -> None:
        with Session(self.engine) as session:
            change = (
                update(PlayerRecord).where(col(PlayerRecord.player_id) == player_id).values(password_hash=password_hash)
            )
            session.exec(change)
            session.commit()

    def update_profile(self, player_id: str, change: Callable[[Player], Player]) -> Player:
        """Apply ``change`` to the player in one transaction (the row is locked on PostgreSQL)."""
        with Session(self.engine) as session:
            locked = select(PlayerRecord).where(PlayerRecord.player_id == player_id).with_for_update()
            record = session.exec(locked).first()
            if record is None:
                raise NoSuchPlayer(player_id)
            changed = change(record.player())
            record.display_name = changed.display_name
            record.preferences = changed.preferences.to_json()
            session.add(record)
            session.commit()
            return self._require(session, player_id).player()

    # -- refresh sessions -----------------------------------------------------------------------

    def open_session(self, jti: str, player_id: str, expires_at: float, now: float) -> None:
        with Session(self.engine) as session:
            self._prune(session, player_id, now)
            session.add(RefreshSession(jti=jti, player_id=player_id, created_at=now, expires_at=expires_at))
            session.commit()

    def rotate_session(self, old_jti: str, player_id: str, new_jti: str, expires_at: float, now: float) -> bool:
        """End the live session ``old_jti`` and open ``new_jti`` in its place; False if it was not live."""
        with Session(self.engine) as session:
            if not self._end(session, old_jti, player_id, now):
                session.rollback()
                return False
            self._prune(session, player_id, now)
            session.add(RefreshSession(jti=new_jti, player_id=player_id, created_at=now, expires_at=expires_at))
            session.commit()
            return True

    def revoke_session(self, jti: str, player_id: str, now: float) -> bool:
        """End the live session ``jti`` of ``player_id``; False if there was none."""
        with Session(self.engine) as session:
            ended = self._end(session, jti, player_id, now)
            session.commit()
            return ended

    def session(self, jti: str) -> RefreshSession | None:
        with Session(self.engine) as session:
            return session.get(RefreshSession, jti)

    # -- helpers --------------------------------------------------------------------------------

    def _by_device(self, device_id: str) -> Player | None:
        with Session(self.engine) as session:
            record = session.exec(select(PlayerRecord).where(PlayerRecord.device_id == device_id)).first()
            return record.player() if record else None

    def _insert(self, record: PlayerRecord) -> Player:
        with Session(self.engine) as session:
            session.add(record)
            session.commit()
            return self._require(session, record.player_id).player()

    @staticmethod
    def _require(session: Session, player_id: str) -> PlayerRecord:
        record = session.get(PlayerRecord, player_id)
        if record is None:
            raise NoSuchPlayer(player_id)
        return record

    @staticmethod
    def _end(session: Session, jti: str, player_id: str, now: float) -> bool:
        ended = session.exec(
            update(RefreshSession)
            .where(
                col(RefreshSession.jti) == jti,
                col(RefreshSession.player_id) == player_id,
                col(RefreshSession.revoked_at).is_(None),
                col(RefreshSession.expires_at) > now,
            )
            .values(revoked_at=now)
        )
        return ended.rowcount == 1

    @staticmethod
    def _prune(session: Session, player_id: str, now: float) -> None:
        session.exec(
            delete(RefreshSession).where(
                col(RefreshSession.player_id) == player_id, col(RefreshSession.expires_at) <= now
            )
        )
