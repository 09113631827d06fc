"""Quatro fan-out latency: from an exchange accepted to every phone at its table seeing it.

``measure`` starts the real table server (``services.table.app``, normal speed, SQLite) in its own
process, opens ``tables`` four-seat Quatro tables played by robots only, and watches each with four
spectator streams standing in for the table's four phones (access tokens minted as
``tests/bench/load.py`` does). Every event carries ``at``, the server's wall time of the input that
caused it; for each ``exchanged`` event the client notes, on each of the four streams, arrival wall
time minus ``at``. An exchange's latency is the slowest of its four streams. Server and client run
on the same machine, so they read the same clock.

Limits: an all-robot table has no connected human to be ready, so each round starts only when
QU-4's 30 s run out: measuring begins once the tables are playing (about 30 s after they are
made), and lasts ``seconds``. Robots act at Quatro's own pace (one robot decision per table every
0.5 s), and between rounds the tables rest for QU-11's 30 s, so the exchanges measured come in
bursts. Latency includes the server's storing of each input before its events are sent.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from cardroom.table.v1 import table_pb2, table_pb2_grpc

from shared.auth import TokenIssuer
from tests.support.processes import ROOT, free_port, wait_serving

SECRET = "cardroom-bench-secret-0123456789abcdef"
SEATS = 4  # a four-player Quatro table: four phones watch it
STREAMS_PER_CHANNEL = 100  # about 100 streams per connection, as tests/bench/load.py approximates phones
CREATE_BATCH = 50  # tables opened concurrently at a time, so the server is not flooded at start
PLAY_TIMEOUT = 120.0  # QU-4: the first round starts 30 s after the deal; generous for a loaded machine
DRAIN_SECONDS = 2.0  # after the window, time for the last measured exchanges to reach every stream
SERVER_CORE = 0  # the server gets one core of its own, the client the others (as tests/bench/run.py)


@dataclass
class Exchange:
    """One ``exchanged`` event: the delay from ``at`` to its arrival on each stream that saw it."""

    delays: dict[int, float] = field(default_factory=dict)


@dataclass
class Watchers:
    """The four phones of every table, as spectator Watch streams over real gRPC."""

    target: str
    tables: int
    issuer: TokenIssuer
    channels: list[grpc.aio.Channel] = field(default_factory=list)
    table_ids: list[str] = field(default_factory=list)
    playing: set[str] = field(default_factory=set)
    exchanges: dict[tuple[str, int], Exchange] = field(default_factory=dict)
    window: tuple[float, float] | None = None  # wall-clock bounds of ``at`` for exchanges measured
    streams_opened: int = 0
    stream_failures: dict[str, int] = field(default_factory=dict)
    all_playing: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        count = max(1, self.tables * SEATS // STREAMS_PER_CHANNEL)
        self.channels = [grpc.aio.insecure_channel(self.target) for _ in range(count)]

    def stub(self, index: int) -> table_pb2_grpc.TableServiceStub:
        return table_pb2_grpc.TableServiceStub(self.channels[index % len(self.channels)])

    async def create(self, index: int) -> None:
        request = table_pb2.CreateTableRequest(
            game="quatro",
            seats=[table_pb2.SeatAssignment(robot=True, display_name=f"Robot {seat + 1}") for seat in range(SEATS)],
            seed=index,
        )
        request.options.update({"turn_seconds": 0, "robot_delay": 0})
        metadata = [("authorization", f"Bearer {self.issuer.service('bench').token}")]
        answer = await self.stub(index).CreateTable(request, metadata=metadata)
        self.table_ids.append(answer.table.table_id)

    async def watch(self, table_id: str, phone: int) -> None:
        token = self.issuer.access(f"phone-{uuid.uuid4().hex[:8]}").token
        call = self.stub(phone).Watch(table_pb2.WatchRequest(table_id=table_id), metadata=[("authorization", f"Bearer {token}")])
        try:
            async for message in call:
                arrived = time.time()
                if message.HasField("snapshot"):
                    self.streams_opened += 1
                    continue
                self.observe(table_id, phone % SEATS, message.event, arrived)
        except grpc.aio.AioRpcError as error:
            self.stream_failures[error.code().name] = self.stream_failures.get(error.code().name, 0) + 1
        except asyncio.CancelledError:
            call.cancel()

    def observe(self, table_id: str, phone: int, event: table_pb2.TableEvent, arrived: float) -> None:
        if event.kind == "round_started" and table_id not in self.playing:
            self.playing.add(table_id)
            if len(self.playing) == self.tables:
                self.all_playing.set()
        if event.kind != "exchanged" or self.window is None:
            return
        at = event.at.ToNanoseconds() / 1e9
        if not self.window[0] <= at < self.window[1]:
            return
        self.exchanges.setdefault((table_id, event.sequence), Exchange()).delays[phone] = arrived - at

    async def run(self, seconds: float) -> dict[str, object]:
        for start in range(0, self.tables, CREATE_BATCH):
            await asyncio.gather(*(self.create(i) for i in range(start, min(self.tables, start + CREATE_BATCH))))
        tasks = [
            asyncio.create_task(self.watch(table_id, index * SEATS + seat))
            for index, table_id in enumerate(self.table_ids)
            for seat in range(SEATS)
        ]
        waited = time.perf_counter()
        try:
            await asyncio.wait_for(self.all_playing.wait(), PLAY_TIMEOUT)
        except asyncio.TimeoutError:
            pass  # measure the tables that did start; the report says how many
        waited = time.perf_counter() - waited
        self.window = (time.time(), time.time() + seconds)
        await asyncio.sleep(seconds + DRAIN_SECONDS)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in self.channels:
            await channel.close()
        return self.report(seconds, waited)

    def report(self, seconds: float, waited: float) -> dict[str, object]:
        complete = sorted(max(e.delays.values()) for e in self.exchanges.values() if len(e.delays) == SEATS)

        def ms(value: float) -> float:
            return round(1000 * value, 2)

        def percentile(q: float) -> float:
            return ms(complete[min(len(complete) - 1, int(q * len(complete)))]) if complete else float("nan")

        return {
            "tables": self.tables,
            "tables_playing": len(self.playing),
            "streams": self.tables * SEATS,
            "streams_opened": self.streams_opened,
            "stream_failures": self.stream_failures,
            "waited_for_play_s": round(waited, 1),
            "seconds": seconds,
            "exchanges": len(complete),
            "exchanges_missing_a_stream": len(self.exchanges) - len(complete),
            "p50_ms": percentile(0.50),
            "p99_ms": percentile(0.99),
            "max_ms": ms(complete[-1]) if complete else float("nan"),
            "mean_ms": ms(statistics.fmean(complete)) if complete else float("nan"),
        }


def start_server(port: int, data: Path) -> subprocess.Popen[bytes]:
    """The real table server at normal speed, in its own process (on its own core where possible)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CARDROOM_JWT_SECRET": SECRET,
        "CARDROOM_TABLE_PORT": str(port),
        "CARDROOM_TABLE_METRICS_PORT": "0",
        "CARDROOM_TABLE_DATABASE_URL": f"sqlite:///{data / 'quatro-latency.sqlite3'}",
        "CARDROOM_RATING_ADDRESS": "127.0.0.1:9",
        "CARDROOM_SHARD_ID": f"quatro-latency-{port}",
        "CARDROOM_LOG_LEVEL": "WARNING",
    }
    with open(data / "server.log", "wb") as log:
        command = [sys.executable, "-m", "services.table.app"]
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
    if _cores() > 1:
        os.sched_setaffinity(process.pid, {SERVER_CORE})
    wait_serving(f"127.0.0.1:{port}")
    return process


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1


