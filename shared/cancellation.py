"""Cancellation done right: work that must finish once begun, and waits that never swallow a cancel."""

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


async def within(seconds: float | None, work: Awaitable[T]) -> T:
    """``work``'s result, or ``TimeoutError`` after ``seconds`` (``None``: no limit).

    Use this, not ``asyncio.wait_for``: on Python 3.11 ``wait_for`` swallows a cancellation that
    arrives in the same loop turn as ``work`` finishes (gh-86296, fixed in 3.12). A background loop
    waiting on an event that way can miss its shutdown and run for ever; it hung a table server's
    drain, and with it a CI run."""
    async with asyncio.timeout(seconds):
        return await work
