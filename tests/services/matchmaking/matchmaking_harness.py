"""A real matchmaking server on a real socket, with a fake table service and a fake rating service (also on
real sockets) that record what matchmaking asks of them."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Callable

import grpc
import pytest
from cardroom.common.v1 import common_pb2
from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc
from cardroom.table.v1 import table_pb2, table_pb2_grpc

from services.matchmaking.app import create_server
from services.matchmaking.queues import RatingWindow
from shared.errors import error_info
from tests.support.servers import issuer, player_metadata, service_metadata, settings_for

CASUAL = common_pb2.MATCH_KIND_CASUAL
RANKED = common_pb2.MATCH_KIND_RANKED
PRIVATE = common_pb2.MATCH_KIND_PRIVATE


class FakeTables(table_pb2_grpc.TableServiceServicer):
    """Records every CreateTable; answers with seat tokens signed like the real table service's."""

    def __init__(self) -> None:
        self.created: list[table_pb2.CreateTableRequest] = []
        self.status: dict[str, int] = {}
        self.failures = 0  # CreateTable calls still to refuse with UNAVAILABLE
        self.open = asyncio.Event()  # CreateTable answers only while this is set (a slow table service)
        self.open.set()

    async def CreateTable(self, request: table_pb2.CreateTableRequest, context: grpc.aio.ServicerContext) -> table_pb2.CreateTableResponse:
        await self.open.wait()
        if self.failures:
            self.failures -= 1
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the fake table service is down")
        self.created.append(request)
        self.status[request.table_id] = table_pb2.TABLE_STATUS_PLAYING
        tokens = [
            table_pb2.SeatToken(seat=i, player_id=s.player_id, token=issuer().seat(s.player_id, request.table_id, i).token)
            for i, s in enumerate(request.seats)
            if not s.robot
        ]
        info = table_pb2.TableInfo(table_id=request.table_id, game=request.game, kind=request.kind, match_id=request.match_id)
        return table_pb2.CreateTableResponse(table=info, seat_tokens=tokens)

    async def GetTable(self, request: table_pb2.GetTableRequest, context: grpc.aio.ServicerContext) -> table_pb2.GetTableResponse:
        if request.table_id not in self.status:
            await context.abort(grpc.StatusCode.NOT_FOUND, "no such table")
        return table_pb2.GetTableResponse(table=table_pb2.TableInfo(table_id=request.table_id, status=self.status[request.table_id]))


class FakeRating(rating_pb2_grpc.RatingServiceServicer):
    def __init__(self) -> None:
        self.ratings: dict[str, float] = {}
        self.asked: list[list[str]] = []

    async def GetRatings(self, request: rating_pb2.GetRatingsRequest, context: grpc.aio.ServicerContext) -> rating_pb2.GetRatingsResponse:
        self.asked.append(list(request.player_ids))
        return rating_pb2.GetRatingsResponse(
            ratings=[rating_pb2.PlayerRating(player_id=p, rating=self.ratings.get(p, 1500.0)) for p in request.player_ids]
        )


async def serve_fake(adder: Callable[[Any, grpc.aio.Server], None], servicer: Any) -> tuple[grpc.aio.Server, str]:
    server = grpc.aio.server()
    adder(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


class WallClock:
    """A wall clock tests move by hand (shard leases)."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Room:
    """The matchmaking server under test and its fakes."""

    channel: grpc.aio.Channel
    tables: FakeTables
    rating: FakeRating
    table_address: str
    clock: WallClock
    stub: matchmaking_pb2_grpc.MatchmakingServiceStub = field(init=False)
    directory: matchmaking_pb2_grpc.ShardDirectoryServiceStub = field(init=False)

    def __post_init__(self) -> None:
        self.stub = matchmaking_pb2_grpc.MatchmakingServiceStub(self.channel)
        self.directory = matchmaking_pb2_grpc.ShardDirectoryServiceStub(self.channel)

    def join(
        self, player: str, game: str = "four_down", seats: int = 2, kind: int = CASUAL, options: dict[str, Any] | None = None, party_code: str = ""
    ) -> grpc.aio.UnaryStreamCall:
        request = matchmaking_pb2.JoinQueueRequest(game=game, seats=seats, kind=kind, party_code=party_code)  # type: ignore[arg-type]
        if options is not None:
            request.options.update(options)
        return self.stub.JoinQueue(request, metadata=player_metadata(player))

    async def renew(self, shard: str, address: str, live_tables: int = 0, draining: bool = False) -> matchmaking_pb2.RenewShardLeaseResponse:
        return await self.directory.RenewShardLease(
            matchmaking_pb2.RenewShardLeaseRequest(shard_id=shard, address=address, live_tables=live_tables, draining=draining),
            metadata=service_metadata("table"),
        )


@asynccontextmanager
async def matchmaking(
    database_url: str,
    robot_wait_seconds: float = 30.0,
    rating_window: RatingWindow | None = None,
    rating_reachable: bool = True,
) -> AsyncIterator[Room]:
    tables, rating = FakeTables(), FakeRating()
    table_server, table_address = await serve_fake(table_pb2_grpc.add_TableServiceServicer_to_server, tables)
    rating_server, rating_address = await serve_fake(rating_pb2_grpc.add_RatingServiceServicer_to_server, rating)
    if not rating_reachable:
        await rating_server.stop(0)
    clock = WallClock()
    app = await create_server(
        settings_for("matchmaking", database_url),
        table_address=table_address,
        rating_address=rating_address,
        robot_wait_seconds=robot_wait_seconds,
        rating_window=rating_window,
        wall_clock=clock,
        rng=random.Random(7),
    )
    port = await app.start("127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield Room(channel, tables, rating, table_address, clock)
    finally:
        await channel.close()
        await app.stop(0)
        await table_server.stop(0)
        await rating_server.stop(0)


async def next_message(call: grpc.aio.UnaryStreamCall, timeout: float = 5.0) -> Any:
    return await asyncio.wait_for(call.read(), timeout)


async def seated(call: grpc.aio.UnaryStreamCall, timeout: float = 5.0) -> matchmaking_pb2.Seated:
    """Read the stream until Seated (progress before it is skipped) and check that the stream then ends."""

    async def read() -> matchmaking_pb2.Seated:
        while True:
            message = await call.read()
            assert message is not grpc.aio.EOF, "the stream ended without a seat"
            if message.HasField("seated"):
                assert await call.read() is grpc.aio.EOF
                return message.seated

    return await asyncio.wait_for(read(), timeout)


async def rest(call: grpc.aio.UnaryStreamCall, timeout: float = 5.0) -> list[Any]:
    """Every message until the stream ends (it must end within ``timeout``)."""

    async def read() -> list[Any]:
        messages = []
        while (message := await call.read()) is not grpc.aio.EOF:
            messages.append(message)
        return messages

    return await asyncio.wait_for(read(), timeout)


async def ticket_of(call: grpc.aio.UnaryStreamCall) -> str:
    first = await next_message(call)
    assert first.HasField("progress"), "the stream opens with the ticket"
    return first.progress.ticket_id


async def refusal(awaitable: Any) -> tuple[grpc.StatusCode, str]:
    """The status code and ErrorInfo reason of a refused call (unary, or a stream's first read)."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        if isinstance(awaitable, grpc.aio.UnaryStreamCall):
            await next_message(awaitable)
        else:
            await awaitable
    info = error_info(caught.value)
    return caught.value.code(), info.reason if info else ""

