"""Results reach the ladder exactly once, even when rating is killed mid-flight (issue: "killing rating
mid-flight and restarting it still applies every result exactly once")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc

from services.table import host as table_host
from services.table.app import create_server as create_table_server
from tests.support.processes import ServiceProcess, free_port
from tests.support.servers import service_metadata, settings_for
from tests.support.table_client import create_table

pytestmark = pytest.mark.slow
MATCHES = 12
WAIT = 120.0


async def test_killing_rating_mid_flight_applies_every_result_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_host, "OUTBOX_EVERY", 0.2)
    rating = ServiceProcess("rating", free_port(), {"CARDROOM_RATING_DATABASE_URL": f"sqlite:///{tmp_path / 'rating.sqlite3'}"}, tmp_path / "rating.log")
    rating.start()
    app, host = await create_table_server(settings_for("table", f"sqlite:///{tmp_path / 'table.sqlite3'}"), rating.address, shard="outbox")
    port = await app.start("127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    players = [f"player-{i}" for i in range(MATCHES)]
    # Each player never acts: the turn clock plays for them, then a robot does, against a robot.
    for player in players:
        await create_table(channel, "four_down", [player, None], {"turn_seconds": 0.05, "robot_delay": 0})

    async def delivered() -> int:
        return sum(1 for record in await asyncio.to_thread(_all_results, host) if record.delivered_at)

    async def until(predicate, timeout: float = WAIT) -> None:  # type: ignore[no-untyped-def]
        async def poll() -> None:
            while not await predicate():
                await asyncio.sleep(0.05)

        await asyncio.wait_for(poll(), timeout)

    async def some_delivered() -> bool:
        return await delivered() >= 2

    await until(some_delivered)
    rating.kill()  # mid-flight: other matches are finishing and being sent right now
    await asyncio.sleep(1.0)
    rating.start()

    async def all_delivered() -> bool:
        return await delivered() == MATCHES

    await until(all_delivered)
    async with grpc.aio.insecure_channel(rating.address) as rating_channel:
        stub = rating_pb2_grpc.RatingServiceStub(rating_channel)
        for player in players:
            progress = (await stub.GetProgress(rating_pb2.GetProgressRequest(player_id=player), metadata=service_metadata())).progress
            assert [(s.game, s.played) for s in progress.stats] == [("four_down", 1)], f"{player}: exactly one match on record"
            history = await stub.GetHistory(rating_pb2.GetHistoryRequest(player_id=player), metadata=service_metadata())
            assert len(history.entries) == 1
    attempts = sum(record.attempts for record in await asyncio.to_thread(_all_results, host))
    await channel.close()
    await app.stop(0)
    rating.terminate()
    print(f"delivery attempts: {attempts} for {MATCHES} matches")
    assert attempts >= MATCHES


def _all_results(host: table_host.TableHost) -> list:  # type: ignore[type-arg]
    from sqlmodel import Session, select

    from services.table.store import OutboxRecord

    with Session(host.store.engine) as session:
        return list(session.exec(select(OutboxRecord)).all())
