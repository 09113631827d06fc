"""Nothing is lost: a table server killed with SIGKILL mid-game comes back with every table intact."""

from __future__ import annotations

import random
from pathlib import Path

import grpc
import pytest
from cardroom.table.v1 import table_pb2

from tests.services.table.test_table_service import NO_CLOCK, play_to_the_end, table_state
from tests.support.processes import ServiceProcess, free_port
from tests.support.table_client import SeatClient, create_table

pytestmark = pytest.mark.slow


def comparable(snapshot: table_pb2.Snapshot) -> table_pb2.Snapshot:
    """What must survive a crash: everything but the clock and who happens to be connected."""
    copy = table_state(snapshot)
    for seat in copy.table.seats:
        seat.connected = False
    return copy


async def test_sigkill_mid_game_loses_nothing_and_every_seat_resumes(database_url: str, tmp_path: Path) -> None:
    server = ServiceProcess(
        "table",
        free_port(),
        {"CARDROOM_TABLE_DATABASE_URL": database_url, "CARDROOM_SHARD_ID": "shard-a", "CARDROOM_RATING_ADDRESS": "127.0.0.1:9"},
        tmp_path / "table.log",
    )
    server.start()
    channel = grpc.aio.insecure_channel(server.address)
    created = await create_table(channel, "four_down", ["alice", "bob"], NO_CLOCK, seed=11)
    table_id = created.table.table_id
    alice = SeatClient(channel, table_id, "alice", created.seat_tokens[0].token)
    bob = SeatClient(channel, table_id, "bob", created.seat_tokens[1].token)
    alice.watch()
    bob.watch()
    rng = random.Random(5)
    for _ in range(25):
        snapshots = [await alice.snapshot(), await bob.snapshot()]
        mover = 0 if snapshots[0].legal_actions else 1
        await (alice, bob)[mover].act(rng.choice(list(snapshots[mover].legal_actions)))
    before = [await alice.snapshot(), await bob.snapshot()]
    await alice.wait_for(before[0].sequence)
    await bob.wait_for(before[1].sequence)

    server.kill()
    await alice.stop()
    await bob.stop()
    server.start()

    after = [await alice.snapshot(), await bob.snapshot()]
    assert [comparable(s) for s in after] == [comparable(s) for s in before], "the game is exactly where it was"
    for client in (alice, bob):
        client.watch(after_sequence=client.last_sequence)
    await play_to_the_end([alice, bob], rng)
    final = await alice.snapshot()
    for client in (alice, bob):
        await client.wait_for(final.sequence)
        await client.stop()
        sequences = [event.sequence for event in client.events()]
        assert sequences == sorted(set(sequences)), "no event twice, none out of order, across the crash"
    assert final.table.status == table_pb2.TABLE_STATUS_FINISHED
    await channel.close()
    assert server.terminate() == 0, "SIGTERM shuts down cleanly"
