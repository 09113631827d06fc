"""A seat's connection to its table: watch with resume, act idempotently, survive restarts.

Watch: the stream is opened once and reopened whenever it breaks (UNAVAILABLE, or it simply ends,
which a draining or overflowed server does on purpose), after an exponential backoff (0.2 s
doubling to 5 s); before reopening, matchmaking's ``LocateTable`` says where the table is hosted now
(a new shard may have adopted it) and hands a fresh seat token. The stream resumes with
``after_sequence`` = the last sequence received, so nothing is missed or repeated.

The very first watch asks to resume after sequence 1 rather than from a fresh Snapshot: the deal
(sequence 1) is in the view anyway, and this way the private reveals made at the deal (Four Down's
first look) are delivered to a client that connects within the table's reveal window. When the
table has nothing after sequence 1 yet, the server answers with a Snapshot as usual.

Act: each action gets a fresh ``client_action_id``; a call lost on the way (UNAVAILABLE,
DEADLINE_EXCEEDED) is retried with the same id, so the table applies it at most once.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import AsyncIterator, Awaitable, Callable

import grpc
from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from cardroom.table.v1 import table_pb2, table_pb2_grpc

from shared.errors import error_info

log = logging.getLogger(__name__)

BACKOFF_FIRST = 0.2  # seconds: a restarted shard is usually back within a fraction of a second
BACKOFF_LIMIT = 5.0  # seconds: a phone-friendly ceiling; a person notices longer gaps
FIRST_WATCH_AFTER = 1  # see the module docstring: catch the deal's private reveals
ACT_ATTEMPTS = 5  # tries of one action before the client gives up and tells the player
CALL_TIMEOUT = 10.0  # seconds for unary calls; a healthy table answers in milliseconds
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
TOKEN_REASONS = frozenset({"TOKEN_EXPIRED", "TOKEN_MISSING"})
# Refusals that mean "you are talking to the wrong place": ask matchmaking where the table is.
RELOCATE_REASONS = frozenset({"WRONG_SHARD", "DRAINING", "NOT_FOUND", "UNAVAILABLE"})

Metadata = Callable[[], Awaitable[list[tuple[str, str]]]]


class Backoff:
    """Exponential backoff: 0.2 s, 0.4 s, ... up to 5 s; reset after a good stream message."""

    def __init__(self, first: float = BACKOFF_FIRST, limit: float = BACKOFF_LIMIT) -> None:
        self.first = first
        self.limit = limit
        self.current = first

    def next(self) -> float:
        delay = self.current
        self.current = min(self.limit, self.current * 2)
        return delay

    def reset(self) -> None:
        self.current = self.first


def reason_of(error: grpc.RpcError) -> str:
    """The ErrorInfo reason of a refused call ("" when there is none)."""
    try:
        info = error_info(error)
    except Exception:  # noqa: BLE001 - a malformed status has no reason, which is an answer too
        return ""
    return info.reason if info is not None else ""


class TableConnection:
    """One seat at one table: ``updates()`` streams it, ``act()`` plays, ``view()`` looks."""

    def __init__(
        self,
        seated: matchmaking_pb2.Seated,
        metadata: Metadata,
        matchmaking: matchmaking_pb2_grpc.MatchmakingServiceStub | None,
        *,
        channel_factory: Callable[[str], grpc.aio.Channel] = grpc.aio.insecure_channel,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.seated = seated
        self.metadata = metadata
        self.matchmaking = matchmaking
        self.channel_factory = channel_factory
        self.sleep = sleep
        self.last_sequence = 0
        self.backoff = Backoff()
        self.reconnects = 0
        self._channel = channel_factory(seated.table_address)
        self._stub = table_pb2_grpc.TableServiceStub(self._channel)

    @property
    def seat(self) -> int:
        return self.seated.seat

    async def updates(self) -> AsyncIterator[table_pb2.WatchResponse]:
        """Every message of the seat's Watch stream, reconnecting and resuming for ever."""
        after = FIRST_WATCH_AFTER
        while True:
            call = self._stub.Watch(
                table_pb2.WatchRequest(table_id=self.seated.table_id, seat_token=self.seated.seat_token, after_sequence=after),
                metadata=await self.metadata(),
            )
            try:
                async for message in call:
                    self.backoff.reset()
                    if message.HasField("event"):
                        self.last_sequence = max(self.last_sequence, message.event.sequence)
                    else:
                        self.last_sequence = message.snapshot.sequence
                    yield message
                log.info("watch stream ended; resuming after %d", self.last_sequence)
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRYABLE and reason_of(error) not in RELOCATE_REASONS | TOKEN_REASONS:
                    if error.code() != grpc.StatusCode.CANCELLED:
                        raise
                log.info("watch stream broke (%s); resuming after %d", error.code().name, self.last_sequence)
            finally:
                call.cancel()
            after = self.last_sequence
            self.reconnects += 1
            await self.sleep(self.backoff.next())
            await self.relocate()

    async def relocate(self) -> None:
        """Ask matchmaking where the table is now; keep the old address when matchmaking is down too."""
        if self.matchmaking is None:
            return
        try:
            answer = await self.matchmaking.LocateTable(
                matchmaking_pb2.LocateTableRequest(table_id=self.seated.table_id), metadata=await self.metadata(), timeout=CALL_TIMEOUT
            )
        except grpc.aio.AioRpcError as error:
            log.info("LocateTable failed (%s); trying the last known address", error.code().name)
            return
        if answer.seated.table_address != self.seated.table_address:
            await self._channel.close()
            self._channel = self.channel_factory(answer.seated.table_address)
            self._stub = table_pb2_grpc.TableServiceStub(self._channel)
        self.seated = answer.seated

    async def act(self, action: table_pb2.Action) -> table_pb2.ActResponse:
        """Play ``action``; a lost call is retried with the same client action id. Refusals raise."""
        action_id = uuid.uuid4().hex
        backoff = Backoff()
        attempt = 1
        while True:
            try:
                return await self._act_once(action, action_id)
            except grpc.aio.AioRpcError as error:
                retry = error.code() in RETRYABLE or reason_of(error) in RELOCATE_REASONS - {"NOT_FOUND"}
                if not retry or attempt >= ACT_ATTEMPTS:
                    raise
                log.info("act failed (%s); retrying with the same action id", error.code().name)
            attempt += 1
            await self.sleep(backoff.next())
            await self.relocate()

    async def _act_once(self, action: table_pb2.Action, action_id: str) -> table_pb2.ActResponse:
        return await self._stub.Act(
            table_pb2.ActRequest(
                table_id=self.seated.table_id,
                seat_token=self.seated.seat_token,
                client_action_id=action_id,
                action=action,
            ),
            metadata=await self.metadata(),
            timeout=CALL_TIMEOUT,
        )

    async def view(self) -> table_pb2.Snapshot:
        """A fresh Snapshot of the seat, with its legal actions."""
        answer = await self._stub.GetView(
            table_pb2.GetViewRequest(table_id=self.seated.table_id, seat_token=self.seated.seat_token),
            metadata=await self.metadata(),
            timeout=CALL_TIMEOUT,
        )
        return answer.snapshot

    async def close(self) -> None:
        await self._channel.close()
