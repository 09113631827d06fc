"""This shard in matchmaking's shard directory: lease renewals, tables to adopt, hand-back on drain.

Matchmaking places new tables on the least-loaded live shard and tells returning clients where their
table is; it learns both from these renewals. A table it hands us to adopt (its shard stopped
renewing) is rebuilt from the log by ``TableHost.get`` once the old shard's lease has run out.
"""

from __future__ import annotations

import logging

import grpc
from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc

from shared.auth import TokenIssuer

log = logging.getLogger(__name__)

CALL_TIMEOUT = 3.0  # a renewal that takes longer is retried at the next one


class DirectoryClient:
    def __init__(self, matchmaking_address: str, issuer: TokenIssuer, shard_id: str, advertised_address: str = "") -> None:
        self.channel = grpc.aio.insecure_channel(matchmaking_address)
        self.stub = matchmaking_pb2_grpc.ShardDirectoryServiceStub(self.channel)
        self.issuer = issuer
        self.shard_id = shard_id
        self.advertised_address = advertised_address

    def _metadata(self) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {self.issuer.service('table').token}")]

    async def renew(self, live_tables: int, draining: bool = False) -> list[str]:
        """Renew this shard's lease; the tables matchmaking asks it to adopt."""
        if not self.advertised_address:
            return []
        answer = await self.stub.RenewShardLease(
            matchmaking_pb2.RenewShardLeaseRequest(
                shard_id=self.shard_id, address=self.advertised_address, live_tables=live_tables, draining=draining
            ),
            metadata=self._metadata(),
            timeout=CALL_TIMEOUT,
        )
        return list(answer.adopt_table_ids)

    async def release(self, table_ids: list[str]) -> None:
        if not self.advertised_address:
            return
        await self.stub.ReleaseShard(
            matchmaking_pb2.ReleaseShardRequest(shard_id=self.shard_id, table_ids=table_ids),
            metadata=self._metadata(),
            timeout=CALL_TIMEOUT,
        )

    async def close(self) -> None:
        await self.channel.close()
