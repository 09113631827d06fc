"""The whole player journey for two ranked players: sign in, queue, play, and the ladder moves by
Glicko-2 for both — every service its own server on real sockets."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import AsyncIterator

import grpc
import pytest
from cardroom.common.v1 import common_pb2
from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from cardroom.profile.v1 import profile_pb2, profile_pb2_grpc

from services.matchmaking.app import create_server as create_matchmaking
from services.profile.app import create_server as create_profile
from services.rating import glicko2
from services.rating.app import create_server as create_rating
from services.table.app import create_server as create_table_server
from tests.services.table.test_table_service import play_to_the_end
from tests.support.servers import bearer, settings_for
from tests.support.table_client import SeatClient

pytestmark = pytest.mark.slow
WAIT = 30.0


@pytest.fixture
async def platform(tmp_path: Path) -> AsyncIterator[dict[str, str]]:
    def url(name: str) -> str:
        return f"sqlite:///{tmp_path / name}.sqlite3"

    rating = await create_rating(settings_for("rating", url("rating")))
    rating_address = f"127.0.0.1:{await rating.start('127.0.0.1:0')}"
    profile = await create_profile(settings_for("profile", url("profile")), rating_address)
    profile_address = f"127.0.0.1:{await profile.start('127.0.0.1:0')}"
    table, _ = await create_table_server(settings_for("table", url("table")), rating_address, shard="journey")
    table_address = f"127.0.0.1:{await table.start('127.0.0.1:0')}"
    matchmaking = await create_matchmaking(settings_for("matchmaking", url("matchmaking")), table_address=table_address, rating_address=rating_address)
    matchmaking_address = f"127.0.0.1:{await matchmaking.start('127.0.0.1:0')}"
    yield {"profile": profile_address, "matchmaking": matchmaking_address}
    for app in (matchmaking, table, profile, rating):
        await app.stop(0)


async def test_two_ranked_players_are_matched_play_and_both_move_on_the_ladder(platform: dict[str, str]) -> None:
    profile_channel = grpc.aio.insecure_channel(platform["profile"])
    profiles = profile_pb2_grpc.ProfileServiceStub(profile_channel)
    tokens: dict[str, str] = {}
    ids: dict[str, str] = {}
    for name in ("ann", "ben"):
        answer = await profiles.SignInGuest(profile_pb2.SignInGuestRequest(device_id=f"{name}-device", display_name=name))
        tokens[name], ids[name] = answer.tokens.access_token, answer.profile.player_id

    mm_channel = grpc.aio.insecure_channel(platform["matchmaking"])
    queue = matchmaking_pb2_grpc.MatchmakingServiceStub(mm_channel)
    request = matchmaking_pb2.JoinQueueRequest(game="four_down", seats=2, kind=common_pb2.MATCH_KIND_RANKED)
    request.options.update({"turn_seconds": 0})

    async def seat_of(name: str) -> matchmaking_pb2.Seated:
        async for message in queue.JoinQueue(request, metadata=bearer(tokens[name])):
            if message.HasField("seated"):
                return message.seated
        raise AssertionError("the queue ended without a seat")

    seats = dict(zip(("ann", "ben"), await asyncio.wait_for(asyncio.gather(seat_of("ann"), seat_of("ben")), WAIT)))
    assert seats["ann"].table_id == seats["ben"].table_id
    table_channel = grpc.aio.insecure_channel(seats["ann"].table_address)
    clients = []
    for name in sorted(seats, key=lambda n: seats[n].seat):
        client = SeatClient(table_channel, seats[name].table_id, ids[name], seats[name].seat_token)
        client.metadata = bearer(tokens[name])
        clients.append(client)
    await play_to_the_end(clients, random.Random(4))

    async def rated(name: str) -> profile_pb2.Profile:
        while True:
            profile = (await profiles.GetProfile(profile_pb2.GetProfileRequest(), metadata=bearer(tokens[name]))).profile
            # The profile reads progress and rating from rating with two calls: wait until both show it.
            recorded = any(stats.game == "four_down" and stats.played == 1 for stats in profile.progress.stats)
            if profile.rating.rated_matches == 1 and recorded:
                return profile
            await asyncio.sleep(0.1)

    after = {name: await asyncio.wait_for(rated(name), WAIT) for name in ("ann", "ben")}
    points = {name: after[name].progress.level_points for name in after}
    assert sorted(points.values()) in ([3, 22], [8, 8]), "FD-16: a win pays 22 and a loss 3, or both draw for 8"
    if points["ann"] == 8:
        score = 0.5
    else:
        score = 1.0 if points["ann"] == 22 else 0.0
    expected_ann, expected_ben = glicko2.rate_match(glicko2.DEFAULT, glicko2.DEFAULT, score)
    assert after["ann"].rating.rating == pytest.approx(expected_ann.rating)
    assert after["ben"].rating.rating == pytest.approx(expected_ben.rating)
    assert after["ann"].rating.deviation == pytest.approx(expected_ann.deviation)
    for channel in (profile_channel, mm_channel, table_channel):
        await channel.close()