def _run_client(target: str, tables: int, seconds: float) -> dict[str, object]:
    async def go() -> dict[str, object]:
        return await Watchers(target, tables, TokenIssuer(SECRET)).run(seconds)

    try:
        import uvloop
    except ImportError:
        return asyncio.run(go())
    return uvloop.run(go())


def _run_client_apart(target: str, tables: int, seconds: float) -> dict[str, object]:
    """The load in a process of its own: ``make bench`` goes on in this one with other event loops,
    which grpc.aio's poller would otherwise keep feeding with the finished load's completions."""
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(_run_client, target, tables, seconds).result()


def measure(tables: int = 100, seconds: float = 20.0) -> dict[str, object]:
    """Latency from an exchange accepted to all four phones of its table seeing it: p50/p99/max in
    milliseconds and the count of exchanges measured, with ``tables`` robot tables for ``seconds``."""
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        server = start_server(port, Path(folder))
        own_cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        try:
            if own_cores is not None and len(own_cores) > 1:
                os.sched_setaffinity(0, own_cores - {SERVER_CORE} or own_cores)
            return _run_client_apart(f"127.0.0.1:{port}", tables, seconds)
        finally:
            if own_cores is not None:
                os.sched_setaffinity(0, own_cores)
            server.terminate()
            server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    result = measure(args.tables, args.seconds)
    print(
        f"quatro, {result['tables']} four-robot tables ({result['tables_playing']} playing), "
        f"{result['streams']} spectator streams, "
        f"{result['seconds']:.0f} s: {result['exchanges']} exchanges; exchange accepted -> seen by all four phones: "
        f"p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, max {result['max_ms']} ms"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
