"""Whole random games of the golf family: cards are conserved, nothing hidden leaks, bad input is refused.

The leak check keeps its own knowledge oracle, written from the visibility rules (FD-15, GO-13,
CA-17) and the truth ``inspect`` gives before and after each action: what each seat (and a
spectator) may have been shown. Every card string in every event and view a seat receives must
be one it may know.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.games.base import Event, Rejection, Setup
from shared.games.cards import is_card, is_numbered_card
from shared.games.golf_family import CABO, CAMBIO, FOUR_DOWN, GOLF, GolfFamilyEngine
from shared.games.golf_family.rules import ACTION_FIELDS

GAMES: dict[str, tuple[GolfFamilyEngine, list[dict[str, Any]]]] = {
    "four_down": (FOUR_DOWN, [{}]),
    "golf": (GOLF, [{"mode": "classic", "holes": 3}, {"mode": "extreme", "holes": 3}]),
    "cambio": (CAMBIO, [{}, {"jack_looks": True, "wrong_snap_cards": 2, "wrong_snap_reveal": True}, {"rounds": 2}]),
    "cabo": (CABO, [{"looks_reversed": True}, {"finish_line": 60}]),
}
FIRST_LOOK = {"four_down": (1, 2), "golf": (2, 3), "cambio": (2, 3), "cabo": (2, 3)}  # FD-1, GO-1, CA-1
MAX_ACTIONS = 400  # enough for a few rounds; the suite must stay fast
SNAP_CHANCE = 0.15  # how often a seat other than the one to move acts (cambio, cabo snaps and gives)
SPECTATOR = None


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)


def looks_like_card(game_id: str, text: str) -> bool:
    return is_numbered_card(text) if game_id == "cabo" else is_card(text)


def rank(card: str) -> str:
    return card if card.isdigit() else card[:-1]


@dataclass
class Oracle:
    """What each seat may know, from the rules alone: cumulative, as a seat's stream is."""

    game_id: str
    seats: int
    public: set[str] = field(default_factory=set)
    known: dict[int, set[str]] = field(default_factory=dict)

    def allowed(self, seat: int | None) -> set[str]:
        return self.public | (self.known.get(seat, set()) if seat is not None else set())

    def new_round(self, truth: dict[str, Any]) -> None:
        self.public |= set(truth["discard"])
        for seat in range(self.seats):
            row = truth["hands"][str(seat)]
            shown = {row[slot] for slot in FIRST_LOOK[self.game_id] if slot < len(row) and row[slot]}
            self.known.setdefault(seat, set()).update(shown)

    def learn(self, seat: int, action: dict[str, Any], before: dict[str, Any], after: dict[str, Any], options: dict[str, Any]) -> None:
        kind = action["type"]
        drawn = before["drawn"]
        self.public |= set(before["discard"]) | set(after["discard"])
        if kind == "draw" and action["from"] == "stock" and after["drawn"] and after["round"] == before["round"]:
            self.known[seat].add(after["drawn"])  # FD-15: private to the drawer
        if kind == "replace":
            self.public.add(before["hands"][str(seat)][action["slot"]])  # the old card goes face up
        if kind in ("discard", "power", "match") and drawn:
            self.public.add(drawn)
        if kind == "power" and len(action["targets"]) == 1:
            target_seat, slot = action["targets"][0]
            self.known[seat].add(before["hands"][str(target_seat)][slot])  # a look: private to the looker
        if kind in ("match", "burn", "snap"):
            target_seat, slot = action["target"]
            card = before["hands"][str(target_seat)][slot]
            against = drawn if kind == "match" else before["discard_top"]
            right = rank(card) == rank(against)
            if right or kind == "match" or (kind == "snap" and options.get("wrong_snap_reveal")):
                self.public.add(card)  # on the pile, or FD-9 / CA-6 revealed
        if after["round"] != before["round"] or after["phase"] == "match_over":
            for row in after["last_round_hands"] or []:
                self.public |= {card for card in row if card}  # FD-15: every row at round end
            if drawn:
                self.public.add(drawn)
        if after["round"] != before["round"]:
            self.new_round(after)


def conserved(game: GolfFamilyEngine, truth: dict[str, Any]) -> bool:
    cards = [card for row in truth["hands"].values() for card in row if card]
    cards += truth["stock"] + truth["discard"] + ([truth["drawn"]] if truth["drawn"] else [])
    return Counter(cards) == Counter(game.rules.deck)


def check_delivery(game: GolfFamilyEngine, oracle: Oracle, state: Any, events: list[Event]) -> None:
    for seat in [*range(oracle.seats), SPECTATOR]:
        sent = [event.to_json() for event in events if event.audience.includes(seat)] + [game.view(state, seat)]
        cards = {text for text in strings_in(sent) if looks_like_card(game.id, text)}
        leaked = cards - oracle.allowed(seat)
        assert not leaked, f"seat {seat} was shown {sorted(leaked)}"


