"""Round scores, match end and outcomes for the family, read from each game's rule table."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from shared.games.base import Standing
from shared.games.golf_family.rules import (
    CALL_KNOCK_PENALTY,
    CALL_STRICT_LOWEST,
    KNOCK_PENALTY,
    FamilyRules,
)
from shared.games.golf_family.state import Row

WIN = "win"
DRAW = "draw"
LOSS = "loss"


def card_total(rules: FamilyRules, row: Row) -> int:
    """FD-13, GO-12: the values left in a row; an empty slot counts nothing."""
    return sum(rules.value(card) for card in row if card is not None)


def round_scores(rules: FamilyRules, hands: Sequence[Row], caller: int | None, judge_call: bool) -> tuple[int, ...]:
    """Each seat's score for the round; ``judge_call`` is False when a cleared row ended it (CA-12)."""
    cards = [card_total(rules, row) for row in hands]
    if caller is None or not judge_call:
        return tuple(cards)
    if rules.call_rule == CALL_KNOCK_PENALTY:  # GO-5
        penalty = KNOCK_PENALTY if cards[caller] > min(cards) else 0
        return tuple(total + (penalty if seat == caller else 0) for seat, total in enumerate(cards))
    if rules.call_rule == CALL_STRICT_LOWEST:
        return _strict_lowest_scores(rules, hands, cards, caller)
    return tuple(cards)  # FD-13: no bonus, no penalty


def _strict_lowest_scores(rules: FamilyRules, hands: Sequence[Row], cards: list[int], caller: int) -> tuple[int, ...]:
    special = rules.special_caller_hand
    held = Counter(card for card in hands[caller] if card is not None)
    if special is not None and held == Counter(special.cards):  # CA-14
        return tuple(special.caller_score if seat == caller else special.others_score for seat in range(len(cards)))
    strictly_lowest = all(cards[caller] < total for seat, total in enumerate(cards) if seat != caller)
    caller_score = 0 if strictly_lowest else max(cards) + KNOCK_PENALTY  # CA-13
    return tuple(caller_score if seat == caller else total for seat, total in enumerate(cards))


def match_over(totals: Sequence[int], round_number: int, finish_line: int | None, round_limit: int | None) -> bool:
    """FD-14, CA-16: a total reached the finish line; GO-7, CA-16: the last round was played."""
    if finish_line is not None and max(totals) >= finish_line:
        return True
    return round_limit is not None and round_number >= round_limit


def winners(totals: Sequence[int]) -> tuple[int, ...]:
    """FD-14, GO-7, CA-16: the lowest total wins; several level on lowest share it."""
    best = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == best)


def standings(totals: Sequence[int]) -> tuple[Standing, ...]:
    """rules/README.md "Progression": one lowest is a win; several level on lowest draw; the rest lose."""
    best = winners(totals)
    outcome_of_best = WIN if len(best) == 1 else DRAW
    return tuple(Standing(total, outcome_of_best if seat in best else LOSS) for seat, total in enumerate(totals))
