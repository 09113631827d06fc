"""The client survives a table server restart: it reconnects with backoff and resumes after the
last sequence it received, and the match goes on to its end."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from cardroom.matchmaking.v1 import matchmaking_pb2

from services.client.connection import TableConnection
from services.client.families import family_for
from services.client.play import Menu, PlayLoop
from services.client.reveal import RevealBoard
from services.table.app import create_server as create_table
from tests.client.harness import ScriptedLines
from tests.support.servers import player_metadata, settings_for
from tests.support.table_client import create_table as open_table


async def test_a_restarted_table_server_is_rejoined_and_the_match_finishes(tmp_path: Path) -> None:
    settings = settings_for("table", f"sqlite:///{tmp_path / 'table.sqlite3'}")
    app, _ = await create_table(settings, shard="reconnect-test")
    port = await app.start("127.0.0.1:0")
    address = f"127.0.0.1:{port}"
    channel = grpc.aio.insecure_channel(address)
    created = await open_table(channel, "golf", ["ann", None], {"holes": 1, "robot_delay": 0.05})
    await channel.close()
    token = next(t.token for t in created.seat_tokens if t.player_id == "ann")
    seated = matchmaking_pb2.Seated(table_id=created.table.table_id, table_address=address, seat=0, seat_token=token, game="golf")

    async def metadata() -> list[tuple[str, str]]:
        return player_metadata("ann")

    restarted = asyncio.Event()
    apps = [app]

    async def restart() -> None:
        await apps[0].stop(0)
        again, _ = await create_table(settings, shard="reconnect-test")
        await again.start(address)
        apps.append(again)
        restarted.set()

    tasks: list[asyncio.Task[None]] = []

    def choose(menu: Menu) -> str | None:
        if not menu.entries:
            return None
        if not tasks:
            tasks.append(asyncio.ensure_future(restart()))
        return "1"

    connection = TableConnection(seated, metadata, None)
    output: list[str] = []
    loop = PlayLoop(connection, family_for("golf"), ScriptedLines(choose), output.append, RevealBoard(0.5))
    try:
        final = await asyncio.wait_for(loop.run(), 30)
    finally:
        await connection.close()
        for running in apps:
            await running.stop(0)
    assert restarted.is_set()
    assert connection.reconnects >= 1
    assert loop.view.get("phase") == "match_over" and final.seat == 0
    sequences = [line for line in output if "Refused" in line]
    assert not sequences, sequences
