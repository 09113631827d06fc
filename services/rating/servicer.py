"""RatingService over gRPC: checks and converts requests, asks the ledger or the store, converts back.

RecordMatchResult takes service credentials; the reading calls take a player's access token or
service credentials (an empty ``player_id`` means the calling player).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import json
import time

import grpc
from cardroom.common.v1 import common_pb2
from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc
from google.protobuf import timestamp_pb2
from google.protobuf.json_format import MessageToDict

from shared.errors import ServiceError, invalid
from shared.server import caller, require_service

from services.rating import glicko2, progression
from services.rating.ledger import INITIAL_RATING, Change, LadderRating, Ledger, MatchKind, MatchResult, Seat
from services.rating.store import (
    GAME_LENGTH,
    MATCH_ID_LENGTH,
    PLAYER_ID_LENGTH,
    HistoryCursor,
    LadderRecord,
    MatchPlayerRecord,
    RatingStore,
)

# No table seats more than eight; games hosted elsewhere get room to spare, and a bound keeps one
# request's work (and its transaction's locks) small.
MAX_PARTICIPANTS = 32
# Page sizes (the proto's contract): 1 to 100 rows, 20 when the caller does not say.
MAX_PAGE = 100
DEFAULT_PAGE = 20
MAX_RATINGS_ASKED = 100

_OUTCOMES: dict[common_pb2.Outcome.ValueType, progression.Outcome] = {
    common_pb2.OUTCOME_WIN: "win",
    common_pb2.OUTCOME_DRAW: "draw",
    common_pb2.OUTCOME_LOSS: "loss",
}
_OUTCOME_VALUES: dict[str, common_pb2.Outcome.ValueType] = {name: value for value, name in _OUTCOMES.items()}
_KINDS: dict[common_pb2.MatchKind.ValueType, MatchKind] = {
    common_pb2.MATCH_KIND_RANKED: "ranked",
    common_pb2.MATCH_KIND_CASUAL: "casual",
    common_pb2.MATCH_KIND_PRIVATE: "private",
}
_KIND_VALUES: dict[str, common_pb2.MatchKind.ValueType] = {name: value for value, name in _KINDS.items()}


# -- requests in ---------------------------------------------------------------------------------


def content_hash(request: rating_pb2.RecordMatchResultRequest) -> str:
    """SHA-256 of the request's canonical JSON (field names, map keys sorted, defaults left out)."""
    content = MessageToDict(request, preserving_proto_field_name=True)
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _seat(index: int, participant: rating_pb2.Participant) -> Seat:
    field = f"participants[{index}]"
    if participant.outcome not in _OUTCOMES:
        raise invalid(f"{field}.outcome", "outcome must be win, draw or loss")
    if participant.seat < 0:
        raise invalid(f"{field}.seat", "a seat number is never negative")
    if not participant.robot and not participant.player_id:
        raise invalid(f"{field}.player_id", "a human participant needs a player id")
    if len(participant.player_id) > PLAYER_ID_LENGTH:
        raise invalid(f"{field}.player_id", f"a player id has at most {PLAYER_ID_LENGTH} characters")
    return Seat(
        player_id="" if participant.robot else participant.player_id,
        seat=participant.seat,
        team=participant.team,
        outcome=_OUTCOMES[participant.outcome],
        total=participant.total,
        round_scores=tuple(participant.round_scores),
        robot=participant.robot,
        abandoned=participant.abandoned,
    )


def _seats(request: rating_pb2.RecordMatchResultRequest) -> tuple[Seat, ...]:
    if not request.participants:
        raise invalid("participants", "a match needs participants")
    if len(request.participants) > MAX_PARTICIPANTS:
        raise invalid("participants", f"a match has at most {MAX_PARTICIPANTS} participants")
    seats = tuple(_seat(index, participant) for index, participant in enumerate(request.participants))
    seen_seats: set[int] = set()
    seen_players: set[str] = set()
    for index, seat in enumerate(seats):
        if seat.seat in seen_seats:
            raise invalid(f"participants[{index}].seat", f"seat {seat.seat} is listed twice")
        if seat.human and seat.player_id in seen_players:
            raise invalid(f"participants[{index}].player_id", "a player is listed twice")
        seen_seats.add(seat.seat)
        seen_players.add(seat.player_id)
    return seats


