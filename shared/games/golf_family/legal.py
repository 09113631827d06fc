"""Legal actions and turn-clock actions of a golf-family table, for robots, clients and tests.

``legal_actions`` lists every action a seat may send now, wrong guesses included (a match,
burn or snap is a claim: it is legal whether or not it is right). It leaves out
``move_finish_line``, whose argument is open-ended; the host's client offers it by itself.
"""

from __future__ import annotations

from itertools import combinations

from shared.games.base import Json
from shared.games.golf_family.rules import (
    BURN,
    LOOK_OTHER,
    LOOK_OWN,
    LOOK_THEN_SWAP_ANY_SEAT,
    MATCH,
    SNAP,
    SWAP_ANY,
    SWAP_OWN_OTHER,
    FamilyRules,
)
from shared.games.golf_family.state import FamilyState, PendingChoice, Target

Action = dict[str, Json]


def _targets(state: FamilyState) -> list[Target]:
    return [(seat, slot) for seat in range(state.seats) for slot in state.filled_slots(seat)]


def _wire(target: Target) -> list[int]:
    return [target[0], target[1]]


def legal_actions(rules: FamilyRules, state: FamilyState, seat: int) -> list[Action]:
    if state.over or not 0 <= seat < state.seats:
        return []
    owed = state.give_owed_by(seat)
    if owed is not None:  # FD-8, CA-9: the give comes first
        return [{"type": "give", "slot": slot} for slot in state.filled_slots(seat)]
    actions = _snaps(rules, state, seat)
    if seat != state.turn:
        return actions
    if state.choice is not None:
        return actions + _choice_actions(state, seat, state.choice)
    if state.drawn is None:
        return actions + _turn_openings(rules, state, seat)
    actions += [{"type": "replace", "slot": slot} for slot in state.filled_slots(seat)]
    if state.drawn_from == "stock":
        actions.append({"type": "discard"})
        actions += _powers(rules, state, seat, state.drawn)
        if rules.claim_in_play(state.options) == MATCH:
            actions += [{"type": MATCH, "target": _wire(target)} for target in _targets(state)]
    return actions


def _snaps(rules: FamilyRules, state: FamilyState, seat: int) -> list[Action]:
    """CA-7, CA-8: any face-down card while a window is open, but not your own onto your own."""
    if rules.claim_in_play(state.options) != SNAP or not state.window_open:
        return []
    barred_owner = seat if state.window_opener == seat else None
    return [{"type": SNAP, "target": _wire(target)} for target in _targets(state) if target[0] != barred_owner]


def _turn_openings(rules: FamilyRules, state: FamilyState, seat: int) -> list[Action]:
    actions: list[Action] = []
    if state.caller is None and state.final_seats is None:  # FD-11, GO-4, CA-13
        actions.append({"type": "call"})
    actions.append({"type": "draw", "from": "stock"})
    if state.discard and state.filled_slots(seat):  # FD-4: it must replace a card
        actions.append({"type": "draw", "from": "discard"})
    if rules.claim_in_play(state.options) == BURN and not state.burned and state.discard:  # GO-9
        actions += [{"type": BURN, "target": _wire(target)} for target in _targets(state)]
    return actions


def _powers(rules: FamilyRules, state: FamilyState, seat: int, card: str) -> list[Action]:
    power = rules.power_of(card, state.options)
    if power is None:
        return []
    everyone = _targets(state)
    own = [target for target in everyone if target[0] == seat]
    others = [target for target in everyone if target[0] != seat]
    if power == LOOK_OWN:
        choices = [[target] for target in own]
    elif power == LOOK_OTHER:
        choices = [[target] for target in others]
    elif power == SWAP_ANY:
        choices = [list(pair) for pair in combinations(everyone, 2)]
    elif power == SWAP_OWN_OTHER:
        choices = [[mine, theirs] for mine in own for theirs in others]
    else:  # a look-then-swap power looks at any one card first
        choices = [[target] for target in everyone]
    return [{"type": "power", "targets": [_wire(target) for target in targets]} for targets in choices]


def _choice_actions(state: FamilyState, seat: int, choice: PendingChoice) -> list[Action]:
    actions: list[Action] = [{"type": "pass"}]
    if choice.gone or state.card_at(choice.looked) is None:
        return actions
    looked_seat = choice.looked[0]
    for target in _targets(state):
        if choice.power == LOOK_THEN_SWAP_ANY_SEAT:
            allowed = target[0] != looked_seat  # CA-4
        else:
            allowed = (target[0] == seat) != (looked_seat == seat)  # CA-6 jack_looks
        if allowed:
            actions.append({"type": "swap", "targets": [_wire(choice.looked), _wire(target)]})
    return actions


def clock_actions(rules: FamilyRules, state: FamilyState, seat: int) -> list[Action]:
    """What the turn clock plays for ``seat``: a safe sequence finishing its obligation and turn."""
    if state.over or not 0 <= seat < state.seats:
        return []
    sequence: list[Action] = []
    owed = state.give_owed_by(seat)
    if owed is not None:
        filled = state.filled_slots(seat)
        if filled:
            sequence.append({"type": "give", "slot": filled[0]})
        if rules.claim == MATCH:
            return sequence  # FD-8: the give ends the matcher's turn
    if seat != state.turn:
        return sequence
    if state.choice is not None:
        return sequence + [{"type": "pass"}]
    if state.drawn is None:
        return sequence + [{"type": "draw", "from": "stock"}, {"type": "discard"}]
    if state.drawn_from == "stock":
        return sequence + [{"type": "discard"}]
    filled = state.filled_slots(seat)
    return sequence + [{"type": "replace", "slot": filled[0]}] if filled else sequence
