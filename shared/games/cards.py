"""Playing cards as the rules files write them: rank then suit (``AS``, ``10H``, ``KD``).

Cabo's numbered deck writes a card as its number alone (``"0"`` ... ``"13"``); Quatro compares
ranks only. Cards travel as these strings everywhere (events, views, logs), so that a test can
find every card a seat was sent by scanning strings.
"""

from __future__ import annotations

import re

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")

_CARD = re.compile(r"^(A|[2-9]|10|J|Q|K)([SHDC])$")
_NUMBERED = re.compile(r"^(0|[1-9]|1[0-3])$")


def standard_deck() -> list[str]:
    """One 52-card pack, in a fixed order (shuffle it with ``shared.games.rng``)."""
    return [rank + suit for suit in SUITS for rank in RANKS]


def is_card(text: str) -> bool:
    return bool(_CARD.match(text))


def is_numbered_card(text: str) -> bool:
    return bool(_NUMBERED.match(text))


def rank(card: str) -> str:
    """``"10H"`` -> ``"10"``; a numbered card is its own rank."""
    if _NUMBERED.match(card):
        return card
    match = _CARD.match(card)
    if match is None:
        raise ValueError(f"not a card: {card!r}")
    return match.group(1)


def suit(card: str) -> str:
    match = _CARD.match(card)
    if match is None:
        raise ValueError(f"not a suited card: {card!r}")
    return match.group(2)
