"""The shard directory: which table server (shard) hosts which table, under a lease each shard renews.

* ``renew``: a shard announces its address and load every few seconds and holds a lease for
  ``LEASE_SECONDS``; the answer names tables to adopt, those whose shard's lease ran out (or that
  a draining shard handed back), now recorded as this shard's.
* ``release``: a draining shard hands back its unfinished tables; its others are finished.
* ``place``: a new table goes to the live, non-draining shard with the fewest live tables.
* ``locate``: where a table is hosted now; a table whose shard died is moved to a live shard on the
  spot, so that a returning client need not wait for the next renewal.

Limits: the load of a shard is what it reported plus the tables placed on it since; a shard's own
claim on a table (the table service's database) decides who really replays it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from shared.errors import invalid, not_found

from services.matchmaking.store import MatchmakingStore, PlacementRecord, ShardRecord

log = logging.getLogger(__name__)

# Same as the table service's own table lease (services/table/host.py): a dead shard's tables wait
# at most this long for a new host; shards renew three times per lease so one lost renewal is harmless.
LEASE_SECONDS = 15.0
# Tables handed to one shard per renewal: shards renew every few seconds, so the tables of a dead
# shard spread over the live ones instead of all landing on whichever renewed first.
ADOPT_BATCH = 50
SHARD_ID_LIMIT = 128
ADDRESS_LIMIT = 256


@dataclass(frozen=True)
class Placement:
    """Where a new table goes: a shard, or the configured table address when no shard is known."""

    address: str
    shard_id: str = ""


class ShardDirectory:
    def __init__(self, store: MatchmakingStore, default_address: str, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.default_address = default_address
        self.clock = clock

    async def renew(self, shard_id: str, address: str, live_tables: int, draining: bool) -> list[str]:
        """Record the shard's lease; returns the tables it must adopt now."""
        _check_shard_id(shard_id)
        if not address or len(address) > ADDRESS_LIMIT or ":" not in address:
            raise invalid("address", "address must be host:port")
        if live_tables < 0:
            raise invalid("live_tables", "live_tables cannot be negative")
        now = self.clock()
        shard = ShardRecord(
            shard_id=shard_id,
            address=address,
            live_tables=live_tables,
            draining=draining,
            lease_until=now + LEASE_SECONDS,
            renewed_at=now,
        )
        await asyncio.to_thread(self.store.renew_shard, shard)
        if draining:
            return []
        adopted = await asyncio.to_thread(self.store.adopt_orphans, shard_id, now, ADOPT_BATCH)
        if adopted:
            log.info("tables adopted", extra={"shard_id": shard_id, "tables": len(adopted)})
        return adopted

    async def release(self, shard_id: str, table_ids: Sequence[str]) -> None:
        """A draining shard's unfinished tables go to other shards; it takes no new ones."""
        _check_shard_id(shard_id)
        if await asyncio.to_thread(self.store.shard, shard_id) is None:
            raise not_found("shard", "no shard with this id has renewed a lease")
        if any(not table_id for table_id in table_ids):
            raise invalid("table_ids", "table ids cannot be empty")
        await asyncio.to_thread(self.store.release_shard, shard_id, list(table_ids), self.clock())
        log.info("shard released", extra={"shard_id": shard_id, "tables": len(table_ids)})

    async def place(self) -> Placement:
        """Where to open a new table now."""
        shard = await asyncio.to_thread(self.store.least_loaded_shard, self.clock())
        if shard is None:
            return Placement(self.default_address)
        return Placement(shard.address, shard.shard_id)

    def placement_record(self, table_id: str, placement: Placement) -> PlacementRecord | None:
        """The directory row for a table opened at ``placement`` (none at the default address)."""
        if not placement.shard_id:
            return None
        return PlacementRecord(table_id=table_id, shard_id=placement.shard_id, placed_at=self.clock())

    async def locate(self, table_id: str) -> str:
        """The address of the shard hosting ``table_id`` now; moves it off a shard whose lease ran out."""
        located = await asyncio.to_thread(self.store.locate, table_id)
        placement, shard = located.placement, located.shard
        if placement is None:
            return self.default_address
        now = self.clock()
        if shard is not None and shard.lease_until > now:
            return shard.address
        target = await asyncio.to_thread(self.store.least_loaded_shard, now)
        if target is None:
            return shard.address if shard is not None else self.default_address
        if await asyncio.to_thread(self.store.move_table, table_id, placement.shard_id, target.shard_id):
            log.info("table moved off an expired shard", extra={"table_id": table_id, "shard_id": target.shard_id})
            return target.address
        return await self.locate(table_id)


def _check_shard_id(shard_id: str) -> None:
    if not shard_id or len(shard_id) > SHARD_ID_LIMIT:
        raise invalid("shard_id", f"shard_id must be 1 to {SHARD_ID_LIMIT} characters")
