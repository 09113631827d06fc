"""A phone that gives up on a call mid-commit (its deadline passes, the network drops) leaves the
table whole: the action it sent is either fully played or not at all, and the table goes on.

The store's writer is held shut while the call is in flight, so the call is cancelled exactly
between "handed to the log" and "announced".
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import Any, AsyncIterator

import grpc
import pytest
from cardroom.table.v1 import table_pb2

from services.table import app as table_app
from services.table.actions import to_wire
from services.table.app import create_server
from services.table.store import TableStore
from tests.services.table.test_table_service import NO_CLOCK
from tests.support.servers import settings_for
from tests.support.table_client import SeatClient, create_table

WAIT = 15.0


class GatedStore(TableStore):
    """The real store, whose writer waits at ``gate`` before each commit."""

    gate = threading.Event()

    def _commit(self, batches: list[Any]) -> None:
        self.gate.wait(timeout=WAIT)
        super()._commit(batches)


@pytest.fixture
async def gated_table_server(database_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[grpc.aio.Channel]:
    GatedStore.gate.set()
    monkeypatch.setattr(table_app, "TableStore", GatedStore)
    app, _host = await create_server(settings_for("table", database_url), shard="gated-shard")
    port = await app.start("127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    yield channel
    GatedStore.gate.set()
    await channel.close()
    await app.stop(0)


async def test_an_action_whose_caller_gave_up_mid_commit_is_played_once_and_the_table_goes_on(
    gated_table_server: grpc.aio.Channel,
) -> None:
    created = await create_table(gated_table_server, "four_down", ["alice", "bob"], NO_CLOCK)
    alice = SeatClient(gated_table_server, created.table.table_id, "alice", created.seat_tokens[0].token)
    alice.watch()
    before = await alice.wait_for_snapshot()

    GatedStore.gate.clear()
    draw = table_pb2.ActRequest(
        table_id=alice.table_id, seat_token=alice.seat_token, client_action_id=uuid.uuid4().hex, action=to_wire({"type": "draw", "from": "stock"})
    )
    with pytest.raises(grpc.aio.AioRpcError) as gave_up:
        await alice.stub.Act(draw, metadata=alice.metadata, timeout=0.5)
    assert gave_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    GatedStore.gate.set()

    await alice.wait_for(before.sequence + 1, timeout=WAIT)
    retried = await alice.stub.Act(draw, metadata=alice.metadata)
    assert retried.replayed, "the action was played once; its retry is answered, not played again"
    drawn = [event for event in alice.events() if event.kind == "drew"]
    assert len(drawn) == 1

    await alice.act({"type": "discard"})  # the table accepts the next input: its log and memory agree
    assert [event.kind for event in alice.events()].count("discarded") == 1
    await asyncio.wait_for(alice.stop(), WAIT)
