"""A test client of the table service: one seat (or a spectator) over a real gRPC channel."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
from cardroom.table.v1 import table_pb2, table_pb2_grpc
from google.protobuf.json_format import MessageToDict

from services.table.actions import to_wire
from tests.support.servers import player_metadata, service_metadata


async def create_table(channel: grpc.aio.Channel, game: str, players: list[str | None], options: dict[str, Any] | None = None, seed: int = 7) -> table_pb2.CreateTableResponse:
    """Open a table with service credentials; ``None`` in ``players`` is a robot seat."""
    stub = table_pb2_grpc.TableServiceStub(channel)
    request = table_pb2.CreateTableRequest(
        game=game,
        seats=[table_pb2.SeatAssignment(player_id=p or "", robot=p is None, display_name=p or "Robot") for p in players],
        seed=seed,
    )
    request.options.update(options or {})
    return await stub.CreateTable(request, metadata=service_metadata())


class SeatClient:
    """Watches a table as one seat and acts for it; keeps everything the stream delivered."""

    def __init__(self, channel: grpc.aio.Channel, table_id: str, player_id: str, seat_token: str = "") -> None:
        self.stub = table_pb2_grpc.TableServiceStub(channel)
        self.table_id = table_id
        self.player_id = player_id
        self.seat_token = seat_token
        self.metadata = player_metadata(player_id)
        self.messages: list[table_pb2.WatchResponse] = []
        self.last_sequence = 0
        self._task: asyncio.Task[None] | None = None
        self.stream_error: grpc.RpcError | None = None
        self.order_error: AssertionError | None = None
        self.updated = asyncio.Event()

    def watch(self, after_sequence: int = 0) -> None:
        self._task = asyncio.create_task(self._watch(after_sequence))

    async def _watch(self, after_sequence: int) -> None:
        call = self.stub.Watch(
            table_pb2.WatchRequest(table_id=self.table_id, seat_token=self.seat_token, after_sequence=after_sequence),
            metadata=self.metadata,
        )
        try:
            async for message in call:
                self.messages.append(message)
                if message.HasField("event"):
                    assert message.event.sequence > self.last_sequence, "events arrive in order, once"
                    self.last_sequence = message.event.sequence
                else:
                    self.last_sequence = message.snapshot.sequence
                self.updated.set()
        except grpc.RpcError as error:
            self.stream_error = error
        except AssertionError as error:
            self.order_error = error
            self.updated.set()
        except asyncio.CancelledError:
            call.cancel()
            raise

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self.order_error:
            raise self.order_error

    async def wait_for(self, sequence: int, timeout: float = 10.0) -> None:
        async def reached() -> None:
            while self.last_sequence < sequence:
                if self.order_error:
                    raise self.order_error
                self.updated.clear()
                await self.updated.wait()

        await asyncio.wait_for(reached(), timeout)

    async def wait_for_snapshot(self, timeout: float = 10.0) -> table_pb2.Snapshot:
        """The stream's Snapshot, once it has arrived (a seat's reveals may come before it)."""

        async def arrived() -> table_pb2.Snapshot:
            while True:
                if self.order_error:
                    raise self.order_error
                for message in self.messages:
                    if message.HasField("snapshot"):
                        return message.snapshot
                self.updated.clear()
                await self.updated.wait()

        return await asyncio.wait_for(arrived(), timeout)

    async def act(self, action: dict[str, Any] | table_pb2.Action, client_action_id: str | None = None) -> table_pb2.ActResponse:
        wire = action if isinstance(action, table_pb2.Action) else to_wire(action)
        return await self.stub.Act(
            table_pb2.ActRequest(
                table_id=self.table_id,
                seat_token=self.seat_token,
                client_action_id=client_action_id or uuid.uuid4().hex,
                action=wire,
            ),
            metadata=self.metadata,
        )

    async def snapshot(self) -> table_pb2.Snapshot:
        answer = await self.stub.GetView(table_pb2.GetViewRequest(table_id=self.table_id, seat_token=self.seat_token), metadata=self.metadata)
        return answer.snapshot

    def events(self) -> list[table_pb2.TableEvent]:
        return [m.event for m in self.messages if m.HasField("event")]

    def delivered_json(self) -> list[dict[str, Any]]:
        """Everything this stream delivered, as JSON (for leak checks)."""
        return [MessageToDict(m) for m in self.messages]

