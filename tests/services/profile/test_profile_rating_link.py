"""GetProfile's level, badges, stats and rating come from the rating service, called with profile's service
credentials; when rating is down, slow or refuses, the profile comes back without them, promptly.

The rating service here is a small fake on a real socket that answers what it is told to."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from dataclasses import dataclass, field
from typing import AsyncIterator

import grpc
import pytest
from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST
from cardroom.profile.v1 import profile_pb2, profile_pb2_grpc
from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc

from shared.server import GrpcApp

from services.profile.app import create_server
from services.profile.ratings import RATING_TIMEOUT_SECONDS
from tests.support.servers import bearer, issuer, settings_for

CHEAP_HASHER = PasswordHasher.from_parameters(CHEAPEST)


@dataclass
class FakeRating(rating_pb2_grpc.RatingServiceServicer):
    """Answers GetProgress and GetRatings for anyone, after ``delay`` seconds, or refuses when ``refuse``."""

    delay: float = 0.0
    refuse: bool = False
    callers: list[str] = field(default_factory=list)
    asked_for: list[str] = field(default_factory=list)

    async def _answer(self, context: grpc.aio.ServicerContext, player_id: str) -> None:
        token = dict(context.invocation_metadata() or ()).get("authorization", "").removeprefix("Bearer ")
        self.callers.append(issuer().verify(token, "service").subject)
        self.asked_for.append(player_id)
        await asyncio.sleep(self.delay)
        if self.refuse:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "not for you")

    async def GetProgress(
        self, request: rating_pb2.GetProgressRequest, context: grpc.aio.ServicerContext
    ) -> rating_pb2.GetProgressResponse:
        await self._answer(context, request.player_id)
        progress = rating_pb2.Progress(
            player_id=request.player_id,
            level=4,
            level_points=310,
            badges=[rating_pb2.Badge(game="golf")],
            stats=[rating_pb2.GameStats(game="golf", played=9, won=5, lost=4)],
        )
        return rating_pb2.GetProgressResponse(progress=progress)

    async def GetRatings(
        self, request: rating_pb2.GetRatingsRequest, context: grpc.aio.ServicerContext
    ) -> rating_pb2.GetRatingsResponse:
        await self._answer(context, ",".join(request.player_ids))
        ratings = [
            rating_pb2.PlayerRating(player_id=p, rating=1612.5, deviation=80.0, volatility=0.06, rated_matches=12)
            for p in request.player_ids
        ]
        return rating_pb2.GetRatingsResponse(ratings=ratings)


@dataclass
class Link:
    profile: profile_pb2_grpc.ProfileServiceStub
    rating: FakeRating


async def start_fake_rating(rating: FakeRating) -> tuple[grpc.aio.Server, str]:
    server = grpc.aio.server()
    rating_pb2_grpc.add_RatingServiceServicer_to_server(rating, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


def closed_address() -> str:
    """An address where nothing listens (a port the system just handed out and took back)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


async def start_profile(database_url: str, rating_address: str) -> tuple[GrpcApp, grpc.aio.Channel]:
    app = await create_server(settings_for("profile", database_url), rating_address, password_hasher=CHEAP_HASHER)
    port = await app.start("127.0.0.1:0")
    return app, grpc.aio.insecure_channel(f"127.0.0.1:{port}")


@pytest.fixture(params=["answers", "slow", "refuses"])
async def link(request: pytest.FixtureRequest, sqlite_url: str) -> AsyncIterator[Link]:
    slow = request.param == "slow"
    rating = FakeRating(delay=RATING_TIMEOUT_SECONDS * 3 if slow else 0.0, refuse=request.param == "refuses")
    rating_server, address = await start_fake_rating(rating)
    app, channel = await start_profile(sqlite_url, address)
    yield Link(profile_pb2_grpc.ProfileServiceStub(channel), rating)
    await channel.close()
    await app.stop(0)
    await rating_server.stop(0)


async def guest_token(stub: profile_pb2_grpc.ProfileServiceStub, device_id: str) -> tuple[str, str]:
    signed_in = await stub.SignInGuest(profile_pb2.SignInGuestRequest(device_id=device_id))
    return signed_in.profile.player_id, signed_in.tokens.access_token


@pytest.mark.parametrize("link", ["answers"], indirect=True)
async def test_a_profile_shows_level_badges_stats_and_rating_from_rating(link: Link) -> None:
    me, token = await guest_token(link.profile, "phone-1")
    other, _ = await guest_token(link.profile, "phone-2")
    for player_id in (me, other):
        request = profile_pb2.GetProfileRequest(player_id=player_id)
        profile = (await link.profile.GetProfile(request, metadata=bearer(token))).profile
        progress, rating = profile.progress, profile.rating
        assert (progress.player_id, progress.level, progress.badges[0].game) == (player_id, 4, "golf")
        assert (rating.player_id, rating.rating, rating.rated_matches) == (player_id, 1612.5, 12)
    assert set(link.rating.callers) == {"service:profile"}
    assert sorted(link.rating.asked_for) == sorted([me, me, other, other])


@pytest.mark.parametrize("link", ["slow", "refuses"], indirect=True)
async def test_a_slow_or_refusing_rating_leaves_those_fields_out(link: Link, caplog: pytest.LogCaptureFixture) -> None:
    _, token = await guest_token(link.profile, "phone-3")
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="services.profile.ratings"):
        profile = (await link.profile.GetProfile(profile_pb2.GetProfileRequest(), metadata=bearer(token))).profile
    assert time.monotonic() - started < RATING_TIMEOUT_SECONDS * 2
    assert profile.display_name.startswith("Guest-") and profile.HasField("preferences")
    assert not profile.HasField("progress") and not profile.HasField("rating")
    assert any("rating did not answer" in record.getMessage() for record in caplog.records)


async def test_with_no_rating_server_running_the_profile_comes_back_without_it(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    app, channel = await start_profile(database_url, closed_address())
    try:
        stub = profile_pb2_grpc.ProfileServiceStub(channel)
        _, token = await guest_token(stub, "phone-4")
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="services.profile.ratings"):
            profile = (await stub.GetProfile(profile_pb2.GetProfileRequest(), metadata=bearer(token))).profile
        assert time.monotonic() - started < RATING_TIMEOUT_SECONDS * 2
        assert profile.guest and not profile.HasField("progress") and not profile.HasField("rating")
        assert any("rating did not answer" in record.getMessage() for record in caplog.records)
    finally:
        await channel.close()
        await app.stop(0)
