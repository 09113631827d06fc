"""The table service over real gRPC sockets: playing, watching, resuming, refusing, idempotency."""

from __future__ import annotations

import asyncio
import random
from typing import Any, AsyncIterator

import grpc
import pytest
from cardroom.table.v1 import table_pb2
from google.protobuf.json_format import MessageToDict

from services.table.app import create_server
from shared.errors import error_info
from shared.games.cards import is_card
from tests.support.servers import bearer, issuer, settings_for
from tests.support.table_client import SeatClient, create_table

NO_CLOCK = {"turn_seconds": 0, "robot_delay": 0}


@pytest.fixture
async def table_server(database_url: str) -> AsyncIterator[grpc.aio.Channel]:
    app, _host = await create_server(settings_for("table", database_url), shard="test-shard")
    port = await app.start("127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    yield channel
    await channel.close()
    await app.stop(0)


async def open_two_seat_table(channel: grpc.aio.Channel, options: dict[str, Any] | None = None) -> tuple[str, SeatClient, SeatClient]:
    created = await create_table(channel, "four_down", ["alice", "bob"], {**NO_CLOCK, **(options or {})})
    tokens = {t.seat: t.token for t in created.seat_tokens}
    table_id = created.table.table_id
    return table_id, SeatClient(channel, table_id, "alice", tokens[0]), SeatClient(channel, table_id, "bob", tokens[1])


async def play_to_the_end(seats: list[SeatClient], rng: random.Random, limit: int = 3000) -> int:
    """Both players pick uniformly among their legal actions until the match is over."""
    moves = 0
    while moves < limit:
        snapshots = [await seat.snapshot() for seat in seats]
        if snapshots[0].table.status == table_pb2.TABLE_STATUS_FINISHED:
            return moves
        movers = [i for i, snap in enumerate(snapshots) if snap.legal_actions]
        assert movers, "someone can always act until the match is over"
        seat = movers[0]
        await seats[seat].act(rng.choice(list(snapshots[seat].legal_actions)))
        moves += 1
    raise AssertionError("the match did not end")


def table_state(snapshot: table_pb2.Snapshot) -> table_pb2.Snapshot:
    """A snapshot without the server's clock: what must not change when a call is refused."""
    copy = table_pb2.Snapshot()
    copy.CopyFrom(snapshot)
    copy.ClearField("server_time")
    return copy


def cards_in(messages: list[dict[str, Any]]) -> set[str]:
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str) and is_card(value):
            found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(messages)
    return found


async def test_two_players_play_a_whole_four_down_match_and_a_spectator_sees_only_public_events(
    table_server: grpc.aio.Channel,
) -> None:
    table_id, alice, bob = await open_two_seat_table(table_server)
    spectator = SeatClient(table_server, table_id, "carol")
    for client in (alice, bob, spectator):
        client.watch()
    await play_to_the_end([alice, bob], random.Random(3))
    final = await alice.snapshot()
    for client in (alice, bob, spectator):
        await client.wait_for(final.sequence)
        await client.stop()
    assert final.table.status == table_pb2.TABLE_STATUS_FINISHED
    assert all(not event.private for event in spectator.events())
    spectator_kinds = {event.kind for event in spectator.events()}
    assert "first_look" not in spectator_kinds
    # Every seat saw a subsequence of the table's events; private ones only its own.
    assert {e.sequence for e in spectator.events()} <= {e.sequence for e in alice.events()}
    assert any(event.private for event in alice.events())
    private_to_alice = {e.sequence for e in alice.events() if e.private}
    assert not private_to_alice & {e.sequence for e in bob.events()}


async def test_a_retried_action_is_answered_not_applied_twice(table_server: grpc.aio.Channel) -> None:
    _table_id, alice, _bob = await open_two_seat_table(table_server)
    first = await alice.act({"type": "draw", "from": "stock"}, client_action_id="draw-1")
    again = await alice.act({"type": "draw", "from": "stock"}, client_action_id="draw-1")
    assert not first.replayed and again.replayed
    assert again.sequence == first.sequence
    assert (await alice.snapshot()).sequence == first.sequence


