"""Matchmaking opening a table on the real table server: two players queue and then both watch their table."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from cardroom.common.v1 import common_pb2
from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc

from services.matchmaking.app import create_server as create_matchmaking
from tests.services.matchmaking.matchmaking_harness import seated
from tests.support.servers import player_metadata, settings_for

from services.table.app import create_server as create_table_server
from tests.support.table_client import SeatClient



async def test_two_casual_players_are_seated_at_one_real_table_and_watch_it(database_url: str, request: pytest.FixtureRequest) -> None:
    table_app, _ = await create_table_server(settings_for("table", database_url), shard="shard-test")
    table_port = await table_app.start("127.0.0.1:0")
    table_address = f"127.0.0.1:{table_port}"
    matchmaking_app = await create_matchmaking(
        settings_for("matchmaking", database_url), table_address=table_address, robot_wait_seconds=30, rng=random.Random(3)
    )
    port = await matchmaking_app.start("127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    table_channel = grpc.aio.insecure_channel(table_address)
    watchers: list[SeatClient] = []
    try:
        stub = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
        request = matchmaking_pb2.JoinQueueRequest(game="four_down", seats=2, kind=common_pb2.MATCH_KIND_CASUAL)
        calls = {player: stub.JoinQueue(request, metadata=player_metadata(player)) for player in ("ann", "bob")}
        seats = {player: await seated(call, timeout=8) for player, call in calls.items()}
        assert seats["ann"].table_id == seats["bob"].table_id
        assert {s.seat for s in seats.values()} == {0, 1} and seats["ann"].table_address == table_address

        for player, seat in seats.items():
            watcher = SeatClient(table_channel, seat.table_id, player, seat.seat_token)
            watcher.watch()
            watchers.append(watcher)
        async def snapshot_arrived(watcher: SeatClient) -> None:
            while not any(m.HasField("snapshot") for m in watcher.messages):
                watcher.updated.clear()
                await watcher.updated.wait()

        await asyncio.wait_for(asyncio.gather(*(snapshot_arrived(w) for w in watchers)), 10)
        for watcher, (player, seat) in zip(watchers, seats.items()):
            assert watcher.stream_error is None, watcher.stream_error
            snapshot = next(m.snapshot for m in watcher.messages if m.HasField("snapshot"))
            assert snapshot.seat == seat.seat and snapshot.table.kind == common_pb2.MATCH_KIND_CASUAL
            assert snapshot.table.match_id == seat.match_id
            assert [s.player_id for s in snapshot.table.seats][seat.seat] == player
            assert not any(s.robot for s in snapshot.table.seats)
    finally:
        for watcher in watchers:
            await watcher.stop()
        await channel.close()
        await table_channel.close()
        await matchmaking_app.stop(0)
        await table_app.stop(0)
