"""TableService over gRPC: converts requests, asks the host and its live tables, converts back."""

from __future__ import annotations

import time
from typing import AsyncIterator

import grpc
from cardroom.common.v1 import common_pb2
from cardroom.table.v1 import table_pb2, table_pb2_grpc
from google.protobuf import timestamp_pb2
from google.protobuf.json_format import MessageToDict

from shared.auth import TokenError, TokenIssuer
from shared.structs import to_struct, whole_numbers
from shared.errors import ServiceError, invalid
from shared.games.base import Json, Rejection
from shared.server import caller, require_service

from services.table import metrics
from services.table.actions import to_engine, to_wire
from services.table.host import TableHost
from services.table.live import ActionIdReused, Encoder, LiveTable, LoggedEvent

CLIENT_ACTION_ID_LIMIT = 128


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


class ProtobufEncoder(Encoder):
    """Each event is serialized once per audience and the same bytes go to every stream."""

    def event(self, table: LiveTable, logged: LoggedEvent, private: bool) -> bytes:
        data = dict(logged.event.data)
        message = table_pb2.WatchResponse(
            event=table_pb2.TableEvent(
                sequence=logged.sequence,
                kind=logged.event.kind,
                data=to_struct(data),
                at=timestamp(table.wall(logged.at)),
                private=private,
                actor=logged.actor,
            )
        )
        return message.SerializeToString()


def table_info(table: LiveTable) -> table_pb2.TableInfo:
    record = table.record
    return table_pb2.TableInfo(
        table_id=table.table_id,
        game=record.game,
        options=to_struct({**table.game_options, **table.options.to_json()}),
        seats=[
            table_pb2.SeatInfo(
                seat=i,
                player_id=s.player_id,
                display_name=s.display_name,
                robot=s.played_by_robot,
                connected=s.streams > 0,
            )
            for i, s in enumerate(table.seats)
        ],
        status=table_pb2.TABLE_STATUS_FINISHED if table.finished else table_pb2.TABLE_STATUS_PLAYING,
        kind=common_pb2.MatchKind.ValueType(record.kind),
        match_id=record.match_id,
        created_at=timestamp(record.created_at),
        turn_seconds=int(table.options.turn_seconds),
    )


def snapshot(table: LiveTable, seat: int | None) -> table_pb2.Snapshot:
    message = table_pb2.Snapshot(
        sequence=table.last_visible(seat),
        table=table_info(table),
        seat=-1 if seat is None else seat,
        view=to_struct(table.seat_view(seat)),
        legal_actions=[to_wire(action) for action in table.legal_actions(seat)],
        server_time=timestamp(time.time()),
    )
    deadline = table.turn_deadline_wall()
    if deadline is not None:
        message.turn_deadline.CopyFrom(timestamp(deadline))
    return message


