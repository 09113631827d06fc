"""What every cardroom server offers: health, reflection, Prometheus metrics, clean SIGTERM."""

from __future__ import annotations

import asyncio
import urllib.request
from pathlib import Path
from typing import Any, Awaitable, Callable

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from prometheus_client.parser import text_string_to_metric_families

from services.matchmaking.app import create_server as create_matchmaking
from services.profile.app import create_server as create_profile
from services.rating.app import create_server as create_rating
from services.table.app import create_server as create_table
from tests.support.processes import ServiceProcess, free_port
from tests.support.servers import settings_for
from tests.support.table_client import SeatClient, create_table as open_table


async def _table(url: str) -> Any:
    app, _ = await create_table(settings_for("table", url), shard="every-server")
    return app


SERVERS: dict[str, tuple[Callable[[str], Awaitable[Any]], str]] = {
    "profile": (lambda url: create_profile(settings_for("profile", url)), "cardroom.profile.v1.ProfileService"),
    "rating": (lambda url: create_rating(settings_for("rating", url)), "cardroom.rating.v1.RatingService"),
    "table": (_table, "cardroom.table.v1.TableService"),
    "matchmaking": (lambda url: create_matchmaking(settings_for("matchmaking", url)), "cardroom.matchmaking.v1.MatchmakingService"),
}


@pytest.mark.parametrize("name", sorted(SERVERS))
async def test_each_server_answers_health_and_reflection(name: str, tmp_path: Path) -> None:
    factory, service = SERVERS[name]
    app = await factory(f"sqlite:///{tmp_path / name}.sqlite3")
    port = await app.start("127.0.0.1:0")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for target in ("", service):
            answer = await health.Check(health_pb2.HealthCheckRequest(service=target))
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
    with grpc.insecure_channel(f"127.0.0.1:{port}") as sync_channel:
        services = await asyncio.to_thread(lambda: ProtoReflectionDescriptorDatabase(sync_channel).get_services())
    assert service in services
    assert "grpc.health.v1.Health" in services
    await app.stop(0)


def scrape(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    return {family.name: family for family in text_string_to_metric_families(text)}


@pytest.mark.slow
async def test_the_table_server_exposes_prometheus_metrics_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    metrics_port = free_port()
    server = ServiceProcess(
        "table",
        free_port(),
        {
            "CARDROOM_TABLE_DATABASE_URL": f"sqlite:///{tmp_path / 'table.sqlite3'}",
            "CARDROOM_TABLE_METRICS_PORT": str(metrics_port),
            "CARDROOM_RATING_ADDRESS": "127.0.0.1:9",
        },
        tmp_path / "table.log",
    )
    server.start()
    async with grpc.aio.insecure_channel(server.address) as channel:
        created = await open_table(channel, "four_down", ["alice", "bob"], {"turn_seconds": 0})
        alice = SeatClient(channel, created.table.table_id, "alice", created.seat_tokens[0].token)
        alice.watch()
        await alice.wait_for(1)
        await alice.act({"type": "draw", "from": "stock"})
        answer = await alice.act({"type": "discard"})
        await alice.wait_for(answer.sequence)  # delivered, so the delivery histogram has counted it
        families = scrape(metrics_port)
        await alice.stop()
    handling = families["cardroom_grpc_server_handling_seconds"]
    assert handling.type == "histogram"
    methods = {sample.labels.get("method") for sample in handling.samples}
    assert {"CreateTable", "Act"} <= methods
    assert families["cardroom_table_action_delivery_seconds"].type == "histogram"
    assert any(s.value >= 1 for s in families["cardroom_table_action_delivery_seconds"].samples if s.name.endswith("_count"))
    assert families["cardroom_table_live_tables"].samples[0].value == 1
    assert "cardroom_table_open_streams" in families
    labels = {key for family in families.values() for sample in family.samples for key in sample.labels}
    assert not labels & {"table_id", "player_id", "card", "seat"}, "metric labels never name a table, player or card"
    assert server.terminate() == 0
    assert '"stopped"' in (tmp_path / "table.log").read_text()
