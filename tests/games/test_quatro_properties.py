"""Properties of whole random Quatro games (rules/quatro.md QU-1, QU-3, QU-16).

Random tables (seats, seeds, robot seats) are played by random legal actions, random
disconnections and a clock that moves the way the table service moves it (to each deadline in
turn). Along the way:

* every card of the deck is in exactly one place (QU-1);
* nothing hidden leaks: an independent knowledge oracle, following QU-16 (a seat knows the cards
  that were ever in its own hand, every card that was ever in the centre, and every hand shown at a
  round's end), must cover every card string in every event and view sent to each seat and to a
  spectator; a team's signal object reaches that team's seats only (QU-3);
* a refused action changes nothing, and garbage only ever raises ``Rejection``;
* a table replays exactly from its set-up and its timed inputs.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.games.base import Event, Json, Rejection, Setup
from shared.games.cards import is_card
from shared.games.quatro import QUATRO
from shared.games.quatro.rules import deck, team_of

SPECTATOR = None
STEPS_PER_GAME = 160  # long enough to cross several rounds, short enough for a fast suite
ACTION_SHARE = 0.8  # the rest of the steps move the clock or the connections
CLOCK_STEPS = (0.3, 1.0, 2.5, 6.0, 25.0, 70.0)  # from inside a cooldown to across a whole phase


def _strings(value: Json) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _strings(item)]
    return []


def _signal_teams(value: Json) -> list[int]:
    """Teams named by ``{"team", "signal"}`` objects inside a message."""
    found: list[int] = []
    if isinstance(value, Mapping):
        if isinstance(value.get("signal"), str) and "team" in value:
            found.append(value["team"])
        for item in value.values():
            found += _signal_teams(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            found += _signal_teams(item)
    return found


class Oracle:
    """What each seat (and a spectator) may know, from the truth alone (QU-16)."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.known: dict[int | None, set[str]] = {seat: set() for seat in [*range(seats), SPECTATOR]}

    def learn(self, truth: Mapping[str, Any]) -> None:
        public = set(truth["center"])  # QU-16: the centre is public
        if truth["phase"] in ("round_over", "match_over"):  # QU-10: every hand is public at round end
            public |= {card for hand in truth["hands"].values() for card in hand}
        for seat, known in self.known.items():
            known |= public
            if seat is not None:
                known |= set(truth["hands"][str(seat)])  # QU-16: a hand is private to its holder

    def check(self, seat: int | None, message: Json) -> None:
        cards = {text for text in _strings(message) if is_card(text)}
        leaked = cards - self.known[seat]
        assert not leaked, f"seat {seat} was sent {sorted(leaked)}"
        teams = _signal_teams(message)
        allowed = [] if seat is None else [team_of(seat, self.seats)]
        assert all(team in allowed for team in teams), f"seat {seat} was told the signal of teams {teams}"


