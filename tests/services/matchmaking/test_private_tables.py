"""Private tables end to end over real sockets, stored on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import json

import grpc
from cardroom.matchmaking.v1 import matchmaking_pb2

from services.matchmaking.lobbies import CODE_ALPHABET, CODE_LENGTH
from tests.services.matchmaking.matchmaking_harness import PRIVATE, Room, matchmaking, next_message, refusal, rest
from tests.support.servers import issuer, player_metadata


async def create(room: Room, host: str, game: str = "four_down", seats: int = 3, **options: object) -> matchmaking_pb2.PrivateTable:
    request = matchmaking_pb2.CreatePrivateTableRequest(game=game, seats=seats)
    request.options.update(options)
    return (await room.stub.CreatePrivateTable(request, metadata=player_metadata(host))).table


async def join(room: Room, player: str, code: str) -> matchmaking_pb2.PrivateTable:
    return (await room.stub.JoinPrivateTable(matchmaking_pb2.JoinPrivateTableRequest(code=code), metadata=player_metadata(player))).table


async def start(room: Room, player: str, code: str) -> matchmaking_pb2.Seated:
    return (await room.stub.StartPrivateTable(matchmaking_pb2.StartPrivateTableRequest(code=code), metadata=player_metadata(player))).seated


def watch(room: Room, player: str, code: str) -> grpc.aio.UnaryStreamCall:
    return room.stub.WatchPrivateTable(matchmaking_pb2.WatchPrivateTableRequest(code=code), metadata=player_metadata(player))


async def test_a_private_table_from_code_to_seats(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        lobby = await create(room, "host", game="golf", seats=4, holes=3)
        assert len(lobby.code) == CODE_LENGTH and set(lobby.code) <= set(CODE_ALPHABET)
        assert list(lobby.player_ids) == ["host", "", "", ""] and lobby.host_player_id == "host" and not lobby.started
        assert (lobby.options["holes"], lobby.options["mode"], lobby.options["turn_seconds"]) == (3, "classic", 45)

        host_watch = watch(room, "host", lobby.code)
        assert list((await next_message(host_watch)).lobby.player_ids) == ["host", "", "", ""]
        joined = await join(room, "guest", lobby.code.lower())
        assert list(joined.player_ids) == ["host", "guest", "", ""] and list(joined.display_names) == ["Player 1", "Player 2", "", ""]
        assert list((await next_message(host_watch)).lobby.player_ids) == ["host", "guest", "", ""], "every change is streamed"
        guest_watch = watch(room, "guest", lobby.code)
        assert (await next_message(guest_watch)).lobby.code == lobby.code

        host_seat = await start(room, "host", lobby.code)
        host_rest, guest_rest = await rest(host_watch), await rest(guest_watch)

    [created] = room.tables.created
    assert created.kind == PRIVATE and created.game == "golf" and created.options["holes"] == 3
    assert [s.player_id for s in created.seats] == ["host", "guest", "", ""] and [s.robot for s in created.seats] == [False, False, True, True]
    assert host_seat.table_id == created.table_id and host_seat.seat == 0 and host_seat.table_address == room.table_address
    assert host_rest[-1].seated.seat == 0 and guest_rest[-1].seated.seat == 1
    assert host_rest[-2].lobby.started, "the started lobby, then the seat"
    guest_claims = issuer().verify(guest_rest[-1].seated.seat_token, "seat")
    assert (guest_claims.subject, guest_claims.table_id, guest_claims.seat) == ("guest", created.table_id, 1)


async def test_joining_twice_is_a_no_op(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        lobby = await create(room, "host", seats=2)
        assert list((await join(room, "host", lobby.code)).player_ids) == ["host", ""]
        await join(room, "guest", lobby.code)
        assert list((await join(room, "guest", lobby.code)).player_ids) == ["host", "guest"]


async def test_a_full_table_refuses_another_player_and_stays_as_it_was(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        lobby = await create(room, "host", seats=2)
        await join(room, "guest", lobby.code)
        assert await refusal(join(room, "late", lobby.code)) == (grpc.StatusCode.FAILED_PRECONDITION, "TABLE_FULL")
        assert list((await join(room, "guest", lobby.code)).player_ids) == ["host", "guest"]


async def test_unknown_codes_are_not_found_and_started_tables_take_nobody(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        assert await refusal(join(room, "guest", "ZZZZZZ")) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
        assert await refusal(join(room, "guest", "")) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT")
        assert await refusal(watch(room, "guest", "ZZZZZZ")) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
        lobby = await create(room, "host", seats=3)
        await start(room, "host", lobby.code)
        assert await refusal(join(room, "guest", lobby.code)) == (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL")
        assert await refusal(start(room, "host", lobby.code)) == (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL")
        assert len(room.tables.created) == 1


async def test_only_the_host_starts_and_a_refused_start_changes_nothing(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        lobby = await create(room, "host", seats=2)
        await join(room, "guest", lobby.code)
        assert await refusal(start(room, "guest", lobby.code)) == (grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN")
        assert await refusal(start(room, "stranger", lobby.code)) == (grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN")
        assert room.tables.created == []
        assert not (await join(room, "guest", lobby.code)).started
        assert (await start(room, "host", lobby.code)).seat == 0


async def test_only_members_watch_a_lobby(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        lobby = await create(room, "host", seats=2)
        assert await refusal(watch(room, "stranger", lobby.code)) == (grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN")


async def test_bad_private_tables_are_refused_and_nothing_is_stored(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        assert await refusal(create(room, "host", game="chess")) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME")
        assert await refusal(create(room, "host", game="golf", holes=2)) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")
        assert await refusal(create(room, "host", game="tower", seats=9)) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEAT_COUNT")
        assert await refusal(create(room, "host", game="quatro", seats=6, colour="red")) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_OPTION",
        )
        assert await refusal(create(room, "host", game="cambio", seats=2, finish_line=50, rounds=3)) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_OPTION",
        )
        located = room.stub.LocateTable(matchmaking_pb2.LocateTableRequest(), metadata=player_metadata("host"))
        assert await refusal(located) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")


async def test_a_failed_start_leaves_the_lobby_open_to_start_again(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        lobby = await create(room, "host", seats=2)
        room.tables.failures = 2
        code, _ = await refusal(start(room, "host", lobby.code))
        assert code == grpc.StatusCode.UNAVAILABLE
        assert not (await join(room, "guest", lobby.code)).started
        assert (await start(room, "host", lobby.code)).seat == 0


async def test_a_host_who_gives_up_on_a_slow_start_still_gets_a_table_everyone_is_seated_at(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        lobby = await create(room, "host", seats=2)
        await join(room, "guest", lobby.code)
        guest_watch = watch(room, "guest", lobby.code)
        await next_message(guest_watch)
        room.tables.open.clear()
        request = matchmaking_pb2.StartPrivateTableRequest(code=lobby.code)
        gave_up = room.stub.StartPrivateTable(request, metadata=player_metadata("host"), timeout=0.3)
        assert (await refusal(gave_up))[0] == grpc.StatusCode.DEADLINE_EXCEEDED
        room.tables.open.set()

        guest_seat = (await rest(guest_watch))[-1].seated
        host_seat = (await rest(watch(room, "host", lobby.code)))[-1].seated
        [created] = room.tables.created
        assert guest_seat.table_id == host_seat.table_id == created.table_id, "the start went through, once"
        assert (host_seat.seat, guest_seat.seat) == (0, 1)


async def test_lobbies_survive_a_restart(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        lobby = await create(room, "host", seats=2, turn_seconds=30)
    async with matchmaking(database_url) as room:
        joined = await join(room, "guest", lobby.code)
        assert list(joined.player_ids) == ["host", "guest"] and joined.options["turn_seconds"] == 30
        seat = await start(room, "host", lobby.code)
        assert json.loads(json.dumps(dict(room.tables.created[0].options)))["turn_seconds"] == 30
        assert seat.seat == 0


async def test_concurrent_joins_take_distinct_seats(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        lobby = await create(room, "host", seats=4)
        tables = await asyncio.gather(*(join(room, f"p{i}", lobby.code) for i in range(3)))
        final = await join(room, "p0", lobby.code)
        assert sorted(final.player_ids) == ["host", "p0", "p1", "p2"] and len(tables) == 3
