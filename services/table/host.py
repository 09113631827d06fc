"""The tables one shard hosts: opening, finding (replaying from the log), leases, results, draining.

A shard holds a lease on each table it hosts and renews them together. A table whose shard died is
taken by the next shard asked about it once the lease has run out, and rebuilt from its log.
Finished matches leave through the outbox: stored with the table's last input, then delivered to
rating until acknowledged (rating applies each match id once).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import uuid
from typing import Any, Awaitable, Callable, Mapping

import grpc

from shared.cancellation import within
from shared.errors import ServiceError, not_found
from shared.games import registry
from shared.games.base import Json, Rejection

from services.table import metrics
from services.table.directory import DirectoryClient
from services.table.live import Encoder, LiveTable, TableClock, TableOptions
from services.table.store import TableRecord, TableStore

log = logging.getLogger(__name__)

LEASE_SECONDS = 15.0  # a dead shard's tables wait at most this long for a new host
RENEW_EVERY = 5.0  # three renewals per lease: one lost renewal does not lose the tables
OUTBOX_EVERY = 2.0  # seconds between delivery attempts of pending results
DRAIN_LOOPS_SECONDS = 5.0  # a shutdown never waits longer than this for clocks and renewals to stop

ResultSender = Callable[[Mapping[str, Json]], Awaitable[None]]


class TableHost:
    def __init__(
        self, store: TableStore, encoder: Encoder, shard_id: str, send_result: ResultSender | None = None, clock: TableClock | None = None
    ) -> None:
        self.clock = clock or TableClock()
        self.store = store
        self.encoder = encoder
        self.shard_id = shard_id
        self.send_result = send_result
        self.tables: dict[str, LiveTable] = {}
        self.clocks: dict[str, asyncio.Task[None]] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._background: list[asyncio.Task[None]] = []
        self.draining = False
        self.outbox_wakeup = asyncio.Event()
        self.directory: DirectoryClient | None = None

    # -- lifecycle ---------------------------------------------------------------------------------

    async def start(self) -> None:
        """Adopt this shard's unfinished tables (after a restart) and start the background loops."""
        for table_id in await asyncio.to_thread(self.store.unfinished_tables, self.shard_id):
            try:
                await self.get(table_id)
            except ServiceError:
                log.warning("could not adopt table", extra={"table_id": table_id})
        self._background = [asyncio.create_task(self._renew_loop()), asyncio.create_task(self._outbox_loop())]

    async def drain(self) -> None:
        """Stop taking tables and hand the leases back so another shard can take over at once."""
        self.draining = True
        loops = [*self._background, *self.clocks.values()]
        for task in loops:
            task.cancel()
        if loops:
            _, still_running = await asyncio.wait(loops, timeout=DRAIN_LOOPS_SECONDS)
            if still_running:
                log.warning("background loops did not stop; draining without them", extra={"loops": len(still_running)})
        for table in self.tables.values():
            for watcher in list(table.watchers):
                watcher.queue.put_nowait(None)
        unfinished = [table_id for table_id, table in self.tables.items() if not table.finished]
        await asyncio.to_thread(self.store.release, list(self.tables), self.shard_id)
        if self.directory is not None:
            try:
                await self.directory.release(unfinished)
            except grpc.RpcError:
                log.warning("could not hand tables back to the directory; their leases will run out")
        metrics.LIVE_TABLES.set(0)

    # -- opening and finding -------------------------------------------------------------------

    async def create(
        self,
        table_id: str,
        game_id: str,
        options: Mapping[str, Json],
        seats: list[dict[str, Json]],
        kind: int,
        match_id: str,
        seed: int | None,
    ) -> tuple[LiveTable, bool]:
        """Open a table; a retry with the same id returns the existing one. Returns (table, created)."""
        if self.draining:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "DRAINING", "this table server is shutting down")
        table_id = table_id or uuid.uuid4().hex
        existing = await asyncio.to_thread(self.store.table, table_id)
        if existing is not None:
            if existing.game != game_id:
                raise ServiceError(grpc.StatusCode.ALREADY_EXISTS, "CONFLICT", "a table with this id exists for another game")
            return await self.get(table_id), False
        try:
            game = registry.game(game_id)
        except registry.UnknownGame:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME", f"no game {game_id!r} is hosted here") from None
        table_options, game_options = TableOptions.split(options)
        if not game.min_seats <= len(seats) <= game.max_seats:
            raise Rejection("bad_seat_count", f"{game_id} seats {game.min_seats} to {game.max_seats} players")
        checked = game.check_options(game_options, len(seats))
        record = TableRecord(
            table_id=table_id,
            game=game_id,
            game_options=json.dumps(checked),
            table_options=json.dumps(table_options.to_json()),
            seats=json.dumps(seats),
            kind=kind,
            match_id=match_id or table_id,
            seed=seed if seed is not None else secrets.randbits(62),
            created_at=self.clock(),
            shard_id=self.shard_id,
            lease_until=time.time() + LEASE_SECONDS,
        )
        table = LiveTable(record, self.store, self.encoder, self.clock)
        await self.store.write([record])
        self._host(table)
        return table, True

    async def get(self, table_id: str) -> LiveTable:
        """The live table, rebuilt from its log if this shard does not hold it yet."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            table = self.tables.get(table_id)
            if table is not None:
                return table
            record = await asyncio.to_thread(self.store.table, table_id)
            if record is None:
                raise not_found("table", "no such table")
            if not record.finished:
                if self.draining or not await asyncio.to_thread(self.store.claim, table_id, self.shard_id, LEASE_SECONDS):
                    raise ServiceError(
                        grpc.StatusCode.UNAVAILABLE, "WRONG_SHARD", "another table server hosts this table; locate it again"
                    )
                record = await asyncio.to_thread(self.store.table, table_id)
                assert record is not None
            started = time.perf_counter()
            table = await asyncio.to_thread(LiveTable.restore, record, self.store, self.encoder, self.clock)
            metrics.REPLAYS.labels(record.game).inc()
            metrics.REPLAY_SECONDS.observe(time.perf_counter() - started)
            self._host(table)
            return table

    def _host(self, table: LiveTable) -> None:
        table.on_finished = self._finished
        self.tables[table.table_id] = table
        metrics.LIVE_TABLES.set(sum(1 for t in self.tables.values() if not t.finished))
        if not table.finished:
            self.clocks[table.table_id] = asyncio.create_task(table.run_clock(), name=f"clock-{table.table_id}")

    def _finished(self, table: LiveTable) -> None:
        metrics.MATCHES_FINISHED.labels(table.record.game).inc()
        metrics.LIVE_TABLES.set(sum(1 for t in self.tables.values() if not t.finished))
        self.outbox_wakeup.set()

    # -- leases and results --------------------------------------------------------------------

    async def _renew_loop(self) -> None:
        while True:
            await self.renew()
            await asyncio.sleep(RENEW_EVERY)

    async def renew(self) -> None:
        """Renew this shard's table leases, and its lease in matchmaking's directory, adopting
        the tables the directory hands over."""
        live = [t for t, table in self.tables.items() if not table.finished]
        try:
            await asyncio.to_thread(self.store.renew, live, self.shard_id, LEASE_SECONDS)
        except Exception:  # noqa: BLE001 - the next renewal tries again
            log.exception("lease renewal failed")
        if self.directory is None:
            return
        try:
            adopt = await self.directory.renew(len(live), self.draining)
        except grpc.RpcError as error:
            log.warning("directory renewal failed", extra={"code": error.code().name if hasattr(error, "code") else ""})
            return
        for table_id in adopt:
            try:
                await self.get(table_id)
            except ServiceError as error:
                log.info("table not adopted yet", extra={"table_id": table_id, "reason": error.reason})

    async def _outbox_loop(self) -> None:
        while True:
            try:
                await within(OUTBOX_EVERY, self.outbox_wakeup.wait())
            except TimeoutError:
                pass
            self.outbox_wakeup.clear()
            await self.deliver_results()

    async def deliver_results(self) -> int:
        """Send every pending result once; returns how many were acknowledged."""
        if self.send_result is None:
            return 0
        pending = await asyncio.to_thread(self.store.pending_results)
        metrics.OUTBOX_PENDING.set(len(pending))
        delivered = 0
        for record in pending:
            try:
                await self.send_result(json.loads(record.payload))
            except Exception as error:  # noqa: BLE001 - kept, retried on the next round
                await asyncio.to_thread(self.store.mark_result, record.match_id, False, repr(error))
                metrics.OUTBOX_FAILURES.inc()
                continue
            await asyncio.to_thread(self.store.mark_result, record.match_id, True)
            metrics.OUTBOX_LAG.observe(max(0.0, time.time() - record.created_at))
            delivered += 1
        return delivered
