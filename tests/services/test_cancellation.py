"""Shutting down never hangs on a background loop, and a wait never swallows a cancellation.

Python 3.11's ``asyncio.wait_for`` returns normally when it is cancelled in the same loop turn as
what it waits for finishes (gh-86296). A table clock waiting that way missed its cancellation
whenever the table changed as the server drained, and the drain waited for ever."""

from __future__ import annotations

import asyncio

import pytest

from services.table.app import create_server
from shared.cancellation import within
from tests.support.servers import settings_for

TURN_CLOCK = {"turn_seconds": 45}  # every clock waits with a timeout, as real tables do


async def test_a_wait_cancelled_as_its_event_is_set_is_cancelled() -> None:
    event = asyncio.Event()
    waiting = asyncio.create_task(within(60, event.wait()))
    await asyncio.sleep(0)
    event.set()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting


async def test_a_wait_that_runs_out_raises_timeout_error() -> None:
    with pytest.raises(TimeoutError):
        await within(0.01, asyncio.Event().wait())


async def test_a_table_server_drains_while_its_tables_change(database_url: str) -> None:
    app, host = await create_server(settings_for("table", database_url), shard="draining-shard")
    await app.start("127.0.0.1:0")
    seats = [{"player_id": name, "display_name": name, "robot": False} for name in ("ana", "ben")]
    tables = [(await host.create("", "four_down", TURN_CLOCK, seats, 0, "", seed))[0] for seed in range(8)]
    await asyncio.sleep(0.05)  # every clock is waiting for its table to change
    for table in tables:
        table.changed.set()
    await within(30, host.drain())  # cancels every clock in this same loop turn
    assert all(clock.done() for clock in host.clocks.values())
    await app.stop(0)
