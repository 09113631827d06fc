"""Quatro's fixed rules as data and pure helpers: the deck, the deal, quartets, the signals.

Purpose: everything in Quatro that does not depend on time or on who is connected (seed 001,
rules/quatro.md QU-1, QU-2, QU-3), so that the engine module holds only the flow of a round.
Limits: no state, no events; cards are strings as ``shared.games.cards`` writes them, and only
their rank is ever compared (QU-1: suits are decoration).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

from shared.games.base import BAD_DEAL, Json, Rejection
from shared.games.cards import SUITS, is_card, rank
from shared.games.rng import shuffled

# QU-3: the 24 emojis a team may take as its signal (and a player may show on the floor). The
# order is part of the protocol: clients draw the picker in this order.
SIGNALS: tuple[str, ...] = (
    "🍍", "🚀", "🐢", "🦊", "🐙", "🌵", "🍄", "🎈",
    "🔔", "🌙", "🔥", "🌊", "🍀", "🎲", "🐝", "🦉",
    "🍒", "🎸", "🐳", "🌈", "🍩", "👑", "🦋", "🎯",
)  # fmt: skip

# QU-1: "from the ace down to the ten" with 4 players; 6 add 9 8; 8 add 7 6 (n + 1 values).
RANK_LADDER: tuple[str, ...] = ("A", "K", "Q", "J", "10", "9", "8", "7", "6")
SEAT_COUNTS: tuple[int, ...] = (4, 6, 8)  # seed 001: "Se juega con cuatro, seis u ocho jugadores"
HAND_SIZE = 4  # QU-1: four cards to each hand
CENTER_SIZE = 4  # QU-1: four face up in the centre
QUARTET = 4  # QU-8: four cards of one value
THREE_OF_A_VALUE = 3  # QU-2: a hand served with three (or four) of a value is dealt again
# QU-2 repeats the deal until it is clean; a clean deal comes in 3 of 4 tries or better (4 players:
# ~77 %, measured), so 1000 tries never run out in practice. Should they, a striped deal (below)
# is used so that the engine still never fails.
MAX_DEAL_ATTEMPTS = 1000


def teams_of(seats: int) -> int:
    """Number of teams: partners sit opposite, so n / 2 (QU-1 header)."""
    return seats // 2


def team_of(seat: int, seats: int) -> int:
    """Team t is seats t and t + n/2."""
    return seat % teams_of(seats)


def members(team: int, seats: int) -> tuple[int, int]:
    return (team, team + teams_of(seats))


def partner_of(seat: int, seats: int) -> int:
    return (seat + teams_of(seats)) % seats


def deck(seats: int) -> tuple[str, ...]:
    """QU-1: n + 1 values, four cards each (suits written for decoration only)."""
    values = RANK_LADDER[: seats + 1]
    return tuple(value + suit for value in values for suit in SUITS)


def quartet_rank(hand: Sequence[str | None]) -> str | None:
    """The value of a four-of-a-kind hand (QU-8), else None."""
    if len(hand) != QUARTET or any(card is None for card in hand):
        return None
    values = {rank(card) for card in hand if card is not None}
    return values.pop() if len(values) == 1 else None


def holds_quartet(hand: Sequence[str | None]) -> bool:
    return quartet_rank(hand) is not None


def holds_three_of_a_value(hand: Sequence[str]) -> bool:
    """QU-2: three or four cards of one value."""
    return max(Counter(rank(card) for card in hand).values()) >= THREE_OF_A_VALUE


@dataclass(frozen=True)
class Deal:
    """A position to play from: hands by seat and slot, centre by slot, and how it was reached.

    ``redeals`` is how many times the whole deal was repeated (QU-2) and ``hands_with_three`` how
    many hands of those discarded deals held three of a value: the table is told both numbers,
    never the value.
    """

    hands: tuple[tuple[str, ...], ...]
    center: tuple[str, ...]
    redeals: int = 0
    hands_with_three: int = 0


def _split(order: Sequence[str], seats: int) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    hands = tuple(tuple(order[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]) for seat in range(seats))
    return hands, tuple(order[seats * HAND_SIZE : seats * HAND_SIZE + CENTER_SIZE])


def seeded_deal(cards: Sequence[str], seats: int, seed: int, *labels: object) -> Deal:
    """QU-2: shuffle and deal, repeating the whole deal until no hand holds three of a value."""
    discarded_hands = 0
    for attempt in range(MAX_DEAL_ATTEMPTS):
        hands, center = _split(shuffled(sorted(cards), seed, *labels, attempt), seats)
        bad_hands = sum(1 for hand in hands if holds_three_of_a_value(hand))
        if bad_hands == 0:
            return Deal(hands, center, attempt, discarded_hands)
        discarded_hands += bad_hands
    return _striped_deal(cards, seats, seed, *labels)


def _striped_deal(cards: Sequence[str], seats: int, seed: int, *labels: object) -> Deal:
    """A deal that is clean by construction: cards grouped by value, dealt round the table, so
    each hand takes at most one card of each block of four (n >= 4)."""
    order = sorted(shuffled(sorted(cards), seed, *labels, "striped"), key=lambda card: RANK_LADDER.index(rank(card)))
    hands = tuple(tuple(order[seat + seats * k] for k in range(HAND_SIZE)) for seat in range(seats))
    return Deal(hands, tuple(order[seats * HAND_SIZE :]), MAX_DEAL_ATTEMPTS, 0)


def given_deal(raw: Mapping[str, Json], seats: int) -> Deal:
    """A deal fixed by the table's set-up (conformance ``deals``): used as is, no QU-2 check.

    Raises ``Rejection(BAD_DEAL)`` unless it is n hands of four and a centre of four, all distinct
    cards of this table's deck.
    """
    if not isinstance(raw, Mapping) or set(raw) != {"hands", "center"}:
        raise Rejection(BAD_DEAL, "a quatro deal is exactly 'hands' and 'center'")
    hands, center = raw["hands"], raw["center"]
    if not isinstance(hands, list) or len(hands) != seats or not isinstance(center, list):
        raise Rejection(BAD_DEAL, f"a quatro deal has {seats} hands and a centre")
    if any(not isinstance(hand, list) or len(hand) != HAND_SIZE for hand in hands) or len(center) != CENTER_SIZE:
        raise Rejection(BAD_DEAL, f"every hand and the centre hold {HAND_SIZE} cards")
    cards = [card for hand in hands for card in hand] + list(center)
    allowed = set(deck(seats))
    if any(not isinstance(card, str) or not is_card(card) or card not in allowed for card in cards):
        raise Rejection(BAD_DEAL, "a card is not in this table's deck (QU-1)")
    if len(set(cards)) != len(cards):
        raise Rejection(BAD_DEAL, "a card is dealt twice")
    return Deal(tuple(tuple(hand) for hand in hands), tuple(center))