async def test_a_reused_action_id_with_another_action_is_refused_and_changes_nothing(table_server: grpc.aio.Channel) -> None:
    _table_id, alice, _bob = await open_two_seat_table(table_server)
    await alice.act({"type": "draw", "from": "stock"}, client_action_id="same-id")
    before = await alice.snapshot()
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await alice.act({"type": "discard"}, client_action_id="same-id")
    assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert error_info(refused.value).reason == "ACTION_ID_REUSED"
    assert table_state(await alice.snapshot()) == table_state(before)


async def refused(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    info = error_info(caught.value)
    assert info is not None, "every refusal carries an ErrorInfo"
    assert info.domain == "table.cardroom"
    return caught.value.code(), info.reason


async def test_bad_input_is_refused_with_a_reason_and_changes_nothing(table_server: grpc.aio.Channel) -> None:
    table_id, alice, bob = await open_two_seat_table(table_server)
    before = await alice.snapshot()
    # Acting out of turn (FD-3: seat 0 starts round 1, FD-2).
    assert await refused(bob.act({"type": "draw", "from": "stock"})) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    # An illegal action: nothing has been drawn, so there is nothing to discard.
    assert await refused(alice.act({"type": "discard"})) == (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL")
    # A malformed action: an empty oneof.
    assert await refused(alice.act(table_pb2.Action())) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT")
    # A slot that does not exist.
    await alice.act({"type": "draw", "from": "discard"})
    after_draw = await alice.snapshot()
    assert await refused(alice.act({"type": "replace", "slot": 9})) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_TARGET")
    assert table_state(await alice.snapshot()) == table_state(after_draw)
    # Acting as another seat: bob's seat token presented by alice.
    alice_with_bobs_seat = SeatClient(table_server, table_id, "alice", bob.seat_token)
    assert await refused(alice_with_bobs_seat.act({"type": "call"})) == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_SEAT")
    # Watching as another seat.
    stream = alice_with_bobs_seat.stub.Watch(
        table_pb2.WatchRequest(table_id=table_id, seat_token=bob.seat_token), metadata=alice_with_bobs_seat.metadata
    )
    assert await refused(stream.read()) == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_SEAT")
    # A seat token for another table.
    other_table, other_alice, _ = await open_two_seat_table(table_server)
    wrong_table = SeatClient(table_server, table_id, "alice", other_alice.seat_token)
    assert await refused(wrong_table.act({"type": "call"})) == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_SEAT")
    # An unknown table.
    nowhere = SeatClient(table_server, "no-such-table", "alice", alice.seat_token)
    assert await refused(nowhere.act({"type": "call"})) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
    assert (await alice.snapshot()).sequence == after_draw.sequence
    assert after_draw.sequence > before.sequence


async def test_calls_without_a_valid_token_are_unauthenticated(table_server: grpc.aio.Channel) -> None:
    table_id, alice, _bob = await open_two_seat_table(table_server)
    request = table_pb2.GetTableRequest(table_id=table_id)
    stub = alice.stub
    assert await refused(stub.GetTable(request)) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    assert await refused(stub.GetTable(request, metadata=bearer("not.a.jwt"))) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    forged = __import__("jwt").encode({"sub": "alice", "typ": "access", "iss": "cardroom", "exp": 9999999999}, "wrong-secret", algorithm="HS256")
    assert await refused(stub.GetTable(request, metadata=bearer(forged))) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    expired = __import__("jwt").encode({"sub": "alice", "typ": "access", "iss": "cardroom", "exp": 1000}, "cardroom-test-secret-0123456789abcdef", algorithm="HS256")
    assert await refused(stub.GetTable(request, metadata=bearer(expired))) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_EXPIRED")
    # A player may not open tables: service credentials only.
    create = table_pb2.CreateTableRequest(game="four_down", seats=[table_pb2.SeatAssignment(player_id="x")] * 2)
    assert await refused(stub.CreateTable(create, metadata=bearer(issuer().access("alice").token))) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "FORBIDDEN",
    )


async def test_bad_tables_are_refused(table_server: grpc.aio.Channel) -> None:
    assert await refused(create_table(table_server, "no_such_game", ["a", "b"])) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME")
    assert await refused(create_table(table_server, "four_down", ["a"] * 5)) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEAT_COUNT")
    assert await refused(create_table(table_server, "four_down", ["a", "b"], {"turn_seconds": -1})) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_OPTION",
    )
    assert await refused(create_table(table_server, "four_down", ["a", "b"], {"colour": "red"})) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_OPTION",
    )


