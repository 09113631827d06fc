"""A real rating server on a real socket, and the results tests record through it (import the `rating` fixture)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import grpc
import pytest
from cardroom.common.v1 import common_pb2
from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc
from google.protobuf import timestamp_pb2

from services.rating.app import create_server
from shared.errors import error_info
from tests.support.servers import player_metadata, service_metadata, settings_for

WIN, DRAW, LOSS = common_pb2.OUTCOME_WIN, common_pb2.OUTCOME_DRAW, common_pb2.OUTCOME_LOSS
RANKED, CASUAL, PRIVATE = common_pb2.MATCH_KIND_RANKED, common_pb2.MATCH_KIND_CASUAL, common_pb2.MATCH_KIND_PRIVATE
# Matches end a minute apart from here on, so that history's newest-first order is the recording order.
FIRST_FINISH = 1_700_000_000


@dataclass
class RatingClient:
    """The rating service's stub and the credentials tests call it with."""

    stub: rating_pb2_grpc.RatingServiceStub
    port: int

    async def record(self, request: rating_pb2.RecordMatchResultRequest) -> rating_pb2.RecordMatchResultResponse:
        return await self.stub.RecordMatchResult(request, metadata=service_metadata("table"))

    async def ratings(self, *player_ids: str) -> list[rating_pb2.PlayerRating]:
        response = await self.stub.GetRatings(
            rating_pb2.GetRatingsRequest(player_ids=player_ids), metadata=service_metadata()
        )
        return list(response.ratings)

    async def progress(self, player_id: str) -> rating_pb2.Progress:
        response = await self.stub.GetProgress(
            rating_pb2.GetProgressRequest(player_id=player_id), metadata=service_metadata()
        )
        return response.progress

    async def history(self, player_id: str, page_size: int = 0, page_token: str = "") -> rating_pb2.GetHistoryResponse:
        request = rating_pb2.GetHistoryRequest(player_id=player_id, page_size=page_size, page_token=page_token)
        return await self.stub.GetHistory(request, metadata=player_metadata(player_id))

    async def leaderboard(self, limit: int = 0, around: str = "", settled_only: bool = False) -> list[tuple[int, str]]:
        request = rating_pb2.GetLeaderboardRequest(limit=limit, around_player_id=around, settled_only=settled_only)
        response = await self.stub.GetLeaderboard(request, metadata=player_metadata("reader"))
        return [(entry.rank, entry.rating.player_id) for entry in response.entries]


@asynccontextmanager
async def running_rating(database_url: str) -> AsyncIterator[RatingClient]:
    """Start a rating server on ``database_url``, yield a client, stop it."""
    app = await create_server(settings_for("rating", database_url))
    port = await app.start("127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield RatingClient(rating_pb2_grpc.RatingServiceStub(channel), port)
    finally:
        await channel.close()
        await app.stop(0)


@pytest.fixture
async def rating(database_url: str) -> AsyncIterator[RatingClient]:
    async with running_rating(database_url) as client:
        yield client


def human(
    player_id: str, seat: int, outcome: int, total: int = 10, rounds: Sequence[int] = (4, 6), **extra: bool
) -> rating_pb2.Participant:
    return rating_pb2.Participant(
        player_id=player_id, seat=seat, team=seat, outcome=outcome, total=total, round_scores=rounds, **extra
    )


def robot(seat: int, outcome: int, total: int = 10) -> rating_pb2.Participant:
    return rating_pb2.Participant(seat=seat, team=seat, outcome=outcome, total=total, round_scores=[total], robot=True)


def match(
    match_id: str,
    participants: Iterable[rating_pb2.Participant],
    game: str = "four_down",
    kind: int = RANKED,
    options: dict[str, str] | None = None,
    minute: int = 0,
) -> rating_pb2.RecordMatchResultRequest:
    return rating_pb2.RecordMatchResultRequest(
        match_id=match_id,
        game=game,
        kind=kind,
        options=options or {},
        participants=list(participants),
        finished_at=timestamp_pb2.Timestamp(seconds=FIRST_FINISH + 60 * minute),
        rounds=2,
    )


def duel(
    match_id: str, winner: str, loser: str, game: str = "four_down", minute: int = 0
) -> rating_pb2.RecordMatchResultRequest:
    """A ranked two-player match ``winner`` won."""
    return match(match_id, [human(winner, 0, WIN, 8), human(loser, 1, LOSS, 20)], game=game, minute=minute)


def reason_of(error: grpc.RpcError) -> str:
    info = error_info(error)
    return info.reason if info is not None else ""


def field_of(error: grpc.RpcError) -> str:
    info = error_info(error)
    return info.metadata.get("field", "") if info is not None else ""
