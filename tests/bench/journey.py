"""Throughput of the player journey's services: matchmaking seating 2,000 queued players, and
rating recording results. Each service runs as its own process; the load comes from this one."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator

import grpc
from cardroom.common.v1 import common_pb2
from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc

from sqlalchemy import create_engine, text

from shared.auth import TokenIssuer
from shared.db import normalise_url
from tests.support.processes import ROOT, free_port, wait_serving

PLAYERS = 2000
RESULTS = 2000
CONCURRENCY = 64  # results in flight at once: many table shards reporting together


def start(name: str, env: dict[str, str], data: Path, secret: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    full = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CARDROOM_JWT_SECRET": secret,
        f"CARDROOM_{name.upper()}_PORT": str(port),
        f"CARDROOM_{name.upper()}_METRICS_PORT": "0",
        f"CARDROOM_{name.upper()}_DATABASE_URL": env.pop("DATABASE", f"sqlite:///{data / (name + '.sqlite3')}"),
        **env,
    }
    process = subprocess.Popen([sys.executable, "-m", f"services.{name}.app"], cwd=ROOT, env=full,
                               stdout=subprocess.DEVNULL, stderr=open(data / f"{name}.log", "ab"))
    wait_serving(f"127.0.0.1:{port}")
    return process, f"127.0.0.1:{port}"


async def seat_players(address: str, issuer: TokenIssuer, players: int) -> dict[str, float]:
    """``players`` join a casual two-seat four_down queue at once; time until every one is seated."""
    channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(20)]
    seated_at: list[float] = []
    failures = 0

    async def join(index: int) -> None:
        nonlocal failures
        stub = matchmaking_pb2_grpc.MatchmakingServiceStub(channels[index % len(channels)])
        token = issuer.access(f"mm-bench-{uuid.uuid4().hex[:8]}-{index}").token
        request = matchmaking_pb2.JoinQueueRequest(game="four_down", seats=2, kind=common_pb2.MATCH_KIND_CASUAL)
        try:
            async for message in stub.JoinQueue(request, metadata=[("authorization", f"Bearer {token}")]):
                if message.HasField("seated"):
                    seated_at.append(time.perf_counter())
                    return
        except grpc.aio.AioRpcError:
            failures += 1

    started = time.perf_counter()
    await asyncio.gather(*(join(i) for i in range(players)))
    for channel in channels:
        await channel.close()
    elapsed = (max(seated_at) - started) if seated_at else float("nan")
    return {"players": players, "seated": len(seated_at), "failures": failures, "seconds": elapsed,
            "seated_per_second": len(seated_at) / elapsed if seated_at else 0.0}


def result_request(index: int, run: str) -> rating_pb2.RecordMatchResultRequest:
    a, b = f"rb-{run}-{index % 400}", f"rb-{run}-{(index * 7 + 1) % 400}"
    if a == b:
        b += "x"
    return rating_pb2.RecordMatchResultRequest(
        match_id=f"{run}-{index}",
        game="four_down",
        kind=common_pb2.MATCH_KIND_RANKED,
        participants=[
            rating_pb2.Participant(player_id=a, seat=0, team=0, outcome=common_pb2.OUTCOME_WIN, total=40, round_scores=[10, 30]),
            rating_pb2.Participant(player_id=b, seat=1, team=1, outcome=common_pb2.OUTCOME_LOSS, total=101, round_scores=[50, 51]),
        ],
        rounds=2,
    )


async def record_results(address: str, issuer: TokenIssuer, results: int) -> dict[str, float]:
    run = uuid.uuid4().hex[:8]
    metadata = [("authorization", f"Bearer {issuer.service('bench').token}")]
    async with grpc.aio.insecure_channel(address) as channel:
        stub = rating_pb2_grpc.RatingServiceStub(channel)
        queue: asyncio.Queue[int] = asyncio.Queue()
        for index in range(results):
            queue.put_nowait(index)
        latencies: list[float] = []

        async def worker() -> None:
            while not queue.empty():
                index = queue.get_nowait()
                sent = time.perf_counter()
                await stub.RecordMatchResult(result_request(index, run), metadata=metadata)
                latencies.append(time.perf_counter() - sent)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        elapsed = time.perf_counter() - started
    latencies.sort()
    return {"results": results, "seconds": elapsed, "per_second": results / elapsed,
            "p50_ms": 1000 * latencies[len(latencies) // 2], "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)]}


@contextlib.contextmanager
def scratch_database(server_url: str) -> Iterator[str]:
    """A fresh PostgreSQL database on the server of ``server_url``, dropped afterwards."""
    name = f"cardroom_bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(normalise_url(server_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield f"{normalise_url(server_url).rpartition('/')[0]}/{name}"
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def measure(data: Path, secret: str, database_url: str | None = None) -> dict[str, dict[str, float]]:
    issuer = TokenIssuer(secret)
    processes = []
    try:
        rating, rating_address = start("rating", {}, data, secret)
        table, table_address = start("table", {"CARDROOM_RATING_ADDRESS": rating_address, "CARDROOM_SHARD_ID": "journey"}, data, secret)
        matchmaking, mm_address = start(
            "matchmaking", {"CARDROOM_TABLE_ADDRESS": table_address, "CARDROOM_RATING_ADDRESS": rating_address}, data, secret
        )
        processes += [rating, table, matchmaking]
        figures = {"matchmaking": asyncio.run(seat_players(mm_address, issuer, PLAYERS)),
                   "rating_sqlite": asyncio.run(record_results(rating_address, issuer, RESULTS))}
        if database_url:
            with scratch_database(database_url) as url:
                postgres, pg_address = start("rating", {"DATABASE": url}, data, secret)
                processes.append(postgres)
                figures["rating_postgres"] = asyncio.run(record_results(pg_address, issuer, RESULTS))
                postgres.terminate()
                postgres.wait(timeout=30)
        return figures
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)
