"""Dealing a round: from the setup's exact deal for that round, or shuffled from the seed.

FD-2: four cards to each seat, then one card face up to start the discard pile, the rest is the
stock (the same for golf, cambio and cabo). An exact deal (conformance ``deals``) may hold any
cards of the game's deck; it is checked for shape and card names only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from shared.games.base import BAD_DEAL, Json, Rejection
from shared.games.golf_family.rules import FamilyRules
from shared.games.golf_family.state import Row
from shared.games.rng import shuffled

CARDS_PER_SEAT = 4  # FD-2, GO-1, CA-1: four face-down cards each
DEAL_KEYS = frozenset({"hands", "discard", "stock"})


@dataclass(frozen=True)
class Deal:
    hands: tuple[Row, ...]
    discard: tuple[str, ...]  # bottom to top
    stock: tuple[str, ...]  # top first


def deal_round(rules: FamilyRules, seats: int, seed: int, round_number: int, deals: Sequence[Mapping[str, Json]]) -> Deal:
    if round_number - 1 < len(deals):
        return exact_deal(rules, seats, deals[round_number - 1])
    return shuffled_deal(rules, seats, seed, round_number)


def shuffled_deal(rules: FamilyRules, seats: int, seed: int, round_number: int) -> Deal:
    cards = shuffled(rules.deck, seed, "deal", round_number)
    hands = tuple(tuple(cards[seat * CARDS_PER_SEAT : (seat + 1) * CARDS_PER_SEAT]) for seat in range(seats))
    dealt = seats * CARDS_PER_SEAT
    return Deal(hands=hands, discard=(cards[dealt],), stock=tuple(cards[dealt + 1 :]))


def exact_deal(rules: FamilyRules, seats: int, deal: Mapping[str, Json]) -> Deal:
    if not isinstance(deal, Mapping) or set(deal) != DEAL_KEYS:
        raise Rejection(BAD_DEAL, "a deal has exactly hands, discard and stock")
    hands = deal["hands"]
    if not isinstance(hands, (list, tuple)) or len(hands) != seats:
        raise Rejection(BAD_DEAL, "a deal has one row per seat")
    rows = tuple(_row(rules, row) for row in hands)
    discard = _cards(rules, deal["discard"])
    stock = _cards(rules, deal["stock"])
    if not discard:
        raise Rejection(BAD_DEAL, "the discard pile starts with a card")
    return Deal(hands=rows, discard=discard, stock=stock)


def _row(rules: FamilyRules, row: Json) -> Row:
    if not isinstance(row, (list, tuple)) or not row:
        raise Rejection(BAD_DEAL, "a row is a list of cards")
    return tuple(None if card is None else _card(rules, card) for card in row)


def _cards(rules: FamilyRules, cards: Json) -> tuple[str, ...]:
    if not isinstance(cards, (list, tuple)):
        raise Rejection(BAD_DEAL, "a pile is a list of cards")
    return tuple(_card(rules, card) for card in cards)


def _card(rules: FamilyRules, card: Json) -> str:
    if not isinstance(card, str) or card not in rules.values:
        raise Rejection(BAD_DEAL, f"not a card of {rules.game_id}: {card!r}")
    return card
