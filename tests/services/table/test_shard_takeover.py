"""DESIGN "Scale and failure": shards hold leases in matchmaking's directory; when one dies, a live
shard adopts its tables, replays them from the log, and returning clients find them through
LocateTable, exactly where they were."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import grpc
import pytest
from cardroom.common.v1 import common_pb2
from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc

from services.matchmaking import directory as matchmaking_directory
from services.matchmaking.app import create_server as create_matchmaking
from services.table import host as table_host
from services.table.app import create_server as create_table_server
from tests.services.matchmaking.matchmaking_harness import seated
from tests.services.table.test_crash_recovery import comparable
from tests.support.servers import player_metadata, settings_for
from tests.support.table_client import SeatClient

SHORT_LEASE = 1.0  # seconds: the production 15 s would only make this test slow


@pytest.fixture
def short_leases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matchmaking_directory, "LEASE_SECONDS", SHORT_LEASE)
    monkeypatch.setattr(table_host, "LEASE_SECONDS", SHORT_LEASE)
    monkeypatch.setattr(table_host, "RENEW_EVERY", 0.3)


async def start_shard(name: str, url: str, matchmaking_address: str):  # type: ignore[no-untyped-def]
    app, host = await create_table_server(settings_for("table", url), shard=name, matchmaking_address=matchmaking_address)
    port = await app.start("127.0.0.1:0")
    host.directory.advertised_address = f"127.0.0.1:{port}"
    await host.renew()
    return app, host


async def test_a_dead_shards_table_is_adopted_and_located_where_it_was(tmp_path: Path, short_leases: None) -> None:
    matchmaking = await create_matchmaking(settings_for("matchmaking", f"sqlite:///{tmp_path / 'mm.sqlite3'}"), table_address="127.0.0.1:9", rng=random.Random(2))
    mm_address = f"127.0.0.1:{await matchmaking.start('127.0.0.1:0')}"
    table_url = f"sqlite:///{tmp_path / 'table.sqlite3'}"
    shards = dict([("a", await start_shard("shard-a", table_url, mm_address)), ("b", await start_shard("shard-b", table_url, mm_address))])
    mm_channel = grpc.aio.insecure_channel(mm_address)
    stub = matchmaking_pb2_grpc.MatchmakingServiceStub(mm_channel)
    request = matchmaking_pb2.JoinQueueRequest(game="four_down", seats=2, kind=common_pb2.MATCH_KIND_CASUAL, options=None)
    request.options.update({"turn_seconds": 0})
    calls = {player: stub.JoinQueue(request, metadata=player_metadata(player)) for player in ("ann", "bob")}
    seats = {player: await seated(call, timeout=10) for player, call in calls.items()}
    mover = next(player for player, seat in seats.items() if seat.seat == 0)  # FD-2: seat 0 starts
    first = seats[mover]
    hosting = next(key for key, (app, host) in shards.items() if first.table_address == host.directory.advertised_address)
    survivor = "b" if hosting == "a" else "a"

    channel = grpc.aio.insecure_channel(first.table_address)
    player = SeatClient(channel, first.table_id, mover, first.seat_token)
    await player.act({"type": "draw", "from": "stock"})
    before = await player.snapshot()

    # The hosting shard dies: no drain, no hand-back, its renewals simply stop.
    dead_app, dead_host = shards[hosting]
    for task in [*dead_host._background, *dead_host.clocks.values()]:
        task.cancel()
    await dead_app.server.stop(0)
    await asyncio.sleep(SHORT_LEASE * 1.5)
    await shards[survivor][1].renew()

    located = await stub.LocateTable(matchmaking_pb2.LocateTableRequest(table_id=first.table_id), metadata=player_metadata(mover))
    assert located.seated.table_address == shards[survivor][1].directory.advertised_address
    new_channel = grpc.aio.insecure_channel(located.seated.table_address)
    returning = SeatClient(new_channel, first.table_id, mover, located.seated.seat_token)
    after = await returning.snapshot()
    assert comparable(after) == comparable(before), "the adopted table is exactly where it was"
    await returning.act({"type": "discard"})

    for item in (channel, new_channel, mm_channel):
        await item.close()
    await shards[survivor][0].stop(0)
    await matchmaking.stop(0)