async def test_a_dropped_stream_resumes_from_its_last_sequence(table_server: grpc.aio.Channel) -> None:
    table_id, alice, bob = await open_two_seat_table(table_server)
    bob.watch()
    await bob.wait_for(1)
    await bob.stop()
    seen_before = bob.last_sequence
    await alice.act({"type": "draw", "from": "stock"})
    await alice.act({"type": "discard"})
    resumed = SeatClient(table_server, table_id, "bob", bob.seat_token)
    resumed.last_sequence = seen_before
    resumed.watch(after_sequence=seen_before)
    latest = await alice.snapshot()
    await resumed.wait_for(latest.sequence)
    await resumed.stop()
    assert not any(m.HasField("snapshot") for m in resumed.messages), "a resume sends only what was missed"
    kinds = [e.kind for e in resumed.events()]
    assert kinds, "the missed public events were re-sent"
    assert all(e.sequence > seen_before for e in resumed.events())


async def test_a_seat_that_first_watches_after_the_deal_is_shown_its_first_look_once(table_server: grpc.aio.Channel) -> None:
    created = await create_table(table_server, "four_down", ["alice", "bob"], {**NO_CLOCK, "reveal_window": 0})
    table_id = created.table.table_id
    await asyncio.sleep(0.05)  # the phone connects after the deal, as it always does
    alice = SeatClient(table_server, table_id, "alice", created.seat_tokens[0].token)
    alice.watch()
    await alice.wait_for_snapshot()
    await alice.stop()
    kinds = [m.event.kind if m.HasField("event") else "snapshot" for m in alice.messages]
    assert kinds[:2] == ["first_look", "snapshot"], "FD-1: the reveal nobody could see yet comes first, then the view"
    seen = alice.last_sequence
    await asyncio.sleep(0.05)
    again = SeatClient(table_server, table_id, "alice", created.seat_tokens[0].token)
    again.watch()
    await again.wait_for(seen)
    await again.stop()
    assert "first_look" not in [e.kind for e in again.events()], "shown once: past its window, it is not shown again"


async def test_private_reveals_are_resent_to_a_resuming_stream_only_inside_the_reveal_window(table_server: grpc.aio.Channel) -> None:
    for window, resent in ((0, False), (600, True)):
        created = await create_table(table_server, "four_down", ["alice", "bob"], {**NO_CLOCK, "reveal_window": window})
        alice = SeatClient(table_server, created.table.table_id, "alice", created.seat_tokens[0].token)
        alice.watch()
        await alice.wait_for(1)
        await alice.stop()
        await asyncio.sleep(0.05)
        resumed = SeatClient(table_server, created.table.table_id, "alice", created.seat_tokens[0].token)
        resumed.watch(after_sequence=1)
        await resumed.act({"type": "draw", "from": "stock"})
        await resumed.wait_for((await resumed.snapshot()).sequence)
        await resumed.stop()
        assert ("first_look" in [e.kind for e in resumed.events()]) is resent, f"reveal_window {window}"


async def test_the_first_message_is_the_seats_own_view(table_server: grpc.aio.Channel) -> None:
    table_id, alice, bob = await open_two_seat_table(table_server)
    alice.watch()
    await alice.wait_for_snapshot()
    await alice.stop()
    first = next(m for m in alice.messages if m.HasField("snapshot"))
    assert first.snapshot.seat == 0
    assert first.snapshot.table.table_id == table_id
    view = MessageToDict(first.snapshot.view)
    # FD-1: a view never holds a private reveal; the opening look came as an event, not in the view.
    hidden = {card for card in cards_in([view])}
    assert hidden <= {view.get("discard_top")} | set(view.get("discard", []))
    assert [a.WhichOneof("action") for a in first.snapshot.legal_actions] != []
