"""The matchmaking server: ``create_server`` for tests, ``main`` for the ``cardroom-matchmaking`` command.

One replica owns the queues (in memory); lobbies, parties, seatings and the shard directory are in
its database (migrations applied on start-up).
"""

from __future__ import annotations

import random
import time
from typing import Callable

from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc

from shared import logs
from shared.config import ServiceSettings, service_address, service_settings
from shared.db import make_engine, upgrade
from shared.server import GrpcApp, run_service

from services.matchmaking.clients import RatingClient, ServiceCredentials, TableClients
from services.matchmaking.directory import ShardDirectory
from services.matchmaking.lobbies import Parties, PrivateTables
from services.matchmaking.matchmaker import DEFAULT_ROBOT_WAIT_SECONDS, Matchmaker
from services.matchmaking.queues import RatingWindow
from services.matchmaking.seating import Seater
from services.matchmaking.servicer import MatchmakingServicer, ShardDirectoryServicer
from services.matchmaking.store import MatchmakingStore

MATCHMAKING = matchmaking_pb2.DESCRIPTOR.services_by_name["MatchmakingService"].full_name
DIRECTORY = matchmaking_pb2.DESCRIPTOR.services_by_name["ShardDirectoryService"].full_name


async def create_server(
    settings: ServiceSettings,
    table_address: str | None = None,
    rating_address: str | None = None,
    robot_wait_seconds: float = DEFAULT_ROBOT_WAIT_SECONDS,
    *,
    rating_window: RatingWindow | None = None,
    wall_clock: Callable[[], float] = time.time,
    rng: random.Random | None = None,
) -> GrpcApp:
    """A ready-to-start server. ``table_address``: where tables open while no shard has registered;
    ``rating_address``: None rates every ranked player at the initial rating. ``rating_window``,
    ``wall_clock`` (leases) and ``rng`` (seat order) are for tests."""
    engine = make_engine(settings.database_url)
    upgrade(engine, "matchmaking")
    store = MatchmakingStore(engine)
    app = GrpcApp(settings)
    credentials = ServiceCredentials(app.issuer)
    tables = TableClients(credentials)
    ratings = RatingClient(rating_address, credentials)
    directory = ShardDirectory(store, table_address or service_address("table"), wall_clock)
    seater = Seater(store, directory, tables, app.issuer)
    parties = Parties(store, wall_clock)
    matchmaker = Matchmaker(seater, ratings, parties, robot_wait_seconds, rating_window, rng=rng)
    private_tables = PrivateTables(store, seater, directory, app.issuer)
    app.add(
        matchmaking_pb2_grpc.add_MatchmakingServiceServicer_to_server,
        MatchmakingServicer(matchmaker, parties, private_tables, seater),
        MATCHMAKING,
    )
    app.add(matchmaking_pb2_grpc.add_ShardDirectoryServiceServicer_to_server, ShardDirectoryServicer(directory), DIRECTORY)

    async def shutdown() -> None:
        await matchmaker.close()
        await tables.close()
        await ratings.close()
        store.close()

    app.on_shutdown(shutdown)
    matchmaker.start()
    return app


async def serve() -> None:
    settings = service_settings("matchmaking")
    logs.configure("matchmaking")
    app = await create_server(settings, service_address("table"), service_address("rating"))
    await app.run()


def main() -> None:
    run_service(serve)


if __name__ == "__main__":
    main()
