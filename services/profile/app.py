"""The profile server: ``create_server`` for tests, ``main`` for the ``cardroom-profile`` command."""

from __future__ import annotations

from argon2 import PasswordHasher
from cardroom.profile.v1 import profile_pb2_grpc

from shared import logs
from shared.config import ServiceSettings, service_address, service_settings
from shared.db import make_engine, upgrade
from shared.server import GrpcApp, run_service

from services.profile.accounts import Accounts
from services.profile.passwords import Passwords
from services.profile.ratings import RatingReader
from services.profile.servicer import PUBLIC_METHODS, SERVICE, ProfileServicer
from services.profile.store import ProfileStore


async def create_server(
    settings: ServiceSettings,
    rating_address: str | None = None,
    *,
    password_hasher: PasswordHasher | None = None,
) -> GrpcApp:
    """A migrated, wired profile server, not yet started.

    ``rating_address`` None: profiles are shown without level, badges, stats and rating.
    ``password_hasher`` None: argon2-cffi's defaults (tests pass a cheaper one).
    """
    engine = make_engine(settings.database_url)
    upgrade(engine, "profile")
    store = ProfileStore(engine)
    app = GrpcApp(settings, public_methods=PUBLIC_METHODS)
    ratings = RatingReader(rating_address, app.issuer)
    accounts = Accounts(store, Passwords(password_hasher), app.issuer)
    app.add(profile_pb2_grpc.add_ProfileServiceServicer_to_server, ProfileServicer(accounts, ratings), SERVICE)

    async def shutdown() -> None:
        await ratings.close()
        store.close()

    app.on_shutdown(shutdown)
    return app


async def serve() -> None:
    settings = service_settings("profile")
    logs.configure("profile")
    app = await create_server(settings, service_address("rating"))
    await app.run()


def main() -> None:
    run_service(serve)


if __name__ == "__main__":
    main()
