"""The table server: ``create_server`` for tests, ``main`` for the ``cardroom-table`` command."""

from __future__ import annotations

import os
import socket

from cardroom.table.v1 import table_pb2, table_pb2_grpc

from shared import logs
from shared.config import service_address, service_settings, ServiceSettings
from shared.db import make_engine, upgrade
from shared.server import GrpcApp, run_service

from services.table.directory import DirectoryClient
from services.table.host import TableHost
from services.table.live import TableClock
from services.table.results import RatingClient
from services.table.servicer import ProtobufEncoder, TableServicer
from services.table.store import TableStore

SERVICE = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name


def shard_id() -> str:
    """The shard's stable name: the StatefulSet pod name on Kubernetes, else this host."""
    return os.environ.get("CARDROOM_SHARD_ID") or socket.gethostname()


async def create_server(
    settings: ServiceSettings,
    rating_address: str | None = None,
    shard: str | None = None,
    clock_speed: float = 1.0,
    matchmaking_address: str | None = None,
    advertised_address: str = "",
) -> tuple[GrpcApp, TableHost]:
    """The table server, not yet started. ``clock_speed`` > 1 speeds table time up (tests only).
    With ``matchmaking_address`` the shard keeps a lease in matchmaking's directory under
    ``advertised_address`` (where clients reach it; set it after start when listening on port 0)."""
    engine = make_engine(settings.database_url)
    upgrade(engine, "table")
    store = TableStore(engine)
    app = GrpcApp(settings)
    rating = RatingClient(rating_address, app.issuer) if rating_address else None
    host = TableHost(store, ProtobufEncoder(), shard or shard_id(), rating.send if rating else None, TableClock(clock_speed))
    app.add(table_pb2_grpc.add_TableServiceServicer_to_server, TableServicer(host, app.issuer), SERVICE)
    if matchmaking_address:
        host.directory = DirectoryClient(matchmaking_address, app.issuer, host.shard_id, advertised_address)

    async def shutdown() -> None:
        await host.drain()
        if rating:
            await rating.close()
        if host.directory:
            await host.directory.close()
        store.close()

    app.on_shutdown(shutdown)
    await host.start()
    return app, host


async def serve() -> None:
    settings = service_settings("table")
    logs.configure("table")
    advertised = os.environ.get("CARDROOM_TABLE_ADVERTISE_ADDRESS") or f"{socket.gethostname()}:{settings.port}"
    if settings.host in ("127.0.0.1", "localhost"):
        advertised = os.environ.get("CARDROOM_TABLE_ADVERTISE_ADDRESS") or settings.address
    app, _ = await create_server(
        settings, service_address("rating"), matchmaking_address=service_address("matchmaking"), advertised_address=advertised
    )
    await app.run()


def main() -> None:
    run_service(serve)


if __name__ == "__main__":
    main()
