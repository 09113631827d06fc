"""The turn clock: an idle seat gets the automatic move; three in a row and a robot plays it."""

from __future__ import annotations

import asyncio

import grpc
from cardroom.table.v1 import table_pb2

from tests.services.table.test_table_service import table_server  # noqa: F401 - the fixture
from tests.support.table_client import SeatClient, create_table

WAIT = 15.0  # generous: these tests wait for events, they never assert how fast they come


async def until(condition, timeout: float = WAIT) -> None:  # type: ignore[no-untyped-def]
    async def poll() -> None:
        while not await condition():
            await asyncio.sleep(0.05)

    await asyncio.wait_for(poll(), timeout)


async def test_an_idle_seat_draws_and_discards_then_a_robot_stands_in_until_the_player_acts(
    table_server: grpc.aio.Channel,  # noqa: F811
) -> None:
    created = await create_table(table_server, "four_down", ["alice", "bob"], {"turn_seconds": 0.2, "robot_delay": 3})
    table_id = created.table.table_id
    alice = SeatClient(table_server, table_id, "alice", created.seat_tokens[0].token)
    bob = SeatClient(table_server, table_id, "bob", created.seat_tokens[1].token)
    alice.watch()

    async def alice_is_a_robot_and_may_act() -> bool:
        snapshot = await alice.snapshot()
        return snapshot.table.seats[0].robot and bool(snapshot.legal_actions)

    await until(alice_is_a_robot_and_may_act)
    events = alice.events()
    handed_over = next(e for e in events if e.kind == "seat_changed")
    automatic = [e for e in events if e.sequence < handed_over.sequence and e.actor == 0]
    draws = [e for e in automatic if e.kind == "drew"]
    assert len(draws) == 3, "three automatic moves, each a draw from the stock..."
    assert all(e.data["from"] == "stock" for e in draws)
    assert [e.kind for e in automatic if e.kind in ("discarded", "replaced", "matched")].count("discarded") == 3

    await alice.act({"type": "draw", "from": "stock"})
    snapshot = await alice.snapshot()
    assert not snapshot.table.seats[0].robot, "the player is back: the robot gives the seat back"
    assert snapshot.table.seats[1].robot, "bob never acted: a robot plays for him"
    await alice.stop()
    await bob.stop()
    assert snapshot.table.status == table_pb2.TABLE_STATUS_PLAYING
