"""Recording a finished match: who earns what, applied exactly once per match id.

One match is applied in ONE database transaction whose first write is the match's row (primary key
``match_id``). A retry (after a lost reply, a restart, or running at the same time) fails on that key
and is answered from the row: the first answer again, marked not applied. The same match id with
other content is refused (CONFLICT). So a result changes ratings, points and stats once or never.

What a match pays (rules/README.md "Progression", through ``progression``):

* Humans only: a robot earns nothing and is not stored as a player.
* The ladder: a ranked two-player match of one of our rated games with no robot and no teams
  (``progression.is_ladder_match``), or a ranked match of a game hosted elsewhere ("chess") between
  exactly two humans, moves both players' Glicko-2 ratings (``glicko2.rate_match``) on the ONE shared
  ladder. A player who abandoned scores a loss against one who did not; if both abandoned, the ladder
  scores a draw (neither beat the other). Otherwise the two outcomes must be a win and a loss or two
  draws.
* Our games only: level points (``progression.level_points``, an abandon credited a loss), per-game
  stats (``progression.record_match``) and the badge of five wins. Games hosted elsewhere keep their
  own stats; here they move the ladder and appear in the players' history.

Limits: a player's deviation does not grow with idle time between matches (one match is one
Glicko-2 rating period, ``glicko2`` says this is the caller's business; nobody does it yet). Outcomes of
unrated matches are taken as reported.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import asdict, dataclass
from typing import Literal, Mapping

import grpc
from prometheus_client import Counter

from shared.errors import ServiceError, invalid
from shared.structs import Json

from services.rating import glicko2, progression
from services.rating.store import (
    BadgeRecord,
    LadderRecord,
    LedgerTransaction,
    MatchAlreadyRecorded,
    MatchPlayerRecord,
    MatchRecord,
    ProgressRecord,
    RatingStore,
    StatsRecord,
)

log = logging.getLogger(__name__)

MatchKind = Literal["ranked", "casual", "private"]

# Metric label for every game hosted elsewhere: game ids we do not host are chosen by other systems,
# and one label value per such id would let them grow our metrics without bound.
OTHER_GAME_LABEL = "other"

RESULTS = Counter(
    "cardroom_rating_results_total",
    "RecordMatchResult calls by game and what became of them: applied, retry (answered again) or conflict.",
    ["game", "result"],
)

_WHOLE_NUMBER = re.compile(r"-?[0-9]{1,9}")  # ASCII digits only; nine keep it a plain int32-sized length

_SCORES: Mapping[str, float] = {"win": glicko2.WIN, "draw": glicko2.DRAW, "loss": glicko2.LOSS}


@dataclass(frozen=True)
class Seat:
    """One participant of a finished match, as reported."""

    player_id: str
    seat: int
    team: int
    outcome: progression.Outcome
    total: int
    round_scores: tuple[int, ...]
    robot: bool
    abandoned: bool

    @property
    def human(self) -> bool:
        return not self.robot and bool(self.player_id)

    @property
    def credited(self) -> progression.Outcome:
        """The outcome that counts: an abandon is a loss."""
        return progression.credited_outcome(self.outcome, self.abandoned)


@dataclass(frozen=True)
class MatchResult:
    """A finished match as the ledger records it."""

    match_id: str
    game: str
    kind: MatchKind
    options: Mapping[str, str]
    seats: tuple[Seat, ...]
    finished_at_us: int
    rounds: int
    teams: bool

    @property
    def humans(self) -> tuple[Seat, ...]:
        return tuple(seat for seat in self.seats if seat.human)

    @property
    def ours(self) -> bool:
        """Whether the game is hosted on this platform (level points, stats and badges are ours only)."""
        return self.game in progression.GAMES


@dataclass(frozen=True)
class LadderRating:
    """A player's place on the ladder at one moment."""

    rating: float
    deviation: float
    volatility: float
    rated_matches: int

    @property
    def provisional(self) -> bool:
        return self.deviation >= glicko2.PROVISIONAL_DEVIATION

    def glicko(self) -> glicko2.Rating:
        return glicko2.Rating(self.rating, self.deviation, self.volatility)


INITIAL_RATING = LadderRating(
    glicko2.DEFAULT.rating, glicko2.DEFAULT.deviation, glicko2.DEFAULT.volatility, rated_matches=0
)


@dataclass(frozen=True)
class Change:
    """How one human's standing changed with a match."""

    player_id: str
    rating_before: LadderRating | None
    rating_after: LadderRating | None
    level_points: int
    level: int
    badge_earned: str


