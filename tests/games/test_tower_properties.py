"""Property tests of the `tower` engine over whole random games (hypothesis).

Each game: 2 to 6 seats, a scripted first round that seat 0 wins at once (so that the holder may
choose variations, TO-5), then rounds dealt from a random seed under every combination of
variations (TO-11..TO-14), played by a mix of random legal actions and robots, to the match end
or a bound. After every action:

* cards are conserved as a multiset over hands, face-up and Four Down slots, arena, the cleared
  pile and the set-aside cards (TO-1, several packs);
* nothing hidden leaks (TO-17): an independent oracle follows the visibility rules from the
  `inspect()` truth before and after each action and every card string in every event and view
  sent to a seat (or a spectator) must be one that seat may know; and every view is unchanged
  when the cards hidden from its audience (every Four Down card not flipped to it, other seats'
  hands, the set-aside cards) are swapped for others, which checks each specific Four Down card
  even where several packs repeat its name.

Rejections (of random and garbage actions) must change nothing and be the only error raised.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.conformance import strings_in
from shared.games import cards as card_text
from shared.games.base import Event, Rejection, Setup
from shared.games.tower import TOWER, Flip, Layout, TowerState, packs_for
from shared.robots.tower import TowerRobot

VARIATIONS = ["hot_fives", "skip_sixes", "high_sevens", "reverse_eights"]
MAX_ACTIONS = 260  # enough for a round or two of mostly-robot play; keeps the suite fast
ROBOT_SHARE = 0.7  # the rest of the moves are random legal actions, to reach odd corners
EXAMPLES = 25  # per property: moderate, the suite must stay fast
SPECTATOR = None


def deck(seats: int) -> list[str]:
    return card_text.standard_deck() * packs_for(seats)


def quick_first_round(seats: int, seed: int) -> dict[str, Any]:
    """Round 1 that seat 0 wins at once: four face-up Kings, four Tower 4s face down."""
    winner = ["KS", "KH", "KD", "KC", "4S", "4H", "4D", "4C"]
    rest = Counter(deck(seats)) - Counter(winner)
    order = list(rest.elements())
    random.Random(seed).shuffle(order)
    order.sort(key=lambda c: card_text.rank(c) in ("K", "4"))  # nobody else may outrank the Kings (TO-4)
    entries = [{"down": winner[4:], "up": winner[:4], "hand": []}]
    for index in range(1, seats):
        cards = order[(index - 1) * 19 : index * 19]
        entries.append({"down": cards[:4], "up": cards[4:8], "hand": cards[8:]})
    return {"seats": entries}


def first_round_script() -> list[dict[str, Any]]:
    """Seat 0's moves that win the quick first round."""
    script: list[dict[str, Any]] = [
        {"type": "setup", "direction": "left", "variations": []},
        {"type": "play", "hand": [], "up": [0, 1, 2, 3]},
    ]
    for slot in range(4):
        script += [{"type": "flip", "slot": slot}, {"type": "play", "hand": [], "up": [], "down": [slot]}]
    return script


# ---------------------------------------------------------------- the oracle


class Oracle:
    """What each seat (and a spectator) may know, from the rules (TO-17) and the table's truth."""

    def __init__(self, seats: int) -> None:
        self.audiences: list[int | None] = [*range(seats), SPECTATOR]
        self.known: dict[int | None, set[str]] = {a: set() for a in self.audiences}

    def learn(
        self, before: dict[str, Any], action: dict[str, Any] | None, actor: int | None, after: dict[str, Any]
    ) -> None:
        public: set[str] = set()
        for truth in (before, after):
            public |= set(truth["arena"]) | set(truth["cleared"])  # the arena is public, so is what left it
            for hand in truth["hands"].values():
                public |= {c for c in hand["up"] if c}  # face-up cards are public
        if action is not None and action.get("type") == "play" and actor is not None:
            public |= played_cards(before, actor, action)  # a played card is public, a flipped one too
        for audience in self.audiences:
            self.known[audience] |= public
        for seat in range(len(self.audiences) - 1):
            for truth in (before, after):
                self.known[seat] |= set(truth["hands"][str(seat)]["hand"])  # one's own hand
                flip = truth["flipped"]
                if flip is not None and flip["seat"] == seat:
                    self.known[seat].add(flip["card"])  # the flip is shown to its owner (TO-10)

    def check(self, audience: int | None, sent: Any, what: str) -> None:
        shown = {s for s in strings_in(sent) if card_text.is_card(s)}
        leaked = shown - self.known[audience]
        assert not leaked, f"{what} showed {sorted(leaked)} to {audience!r}"


