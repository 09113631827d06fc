"""``make bench``: engine throughput, then the table server's fan-out under human-paced load,
side by side with a bare grpc.aio fan-out server under the same load. Prints figures and ratios.

Server and load client are separate processes pinned to separate cores (this machine has two).
Figures vary with the machine's other work: read the ratios, and run it twice before believing a
change.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shared.games import registry
from tests.bench import journey, quatro_latency
from tests.bench.engines import actions_per_second
from tests.support.processes import ROOT, free_port, wait_serving

SECRET = "cardroom-bench-secret-0123456789abcdef"
DURATION = float(os.environ.get("BENCH_SECONDS", "20"))
TABLE_COUNTS = [int(n) for n in os.environ.get("BENCH_TABLES", "100,500").split(",")]


def pin(process: subprocess.Popen[bytes], core: int) -> None:
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(process.pid, {core})


def start_server(kind: str, port: int, data: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDROOM_JWT_SECRET": SECRET}
    if kind == "cardroom":
        env.update(
            {
                "CARDROOM_TABLE_PORT": str(port),
                "CARDROOM_TABLE_METRICS_PORT": "0",
                "CARDROOM_TABLE_DATABASE_URL": f"sqlite:///{data / f'bench-{port}.sqlite3'}",
                "CARDROOM_RATING_ADDRESS": "127.0.0.1:9",
                "CARDROOM_SHARD_ID": f"bench-{port}",
                "CARDROOM_LOG_LEVEL": "WARNING",
            }
        )
        command = [sys.executable, "-m", "services.table.app"]
    else:
        command = [sys.executable, "-m", "tests.bench.bare_server", "--port", str(port)] + (["--naive"] if kind == "naive" else [])
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=open(data / f"{kind}-{port}.log", "wb"))
    pin(process, 0)
    if kind == "cardroom":
        wait_serving(f"127.0.0.1:{port}")
    else:
        time.sleep(1.5)
    return process


def run_load(port: int, tables: int) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable, "-m", "tests.bench.load", "--target", f"127.0.0.1:{port}", "--tables", str(tables),
        "--duration", str(DURATION), "--secret", SECRET,
    ]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE)
    pin(process, 1)
    out, _ = process.communicate(timeout=DURATION + 300)
    return json.loads(out.decode().strip().splitlines()[-1])


def measure(kind: str, tables: int, data: Path) -> dict[str, object]:
    port = free_port()
    server = start_server(kind, port, data)
    try:
        return run_load(port, tables)
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"server pinned to core 0, load client to core 1; {DURATION:.0f} s per run\n")
    print("engine throughput (random legal actions, one core, no I/O):")
    for game_id in registry.available():
        rate, matches = actions_per_second(game_id)
        print(f"  {game_id:<10} {rate:>10,.0f} actions/s   ({matches} matches finished)")
    print()
    results: dict[tuple[str, int], dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        for tables in TABLE_COUNTS:
            for kind in ("cardroom", "bare"):
                results[(kind, tables)] = measure(kind, tables, data)
        naive = measure("naive", max(TABLE_COUNTS), data)
    header = f"{'server':<10}{'tables':>7}{'streams':>9}{'opened':>8}{'actions':>9}{'delivered':>11}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
    print("four-seat tables, one action per table every 2 s, latency = action sent -> its event received by all four seats:")
    print(header)
    for (kind, tables), r in sorted(results.items(), key=lambda item: (item[0][1], item[0][0])):
        print(f"{kind:<10}{tables:>7}{r['streams']:>9}{r['streams_opened']:>8}{r['actions']:>9}{r['delivered_share']:>11.2%}"
              f"{r['p50_ms']:>9}{r['p99_ms']:>9}{r['max_ms']:>9}")
    print(f"{'naive':<10}{naive['tables']:>7}{naive['streams']:>9}{naive['streams_opened']:>8}{naive['actions']:>9}"
          f"{naive['delivered_share']:>11.2%}{naive['p50_ms']:>9}{naive['p99_ms']:>9}{naive['max_ms']:>9}"
          f"   stream failures: {naive['stream_failures'] or 'none'}")
    print("\nratios, cardroom / bare grpc.aio (1.00 = as fast as plain gRPC with no rules and no storage):")
    for tables in TABLE_COUNTS:
        ours, bare = results[("cardroom", tables)], results[("bare", tables)]
        p50 = float(ours["p50_ms"]) / float(bare["p50_ms"]) if bare["p50_ms"] else float("nan")
        p99 = float(ours["p99_ms"]) / float(bare["p99_ms"]) if bare["p99_ms"] else float("nan")
        print(f"  {tables} tables: p50 x{p50:.2f}, p99 x{p99:.2f}, delivered {ours['delivered_share']:.2%} vs {bare['delivered_share']:.2%}"
              f"; failures: streams {ours['stream_failures'] or 'none'}, acts {ours['act_failures'] or 'none'}")
    quatro = quatro_latency.measure(tables=100, seconds=DURATION)
    print(f"\nquatro, 100 four-robot tables on one table process ({quatro['streams']} streams, {quatro['exchanges']} exchanges"
          f" in {DURATION:.0f} s): exchange accepted -> seen by all four phones p50 {quatro['p50_ms']} ms,"
          f" p99 {quatro['p99_ms']} ms, max {quatro['max_ms']} ms")
    print("\nthe journey's services (each its own process; load from this one):")
    with tempfile.TemporaryDirectory() as folder:
        figures = journey.measure(Path(folder), SECRET, os.environ.get("DATABASE_URL") if os.environ.get("DATABASE_URL", "").startswith("postgres") else None)
    mm = figures["matchmaking"]
    print(f"  matchmaking: {mm['seated']:.0f} of {mm['players']:.0f} queued players seated in {mm['seconds']:.2f} s"
          f" = {mm['seated_per_second']:,.0f} players/s (two-seat casual four_down; each table opened on the table server)")
    for key, label in (("rating_sqlite", "SQLite"), ("rating_postgres", "PostgreSQL")):
        if key in figures:
            r = figures[key]
            print(f"  rating ({label}): {r['results']:.0f} ranked results in {r['seconds']:.2f} s = {r['per_second']:,.0f} results/s"
                  f" (p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, {journey.CONCURRENCY} in flight)")


if __name__ == "__main__":
    main()
