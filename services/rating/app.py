"""The rating server: ``create_server`` for tests, ``main`` for the ``cardroom-rating`` command."""

from __future__ import annotations

import asyncio

from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc

from shared import logs
from shared.config import ServiceSettings, service_settings
from shared.db import make_engine, upgrade
from shared.server import GrpcApp, run_service

from services.rating.ledger import Ledger
from services.rating.servicer import RatingServicer
from services.rating.store import RatingStore

SERVICE = rating_pb2.DESCRIPTOR.services_by_name["RatingService"].full_name


async def create_server(settings: ServiceSettings) -> GrpcApp:
    """A rating server on ``settings``' database (migrated to head), not yet started."""
    engine = make_engine(settings.database_url)
    upgrade(engine, "rating")
    store = RatingStore(engine)
    app = GrpcApp(settings)
    app.add(rating_pb2_grpc.add_RatingServiceServicer_to_server, RatingServicer(Ledger(store), store), SERVICE)

    async def shutdown() -> None:
        await asyncio.to_thread(store.close)

    app.on_shutdown(shutdown)
    return app


async def serve() -> None:
    settings = service_settings("rating")
    logs.configure("rating")
    app = await create_server(settings)
    await app.run()


def main() -> None:
    run_service(serve)


if __name__ == "__main__":
    main()
