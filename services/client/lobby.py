"""Getting a seat: the queue (progress until Seated) and private tables (join, or host and start).

Queue progress is printed as it arrives; a private table's lobby is printed when it changes. The
host's table starts when the host presses Enter (empty seats become robots).
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from cardroom.common.v1 import common_pb2
from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from google.protobuf import struct_pb2

from shared.cancellation import within

from services.client.connection import Metadata
from services.client.play import Lines, Quit

Write = Callable[[str], Any]


def struct(options: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(options)
    return message


def progress_line(progress: matchmaking_pb2.QueueProgress) -> str:
    waited = progress.elapsed.ToTimedelta().total_seconds()
    parts = [f"In the queue: position {progress.position}, {progress.waiting} waiting, {waited:.0f} s"]
    if progress.HasField("robots_in"):
        parts.append(f"robots in {progress.robots_in.ToTimedelta().total_seconds():.1f} s")
    if progress.rating_window:
        parts.append(f"rating window ±{progress.rating_window:.0f}")
    return ", ".join(parts)


async def queue(
    stub: matchmaking_pb2_grpc.MatchmakingServiceStub,
    metadata: Metadata,
    game: str,
    seats: int,
    options: dict[str, Any],
    ranked: bool,
    write: Write,
    robots_after: float | None = None,
) -> matchmaking_pb2.Seated:
    """Join the queue and wait for a seat, printing progress. With ``robots_after``, a player who
    is still waiting then leaves the queue and plays robots at a private table of their own."""
    kind = common_pb2.MATCH_KIND_RANKED if ranked else common_pb2.MATCH_KIND_CASUAL
    request = matchmaking_pb2.JoinQueueRequest(game=game, seats=seats, kind=kind, options=struct(options))
    call = stub.JoinQueue(request, metadata=await metadata())

    async def wait_for_seat() -> matchmaking_pb2.Seated:
        async for message in call:
            if message.HasField("seated"):
                return message.seated
            write(progress_line(message.progress))
        raise ConnectionError("the queue closed without a seat (the ticket was cancelled)")

    try:
        return await within(robots_after, wait_for_seat())
    except TimeoutError:
        write(f"Nobody came within {robots_after:g} s: playing robots at a table of your own.")
        return await robot_table(stub, metadata, game, seats, options)
    finally:
        call.cancel()  # closing the stream withdraws the ticket


async def robot_table(
    stub: matchmaking_pb2_grpc.MatchmakingServiceStub, metadata: Metadata, game: str, seats: int, options: dict[str, Any]
) -> matchmaking_pb2.Seated:
    """A private table started at once: every other seat a robot."""
    made = await stub.CreatePrivateTable(
        matchmaking_pb2.CreatePrivateTableRequest(game=game, seats=seats, options=struct(options)), metadata=await metadata()
    )
    started = await stub.StartPrivateTable(matchmaking_pb2.StartPrivateTableRequest(code=made.table.code), metadata=await metadata())
    return started.seated


def lobby_line(lobby: matchmaking_pb2.PrivateTable) -> str:
    seats = ", ".join(name or (player and "a player") or "(free)" for name, player in zip(lobby.display_names, lobby.player_ids))
    return f"Private table {lobby.code} ({lobby.game}, {lobby.seats} seats): {seats}"


async def watch_lobby(stub: matchmaking_pb2_grpc.MatchmakingServiceStub, metadata: Metadata, code: str, write: Write) -> matchmaking_pb2.Seated:
    """Print the lobby as it changes until the table starts; the seat."""
    call = stub.WatchPrivateTable(matchmaking_pb2.WatchPrivateTableRequest(code=code), metadata=await metadata())
    async for message in call:
        if message.HasField("seated"):
            call.cancel()
            return message.seated
        write(lobby_line(message.lobby))
    raise ConnectionError("the private table closed before it started")


async def join_private(stub: matchmaking_pb2_grpc.MatchmakingServiceStub, metadata: Metadata, code: str, write: Write) -> matchmaking_pb2.Seated:
    answer = await stub.JoinPrivateTable(matchmaking_pb2.JoinPrivateTableRequest(code=code.strip().upper()), metadata=await metadata())
    write(lobby_line(answer.table))
    write("Waiting for the host to start...")
    return await watch_lobby(stub, metadata, answer.table.code, write)


async def host_private(
    stub: matchmaking_pb2_grpc.MatchmakingServiceStub,
    metadata: Metadata,
    game: str,
    seats: int,
    options: dict[str, Any],
    lines: Lines,
    write: Write,
) -> matchmaking_pb2.Seated:
    """Make a private table, print its code, start it when the host presses Enter."""
    answer = await stub.CreatePrivateTable(
        matchmaking_pb2.CreatePrivateTableRequest(game=game, seats=seats, options=struct(options)), metadata=await metadata()
    )
    code = answer.table.code
    write(f"Your private table's code is {code}. Share it; press Enter to start (empty seats are robots).")
    watching = asyncio.create_task(watch_lobby(stub, metadata, code, write))
    try:
        if await lines.next_line() is None:
            raise Quit("input ended")
        started = await stub.StartPrivateTable(matchmaking_pb2.StartPrivateTableRequest(code=code), metadata=await metadata())
        return started.seated
    finally:
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)