@dataclass(frozen=True)
class Recorded:
    """The answer to recording a match (``applied`` is False when it is the first answer again)."""

    applied: bool
    rated: bool
    changes: tuple[Change, ...]

    def to_json(self) -> str:
        return json.dumps({"rated": self.rated, "changes": [asdict(change) for change in self.changes]}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str, applied: bool) -> Recorded:
        data = json.loads(text)
        return cls(applied=applied, rated=data["rated"], changes=tuple(_change(item) for item in data["changes"]))


def _change(data: Mapping[str, Json]) -> Change:
    before, after = data["rating_before"], data["rating_after"]
    return Change(
        player_id=str(data["player_id"]),
        rating_before=LadderRating(**before) if isinstance(before, dict) else None,
        rating_after=LadderRating(**after) if isinstance(after, dict) else None,
        level_points=int(data["level_points"]),
        level=int(data["level"]),
        badge_earned=str(data["badge_earned"]),
    )


# -- what a match pays ---------------------------------------------------------------------------


def typed_options(options: Mapping[str, str]) -> dict[str, object]:
    """The API carries options as strings; ``progression`` reads lengths ("holes", "rounds") as ints."""
    return {key: int(value) if _WHOLE_NUMBER.fullmatch(value) else value for key, value in options.items()}


def moves_ladder(result: MatchResult) -> bool:
    """Whether the match moves the one shared ladder."""
    any_robot = any(not seat.human for seat in result.seats)
    if result.ours:
        return progression.is_ladder_match(
            result.game,
            seats=len(result.seats),
            ranked=result.kind == "ranked",
            private=result.kind == "private",
            any_robot=any_robot,
            team_game=result.teams,
        )
    return (
        result.kind == "ranked"
        and len(result.seats) == progression.LADDER_SEATS
        and not any_robot
        and not result.teams
    )


def ladder_score(first: Seat, second: Seat) -> float:
    """The first player's Glicko-2 score against the second (see the module docstring)."""
    if first.abandoned or second.abandoned:
        if first.abandoned and second.abandoned:
            return glicko2.DRAW
        return glicko2.LOSS if first.abandoned else glicko2.WIN
    score = _SCORES[first.outcome]
    if _SCORES[second.outcome] != 1.0 - score:
        raise invalid("participants", "a rated match needs a win and a loss, or two draws")
    return score


def level_points_for(result: MatchResult, seat: Seat) -> int:
    if not result.ours:
        return 0
    return progression.level_points(result.game, typed_options(result.options), seat.credited)


def check(result: MatchResult) -> None:
    """Refuse (INVALID_ARGUMENT) what the shape checks cannot see: formats and rated outcomes."""
    if result.ours:
        try:
            progression.match_format(result.game, typed_options(result.options))
        except ValueError as error:
            raise invalid("options", str(error)) from None
    if moves_ladder(result):
        ladder_score(*result.humans)


# -- applying a match ----------------------------------------------------------------------------


def _ladder_rating(record: LadderRecord | None) -> LadderRating:
    if record is None:
        return INITIAL_RATING
    return LadderRating(record.rating, record.deviation, record.volatility, record.rated_matches)


def _rate(tx: LedgerTransaction, result: MatchResult, now_us: int) -> dict[str, tuple[LadderRating, LadderRating]]:
    """Move both players' ratings; each player's (before, after)."""
    first, second = result.humans
    records = {seat.player_id: tx.ladder(seat.player_id) for seat in (first, second)}
    before = {player_id: _ladder_rating(record) for player_id, record in records.items()}
    new_first, new_second = glicko2.rate_match(
        before[first.player_id].glicko(), before[second.player_id].glicko(), ladder_score(first, second)
    )
    moves: dict[str, tuple[LadderRating, LadderRating]] = {}
    for seat, new in ((first, new_first), (second, new_second)):
        old = before[seat.player_id]
        after = LadderRating(new.rating, new.deviation, new.volatility, old.rated_matches + 1)
        record = records[seat.player_id] or LadderRecord(
            player_id=seat.player_id, rating=0.0, deviation=0.0, volatility=0.0, updated_at_us=now_us
        )
        record.rating, record.deviation, record.volatility = after.rating, after.deviation, after.volatility
        record.rated_matches, record.updated_at_us = after.rated_matches, now_us
        tx.save(record)
        moves[seat.player_id] = (old, after)
    return moves


