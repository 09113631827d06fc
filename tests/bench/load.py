"""Scripted table clients: N four-seat tables, four Watch streams each, one action per table every
``--interval`` seconds (a human pace), over real gRPC. Prints one JSON line of results.

Each table's seat to move draws from the stock, then discards, one action per interval. For every
action the client notes when it was sent and when each of the four streams received the public
event it caused; the latency of an action is the slowest seat's. Run it in its own process, on
its own core, apart from the server it measures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
import uuid
from dataclasses import dataclass, field

import grpc
from cardroom.table.v1 import table_pb2, table_pb2_grpc
from google.protobuf.json_format import MessageToDict

from shared.auth import TokenIssuer

SEATS = 4
TABLES_PER_CHANNEL = 25  # ~100 streams per connection: phones each have their own; we approximate
OPEN_TIMEOUT = 120.0


@dataclass
class Pending:
    sent: float
    kind: str
    seat: int
    received: dict[int, float] = field(default_factory=dict)


@dataclass
class Table:
    table_id: str
    tokens: list[str]
    players: list[str]
    stubs: list[table_pb2_grpc.TableServiceStub]
    mover: int = 0
    drawn: bool = False
    pending: Pending | None = None
    done: list[Pending] = field(default_factory=list)
    opened: int = 0


class Load:
    def __init__(self, target: str, tables: int, secret: str) -> None:
        self.target = target
        self.count = tables
        self.issuer = TokenIssuer(secret)
        options = [("grpc.use_local_subchannel_pool", 1), ("grpc.max_receive_message_length", 8 << 20)]
        self.channels = [grpc.aio.insecure_channel(target, options=options) for _ in range(max(1, tables // TABLES_PER_CHANNEL))]
        self.tables: list[Table] = []
        self.stream_failures: dict[str, int] = {}
        self.act_failures: dict[str, int] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.measuring = False
        self.snapshots = 0
        self._metadata: dict[tuple[str, str], list[tuple[str, str]]] = {}

    def metadata(self, subject: str, kind: str) -> list[tuple[str, str]]:
        key = (subject, kind)
        if key not in self._metadata:
            token = self.issuer.service("bench").token if kind == "service" else self.issuer.access(subject).token
            self._metadata[key] = [("authorization", f"Bearer {token}")]
        return self._metadata[key]

    async def create(self, index: int) -> None:
        stub = table_pb2_grpc.TableServiceStub(self.channels[index % len(self.channels)])
        run = uuid.uuid4().hex[:8]
        players = [f"bench-{run}-{index}-{seat}" for seat in range(SEATS)]
        request = table_pb2.CreateTableRequest(
            game="four_down", seats=[table_pb2.SeatAssignment(player_id=p, display_name=p) for p in players], seed=index
        )
        request.options.update({"turn_seconds": 0})
        answer = await stub.CreateTable(request, metadata=self.metadata("bench", "service"))
        tokens = [t.token for t in sorted(answer.seat_tokens, key=lambda t: t.seat)]
        self.tables.append(Table(answer.table.table_id, tokens, players, [stub] * SEATS))

    async def watch(self, table: Table, seat: int, opened: asyncio.Event) -> None:
        call = table.stubs[seat].Watch(
            table_pb2.WatchRequest(table_id=table.table_id, seat_token=table.tokens[seat]),
            metadata=self.metadata(table.players[seat], "access"),
        )
        try:
            async for message in call:
                now = time.perf_counter()
                if message.HasField("snapshot"):
                    self.snapshots += 1
                    if seat == 0:
                        view = MessageToDict(message.snapshot.view)
                        table.mover = int(view.get("turn") or 0)
                    table.opened += 1
                    if self.snapshots == len(self.tables) * SEATS:
                        opened.set()
                    continue
                self.observe(table, seat, message.event, now)
        except grpc.aio.AioRpcError as error:
            key = error.code().name
            self.stream_failures[key] = self.stream_failures.get(key, 0) + 1
        except asyncio.CancelledError:
            call.cancel()

    def observe(self, table: Table, seat: int, event: table_pb2.TableEvent, now: float) -> None:
        pending = table.pending
        if pending and event.kind == pending.kind and event.actor == pending.seat and seat not in pending.received:
            pending.received[seat] = now
            if len(pending.received) == SEATS:
                table.done.append(pending)
                table.pending = None
        if seat != 0:
            return
        if event.kind == "turn_started":
            table.mover = int(event.data.fields["seat"].number_value)
            table.drawn = False
        elif event.kind == "round_started":
            table.mover = int(event.data.fields["starter"].number_value)
            table.drawn = False
        elif event.kind == "drew" and event.actor == table.mover:
            table.drawn = True

    async def drive(self, table: Table, interval: float, rng: random.Random) -> None:
        await asyncio.sleep(rng.uniform(0, interval))
        while True:
            started = time.perf_counter()
            if table.pending is not None and self.measuring:
                table.done.append(table.pending)  # never completed: counted as undelivered
            seat = table.mover
            kind = "discarded" if table.drawn else "drew"
            action = table_pb2.Action()
            if table.drawn:
                action.discard.SetInParent()
            else:
                action.draw.source = table_pb2.DRAW_SOURCE_STOCK
            table.pending = Pending(time.perf_counter(), kind, seat) if self.measuring else None
            try:
                await table.stubs[seat].Act(
                    table_pb2.ActRequest(table_id=table.table_id, seat_token=table.tokens[seat], client_action_id=uuid.uuid4().hex, action=action),
                    metadata=self.metadata(table.players[seat], "access"),
                )
            except grpc.aio.AioRpcError as error:
                key = error.code().name
                self.act_failures[key] = self.act_failures.get(key, 0) + 1
                table.pending = None
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - started)))

    async def run(self, duration: float, interval: float, warmup: float) -> dict[str, object]:
        for start in range(0, self.count, 50):
            await asyncio.gather(*(self.create(i) for i in range(start, min(self.count, start + 50))))
        opened = asyncio.Event()
        open_started = time.perf_counter()
        for table in self.tables:
            for seat in range(SEATS):
                self.tasks.append(asyncio.create_task(self.watch(table, seat, opened)))
        try:
            await asyncio.wait_for(opened.wait(), OPEN_TIMEOUT)
        except asyncio.TimeoutError:
            pass
        open_seconds = time.perf_counter() - open_started
        rng = random.Random(1)
        drivers = [asyncio.create_task(self.drive(t, interval, rng)) for t in self.tables]
        await asyncio.sleep(warmup)
        self.measuring = True
        await asyncio.sleep(duration)
        self.measuring = False
        await asyncio.sleep(interval * 1.5)  # let the last measured actions arrive
        for task in drivers + self.tasks:
            task.cancel()
        await asyncio.gather(*drivers, *self.tasks, return_exceptions=True)
        for channel in self.channels:
            await channel.close()
        return self.report(open_seconds)

    def report(self, open_seconds: float) -> dict[str, object]:
        actions = [p for t in self.tables for p in t.done]
        expected = len(actions) * SEATS
        delivered = sum(len(p.received) for p in actions)
        complete = [max(p.received.values()) - p.sent for p in actions if len(p.received) == SEATS]
        complete.sort()

        def pct(q: float) -> float:
            return round(1000 * complete[min(len(complete) - 1, int(q * len(complete)))], 2) if complete else float("nan")

        return {
            "tables": self.count,
            "streams": self.count * SEATS,
            "streams_opened": self.snapshots,
            "stream_failures": self.stream_failures,
            "open_seconds": round(open_seconds, 2),
            "actions": len(actions),
            "act_failures": self.act_failures,
            "delivered_share": round(delivered / expected, 5) if expected else 0.0,
            "p50_ms": pct(0.50),
            "p99_ms": pct(0.99),
            "max_ms": round(1000 * complete[-1], 2) if complete else float("nan"),
            "mean_ms": round(1000 * statistics.fmean(complete), 2) if complete else float("nan"),
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--secret", default=os.environ.get("CARDROOM_JWT_SECRET", ""))
    args = parser.parse_args()

    async def go() -> dict[str, object]:
        return await Load(args.target, args.tables, args.secret).run(args.duration, args.interval, args.warmup)

    import uvloop

    print(json.dumps(uvloop.run(go())))


if __name__ == "__main__":
    main()
