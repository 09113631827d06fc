"""The state of a Quatro table: small frozen values, replaced (never changed) by the engine.

Purpose: one immutable record of everything the server knows, so that ``apply`` and ``advance``
build a new state with ``dataclasses.replace`` and the state they were given stays valid (a
refused action leaves the table exactly as it was).
Limits: no rules here beyond tiny derived facts (who is connected, who is a human).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, TypeVar

from shared.games.quatro.rules import Deal

SIGNALS_PHASE = "signals"  # QU-3, QU-4: deal shown, signals chosen, players get ready
PLAYING = "playing"  # QU-5..QU-9: real-time play
ROUND_OVER = "round_over"  # QU-10, QU-11: hands shown, the pause before the next round
MATCH_OVER = "match_over"  # QU-14


@dataclass(frozen=True)
class FloorHold:
    """A seat holding the floor (QU-7): the emoji it shows (None until it chooses) and when that
    emoji is next announced again."""

    emoji: str | None = None
    announce_at: float | None = None


@dataclass(frozen=True)
class Vote:
    """An open reshuffle proposal (QU-12): who proposed it, when it closes, who said yes."""

    proposer: int
    closes_at: float
    accepted: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Call:
    """How a round ended (QU-8, QU-9, QU-10): ``kind`` is ``quatro``, ``contra`` or ``blank``;
    ``team`` is the team judged (the caller's partner's for quatro, the accused for contra)."""

    kind: str
    seat: int | None
    team: int | None
    correct: bool


@dataclass(frozen=True)
class QuatroState:
    """The whole truth of one Quatro table at one moment."""

    seats: int
    host: int
    seed: int
    deals: tuple[Deal, ...]
    robots: frozenset[int]
    clock: float
    phase: str
    round: int
    phase_since: float  # when the round was set up, play began, or the round ended
    hands: tuple[tuple[str, ...], ...]
    center: tuple[str, ...]
    redeals: int  # QU-2, for the deal in play
    signals: tuple[str | None, ...]  # per team, this round (QU-3)
    previous_signals: tuple[str | None, ...]  # per team, last round: a new round needs a new one
    ready: frozenset[int]
    disconnected: frozenset[int]
    exchange_free_at: tuple[float | None, ...]  # per seat, QU-6
    gesture_free_at: tuple[float | None, ...]  # per seat, QU-7
    floor: tuple[FloorHold | None, ...]  # per seat, QU-7
    vote: Vote | None
    last_proposal_at: float | None  # QU-12: 30 s between two proposals at the table
    reshuffled: bool  # QU-12: at most one reshuffle per round
    totals: tuple[int, ...]  # per team
    round_scores: tuple[int, ...]  # per team, the round just ended
    history: tuple[tuple[int, ...], ...]  # per round ended, per team
    last_call: Call | None
    winners: tuple[int, ...]  # teams, once the match is over

    @property
    def teams(self) -> int:
        return self.seats // 2

    def is_connected(self, seat: int) -> bool:
        return seat not in self.disconnected

    def connected_humans(self) -> list[int]:
        return [seat for seat in range(self.seats) if seat not in self.robots and seat not in self.disconnected]

    def holds_floor(self, seat: int) -> bool:
        return self.floor[seat] is not None


T = TypeVar("T")


def replaced_at(items: Sequence[T], index: int, value: T) -> tuple[T, ...]:
    """A copy of ``items`` as a tuple with ``items[index]`` set to ``value``."""
    return tuple(value if position == index else item for position, item in enumerate(items))