def match_result(request: rating_pb2.RecordMatchResultRequest) -> MatchResult:
    """The request as the ledger's ``MatchResult``; INVALID_ARGUMENT naming the field if malformed."""
    if not 1 <= len(request.match_id) <= MATCH_ID_LENGTH:
        raise invalid("match_id", f"match_id must be 1 to {MATCH_ID_LENGTH} characters")
    if not 1 <= len(request.game) <= GAME_LENGTH:
        raise invalid("game", f"game must be 1 to {GAME_LENGTH} characters")
    if request.kind not in _KINDS:
        raise invalid("kind", "kind must be ranked, casual or private")
    if request.rounds < 0:
        raise invalid("rounds", "rounds is never negative")
    finished = request.finished_at.ToMicroseconds() if request.HasField("finished_at") else time.time_ns() // 1000
    return MatchResult(
        match_id=request.match_id,
        game=request.game,
        kind=_KINDS[request.kind],
        options=dict(request.options),
        seats=_seats(request),
        finished_at_us=finished,
        rounds=request.rounds,
        teams=request.teams,
    )


def _page_size(value: int, field: str) -> int:
    if value == 0:
        return DEFAULT_PAGE
    if not 1 <= value <= MAX_PAGE:
        raise invalid(field, f"{field} must be 1 to {MAX_PAGE} (0 for {DEFAULT_PAGE})")
    return value


def _player(requested: str) -> str:
    """The player a reading call is about: the one named, else the calling player."""
    claims = caller()
    if requested:
        if len(requested) > PLAYER_ID_LENGTH:
            raise invalid("player_id", f"a player id has at most {PLAYER_ID_LENGTH} characters")
        return requested
    if claims.kind != "access":
        raise invalid("player_id", "player_id is required when the caller is not a player")
    return claims.subject