def _record_game(tx: LedgerTransaction, result: MatchResult, seat: Seat) -> str:
    """Update the player's stats of the game; the badge's game if this match earned it, else ""."""
    record = tx.stats(seat.player_id, result.game) or StatsRecord(player_id=seat.player_id, game=result.game)
    before = progression.GameStats(
        played=record.played,
        won=record.won,
        drawn=record.drawn,
        lost=record.lost,
        best_round=record.best_round,
        round_score_sum=record.round_score_sum,
        round_count=record.round_count,
    )
    after = progression.record_match(before, result.game, seat.outcome, seat.round_scores, abandoned=seat.abandoned)
    for name, value in asdict(after).items():
        setattr(record, name, value)
    tx.save(record)
    if not progression.badge_earned(before.won, after.won) or tx.badge(seat.player_id, result.game) is not None:
        return ""
    tx.save(
        BadgeRecord(
            player_id=seat.player_id, game=result.game, match_id=result.match_id, earned_at_us=result.finished_at_us
        )
    )
    return result.game


def _history_row(
    result: MatchResult, seat: Seat, points: int, move: tuple[LadderRating, LadderRating] | None
) -> MatchPlayerRecord:
    row = MatchPlayerRecord(
        match_id=result.match_id,
        player_id=seat.player_id,
        seat=seat.seat,
        game=result.game,
        kind=result.kind,
        outcome=seat.credited,
        total=seat.total,
        abandoned=seat.abandoned,
        level_points=points,
        finished_at_us=result.finished_at_us,
    )
    if move is not None:
        before, after = move
        row.rating_before, row.deviation_before = before.rating, before.deviation
        row.volatility_before = before.volatility
        row.rating_after, row.deviation_after, row.volatility_after = after.rating, after.deviation, after.volatility
        row.rated_matches_after = after.rated_matches
    return row


def _apply(tx: LedgerTransaction, result: MatchResult, content_hash: str) -> Recorded:
    now_us = time.time_ns() // 1000
    rated = moves_ladder(result)
    match = MatchRecord(
        match_id=result.match_id,
        content_hash=content_hash,
        game=result.game,
        kind=result.kind,
        rated=rated,
        finished_at_us=result.finished_at_us,
        recorded_at_us=now_us,
        answer="",
    )
    tx.claim(match)
    progress: dict[str, ProgressRecord] = tx.lock_players([seat.player_id for seat in result.humans])
    moves = _rate(tx, result, now_us) if rated else {}
    changes = []
    for seat in result.humans:
        points = level_points_for(result, seat)
        player = progress[seat.player_id]
        player.level_points += points
        tx.save(player)
        badge = _record_game(tx, result, seat) if result.ours else ""
        move = moves.get(seat.player_id)
        tx.save(_history_row(result, seat, points, move))
        changes.append(
            Change(
                player_id=seat.player_id,
                rating_before=move[0] if move else None,
                rating_after=move[1] if move else None,
                level_points=points,
                level=progression.level_for(player.level_points).level,
                badge_earned=badge,
            )
        )
    recorded = Recorded(applied=True, rated=rated, changes=tuple(changes))
    match.answer = recorded.to_json()
    tx.save(match)
    return recorded


def _answer_again(match: MatchRecord, content_hash: str) -> Recorded:
    if match.content_hash != content_hash:
        raise ServiceError(
            grpc.StatusCode.ALREADY_EXISTS,
            "CONFLICT",
            "this match id was recorded with other content",
            {"match_id": match.match_id},
        )
    return Recorded.from_json(match.answer, applied=False)


def _record_once(store: RatingStore, result: MatchResult, content_hash: str) -> Recorded:
    existing = store.match(result.match_id)
    if existing is not None:
        return _answer_again(existing, content_hash)
    try:
        with store.transaction() as tx:
            return _apply(tx, result, content_hash)
    except MatchAlreadyRecorded:
        raced = store.match(result.match_id)
        if raced is None:  # the other transaction rolled back after all: try once more
            return _record_once(store, result, content_hash)
        return _answer_again(raced, content_hash)


class Ledger:
    """Records matches; async callers, blocking database work on worker threads."""

    def __init__(self, store: RatingStore) -> None:
        self.store = store

    async def record(self, result: MatchResult, content_hash: str) -> Recorded:
        """Apply ``result`` once; a retry gets the first answer with ``applied`` False.

        Raises ``ServiceError`` INVALID_ARGUMENT for a format or rated outcome that cannot be, and
        ALREADY_EXISTS CONFLICT for a known match id whose content differs.
        """
        check(result)
        label = result.game if result.ours else OTHER_GAME_LABEL
        try:
            recorded = await asyncio.to_thread(_record_once, self.store, result, content_hash)
        except ServiceError as error:
            if error.reason == "CONFLICT":
                RESULTS.labels(label, "conflict").inc()
                log.warning("match id reused with other content", extra={"match_id": result.match_id})
            raise
        RESULTS.labels(label, "applied" if recorded.applied else "retry").inc()
        if recorded.applied:
            log.info(
                "match recorded", extra={"match_id": result.match_id, "game": result.game, "rated": recorded.rated}
            )
        return recorded
