"""Matchmaking's calls to other services, with service credentials: table (open, look up) and rating.

One channel per address, kept open: table shards are few and long-lived. Every call has a deadline
so that a stuck peer never holds a queue.
"""

from __future__ import annotations

import logging
from typing import Sequence

import grpc
from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc
from cardroom.table.v1 import table_pb2, table_pb2_grpc

from shared.auth import TokenIssuer

log = logging.getLogger(__name__)

SERVICE_NAME = "matchmaking"
CREATE_TIMEOUT = 10.0  # seconds: opening a table is one commit on the shard; ten is a sick shard
LOOKUP_TIMEOUT = 3.0  # seconds: a locate answers a waiting phone; an unknown status is better than a stall
RATING_TIMEOUT = 2.0  # seconds: a queue join waits for this at most, then uses the initial rating
INITIAL_RATING = 1500.0  # Glicko-2's starting rating, what rating answers for an unrated player
RATING_BATCH = 100  # GetRatings takes at most 100 players


class ServiceCredentials:
    """Matchmaking's bearer token, minted fresh for each call (an HMAC: microseconds), so it never expires in use."""

    def __init__(self, issuer: TokenIssuer) -> None:
        self.issuer = issuer

    def metadata(self) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {self.issuer.service(SERVICE_NAME).token}")]


class TableClients:
    """TableService at any shard's address."""

    def __init__(self, credentials: ServiceCredentials) -> None:
        self.credentials = credentials
        self.channels: dict[str, grpc.aio.Channel] = {}

    def _stub(self, address: str) -> table_pb2_grpc.TableServiceStub:
        channel = self.channels.get(address)
        if channel is None:
            channel = self.channels[address] = grpc.aio.insecure_channel(address)
        return table_pb2_grpc.TableServiceStub(channel)

    async def create(self, address: str, request: table_pb2.CreateTableRequest) -> table_pb2.CreateTableResponse:
        """Open a table (idempotent by its id, so one retry after a transient failure is safe)."""
        stub = self._stub(address)
        try:
            return await stub.CreateTable(request, metadata=self.credentials.metadata(), timeout=CREATE_TIMEOUT)
        except grpc.RpcError as error:
            if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise
            log.warning("retrying table creation", extra={"address": address, "table_id": request.table_id})
            return await stub.CreateTable(request, metadata=self.credentials.metadata(), timeout=CREATE_TIMEOUT)

    async def status(self, address: str, table_id: str) -> int | None:
        """The table's TableStatus; 0 when the table server does not know it; None when it cannot say."""
        try:
            response = await self._stub(address).GetTable(
                table_pb2.GetTableRequest(table_id=table_id), metadata=self.credentials.metadata(), timeout=LOOKUP_TIMEOUT
            )
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                return table_pb2.TABLE_STATUS_UNSPECIFIED
            return None
        return int(response.table.status)

    async def close(self) -> None:
        for channel in self.channels.values():
            await channel.close()
        self.channels.clear()


class RatingClient:
    """Ladder ratings from rating; the initial rating for anyone it cannot answer for."""

    def __init__(self, address: str | None, credentials: ServiceCredentials) -> None:
        self.credentials = credentials
        self.channel = grpc.aio.insecure_channel(address) if address else None
        self.stub = rating_pb2_grpc.RatingServiceStub(self.channel) if self.channel else None

    async def ratings(self, player_ids: Sequence[str]) -> dict[str, float]:
        found = {player_id: INITIAL_RATING for player_id in player_ids}
        if self.stub is None:
            return found
        for start in range(0, len(player_ids), RATING_BATCH):
            batch = list(player_ids[start : start + RATING_BATCH])
            try:
                response = await self.stub.GetRatings(
                    rating_pb2.GetRatingsRequest(player_ids=batch), metadata=self.credentials.metadata(), timeout=RATING_TIMEOUT
                )
            except grpc.RpcError as error:
                log.warning("rating unreachable; using the initial rating", extra={"code": str(error.code())})
                continue
            found.update({entry.player_id: entry.rating for entry in response.ratings if entry.player_id in found})
        return found

    async def close(self) -> None:
        if self.channel is not None:
            await self.channel.close()
