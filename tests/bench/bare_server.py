"""A bare grpc.aio fan-out server: the same TableService wire, no rules, no storage, no auth.

The benchmark's yardstick: what plain Python gRPC does with the same load, so that the table
service's figures can be read as ratios to it. ``--naive`` uses grpc's default server options, to
show what they cost when thousands of streams open at once.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os

import grpc
from cardroom.table.v1 import table_pb2, table_pb2_grpc
from google.protobuf import struct_pb2

from shared.server import SERVER_OPTIONS


class BareTable:
    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.mover = 0
        self.sequence = 0
        self.watchers: list[asyncio.Queue[bytes]] = []

    def emit(self, kind: str, actor: int, **data: int) -> None:
        self.sequence += 1
        fields = struct_pb2.Struct()
        fields.update(data)
        wire = table_pb2.WatchResponse(
            event=table_pb2.TableEvent(sequence=self.sequence, kind=kind, data=fields, actor=actor)
        ).SerializeToString()
        for queue in self.watchers:
            queue.put_nowait(wire)


class BareServicer(table_pb2_grpc.TableServiceServicer):
    def __init__(self) -> None:
        self.tables: dict[str, BareTable] = {}
        self.ids = itertools.count()

    async def CreateTable(self, request, context):  # type: ignore[no-untyped-def]
        table_id = f"bare-{next(self.ids)}"
        self.tables[table_id] = BareTable(len(request.seats))
        tokens = [table_pb2.SeatToken(seat=i, token=f"{table_id}/{i}") for i in range(len(request.seats))]
        return table_pb2.CreateTableResponse(table=table_pb2.TableInfo(table_id=table_id), seat_tokens=tokens)

    async def Watch(self, request, context):  # type: ignore[no-untyped-def]
        table = self.tables[request.table_id]
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        table.watchers.append(queue)
        view = struct_pb2.Struct()
        view.update({"turn": table.mover})
        try:
            yield table_pb2.WatchResponse(snapshot=table_pb2.Snapshot(sequence=table.sequence, view=view))
            while True:
                yield await queue.get()
        finally:
            table.watchers.remove(queue)

    async def Act(self, request, context):  # type: ignore[no-untyped-def]
        table = self.tables[request.table_id]
        seat = int(request.seat_token.rsplit("/", 1)[1])
        if request.action.HasField("draw"):
            table.emit("drew", seat, seat=seat)
        else:
            table.emit("discarded", seat, seat=seat)
            table.mover = (seat + 1) % table.seats
            table.emit("turn_started", -1, seat=table.mover)
        return table_pb2.ActResponse(sequence=table.sequence)


def _serialize(message: object) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()  # type: ignore[attr-defined]


async def serve(port: int, naive: bool) -> None:
    server = grpc.aio.server(options=[] if naive else SERVER_OPTIONS)
    servicer = BareServicer()
    generic = grpc.method_handlers_generic_handler(
        "cardroom.table.v1.TableService",
        {
            "CreateTable": grpc.unary_unary_rpc_method_handler(
                servicer.CreateTable, table_pb2.CreateTableRequest.FromString, _serialize
            ),
            "Watch": grpc.unary_stream_rpc_method_handler(servicer.Watch, table_pb2.WatchRequest.FromString, _serialize),
            "Act": grpc.unary_unary_rpc_method_handler(servicer.Act, table_pb2.ActRequest.FromString, _serialize),
        },
    )
    server.add_generic_rpc_handlers((generic,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--naive", action="store_true")
    args = parser.parse_args()
    if os.environ.get("CARDROOM_BENCH_UVLOOP", "1") == "1":
        import uvloop

        uvloop.run(serve(args.port, args.naive))
    else:
        asyncio.run(serve(args.port, args.naive))


if __name__ == "__main__":
    main()
