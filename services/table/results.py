"""Delivers finished matches to rating (the outbox's far end), with service credentials."""

from __future__ import annotations

from typing import Mapping

import grpc
from cardroom.common.v1 import common_pb2
from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc

from shared.auth import TokenIssuer
from shared.games.base import Json

from services.table.servicer import timestamp

_OUTCOMES = {"win": common_pb2.OUTCOME_WIN, "draw": common_pb2.OUTCOME_DRAW, "loss": common_pb2.OUTCOME_LOSS}
RECORD_TIMEOUT = 10.0  # seconds; a slow rating is retried, never waited on forever


def result_request(payload: Mapping[str, Json]) -> rating_pb2.RecordMatchResultRequest:
    return rating_pb2.RecordMatchResultRequest(
        match_id=payload["match_id"],
        game=payload["game"],
        kind=payload["kind"],
        options=payload["options"],
        participants=[
            rating_pb2.Participant(
                player_id=p["player_id"],
                seat=p["seat"],
                team=p["team"],
                outcome=_OUTCOMES[p["outcome"]],
                total=p["total"],
                round_scores=p["round_scores"],
                robot=p["robot"],
                abandoned=p["abandoned"],
            )
            for p in payload["participants"]
        ],
        finished_at=timestamp(payload["finished_at"]),
        rounds=payload["rounds"],
        teams=payload["teams"],
    )


class RatingClient:
    """Sends results to rating; raises on any failure so the outbox keeps the result."""

    def __init__(self, address: str, issuer: TokenIssuer) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = rating_pb2_grpc.RatingServiceStub(self.channel)
        self.issuer = issuer

    async def send(self, payload: Mapping[str, Json]) -> None:
        token = self.issuer.service("table").token
        await self.stub.RecordMatchResult(
            result_request(payload), metadata=[("authorization", f"Bearer {token}")], timeout=RECORD_TIMEOUT
        )

    async def close(self) -> None:
        await self.channel.close()