def played_cards(before: dict[str, Any], seat: int, action: dict[str, Any]) -> set[str]:
    layout = before["hands"][str(seat)]
    cards = set(action.get("hand") or [])
    cards |= {layout["up"][s] for s in action.get("up") or []}
    cards |= {layout["down"][s] for s in action.get("down") or []}
    return {c for c in cards if c}


def check_conservation(state: TowerState) -> None:
    truth = TOWER.inspect(state)
    places = list(truth["arena"]) + list(truth["cleared"]) + list(truth["aside"])
    for hand in truth["hands"].values():
        places += hand["hand"] + [c for c in hand["up"] + hand["down"] if c]
    assert Counter(places) == Counter(deck(state.seats)), "cards are not conserved"


def scrambled(state: TowerState, audience: int | None) -> TowerState:
    """The same table with every card hidden from ``audience`` swapped for another card."""
    swap = {card: other for card, other in zip(card_text.standard_deck(), card_text.standard_deck()[1:] + ["AS"])}
    flip = state.flipped
    layouts = []
    for seat, layout in enumerate(state.layouts):
        hand = layout.hand if seat == audience else tuple(swap[c] for c in layout.hand)
        down = []
        for slot, card in enumerate(layout.down):
            shown = flip is not None and flip.seat == seat == audience and flip.slot == slot
            down.append(card if card is None or shown else swap[card])
        layouts.append(Layout(hand, layout.up, tuple(down)))
    if flip is not None and flip.seat != audience:
        flip = Flip(flip.seat, flip.slot, swap[flip.card])
    return replace(state, layouts=tuple(layouts), flipped=flip, aside=tuple(swap[c] for c in state.aside))


def check_sent(oracle: Oracle, state: TowerState, events: list[Event]) -> None:
    for audience in oracle.audiences:
        for event in events:
            if event.audience.includes(audience):
                oracle.check(audience, event.to_json(), f"event {event.kind}")
        view = TOWER.view(state, audience)
        json.dumps(view)  # a view is JSON-able
        oracle.check(audience, view, "a view")
        unseen = TOWER.view(scrambled(state, audience), audience)
        assert unseen == view, f"a view for {audience!r} depends on hidden cards"


# ---------------------------------------------------------------- playing a match


def setup_choice(legal: list[dict[str, Any]], variations: list[str], direction: str) -> dict[str, Any]:
    for action in legal:
        if action["direction"] == direction and action["variations"] == variations:
            return action
    return legal[0]