class Walk:
    """One random table, played and checked step by step."""

    def __init__(self, seats: int, seed: int, robots: frozenset[int], walk_seed: int) -> None:
        self.seats = seats
        self.random = random.Random(walk_seed)
        self.state, events = QUATRO.start(Setup(seats=seats, options=QUATRO.check_options({}, seats), seed=seed, robots=robots))
        self.oracle = Oracle(seats)
        self.inputs: list[tuple[str, int, Json, float]] = []
        self.now = 0.0
        self.deliver(events)

    def deliver(self, events: list[Event], before: Mapping[str, Any] | None = None) -> None:
        truth = QUATRO.inspect(self.state)
        self.assert_conserved(truth)
        if before is not None:
            self.oracle.learn(before)
        self.oracle.learn(truth)
        for seat in [*range(self.seats), SPECTATOR]:
            for event in events:
                if event.audience.includes(seat):
                    self.oracle.check(seat, event.to_json())
            self.oracle.check(seat, QUATRO.view(self.state, seat))

    def assert_conserved(self, truth: Mapping[str, Any]) -> None:
        dealt = [card for hand in truth["hands"].values() for card in hand] + list(truth["center"])
        assert sorted(dealt) == sorted(deck(self.seats))  # QU-1: every card in exactly one place

    def clock_to(self, now: float) -> None:
        """Move the clock as the table service does: to each deadline in turn, then to ``now``."""
        while True:
            deadline = QUATRO.next_deadline(self.state)
            target = now if deadline is None or deadline > now else deadline
            before = QUATRO.inspect(self.state)
            self.state, events = QUATRO.advance(self.state, target)
            self.inputs.append(("advance", -1, None, target))
            self.deliver(events, before)
            if target >= now:
                break
        self.now = now

    def act(self, seat: int, action: Mapping[str, Json]) -> bool:
        before = QUATRO.inspect(self.state)
        views = [QUATRO.view(self.state, s) for s in [*range(self.seats), SPECTATOR]]
        try:
            self.state, events = QUATRO.apply(self.state, seat, action, self.now)
        except Rejection:
            assert QUATRO.inspect(self.state) == before
            assert [QUATRO.view(self.state, s) for s in [*range(self.seats), SPECTATOR]] == views
            return False
        self.inputs.append(("apply", seat, dict(action), self.now))
        self.deliver(events, before)
        return True

    def step(self) -> None:
        roll = self.random.random()
        if roll < ACTION_SHARE:
            seat = self.random.randrange(self.seats)
            legal = QUATRO.legal_actions(self.state, seat)
            if legal:
                assert self.act(seat, self.random.choice(legal)), "a legal action was refused"
        elif roll < ACTION_SHARE + 0.04:
            seat = self.random.randrange(self.seats)
            self.act(seat, {"type": self.random.choice(["disconnect", "reconnect"])})
        else:
            self.clock_to(self.now + self.random.choice(CLOCK_STEPS))


tables = st.tuples(
    st.sampled_from([4, 6, 8]),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.sets(st.integers(0, 7), max_size=4),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables)
def test_qu1_qu16_cards_are_conserved_and_nothing_hidden_leaks(table: tuple[int, int, int, set[int]]) -> None:
    seats, seed, walk_seed, robots = table
    walk = Walk(seats, seed, frozenset(seat for seat in robots if seat < seats), walk_seed)
    for _ in range(STEPS_PER_GAME):
        walk.step()
        if walk.state.phase == "match_over":
            break


@settings(max_examples=15, deadline=None)
@given(tables)
def test_a_table_replays_exactly_from_its_inputs(table: tuple[int, int, int, set[int]]) -> None:
    seats, seed, walk_seed, robots = table
    setup = Setup(seats=seats, options=QUATRO.check_options({}, seats), seed=seed, robots=frozenset(r for r in robots if r < seats))
    walk = Walk(seats, seed, setup.robots, walk_seed)
    for _ in range(80):
        walk.step()
    replay, _ = QUATRO.start(setup)
    for kind, seat, action, now in walk.inputs:
        if kind == "advance":
            replay, _ = QUATRO.advance(replay, now)
        else:
            replay, _ = QUATRO.apply(replay, seat, action, now)
    assert QUATRO.inspect(replay) == QUATRO.inspect(walk.state)


values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 40) | st.floats(allow_nan=True) | st.text(max_size=4)
    | st.sampled_from(["AC", "KH", "🍍", "exchange", "quatro", "contra", "show", "vote"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
action_types = st.sampled_from(
    ["choose_signal", "ready", "exchange", "take_floor", "show", "release_floor", "quatro", "contra",
     "propose_reshuffle", "vote", "start_next_round", "disconnect", "reconnect", "pass", ""]
)  # fmt: skip
field_names = st.sampled_from(["hand_slot", "center_slot", "expect", "emoji", "confirm", "team", "accept", "seat"])
garbage_actions = st.one_of(
    values,
    st.builds(lambda kind, fields: {"type": kind, **fields}, action_types, st.dictionaries(field_names, values, max_size=4)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([4, 6]),
    st.integers(0, 500),
    st.integers(0, 60),
    st.lists(st.tuples(st.integers(-1, 8), garbage_actions), min_size=1, max_size=6),
)
def test_garbage_only_ever_raises_rejection_and_changes_nothing(
    seats: int, seed: int, warmup: int, attempts: list[tuple[int, Any]]
) -> None:
    walk = Walk(seats, seed, frozenset(), seed)
    for _ in range(warmup):
        walk.step()
    for seat, action in attempts:
        walk.act(seat, action)