class TableServicer(table_pb2_grpc.TableServiceServicer):
    def __init__(self, host: TableHost, issuer: TokenIssuer) -> None:
        self.host = host
        self.issuer = issuer

    def _seat(self, table_id: str, seat_token: str, table: LiveTable) -> int:
        """The seat the caller may act and watch as (raises WRONG_SEAT)."""
        try:
            claims = self.issuer.verify(seat_token, "seat")
        except TokenError as error:
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "WRONG_SEAT", "the seat token is not valid") from error
        player = caller()
        if claims.table_id != table_id or claims.subject != player.subject or not 0 <= claims.seat < len(table.seats):
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "WRONG_SEAT", "this seat token is not yours for this table")
        if table.seats[claims.seat].player_id != claims.subject:
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "WRONG_SEAT", "this seat is not yours")
        return claims.seat

    async def _table(self, table_id: str) -> LiveTable:
        if not table_id:
            raise invalid("table_id", "table_id is required")
        return await self.host.get(table_id)

    async def CreateTable(self, request: table_pb2.CreateTableRequest, context: grpc.aio.ServicerContext) -> table_pb2.CreateTableResponse:
        require_service()
        if not request.seats:
            raise invalid("seats", "a table needs seats")
        seats = []
        for index, seat in enumerate(request.seats):
            if not seat.robot and not seat.player_id:
                raise invalid(f"seats[{index}].player_id", "a human seat needs a player id")
            seats.append({"player_id": "" if seat.robot else seat.player_id, "display_name": seat.display_name or f"Seat {index + 1}", "robot": seat.robot})
        options = MessageToDict(request.options) if request.HasField("options") else {}
        table, _ = await self.host.create(
            request.table_id,
            request.game,
            whole_numbers(options),
            seats,
            request.kind or common_pb2.MATCH_KIND_CASUAL,
            request.match_id,
            request.seed if request.HasField("seed") else None,
        )
        tokens = [
            table_pb2.SeatToken(seat=i, player_id=s.player_id, token=self.issuer.seat(s.player_id, table.table_id, i).token)
            for i, s in enumerate(table.seats)
            if not s.robot
        ]
        return table_pb2.CreateTableResponse(table=table_info(table), seat_tokens=tokens)

    # Yields WatchResponses already serialized, once for every stream; shared.server sends bytes as they are.
    async def Watch(  # type: ignore[override]
        self, request: table_pb2.WatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[bytes | table_pb2.WatchResponse]:
        caller()
        table = await self._table(request.table_id)
        seat = self._seat(request.table_id, request.seat_token, table) if request.seat_token else None
        async with table.lock:
            watcher, resend, fresh = table.watch(seat, request.after_sequence)
            first = [table.encode(item, seat) for item in resend]
            if fresh:
                first.append(table_pb2.WatchResponse(snapshot=snapshot(table, seat)).SerializeToString())
        metrics.OPEN_STREAMS.inc()
        if seat is not None:
            await self._connected(table, seat, +1)
        try:
            for wire in first:
                yield wire
            while True:
                item = await watcher.queue.get()
                if item is None:
                    return
                wire, sent_at = item
                yield wire
                metrics.ACTION_DELIVERY.observe(time.perf_counter() - sent_at)
                if watcher.overflowed and watcher.queue.empty():
                    return
        finally:
            table.unwatch(watcher)
            metrics.OPEN_STREAMS.dec()
            if seat is not None:
                await self._connected(table, seat, -1)

    async def _connected(self, table: LiveTable, seat: int, change: int) -> None:
        state = table.seats[seat]
        state.streams += change
        if (change > 0 and state.streams == 1) or (change < 0 and state.streams == 0):
            await table.connection_changed(seat, connected=change > 0)

    async def Act(self, request: table_pb2.ActRequest, context: grpc.aio.ServicerContext) -> table_pb2.ActResponse:
        table = await self._table(request.table_id)
        seat = self._seat(request.table_id, request.seat_token, table)
        if not request.client_action_id or len(request.client_action_id) > CLIENT_ACTION_ID_LIMIT:
            raise invalid("client_action_id", f"client_action_id must be 1 to {CLIENT_ACTION_ID_LIMIT} characters")
        action = to_engine(request.action)
        try:
            sequence, replayed = await table.act(seat, action, request.client_action_id)
        except Rejection as rejection:
            metrics.REJECTIONS.labels(table.record.game, rejection.reason).inc()
            raise
        except ActionIdReused:
            raise ServiceError(
                grpc.StatusCode.ALREADY_EXISTS, "ACTION_ID_REUSED", "this client_action_id was used for another action"
            ) from None
        if not replayed:
            metrics.ACTIONS.labels(table.record.game, "player").inc()
        return table_pb2.ActResponse(sequence=sequence, replayed=replayed)

    async def GetView(self, request: table_pb2.GetViewRequest, context: grpc.aio.ServicerContext) -> table_pb2.GetViewResponse:
        caller()
        table = await self._table(request.table_id)
        seat = self._seat(request.table_id, request.seat_token, table) if request.seat_token else None
        async with table.lock:
            return table_pb2.GetViewResponse(snapshot=snapshot(table, seat))

    async def Leave(self, request: table_pb2.LeaveRequest, context: grpc.aio.ServicerContext) -> table_pb2.LeaveResponse:
        table = await self._table(request.table_id)
        seat = self._seat(request.table_id, request.seat_token, table)
        await table.leave(seat)
        return table_pb2.LeaveResponse()

    async def GetTable(self, request: table_pb2.GetTableRequest, context: grpc.aio.ServicerContext) -> table_pb2.GetTableResponse:
        caller()
        table = await self._table(request.table_id)
        return table_pb2.GetTableResponse(table=table_info(table))