def play_match(seats: int, seed: int, variations: list[str], direction: str, checks: bool = True) -> TowerState:
    options = TOWER.check_options({"rounds": 3}, seats)
    state, events = TOWER.start(Setup(seats=seats, options=options, seed=seed, deals=[quick_first_round(seats, seed)]))
    oracle = Oracle(seats)
    oracle.learn(TOWER.inspect(state), None, None, TOWER.inspect(state))
    robots = [TowerRobot(game_id="tower", seat=s, seats=seats, options=options, seed=seed) for s in range(seats)]
    chance = random.Random(seed)

    def deliver(
        new_state: TowerState, new_events: list[Event], before: dict[str, Any], action: Any, actor: Any
    ) -> None:
        for event in new_events:
            for s in range(seats):
                if event.audience.includes(s):
                    robots[s].observe(event.to_json())
        if checks:
            check_conservation(new_state)
            oracle.learn(before, action, actor, TOWER.inspect(new_state))
            check_sent(oracle, new_state, new_events)

    before = TOWER.inspect(state)
    deliver(state, events, before, None, None)
    for action in first_round_script():
        before = TOWER.inspect(state)
        state, events = TOWER.apply(state, 0, action, 0.0)
        deliver(state, events, before, action, 0)
    assert TOWER.inspect(state)["round"] == 2
    for _ in range(MAX_ACTIONS):
        mover = TOWER.to_move(state)
        if mover is None:
            break
        legal = TOWER.legal_actions(state, mover)
        assert legal, "the seat to move always has a legal action"
        if legal[0]["type"] == "setup":
            action = setup_choice(legal, variations, direction)
        elif chance.random() < ROBOT_SHARE:
            action = robots[mover].choose(TOWER.view(state, mover), legal, 0.0)
            assert action in legal
        else:
            action = chance.choice(legal)
        before = TOWER.inspect(state)
        state, events = TOWER.apply(state, mover, action, 0.0)
        deliver(state, events, before, action, mover)
    return state


variation_sets = st.lists(st.sampled_from(VARIATIONS), unique=True).map(lambda v: [x for x in VARIATIONS if x in v])


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(2, 6),
    seed=st.integers(0, 2**31),
    variations=variation_sets,
    direction=st.sampled_from(["left", "right"]),
)
def test_cards_conserved_and_nothing_hidden_leaks(seats: int, seed: int, variations: list[str], direction: str) -> None:
    """TO-1, TO-17 over whole games with every combination of variations."""
    play_match(seats, seed, variations, direction)


@settings(max_examples=12, deadline=None)
@given(seats=st.integers(2, 6), seed=st.integers(0, 2**31), variations=variation_sets)
def test_every_listed_legal_action_is_accepted(seats: int, seed: int, variations: list[str]) -> None:
    state = play_match(seats, seed, variations, "left", checks=False)
    mover = TOWER.to_move(state)
    for seat in range(seats):
        for action in TOWER.legal_actions(state, seat):
            TOWER.apply(state, seat, action, 0.0)
        if seat != mover:
            assert TOWER.legal_actions(state, seat) == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 9) | st.sampled_from(["KS", "4H", "5D", "K", "left", "hot_fives", "x"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["hand", "up", "down", "as", "slot"]), inner, max_size=3),
    max_leaves=8,
)
garbage_actions = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"type": st.sampled_from(["play", "flip", "pick_up", "setup", "dance"])},
        optional={
            "hand": json_values,
            "up": json_values,
            "down": json_values,
            "as": json_values,
            "slot": json_values,
            "direction": json_values,
            "variations": json_values,
        },
    ),
)


@settings(max_examples=150, deadline=None)
@given(action=garbage_actions, seat=st.integers(-1, 6), seed=st.integers(0, 50), moves=st.integers(0, 40))
def test_garbage_actions_only_ever_raise_rejection(action: Any, seat: int, seed: int, moves: int) -> None:
    options = TOWER.check_options({"rounds": 1}, 3)
    state, _ = TOWER.start(Setup(seats=3, options=options, seed=seed))
    chance = random.Random(seed)
    for _ in range(moves):
        mover = TOWER.to_move(state)
        if mover is None:
            break
        state, _ = TOWER.apply(state, mover, chance.choice(TOWER.legal_actions(state, mover)), 0.0)
    snapshot = (TOWER.inspect(state), [TOWER.view(state, s) for s in (0, 1, 2, None)])
    try:
        TOWER.apply(state, seat, action, 0.0)
    except Rejection as rejection:
        assert rejection.reason in {"unknown_action", "bad_target", "illegal", "not_your_turn", "round_over"}
        assert (TOWER.inspect(state), [TOWER.view(state, s) for s in (0, 1, 2, None)]) == snapshot