def pick(
    game: GolfFamilyEngine, state: Any, seats: int, chooser: random.Random, call_chance: float = 0.1
) -> tuple[int, dict[str, Any]] | None:
    mover = game.to_move(state)
    if mover is None:
        return None
    seat = mover
    if chooser.random() < SNAP_CHANCE:
        others = [other for other in range(seats) if other != mover and game.legal_actions(state, other)]
        seat = chooser.choice(others) if others else mover
    legal = game.legal_actions(state, seat)
    assert legal, f"seat {seat} is to move but has no legal action"
    calls = [action for action in legal if action["type"] == "call"]
    others = [action for action in legal if action["type"] != "call"]
    if calls and chooser.random() < call_chance or not others:  # call now and then: rounds end every way
        return seat, calls[0] if calls else legal[0]
    return seat, chooser.choice(others)


game_cases = st.sampled_from(sorted(GAMES)).flatmap(
    lambda game_id: st.tuples(
        st.just(game_id),
        st.sampled_from(GAMES[game_id][1]),
        st.integers(GAMES[game_id][0].min_seats, GAMES[game_id][0].max_seats),
        st.integers(0, 10**6),
        st.sampled_from([0.0, 0.02, 0.1]),  # never calling runs stocks out (FD-12, GO-6, CA-15)
    )
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=game_cases)
def test_random_games_conserve_cards_and_leak_nothing(case: tuple[str, dict[str, Any], int, int, float]) -> None:
    game_id, raw_options, seats, seed, call_chance = case
    game = GAMES[game_id][0]
    options = game.check_options(raw_options, seats)
    state, events = game.start(Setup(seats=seats, options=options, seed=seed))
    oracle = Oracle(game_id, seats)
    oracle.new_round(game.inspect(state))
    check_delivery(game, oracle, state, events)
    chooser = random.Random(seed)
    for _ in range(MAX_ACTIONS):
        move = pick(game, state, seats, chooser, call_chance)
        if move is None:
            break
        seat, action = move
        before = game.inspect(state)
        state, events = game.apply(state, seat, action, 0.0)
        after = game.inspect(state)
        assert conserved(game, after), f"cards not conserved after {action}"
        oracle.learn(seat, action, before, after, options)
        check_delivery(game, oracle, state, events)
    if game.result(state) is not None:
        assert game.inspect(state)["phase"] == "match_over"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.text(max_size=4) | st.sampled_from(["stock", "discard", "KD"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)
shaped_actions = st.sampled_from(sorted(ACTION_FIELDS)).flatmap(
    lambda kind: st.fixed_dictionaries({"type": st.just(kind), **{name: json_values for name in ACTION_FIELDS[kind]}})
)


@settings(max_examples=200, deadline=None)
@given(
    game_id=st.sampled_from(sorted(GAMES)),
    seed=st.integers(0, 10**6),
    warmup=st.integers(0, 30),
    seat=st.integers(-1, 6),
    action=json_values | shaped_actions,
)
def test_garbage_only_raises_rejection_and_changes_nothing(game_id: str, seed: int, warmup: int, seat: int, action: Any) -> None:
    game = GAMES[game_id][0]
    options = game.check_options(GAMES[game_id][1][0], 3)
    state, _ = game.start(Setup(seats=3, options=options, seed=seed))
    chooser = random.Random(seed)
    for _ in range(warmup):
        move = pick(game, state, 3, chooser)
        if move is None:
            break
        state, _ = game.apply(state, move[0], move[1], 0.0)
    before = (game.inspect(state), [game.view(state, s) for s in (0, 1, 2, None)])
    try:
        game.apply(state, seat, action, 0.0)
    except Rejection:
        pass
    assert (game.inspect(state), [game.view(state, s) for s in (0, 1, 2, None)]) == before


@settings(max_examples=40, deadline=None)
@given(game_id=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 10**6), warmup=st.integers(0, 40))
def test_every_action_legal_for_another_seat_is_refused_or_legal(game_id: str, seed: int, warmup: int) -> None:
    """An action offered to one seat, sent by another, is refused cleanly unless it is legal for it too."""
    game = GAMES[game_id][0]
    options = game.check_options(GAMES[game_id][1][0], 3)
    state, _ = game.start(Setup(seats=3, options=options, seed=seed))
    chooser = random.Random(seed)
    for _ in range(warmup):
        move = pick(game, state, 3, chooser)
        if move is None:
            return
        state, _ = game.apply(state, move[0], move[1], 0.0)
    for seat in range(3):
        legal = game.legal_actions(state, seat)
        for other in range(3):
            for action in game.legal_actions(state, other):
                if action in legal:
                    continue
                try:
                    game.apply(state, seat, action, 0.0)
                except Rejection:
                    continue
                raise AssertionError(f"{action} accepted from seat {seat} but not listed as legal")
