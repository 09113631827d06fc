"""Reads a player's standing (level, badges, stats and ladder rating) from the rating service.

A profile is still worth showing without its standing, so this never fails: when rating is not
configured, unreachable, slow or refuses, the standing is simply absent and a warning is logged.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Awaitable, TypeVar

import grpc
from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc

from shared.auth import TokenIssuer

log = logging.getLogger(__name__)

# A profile screen should open within a second even when rating is in trouble; rating answers
# these reads from one indexed row in a few milliseconds when it is well.
RATING_TIMEOUT_SECONDS = 1.0

T = TypeVar("T")


@dataclass(frozen=True)
class Standing:
    """What rating knows of a player; either part is None when rating could not say."""

    progress: rating_pb2.Progress | None = None
    rating: rating_pb2.PlayerRating | None = None


class RatingReader:
    """A client of ``cardroom.rating.v1.RatingService`` calling with profile's service credentials."""

    def __init__(self, address: str | None, issuer: TokenIssuer) -> None:
        self.address = address
        self.issuer = issuer
        self.channel = grpc.aio.insecure_channel(address) if address else None
        self.stub = rating_pb2_grpc.RatingServiceStub(self.channel) if self.channel else None

    async def standing(self, player_id: str) -> Standing:
        if self.stub is None:
            return Standing()
        metadata = [("authorization", f"Bearer {self.issuer.service('profile').token}")]
        progress_call = self.stub.GetProgress(
            rating_pb2.GetProgressRequest(player_id=player_id), metadata=metadata, timeout=RATING_TIMEOUT_SECONDS
        )
        ratings_call = self.stub.GetRatings(
            rating_pb2.GetRatingsRequest(player_ids=[player_id]), metadata=metadata, timeout=RATING_TIMEOUT_SECONDS
        )
        progress, ratings = await asyncio.gather(
            self._ask("GetProgress", progress_call), self._ask("GetRatings", ratings_call)
        )
        return Standing(
            progress=progress.progress if progress is not None and progress.HasField("progress") else None,
            rating=_own_rating(ratings, player_id),
        )

    async def _ask(self, method: str, call: Awaitable[T]) -> T | None:
        try:
            return await call
        except grpc.RpcError as error:
            code = error.code() if isinstance(error, grpc.aio.AioRpcError) else None
            log.warning(
                "rating did not answer; the profile is shown without it",
                extra={"method": method, "address": self.address, "code": code.name if code else "UNKNOWN"},
            )
            return None

    async def close(self) -> None:
        if self.channel is not None:
            await self.channel.close()


def _own_rating(response: rating_pb2.GetRatingsResponse | None, player_id: str) -> rating_pb2.PlayerRating | None:
    if response is None:
        return None
    return next((rating for rating in response.ratings if rating.player_id in (player_id, "")), None)