def encode_page_token(cursor: HistoryCursor) -> str:
    raw = json.dumps([cursor.finished_at_us, cursor.match_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_page_token(token: str) -> HistoryCursor:
    """The cursor a page token holds; INVALID_ARGUMENT for anything we did not issue."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        finished_at_us, match_id = json.loads(raw)
    except (binascii.Error, ValueError, TypeError):
        raise invalid("page_token", "page_token is not one this service gave") from None
    if not isinstance(finished_at_us, int) or isinstance(finished_at_us, bool) or not isinstance(match_id, str):
        raise invalid("page_token", "page_token is not one this service gave")
    return HistoryCursor(finished_at_us, match_id)


# -- answers out ---------------------------------------------------------------------------------


def timestamp(micros: int) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMicroseconds(micros)
    return stamp


def player_rating(player_id: str, rating: LadderRating) -> rating_pb2.PlayerRating:
    return rating_pb2.PlayerRating(
        player_id=player_id,
        rating=rating.rating,
        deviation=rating.deviation,
        volatility=rating.volatility,
        provisional=rating.provisional,
        rated_matches=rating.rated_matches,
    )


def _ladder(record: LadderRecord) -> rating_pb2.PlayerRating:
    rating = LadderRating(record.rating, record.deviation, record.volatility, record.rated_matches)
    return player_rating(record.player_id, rating)


def result_change(change: Change) -> rating_pb2.ResultChange:
    message = rating_pb2.ResultChange(
        player_id=change.player_id,
        level_points=change.level_points,
        level=change.level,
        badge_earned=change.badge_earned,
    )
    if change.rating_before is not None and change.rating_after is not None:
        message.rating_before.CopyFrom(player_rating(change.player_id, change.rating_before))
        message.rating_after.CopyFrom(player_rating(change.player_id, change.rating_after))
    return message


def history_entry(row: MatchPlayerRecord) -> rating_pb2.HistoryEntry:
    entry = rating_pb2.HistoryEntry(
        match_id=row.match_id,
        game=row.game,
        kind=_KIND_VALUES[row.kind],
        outcome=_OUTCOME_VALUES[row.outcome],
        total=row.total,
        level_points=row.level_points,
        finished_at=timestamp(row.finished_at_us),
    )
    if row.rated_matches_after is not None:
        played = row.rated_matches_after
        before = _rated(row, row.rating_before, row.deviation_before, row.volatility_before, played - 1)
        after = _rated(row, row.rating_after, row.deviation_after, row.volatility_after, played)
        entry.rating_before.CopyFrom(player_rating(row.player_id, before))
        entry.rating_after.CopyFrom(player_rating(row.player_id, after))
    return entry


def _rated(
    row: MatchPlayerRecord, rating: float | None, deviation: float | None, volatility: float | None, played: int
) -> LadderRating:
    """One side of a rated row's ladder move; the ledger writes all of it or none of it."""
    if rating is None or deviation is None or volatility is None:
        raise ValueError(f"history row {row.match_id}/{row.player_id} has rated_matches_after but not its ratings")
    return LadderRating(rating, deviation, volatility, played)


class RatingServicer(rating_pb2_grpc.RatingServiceServicer):
    def __init__(self, ledger: Ledger, store: RatingStore) -> None:
        self.ledger = ledger
        self.store = store

    async def RecordMatchResult(
        self, request: rating_pb2.RecordMatchResultRequest, context: grpc.aio.ServicerContext
    ) -> rating_pb2.RecordMatchResultResponse:
        require_service()
        recorded = await self.ledger.record(match_result(request), content_hash(request))
        return rating_pb2.RecordMatchResultResponse(
            applied=recorded.applied, rated=recorded.rated, changes=[result_change(c) for c in recorded.changes]
        )

    async def GetRatings(
        self, request: rating_pb2.GetRatingsRequest, context: grpc.aio.ServicerContext
    ) -> rating_pb2.GetRatingsResponse:
        caller()
        if len(request.player_ids) > MAX_RATINGS_ASKED:
            raise invalid("player_ids", f"ask for at most {MAX_RATINGS_ASKED} players at once")
        for index, player_id in enumerate(request.player_ids):
            if not 1 <= len(player_id) <= PLAYER_ID_LENGTH:
                raise invalid(f"player_ids[{index}]", f"a player id has 1 to {PLAYER_ID_LENGTH} characters")
        found = await asyncio.to_thread(self.store.ladder, list(request.player_ids))
        return rating_pb2.GetRatingsResponse(
            ratings=[
                _ladder(found[player_id]) if player_id in found else player_rating(player_id, INITIAL_RATING)
                for player_id in request.player_ids
            ]
        )

    async def GetLeaderboard(
        self, request: rating_pb2.GetLeaderboardRequest, context: grpc.aio.ServicerContext
    ) -> rating_pb2.GetLeaderboardResponse:
        caller()
        limit = _page_size(request.limit, "limit")
        settled_below = glicko2.PROVISIONAL_DEVIATION if request.settled_only else None
        offset = 0
        if request.around_player_id:
            offset = await asyncio.to_thread(self._window_start, request.around_player_id, limit, settled_below)
        rows = await asyncio.to_thread(self.store.leaderboard, offset, limit, settled_below)
        return rating_pb2.GetLeaderboardResponse(
            entries=[
                rating_pb2.LeaderboardEntry(rank=offset + index + 1, rating=_ladder(row))
                for index, row in enumerate(rows)
            ]
        )

    def _window_start(self, player_id: str, limit: int, settled_below: float | None) -> int:
        """Where a window of ``limit`` rows with the player near its middle begins."""
        row = self.store.ladder([player_id]).get(player_id)
        if row is None or (settled_below is not None and row.deviation >= settled_below):
            raise ServiceError(
                grpc.StatusCode.NOT_FOUND,
                "NOT_FOUND",
                "this player is not on this leaderboard",
                {"resource": "player", "field": "around_player_id"},
            )
        ahead = self.store.rows_ahead(row, settled_below)
        size = self.store.leaderboard_size(settled_below)
        return max(0, min(ahead - limit // 2, size - limit))

    async def GetHistory(
        self, request: rating_pb2.GetHistoryRequest, context: grpc.aio.ServicerContext
    ) -> rating_pb2.GetHistoryResponse:
        player_id = _player(request.player_id)
        size = _page_size(request.page_size, "page_size")
        after = decode_page_token(request.page_token) if request.page_token else None
        rows = await asyncio.to_thread(self.store.history, player_id, after, size + 1)
        page, more = rows[:size], len(rows) > size
        token = encode_page_token(HistoryCursor(page[-1].finished_at_us, page[-1].match_id)) if more else ""
        return rating_pb2.GetHistoryResponse(entries=[history_entry(row) for row in page], next_page_token=token)

    async def GetProgress(
        self, request: rating_pb2.GetProgressRequest, context: grpc.aio.ServicerContext
    ) -> rating_pb2.GetProgressResponse:
        player_id = _player(request.player_id)
        progress, badges, stats = await asyncio.to_thread(self.store.progress, player_id)
        points = progress.level_points if progress is not None else 0
        level = progression.level_for(points)
        message = rating_pb2.Progress(
            player_id=player_id,
            level=level.level,
            level_points=points,
            points_into_level=level.points_into_level,
            points_to_next_level=level.points_to_next,
            badges=[rating_pb2.Badge(game=badge.game, earned_at=timestamp(badge.earned_at_us)) for badge in badges],
        )
        for row in stats:
            game = rating_pb2.GameStats(
                game=row.game,
                played=row.played,
                won=row.won,
                drawn=row.drawn,
                lost=row.lost,
                average_round=row.round_score_sum / row.round_count if row.round_count else 0.0,
            )
            if row.best_round is not None:
                game.best_round = row.best_round
            message.stats.append(game)
        return rating_pb2.GetProgressResponse(progress=message)
