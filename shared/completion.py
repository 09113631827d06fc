"""Work that must finish once begun, whoever stops waiting for it."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, TypeVar

T = TypeVar("T")


async def to_completion(work: Awaitable[T]) -> T:
    """Run ``work`` to its end even if the caller is cancelled.

    gRPC cancels a handler when its client hangs up or its deadline passes, which a phone on a bad
    network does at any moment. A change cut off half-way (stored but not adopted, marked started
    but never opened) would leave a table or a lobby stuck. So a change, once begun, finishes; only
    the caller stops waiting for it."""
    task = asyncio.ensure_future(work)
    task.add_done_callback(_retrieve_outcome)
    return await asyncio.shield(task)


def _retrieve_outcome(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # a refusal nobody waits for any more is not an unhandled error
