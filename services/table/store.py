"""What the table service keeps: each table's creation record, its ordered inputs, and the outbox.

A table is event-sourced: its creation record plus its inputs (actions, clock ticks, seat changes)
replayed through the engine give back exactly the same table. An input is committed before any of
its events are sent (``InputLog.append`` returns only after the commit).

Commits are grouped: one writer thread takes every input waiting from every table and commits
them in one transaction, so 500 tables cost a few commits per second, not hundreds.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import grpc
import sqlalchemy as sa
from sqlalchemy import Engine, update
from sqlmodel import Field, Session, SQLModel, col, select

from shared.errors import ServiceError
from shared.games.base import Json


class TableRecord(SQLModel, table=True):
    __tablename__ = "tables"

    table_id: str = Field(primary_key=True, max_length=64)
    game: str
    game_options: str  # JSON
    table_options: str  # JSON
    seats: str  # JSON list of {"player_id", "display_name", "robot"}
    kind: int
    match_id: str
    seed: int = Field(sa_type=sa.BigInteger)
    created_at: float
    finished: bool = False
    shard_id: str = ""
    lease_until: float = 0.0


class InputRecord(SQLModel, table=True):
    __tablename__ = "table_inputs"

    table_id: str = Field(primary_key=True, foreign_key="tables.table_id")
    position: int = Field(primary_key=True)
    kind: str  # "action", "tick", "seat"
    seat: int | None = None
    payload: str  # JSON
    at: float  # table time, seconds since the table was made
    origin: str  # "player", "robot", "clock", "table"
    client_action_id: str | None = None


class OutboxRecord(SQLModel, table=True):
    __tablename__ = "result_outbox"

    match_id: str = Field(primary_key=True)
    table_id: str
    payload: str  # JSON of the RecordMatchResult request
    created_at: float
    attempts: int = 0
    delivered_at: float | None = None
    last_error: str = ""


@dataclass(frozen=True)
class TableInput:
    """One input of a table's log, in the engine's terms."""

    position: int
    kind: str
    seat: int | None
    payload: dict[str, Json]
    at: float
    origin: str
    client_action_id: str | None = None

    def record(self, table_id: str) -> InputRecord:
        return InputRecord(
            table_id=table_id,
            position=self.position,
            kind=self.kind,
            seat=self.seat,
            payload=json.dumps(self.payload, sort_keys=True),
            at=self.at,
            origin=self.origin,
            client_action_id=self.client_action_id,
        )

    @classmethod
    def from_record(cls, record: InputRecord) -> TableInput:
        return cls(
            position=record.position,
            kind=record.kind,
            seat=record.seat,
            payload=json.loads(record.payload),
            at=record.at,
            origin=record.origin,
            client_action_id=record.client_action_id,
        )


class _Batch:
    def __init__(self, rows: Sequence[SQLModel], loop: asyncio.AbstractEventLoop) -> None:
        self.rows = rows
        self.future: asyncio.Future[None] = loop.create_future()
        self.loop = loop


_STOP = object()
BATCH_LIMIT = 500  # rows per transaction: bounds how long one commit holds the writer


class TableStore:
    """The table service's database: reads directly, writes through one grouping writer thread."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._queue: queue.Queue[Any] = queue.Queue()
        self._closed = False
        self._writer = threading.Thread(target=self._write_loop, name="table-store-writer", daemon=True)
        self._writer.start()

    # -- writes ---------------------------------------------------------------------------------

    async def write(self, rows: Sequence[SQLModel]) -> None:
        """Commit ``rows`` (in one transaction with whatever else is waiting); returns once durable."""
        if self._closed:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "DRAINING", "this table server is shutting down")
        batch = _Batch(rows, asyncio.get_running_loop())
        self._queue.put(batch)
        await batch.future

    def _write_loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            batches = [first]
            while len(batches) < BATCH_LIMIT:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is _STOP:
                    self._queue.put(_STOP)
                    break
                batches.append(more)
            self._commit(batches)

    def _commit(self, batches: list[_Batch]) -> None:
        try:
            with Session(self.engine) as session:
                for batch in batches:
                    for row in batch.rows:
                        session.merge(row) if isinstance(row, (TableRecord, OutboxRecord)) else session.add(row)
                session.commit()
        except Exception as error:  # noqa: BLE001 - a failed group is retried one batch at a time
            if len(batches) > 1:
                for batch in batches:
                    self._commit([batch])
                return
            _settle(batches[0], error)
            return
        for batch in batches:
            _settle(batch, None)

    def close(self) -> None:
        self._closed = True
        self._queue.put(_STOP)
        self._writer.join(timeout=10)

    # -- reads ----------------------------------------------------------------------------------

    def table(self, table_id: str) -> TableRecord | None:
        with Session(self.engine) as session:
            return session.get(TableRecord, table_id)

    def inputs(self, table_id: str) -> list[TableInput]:
        with Session(self.engine) as session:
            rows = session.exec(
                select(InputRecord).where(InputRecord.table_id == table_id).order_by(col(InputRecord.position))
            ).all()
            return [TableInput.from_record(row) for row in rows]

    def unfinished_tables(self, shard_id: str) -> list[str]:
        with Session(self.engine) as session:
            rows = session.exec(
                select(TableRecord.table_id).where(TableRecord.finished == False, TableRecord.shard_id == shard_id)  # noqa: E712
            ).all()
            return list(rows)

    def claim(self, table_id: str, shard_id: str, lease_seconds: float) -> bool:
        """Take (or keep) ``table_id`` for ``shard_id`` unless another shard's lease still runs."""
        now = time.time()
        with Session(self.engine) as session:
            result = session.exec(
                update(TableRecord)
                .where(col(TableRecord.table_id) == table_id)
                .where(
                    (col(TableRecord.shard_id) == shard_id)
                    | (col(TableRecord.lease_until) < now)
                    | (col(TableRecord.shard_id) == "")
                )
                .values(shard_id=shard_id, lease_until=now + lease_seconds)
            )
            session.commit()
            return bool(result.rowcount)

    def renew(self, table_ids: Iterable[str], shard_id: str, lease_seconds: float) -> None:
        """Extend this shard's leases on ``table_ids``."""
        self._set_leases(table_ids, shard_id, time.time() + lease_seconds)

    def release(self, table_ids: Iterable[str], shard_id: str) -> None:
        """End this shard's leases on ``table_ids`` now, so another shard may take them at once."""
        self._set_leases(table_ids, shard_id, 0.0)

    def _set_leases(self, table_ids: Iterable[str], shard_id: str, until: float) -> None:
        ids = list(table_ids)
        if not ids:
            return
        with Session(self.engine) as session:
            session.exec(
                update(TableRecord)
                .where(col(TableRecord.table_id).in_(ids), col(TableRecord.shard_id) == shard_id)
                .values(lease_until=until)
            )
            session.commit()

    def pending_results(self, limit: int = 100) -> list[OutboxRecord]:
        with Session(self.engine) as session:
            rows = session.exec(
                select(OutboxRecord).where(OutboxRecord.delivered_at == None).limit(limit)  # noqa: E711
            ).all()
            return list(rows)

    def mark_result(self, match_id: str, delivered: bool, error: str = "") -> None:
        with Session(self.engine) as session:
            record = session.get(OutboxRecord, match_id)
            if record is None:
                return
            record.attempts += 1
            record.last_error = error[:500]
            if delivered:
                record.delivered_at = time.time()
            session.add(record)
            session.commit()


def _settle(batch: _Batch, error: Exception | None) -> None:
    def settle() -> None:
        if batch.future.done():
            return
        if error is None:
            batch.future.set_result(None)
        else:
            batch.future.set_exception(error)

    batch.loop.call_soon_threadsafe(settle)

