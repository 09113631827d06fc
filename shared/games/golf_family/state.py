"""The state of a golf-family table: small frozen values, replaced rather than changed.

Rows are tuples of slots (a card string, or ``None`` for an emptied slot: slot numbers never
shift); the stock is top first, the discard pile bottom to top. Every helper returns a new value.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from shared.games.base import Json

Row = tuple[str | None, ...]
Target = tuple[int, int]  # (seat, slot)

PLAYING = "playing"
FINAL_TURNS = "final_turns"
ROUND_OVER = "round_over"
MATCH_OVER = "match_over"


@dataclass(frozen=True)
class PendingGive:
    """A seat owes a card to fill the hole its correct claim made (FD-8, GO-9, CA-9)."""

    giver: int
    hole: Target


@dataclass(frozen=True)
class PendingChoice:
    """The second step of a look-then-swap power: the looked-at slot, then ``swap`` or ``pass``."""

    seat: int
    looked: Target
    power: str
    gone: bool = False  # the looked-at card was snapped away (a give may refill the slot with another)


@dataclass(frozen=True)
class FamilyState:
    """One table of a golf-family game, between two inputs."""

    game_id: str
    options: Mapping[str, Json]
    seats: int
    seed: int
    deals: tuple[Mapping[str, Json], ...]
    first: int  # the seat that starts round 1 (FD-2, GO-2, CA-2)
    round: int
    phase: str
    hands: tuple[Row, ...]
    stock: tuple[str, ...]
    discard: tuple[str, ...]
    turn: int
    finish_line: int | None
    round_limit: int | None
    drawn: str | None = None
    drawn_from: str | None = None
    burned: bool = False  # GO-9: one burn per own turn
    caller: int | None = None
    final_seats: tuple[int, ...] | None = None  # seats still owed a final turn, in order
    gives: tuple[PendingGive, ...] = ()
    choice: PendingChoice | None = None
    window_open: bool = False  # CA-7
    window_opener: int | None = None  # CA-8
    reshuffles: int = 0
    totals: tuple[int, ...] = ()
    round_scores: tuple[int, ...] | None = None
    history: tuple[tuple[int, ...], ...] = ()
    last_round_hands: tuple[Row, ...] | None = None
    winners: tuple[int, ...] = ()

    def card_at(self, target: Target) -> str | None:
        seat, slot = target
        return self.hands[seat][slot]

    def filled_slots(self, seat: int) -> list[int]:
        return [slot for slot, card in enumerate(self.hands[seat]) if card is not None]

    def give_owed_by(self, seat: int) -> PendingGive | None:
        return next((give for give in self.gives if give.giver == seat), None)

    @property
    def over(self) -> bool:
        return self.phase == MATCH_OVER

    def with_slot(self, target: Target, card: str | None) -> FamilyState:
        seat, slot = target
        row = self.hands[seat]
        new_row = row[:slot] + (card,) + row[slot + 1 :]
        return replace(self, hands=self.hands[:seat] + (new_row,) + self.hands[seat + 1 :])

    def with_new_slot(self, seat: int, card: str) -> tuple[FamilyState, int]:
        """A penalty card in a new slot at the end of ``seat``'s row (FD-9, GO-10, CA-10)."""
        row = self.hands[seat] + (card,)
        hands = self.hands[:seat] + (row,) + self.hands[seat + 1 :]
        return replace(self, hands=hands), len(row) - 1

    def onto_pile(self, card: str) -> FamilyState:
        return replace(self, discard=self.discard + (card,))


def next_seat(seat: int, seats: int) -> int:
    return (seat + 1) % seats


def seats_after(seat: int, seats: int) -> tuple[int, ...]:
    """Every other seat in turn order, starting after ``seat`` (FD-11, GO-4, CA-13)."""
    return tuple((seat + step) % seats for step in range(1, seats))
