"""Hidden stays hidden in refusals too: no rejection message names a card.

A refusal goes back to the seat that acted, and often into logs. Across random positions of every
game, every action any seat might send — legal for someone else, out of turn, or malformed — is
refused, if it is, with a message that carries no card at all.
"""

from __future__ import annotations

import random
import re

import pytest

from shared.games import registry
from shared.games.base import Rejection, Setup

CARD_IN_TEXT = re.compile(r"\b(?:A|[2-9]|10|J|Q|K)[SHDC]\b")
SEATS = {"four_down": 3, "golf": 3, "cambio": 3, "cabo": 3, "quatro": 4, "tower": 3}
GARBAGE = [
    {},
    {"type": "draw"},
    {"type": "draw", "from": "nowhere"},
    {"type": "replace", "slot": 99},
    {"type": "replace", "slot": "1"},
    {"type": "power", "targets": [[9, 9]]},
    {"type": "match", "target": [0]},
    {"type": "snap", "target": [1, -1]},
    {"type": "give", "slot": None},
    {"type": "exchange", "hand_slot": 0, "center_slot": 0, "expect": "QS"},
    {"type": "exchange", "hand_slot": 7, "center_slot": 0, "expect": "AH"},
    {"type": "play", "hand": ["KS", "KH"], "up": [0], "down": [3]},
    {"type": "play", "hand": ["4H"], "as": "K"},
    {"type": "flip", "slot": 5},
    {"type": "setup", "direction": "up", "variations": ["hot_fives"]},
    {"type": "choose_signal", "emoji": "KS"},
    {"type": "no_such_thing"},
]


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_no_rejection_message_names_a_card(game_id: str) -> None:
    game = registry.game(game_id)
    seats = SEATS[game_id]
    rng = random.Random(game_id)
    state, _ = game.start(Setup(seats=seats, options=game.check_options({}, seats), seed=5))
    now = 0.0
    refused = 0
    for _ in range(300):
        if game.result(state) is not None:
            break
        everyone_legal = [action for seat in range(seats) for action in game.legal_actions(state, seat)]
        for seat in range(seats):
            for action in rng.sample(everyone_legal, min(5, len(everyone_legal))) + GARBAGE:
                try:
                    game.apply(state, seat, action, now)
                except Rejection as rejection:
                    refused += 1
                    assert not CARD_IN_TEXT.search(rejection.message), f"{game_id}: {rejection.message!r}"
        now += 0.7
        movers = [s for s in range(seats) if game.legal_actions(state, s)]
        if movers:
            seat = rng.choice(movers)
            state, _ = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)), now)
        else:
            state, _ = game.advance(state, now + 1)
    assert refused > 100
