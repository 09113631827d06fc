"""MatchmakingService and ShardDirectoryService over gRPC: convert the request, call the domain, convert back.

Every MatchmakingService call is a player's (access token); the shard directory takes service
credentials only. A JoinQueue stream ends after Seated, or without it when the ticket is cancelled.
"""

from __future__ import annotations

from typing import AsyncIterator

import grpc
from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from google.protobuf import duration_pb2
from google.protobuf.json_format import MessageToDict

from shared.games.base import Json
from shared.server import caller, require_player, require_service

from services.matchmaking.catalog import game_infos
from services.matchmaking.directory import LEASE_SECONDS, ShardDirectory
from services.matchmaking.lobbies import Parties, PrivateTables, lobby_message, party_message
from services.matchmaking.matchmaker import Matchmaker
from services.matchmaking.seating import Seater


def options_of(message: matchmaking_pb2.JoinQueueRequest | matchmaking_pb2.CreatePrivateTableRequest) -> dict[str, Json]:
    return MessageToDict(message.options) if message.HasField("options") else {}


class MatchmakingServicer(matchmaking_pb2_grpc.MatchmakingServiceServicer):
    def __init__(self, matchmaker: Matchmaker, parties: Parties, private_tables: PrivateTables, seater: Seater) -> None:
        self.matchmaker = matchmaker
        self.parties = parties
        self.private_tables = private_tables
        self.seater = seater

    async def ListGames(self, request: matchmaking_pb2.ListGamesRequest, context: grpc.aio.ServicerContext) -> matchmaking_pb2.ListGamesResponse:
        caller()
        return matchmaking_pb2.ListGamesResponse(games=game_infos())

    async def JoinQueue(
        self, request: matchmaking_pb2.JoinQueueRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[matchmaking_pb2.JoinQueueResponse]:
        player = require_player()
        waiter = await self.matchmaker.join(
            player.subject, request.game, options_of(request), request.seats, request.kind, request.party_code.strip().upper()
        )
        # However the call ends (even while a message is being written), the ticket goes with it.
        # typeshed's _DoneCallback is a plain class, not a Protocol, so no function can match it.
        context.add_done_callback(lambda _: self.matchmaker.withdraw(waiter))  # type: ignore[arg-type]
        async for message in self.matchmaker.stream(waiter):
            yield message

    async def CancelQueue(self, request: matchmaking_pb2.CancelQueueRequest, context: grpc.aio.ServicerContext) -> matchmaking_pb2.CancelQueueResponse:
        self.matchmaker.cancel(require_player().subject, request.ticket_id)
        return matchmaking_pb2.CancelQueueResponse()

    async def CreateParty(self, request: matchmaking_pb2.CreatePartyRequest, context: grpc.aio.ServicerContext) -> matchmaking_pb2.CreatePartyResponse:
        party = await self.parties.create(require_player().subject)
        return matchmaking_pb2.CreatePartyResponse(party=party_message(party))

    async def JoinParty(self, request: matchmaking_pb2.JoinPartyRequest, context: grpc.aio.ServicerContext) -> matchmaking_pb2.JoinPartyResponse:
        party = await self.parties.join(request.code, require_player().subject)
        return matchmaking_pb2.JoinPartyResponse(party=party_message(party))

    async def CreatePrivateTable(
        self, request: matchmaking_pb2.CreatePrivateTableRequest, context: grpc.aio.ServicerContext
    ) -> matchmaking_pb2.CreatePrivateTableResponse:
        lobby = await self.private_tables.create(require_player().subject, request.game, options_of(request), request.seats)
        return matchmaking_pb2.CreatePrivateTableResponse(table=lobby_message(lobby))

    async def JoinPrivateTable(
        self, request: matchmaking_pb2.JoinPrivateTableRequest, context: grpc.aio.ServicerContext
    ) -> matchmaking_pb2.JoinPrivateTableResponse:
        lobby = await self.private_tables.join(request.code, require_player().subject)
        return matchmaking_pb2.JoinPrivateTableResponse(table=lobby_message(lobby))

    async def WatchPrivateTable(
        self, request: matchmaking_pb2.WatchPrivateTableRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[matchmaking_pb2.WatchPrivateTableResponse]:
        async for message in self.private_tables.watch(request.code, require_player().subject):
            yield message

    async def StartPrivateTable(
        self, request: matchmaking_pb2.StartPrivateTableRequest, context: grpc.aio.ServicerContext
    ) -> matchmaking_pb2.StartPrivateTableResponse:
        seated = await self.private_tables.start(request.code, require_player().subject)
        return matchmaking_pb2.StartPrivateTableResponse(seated=seated)

    async def LocateTable(self, request: matchmaking_pb2.LocateTableRequest, context: grpc.aio.ServicerContext) -> matchmaking_pb2.LocateTableResponse:
        seated = await self.seater.locate(require_player().subject, request.table_id)
        return matchmaking_pb2.LocateTableResponse(seated=seated)


class ShardDirectoryServicer(matchmaking_pb2_grpc.ShardDirectoryServiceServicer):
    def __init__(self, directory: ShardDirectory) -> None:
        self.directory = directory

    async def RenewShardLease(
        self, request: matchmaking_pb2.RenewShardLeaseRequest, context: grpc.aio.ServicerContext
    ) -> matchmaking_pb2.RenewShardLeaseResponse:
        require_service()
        adopted = await self.directory.renew(request.shard_id, request.address, request.live_tables, request.draining)
        lease = duration_pb2.Duration()
        lease.FromNanoseconds(int(LEASE_SECONDS * 1e9))
        return matchmaking_pb2.RenewShardLeaseResponse(lease=lease, adopt_table_ids=adopted)

    async def ReleaseShard(self, request: matchmaking_pb2.ReleaseShardRequest, context: grpc.aio.ServicerContext) -> matchmaking_pb2.ReleaseShardResponse:
        require_service()
        await self.directory.release(request.shard_id, list(request.table_ids))
        return matchmaking_pb2.ReleaseShardResponse()
